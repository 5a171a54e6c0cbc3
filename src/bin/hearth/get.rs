//! `hearth get`: one entry's bytes, or its metadata as JSON (by path, hash or name; through
//! patches with `--over`).

use hearth::format::hash::parse_hash_literal;
use hearth::read::inspect::{file_counts, write_output};
use hearth::{AssetKind, Assets, Codec, Entry};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// What `hearth get` does with the entry it finds.
#[derive(Clone, Copy)]
pub(crate) enum Deliver<'a> {
    /// Its bytes (or one mip level of them) to `out`, else stdout.
    Bytes {
        out: Option<&'a Path>,
        level: Option<u32>,
    },
    /// Its metadata as one JSON object on stdout (`--json`).
    Json,
}

/// `hearth get SOURCE ENTRY`: an entry by runtime path or `0x` hash, to stdout or `-o`, or
/// its metadata.
pub(crate) fn get(source: &Path, entry: &str, deliver: Deliver<'_>) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let Deliver::Bytes { out, level } = deliver else {
        return print_asset_json(source, &assets, entry);
    };
    let bytes = match parse_hash_literal(entry) {
        Some(hash) => assets.get_by_hash(hash),
        None => assets.get(entry),
    }
    .map_err(|e| format!("{}: {e}", source.display()))?
    .ok_or_else(|| format!("{}: no entry `{entry}`", source.display()))?;
    write_entry(
        &bytes,
        &format!("{}: {entry}", source.display()),
        (out, &[source]),
        level,
    )
}

/// `hearth get SOURCE ENTRY --json`: the entry's path, hash, kind, size (decompressed), its
/// names, a pack entry's codec and stored size, and its kind's counts (as `info --json` has
/// them).
fn print_asset_json(source: &Path, assets: &Assets, entry: &str) -> Result<(), String> {
    let in_source = |e: hearth::ReadError| format!("{}: {e}", source.display());
    let info = match parse_hash_literal(entry) {
        Some(hash) => assets.find_by_hash(hash),
        None => assets.find(entry),
    }
    .map_err(in_source)?
    .ok_or_else(|| format!("{}: no entry `{entry}`", source.display()))?;
    let stored = match assets {
        Assets::Pack(pack) => pack.find(&info.path).map_err(in_source)?,
        Assets::Tree(_) => None,
    };
    let names = assets.names().map_err(in_source)?;
    let names: Vec<Value> = names
        .iter()
        .filter(|row| row.path == info.path)
        .map(|row| json!({"name": row.name, "kind": row.kind.to_string(), "sub": row.sub}))
        .collect();
    let bytes = assets
        .get(&info.path)
        .map_err(in_source)?
        .ok_or_else(|| format!("{}: no entry `{entry}`", source.display()))?;
    let facts = EntryFacts {
        path: &info.path,
        hash: info.hash,
        kind: info.kind,
        size: info.size,
        stored: stored.as_ref().map(|e| (e.codec(), e.stored_size())),
    };
    let mut object = facts.json(&bytes);
    object.insert("source".into(), source.display().to_string().into());
    object.insert("names".into(), names.into());
    print_json(object)
}

/// What `--json` says of one entry, wherever it was found.
struct EntryFacts<'a> {
    path: &'a str,
    hash: u64,
    kind: AssetKind,
    /// Decompressed.
    size: u64,
    /// A pack entry's codec and stored size (a tree's file has none).
    stored: Option<(Codec, u64)>,
}

impl EntryFacts<'_> {
    fn of_pack_entry<'e>(entry: &'e Entry<'_>, path: &'e str) -> EntryFacts<'e> {
        EntryFacts {
            path,
            hash: entry.hash(),
            kind: entry.kind(),
            size: entry.size(),
            stored: Some((entry.codec(), entry.stored_size())),
        }
    }

    /// The facts as a JSON object, with the kind's counts read from `bytes` (or `error` when
    /// they cannot be).
    fn json(&self, bytes: &[u8]) -> Map<String, Value> {
        let mut object = Map::new();
        object.insert("path".into(), self.path.into());
        // As `hearth names --json` writes it; `hearth get` takes it back with a `0x`.
        object.insert("hash".into(), format!("{:016x}", self.hash).into());
        object.insert("kind".into(), self.kind.to_string().into());
        object.insert("size".into(), self.size.into());
        if let Some((codec, stored_size)) = self.stored {
            object.insert("codec".into(), codec.name().into());
            object.insert("stored_size".into(), stored_size.into());
        }
        match file_counts(self.kind, bytes) {
            Ok(counts) => {
                for (name, value) in counts {
                    object.insert(name.into(), value.into());
                }
            }
            Err(error) => {
                object.insert("error".into(), error.to_string().into());
            }
        }
        object
    }
}

