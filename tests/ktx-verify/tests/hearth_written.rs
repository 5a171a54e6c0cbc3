//! KTX2 files written by `hearth::format::ktx2::write`, in every shape hearth's baker writes
//! (sRGB RGBA8, R8, RG8, cubemap, array, RGBA16F 3D LUT, UASTC), load in Khronos' libktx
//! with the header values hearth meant, and libktx hands back exactly the pixels written.
//!
//! libktx runs in this crate's `libktx-probe` program, not in this test binary: hearth (with
//! `--all-features`) links Basis Universal, and so does libktx, and the two copies clash at link
//! time. So this file names only `shared.rs` of the crate, never the crate itself.

use hearth::format::ktx2::{channel, vk, write, BasicDfd, Ktx2Description};

#[allow(dead_code)]
#[path = "../src/shared.rs"]
mod shared;
use shared::{LibktxInfo, Probe, Rgba8Image};

fn probe() -> Probe {
    Probe::new(env!("CARGO_BIN_EXE_libktx-probe"))
}

/// `hearth_ktx_verify::load`, through the probe.
fn load(bytes: &[u8]) -> Result<LibktxInfo, String> {
    probe().load(bytes)
}

/// `hearth_ktx_verify::image_bytes`, through the probe.
fn image_bytes(bytes: &[u8], level: u32, layer: u32, face: u32) -> Result<Vec<u8>, String> {
    probe().image_bytes(bytes, level, layer, face)
}

/// `hearth_ktx_verify::level_bytes`, through the probe.
fn level_bytes(bytes: &[u8], level: u32) -> Result<Vec<u8>, String> {
    probe().level_bytes(bytes, level)
}

/// `hearth_ktx_verify::decode_rgba8`, through the probe.
fn decode_rgba8(bytes: &[u8]) -> Result<Vec<Rgba8Image>, String> {
    probe().decode_rgba8(bytes)
}

/// `hearth_ktx_verify::decode_rgba8_at`, through the probe.
fn decode_rgba8_at(bytes: &[u8], layer: u32, face: u32) -> Result<Vec<Rgba8Image>, String> {
    probe().decode_rgba8_at(bytes, layer, face)
}

const RGBA: &[u8] = &[channel::R, channel::G, channel::B, channel::A];

/// One texture hearth could write: its description and its levels (level 0 first, each the
/// concatenation of its layers, faces and depth slices).
struct Case {
    name: &'static str,
    desc: Ktx2Description,
    levels: Vec<Vec<u8>>,
}

fn mip(size: u32, level: u32) -> u32 {
    (size >> level).max(1)
}

/// Distinct, deterministic bytes for level `level` of `len` bytes.
fn pattern(level: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i * 7 + level * 61 + (i >> 8) * 13) as u8)
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn case(
    name: &'static str,
    vk_format: u32,
    type_size: u32,
    texel_bytes: u32,
    (width, height, depth): (u32, u32, u32),
    (layers, faces, level_count): (u32, u32, u32),
    dfd: BasicDfd,
    orientation: &[u8],
    zstd_level: Option<i32>,
) -> Case {
    let levels = (0..level_count)
        .map(|l| {
            let texels = mip(width, l) * mip(height, l) * mip(depth.max(1), l);
            let len = texels * layers.max(1) * faces * texel_bytes;
            pattern(l as usize, len as usize)
        })
        .collect();
    Case {
        name,
        desc: Ktx2Description {
            vk_format,
            type_size,
            width,
            height,
            depth,
            layers,
            faces,
            block_bytes: texel_bytes,
            dfd,
            key_values: vec![
                ("KTXwriter".into(), b"hearth\0".to_vec()),
                ("KTXorientation".into(), orientation.to_vec()),
            ],
            zstd_level,
        },
        levels,
    }
}

