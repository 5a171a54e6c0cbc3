//! The reader's in-memory hash table at small sizes: the input picks a pack of 0 to 70 entries
//! (paths from the input), packed as v3 or v4, and optionally overwrites hash slots with
//! input-chosen hashes (crowded or colliding, still sorted). Every entry must be found by
//! path and by hash, lookups of other paths and hashes must return (a hit or a miss), and
//! nothing may panic or spin. (A full table once made every miss in a two-entry pack spin.)
#![no_main]

use hearth::bake::pack::PackFile;
use hearth::{hash_runtime_path, AssetKind, Codec, PakReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let count = usize::from(head % 71);
    let version = if head & 0x80 == 0 { 4 } else { 3 };
    let mut paths: Vec<String> = (0..count)
        .map(|i| {
            let byte = rest.get(i).copied().unwrap_or(0);
            format!("d{}/f{i}_{byte}.bin", byte % 5)
        })
        .collect();
    paths.sort();
    paths.dedup();
    let files: Vec<PackFile<'_>> = paths
        .iter()
        .map(|path| PackFile {
            path,
            kind: AssetKind::BLOB,
            bytes: path.as_bytes(),
            codec: Codec::None,
            level: None,
        })
        .collect();
    let mut bytes = hearth::bake::pack::build(version, &files);
    let crafted = rest.len() > count && rest[count] & 1 == 1;
    if crafted {
        craft_hashes(&mut bytes, paths.len(), &rest[count + 1..]);
    }
    let Ok(pak) = PakReader::from_bytes(bytes) else {
        return;
    };
    for path in &paths {
        let found = pak.find(path).ok().flatten().map(|e| e.path().into_owned());
        if !crafted {
            assert_eq!(found.as_deref(), Some(path.as_str()));
            let by_hash = pak.find_by_hash(hash_runtime_path(path)).unwrap().unwrap();
            assert_eq!(by_hash.path(), path.as_str());
        }
    }
    for probe in rest.chunks(8) {
        let mut hash = [0u8; 8];
        hash[..probe.len()].copy_from_slice(probe);
        let _ = pak.find_by_hash(u64::from_le_bytes(hash));
    }
    let _ = pak.find("missing.txt");
    let _ = pak.find_by_hash(hash_runtime_path("missing.txt"));
});

/// Overwrites the pack's sorted hash slots with small steps taken from `steps` (0 repeats a
/// hash), so the hashes crowd into a few home slots or collide.
fn craft_hashes(bytes: &mut [u8], len: usize, steps: &[u8]) {
    let Ok(pak) = PakReader::from_bytes(&*bytes) else {
        return;
    };
    let Some(header) = pak.v3_header().copied() else {
        return;
    };
    let mut hash = u64::from(steps.first().copied().unwrap_or(0)) << 56;
    for slot in 0..len {
        hash = hash.wrapping_add(u64::from(steps.get(slot + 1).copied().unwrap_or(1) % 4));
        let at = header.hash_index_offset as usize + slot * 16;
        bytes[at..at + 8].copy_from_slice(&hash.to_le_bytes());
    }
}
