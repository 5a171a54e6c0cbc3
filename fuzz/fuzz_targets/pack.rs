//! Shared by the `pack_v*` targets (`#[path = "pack.rs"] mod pack;`): every read path of an
//! opened pack, as the `open` target does, on input forced to one pack version.
#![allow(dead_code)]

use hearth::{hash_runtime_path, Limits, PakReader};

/// `data` with its version field (bytes 4..8) set to `version`, so that the fuzzer explores
/// that version's layout instead of mostly failing the version check.
pub fn with_version(data: &[u8], version: u32) -> Vec<u8> {
    let mut bytes = data.to_vec();
    if bytes.len() >= 8 {
        bytes[4..8].copy_from_slice(&version.to_le_bytes());
    }
    bytes
}

/// Everything a reader can do with an opened pack; errors are fine, panics are not.
pub fn exercise(pak: &PakReader) {
    let _ = format!("{pak:?}");
    let _ = (pak.version(), pak.len(), pak.is_signed(), pak.signer_key());
    let _ = pak.v3_header().map(|h| format!("{h:?}"));
    for entry in pak.entries().flatten() {
        let path = entry.path();
        let _ = (entry.kind().to_string(), entry.codec().name(), entry.size());
        let _ = entry.stored_bytes().len();
        let _ = entry.verify();
        if let Ok(bytes) = entry.bytes() {
            std::hint::black_box(bytes.len());
        }
        let _ = pak.get(&path);
        let _ = pak.get_by_hash(hash_runtime_path(&path));
    }
    let _ = pak.entry(pak.len());
    let _ = pak.get("assets.hman");
    let _ = pak.find_by_hash(0);
    if let Ok(records) = pak.manifest() {
        for record in records {
            let _ = pak.resolve(record.hash);
            let _ = pak.asset(record.hash);
        }
    }
    let _ = pak.verify();
}

/// Opens `bytes` with the default and with tight limits, and exercises what opens.
pub fn open_all_ways(bytes: &[u8]) {
    if let Ok(pak) = PakReader::from_bytes(bytes) {
        exercise(&pak);
    }
    let tight = Limits {
        max_entries: 4,
        max_entry_size: 64,
        ..Limits::default()
    };
    if let Ok(pak) = PakReader::from_bytes_with_limits(bytes, tight) {
        exercise(&pak);
    }
}
