//! The texture pipeline end to end: images, cubemaps, arrays and LUTs baked through the
//! manifest, read back with hearth's `Ktx2` view and the independent `ktx2` crate, decoded
//! with Basis Universal's transcoder to measure quality. Real images come from
//! tests/corpus (a test fails, naming the file, when it is missing).
#![cfg(all(feature = "bake", feature = "transcode"))]

use crate::common;

use crate::common::corpus;
use hearth::bake::texture::pixels::{linear_to_srgb, srgb_to_linear};
use hearth::bake::Baker;
use hearth::format::ktx2::{channel, model, vk};
use hearth::read::transcode::{transcode, transcode_rows, TranscodeTarget};
use hearth::Ktx2;

fn png(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let image = image::RgbaImage::from_fn(width, height, |x, y| image::Rgba(pixel(x, y)));
    let mut out = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// A pseudo-random but smooth-ish test pattern.
fn pattern(x: u32, y: u32) -> [u8; 4] {
    [
        (x * 7 + y * 3) as u8,
        (x * x + y) as u8,
        (y * 11) as u8,
        (200 + (x + y) % 56) as u8,
    ]
}

/// Bakes `files` with `settings` (TOML lines appended after one group globbing everything).
fn bake(
    files: &[(&str, &[u8])],
    settings: &str,
) -> (
    tempfile::TempDir,
    Result<hearth::bake::Report, hearth::bake::BakeError>,
) {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(&dir.path().join("src"), files);
    let manifest = dir.path().join("src/hearth.toml");
    std::fs::write(
        &manifest,
        format!("[[content.group]]\nassets = [\"**/*\"]\nexclude = [\"*.toml\"]\n{settings}"),
    )
    .unwrap();
    let report = Baker::new(manifest.as_path(), dir.path().join("out"))
        .keep_going(true)
        .run();
    (dir, report)
}

fn read(dir: &tempfile::TempDir, path: &str) -> Vec<u8> {
    std::fs::read(dir.path().join("out").join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Checks the file with the independent `ktx2` crate and returns its header.
fn independent_header(bytes: &[u8]) -> ktx2::Header {
    let reader = ktx2::Reader::new(bytes).expect("the ktx2 crate reads our file");
    assert_eq!(
        reader.levels().len() as u32,
        reader.header().level_count.max(1)
    );
    for level in reader.levels() {
        if reader.header().supercompression_scheme == Some(ktx2::SupercompressionScheme::Zstandard)
        {
            let inflated =
                zstd::bulk::decompress(level.data, level.uncompressed_byte_length as usize)
                    .unwrap();
            assert_eq!(inflated.len() as u64, level.uncompressed_byte_length);
        }
    }
    reader.header()
}

fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (mut sum, mut n) = (0f64, 0usize);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            let d = pa[c] as f64 - pb[c] as f64;
            sum += d * d;
            n += 1;
        }
    }
    let mse = sum / n as f64;
    if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / mse).log10()
    }
}

