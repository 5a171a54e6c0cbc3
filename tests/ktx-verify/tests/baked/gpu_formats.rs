//! GPU-native formats (`texture.format`): each bake checked by libktx and `ktx2check`, its
//! vkFormat and DFD, and its level 0 decoded independently against the source.

use super::*;

/// One `texture.format` bake: the format, its encoder, the inputs it applies to.
struct GpuFormatBake {
    format: &'static str,
    /// `auto` bakes are held to [`gpu_format_floor`]; the other encoder only to [`SANE_PSNR`].
    encoder: &'static str,
    /// Names in the content folder (see [`baked_gpu_formats`]).
    inputs: &'static [&'static str],
}

/// Below this, a decoded level is broken (swapped channels, a wrong block layout), whatever
/// the format: the check for every encoder and texture that is not a format's own use (BC1 of
/// a normal map decodes to 24 dB, say).
const SANE_PSNR: f64 = 20.0;

/// The lowest PSNR accepted for level 0 of `out` baked to `format` by its default (`auto`)
/// encoder, where the format is meant for that texture (`None` where it is not: BC7 of a
/// normal map, say): [`MIN_PSNR`] (35 dB) for BC7, ASTC 4x4, BC5 and BC4. 33 dB for the colour
/// of BC1, BC3 and ETC2, whose RGB is 4 bits per pixel: on the sky photo Intel's BC1 encoder
/// and UASTC transcoded land within 0.05 dB of each other (33.69 and 33.73 dB), ETC2 at 33.98 —
/// the formats' limit on that content, not an encoder's.
fn gpu_format_floor(format: &str, out: &str) -> Option<f64> {
    let color = !out.contains(".n.") && !out.contains(".r.");
    match format {
        "bc5" => out.contains(".n.").then_some(MIN_PSNR),
        "bc4" => out.contains(".r.").then_some(MIN_PSNR),
        "bc7" | "astc4x4" => color.then_some(MIN_PSNR),
        "bc1" | "bc3" | "etc2" => color.then_some(33.0),
        _ => None,
    }
}

/// The `vkFormat` a GPU-format bake writes for a texture: `(format, channels, sRGB, alpha)`.
fn expected_vk_format(format: &str, channels: usize, srgb: bool, alpha: bool) -> u32 {
    let pick = |unorm: u32, srgb_format: u32| if srgb { srgb_format } else { unorm };
    match format {
        "bc7" => pick(vk::BC7_UNORM_BLOCK, vk::BC7_SRGB_BLOCK),
        "bc5" => vk::BC5_UNORM_BLOCK,
        "bc4" => vk::BC4_UNORM_BLOCK,
        "bc1" => pick(vk::BC1_RGB_UNORM_BLOCK, vk::BC1_RGB_SRGB_BLOCK),
        "bc3" => pick(vk::BC3_UNORM_BLOCK, vk::BC3_SRGB_BLOCK),
        "astc4x4" => pick(vk::ASTC_4X4_UNORM_BLOCK, vk::ASTC_4X4_SRGB_BLOCK),
        "etc2" => match (channels, alpha) {
            (1, _) => vk::EAC_R11_UNORM_BLOCK,
            (2, _) => vk::EAC_R11G11_UNORM_BLOCK,
            (_, true) => pick(vk::ETC2_R8G8B8A8_UNORM_BLOCK, vk::ETC2_R8G8B8A8_SRGB_BLOCK),
            (_, false) => pick(vk::ETC2_R8G8B8_UNORM_BLOCK, vk::ETC2_R8G8B8_SRGB_BLOCK),
        },
        other => panic!("no GPU format {other}"),
    }
}

