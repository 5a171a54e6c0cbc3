//! GPU-format bakes (`texture.format`) through `HearthKtx2Loader`: on a device that samples
//! the format, the blocks as they are (Bevy's loader), linear where the file is; on one that
//! cannot, every level decoded on the CPU, close to the same textures baked uncompressed;
//! EAC, which is not decoded, an error naming the file.

use super::textures::{app_for, bake_four, load_failure, load_image, rgba_png};
use bevy::image::{CompressedImageFormats as Device, Image};
use bevy::render::render_resource::TextureFormat as F;
use std::path::Path;

/// A smooth RGBA PNG (gradients, which every block format keeps well), 258 x 130: sizes that
/// are not multiples of 4, so every level has partial blocks.
fn gradient_png() -> Vec<u8> {
    let (width, height) = (258u32, 130u32);
    rgba_png(width, height, |x, y| {
        [
            (x * 255 / width) as u8,
            (y * 255 / height) as u8,
            ((x + y) * 255 / (width + height)) as u8,
            255 - (y * 200 / height) as u8,
        ]
    })
}

/// PSNR of `image`'s level 0 against the raw bake's level 0 of the same texture, over the raw
/// texture's channels (1, 2 or 4; the image has as many or four).
fn psnr_against_raw(image: &Image, raw_tree: &Path, path: &str) -> f64 {
    let bytes = std::fs::read(raw_tree.join(path)).unwrap();
    let raw = hearth::Ktx2::parse(&bytes).unwrap();
    let raw_level = raw.level(0).unwrap();
    let (width, height, _) = raw.level_dimensions(0);
    let texels = (width * height) as usize;
    let raw_channels = raw_level.len() / texels;
    let data = image.data.as_deref().unwrap();
    let channels = match image.texture_descriptor.format {
        F::R8Unorm => 1,
        F::Rg8Unorm => 2,
        _ => 4,
    };
    let (mut sum, mut count) = (0.0f64, 0.0f64);
    for texel in 0..texels {
        for c in 0..raw_channels {
            let d = f64::from(data[texel * channels + c])
                - f64::from(raw_level[texel * raw_channels + c]);
            sum += d * d;
            count += 1.0;
        }
    }
    10.0 * (255.0f64 * 255.0 / (sum / count).max(1e-9)).log10()
}

/// The bytes every level of a `width` x `height` image takes at `channels` bytes a texel.
fn chain_bytes(width: u32, height: u32, levels: u32, channels: usize) -> usize {
    (0..levels)
        .map(|l| ((width >> l).max(1) * (height >> l).max(1)) as usize * channels)
        .sum()
}

#[test]
fn gpu_format_textures_decode_on_a_device_that_cannot_sample_them() {
    let image = gradient_png();
    let (_raw_dir, raw) = bake_four(&image, "{ compress = false }");
    // The bake, the device, and what each texture (colour, data, grey, normal) loads as.
    let cases = [
        (
            "bcn",
            Device::NONE,
            [F::Rgba8UnormSrgb, F::Rgba8Unorm, F::R8Unorm, F::Rg8Unorm],
        ),
        (
            "bcn",
            Device::ASTC_LDR | Device::ETC2,
            [F::Rgba8UnormSrgb, F::Rgba8Unorm, F::R8Unorm, F::Rg8Unorm],
        ),
        (
            "bcn",
            Device::BC,
            [
                F::Bc7RgbaUnormSrgb,
                F::Bc7RgbaUnorm,
                F::Bc4RUnorm,
                F::Bc5RgUnorm,
            ],
        ),
        (
            "astc4x4",
            Device::BC,
            [
                F::Rgba8UnormSrgb,
                F::Rgba8Unorm,
                F::Rgba8Unorm,
                F::Rgba8Unorm,
            ],
        ),
    ];
    let paths = [
        "c/colour.ktx2",
        "d/data.ktx2",
        "g/grey.ao.ktx2",
        "n/normal.n.ktx2",
    ];
    for (format, device, expected) in cases {
        let (_dir, out) = bake_four(&image, &format!("{{ format = \"{format}\" }}"));
        let mut app = app_for(&out.join("game.hpack"), device);
        for (path, expected) in paths.iter().zip(expected) {
            let what = format!("{format} {path} on {device:?}");
            let loaded = load_image(&mut app, &format!("hearth://{path}"));
            let descriptor = &loaded.texture_descriptor;
            assert_eq!(descriptor.format, expected, "{what}");
            assert_eq!(descriptor.mip_level_count, 9, "{what}");
            assert_eq!(
                [descriptor.size.width, descriptor.size.height],
                [258, 130],
                "{what}"
            );
            if expected.is_compressed() {
                continue;
            }
            let channels = match expected {
                F::R8Unorm => 1,
                F::Rg8Unorm => 2,
                _ => 4,
            };
            let length = loaded.data.as_ref().map(Vec::len);
            assert_eq!(length, Some(chain_bytes(258, 130, 9, channels)), "{what}");
            let psnr = psnr_against_raw(&loaded, &raw, path);
            assert!(psnr >= 35.0, "{what}: {psnr:.1} dB against the raw bake");
        }
    }
    // An uncompressed bake goes to Bevy's loader, sRGB or linear as the file says.
    let mut app = app_for(&raw.join("game.hpack"), Device::BC);
    let colour = load_image(&mut app, "hearth://c/colour.ktx2");
    assert_eq!(colour.texture_descriptor.format, F::Rgba8UnormSrgb);
    let data = load_image(&mut app, "hearth://d/data.ktx2");
    assert_eq!(data.texture_descriptor.format, F::Rgba8Unorm);
    // ETC2's one- and two-channel forms are EAC, which is not decoded: Bevy's loader refuses
    // them on a BC device, naming the file; its colour textures decode.
    let (_dir, out) = bake_four(&image, "{ format = \"etc2\" }");
    let mut app = app_for(&out.join("game.hpack"), Device::BC);
    let colour = load_image(&mut app, "hearth://c/colour.ktx2");
    assert_eq!(colour.texture_descriptor.format, F::Rgba8UnormSrgb);
    assert!(psnr_against_raw(&colour, &raw, "c/colour.ktx2") >= 35.0);
    let error = load_failure(&mut app, "hearth://g/grey.ao.ktx2");
    assert!(error.contains("g/grey.ao.ktx2"), "{error}");
}