#[test]
fn raw_textures_are_pixel_exact_with_real_mips() {
    let source = png(37, 20, pattern);
    let (dir, report) = bake(
        &[("ui/panel.png", &source)],
        "[default]\ntexture = { compress = false }\n",
    );
    let report = report.unwrap();
    let bytes = read(&dir, "ui/panel.ktx2");
    let ktx = Ktx2::parse(&bytes).unwrap();
    assert_eq!(
        (
            ktx.vk_format(),
            ktx.width(),
            ktx.height(),
            ktx.level_count()
        ),
        (vk::R8G8B8A8_SRGB, 37, 20, 6)
    );
    assert_eq!(ktx.supercompression(), 2);
    assert!(ktx.is_srgb() && !ktx.is_uastc());
    assert_eq!(ktx.key_value("KTXorientation"), Some(&b"rd\0"[..]));
    assert!(ktx.key_value("KTXwriter").unwrap().starts_with(b"hearth "));
    let header = independent_header(&bytes);
    assert_eq!(header.format, Some(ktx2::Format::R8G8B8A8_SRGB));
    assert_eq!(
        (header.pixel_width, header.pixel_height, header.level_count),
        (37, 20, 6)
    );

    // Level 0 is the source, byte for byte.
    let decoded = image::load_from_memory(&source)
        .unwrap()
        .to_rgba8()
        .into_raw();
    assert_eq!(&*ktx.level(0).unwrap(), &decoded[..]);
    // Each level has its size, and level 1 is a linear-light average, not a copy.
    for level in 0..6 {
        let (w, h, _) = ktx.level_dimensions(level);
        assert_eq!(ktx.level(level).unwrap().len(), (w * h * 4) as usize);
    }
    // With even sizes, level 1 is the 2x2 average in linear light.
    let even = png(36, 20, pattern);
    let (even_dir, even_report) = bake(
        &[("even.png", &even)],
        "[default]\ntexture = { compress = false }\n",
    );
    even_report.unwrap();
    let even_bytes = read(&even_dir, "even.ktx2");
    let even_ktx = Ktx2::parse(&even_bytes).unwrap();
    let level1 = even_ktx.level(1).unwrap();
    for (x, y) in [(0u32, 0u32), (5, 3), (17, 9)] {
        let at = |px: u32, py: u32| pattern(px, py);
        let quad = [
            at(2 * x, 2 * y),
            at(2 * x + 1, 2 * y),
            at(2 * x, 2 * y + 1),
            at(2 * x + 1, 2 * y + 1),
        ];
        for c in 0..3 {
            let mean: f32 = quad
                .iter()
                .map(|p| srgb_to_linear(p[c] as f32 / 255.0))
                .sum::<f32>()
                / 4.0;
            let expected = (linear_to_srgb(mean) * 255.0).round() as i32;
            let got = level1[((y * 18 + x) * 4) as usize + c] as i32;
            assert!(
                (got - expected).abs() <= 1,
                "level 1 ({x},{y}) channel {c}: {got} vs {expected}"
            );
        }
    }
    assert_eq!(report.manifest_entries, 1);
    let manifest_bytes = read(&dir, "assets.hman");
    let manifest = hearth::format::hman::parse(&manifest_bytes)
        .unwrap()
        .into_iter()
        .next()
        .unwrap();
    assert_eq!(
        manifest.hash,
        hearth::hash_asset_ref("ui/panel"),
        "textures hash their path without .ktx2"
    );
    assert_eq!(
        (manifest.kind, manifest.color_space),
        (hearth::AssetKind::TEXTURE, hearth::ColorSpace::Srgb)
    );
}

#[test]
fn modes_pick_formats_normals_stay_unit_length() {
    let bump = png(16, 16, |x, y| {
        let (nx, ny) = ((x as f32 / 15.0 - 0.5) * 0.8, (y as f32 / 15.0 - 0.5) * 0.8);
        let nz = (1.0 - nx * nx - ny * ny).sqrt();
        [
            ((nx * 0.5 + 0.5) * 255.0) as u8,
            ((ny * 0.5 + 0.5) * 255.0) as u8,
            ((nz * 0.5 + 0.5) * 255.0) as u8,
            255,
        ]
    });
    let gray = png(8, 8, |x, _| [(x * 30) as u8, 0, 0, 255]);
    let (dir, report) = bake(
        &[("rock.n.png", &bump), ("rock.ao.png", &gray)],
        "[default]\ntexture = { compress = false }\n",
    );
    report.unwrap();
    let normal = read(&dir, "rock.n.ktx2");
    let ktx = Ktx2::parse(&normal).unwrap();
    assert_eq!(ktx.vk_format(), vk::R8G8_UNORM);
    assert!(!ktx.is_srgb());
    for level in 0..ktx.level_count() {
        for rg in ktx.level(level).unwrap().chunks_exact(2) {
            let (x, y) = (
                rg[0] as f32 / 255.0 * 2.0 - 1.0,
                rg[1] as f32 / 255.0 * 2.0 - 1.0,
            );
            assert!(
                x * x + y * y <= 1.02,
                "level {level}: xy outside the unit disc: {x} {y}"
            );
        }
    }
    let ao_bytes = read(&dir, "rock.ao.ktx2");
    let ao = Ktx2::parse(&ao_bytes).unwrap();
    assert_eq!(ao.vk_format(), vk::R8_UNORM);
    assert_eq!(ao.level(0).unwrap()[..3], [0, 30, 60]);
    independent_header(&normal);
}

