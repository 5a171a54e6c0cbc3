//! The bake report: one self-contained HTML page (no script, no network) describing an output
//! folder: every baked file with its kind, source and sizes, the pack's stored size and codec,
//! texture thumbnails (as PNG data URIs), mesh counts, the size by kind and by folder as inline
//! SVG bar charts, and — when made right after a bake (`hearth bake --report`) — each asset's
//! bake time, cache hit and the bake's warnings.

use crate::bake::baker::Report;
use crate::bake::cache::Cache;
use crate::bake::timings::TaskTime;
use crate::format::hman::AssetKind;
use crate::format::hnames::{NamesView, NAMES_PATH};
use crate::read::ktx2::Ktx2;
use crate::read::mesh::MeshView;
use crate::read::pak::PakReader;
use crate::read::transcode::rgba8_image;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// Largest side of a texture thumbnail, pixels.
const THUMBNAIL: u32 = 64;

/// What the report says of one file of the tree.
struct FileRow {
    path: String,
    kind: String,
    size: u64,
    /// (stored size, codec name) in the pack.
    packed: Option<(u64, &'static str)>,
    /// (source path, its size with side inputs), from the incremental cache.
    source: Option<(String, u64)>,
    /// (bake time, cache hit), from the bake just made.
    bake: Option<(Duration, &'static str)>,
    details: String,
    thumbnail: Option<String>,
    /// The 64-bit asset hash of its `assets.hman` row (what a game looks it up by).
    hash: Option<u64>,
    /// Its name in `assets.hnames` (what a game can look it up by too).
    name: Option<String>,
}

/// The report of the output folder `out` (the folder holding `assets.hman`), with the facts
/// only a bake knows (times, cache hits, warnings) when `bake` is that bake's report, and its
/// task timeline when that bake recorded timings ([`Report::tasks`]).
pub fn html(out: &Path, bake: Option<&Report>) -> Result<String, String> {
    let tasks = bake.map_or(&[][..], |report| &report.tasks[..]);
    let wall = bake.map_or(Duration::ZERO, |report| report.elapsed);
    html_with_timeline(out, bake, tasks, wall)
}

/// [`html`] with a timeline of `tasks` (a bake's [`Report::tasks`], or read back from
/// `hearth bake --timings`): one bar per task, one row per worker thread, over `wall` (else
/// until the last task ends). No timeline when `tasks` is empty.
pub fn html_with_timeline(
    out: &Path,
    bake: Option<&Report>,
    tasks: &[TaskTime],
    wall: Duration,
) -> Result<String, String> {
    let page = files_page(out, bake)?;
    if tasks.is_empty() {
        return Ok(page);
    }
    // Before the file table, after the summary and warnings.
    let at = page.find("<h2>Files</h2>").unwrap_or(page.len());
    Ok(format!(
        "{}{}{}",
        &page[..at],
        timeline(tasks, wall),
        &page[at..]
    ))
}

/// The page of [`html`], without a timeline.
fn files_page(out: &Path, bake: Option<&Report>) -> Result<String, String> {
    // The tree, or a pack-only bake's pack.
    let folder = crate::read::inspect::OutputFolder::open(out)?;
    let files = folder.paths();
    if files.is_empty() {
        return Err(format!("{}: no baked files (bake first)", out.display()));
    }
    let kinds = folder.manifest_kinds();
    let bookkeeping = |name: &str| folder.read(name).unwrap_or_default();
    let manifest = bookkeeping(crate::format::hman::MANIFEST_PATH);
    let hashes: BTreeMap<&str, u64> = crate::format::hman::parse(&manifest)
        .map(|rows| rows.iter().map(|row| (row.path, row.hash)).collect())
        .unwrap_or_default();
    let name_table = bookkeeping(NAMES_PATH);
    let names: BTreeMap<String, String> = NamesView::parse(&name_table)
        .map(|view| {
            view.rows()
                .filter(|row| row.sub.is_none())
                .map(|row| (row.path.to_owned(), row.name.to_owned()))
                .collect()
        })
        .unwrap_or_default();
    // The packs: root `.hpack` files assets.hman does not list, read for their entries.
    let mut packed: BTreeMap<String, (u64, &'static str)> = BTreeMap::new();
    let mut packs = Vec::new();
    let mut roots: Vec<_> = std::fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|e| e.ok())
        // A regular file, not a link (whose type is not followed here) or a FIFO.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| {
            name.to_ascii_lowercase().ends_with(".hpack") && !kinds.contains_key(name)
        })
        .collect();
    roots.sort();
    for (rel, path) in &roots {
        {
            let pak = PakReader::open(path).map_err(|e| format!("{rel}: {e}"))?;
            for entry in pak.entries() {
                let entry = entry.map_err(|e| format!("{rel}: {e}"))?;
                packed.insert(
                    entry.path().into_owned(),
                    (entry.stored_size(), entry.codec().name()),
                );
            }
            packs.push((
                rel.clone(),
                std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            ));
        }
    }
    let (cache, _) = Cache::load(out);
    let mut source_of: BTreeMap<&str, (&str, u64)> = BTreeMap::new();
    for asset in &cache.assets {
        for output in &asset.outputs {
            source_of.insert(
                output.path.as_str(),
                (asset.rel.as_str(), asset.source_size),
            );
        }
    }
    let bake_of: BTreeMap<&str, (Duration, &'static str)> = bake
        .map(|report| {
            report
                .asset_times
                .iter()
                .map(|t| (t.rel.as_str(), (t.elapsed, t.origin)))
                .collect()
        })
        .unwrap_or_default();

    let mut rows = Vec::new();
    for rel in &files {
        let Some(kind) = kinds
            .get(rel)
            .copied()
            .or_else(|| (rel == crate::format::hman::MANIFEST_PATH).then_some(AssetKind::MANIFEST))
            .or_else(|| (rel == NAMES_PATH).then_some(AssetKind::NAMES))
        else {
            continue; // the pack itself, shown in the summary
        };
        let bytes = folder.read(rel).map_err(|e| format!("{rel}: {e}"))?;
        let (details, thumbnail) = describe(kind, &bytes);
        let source = source_of.get(rel.as_str()).copied();
        rows.push(FileRow {
            path: rel.clone(),
            kind: kind_name(kind),
            size: bytes.len() as u64,
            packed: packed.get(rel).copied(),
            source: source.map(|(s, size)| (s.to_owned(), size)),
            bake: source.and_then(|(s, _)| bake_of.get(s).copied()),
            details,
            thumbnail,
            hash: hashes.get(rel.as_str()).copied(),
            name: names.get(rel).cloned(),
        });
    }
    Ok(page(out, &rows, &packs, bake))
}

/// An asset name as the report shows it, or a dash for a file without one.
fn name_cell(name: Option<&str>) -> String {
    name.map_or_else(|| "—".to_owned(), escape)
}

/// An asset hash as the report shows it: 16 hex digits, or a dash for a file with no row.
fn hash_cell(hash: Option<u64>) -> String {
    hash.map_or_else(|| "—".to_owned(), |h| format!("<code>{h:016x}</code>"))
}

fn kind_name(kind: AssetKind) -> String {
    kind.name()
        .map(str::to_owned)
        .unwrap_or_else(|| format!("game({})", kind.0))
}

/// A file's counts in words, and a thumbnail for textures.
fn describe(kind: AssetKind, bytes: &[u8]) -> (String, Option<String>) {
    match kind {
        AssetKind::TEXTURE | AssetKind::LUT => match Ktx2::parse(bytes) {
            Ok(ktx) => {
                let text = crate::read::inspect::describe_ktx2(bytes).unwrap_or_default();
                (text, thumbnail(&ktx))
            }
            Err(e) => (format!("unreadable: {e}"), None),
        },
        AssetKind::MESH => match MeshView::parse(bytes) {
            Ok(mesh) => {
                let mut text = format!(
                    "{} vertices, {} triangles, {} meshlets, {} submeshes",
                    mesh.desc.vertex_count,
                    mesh.desc.index_count / 3,
                    mesh.desc.meshlet_count,
                    mesh.desc.submesh_count
                );
                if let Some(lods) = &mesh.lods {
                    let levels: Vec<String> = (0..lods.header.lod_count as usize)
                        .map(|lod| {
                            (0..mesh.desc.submesh_count as usize)
                                .filter_map(|s| lods.range(s, lod))
                                .map(|r| r.index_count as u64 / 3)
                                .sum::<u64>()
                                .to_string()
                        })
                        .collect();
                    let _ = write!(text, "; LOD triangles {}", levels.join(" / "));
                }
                (text, None)
            }
            Err(e) => (format!("unreadable: {e}"), None),
        },
        _ => (String::new(), None),
    }
}

/// A PNG data URI of the first mip level no larger than [`THUMBNAIL`] (of face and layer 0),
/// or of the smallest level downscaled to fit when none is (a texture without mips), for UASTC
/// and raw 8-bit textures ([`rgba8_image`]); `None` for others (GPU block formats, LUTs).
fn thumbnail(ktx: &Ktx2<'_>) -> Option<String> {
    if ktx.depth() > 1 {
        return None;
    }
    let level = (0..ktx.level_count())
        .find(|&l| {
            let (w, h, _) = ktx.level_dimensions(l);
            w.max(h) <= THUMBNAIL
        })
        .unwrap_or(ktx.level_count().checked_sub(1)?);
    let (w, h, _) = ktx.level_dimensions(level);
    let rgba = rgba8_image(ktx, level).ok()?;
    let mut image = image::RgbaImage::from_raw(w, h, rgba)?;
    if w.max(h) > THUMBNAIL {
        let (tw, th) = thumbnail_size(w, h);
        image = image::imageops::thumbnail(&image, tw, th);
    }
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .ok()?;
    use base64::Engine;
    Some(format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    ))
}

