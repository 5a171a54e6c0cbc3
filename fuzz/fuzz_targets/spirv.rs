//! Arbitrary bytes through the structural SPIR-V check (`*.spv` and shader stage folders).
#![no_main]

use hearth::format::spirv;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = spirv::check(data) {
        assert!(!info.entry_points.is_empty());
        assert_eq!(data.len() % 4, 0);
    }
});
