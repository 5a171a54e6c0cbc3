//! Opens arbitrary bytes as a pack and exercises every read path: entries, entry bytes,
//! lookups by path and by hash, the asset manifest, `resolve` and `verify`. Any of them may
//! return a `ReadError` on a corrupt pack; none may panic, overflow or read out of bounds.
#![no_main]

use hearth::{hash_runtime_path, Entry, Limits, PakReader};
use libfuzzer_sys::fuzz_target;

/// Every accessor of one entry, then the lookups that should lead back to it.
fn exercise_entry(pak: &PakReader, entry: &Entry<'_>) {
    let path = entry.path();
    let _ = (entry.index(), entry.kind().to_string(), entry.codec().name());
    let _ = (entry.offset(), entry.size(), entry.stored_size());
    let _ = entry.stored_bytes().len();
    let _ = entry.verify();
    if let Ok(bytes) = entry.bytes() {
        std::hint::black_box(bytes.len());
    }
    let hash = entry.hash();
    let _ = hash_runtime_path(&path);
    let _ = pak.find(&path);
    let _ = pak.get(&path);
    let _ = pak.find_by_hash(hash);
    let _ = pak.get_by_hash(hash);
}

fn exercise(pak: &PakReader, data: &[u8]) {
    let _ = format!("{pak:?}");
    let _ = (pak.version(), pak.len(), pak.is_empty(), pak.bytes().len());
    let _ = pak.v3_header().map(|h| format!("{h:?}"));

    for entry in pak.entries() {
        if let Ok(entry) = entry {
            exercise_entry(pak, &entry);
        }
    }
    // Out-of-range indices are errors, not panics.
    let _ = pak.entry(pak.len());
    let _ = pak.entry(usize::MAX);

    // Lookups of paths and hashes that may or may not be there.
    for path in [
        "",
        "/",
        "assets.hman",
        "hello.txt",
        "notes/a.txt",
        "\u{10ffff}",
    ] {
        let _ = pak.find(path);
        let _ = pak.get(path);
    }
    let tail_hash = data
        .get(data.len().saturating_sub(8)..)
        .map(|b| b.iter().fold(0u64, |h, &b| h << 8 | u64::from(b)))
        .unwrap_or(0);
    for hash in [0, u64::MAX, tail_hash] {
        let _ = pak.find_by_hash(hash);
        let _ = pak.get_by_hash(hash);
        let _ = pak.resolve(hash);
    }

    // The asset manifest, and every hash it names.
    if let Ok(records) = pak.manifest() {
        for record in records {
            let _ = pak.resolve(record.hash);
            let _ = pak.find_by_hash(record.hash);
            let _ = pak.get(&record.path);
            let _ = (record.kind.name(), format!("{:?}", record.color_space));
        }
    }
    let _ = pak.manifest();

    let _ = pak.verify();
}

fuzz_target!(|data: &[u8]| {
    if let Ok(pak) = PakReader::from_bytes(data) {
        exercise(&pak, data);
    }
    // Tight limits take the limit-exceeded paths.
    let tight = Limits {
        max_entries: 4,
        max_entry_size: 64,
        ..Limits::default()
    };
    if let Ok(pak) = PakReader::from_bytes_with_limits(data, tight) {
        exercise(&pak, data);
    }
});