/// The size of a `w`×`h` image scaled to [`THUMBNAIL`] on its longer side, keeping its
/// aspect (at least 1 px a side).
fn thumbnail_size(w: u32, h: u32) -> (u32, u32) {
    let longer = u64::from(w.max(h)).max(1);
    let scale = |side: u32| (u64::from(side) * u64::from(THUMBNAIL) / longer).max(1) as u32;
    (scale(w), scale(h))
}

/// A [hidden control](crate::read::inspect::is_hidden_control) other than a newline or a tab,
/// which a page shows as white space.
fn is_hidden_control(c: char) -> bool {
    crate::read::inspect::is_hidden_control(c) && !matches!(c, '\n' | '\t')
}

/// `text` as HTML element content: markup characters escaped, and each
/// [hidden control](is_hidden_control) shown as a visible `U+XXXX` marker, so that a name like
/// `invoice\u{202E}fdp.exe` cannot display as `invoiceexe.pdf`.
fn escape(text: &str) -> String {
    escape_with(text, |c, out| {
        let _ = write!(out, "<span class=\"ctl\">U+{:04X}</span>", c as u32);
    })
}

/// `text` for an attribute value, a `<title>` or SVG text, where no markup is read: as
/// [`escape`], with each hidden control shown as `[U+XXXX]`.
fn escape_plain(text: &str) -> String {
    escape_with(text, |c, out| {
        let _ = write!(out, "[U+{:04X}]", c as u32);
    })
}