/// The shapes hearth's baker writes, each zstd-supercompressed (as the baker does) or not.
fn cases(zstd_level: Option<i32>) -> Vec<Case> {
    let z = zstd_level;
    vec![
        case(
            "RGBA8 sRGB 8x4, 3 levels",
            vk::R8G8B8A8_SRGB,
            1,
            4,
            (8, 4, 0),
            (0, 1, 3),
            BasicDfd::uncompressed(RGBA, 8, false, true),
            b"rd\0",
            z,
        ),
        case(
            "R8 UNORM 8x4, 3 levels",
            vk::R8_UNORM,
            1,
            1,
            (8, 4, 0),
            (0, 1, 3),
            BasicDfd::uncompressed(&[channel::R], 8, false, false),
            b"rd\0",
            z,
        ),
        case(
            "R8G8 UNORM 8x4, 3 levels",
            vk::R8G8_UNORM,
            1,
            2,
            (8, 4, 0),
            (0, 1, 3),
            BasicDfd::uncompressed(&[channel::R, channel::G], 8, false, false),
            b"rd\0",
            z,
        ),
        case(
            "R8 sRGB 8x4, 3 levels",
            vk::R8_SRGB,
            1,
            1,
            (8, 4, 0),
            (0, 1, 3),
            BasicDfd::uncompressed(&[channel::R], 8, false, true),
            b"rd\0",
            z,
        ),
        case(
            "R8G8 sRGB 8x4, 3 levels",
            vk::R8G8_SRGB,
            1,
            2,
            (8, 4, 0),
            (0, 1, 3),
            BasicDfd::uncompressed(&[channel::R, channel::G], 8, false, true),
            b"rd\0",
            z,
        ),
        case(
            "RGBA8 UNORM 8x4, 3 levels",
            vk::R8G8B8A8_UNORM,
            1,
            4,
            (8, 4, 0),
            (0, 1, 3),
            BasicDfd::uncompressed(RGBA, 8, false, false),
            b"rd\0",
            z,
        ),
        case(
            "RGBA8 sRGB cubemap 8x8, 4 levels",
            vk::R8G8B8A8_SRGB,
            1,
            4,
            (8, 8, 0),
            (0, 6, 4),
            BasicDfd::uncompressed(RGBA, 8, false, true),
            b"rd\0",
            z,
        ),
        case(
            "RGBA8 sRGB array of 3, 8x4, 3 levels",
            vk::R8G8B8A8_SRGB,
            1,
            4,
            (8, 4, 0),
            (3, 1, 3),
            BasicDfd::uncompressed(RGBA, 8, false, true),
            b"rd\0",
            z,
        ),
        case(
            "RG8 UNORM array of 3, 8x4, 3 levels",
            vk::R8G8_UNORM,
            1,
            2,
            (8, 4, 0),
            (3, 1, 3),
            BasicDfd::uncompressed(&[channel::R, channel::G], 8, false, false),
            b"rd\0",
            z,
        ),
        case(
            "RGBA16F 3D 4x4x4 (the LUT shape), 1 level",
            vk::R16G16B16A16_SFLOAT,
            2,
            8,
            (4, 4, 4),
            (0, 1, 1),
            BasicDfd::uncompressed(RGBA, 16, true, false),
            b"rdi\0",
            z,
        ),
        case(
            "RGBA16F 3D 4x4x4, 3 levels",
            vk::R16G16B16A16_SFLOAT,
            2,
            8,
            (4, 4, 4),
            (0, 1, 3),
            BasicDfd::uncompressed(RGBA, 16, true, false),
            b"rdi\0",
            z,
        ),
        case(
            "RGBA32F 8x4, 2 levels",
            vk::R32G32B32A32_SFLOAT,
            4,
            16,
            (8, 4, 0),
            (0, 1, 2),
            BasicDfd::uncompressed(RGBA, 32, true, false),
            b"rd\0",
            z,
        ),
    ]
}