/// Prints `object` as one JSON document; fails (after printing) when it holds an `error`.
fn print_json(object: Map<String, Value>) -> Result<(), String> {
    let error = object
        .get("error")
        .and_then(Value::as_str)
        .map(str::to_owned);
    outln!(
        "{}",
        serde_json::to_string_pretty(&Value::Object(object)).expect("JSON values serialize")
    );
    match error {
        None => Ok(()),
        Some(error) => Err(format!("the entry is invalid: {error}")),
    }
}

/// Writes an entry's bytes (or one mip level of them) to `out` (never one of `inputs`) or
/// stdout; `label` names the entry in errors.
pub(crate) fn write_entry(
    bytes: &[u8],
    label: &str,
    (out, inputs): (Option<&Path>, &[&Path]),
    level: Option<u32>,
) -> Result<(), String> {
    let bytes: std::borrow::Cow<'_, [u8]> = match level {
        Some(level) => mip_level(bytes, level)
            .map_err(|e| format!("{label}: {e}"))?
            .into(),
        None => bytes.into(),
    };
    match out {
        Some(path) => write_output(path, &bytes, inputs),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                // A closed pipe (`hearth get … | head -c 16`) is the reader's choice, not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
                _ => Ok(()),
            }
        }
    }
}

/// `hearth get BASE PATH --over PATCH …`: the entry through the layers (by path, `0x` hash or
/// `--name`), written as `get` writes it.
pub(crate) fn get_layered(
    base: &Path,
    over: &[PathBuf],
    (entry, name): (Option<&str>, Option<&str>),
    deliver: Deliver<'_>,
) -> Result<(), String> {
    let mut mount = hearth::LayeredPak::open(base).map_err(|e| e.to_string())?;
    for patch in over {
        mount.mount_file(patch).map_err(|e| e.to_string())?;
    }
    let files = std::iter::once(base)
        .chain(over.iter().map(PathBuf::as_path))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    let entry = match name {
        Some(name) => {
            let record = mount
                .lookup_name(name)
                .map_err(|e| format!("{files}: {e}"))?
                .ok_or_else(|| format!("{files}: no asset named `{name}`"))?;
            record.path.into_string()
        }
        None => entry.unwrap_or_default().to_owned(),
    };
    let found = match parse_hash_literal(&entry) {
        Some(hash) => mount.find_by_hash(hash),
        None => mount.find(&entry),
    }
    .map_err(|e| format!("{files}: {e}"))?
    .ok_or_else(|| format!("{files}: no entry `{entry}`"))?;
    let bytes = found.bytes().map_err(|e| format!("{files}: {e}"))?;
    let Deliver::Bytes { out, level } = deliver else {
        let path = found.path();
        let mut object = EntryFacts::of_pack_entry(&found, &path).json(&bytes);
        object.insert("source".into(), files.into());
        // Which of the mounted files the entry was read from.
        object.insert("layer".into(), mount.file_of(&found).into());
        return print_json(object);
    };
    let inputs: Vec<&Path> = std::iter::once(base)
        .chain(over.iter().map(PathBuf::as_path))
        .collect();
    write_entry(&bytes, &format!("{files}: {entry}"), (out, &inputs), level)
}

/// `hearth get --name`: the file the name names, written (or described) as `get` does a
/// path's.
pub(crate) fn get_named(source: &Path, name: &str, deliver: Deliver<'_>) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let record = assets
        .lookup_name(name)
        .map_err(|e| format!("{}: {e}", source.display()))?
        .ok_or_else(|| format!("{}: no asset named `{name}`", source.display()))?;
    get(source, &record.path, deliver)
}

/// Mip level `level` of the KTX2 file `bytes`, inflated when supercompressed.
pub(crate) fn mip_level(bytes: &[u8], level: u32) -> Result<Vec<u8>, String> {
    let stream = hearth::TextureStream::from_bytes(bytes).map_err(|e| match e {
        hearth::ReadError::BadMagic { .. } => "not a KTX2 texture (--level reads KTX2 only)".into(),
        e => format!("KTX2: {e}"),
    })?;
    if level >= stream.level_count() {
        return Err(format!(
            "no level {level}: the texture has {} levels (0 to {})",
            stream.level_count(),
            stream.level_count() - 1
        ));
    }
    Ok(stream
        .level(level)
        .map_err(|e| e.to_string())?
        .bytes
        .into_owned())
}