fn escape_with(text: &str, marker: impl Fn(char, &mut String)) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if is_hidden_control(c) => marker(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// Horizontal bars of `(label, bytes)`, largest first, as inline SVG.
fn bar_chart(title: &str, mut bars: Vec<(String, u64)>) -> String {
    bars.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let max = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let (row, label_width, bar_width) = (22, 220, 420);
    let height = row * bars.len() + 8;
    let mut svg = format!(
        "<figure><figcaption>{}</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        escape(title),
        label_width + bar_width + 110,
        escape_plain(title)
    );
    for (i, (label, bytes)) in bars.iter().enumerate() {
        let y = i * row + 4;
        let width = ((*bytes as f64 / max as f64) * bar_width as f64).max(1.0);
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect x=\"{}\" y=\"{y}\" width=\"{width:.1}\" height=\"{}\" class=\"bar\"/>\
             <text x=\"{}\" y=\"{}\">{}</text>",
            label_width - 6,
            y + 14,
            escape_plain(label),
            label_width,
            row - 6,
            label_width as f64 + width + 6.0,
            y + 14,
            human(*bytes)
        );
    }
    svg.push_str("</svg></figure>");
    svg
}

/// The tasks of a bake as an SVG timeline: a row per worker thread, a bar per task (its name
/// and length in the bar's tooltip), and the figures that bound the bake's parallelism.
fn timeline(tasks: &[TaskTime], wall: Duration) -> String {
    let end = tasks
        .iter()
        .map(|t| t.start.saturating_add(t.elapsed))
        .max()
        .unwrap_or_default()
        .max(wall);
    let span = end.as_secs_f64().max(1e-9);
    // A bake has at most MAX_JOBS threads; a task file claiming more is not drawn past it.
    let tasks: Vec<&TaskTime> = tasks
        .iter()
        .filter(|t| t.thread < crate::bake::MAX_JOBS)
        .collect();
    let threads = tasks.iter().map(|t| t.thread).max().unwrap_or(0) + 1;
    let busy = tasks
        .iter()
        .fold(Duration::ZERO, |sum, t| sum.saturating_add(t.elapsed));
    let longest = tasks.iter().max_by_key(|t| t.elapsed);
    let slack = busy.as_secs_f64() / longest.map_or(0.0, |t| t.elapsed.as_secs_f64()).max(1e-9);
    let (row, label_width, bar_width) = (18, 80, 900);
    let mut html = format!(
        "<h2>Timeline ({} tasks)</h2><p>{:.2} s of tasks in {:.2} s on {threads} threads;          longest task {}: {:.1} ms; parallel slack (task seconds / longest task) {:.1}.</p>",
        tasks.len(),
        busy.as_secs_f64(),
        end.as_secs_f64(),
        longest.map_or_else(String::new, |t| format!("<code>{}</code>", escape(&t.name))),
        longest.map_or(0.0, |t| t.elapsed.as_secs_f64() * 1e3),
        slack
    );
    let _ = write!(
        html,
        "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         role=\"img\" aria-label=\"task timeline\">",
        label_width + bar_width + 8,
        row * threads + 4
    );
    for thread in 0..threads {
        let _ = write!(
            html,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">thread {thread}</text>",
            label_width - 6,
            thread * row + 14
        );
    }
    for task in tasks {
        let x = label_width as f64 + task.start.as_secs_f64() / span * bar_width as f64;
        let width = (task.elapsed.as_secs_f64() / span * bar_width as f64).max(0.5);
        // One hue per asset, so an asset's slices read as one.
        let hue = xxhash_rust::xxh3::xxh3_64(task.asset.as_bytes()) % 360;
        let _ = write!(
            html,
            "<rect x=\"{x:.1}\" y=\"{}\" width=\"{width:.1}\" height=\"{}\" \
             fill=\"hsl({hue},55%,55%)\"><title>{}: {:.1} ms</title></rect>",
            task.thread * row + 2,
            row - 4,
            escape_plain(&task.name),
            task.elapsed.as_secs_f64() * 1e3
        );
    }
    html.push_str("</svg></figure>");
    html
}