/// Loads one hearth-written case in libktx and checks every header value and every image.
fn check(case: &Case) -> Result<LibktxInfo, String> {
    let Case { name, desc, levels } = case;
    let bytes = write(desc, levels);
    let info = load(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let d = desc;
    let srgb = d.dfd.transfer_function == 2;
    assert_eq!(info.vk_format, d.vk_format, "{name}");
    assert_eq!(info.levels as usize, levels.len(), "{name}");
    assert_eq!((info.width, info.height), (d.width, d.height), "{name}");
    assert_eq!(info.depth, d.depth.max(1), "{name}");
    assert_eq!(info.dimensions, if d.depth > 0 { 3 } else { 2 }, "{name}");
    assert_eq!(info.layers, d.layers.max(1), "{name}");
    assert_eq!(info.is_array, d.layers > 0, "{name}");
    assert_eq!(info.faces, d.faces, "{name}");
    assert_eq!(info.is_cubemap, d.faces == 6, "{name}");
    assert!(!info.is_compressed && !info.needs_transcoding, "{name}");
    assert!(!info.generate_mipmaps, "{name}");
    let scheme = if d.zstd_level.is_some() { 2 } else { 0 };
    assert_eq!(info.supercompression, scheme, "{name}");
    assert_eq!(info.color_model, 1, "{name}: RGBSDA");
    assert_eq!(info.color_primaries, 1, "{name}: BT.709");
    assert_eq!(info.transfer_function, if srgb { 2 } else { 1 }, "{name}");
    assert!(!info.premultiplied_alpha, "{name}");
    let channels = d.dfd.samples.len() as u32;
    let component_bytes = d.type_size;
    assert_eq!(info.num_components, Some(channels), "{name}");
    assert_eq!(info.component_info, (channels, component_bytes), "{name}");
    assert_eq!(info.element_size as u32, d.block_bytes, "{name}");
    let expected_types: Vec<u8> = d.dfd.samples.iter().map(|s| s.channel_type).collect();
    assert_eq!(info.sample_channel_types, expected_types, "{name}");
    if srgb && channels == 4 {
        assert_eq!(info.sample_channel_types[3], channel::A | channel::LINEAR);
    }
    let orientation = if d.depth > 0 { "rdi" } else { "rd" };
    assert_eq!(info.orientation, orientation, "{name}");
    // libktx keeps the key/value pairs in file order: hearth sorts them by key.
    let keys: Vec<&str> = info.key_values.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["KTXorientation", "KTXwriter"], "{name}");
    assert_eq!(info.key_values[1].1, b"hearth\0", "{name}");
    // Inflated or not, libktx's data holds every level (plus any alignment padding).
    assert!(
        info.data_size >= levels.iter().map(Vec::len).sum::<usize>(),
        "{name}"
    );

    for (l, written) in levels.iter().enumerate() {
        let level = l as u32;
        let slices = mip(d.depth.max(1), level);
        let image = (mip(d.width, level) * mip(d.height, level) * d.block_bytes) as usize;
        assert_eq!(info.image_sizes[l], image, "{name} level {level}");
        // The whole level, through ktxTexture_IterateLevels.
        let whole = level_bytes(&bytes, level).map_err(|e| format!("{name}: {e}"))?;
        assert!(whole == *written, "{name}: level {level} differs in libktx");
        // Image by image, through GetImageOffset: KTX2 order is layer, face, depth slice.
        let mut at = 0;
        for layer in 0..d.layers.max(1) {
            for face_slice in 0..d.faces.max(slices) {
                let got = image_bytes(&bytes, level, layer, face_slice)
                    .map_err(|e| format!("{name}: {e}"))?;
                assert!(
                    got == written[at..at + image],
                    "{name}: level {level} layer {layer} face/slice {face_slice} differs"
                );
                at += image;
            }
        }
        assert_eq!(at, written.len(), "{name}: level {level} length");
    }
    Ok(info)
}

#[test]
fn libktx_loads_every_hearth_shape_zstd() {
    for case in cases(Some(3)) {
        let info = check(&case).unwrap_or_else(|e| panic!("libktx rejected {e}"));
        println!("{}: accepted, {info:?}", case.name);
    }
}

#[test]
fn libktx_loads_every_hearth_shape_uncompressed() {
    for case in cases(None) {
        let info = check(&case).unwrap_or_else(|e| panic!("libktx rejected {e}"));
        println!("{}: accepted, {info:?}", case.name);
    }
}

