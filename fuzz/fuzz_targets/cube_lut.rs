//! Arbitrary text parsed as a `.cube` LUT (Adobe/Iridas and Resolve flavours) by the baker's
//! LUT pipeline parser. Errors name a line; nothing may panic.
#![no_main]

use hearth::bake::texture::lut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(cube) = lut::parse(text) {
            std::hint::black_box(cube);
        }
    }
});
