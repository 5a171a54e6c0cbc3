//! Arbitrary text parsed as a `hearth.toml` manifest by `Config::parse` (TOML, layered
//! settings, groups, presets, rules). Errors name the file; nothing may panic.
#![no_main]

use hearth::bake::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(config) = Config::parse(text, "fuzz/hearth.toml", "/nonexistent-content-root") {
            std::hint::black_box(config.warnings.len());
        }
    }
});