/// The brief's example, spelled out: sRGB RGBA8, 8x4 / 4x2 / 2x1, zstd level 3.
#[test]
fn rgba8_srgb_zstd_three_levels() {
    let levels: Vec<Vec<u8>> = vec![
        pattern(0, 8 * 4 * 4),
        pattern(1, 4 * 2 * 4),
        pattern(2, 2 * 4),
    ];
    let desc = Ktx2Description {
        vk_format: vk::R8G8B8A8_SRGB,
        type_size: 1,
        width: 8,
        height: 4,
        depth: 0,
        layers: 0,
        faces: 1,
        block_bytes: 4,
        dfd: BasicDfd::uncompressed(RGBA, 8, false, true),
        key_values: vec![
            ("KTXorientation".into(), b"rd\0".to_vec()),
            ("KTXwriter".into(), b"hearth\0".to_vec()),
        ],
        zstd_level: Some(3),
    };
    let bytes = write(&desc, &levels);
    let info = load(&bytes).unwrap();
    assert_eq!(
        (info.vk_format, info.levels, info.supercompression),
        (43, 3, 2)
    );
    assert_eq!((info.width, info.height), (8, 4));
    for (level, written) in levels.iter().enumerate() {
        assert_eq!(&image_bytes(&bytes, level as u32, 0, 0).unwrap(), written);
    }
}

/// libktx is a real check, not a rubber stamp: it refuses a 2D-length orientation on a 3D
/// texture (hearth writes "rdi" there), a corrupt zstd frame, and a bad face count.
#[test]
fn libktx_rejects_broken_variants() {
    let mut lut = cases(Some(3)).remove(9);
    assert!(lut.name.starts_with("RGBA16F 3D"));
    lut.desc.key_values[1].1 = b"rd\0".to_vec();
    let err = load(&write(&lut.desc, &lut.levels)).unwrap_err();
    assert!(err.contains("FileDataError"), "{err}");

    let rgba = cases(Some(3)).remove(0);
    let mut bytes = write(&rgba.desc, &rgba.levels);
    // Level 0's byteOffset is the first level-index entry, right after the 80-byte header.
    let level0 = u64::from_le_bytes(bytes[80..88].try_into().unwrap()) as usize;
    bytes[level0..level0 + 4].fill(0xFF); // no longer a zstd frame magic
    let err = load(&bytes).unwrap_err();
    assert!(err.contains("LoadImageData"), "{err}");

    let mut bytes = write(&rgba.desc, &rgba.levels);
    bytes[36..40].copy_from_slice(&2u32.to_le_bytes()); // faceCount
    let err = load(&bytes).unwrap_err();
    assert!(err.contains("FileDataError"), "{err}");
}

// ---- UASTC -------------------------------------------------------------------------------

/// A UASTC description as hearth's baker writes it (sRGB, KTXorientation + KTXwriter).
fn uastc_desc(
    width: u32,
    height: u32,
    (layers, faces): (u32, u32),
    uastc_channel: u8,
    zstd_level: Option<i32>,
) -> Ktx2Description {
    Ktx2Description {
        vk_format: vk::UNDEFINED,
        type_size: 1,
        width,
        height,
        depth: 0,
        layers,
        faces,
        block_bytes: 16,
        dfd: BasicDfd::uastc(uastc_channel, true),
        key_values: vec![
            ("KTXorientation".into(), b"rd\0".to_vec()),
            ("KTXwriter".into(), b"hearth\0".to_vec()),
        ],
        zstd_level,
    }
}