#[test]
fn uastc_quality_per_mode_on_the_corpus() {
    // (file, name in the content, channels compared, PSNR floor in dB)
    let cases = [
        (
            "images/DamagedHelmet_albedo_2k.jpg",
            "albedo.jpg",
            &[0usize, 1, 2][..],
            35.0,
        ),
        (
            "images/FlightHelmet_MetalParts_Normal_2k.png",
            "metal.n.png",
            &[0, 1][..],
            35.0,
        ),
        (
            "images/tga/sponza_thorn_diff.tga",
            "thorn.tga",
            &[0, 1, 2, 3][..],
            35.0,
        ),
        (
            "images/tga/chain_texture.tga",
            "chain.r.tga",
            &[0][..],
            35.0,
        ),
    ];
    for (file, name, channels, floor) in cases {
        let source = std::fs::read(corpus(file)).unwrap();
        let (dir, report) = bake(&[(name, &source)], "");
        report.unwrap();
        let out = format!("{}.ktx2", name.rsplit_once('.').unwrap().0);
        let bytes = read(&dir, &out);
        let ktx = Ktx2::parse(&bytes).unwrap();
        assert!(
            ktx.is_uastc()
                && ktx.vk_format() == vk::UNDEFINED
                && ktx.dfd().color_model == model::UASTC
        );
        assert_eq!(
            ktx.dfd().bytes_planes[0],
            16,
            "bytesPlane0 set for supercompressed UASTC (KTX 2.0.4)"
        );
        let header = independent_header(&bytes);
        assert_eq!(
            header.supercompression_scheme,
            Some(ktx2::SupercompressionScheme::Zstandard)
        );
        let decoded = transcode(&ktx, 0, 0, 0, TranscodeTarget::Rgba8).unwrap();
        let format = image::ImageFormat::from_path(name).unwrap();
        let mut original = image::load_from_memory_with_format(&source, format)
            .unwrap()
            .to_rgba8()
            .into_raw();
        let mode = hearth::bake::texture::TextureMode::from_file_name(name);
        if mode == hearth::bake::texture::TextureMode::Grayscale {
            // One channel (R) is encoded as RRR.
            original.chunks_exact_mut(4).for_each(|p| p[3] = 255);
        }
        if mode == hearth::bake::texture::TextureMode::Normal {
            // Normals are renormalized at level 0 too: compare X and Y only.
            assert_eq!(ktx.dfd().samples[0].channel_type, channel::UASTC_RG);
        }
        let db = psnr(&decoded, &original, channels);
        println!(
            "{file}: UASTC PSNR {db:.2} dB ({} levels, {} bytes)",
            ktx.level_count(),
            bytes.len()
        );
        assert!(
            db >= floor,
            "{file}: PSNR {db:.2} dB below the {floor} dB floor"
        );
        // Every level transcodes to its own size.
        for level in 0..ktx.level_count() {
            let (w, h, _) = ktx.level_dimensions(level);
            assert_eq!(
                transcode(&ktx, level, 0, 0, TranscodeTarget::Rgba8)
                    .unwrap()
                    .len(),
                (w * h * 4) as usize
            );
        }
        assert_eq!(
            transcode(&ktx, 0, 0, 0, TranscodeTarget::Bc7)
                .unwrap()
                .len(),
            (ktx.width().div_ceil(4) * ktx.height().div_ceil(4) * 16) as usize
        );
        // A level transcoded a few block rows at a time (as bevy_hearth splits it across
        // threads) is the level transcoded whole.
        for level in 0..ktx.level_count() {
            let data = ktx.level(level).unwrap();
            let blocks_y = ktx.level_dimensions(level).1.div_ceil(4);
            for target in [TranscodeTarget::Rgba8, TranscodeTarget::Bc7] {
                let mut joined = Vec::new();
                for start in (0..blocks_y).step_by(3) {
                    let rows = start..(start + 3).min(blocks_y);
                    joined.extend(transcode_rows(&ktx, &data, level, rows, target).unwrap());
                }
                assert!(
                    joined == transcode(&ktx, level, 0, 0, target).unwrap(),
                    "{file}: level {level} to {target:?} in parts differs from whole"
                );
            }
        }
        let data = ktx.level(0).unwrap();
        let past = ktx.height().div_ceil(4) + 1;
        assert!(transcode_rows(&ktx, &data, 0, 0..past, TranscodeTarget::Bc7).is_err());
        assert!(transcode_rows(&ktx, &data, 0, 2..2, TranscodeTarget::Bc7).is_err());
    }
}

