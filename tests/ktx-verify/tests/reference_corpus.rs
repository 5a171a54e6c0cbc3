//! libktx loads every file of the KTX2 reference corpus (`tests/corpus/ktx2_reference`,
//! written by Khronos' own `ktx` tools) with sensible header values, and transcodes the UASTC and ETC1S ones to RGBA8.

use hearth_ktx_verify::{decode_rgba8, image_bytes, level_bytes, load, LibktxInfo};
use std::path::{Path, PathBuf};

/// The corpus files (`tests/corpus/ktx2_reference`), sorted; a missing corpus fails the test,
/// naming it.
fn corpus() -> Vec<PathBuf> {
    let dir = hearth_ktx_verify::corpus("ktx2_reference");
    let dir = dir.as_path();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| {
        panic!(
            "missing test data: the KTX2 reference corpus {}: {e}",
            dir.display()
        )
    });
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ktx2"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .ktx2 file in {}", dir.display());
    files
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn mip(size: u32, level: u32) -> u32 {
    (size >> level).max(1)
}

/// Checks that hold for any valid KTX2 file as libktx reports it.
fn check_generic(file: &str, info: &LibktxInfo) {
    assert!(
        info.width > 0 && info.height > 0 && info.depth > 0,
        "{file}: {info:?}"
    );
    assert!((1..=3).contains(&info.dimensions), "{file}: {info:?}");
    assert!(info.faces == 1 || info.faces == 6, "{file}: {info:?}");
    assert_eq!(info.is_cubemap, info.faces == 6, "{file}");
    assert!(info.layers >= 1, "{file}");
    assert!(info.levels >= 1, "{file}");
    let max = info.width.max(info.height).max(info.depth);
    assert!(
        1u64 << (info.levels - 1) <= max as u64,
        "{file}: too many levels"
    );
    assert_eq!(info.image_sizes.len(), info.levels as usize, "{file}");
    assert!(info.data_size > 0, "{file}");
    assert!(info.supercompression <= 3, "{file}: {info:?}");
    assert!(
        info.transfer_function == 1 || info.transfer_function == 2,
        "{file}: {info:?}"
    );
    assert!(!info.sample_channel_types.is_empty(), "{file}");
    if info.needs_transcoding {
        assert_eq!(
            info.vk_format, 0,
            "{file}: Basis textures carry no vkFormat"
        );
    } else {
        assert_ne!(info.vk_format, 0, "{file}");
    }
}