/// hearth's UASTC DFD, checked with real UASTC blocks: the reference file's blocks (as libktx
/// loads them) rewritten by hearth's writer (zstd, as the baker does) load in libktx and
/// transcode to exactly the pixels of the reference, for every channel layout hearth writes.
#[test]
fn hearth_uastc_transcodes_like_the_reference() {
    let reference = std::fs::read(shared::corpus("ktx2_reference/2d_uastc.ktx2")).unwrap();
    let info = load(&reference).unwrap();
    assert_eq!(info.color_model, 166);
    let blocks: Vec<Vec<u8>> = (0..info.levels)
        .map(|level| image_bytes(&reference, level, 0, 0).unwrap())
        .collect();
    let expected = decode_rgba8(&reference).unwrap();
    for (uastc_channel, components) in [
        (channel::UASTC_RGB, Some(3)),
        (channel::UASTC_RGBA, Some(4)),
        (channel::UASTC_RRR, Some(1)),
        // libktx v4.0.0 cannot count RG's components (see LibktxInfo::num_components).
        (channel::UASTC_RG, None),
    ] {
        let desc = uastc_desc(info.width, info.height, (0, 1), uastc_channel, Some(3));
        let bytes = write(&desc, &blocks);
        let got = load(&bytes).unwrap_or_else(|e| panic!("UASTC channel {uastc_channel}: {e}"));
        assert_eq!((got.vk_format, got.color_model), (0, 166));
        assert_eq!((got.supercompression, got.levels), (2, info.levels));
        assert!(got.needs_transcoding && got.is_compressed);
        assert_eq!(got.transfer_function, 2);
        assert_eq!(got.num_components, components, "channel {uastc_channel}");
        assert_eq!(got.sample_channel_types, vec![uastc_channel]);
        let decoded = decode_rgba8(&bytes).unwrap();
        assert_eq!(decoded.len(), expected.len());
        for (level, (got, want)) in decoded.iter().zip(&expected).enumerate() {
            assert_eq!((got.0, got.1), (want.0, want.1), "level {level}");
            assert_eq!(got.2.len(), (got.0 * got.1 * 4) as usize);
            // RGB/RRR/RG blocks transcode the same colour data; only the declared layout
            // changes, and libktx's RGBA32 output does not depend on it.
            assert!(
                got.2 == want.2,
                "channel {uastc_channel}: level {level} pixels differ"
            );
        }
    }
}

/// A UASTC cubemap and array as hearth writes them (the reference's level-0 blocks for every
/// face or layer): libktx transcodes each face/layer.
#[test]
fn hearth_uastc_cubemap_and_array_transcode() {
    let reference = std::fs::read(shared::corpus("ktx2_reference/2d_uastc.ktx2")).unwrap();
    let info = load(&reference).unwrap();
    // A square, single-level texture from the reference's level 0 (40x40: 10x10 blocks).
    let face = image_bytes(&reference, 0, 0, 0).unwrap();
    let want = &decode_rgba8(&reference).unwrap()[0];
    for (layers, faces) in [(0, 6), (3, 1)] {
        let desc = uastc_desc(
            info.width,
            info.height,
            (layers, faces),
            channel::UASTC_RGB,
            Some(3),
        );
        let level0: Vec<u8> = face.repeat((layers.max(1) * faces) as usize);
        let bytes = write(&desc, &[level0]);
        let got = load(&bytes).unwrap();
        assert_eq!(
            (got.faces, got.layers, got.is_cubemap),
            (faces, layers.max(1), faces == 6)
        );
        for layer in 0..layers.max(1) {
            for f in 0..faces {
                let decoded = decode_rgba8_at(&bytes, layer, f).unwrap();
                assert!(decoded[0] == *want, "layer {layer} face {f}");
            }
        }
    }
}

// ---- ktx2check ---------------------------------------------------------------------------

/// Where hearth and ktx2check v4.0.0 knowingly differ: hearth keeps the DFD's `bytesPlane0`
/// when it zstd-supercompresses (as KTX-Software has done since 2025, and the KTX 2.0 spec is
/// being reworded to allow); v4.0.0 still wants 0 there, the spec's old "unsized format" rule.
const BYTES_PLANE_RULE: &str = "DFD bytes/plane must be 0 for a supercompressed texture.";
/// ... and v4.0.0 predates the UASTC_RG channel id (6, added to the KTX 2.0 spec in 2021 and
/// written by libktx's own encoder for two-channel UASTC).
const UASTC_RG_RULE: &str = "Only UASTC_RGB (0), UASTC_RGBA (3), UASTC_RRR (4) or \
                             UASTC_RRRG (5) channels allowed for UASTC textures.";

