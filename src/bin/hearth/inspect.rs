//! `hearth info`, `check`, `names` and `report`: what an output folder holds.

use crate::bake::read_timings;
use crate::{human, print_text};
use hearth::read::inspect::{
    check_output, file_counts, has_counts, kind_tools, line_field, manifest_kinds, write_output,
    OutputFolder,
};
use hearth::{AssetKind, Assets};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `hearth info` reads: one file, or an output folder (its tree, or a pack-only bake's
/// pack).
pub(crate) enum InfoSource {
    File(PathBuf),
    Folder(OutputFolder),
}

impl InfoSource {
    fn size(&self, rel: &str) -> Result<u64, String> {
        match self {
            InfoSource::File(path) => std::fs::metadata(path)
                .map(|meta| meta.len())
                .map_err(|e| e.to_string()),
            InfoSource::Folder(folder) => folder.size(rel),
        }
    }

    fn read(&self, rel: &str) -> Result<Vec<u8>, String> {
        match self {
            InfoSource::File(path) => {
                let cap = hearth::read::inspect::MAX_NAMED_FILE_BYTES;
                hearth::read::inspect::read_named_file(path, cap)
            }
            InfoSource::Folder(folder) => folder.read(rel),
        }
    }
}

/// The files `hearth info` describes, as (runtime path, kind), and where they are read: every
/// file of an output folder, or the one file given. Kinds come from the `assets.hman` row
/// naming the file, else from its extension.
pub(crate) fn info_files(out: &Path) -> Result<(InfoSource, Vec<(String, AssetKind)>), String> {
    let meta = std::fs::metadata(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if !meta.is_dir() && !meta.is_file() {
        // A FIFO or a device: waited on or read without end, never described.
        return Err(format!("{}: not a regular file", out.display()));
    }
    if hearth::read::inspect::is_pack_file(out) {
        // A pack file stands for the tree it packs.
        return folder_files(OutputFolder::open_pack(out)?);
    }
    if !meta.is_dir() {
        let rel = out.display().to_string();
        let kind = kind_of_file(out);
        return Ok((InfoSource::File(out.to_path_buf()), vec![(rel, kind)]));
    }
    folder_files(OutputFolder::open(out)?)
}

/// An output folder's (or pack's) files with their kinds.
fn folder_files(folder: OutputFolder) -> Result<(InfoSource, Vec<(String, AssetKind)>), String> {
    let listed = folder.manifest_kinds();
    let files = folder
        .paths()
        .into_iter()
        .map(|rel| {
            let kind = listed
                .get(&rel)
                .copied()
                .unwrap_or_else(|| AssetKind::from_path(&rel));
            (rel, kind)
        })
        .collect();
    Ok((InfoSource::Folder(folder), files))
}

/// The kind of one file: its row in the nearest `assets.hman` above it that lists it, else
/// the kind of its extension.
pub(crate) fn kind_of_file(file: &Path) -> AssetKind {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    for root in file.ancestors().skip(1) {
        if !root.join(hearth::format::hman::MANIFEST_PATH).is_file() {
            continue;
        }
        let Ok(rel) = file.strip_prefix(root) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if let Some(kind) = manifest_kinds(root).get(&rel) {
            return *kind;
        }
    }
    AssetKind::from_path(&file.to_string_lossy())
}

/// `hearth info OUT_OR_FILE`: every file with its kind, size and description, then totals.
pub(crate) fn info(out: &Path) -> Result<(), String> {
    let (source, files) = info_files(out)?;
    let mut totals: BTreeMap<AssetKind, (usize, u64)> = Default::default();
    outln!("{:<48} {:<9} {:>12}  details", "file", "kind", "size");
    for (rel, kind) in &files {
        let size = source.size(rel).unwrap_or(0);
        let details = kind_tools(*kind)
            .and_then(|tools| tools.describe)
            .map(|describe| {
                source
                    .read(rel)
                    .and_then(|bytes| describe(&bytes).map_err(|e| e.to_string()))
                    .unwrap_or_else(|e| format!("INVALID: {e}"))
            })
            .unwrap_or_default();
        outln!(
            "{:<48} {:<9} {:>12}  {}",
            line_field(rel),
            kind.to_string(),
            human(size),
            line_field(&details)
        );
        let total = totals.entry(*kind).or_default();
        total.0 += 1;
        total.1 += size;
    }
    outln!();
    for (kind, (count, size)) in &totals {
        outln!(
            "{:<9} {count:>6} files {:>12}",
            kind.to_string(),
            human(*size)
        );
    }
    let all: u64 = totals.values().map(|t| t.1).sum();
    outln!("{:<9} {:>6} files {:>12}", "total", files.len(), human(all));
    Ok(())
}

/// One file as a JSON object: `path`, `kind` (its name), `size`, and its kind's counts, or
/// `error` when it cannot be read.
pub(crate) fn file_json(rel: &str, source: &InfoSource, kind: AssetKind) -> Value {
    let mut object = Map::new();
    object.insert("path".into(), rel.into());
    object.insert("kind".into(), kind.to_string().into());
    let counts = source.size(rel).and_then(|size| {
        object.insert("size".into(), size.into());
        if !has_counts(kind) {
            return Ok(Vec::new());
        }
        let bytes = source.read(rel)?;
        file_counts(kind, &bytes).map_err(|e| e.to_string())
    });
    match counts {
        Ok(counts) => {
            for (name, value) in counts {
                object.insert(name.into(), value.into());
            }
        }
        Err(error) => {
            object.insert("error".into(), error.into());
        }
    }
    Value::Object(object)
}

/// `hearth info --json`: the same as one JSON document.
pub(crate) fn info_json(out: &Path) -> Result<(), String> {
    let is_dir = std::fs::metadata(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .is_dir()
        || hearth::read::inspect::is_pack_file(out);
    let (source, files) = info_files(out)?;
    let files: Vec<Value> = files
        .iter()
        .map(|(rel, kind)| file_json(rel, &source, *kind))
        .collect();
    let invalid = files.iter().filter(|f| f.get("error").is_some()).count();
    let document = if is_dir {
        let mut kinds: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for file in &files {
            let kind = file["kind"].as_str().unwrap_or_default().to_owned();
            let total = kinds.entry(kind).or_default();
            total.0 += 1;
            total.1 += file["size"].as_u64().unwrap_or(0);
        }
        let size: u64 = kinds.values().map(|t| t.1).sum();
        json!({
            "path": out.display().to_string(),
            "files": files,
            "kinds": kinds
                .iter()
                .map(|(kind, (count, size))| (kind.clone(), json!({"files": count, "size": size})))
                .collect::<Map<String, Value>>(),
            "totals": {"files": files.len(), "size": size, "invalid": invalid},
        })
    } else {
        files.into_iter().next().unwrap_or(Value::Null)
    };
    outln!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON values serialize")
    );
    match invalid {
        0 => Ok(()),
        n => Err(format!("{n} invalid files (see their \"error\" fields)")),
    }
}

/// `hearth check OUT [--json]`: finishes an interrupted bake's journal, then checks every file.
pub(crate) fn check(out: &Path, json: bool) -> Result<(), String> {
    // An interrupted bake is finished (committed) or discarded (not) first, as the next bake
    // would: the folder then holds one bake, the old or the new.
    if out.is_dir() {
        let recovered = hearth::bake::transaction::recover_all(out).map_err(|e| e.to_string())?;
        for (dir, recovery) in recovered {
            eprintln!("{}: {recovery}", dir.display());
        }
    }
    let (problems, files) = check_output(out);
    if json {
        let document = json!({
            "path": out.display().to_string(),
            "ok": problems.is_empty(),
            "files": files,
            "problems": problems,
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON values serialize")
        );
        return match problems.len() {
            0 => Ok(()),
            n => Err(format!("{n} problems (see \"problems\")")),
        };
    }
    if problems.is_empty() {
        outln!("ok: {files} files, manifest and packs consistent");
        Ok(())
    } else {
        Err(format!(
            "{} problems:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}

/// `hearth names`: every row of the name table, one per line (tab-separated) or as JSON.
pub(crate) fn names(source: &Path, json: bool) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let table = assets
        .names()
        .map_err(|e| format!("{}: {e}", source.display()))?;
    if json {
        let rows: Vec<Value> = table
            .iter()
            .map(|row| {
                json!({
                    "name": row.name,
                    "kind": row.kind.to_string(),
                    "path": row.path,
                    "hash": format!("{:016x}", row.hash),
                    "sub": row.sub,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&rows).expect("JSON values serialize");
        return print_text(&format!("{text}\n"));
    }
    let mut text = String::new();
    for row in table.iter() {
        let sub = row.sub.map(|s| format!("\t#{s}")).unwrap_or_default();
        text += &format!(
            "{}\t{}\t{}\t{:016x}{sub}\n",
            line_field(row.name),
            row.kind,
            line_field(row.path),
            row.hash
        );
    }
    print_text(&text)
}

/// Writes the HTML report of `out` (with a bake's facts when given) to `file`, atomically.
pub(crate) fn write_report(
    out: &Path,
    bake: Option<&hearth::bake::Report>,
    file: &Path,
) -> Result<(), String> {
    let html = hearth::bake::report::html(out, bake)?;
    write_html(&html, file, &[out])
}

/// `hearth report OUT --timings TIMINGS -o FILE`: the report of `out` with the timeline of a
/// bake's `--timings` file.
pub(crate) fn report_with_timeline(out: &Path, timings: &Path, file: &Path) -> Result<(), String> {
    let (tasks, wall) = read_timings(timings)?;
    let html = hearth::bake::report::html_with_timeline(out, None, &tasks, wall)?;
    write_html(&html, file, &[out, timings])
}

/// `hearth report --json`: what was written, for scripts.
pub(crate) fn report_json(out: &Path, file: &Path, timeline: bool) -> Result<(), String> {
    let bytes = std::fs::metadata(file)
        .map_err(|e| format!("{}: {e}", file.display()))?
        .len();
    let document = json!({
        "report": file.display().to_string(),
        "bytes": bytes,
        "source": out.display().to_string(),
        "timeline": timeline,
    });
    outln!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON values serialize")
    );
    Ok(())
}

/// Writes a report to `file` (never one of `inputs`), atomically.
pub(crate) fn write_html(html: &str, file: &Path, inputs: &[&Path]) -> Result<(), String> {
    write_output(file, html.as_bytes(), inputs)?;
    eprintln!("report: {}", file.display());
    Ok(())
}