fn page(out: &Path, rows: &[FileRow], packs: &[(String, u64)], bake: Option<&Report>) -> String {
    let total: u64 = rows.iter().map(|r| r.size).sum();
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_folder: BTreeMap<String, u64> = BTreeMap::new();
    for row in rows {
        *by_kind.entry(row.kind.clone()).or_default() += row.size;
        let folder = row
            .path
            .rsplit_once('/')
            .map(|(dir, _)| dir.to_owned())
            .unwrap_or_else(|| "(root)".to_owned());
        *by_folder.entry(folder).or_default() += row.size;
    }
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>hearth bake report: {}</title><style>\
         body{{font:14px system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}}\
         table{{border-collapse:collapse;width:100%;background:#fff}}\
         th,td{{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:middle}}\
         td.n{{text-align:right;font-variant-numeric:tabular-nums}}\
         img{{image-rendering:pixelated;max-width:64px;max-height:64px;background:#ccc}}\
         .bar{{fill:#4a7fb5}} svg text{{font-size:12px;fill:#222}}\
         figure{{display:inline-block;margin:0 32px 16px 0}} figcaption{{font-weight:600}}\
         .warn{{color:#8a4b00}}\
         .ctl{{font-size:80%;color:#fff;background:#b00020;padding:0 2px;border-radius:2px}}\
         </style></head><body>\
         <h1>hearth bake report</h1><p>{}</p>",
        escape_plain(&out.display().to_string()),
        escape(&out.display().to_string())
    );
    let _ = write!(
        html,
        "<p>{} files, {} in the runtime tree",
        rows.len(),
        human(total)
    );
    for (pack, size) in packs {
        let _ = write!(
            html,
            "; pack <code>{}</code>: {}",
            escape(pack),
            human(*size)
        );
    }
    html.push_str(".</p>");
    match bake {
        Some(report) => {
            let _ = write!(
                html,
                "<p>Bake: {} assets, {} from the cache, {} baked, in {:.2} s.</p>",
                report.assets,
                report.cache_hits
                    + report.shared_local_hits.len()
                    + report.shared_remote_hits.len(),
                report.baked.len(),
                report.elapsed.as_secs_f64()
            );
        }
        None => html.push_str(
            "<p>Made from the output folder: bake times, cache hits and warnings are known \
             only to a bake (<code>hearth bake --report FILE</code>).</p>",
        ),
    }
    html.push_str(&bar_chart("Size by kind", by_kind.into_iter().collect()));
    html.push_str(&bar_chart(
        "Size by folder",
        by_folder.into_iter().collect(),
    ));
    if let Some(report) = bake {
        let _ = write!(html, "<h2>Warnings ({})</h2>", report.warnings.len());
        if report.warnings.is_empty() {
            html.push_str("<p>None.</p>");
        } else {
            html.push_str("<ul>");
            for warning in &report.warnings {
                let _ = write!(html, "<li class=\"warn\">{}</li>", escape(warning));
            }
            html.push_str("</ul>");
        }
    }
    html.push_str(
        "<h2>Files</h2><table><thead><tr><th></th><th>file</th><th>kind</th><th>source</th>\
         <th>source size</th><th>output size</th><th>packed</th><th>codec</th>\
         <th>bake time</th><th>cache</th><th>asset hash</th><th>name</th><th>details</th></tr></thead><tbody>",
    );
    for row in rows {
        let thumbnail = row
            .thumbnail
            .as_ref()
            .map(|uri| format!("<img alt=\"\" src=\"{uri}\">"))
            .unwrap_or_default();
        let (source, source_size) = match &row.source {
            Some((path, size)) => (escape(path), human(*size)),
            None => ("—".to_owned(), "—".to_owned()),
        };
        let (packed, codec) = match row.packed {
            Some((stored, codec)) => (human(stored), codec),
            None => ("—".to_owned(), "—"),
        };
        let (time, cache) = match row.bake {
            Some((elapsed, origin)) => (format!("{:.1} ms", elapsed.as_secs_f64() * 1e3), origin),
            None => ("—".to_owned(), "—"),
        };
        let (hash, name) = (hash_cell(row.hash), name_cell(row.name.as_deref()));
        let _ = write!(
            html,
            "<tr><td>{thumbnail}</td><td><code>{}</code></td><td>{}</td><td>{source}</td>\
             <td class=\"n\">{source_size}</td><td class=\"n\">{}</td><td class=\"n\">{packed}</td>\
             <td>{codec}</td><td class=\"n\">{time}</td><td>{cache}</td><td>{hash}</td><td>{name}</td><td>{}</td></tr>",
            escape(&row.path),
            escape(&row.kind),
            human(row.size),
            escape(&row.details)
        );
    }
    html.push_str("</tbody></table></body></html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbnails_fit_64_px_keeping_their_aspect() {
        assert_eq!(thumbnail_size(4096, 4096), (64, 64));
        assert_eq!(thumbnail_size(2048, 1024), (64, 32));
        assert_eq!(thumbnail_size(16384, 1), (64, 1));
        assert_eq!(thumbnail_size(1, 100), (1, 64));
    }

    /// Every character that can reorder or hide the text around it.
    const BIDI: [char; 12] = [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
        '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
    ];

    #[test]
    fn escaping_shows_bidi_and_control_characters_as_markers() {
        for c in BIDI
            .into_iter()
            .chain(['\u{1}', '\u{1b}', '\u{7f}', '\u{85}', '\r'])
        {
            let name = format!("invoice{c}fdp.exe");
            let marker = format!("U+{:04X}", c as u32);
            let html = escape(&name);
            assert_eq!(
                html,
                format!("invoice<span class=\"ctl\">{marker}</span>fdp.exe")
            );
            assert_eq!(escape_plain(&name), format!("invoice[{marker}]fdp.exe"));
        }
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
        // Right-to-left letters are text, not controls: kept as they are.
        assert_eq!(escape("שלום\tمرحبا\n"), "שלום\tمرحبا\n");
    }
}
