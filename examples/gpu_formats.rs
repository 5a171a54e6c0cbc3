//! Measures each GPU block format (`texture.format`) per encoder on real images: time to
//! encode one texture (single-threaded, mips off, as the baker runs each texture on one
//! core) and level 0's PSNR against the encoder's exact input, decoded by `texture2ddecoder`
//! (independent of basisu and ISPC). The README's "GPU formats" table is this output.
//!
//! `cargo run --release --features bake --example gpu_formats -- IMAGE...`
//! (`*.n.png` is measured as a normal map on X and Y, `*.r.png` as one grayscale channel).

use hearth::bake::settings::{TextureEncoder, TextureFormat, TextureSettings};
use hearth::bake::texture::{encode, pixels::Pixels, TextureMode, TextureShape};
use hearth::format::ktx2::vk;
use hearth::Ktx2;
use std::time::Instant;

#[path = "shared/psnr.rs"]
mod shared;
use shared::psnr;

/// Level 0 as RGBA8, by `texture2ddecoder` (EAC is left out: its EAC decoder reads the index
/// bits in the wrong byte order; tests/ktx-verify decodes EAC by the specification).
fn decode(ktx: &Ktx2<'_>) -> Option<Vec<u8>> {
    use texture2ddecoder as d;
    let (w, h) = (ktx.width() as usize, ktx.height() as usize);
    let data = ktx.level(0).ok()?;
    let mut pixels = vec![0u32; w * h];
    match ktx.vk_format() {
        vk::BC1_RGB_UNORM_BLOCK | vk::BC1_RGB_SRGB_BLOCK => d::decode_bc1(&data, w, h, &mut pixels),
        vk::BC3_UNORM_BLOCK | vk::BC3_SRGB_BLOCK => d::decode_bc3(&data, w, h, &mut pixels),
        vk::BC4_UNORM_BLOCK => d::decode_bc4(&data, w, h, &mut pixels),
        vk::BC5_UNORM_BLOCK => d::decode_bc5(&data, w, h, &mut pixels),
        vk::BC7_UNORM_BLOCK | vk::BC7_SRGB_BLOCK => d::decode_bc7(&data, w, h, &mut pixels),
        vk::ETC2_R8G8B8_UNORM_BLOCK | vk::ETC2_R8G8B8_SRGB_BLOCK => {
            d::decode_etc2_rgb(&data, w, h, &mut pixels)
        }
        vk::ETC2_R8G8B8A8_UNORM_BLOCK | vk::ETC2_R8G8B8A8_SRGB_BLOCK => {
            d::decode_etc2_rgba8(&data, w, h, &mut pixels)
        }
        vk::ASTC_4X4_UNORM_BLOCK | vk::ASTC_4X4_SRGB_BLOCK => {
            d::decode_astc(&data, w, h, 4, 4, &mut pixels)
        }
        _ => return None,
    }
    .ok()?;
    Some(
        pixels
            .iter()
            .flat_map(|p| {
                let [b, g, r, a] = p.to_le_bytes();
                [r, g, b, a]
            })
            .collect(),
    )
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: gpu_formats IMAGE...");
        std::process::exit(2);
    }
    println!(
        "{:<40} {:<8} {:<9} {:>8} {:>9} {:>9}",
        "image", "format", "encoder", "ms", "MP/s", "PSNR dB"
    );
    for path in &paths {
        let bytes = std::fs::read(path).expect("readable image");
        let extension = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let (pixels, _) = Pixels::decode(&bytes, &extension).expect("decodable image");
        let mode = TextureMode::from_file_name(path);
        let (channels, formats): (&[usize], &[TextureFormat]) = match mode {
            TextureMode::Normal => (
                &[0, 1],
                &[
                    TextureFormat::Bc5,
                    TextureFormat::Bc7,
                    TextureFormat::Astc4x4,
                ],
            ),
            TextureMode::Grayscale => (&[0], &[TextureFormat::Bc4, TextureFormat::Bc7]),
            _ => (
                &[0, 1, 2],
                &[
                    TextureFormat::Bc7,
                    TextureFormat::Bc3,
                    TextureFormat::Bc1,
                    TextureFormat::Astc4x4,
                    TextureFormat::Etc2,
                ],
            ),
        };
        let one_level = |format, encoder| TextureSettings {
            format,
            encoder,
            mips: false,
            ..Default::default()
        };
        let started = Instant::now();
        let raw = encode(
            std::slice::from_ref(&pixels),
            TextureShape::Single,
            mode,
            &one_level(TextureFormat::Rgba8, TextureEncoder::Auto),
        )
        .unwrap();
        let raw_ms = started.elapsed().as_secs_f64() * 1e3;
        let raw = Ktx2::parse(&raw.ktx2).unwrap();
        let components = match mode {
            TextureMode::Normal => 2,
            TextureMode::Grayscale => 1,
            _ => 4,
        };
        let reference: Vec<u8> = raw
            .level(0)
            .unwrap()
            .chunks_exact(components)
            .flat_map(|p| match components {
                1 => [p[0], p[0], p[0], 255],
                2 => [p[0], p[1], 0, 255],
                _ => [p[0], p[1], p[2], p[3]],
            })
            .collect();
        let megapixels = pixels.width as f64 * pixels.height as f64 / 1e6;
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        println!(
            "{name:<40} {:<8} {:<9} {raw_ms:>8.1} {:>9.2} {:>9}",
            "rgba8",
            "(raw)",
            megapixels / raw_ms * 1e3,
            "exact"
        );
        for &format in formats {
            for encoder in [TextureEncoder::Transcode, TextureEncoder::Direct] {
                let started = Instant::now();
                let Ok(encoded) = encode(
                    std::slice::from_ref(&pixels),
                    TextureShape::Single,
                    mode,
                    &one_level(format, encoder),
                ) else {
                    continue; // no direct encoder for this format
                };
                let ms = started.elapsed().as_secs_f64() * 1e3;
                let ktx = Ktx2::parse(&encoded.ktx2).unwrap();
                let db = decode(&ktx).map_or("-".to_owned(), |decoded| {
                    format!("{:.2}", psnr(&decoded, &reference, channels))
                });
                println!(
                    "{name:<40} {:<8} {:<9} {ms:>8.1} {:>9.2} {db:>9}",
                    format!("{format:?}").to_lowercase(),
                    format!("{encoder:?}").to_lowercase(),
                    megapixels / ms * 1e3,
                );
            }
        }
    }
}
