//! Arbitrary bytes opened as a pack v2 (the version field forced to 2): open, every entry,
//! lookups, the manifest and `verify`. Errors are fine; panics, overflows and out-of-bounds
//! reads are findings.
#![no_main]

#[path = "pack.rs"]
mod pack;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    pack::open_all_ways(&pack::with_version(data, 2));
});