/// The ETC2 alpha / EAC modifier table (Khronos Data Format Specification 1.3, table 140).
const EAC_MODIFIERS: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// EAC R11 (or RG11) decoded by the specification (KDFS 1.3, "EAC"), as RGBA8 (R as R001,
/// RG as RG01). Written here because `texture2ddecoder` 0.1.2 reads the EAC index bits
/// little-endian (its ETC2 alpha decoder reads the same layout big-endian, as the format is).
fn decode_eac(two_channels: bool, data: &[u8], width: u32, height: u32) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let (blocks_x, block_bytes) = (w.div_ceil(4), if two_channels { 16 } else { 8 });
    let mut out = vec![0u8; w * h * 4];
    out.chunks_exact_mut(4).for_each(|p| p[3] = 255);
    for (index, block) in data.chunks_exact(block_bytes).enumerate() {
        let (bx, by) = (index % blocks_x, index / blocks_x);
        for (channel, eac) in block.chunks_exact(8).enumerate() {
            let base = eac[0] as i32 * 8 + 4;
            let multiplier = (eac[1] >> 4) as i32;
            let modifiers = EAC_MODIFIERS[(eac[1] & 0xF) as usize];
            let bits = u64::from_be_bytes(eac.try_into().unwrap());
            // Pixels are numbered down the columns: pixel p is at x = p / 4, y = p % 4; its
            // 3-bit index sits at bits 47 - 3p ..= 45 - 3p.
            for p in 0..16 {
                let (x, y) = (bx * 4 + p / 4, by * 4 + p % 4);
                if x >= w || y >= h {
                    continue;
                }
                let modifier = modifiers[(bits >> (45 - 3 * p) & 7) as usize];
                let value = match multiplier {
                    0 => base + modifier,
                    m => base + modifier * m * 8,
                }
                .clamp(0, 2047);
                out[(y * w + x) * 4 + channel] = (value as f64 * 255.0 / 2047.0).round() as u8;
            }
        }
    }
    out
}

/// Level 0 of a GPU-format texture decoded by `texture2ddecoder` (independent of basisu and
/// ISPC), as RGBA8.
fn decode_gpu_level(vk_format: u32, data: &[u8], width: u32, height: u32) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut pixels = vec![0u32; w * h];
    use texture2ddecoder as d;
    match vk_format {
        vk::BC1_RGB_UNORM_BLOCK | vk::BC1_RGB_SRGB_BLOCK => d::decode_bc1(data, w, h, &mut pixels),
        vk::BC3_UNORM_BLOCK | vk::BC3_SRGB_BLOCK => d::decode_bc3(data, w, h, &mut pixels),
        vk::BC4_UNORM_BLOCK => d::decode_bc4(data, w, h, &mut pixels),
        vk::BC5_UNORM_BLOCK => d::decode_bc5(data, w, h, &mut pixels),
        vk::BC7_UNORM_BLOCK | vk::BC7_SRGB_BLOCK => d::decode_bc7(data, w, h, &mut pixels),
        vk::ETC2_R8G8B8_UNORM_BLOCK | vk::ETC2_R8G8B8_SRGB_BLOCK => {
            d::decode_etc2_rgb(data, w, h, &mut pixels)
        }
        vk::ETC2_R8G8B8A8_UNORM_BLOCK | vk::ETC2_R8G8B8A8_SRGB_BLOCK => {
            d::decode_etc2_rgba8(data, w, h, &mut pixels)
        }
        vk::EAC_R11_UNORM_BLOCK | vk::EAC_R11G11_UNORM_BLOCK => {
            return decode_eac(vk_format == vk::EAC_R11G11_UNORM_BLOCK, data, width, height)
        }
        vk::ASTC_4X4_UNORM_BLOCK | vk::ASTC_4X4_SRGB_BLOCK => {
            d::decode_astc(data, w, h, 4, 4, &mut pixels)
        }
        other => panic!("no decoder for vkFormat {other}"),
    }
    .unwrap_or_else(|e| panic!("texture2ddecoder, vkFormat {vk_format}: {e}"));
    // texture2ddecoder's pixels are 0xAARRGGBB (bytes B, G, R, A).
    pixels
        .iter()
        .flat_map(|p| {
            let [b, g, r, a] = p.to_le_bytes();
            [r, g, b, a]
        })
        .collect()
}