/// Transcodes to RGBA8 and checks every level has width * height * 4 bytes.
fn check_decode(file: &str, info: &LibktxInfo) -> Vec<(u32, u32, Vec<u8>)> {
    let bytes =
        std::fs::read(hearth_ktx_verify::corpus(&format!("ktx2_reference/{file}"))).unwrap();
    let images = decode_rgba8(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(images.len(), info.levels as usize, "{file}");
    for (level, (w, h, pixels)) in images.iter().enumerate() {
        let level = level as u32;
        assert_eq!((*w, *h), (mip(info.width, level), mip(info.height, level)));
        assert_eq!(pixels.len(), (*w * *h * 4) as usize, "{file} level {level}");
    }
    images
}

#[test]
fn libktx_loads_every_reference_file() {
    let files = corpus();
    for path in &files {
        let file = name(path);
        let bytes = std::fs::read(path).unwrap();
        let info = load(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        println!("{file}: {info:?}");
        check_generic(&file, &info);
        if info.needs_transcoding {
            check_decode(&file, &info);
        } else {
            // Every image libktx locates is inside its data and has the reported size.
            for level in 0..info.levels {
                for layer in 0..info.layers {
                    for face in 0..info.faces.max(mip(info.depth, level)) {
                        let image = image_bytes(&bytes, level, layer, face)
                            .unwrap_or_else(|e| panic!("{file}: {e}"));
                        assert_eq!(image.len(), info.image_sizes[level as usize]);
                    }
                }
                let whole = level_bytes(&bytes, level).unwrap();
                let expected = info.image_sizes[level as usize]
                    * (info.layers * info.faces * mip(info.depth, level)) as usize;
                assert_eq!(whole.len(), expected, "{file} level {level}");
            }
        }
    }
}

/// The known files, value by value.
#[test]
fn reference_header_values() {
    let files = corpus();
    let get = |file: &str| -> Option<LibktxInfo> {
        let path = files.iter().find(|p| name(p) == file)?;
        Some(load(&std::fs::read(path).unwrap()).unwrap())
    };
    if let Some(i) = get("2d_rgba8.ktx2") {
        assert_eq!(i.vk_format, 43, "R8G8B8A8_SRGB");
        assert_eq!((i.width, i.height, i.depth, i.dimensions), (40, 40, 1, 2));
        assert_eq!((i.levels, i.layers, i.faces), (6, 1, 1));
        assert!(!i.is_array && !i.is_cubemap && !i.is_compressed && !i.needs_transcoding);
        assert_eq!((i.supercompression, i.color_model), (0, 1));
        assert_eq!((i.color_primaries, i.transfer_function), (1, 2));
        assert_eq!(i.num_components, Some(4));
        assert_eq!(i.component_info, (4, 1));
        assert_eq!(i.element_size, 4);
        // The alpha sample is linear (0x10) in an sRGB texture, as hearth writes it.
        assert_eq!(i.sample_channel_types, vec![0, 1, 2, 0x1F]);
        for level in 0..6 {
            assert_eq!(
                i.image_sizes[level as usize],
                (mip(40, level).pow(2) * 4) as usize
            );
        }
        assert!(i.key_values.iter().any(|(k, _)| k == "KTXwriter"));
    }
    if let Some(i) = get("2d_bc7.ktx2") {
        assert_eq!(i.vk_format, 146, "BC7_SRGB_BLOCK");
        assert!(i.is_compressed && !i.needs_transcoding);
        assert_eq!((i.width, i.height, i.levels), (40, 40, 6));
        assert_eq!(i.element_size, 16);
        // 4x4 blocks of 16 bytes; partial blocks round up.
        for level in 0..6u32 {
            let blocks = mip(40, level).div_ceil(4).pow(2);
            assert_eq!(i.image_sizes[level as usize], (blocks * 16) as usize);
        }
    }
    if let Some(i) = get("2d_uastc.ktx2") {
        assert_eq!(
            (i.vk_format, i.color_model, i.supercompression),
            (0, 166, 0)
        );
        assert!(i.needs_transcoding && i.is_compressed);
        assert_eq!((i.width, i.height, i.levels), (40, 40, 6));
        check_decode("2d_uastc.ktx2", &i);
    }
    if let Some(i) = get("2d_etc1s.ktx2") {
        assert_eq!((i.vk_format, i.color_model), (0, 163));
        assert_eq!(i.supercompression, 1, "BasisLZ");
        assert!(i.needs_transcoding);
        assert_eq!((i.width, i.height, i.levels), (40, 40, 6));
        check_decode("2d_etc1s.ktx2", &i);
    }
    if let Some(i) = get("pisa_diffuse_rgb9e5_zstd.ktx2") {
        assert_eq!(i.vk_format, 123, "E5B9G9R9_UFLOAT_PACK32");
        assert_eq!(i.supercompression, 2, "zstd");
        assert!(i.is_cubemap && !i.needs_transcoding);
        assert_eq!((i.faces, i.width, i.height, i.levels), (6, 32, 32, 1));
        // The file says layerCount 1: an array of one cubemap.
        assert!(i.is_array);
        assert_eq!(i.layers, 1);
        assert_eq!(i.image_sizes, vec![32 * 32 * 4]);
        assert_eq!(i.data_size, 6 * 32 * 32 * 4);
    }
}

/// libktx's transcoder output is real pixels, not just the right size: the UASTC and ETC1S
/// files show one picture (an ochre square labelled "BASIS UASTC" / "BASIS ETC1S"; the RGBA8
/// file is a green one labelled "RGBA8"), so their level 0 decodes nearly alike, with the
/// ochre background in the corners, and fully opaque.
#[test]
fn transcoded_pixels_show_the_picture() {
    let files = corpus();
    let find = |file: &str| files.iter().find(|p| name(p) == file);
    let (Some(uastc), Some(etc1s)) = (find("2d_uastc.ktx2"), find("2d_etc1s.ktx2")) else {
        return;
    };
    let uastc = decode_rgba8(&std::fs::read(uastc).unwrap()).unwrap();
    let etc1s = decode_rgba8(&std::fs::read(etc1s).unwrap()).unwrap();
    let (a, b) = (&uastc[0].2, &etc1s[0].2);
    let mean_abs = a
        .iter()
        .zip(b)
        .map(|(x, y)| (*x as f64 - *y as f64).abs())
        .sum::<f64>()
        / a.len() as f64;
    println!("mean |uastc - etc1s| = {mean_abs:.2}");
    assert!(mean_abs < 12.0, "mean abs difference {mean_abs}");
    let ochre = [186.0, 151.0, 0.0];
    for pixels in [a, b] {
        assert!(pixels.chunks(4).all(|px| px[3] == 255), "opaque");
        for corner in [0, 39 * 4, 39 * 160, 39 * 160 + 39 * 4] {
            let px = &pixels[corner..corner + 3];
            let close = px
                .iter()
                .zip(ochre)
                .all(|(c, o)| (*c as f64 - o).abs() <= 20.0);
            assert!(close, "corner pixel {px:?} is not the ochre background");
        }
    }
    if let Some(rgba8) = find("2d_rgba8.ktx2") {
        let green = image_bytes(&std::fs::read(rgba8).unwrap(), 0, 0, 0).unwrap();
        assert_eq!(
            &green[..4],
            &[77, 175, 74, 255],
            "the RGBA8 file's green corner"
        );
    }
}
