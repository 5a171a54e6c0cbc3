//! Arbitrary bytes parsed as `assets.hman` (the asset manifest of trees and packs): every
//! row's fields, and lookups by the hashes found and by others.
#![no_main]

use hearth::format::hman;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = hman::parse(data) else {
        return;
    };
    for entry in &entries {
        let _ = (entry.kind.name(), entry.kind.to_string(), entry.path.len());
        let _ = format!("{:?}", entry.color_space);
        let found = hman::find(&entries, entry.hash);
        assert!(found.is_some(), "a parsed row is found by its hash");
    }
    let _ = hman::find(&entries, 0);
    let _ = hman::find(&entries, u64::MAX);
});
