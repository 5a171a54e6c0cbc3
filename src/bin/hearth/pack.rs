//! `hearth diff`, `keygen` and `pack info|verify`: patches, signing keys and one pack.

use crate::human;
use hearth::bake::signing::SigningKey;
use hearth::read::inspect::line_field;
use hearth::read::inspect::{pack_layout, write_output};
use hearth::read::signed::fingerprint;
use hearth::PakReader;
use serde_json::{json, Value};
use std::path::Path;

/// `hearth diff OLD NEW -o PATCH [--sign KEY] [--json]`.
pub(crate) fn diff(
    old: &Path,
    new: &Path,
    out: &Path,
    sign: Option<&Path>,
    json: bool,
) -> Result<(), String> {
    let key = sign
        .map(|key| SigningKey::load(key).map_err(|e| e.to_string()))
        .transpose()?;
    // An output folder stands for its one pack (`pack_file` names the folder otherwise).
    let open = |path: &Path| {
        let pack = hearth::read::layers::pack_file(path).map_err(|e| e.to_string())?;
        PakReader::open(pack).map_err(|e| format!("{}: {e}", path.display()))
    };
    let (old_pak, new_pak) = (open(old)?, open(new)?);
    let patch = hearth::bake::patch::diff(
        &old_pak,
        &old.display().to_string(),
        &new_pak,
        &new.display().to_string(),
        key.as_ref(),
    )
    .map_err(|e| e.to_string())?;
    write_output(out, &patch.bytes, &[old, new])?;
    let stats = &patch.stats;
    if json {
        let identity = hearth::format::hpatch::identity_hex;
        let report = json!({
            "patch": out.display().to_string(),
            "bytes": patch.bytes.len(),
            "signed": key.is_some(),
            "added": stats.added,
            "added_bytes": stats.added_bytes,
            "changed": stats.changed,
            "changed_bytes": stats.changed_bytes,
            "deleted": stats.deleted,
            "deleted_bytes": stats.deleted_bytes,
            "unchanged": stats.unchanged,
            "base_identity": identity(&patch.record.base),
            "result_identity": identity(&patch.record.result),
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).expect("JSON values serialize")
        );
    } else {
        outln!(
            "{}: {} ({} added, {} changed, {} deleted, {} unchanged{})",
            out.display(),
            human(patch.bytes.len() as u64),
            stats.added,
            stats.changed,
            stats.deleted,
            stats.unchanged,
            if key.is_some() { ", signed" } else { "" }
        );
    }
    Ok(())
}

/// `hearth keygen OUT`: a new signing key pair.
pub(crate) fn keygen(out: &Path) -> Result<(), String> {
    let key = SigningKey::generate().map_err(|e| e.to_string())?;
    key.write_pair(out).map_err(|e| e.to_string())?;
    outln!(
        "wrote {} (secret: keep it out of the repository) and {}.pub (key {})",
        out.display(),
        out.display(),
        key.public_key().fingerprint()
    );
    Ok(())
}

