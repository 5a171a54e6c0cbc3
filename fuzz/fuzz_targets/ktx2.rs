//! Arbitrary bytes parsed as KTX2 by `Ktx2::parse` (and with tight `Limits`), then every
//! accessor, every level read (zstd inflated), and every image of every level transcoded to
//! RGBA8, BC7 and ASTC 4x4 (hearth's own UASTC transcoder) and ETC2 (Basis Universal's).
#![no_main]

use hearth::read::transcode::transcode;
use hearth::read::transcode::TranscodeTarget::{Astc4x4, Bc7, Etc2Rgba, Rgba8};
use hearth::{Ktx2, Limits};
use libfuzzer_sys::fuzz_target;

fn exercise(ktx: &Ktx2<'_>) {
    let _ = (ktx.vk_format(), ktx.width(), ktx.height(), ktx.depth());
    let _ = (ktx.layers(), ktx.faces(), ktx.is_array(), ktx.is_srgb());
    let _ = (ktx.supercompression(), ktx.is_uastc(), ktx.dfd());
    let _ = ktx.key_value("KTXwriter");
    for level in 0..=ktx.level_count() {
        let _ = ktx.level_dimensions(level);
        if let Ok(data) = ktx.level(level) {
            std::hint::black_box(data.len());
        }
        // A few images of each level, not all of a huge array.
        for layer in 0..ktx.layers().min(2) {
            for face in 0..ktx.faces() {
                for target in [Rgba8, Bc7, Astc4x4, Etc2Rgba] {
                    let _ = transcode(ktx, level, layer, face, target);
                }
            }
        }
    }
    let _ = ktx.level_dimensions(u32::MAX);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(ktx) = Ktx2::parse(data) {
        exercise(&ktx);
    }
    let tight = Limits {
        max_ktx2_level_size: 4096,
        ..Limits::default()
    };
    if let Ok(ktx) = Ktx2::parse_with_limits(data, &tight) {
        exercise(&ktx);
    }
});
