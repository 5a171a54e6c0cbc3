//! A pack's `.ktx2` textures through `HearthKtx2Loader`: a colour texture is the image Bevy's
//! own KTX2 loader makes of the same bytes (UASTC split across threads and joined), a linear
//! one gets a linear format, one- and two-channel ones (which Bevy's loader fails on) are
//! hearth's transcode of them, and damage is an error naming the file.

use super::wait_for;
use bevy::asset::{AssetPlugin, AssetServer, Assets, Handle, LoadState};
use bevy::image::{
    ktx2_buffer_to_image, CompressedImageFormatSupport, CompressedImageFormats, Image, ImageLoader,
};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy_hearth::HearthPlugin;
use hearth::read::transcode::{transcode, TranscodeTarget};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// An RGBA PNG of `width` x `height` with a pattern that changes every pixel.
fn png(width: u32, height: u32) -> Vec<u8> {
    rgba_png(width, height, |x, y| {
        [
            (x * 7) as u8,
            (y * 5) as u8,
            ((x ^ y) * 3) as u8,
            255 - (x + y) as u8,
        ]
    })
}

/// An RGBA PNG of `width` x `height`, `texel(x, y)` at each pixel.
pub(super) fn rgba_png(width: u32, height: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    let mut writer = encoder.write_header().unwrap();
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| texel(i % width, i / width))
        .collect();
    writer.write_image_data(&pixels).unwrap();
    drop(writer);
    out
}

/// Bakes a colour texture (sRGB), the same as data (`srgb = false`: linear), a grayscale one
/// (one channel) and a normal map (two), 1030 x 700 with mips (so a level is split into
/// several tasks and the sizes are not multiples of 4); returns the folder and the bake's
/// output folder (the pack in it, the runtime tree beside).
fn bake_textures() -> (tempfile::TempDir, PathBuf) {
    bake_four(&png(1030, 700), "{ quality = \"fastest\" }")
}

