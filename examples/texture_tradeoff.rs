//! Measures UASTC speed against quality per level on real images, single-threaded, as the
//! README's trade-off table reports it.
//!
//! `cargo run --release --features bake,transcode --example texture_tradeoff -- IMAGE...`
//! (an image named `*.n.png` is measured as a normal map, on X and Y).

use hearth::bake::settings::{TextureQuality, TextureSettings};
use hearth::bake::texture::{encode, pixels::Pixels, TextureMode, TextureShape};
use hearth::read::transcode::{transcode, TranscodeTarget};
use hearth::Ktx2;
use std::time::Instant;

#[path = "shared/psnr.rs"]
mod shared;
use shared::psnr;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: texture_tradeoff IMAGE...");
        std::process::exit(2);
    }
    println!(
        "{:<44} {:<8} {:>9} {:>9} {:>10}",
        "image", "quality", "MP/s", "PSNR dB", "KTX2 bytes"
    );
    for path in &paths {
        let bytes = std::fs::read(path).expect("readable image");
        let extension = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let (pixels, _) = Pixels::decode(&bytes, &extension).expect("decodable image");
        let mode = TextureMode::from_file_name(path);
        let channels: &[usize] = match mode {
            TextureMode::Normal => &[0, 1],
            TextureMode::Grayscale => &[0],
            _ => &[0, 1, 2],
        };
        // The reference is the raw (pixel-exact) bake's level 0 with all four channels kept, so
        // mode conversions (normal renormalization) match.
        let raw_settings = TextureSettings {
            compress: false,
            mips: false,
            swizzle: "rgba".into(),
            ..Default::default()
        };
        let raw = encode(
            std::slice::from_ref(&pixels),
            TextureShape::Single,
            mode,
            &raw_settings,
        )
        .unwrap();
        let reference = Ktx2::parse(&raw.ktx2)
            .unwrap()
            .level(0)
            .unwrap()
            .into_owned();
        let megapixels = pixels.width as f64 * pixels.height as f64 / 1e6;
        for quality in [
            TextureQuality::Fastest,
            TextureQuality::Faster,
            TextureQuality::Default,
            TextureQuality::Slower,
        ] {
            let settings = TextureSettings {
                quality,
                mips: false,
                ..Default::default()
            };
            let started = Instant::now();
            let encoded = encode(
                std::slice::from_ref(&pixels),
                TextureShape::Single,
                mode,
                &settings,
            )
            .unwrap();
            let seconds = started.elapsed().as_secs_f64();
            let ktx = Ktx2::parse(&encoded.ktx2).unwrap();
            let decoded = transcode(&ktx, 0, 0, 0, TranscodeTarget::Rgba8).unwrap();
            let name = std::path::Path::new(path)
                .file_name()
                .unwrap()
                .to_string_lossy();
            println!(
                "{name:<44} {:<8} {:>9.3} {:>9.2} {:>10}",
                format!("{quality:?}").to_lowercase(),
                megapixels / seconds,
                psnr(&decoded, &reference, channels),
                encoded.ktx2.len()
            );
        }
    }
}