/// ktx2check's ERROR messages, each on one line (it wraps long ones and may end with NUL).
fn ktx2check_errors(report: &str) -> Vec<String> {
    let text = report.replace('\0', "");
    let mut out = Vec::new();
    for chunk in text.split("ERROR:").skip(1) {
        let message = chunk.split("WARNING:").next().unwrap_or("");
        out.push(message.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    out
}

/// ktx2check v4.0.0 aborts on a UASTC + zstd file whose bytesPlane0 is not 0: it means to
/// report [`BYTES_PLANE_RULE`] but its message for UASTC has a bad format string.
const BYTES_PLANE_CRASH: &str = "extra arguments provided to sprintf";

/// `bytes` with the DFD's bytesPlane[0-7] set to 0 (the old rule for supercompressed files).
fn with_zero_bytes_planes(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let dfd = u32::from_le_bytes(bytes[48..52].try_into().unwrap()) as usize;
    // dfdTotalSize (4) | vendorId/descriptorType (4) | version/blockSize (4) | model.. (4)
    // | texelBlockDimension (4) | bytesPlane[0-7] (8)
    out[dfd + 20..dfd + 28].fill(0);
    out
}

/// Khronos' validator (`ktx2check`, built from the same KTX-Software sources as libktx) finds
/// nothing wrong with any hearth shape beyond the two dated v4.0.0 rules above. Without zstd
/// and with a UASTC channel other than RG, hearth's files pass it clean; with zstd, the same
/// file with bytesPlane[0-7] zeroed passes clean, so that field is the only difference.
#[test]
fn ktx2check_validates_every_hearth_shape() {
    let path = shared::ktx2check_path()
        .expect("ktx2check not found: libktx-rs-sys builds it, or set KTX2CHECK to its path");
    println!("validator: {}", path.display());
    // (name, file, zstd, UASTC RG)
    let mut all: Vec<(String, Vec<u8>, bool, bool)> = Vec::new();
    for zstd in [None, Some(3)] {
        for case in cases(zstd) {
            let name = format!("{} (zstd {zstd:?})", case.name);
            all.push((name, write(&case.desc, &case.levels), zstd.is_some(), false));
        }
    }
    let reference = std::fs::read(shared::corpus("ktx2_reference/2d_uastc.ktx2")).unwrap();
    {
        let blocks: Vec<Vec<u8>> = (0..load(&reference).unwrap().levels)
            .map(|level| image_bytes(&reference, level, 0, 0).unwrap())
            .collect();
        for zstd in [None, Some(3)] {
            for uastc_channel in [
                channel::UASTC_RGB,
                channel::UASTC_RGBA,
                channel::UASTC_RRR,
                channel::UASTC_RG,
            ] {
                let desc = uastc_desc(40, 40, (0, 1), uastc_channel, zstd);
                let name = format!("UASTC channel {uastc_channel} (zstd {zstd:?})");
                let rg = uastc_channel == channel::UASTC_RG;
                all.push((name, write(&desc, &blocks), zstd.is_some(), rg));
            }
        }
    }
    let check = |name: &str, bytes: &[u8], allowed: &[&str]| -> Vec<String> {
        let check = shared::ktx2check(bytes).unwrap().unwrap();
        let errors = ktx2check_errors(&check.report);
        let crashed = check.report.contains(BYTES_PLANE_CRASH);
        if crashed {
            assert!(
                allowed.contains(&BYTES_PLANE_RULE),
                "{name}: {}",
                check.report
            );
            return vec![format!("(crash) {BYTES_PLANE_CRASH}")];
        }
        assert_eq!(check.valid, errors.is_empty(), "{name}: {}", check.report);
        for error in &errors {
            assert!(
                allowed.contains(&error.as_str()),
                "ktx2check rejects {name}: {error}\n{}",
                check.report
            );
        }
        errors
    };
    let mut dated = 0;
    for (name, bytes, zstd, rg) in &all {
        let rg_rule: &[&str] = if *rg { &[UASTC_RG_RULE] } else { &[] };
        let mut allowed = rg_rule.to_vec();
        if *zstd {
            allowed.push(BYTES_PLANE_RULE);
            // The only zstd-specific complaint is bytesPlane: zeroed, the file passes.
            let zeroed = format!("{name} with bytesPlane zeroed");
            check(&zeroed, &with_zero_bytes_planes(bytes), rg_rule);
        }
        let errors = check(name, bytes, &allowed);
        if !errors.is_empty() {
            println!("{name}: only dated v4.0.0 rule(s): {errors:?}");
            dated += 1;
        }
    }
    println!(
        "ktx2check: {} hearth files, {} flagged only under dated v4.0.0 rules",
        all.len(),
        dated
    );
}
