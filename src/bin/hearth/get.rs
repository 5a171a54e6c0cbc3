//! `hearth get`: one entry's bytes (by path, hash or name; through patches with `--over`).

use hearth::format::hash::parse_hash_literal;
use hearth::read::inspect::write_output;
use hearth::Assets;
use std::path::{Path, PathBuf};

/// `hearth get SOURCE ENTRY`: an entry by runtime path or `0x` hash, to stdout or `-o`.
pub(crate) fn get(
    source: &Path,
    entry: &str,
    out: Option<&Path>,
    level: Option<u32>,
) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
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
    out: Option<&Path>,
    level: Option<u32>,
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
    let bytes = match parse_hash_literal(&entry) {
        Some(hash) => mount.get_by_hash(hash),
        None => mount.get(&entry),
    }
    .map_err(|e| format!("{files}: {e}"))?
    .ok_or_else(|| format!("{files}: no entry `{entry}`"))?;
    let inputs: Vec<&Path> = std::iter::once(base)
        .chain(over.iter().map(PathBuf::as_path))
        .collect();
    write_entry(&bytes, &format!("{files}: {entry}"), (out, &inputs), level)
}

/// `hearth get --name`: the file the name names, written as `get` writes a path's.
pub(crate) fn get_named(
    source: &Path,
    name: &str,
    out: Option<&Path>,
    level: Option<u32>,
) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let record = assets
        .lookup_name(name)
        .map_err(|e| format!("{}: {e}", source.display()))?
        .ok_or_else(|| format!("{}: no asset named `{name}`", source.display()))?;
    get(source, &record.path, out, level)
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