/// Bakes `image` (a PNG) as the four textures of [`bake_textures`] (`c/colour`, `d/data`,
/// `g/grey.ao`, `n/normal.n`) with `[default] texture = TEXTURE`.
pub(super) fn bake_four(image: &[u8], texture: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for path in [
        "c/colour.png",
        "d/data.png",
        "g/grey.ao.png",
        "n/normal.n.png",
    ] {
        std::fs::create_dir_all(src.join(path).parent().unwrap()).unwrap();
        std::fs::write(src.join(path), image).unwrap();
    }
    std::fs::write(
        src.join("hearth.toml"),
        format!(
            "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"**/*.png\"]\n\
             [default]\ntexture = {texture}\n\
             [[default.rules]]\nmatch = \"d/*\"\ntexture = {{ srgb = false }}\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    hearth::bake::Baker::new(src.join("hearth.toml"), &out)
        .run()
        .unwrap();
    (dir, out)
}

/// A headless app serving `served` (a pack or a runtime tree) on a device that samples
/// `formats`, as Bevy's renderer would set it up.
pub(super) fn app_for(served: &Path, formats: CompressedImageFormats) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        HearthPlugin::open(served).unwrap(),
        AssetPlugin::default(),
    ));
    app.insert_resource(CompressedImageFormatSupport(formats));
    app.register_asset_loader(ImageLoader::new(formats));
    app.finish();
    app.cleanup();
    app
}

pub(super) fn load_image(app: &mut App, path: &str) -> Image {
    let handle: Handle<Image> = app.world().resource::<AssetServer>().load(path.to_owned());
    wait_for(app, &handle);
    app.world()
        .resource::<Assets<Image>>()
        .get(&handle)
        .unwrap()
        .clone()
}

/// What Bevy's own loader makes of `bytes`; for a UASTC texture without a compressed format
/// (where Bevy 0.19's loader panics), hearth's RGBA8 transcode of every level.
fn bevy_image(bytes: &[u8], formats: CompressedImageFormats, srgb: bool) -> Image {
    if formats != CompressedImageFormats::NONE {
        return ktx2_buffer_to_image(bytes, formats, srgb).unwrap();
    }
    let mut image = ktx2_buffer_to_image(bytes, CompressedImageFormats::BC, srgb).unwrap();
    image.data = Some(levels(bytes, TranscodeTarget::Rgba8, 4));
    image.texture_descriptor.format = match srgb {
        true => TextureFormat::Rgba8UnormSrgb,
        false => TextureFormat::Rgba8Unorm,
    };
    image
}

/// The image's bytes (their length and a hash, so that a failure prints a line) and layout
/// (its sampler and usage are the settings').
fn layout(image: &Image) -> (Option<(usize, u64)>, TextureFormat, u32, [u32; 3]) {
    let descriptor = &image.texture_descriptor;
    let size = descriptor.size;
    (
        image.data.as_deref().map(digest),
        descriptor.format,
        descriptor.mip_level_count,
        [size.width, size.height, size.depth_or_array_layers],
    )
}

fn digest(bytes: &[u8]) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    (bytes.len(), hasher.finish())
}

#[test]
fn uastc_textures_load_as_bevy_transcodes_them_and_linear_ones_stay_linear() {
    let (_dir, out) = bake_textures();
    let pack = out.join("game.hpack");
    let read = |path: &str| std::fs::read(out.join(path)).unwrap();
    let formats = [
        CompressedImageFormats::BC,
        CompressedImageFormats::ASTC_LDR | CompressedImageFormats::BC,
        CompressedImageFormats::ETC2,
        CompressedImageFormats::NONE,
    ];
    for formats in formats {
        let mut app = app_for(&pack, formats);
        // Colour: sRGB, as Bevy's loader takes any UASTC texture.
        let colour = load_image(&mut app, "hearth://c/colour.ktx2");
        let expected = bevy_image(&read("c/colour.ktx2"), formats, true);
        assert_eq!(layout(&colour), layout(&expected), "colour, {formats:?}");
        assert!(colour.texture_descriptor.format.is_srgb());
        assert_eq!(colour.texture_descriptor.mip_level_count, 11);
        // Data: the same blocks, in the linear format hearth marked it with (Bevy's loader
        // would have taken it as sRGB).
        let data = load_image(&mut app, "hearth://d/data.ktx2");
        let expected = bevy_image(&read("d/data.ktx2"), formats, false);
        assert_eq!(layout(&data), layout(&expected), "data, {formats:?}");
        assert!(!data.texture_descriptor.format.is_srgb());
        // One channel: BC4, else EAC R11, else R8 (Bevy 0.19's loader fails on it).
        let grey = load_image(&mut app, "hearth://g/grey.ao.ktx2");
        let (target, format, channels) = if formats.contains(CompressedImageFormats::BC) {
            (TranscodeTarget::Bc4, TextureFormat::Bc4RUnorm, 4)
        } else if formats.contains(CompressedImageFormats::ETC2) {
            (TranscodeTarget::EacR11, TextureFormat::EacR11Unorm, 4)
        } else {
            (TranscodeTarget::Rgba8, TextureFormat::R8Unorm, 1)
        };
        let data = levels(&read("g/grey.ao.ktx2"), target, channels);
        assert_eq!(
            layout(&grey),
            (Some(digest(&data)), format, 11, [1030, 700, 1])
        );
        // Two (a normal map): RG8 everywhere, as the materials take them.
        let normal = load_image(&mut app, "hearth://n/normal.n.ktx2");
        let data = levels(&read("n/normal.n.ktx2"), TranscodeTarget::Rgba8, 2);
        let expected = (
            Some(digest(&data)),
            TextureFormat::Rg8Unorm,
            11,
            [1030, 700, 1],
        );
        assert_eq!(layout(&normal), expected);
    }
}

/// Every level of a UASTC texture transcoded whole by hearth to `target`, joined, the first
/// `channels` of each texel kept (4: all, and any block format).
fn levels(bytes: &[u8], target: TranscodeTarget, channels: usize) -> Vec<u8> {
    let ktx = hearth::Ktx2::parse(bytes).unwrap();
    let mut joined = Vec::new();
    for level in 0..ktx.level_count() {
        let data = transcode(&ktx, level, 0, 0, target).unwrap();
        match channels {
            4 => joined.extend(data),
            n => joined.extend(data.chunks_exact(4).flat_map(|texel| &texel[..n])),
        }
    }
    joined
}

#[test]
fn a_damaged_uastc_texture_fails_its_load_naming_it() {
    let (_dir, out) = bake_textures();
    // The runtime tree (read file by file): level 0's supercompressed bytes, at the end of the
    // file, overwritten.
    let path = out.join("c/colour.ktx2");
    let mut bytes = std::fs::read(&path).unwrap();
    let end = bytes.len();
    bytes[end - 200..].fill(0xFF);
    std::fs::write(&path, bytes).unwrap();
    let mut app = app_for(&out, CompressedImageFormats::BC);
    let error = load_failure(&mut app, "hearth://c/colour.ktx2");
    assert!(error.contains("c/colour.ktx2"), "{error}");
    // The rest still loads.
    load_image(&mut app, "hearth://d/data.ktx2");
}

/// Bevy's error for the image at `path`, which must fail to load.
pub(super) fn load_failure(app: &mut App, path: &str) -> String {
    let handle: Handle<Image> = app.world().resource::<AssetServer>().load(path.to_owned());
    let start = Instant::now();
    loop {
        app.update();
        match app
            .world()
            .resource::<AssetServer>()
            .get_load_state(&handle)
        {
            Some(LoadState::Failed(error)) => return error.to_string(),
            Some(LoadState::Loaded) => panic!("{path} loaded"),
            _ => assert!(start.elapsed() < Duration::from_secs(60), "still loading"),
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}