/// Every `texture.format`, with its default encoder (`auto`) and the other one where there is
/// one, on corpus textures at full size: an opaque photo (a cubemap face, 256²), the same
/// photo at 250² (not a multiple of 4: partial blocks from level 0 down), a color TGA with
/// alpha (512²), a normal map (two channels, 256²), a grayscale map (one, 256 x 1024), a
/// cubemap (six faces) and an array (three layers). Each file must load in libktx with the
/// expected `vkFormat`, dimensions, faces, layers and full mip chain, its levels as libktx
/// inflates them equal to hearth's, pass ktx2check (but for the dated bytesPlane rule), and
/// its level 0 (first face or layer), decoded by `texture2ddecoder` (EAC by the spec), must
/// reach [`gpu_format_floor`] against the raw bake's level 0 (the encoders' exact input) on
/// the texture's channels.
#[test]
fn baked_gpu_formats() {
    let sky = corpus("cubemaps/Ryfjallet");
    let tga = corpus("images/tga");
    let mut inputs: Vec<(String, PathBuf)> = vec![
        ("sky.png".into(), sky.join("px.png")),
        ("odd.png".into(), sky.join("nz.png")),
        ("thorn.tga".into(), tga.join("sponza_thorn_diff.tga")),
        ("thorn.n.tga".into(), tga.join("sponza_thorn_ddn.tga")),
        ("chain.r.tga".into(), tga.join("chain_texture.tga")),
    ];
    for face in ["px", "nx", "py", "ny", "pz", "nz"] {
        inputs.push((
            format!("sky.env/{face}.png"),
            sky.join(format!("{face}.png")),
        ));
    }
    for (i, face) in ["py", "nz", "px"].iter().enumerate() {
        inputs.push((
            format!("tiles.array/{i}.png"),
            sky.join(format!("{face}.png")),
        ));
    }
    let odd_size = "\n[[default.rules]]\nmatch = \"odd.png\"\ntexture = { max_size = 250 }\n";
    // (output, channels, sRGB, alpha, the channels compared, faces, layers)
    type Texture = (&'static str, usize, bool, bool, &'static [usize], u32, u32);
    let textures: [Texture; 7] = [
        ("sky.ktx2", 4, true, false, &[0, 1, 2], 1, 1),
        ("odd.ktx2", 4, true, false, &[0, 1, 2], 1, 1),
        ("thorn.ktx2", 4, true, true, &[0, 1, 2, 3], 1, 1),
        ("thorn.n.ktx2", 2, false, false, &[0, 1], 1, 1),
        ("chain.r.ktx2", 1, false, false, &[0], 1, 1),
        ("sky.env.ktx2", 4, true, false, &[0, 1, 2], 6, 1),
        ("tiles.arr.ktx2", 4, true, false, &[0, 1, 2], 1, 3),
    ];
    const ALL: &[&str] = &[
        "sky", "odd", "thorn.", "thorn.n", "chain.r", "sky.env", "tiles",
    ];
    const OPAQUE: &[&str] = &["sky", "odd", "thorn.n", "chain.r", "sky.env", "tiles"];
    let bake_of = |format, encoder, inputs| GpuFormatBake {
        format,
        encoder,
        inputs,
    };
    let bakes = [
        bake_of("bc7", "auto", ALL),
        bake_of("bc7", "transcode", ALL),
        bake_of("bc3", "auto", ALL),
        bake_of("bc3", "transcode", ALL),
        bake_of("bc1", "auto", OPAQUE),
        bake_of("bc1", "transcode", OPAQUE),
        bake_of("bc5", "auto", &["thorn.n"]),
        bake_of("bc5", "transcode", &["thorn.n"]),
        bake_of("bc4", "auto", &["chain.r"]),
        bake_of("bc4", "transcode", &["chain.r"]),
        bake_of("astc4x4", "auto", ALL),
        bake_of("etc2", "auto", ALL),
    ];
    let raw = bake("gpu-raw", &inputs, "compress = false", odd_size);
    let probe = probe();
    let mut figures = Vec::new();
    for GpuFormatBake {
        format,
        encoder,
        inputs: prefixes,
    } in bakes
    {
        let name = format!("gpu-{format}-{encoder}");
        let chosen: Vec<(String, PathBuf)> = inputs
            .iter()
            .filter(|(n, _)| prefixes.iter().any(|p| n.starts_with(p)))
            .cloned()
            .collect();
        let baked = bake(
            &name,
            &chosen,
            &format!("format = \"{format}\", encoder = \"{encoder}\""),
            odd_size,
        );
        assert_eq!(baked.len(), prefixes.len(), "{name}: {:?}", baked.keys());
        for (out, bytes) in &baked {
            let &(_, channels, srgb, alpha, compared, faces, layers) = textures
                .iter()
                .find(|t| t.0 == out)
                .unwrap_or_else(|| panic!("{name}: unexpected {out}"));
            let what = format!("{name}/{out}");
            let ktx = Ktx2::parse(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
            let vk_format = expected_vk_format(format, channels, srgb, alpha);
            assert_eq!(ktx.vk_format(), vk_format, "{what}");
            let reference = Ktx2::parse(&raw[out.as_str()]).unwrap();
            let (width, height) = (reference.width(), reference.height());
            let levels = 32 - width.max(height).leading_zeros();
            assert_eq!((ktx.width(), ktx.height()), (width, height), "{what}");
            assert_eq!(ktx.level_count(), levels, "{what}: a full mip chain");
            let info = probe
                .load(bytes)
                .unwrap_or_else(|e| panic!("{what}: libktx: {e}"));
            assert_eq!(info.vk_format, vk_format, "{what}: libktx's vkFormat");
            assert_eq!(
                (
                    info.width,
                    info.height,
                    info.levels,
                    info.faces,
                    info.layers
                ),
                (width, height, levels, faces, layers),
                "{what}: libktx"
            );
            assert!(
                info.is_compressed && !info.needs_transcoding,
                "{what}: {info:?}"
            );
            assert_eq!(info.transfer_function, if srgb { 2 } else { 1 }, "{what}");
            assert_eq!(info.color_model, ktx.dfd().color_model as u32, "{what}");
            let libktx_levels = probe
                .all_level_bytes(bytes)
                .unwrap_or_else(|e| panic!("{what}: libktx levels: {e}"));
            assert_eq!(libktx_levels.len() as u32, levels, "{what}");
            for (level, libktx_level) in libktx_levels.iter().enumerate() {
                assert_eq!(
                    libktx_level[..],
                    ktx.level(level as u32).unwrap()[..],
                    "{what}: level {level} as libktx inflates it"
                );
            }
            if let Some(verdict) = ktx2check(&what, bytes, false, false) {
                println!("ktx2check {what}: {verdict}");
            }
            // The first face or layer of level 0, against the raw bake's.
            let image_pixels = width as usize * height as usize;
            let reference = reference.level(0).unwrap();
            let reference = expand(&reference[..image_pixels * channels], channels);
            let block_bytes = hearth::format::ktx2::block_bytes(vk_format).unwrap() as usize;
            let image_blocks = (width.div_ceil(4) * height.div_ceil(4)) as usize;
            let level0 = ktx.level(0).unwrap();
            let decoded = decode_gpu_level(
                vk_format,
                &level0[..image_blocks * block_bytes],
                width,
                height,
            );
            let db = psnr(&decoded, &reference, compared);
            let floor = match encoder {
                "auto" => gpu_format_floor(format, out).unwrap_or(SANE_PSNR),
                _ => SANE_PSNR,
            };
            println!(
                "{what}: level 0 PSNR {db:.2} dB (floor {floor}), {} bytes",
                bytes.len()
            );
            figures.push((what, db, floor));
        }
    }
    let low: Vec<_> = figures.iter().filter(|(_, db, floor)| db < floor).collect();
    assert!(low.is_empty(), "under their floors: {low:?}");
}