/// `hearth pack verify --key KEY FILE`: the signature and every entry's digest.
pub(crate) fn pack_verify(key_file: &Path, file: &Path, json: bool) -> Result<(), String> {
    let key = hearth::bake::signing::load_public_key(key_file).map_err(|e| e.to_string())?;
    let result = PakReader::open_signed(file, &key).and_then(|pak| {
        pak.verify()?;
        Ok(pak.len())
    });
    if json {
        let document = json!({
            "path": file.display().to_string(),
            "key": key.fingerprint(),
            "ok": result.is_ok(),
            "entries": result.as_ref().ok(),
            "error": result.as_ref().err().map(|e| e.to_string()),
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON values serialize")
        );
        return result
            .map(|_| ())
            .map_err(|_| "verification failed".to_owned());
    }
    let entries = result.map_err(|e| format!("{}: {e}", file.display()))?;
    outln!(
        "ok: {} is signed by key {} and all {entries} entries match",
        file.display(),
        key.fingerprint()
    );
    Ok(())
}

/// `hearth pack info FILE`: the pack's header, layout and entries.
pub(crate) fn pack_info(file: &Path, json: bool) -> Result<(), String> {
    let pak = PakReader::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let layout = pack_layout(&pak).map_err(|e| format!("{}: {e}", file.display()))?;
    if json {
        return pack_info_json(file, &pak, &layout);
    }
    let total = pak.bytes().len() as u64;
    outln!(
        "{}: hpack v{}, {} entries, {}",
        file.display(),
        pak.version(),
        pak.len(),
        human(total)
    );
    if let Some(key) = pak.signer_key() {
        outln!(
            "  signed by key {} (unchecked here: `hearth pack verify --key KEY.pub`)",
            fingerprint(&key)
        );
    }
    let share = |b: u64| {
        if total == 0 {
            0.0
        } else {
            b as f64 * 100.0 / total as f64
        }
    };
    for (name, bytes) in [
        ("header", layout.header),
        ("tables", layout.tables),
        ("strings", layout.strings),
        ("payload", layout.payload),
        ("signature", layout.signature),
        ("padding", layout.padding),
    ] {
        outln!("  {name:<9} {:>12} {:>6.2}%", human(bytes), share(bytes));
    }
    outln!("  payload uncompressed: {}", human(layout.uncompressed));
    outln!();
    outln!(
        "  {:<10} {:>7} {:>12} {:>12}",
        "kind",
        "entries",
        "size",
        "stored"
    );
    for (kind, (count, size, stored)) in &layout.per_kind {
        outln!(
            "  {:<10} {count:>7} {:>12} {:>12}",
            kind.to_string(),
            human(*size),
            human(*stored)
        );
    }
    outln!();
    outln!(
        "  {:<10} {:>12} {:>12} {:<7} {:>10}  path",
        "kind",
        "size",
        "stored",
        "codec",
        "offset"
    );
    for entry in pak.entries() {
        let entry = entry.map_err(|e| format!("{}: {e}", file.display()))?;
        outln!(
            "  {:<10} {:>12} {:>12} {:<7} {:>10}  {}",
            entry.kind().to_string(),
            entry.size(),
            entry.stored_size(),
            entry.codec().name(),
            entry.offset(),
            line_field(&entry.path())
        );
    }
    Ok(())
}

/// `pack info --json`: the same facts as the text, as one object.
pub(crate) fn pack_info_json(
    file: &Path,
    pak: &PakReader,
    layout: &hearth::read::inspect::PackLayout,
) -> Result<(), String> {
    let mut entries = Vec::with_capacity(pak.len());
    for entry in pak.entries() {
        let entry = entry.map_err(|e| format!("{}: {e}", file.display()))?;
        entries.push(json!({
            "path": entry.path(),
            "kind": entry.kind().0,
            "kind_name": entry.kind().name(),
            "size": entry.size(),
            "stored_size": entry.stored_size(),
            "codec": entry.codec().name(),
            "offset": entry.offset(),
        }));
    }
    let kinds: Vec<Value> = layout
        .per_kind
        .iter()
        .map(|(kind, (count, size, stored))| {
            json!({
                "kind": kind.0,
                "kind_name": kind.name(),
                "entries": count,
                "size": size,
                "stored_size": stored,
            })
        })
        .collect();
    let document = json!({
        "path": file.display().to_string(),
        "version": pak.version(),
        "size": pak.bytes().len(),
        "entry_count": pak.len(),
        "signer_key": pak.signer_key().map(|key| fingerprint(&key)),
        "layout": {
            "header": layout.header,
            "tables": layout.tables,
            "strings": layout.strings,
            "payload": layout.payload,
            "signature": layout.signature,
            "padding": layout.padding,
            "uncompressed": layout.uncompressed,
        },
        "kinds": kinds,
        "entries": entries,
    });
    outln!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON values serialize")
    );
    Ok(())
}