#[test]
fn cubemaps_arrays_and_luts() {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for face in ["px", "nx", "py", "ny", "pz", "nz"] {
        files.push((
            format!("sky.env/{face}.png"),
            std::fs::read(corpus(&format!("cubemaps/Ryfjallet/{face}.png"))).unwrap(),
        ));
    }
    for (i, shade) in [30u8, 120, 220].iter().enumerate() {
        files.push((
            format!("tiles.array/{i}.png"),
            png(8, 8, |_, _| [*shade, *shade, *shade, 255]),
        ));
    }
    let luts: Vec<_> = std::fs::read_dir(corpus("luts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for (i, lut) in luts.iter().enumerate() {
        files.push((format!("grade{i}.lut.cube"), std::fs::read(lut).unwrap()));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (dir, report) = bake(&refs, "[default]\ntexture = { quality = \"fastest\" }\n");
    let report = report.unwrap();
    assert_eq!(
        report.assets,
        2 + luts.len(),
        "six faces make one cubemap, three layers one array"
    );

    let sky = read(&dir, "sky.env.ktx2");
    let ktx = Ktx2::parse(&sky).unwrap();
    assert_eq!(
        (ktx.faces(), ktx.width(), ktx.level_count(), ktx.is_uastc()),
        (6, 256, 9, true)
    );
    assert_eq!(independent_header(&sky).face_count, 6);
    // Each face decodes close to its source.
    for (face_index, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        let source = image::open(corpus(&format!("cubemaps/Ryfjallet/{face}.png")))
            .unwrap()
            .to_rgba8()
            .into_raw();
        let decoded = transcode(&ktx, 0, 0, face_index as u32, TranscodeTarget::Rgba8).unwrap();
        let db = psnr(&decoded, &source, &[0, 1, 2]);
        assert!(db > 35.0, "face {face}: {db:.2} dB");
    }

    let tiles_bytes = read(&dir, "tiles.arr.ktx2");
    let tiles = Ktx2::parse(&tiles_bytes).unwrap();
    assert!(tiles.is_array());
    assert_eq!((tiles.layers(), tiles.level_count()), (3, 4));
    for (layer, shade) in [30u8, 120, 220].iter().enumerate() {
        let decoded = transcode(&tiles, 0, layer as u32, 0, TranscodeTarget::Rgba8).unwrap();
        assert!(
            decoded
                .chunks_exact(4)
                .all(|p| (p[0] as i32 - *shade as i32).abs() <= 2),
            "layer {layer} in name order"
        );
    }

    for (i, lut_path) in luts.iter().enumerate() {
        let text = std::fs::read_to_string(lut_path).unwrap();
        let lut = hearth::bake::texture::lut::parse(&text).unwrap();
        let bytes = read(&dir, &format!("grade{i}.lut.ktx2"));
        let ktx = Ktx2::parse(&bytes).unwrap();
        assert_eq!(
            (ktx.vk_format(), ktx.width(), ktx.depth()),
            (vk::R16G16B16A16_SFLOAT, lut.size, lut.size)
        );
        assert_eq!(
            independent_header(&bytes).format,
            Some(ktx2::Format::R16G16B16A16_SFLOAT)
        );
        let level = ktx.level(0).unwrap();
        for (entry, texel) in lut.rgb.iter().zip(level.chunks_exact(8)) {
            for c in 0..3 {
                let v = half::f16::from_le_bytes([texel[2 * c], texel[2 * c + 1]]).to_f32();
                assert!(
                    (v - entry[c]).abs() <= 1e-3 * entry[c].abs().max(1.0),
                    "{}: {v} vs {}",
                    lut_path.display(),
                    entry[c]
                );
            }
        }
        let manifest_bytes = read(&dir, "assets.hman");
        let manifest = hearth::format::hman::parse(&manifest_bytes).unwrap();
        let row =
            hearth::format::hman::find(&manifest, hearth::hash_asset_ref(&format!("grade{i}.lut")))
                .unwrap();
        assert_eq!(row.kind, hearth::AssetKind::LUT);
    }
}

#[test]
fn every_texture_setting_changes_the_output() {
    let source = png(64, 64, pattern);
    // Each variant is the baseline with one setting changed.
    let baseline = "compress = false, quality = \"fastest\"";
    let variants = [
        "compress = true, quality = \"fastest\"",
        "compress = true, quality = \"faster\"",
        "compress = true, quality = \"fastest\", rdo = 1.0",
        "compress = false, mips = false",
        "compress = false, max_size = 16",
        "compress = false, srgb = false",
        "compress = false, swizzle = \"bgra\"",
        "compress = false, zstd_level = 19",
    ];
    let bake_with = |table: &str| {
        let (dir, report) = bake(
            &[("a.png", &source)],
            &format!("[default]\ntexture = {{ {table} }}\n"),
        );
        report.unwrap_or_else(|e| panic!("{table}: {e}"));
        read(&dir, "a.ktx2")
    };
    let mut outputs = vec![bake_with(baseline)];
    for variant in variants {
        let out = bake_with(variant);
        assert!(
            !outputs.contains(&out),
            "`{variant}` did not change the output"
        );
        outputs.push(out);
    }
    let small = Ktx2::parse(&outputs[5]).unwrap();
    assert_eq!(
        (small.width(), small.height()),
        (16, 16),
        "max_size keeps the aspect"
    );
    let linear = Ktx2::parse(&outputs[6]).unwrap();
    assert_eq!(linear.vk_format(), vk::R8G8B8A8_UNORM);
    let swizzled = Ktx2::parse(&outputs[7]).unwrap();
    assert_eq!(swizzled.level(0).unwrap()[..4], {
        let p = pattern(0, 0);
        [p[2], p[1], p[0], p[3]]
    });
    let no_mips = Ktx2::parse(&outputs[4]).unwrap();
    assert_eq!(no_mips.level_count(), 1);
}

#[test]
fn bad_images_are_clear_errors_naming_the_file() {
    let good = png(8, 8, pattern);
    let truncated = &good[..good.len() / 2];
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("fine.png".into(), good.clone()),
        ("broken.png".into(), truncated.to_vec()),
        ("notanimage.png".into(), b"hello".to_vec()),
        ("huge.png".into(), {
            let wide = image::GrayImage::new(16385, 1);
            let mut out = Vec::new();
            wide.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
                .unwrap();
            out
        }),
        ("bad.lut.cube".into(), b"LUT_3D_SIZE 2\n0 0 0\n".to_vec()),
        ("sky.env/px.png".into(), good.clone()),
        ("odd.env/px.png".into(), good.clone()),
        ("mixed.array/a.png".into(), good.clone()),
        ("mixed.array/b.png".into(), png(4, 4, pattern)),
    ];
    for face in ["nx", "py", "ny", "pz", "nz"] {
        files.push((
            format!("odd.env/{face}.png"),
            if face == "nz" {
                png(4, 4, pattern)
            } else {
                good.clone()
            },
        ));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (_dir, report) = bake(&refs, "[default]\ntexture = { compress = false }\n");
    let error = report.unwrap_err().to_string();
    let expect = [
        ("broken.png", "truncated"),
        ("notanimage.png", "not a PNG"),
        ("huge.png", "larger than 16384"),
        ("bad.lut.cube", "needs 8"),
        ("sky.env", "face `nx` is missing"),
        ("odd.env", "image 5 is 4x4"),
        ("mixed.array", "image 1 is 4x4"),
    ];
    assert!(
        error.starts_with(&format!("{} assets failed", expect.len())),
        "{error}"
    );
    common::assert_errors_name(&error, &expect);
    assert!(!error.contains("fine.png"));
}

#[test]
fn gpu_formats_that_cannot_hold_a_texture_are_errors_naming_the_file() {
    let color = png(8, 8, pattern); // alpha below 255
    let files: [(&str, &[u8]); 5] = [
        ("color_bc5.png", &color),
        ("alpha_bc1.png", &color),
        ("gray_srgb_bc4.h.png", &color),
        ("fine_bc7.png", &color),
        ("normal_bc5.n.png", &color),
    ];
    let rules = "[[default.rules]]\nmatch = \"*_bc5*\"\ntexture = { format = \"bc5\" }\n\
                 [[default.rules]]\nmatch = \"*_bc1*\"\ntexture = { format = \"bc1\" }\n\
                 [[default.rules]]\nmatch = \"*_bc4*\"\n\
                 texture = { format = \"bc4\", srgb = true }\n\
                 [[default.rules]]\nmatch = \"*_bc7*\"\ntexture = { format = \"bc7\" }\n";
    let (_dir, report) = bake(&files, rules);
    let error = report.unwrap_err().to_string();
    let expect = [
        (
            "color_bc5.png",
            "keeps 2 channel(s), but this texture has 4",
        ),
        ("alpha_bc1.png", "is opaque, but this texture has alpha"),
        ("gray_srgb_bc4.h.png", "has no sRGB variant"),
    ];
    assert!(error.starts_with("3 assets failed"), "{error}");
    common::assert_errors_name(&error, &expect);
    // The others bake to their formats (a failed bake writes nothing).
    let (dir, report) = bake(&files[3..], rules);
    report.unwrap();
    let bc7 = read(&dir, "fine_bc7.ktx2");
    assert_eq!(Ktx2::parse(&bc7).unwrap().vk_format(), vk::BC7_SRGB_BLOCK);
    let bc5 = read(&dir, "normal_bc5.n.ktx2");
    assert_eq!(Ktx2::parse(&bc5).unwrap().vk_format(), vk::BC5_UNORM_BLOCK);
    independent_header(&bc5);

    // Settings that contradict each other are a manifest error naming the key.
    for (settings, key) in [
        ("texture = { compress = false, format = \"bc7\" }", "format"),
        (
            "texture = { format = \"astc4x4\", encoder = \"direct\" }",
            "encoder",
        ),
        ("texture = { format = \"bc9\" }", "unknown variant `bc9`"),
    ] {
        let (_dir, report) = bake(&[("a.png", &color)], &format!("[default]\n{settings}\n"));
        let error = report.unwrap_err().to_string();
        assert!(error.contains("default.texture"), "{settings}: {error}");
        assert!(error.contains(key), "{settings}: {error}");
    }
}

#[test]
fn texture_bakes_are_deterministic_and_cached_per_folder() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("a.png".into(), png(64, 48, pattern)),
        (
            "b.n.png".into(),
            png(32, 32, |x, y| {
                [128 + (x % 5) as u8, 128 + (y % 3) as u8, 250, 255]
            }),
        ),
        (
            "c.h.png".into(),
            png(20, 20, |x, y| [(x * y) as u8, 0, 0, 255]),
        ),
    ];
    for (i, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        files.push((
            format!("sky.env/{face}.png"),
            png(16, 16, move |x, y| {
                [(i * 40) as u8, x as u8 * 8, y as u8 * 8, 255]
            }),
        ));
    }
    for i in 0..2 {
        files.push((
            format!("tiles.array/{i}.png"),
            png(8, 8, move |x, _| [(i * 100 + x) as u8, 0, 0, 255]),
        ));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    common::write_files(&src, &refs);
    let manifest = src.join("hearth.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"**/*\"]\nexclude = [\"*.toml\"]\n[default]\ntexture = { quality = \"fastest\" }\n").unwrap();

    let mut trees = Vec::new();
    for jobs in [1, 2] {
        trees.push(common::bake_cold(
            &manifest,
            &dir.path().join(format!("out{jobs}")),
            jobs,
        ));
    }
    assert_eq!(
        trees[0], trees[1],
        "byte-identical whatever the thread count"
    );
    assert_eq!(
        trees[0].len(),
        5 + 3 + 1,
        "a, b, c, sky, tiles; manifest, names, pack; lock"
    );

    let out = dir.path().join("out1");
    let again = Baker::bake(manifest.as_path(), &out).unwrap();
    assert_eq!(
        (again.assets, again.cache_hits, again.files_written),
        (5, 5, 0)
    );
    // Changing one cube face re-bakes the cubemap only; a new layer re-bakes the array only.
    common::write_files(
        &src,
        &[("sky.env/nz.png", &png(16, 16, |_, _| [1, 2, 3, 255]))],
    );
    let changed = Baker::bake(manifest.as_path(), &out).unwrap();
    assert_eq!(changed.cache_hits, 4);
    common::write_files(
        &src,
        &[("tiles.array/2.png", &png(8, 8, |_, _| [9, 9, 9, 255]))],
    );
    let grown = Baker::bake(manifest.as_path(), &out).unwrap();
    assert_eq!(grown.cache_hits, 4);
    let tiles_bytes = std::fs::read(out.join("tiles.arr.ktx2")).unwrap();
    assert_eq!(Ktx2::parse(&tiles_bytes).unwrap().layers(), 3);
    // Every face file is an input cargo must watch.
    assert!(grown.inputs.iter().any(|p| p.ends_with("sky.env/nz.png")));
}

/// `png` with its image data (the zlib stream of its IDAT chunks) cut in half, in one
/// well-formed IDAT chunk: every chunk up to IEND is whole, the rows stop part way.
fn idat_cut(png: &[u8]) -> Vec<u8> {
    let mut chunks = Vec::new();
    let mut at = 8;
    while at + 12 <= png.len() {
        let length = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        chunks.push((&png[at + 4..at + 8], &png[at + 8..at + 8 + length]));
        at += 12 + length;
    }
    let idat: Vec<u8> = chunks
        .iter()
        .filter(|(kind, _)| *kind == b"IDAT")
        .flat_map(|(_, data)| data.iter().copied())
        .collect();
    let mut out = png[..8].to_vec();
    let mut idat_written = false;
    for (kind, data) in chunks {
        let data = match kind {
            b"IDAT" if idat_written => continue,
            b"IDAT" => {
                idat_written = true;
                &idat[..idat.len() / 2]
            }
            _ => data,
        };
        out.extend((data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend(kind);
        out.extend(data);
        out.extend(crc32fast::hash(&out[start..]).to_be_bytes());
    }
    out
}

fn encoded(image: image::DynamicImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut out), format)
        .unwrap();
    out
}

#[test]
fn truncated_images_are_errors_naming_the_file() {
    // Generated: an RLE TGA (the `image` crate writes RLE), a PNG cut inside IEND, PNGs whose
    // chunks are whole but whose image data stops half way (decoded row by row: the error
    // comes from a row, and names the file, a cubemap's face too).
    let rgba = image::DynamicImage::ImageRgba8(image::RgbaImage::from_fn(40, 30, |x, y| {
        image::Rgba(pattern(x, y))
    }));
    let tga = encoded(rgba.clone(), image::ImageFormat::Tga);
    assert!(matches!(tga[2], 9..=11), "the image crate writes RLE TGA");
    let png = encoded(rgba, image::ImageFormat::Png);
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("rle_cut.tga".into(), tga[..tga.len() * 2 / 3].to_vec()),
        ("rle_whole.tga".into(), tga.clone()),
        ("iend_cut.png".into(), png[..png.len() - 2].to_vec()),
        ("whole.png".into(), png.clone()),
        ("idat_cut.png".into(), idat_cut(&png)),
    ];
    let square = self::png(32, 32, pattern);
    for face in ["px", "nx", "py", "ny", "pz", "nz"] {
        let bytes = match face {
            "py" => idat_cut(&square),
            _ => square.clone(),
        };
        files.push((format!("cut.env/{face}.png"), bytes));
    }
    // Real corpus images cut short: the JPEG to 100 KB (the decoder fills the rest with gray
    // and reported success) and just before its end-of-image marker; the PNG and TGAs too.
    let mut expect = vec![
        ("rle_cut.tga", "truncated"),
        ("iend_cut.png", "truncated"),
        ("idat_cut.png", "cannot decode image"),
        ("cut.env/py.png", "cannot decode image"),
    ];
    let jpeg = std::fs::read(corpus("images/DamagedHelmet_albedo_2k.jpg")).unwrap();
    let png = std::fs::read(corpus("images/FlightHelmet_GlassPlastic_BaseColor_2k.png")).unwrap();
    let tga = std::fs::read(corpus("images/tga/chain_texture.tga")).unwrap();
    files.extend([
        ("helmet_100k.jpg".to_owned(), jpeg[..100_000].to_vec()),
        (
            "helmet_no_eoi.jpg".to_owned(),
            jpeg[..jpeg.len() - 2].to_vec(),
        ),
        ("glass_half.png".to_owned(), png[..png.len() / 2].to_vec()),
        ("chain_cut.tga".to_owned(), tga[..tga.len() / 2].to_vec()),
        ("helmet.jpg".to_owned(), jpeg.clone()),
    ]);
    expect.extend([
        ("helmet_100k.jpg", "truncated"),
        ("helmet_no_eoi.jpg", "end-of-image"),
        ("glass_half.png", "truncated"),
        ("chain_cut.tga", "truncated"),
    ]);
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (dir, report) = bake(
        &refs,
        "[default]\ntexture = { compress = false, mips = false }\n",
    );
    let error = report.unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("{} assets failed", expect.len())),
        "{error}"
    );
    common::assert_errors_name(&error, &expect);
    // The whole files are fine (baked in the same run, which failed as a whole: checked by
    // name in the error).
    for whole in ["rle_whole.tga", "whole.png", "helmet.jpg"] {
        assert!(!error.contains(whole), "{whole}: {error}");
    }
    drop(dir);
}

#[test]
fn the_pixel_budget_is_checked_before_decoding() {
    // A PNG header claiming 4000x4000 followed by garbage: were it decoded, the error would be
    // the decoder's; the budget refuses it from the header alone.
    let mut claims_big = png(2, 2, pattern);
    claims_big[16..24].copy_from_slice(&[0, 0, 0x0F, 0xA0, 0, 0, 0x0F, 0xA0]);
    // IHDR's CRC covers its type and data (bytes 12..29).
    let crc = crc32fast::hash(&claims_big[12..29]);
    claims_big[29..33].copy_from_slice(&crc.to_be_bytes());
    let small = png(64, 64, pattern);
    let model = format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}}],
        "materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],
        "textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{}"}}]}}"#,
        {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(&small)
        },
        {
            use base64::Engine;
            let floats: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect();
            base64::engine::general_purpose::STANDARD.encode(floats)
        }
    );
    let (_dir, report) = bake(
        &[
            ("claims_big.png", &claims_big),
            ("small.png", &small),
            ("fine.png", &png(8, 8, pattern)),
            ("model.gltf", model.as_bytes()),
        ],
        "[default]\ntexture = { compress = false, max_pixels = 1000 }\n",
    );
    let error = report.unwrap_err().to_string();
    common::assert_errors_name(
        &error,
        &[
            (
                "claims_big.png",
                "4000x4000 (16000000 pixels), over the budget of 1000",
            ),
            (
                "small.png",
                "64x64 (4096 pixels), over the budget of 1000 pixels (texture.max_pixels)",
            ),
            ("model.gltf", "image 0: image is 64x64"),
        ],
    );
    assert!(error.starts_with("3 assets failed"), "{error}");
    // Without the budget the same header fails in the decoder, not in the budget check.
    let (_dir, report) = bake(&[("claims_big.png", &claims_big)], "");
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("claims_big.png") && !error.contains("budget"),
        "{error}"
    );
}

/// A legal 16384 x 16384 RGBA image bakes (the decoder's default 512 MiB allocation limit used
/// to refuse it as "larger than 16384 pixels"). Heavy: about 2.5 GB and a minute; run it with
/// `cargo test --features cli,transcode --test texture -- --ignored`.
#[test]
#[ignore = "bakes a 16384x16384 RGBA image: ~2.5 GB of memory, about a minute"]
fn a_16384_rgba_image_bakes() {
    let side = 16384;
    let image = image::RgbaImage::from_fn(side, side, |x, y| {
        image::Rgba([(x / 64) as u8, (y / 64) as u8, 128, 255])
    });
    let bytes = encoded(
        image::DynamicImage::ImageRgba8(image),
        image::ImageFormat::Png,
    );
    let (dir, report) = bake(
        &[("big.png", &bytes)],
        "[default]\ntexture = { compress = false }\n",
    );
    report.unwrap();
    let ktx = read(&dir, "big.ktx2");
    let parsed = Ktx2::parse(&ktx).unwrap();
    assert_eq!((parsed.width(), parsed.height()), (side, side));
}
