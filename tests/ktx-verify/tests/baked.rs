//! Every kind of KTX2 that hearth's *baker* writes, from real content, checked with Khronos'
//! libktx and `ktx2check`.
//!
//! The tests build content folders from the repository's test corpus (`tests/corpus`, through
//! `shared::corpus`; a missing file fails the test, naming it), bake each folder twice with
//! `hearth::bake::Baker`, once as UASTC (`compress = true`) and once as raw pixels
//! (`compress = false`), and then, for every `.ktx2` in both outputs:
//!
//! - libktx loads it, and its header and DFD values (vkFormat, width/height/depth, levels,
//!   faces, layers, supercompression, transfer function, color model, samples, key/value
//!   data, image sizes) equal what hearth's own reader, `hearth::Ktx2::parse`, says, field by
//!   field, and what the bake was meant to produce (sRGB for color, linear otherwise; zstd);
//! - every level libktx inflates equals `Ktx2::level`, and for raw files and LUTs every image
//!   (level, layer, face or depth slice) that libktx locates equals hearth's bytes for it;
//! - for UASTC files, libktx's RGBA transcode of every level of every face and layer equals
//!   hearth's own transcoder's (`hearth::read::transcode`) byte for byte, and its level 0 is
//!   compared with the raw bake of the same source and settings (whose level 0 is the
//!   encoder's exact input) and, where level 0 is not resized, renormalized or swizzled, with
//!   the source image decoded by the `image` crate: PSNR >= 35 dB on the texture's channels
//!   (RGB for color, RG for normal maps, R for grayscale; alpha as well when the source has
//!   alpha). Where UASTC itself cannot reach 35 dB (a few noisy corpus textures, see the
//!   README), hearth must come within 0.5 dB of Khronos' `toktx` at the same UASTC level on
//!   the same pixels;
//! - `ktx2check` reports nothing but the two complaints where v4.0.0 is out of date (see the
//!   crate's README): `bytesPlane0` non-zero under zstd, and the UASTC_RG channel id; on LUTs
//!   it may also note (a WARNING) hearth's custom `HEARTHlutDomain` key.
//!
//! hearth (with its `bake` feature) links Basis Universal, and so does libktx, so this test
//! reaches libktx through the crate's `libktx-probe` program and includes only `shared.rs`.

use hearth::bake::texture::pixels::Pixels;
use hearth::format::ktx2::{channel, model, vk};
use hearth::Ktx2;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[allow(dead_code)]
#[path = "../src/shared.rs"]
mod shared;
use shared::{corpus, LibktxInfo, Probe};

#[path = "baked/gpu_formats.rs"]
mod gpu_formats;

/// The lowest PSNR accepted for a UASTC level 0 against its reference.
const MIN_PSNR: f64 = 35.0;

fn probe() -> Probe {
    Probe::new(env!("CARGO_BIN_EXE_libktx-probe"))
}

// ---- what each baked texture should be ----------------------------------------------------

/// One texture the baker is asked for, and what it should come out as.
#[derive(Debug, Clone)]
struct Case {
    /// Its path in the baked tree, e.g. `thorn.ao.ktx2`.
    out: String,
    /// Color channels are sRGB-encoded (DFD transfer function 2), else linear (1).
    srgb: bool,
    /// Channels it carries: 1 (R8 / UASTC RRR), 2 (RG8 / UASTC RG) or 4 (RGBA8 / UASTC RGB
    /// or RGBA).
    channels: usize,
    /// 6 for a cubemap, else 1.
    faces: u32,
    /// The header's layerCount: 0 unless an array.
    layers: u32,
    /// The corpus files it is made from, one per face or layer.
    from: Vec<PathBuf>,
    /// Level 0 is the source as decoded (not resized, not renormalized, no swizzle), so it can
    /// be compared with the source image itself.
    direct: bool,
    /// The size limit of its bake (0: none).
    max_size: u32,
    /// Full mip chain (else one level).
    mips: bool,
}

impl Case {
    fn image(out: &str, srgb: bool, channels: usize, from: PathBuf) -> Self {
        Self {
            out: out.into(),
            srgb,
            channels,
            faces: 1,
            layers: 0,
            from: vec![from],
            direct: true,
            max_size: 0,
            mips: true,
        }
    }
    fn indirect(mut self) -> Self {
        self.direct = false;
        self
    }
    fn max_size(mut self, max_size: u32) -> Self {
        self.max_size = max_size;
        self.direct = false;
        self
    }
}

/// A source file decoded with the `image` crate (through hearth's thin wrapper, which is
/// `image::ImageReader` + `into_rgba32f`), as RGBA8, and whether it has an alpha channel.
fn decode_source(path: &Path) -> (u32, u32, Vec<u8>, bool) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ext = path
        .extension()
        .unwrap()
        .to_string_lossy()
        .to_ascii_lowercase();
    let (pixels, info) = Pixels::decode(&bytes, &ext).unwrap();
    assert_eq!(
        info.bits,
        8,
        "{}: the corpus images are 8-bit",
        path.display()
    );
    let rgba = pixels
        .rgba
        .iter()
        .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
        .collect();
    (
        pixels.width,
        pixels.height,
        rgba,
        matches!(info.channels, 2 | 4),
    )
}

// ---- baking ---------------------------------------------------------------------------------

/// The scratch folder `name` under cargo's per-target tmp dir.
fn scratch_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ktx-verify-baked-{}", std::process::id()))
        .join(name)
}

/// A fresh, empty [`scratch_dir`].
fn scratch(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    let _ = std::fs::remove_dir_all(&dir);
    // Another test may remove the shared per-process folder while this one creates it.
    for _ in 0..5 {
        if std::fs::create_dir_all(&dir).is_ok() {
            break;
        }
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies `inputs` (content path, corpus file) into a fresh content folder, writes its
/// manifest (`[default] texture = { TEXTURE }` and then `rules`), bakes it and returns every
/// `.ktx2` of the output by its path in the baked tree.
fn bake(
    name: &str,
    inputs: &[(String, PathBuf)],
    texture: &str,
    rules: &str,
) -> BTreeMap<String, Vec<u8>> {
    let root = scratch(name);
    let content = root.join("content");
    for (rel, from) in inputs {
        let to = content.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, &to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
    let manifest = content.join("hearth.toml");
    let text = format!(
        "[[content.group]]\nassets = [\"**/*\"]\nexclude = [\"*.toml\"]\n\n\
         [default]\ntexture = {{ {texture} }}\n{rules}"
    );
    std::fs::write(&manifest, text).unwrap();
    let start = Instant::now();
    let report = hearth::bake::Baker::new(manifest, root.join("out"))
        .run()
        .unwrap_or_else(|e| panic!("bake {name}: {e}"));
    println!(
        "bake {name} ({texture}): {} assets in {:.1} s",
        report.assets,
        start.elapsed().as_secs_f64()
    );
    for warning in &report.warnings {
        println!("  bake warning: {warning}");
    }
    let mut out = BTreeMap::new();
    collect_ktx2(&report.out_dir, &report.out_dir, &mut out);
    out
}

fn collect_ktx2(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_ktx2(base, &path, out);
        } else if path.extension().is_some_and(|e| e == "ktx2") {
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, std::fs::read(&path).unwrap());
        }
    }
}

// ---- libktx against hearth's reader -----------------------------------------------------------

/// Collects disagreements instead of stopping at the first.
#[derive(Default)]
struct Findings(Vec<String>);

impl Findings {
    fn eq<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, libktx: T, hearth: T) {
        if libktx != hearth {
            self.0
                .push(format!("{what}: libktx {libktx:?}, hearth {hearth:?}"));
        }
    }
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }
}

/// The texture kind a file should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Uastc,
    Raw,
    Lut,
}

/// Loads `bytes` in libktx and in hearth's reader, compares the two field by field and with
/// what `case` asked for, and compares the bytes of every level (and, for raw files and LUTs,
/// of every image). Returns libktx's view, hearth's view and a one-line summary.
fn cross_check(name: &str, bytes: &[u8], kind: Kind, case: Option<&Case>) -> (LibktxInfo, String) {
    let probe = probe();
    let info = probe
        .load(bytes)
        .unwrap_or_else(|e| panic!("libktx rejects {name}: {e}"));
    let ktx = Ktx2::parse(bytes).unwrap_or_else(|e| panic!("hearth rejects {name}: {e}"));
    let mut f = Findings::default();

    // Header, libktx vs hearth.
    f.eq("vkFormat", info.vk_format, ktx.vk_format());
    f.eq("width", info.width, ktx.width());
    f.eq("height", info.height, ktx.height());
    f.eq("depth", info.depth, ktx.depth());
    f.eq(
        "dimensions",
        info.dimensions,
        if ktx.depth() > 1 { 3 } else { 2 },
    );
    f.eq("levels", info.levels, ktx.level_count());
    f.eq("layers", info.layers, ktx.layers());
    f.eq("is_array", info.is_array, ktx.is_array());
    f.eq("faces", info.faces, ktx.faces());
    f.eq("is_cubemap", info.is_cubemap, ktx.faces() == 6);
    f.eq(
        "supercompression",
        info.supercompression,
        ktx.supercompression(),
    );
    f.eq("generate_mipmaps", info.generate_mipmaps, false);
    // DFD, libktx vs hearth.
    let dfd = ktx.dfd();
    f.eq("color model", info.color_model, dfd.color_model as u32);
    f.eq(
        "color primaries",
        info.color_primaries,
        dfd.color_primaries as u32,
    );
    f.eq(
        "transfer function",
        info.transfer_function,
        dfd.transfer_function as u32,
    );
    f.eq("is_srgb", info.transfer_function == 2, ktx.is_srgb());
    f.eq(
        "premultiplied",
        info.premultiplied_alpha,
        dfd.flags & 1 != 0,
    );
    let types: Vec<u8> = dfd.samples.iter().map(|s| s.channel_type).collect();
    f.eq("sample channel types", &info.sample_channel_types, &types);
    f.eq("needs transcoding", info.needs_transcoding, ktx.is_uastc());
    f.eq("is compressed", info.is_compressed, ktx.is_uastc());
    // Key/value data, libktx vs hearth.
    for (key, value) in &info.key_values {
        f.eq(
            &format!("key {key}"),
            Some(value.as_slice()),
            ktx.key_value(key),
        );
    }
    let keys: Vec<&str> = info.key_values.iter().map(|(k, _)| k.as_str()).collect();
    let expected_keys: &[&str] = match kind {
        Kind::Lut => &["HEARTHlutDomain", "KTXorientation", "KTXwriter"],
        _ => &["KTXorientation", "KTXwriter"],
    };
    f.eq("keys", keys.as_slice(), expected_keys);
    let orientation = ktx.key_value("KTXorientation").unwrap_or_default();
    f.eq(
        "orientation",
        format!("{}\0", info.orientation).as_bytes(),
        orientation,
    );
    f.check(
        ktx.key_value("KTXwriter")
            .is_some_and(|w| w.starts_with(b"hearth ")),
        || "KTXwriter is not hearth's".into(),
    );

    // What the bake was meant to produce.
    f.eq("supercompression (baker: zstd)", info.supercompression, 2);
    f.eq("color primaries (BT.709)", info.color_primaries, 1);
    match (kind, case) {
        (Kind::Lut, _) => {
            f.eq("LUT vkFormat", info.vk_format, vk::R16G16B16A16_SFLOAT);
            f.eq("LUT transfer", info.transfer_function, 1);
            f.eq("LUT shape", (info.dimensions, info.levels), (3, 1));
            f.eq(
                "LUT cube",
                (info.width, info.height),
                (info.depth, info.depth),
            );
            f.eq("LUT orientation", info.orientation.as_str(), "rdi");
        }
        (kind, Some(case)) => {
            f.eq(
                "transfer (by mode)",
                info.transfer_function,
                if case.srgb { 2 } else { 1 },
            );
            f.eq("faces (by shape)", info.faces, case.faces);
            f.eq("layerCount (by shape)", info.is_array, case.layers > 0);
            f.eq("layers (by shape)", info.layers, case.layers.max(1));
            f.eq("depth", (info.depth, info.dimensions), (1, 2));
            f.eq("orientation", info.orientation.as_str(), "rd");
            let full = 32 - info.width.max(info.height).leading_zeros();
            f.eq(
                "levels (by mips)",
                info.levels,
                if case.mips { full } else { 1 },
            );
            if case.max_size > 0 {
                f.eq("size limit", info.width.max(info.height), case.max_size);
            }
            if kind == Kind::Uastc {
                f.eq("UASTC vkFormat", info.vk_format, vk::UNDEFINED);
                f.eq("UASTC color model", info.color_model, model::UASTC as u32);
                let id = info.sample_channel_types.first().copied().unwrap_or(0xFF);
                let expected: &[u8] = match case.channels {
                    1 => &[channel::UASTC_RRR],
                    2 => &[channel::UASTC_RG],
                    _ => &[channel::UASTC_RGB, channel::UASTC_RGBA],
                };
                f.check(expected.contains(&id), || {
                    format!("UASTC channel id {id}, expected one of {expected:?}")
                });
                f.eq("UASTC block size", info.element_size, 16);
            } else {
                let expected = match (case.channels, case.srgb) {
                    (1, false) => vk::R8_UNORM,
                    (1, true) => vk::R8_SRGB,
                    (2, false) => vk::R8G8_UNORM,
                    (2, true) => vk::R8G8_SRGB,
                    (_, false) => vk::R8G8B8A8_UNORM,
                    (_, true) => vk::R8G8B8A8_SRGB,
                };
                f.eq("raw vkFormat", info.vk_format, expected);
                f.eq("raw color model", info.color_model, model::RGBSDA as u32);
                let n = case.channels.min(4) as u32;
                f.eq("raw components", info.num_components, Some(n));
                f.eq("raw component info", info.component_info, (n, 1));
                f.eq("raw texel size", info.element_size, n as usize);
            }
        }
        (_, None) => panic!("{name}: no case"),
    }

    // Image sizes and bytes: every level libktx inflates equals hearth's inflation, and (for
    // formats libktx does not transcode) every image libktx locates equals hearth's. One probe
    // run hands over every level (ktxTexture_IterateLevels), another every image
    // (GetImageOffset / GetImageSize).
    let their_levels = probe
        .all_level_bytes(bytes)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    f.eq(
        "levels iterated",
        their_levels.len() as u32,
        ktx.level_count(),
    );
    let their_images = match kind {
        Kind::Uastc => Vec::new(),
        _ => probe
            .all_image_bytes(bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}")),
    };
    let mut their_images = their_images.into_iter();
    let images_per_level = ktx.layers() * ktx.faces();
    for level in 0..ktx.level_count() {
        let (w, h, d) = ktx.level_dimensions(level);
        let image = match kind {
            Kind::Uastc => (w.div_ceil(4) * h.div_ceil(4) * 16) as usize,
            _ => (w * h) as usize * info.element_size,
        };
        f.eq(
            &format!("level {level} image size"),
            info.image_sizes.get(level as usize).copied(),
            Some(image),
        );
        let ours = ktx.level(level).unwrap();
        f.eq(
            &format!("level {level} length"),
            ours.len(),
            image * (images_per_level * d) as usize,
        );
        let theirs = their_levels.get(level as usize).map(Vec::as_slice);
        f.check(theirs == Some(&ours[..]), || {
            format!(
                "level {level}: libktx's {:?} bytes differ from hearth's {}",
                theirs.map(<[u8]>::len),
                ours.len()
            )
        });
        if kind == Kind::Uastc {
            continue;
        }
        let mut at = 0;
        for layer in 0..ktx.layers() {
            for face_slice in 0..ktx.faces().max(d) {
                let (l, y, z, theirs) = their_images.next().expect("libktx lists every image");
                f.eq("image place", (l, y, z), (level, layer, face_slice));
                f.check(theirs == ours[at..at + image], || {
                    format!("level {level} layer {layer} face/slice {face_slice}: bytes differ")
                });
                at += image;
            }
        }
    }
    f.check(their_images.next().is_none(), || {
        "libktx lists extra images".into()
    });

    assert!(
        f.0.is_empty(),
        "{name}: libktx and hearth disagree:\n  {}",
        f.0.join("\n  ")
    );
    let summary = format!(
        "vkFormat {} {}x{}x{} levels {} faces {} layers {} scheme {} transfer {} model {} \
         samples {:?}",
        info.vk_format,
        info.width,
        info.height,
        info.depth,
        info.levels,
        info.faces,
        info.layers,
        info.supercompression,
        info.transfer_function,
        info.color_model,
        info.sample_channel_types
    );
    (info, summary)
}

// ---- pixels ---------------------------------------------------------------------------------

/// PSNR in dB of `got` against `want` (both RGBA8, same size) over the channels `channels`
/// (indices 0..4); infinite when they are equal.
fn psnr(got: &[u8], want: &[u8], channels: &[usize]) -> f64 {
    assert_eq!(got.len(), want.len());
    let (mut sum, mut n) = (0f64, 0usize);
    for (g, w) in got.chunks_exact(4).zip(want.chunks_exact(4)) {
        for &c in channels {
            let d = g[c] as f64 - w[c] as f64;
            sum += d * d;
            n += 1;
        }
    }
    if sum == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / (sum / n as f64)).log10()
    }
}

/// One image of a raw (R8, RG8, RGBA8) level as RGBA8: R as RRR1, RG as RG01.
fn expand(raw: &[u8], components: usize) -> Vec<u8> {
    if components == 4 {
        return raw.to_vec();
    }
    raw.chunks_exact(components)
        .flat_map(|p| match components {
            1 => [p[0], p[0], p[0], 255],
            2 => [p[0], p[1], 0, 255],
            _ => [p[0], p[1], p[2], p[3]],
        })
        .collect()
}

/// Khronos' `toktx` (built with libktx and ktx2check by the same cmake run), or the one named
/// by the `TOKTX` environment variable.
fn toktx_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TOKTX") {
        return Some(path.into());
    }
    let tool = shared::ktx2check_path()?.with_file_name("toktx");
    tool.is_file().then_some(tool)
}

/// The baseline for an image UASTC cannot bring to [`MIN_PSNR`]: Khronos' own encoder
/// (`toktx --t2 --uastc LEVEL`, libktx's copy of basisu) fed the very pixels hearth's encoder
/// got (`reference`, RGBA8, as a PAM file), decoded by libktx, PSNR against `reference` on
/// `channels`.
fn toktx_psnr(
    reference: &[u8],
    (w, h): (u32, u32),
    level: u32,
    srgb: bool,
    channels: &[usize],
) -> f64 {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let tool = toktx_path().expect(
        "a PSNR is below 35 dB and toktx, to compare it with Khronos' encoder, is not found \
         (set TOKTX)",
    );
    let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch(&format!("toktx-{run}"));
    let (pam, ktx2) = (dir.join("in.pam"), dir.join("out.ktx2"));
    let mut file =
        format!("P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n")
            .into_bytes();
    file.extend_from_slice(reference);
    std::fs::write(&pam, file).unwrap();
    let oetf = if srgb { "srgb" } else { "linear" };
    let output = std::process::Command::new(&tool)
        .args(["--t2", "--uastc", &level.to_string(), "--assign_oetf", oetf])
        .arg(&ktx2)
        .arg(&pam)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    assert!(
        output.status.success(),
        "toktx: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&ktx2).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let decoded = probe().decode_rgba8(&bytes).unwrap();
    psnr(&decoded[0].2, reference, channels)
}

/// How far below Khronos' encoder (see [`toktx_psnr`]) hearth's UASTC may land when neither
/// reaches [`MIN_PSNR`].
const TOKTX_MARGIN: f64 = 0.5;

/// libktx's RGBA transcode of the UASTC file `uastc`, every level of every face and layer:
/// byte for byte what hearth's own transcoder (`hearth::read::transcode`, basisu through
/// `basis-universal-sys`) makes of the same blocks, and at level 0 compared with level 0 of the
/// raw bake of the same source (`raw`, hearth's bytes, which is exactly what the UASTC encoder
/// was given) and, for `direct` cases, with the source images. Asserts PSNR >= [`MIN_PSNR`] on
/// the texture's channels (and alpha when the source has it), or, where UASTC itself cannot get
/// there, no worse than Khronos' `toktx` at the same UASTC level on the same pixels. Prints
/// every PSNR; returns the lowest.
fn compare_pixels(case: &Case, uastc: &[u8], raw: &[u8], level: u32) -> f64 {
    use hearth::read::transcode::{transcode, TranscodeTarget};
    let probe = probe();
    let ours = Ktx2::parse(uastc).unwrap();
    let raw = Ktx2::parse(raw).unwrap();
    let raw_level = raw.level(0).unwrap();
    let components = match raw.vk_format() {
        vk::R8_UNORM | vk::R8_SRGB => 1,
        vk::R8G8_UNORM | vk::R8G8_SRGB => 2,
        _ => 4,
    };
    assert_eq!(components, case.channels, "{}", case.out);
    let (w, h) = (raw.width(), raw.height());
    let image = (w * h) as usize * components;
    let sources: Vec<_> = case.from.iter().map(|p| decode_source(p)).collect();
    let source_alpha = sources.iter().any(|s| s.3);
    let color: &[usize] = match case.channels {
        1 => &[0],
        2 => &[0, 1],
        _ => &[0, 1, 2],
    };
    let label = match case.channels {
        1 => "R",
        2 => "RG",
        _ => "RGB",
    };
    let mut groups = vec![(label, color.to_vec())];
    if case.channels == 4 && source_alpha {
        groups.push(("A", vec![3]));
    }
    let uastc_channel = ours.dfd().samples[0].channel_type;
    let mut lowest = f64::INFINITY;
    let mut at = 0;
    for layer in 0..raw.layers() {
        for face in 0..raw.faces() {
            let index = (layer * raw.faces() + face) as usize;
            let decoded = probe
                .decode_rgba8_at(uastc, layer, face)
                .unwrap_or_else(|e| panic!("{}: libktx cannot transcode: {e}", case.out));
            assert_eq!(decoded.len() as u32, raw.level_count(), "{}", case.out);
            for (l, (dw, dh, px)) in decoded.iter().enumerate() {
                let l = l as u32;
                let (lw, lh, _) = raw.level_dimensions(l);
                assert_eq!((*dw, *dh), (lw, lh), "{} level {l}", case.out);
                let hearth = transcode(&ours, l, layer, face, TranscodeTarget::Rgba8).unwrap();
                assert!(
                    *px == hearth,
                    "{} level {l} layer {layer} face {face}: libktx's RGBA transcode differs \
                     from hearth's",
                    case.out
                );
            }
            let got = &decoded[0].2;
            let reference = expand(&raw_level[at..at + image], components);
            at += image;
            if case.channels == 4 && uastc_channel == channel::UASTC_RGB {
                // Opaque UASTC: libktx must hand back alpha 255.
                assert!(
                    got.chunks_exact(4).all(|p| p[3] == 255),
                    "{}: UASTC_RGB decodes with alpha below 255",
                    case.out
                );
            }
            if case.direct {
                // hearth's raw level 0 is the source itself: the baker is pixel-exact there.
                let (sw, sh, source, _) = &sources[index];
                assert_eq!((*sw, *sh), (w, h), "{}: level 0 size", case.out);
                let channels: Vec<usize> = groups.iter().flat_map(|g| g.1.clone()).collect();
                let mut worst = 0;
                for (r, s) in reference.chunks_exact(4).zip(source.chunks_exact(4)) {
                    for &c in &channels {
                        worst = worst.max(r[c].abs_diff(s[c]));
                    }
                }
                assert!(
                    worst <= 1,
                    "{}: raw level 0 is off the source by {worst}",
                    case.out
                );
            }
            let at_what = match (raw.faces(), raw.is_array()) {
                (6, _) => format!(" face {face}"),
                (_, true) => format!(" layer {layer}"),
                _ => String::new(),
            };
            let mut parts = Vec::new();
            for (label, channels) in &groups {
                let vs_raw = psnr(got, &reference, channels);
                let mut part = format!("{label} {vs_raw:.2} dB vs raw bake");
                let mut low = vs_raw;
                if case.direct {
                    let vs_source = psnr(got, &sources[index].2, channels);
                    part.push_str(&format!(", {vs_source:.2} dB vs source"));
                    low = low.min(vs_source);
                }
                if low < MIN_PSNR {
                    let baseline = toktx_psnr(&reference, (w, h), level, case.srgb, channels);
                    part.push_str(&format!(
                        " (below {MIN_PSNR} dB; Khronos toktx --uastc {level} on the same \
                         pixels: {baseline:.2} dB)"
                    ));
                    assert!(
                        low >= baseline - TOKTX_MARGIN,
                        "{}{at_what}: {label} PSNR {low:.2} dB is below {MIN_PSNR} dB and more \
                         than {TOKTX_MARGIN} dB below Khronos' encoder ({baseline:.2} dB)",
                        case.out
                    );
                }
                lowest = lowest.min(low);
                parts.push(part);
            }
            println!(
                "PSNR {}{at_what} (UASTC channel {uastc_channel}, level {level}, {w}x{h}): {}",
                case.out,
                parts.join("; ")
            );
        }
    }
    lowest
}

// ---- ktx2check ------------------------------------------------------------------------------

/// ktx2check v4.0.0's rule that a supercompressed file's DFD has bytesPlane0 = 0 (dropped by
/// KTX-Software in 2025; hearth keeps the real value).
const BYTES_PLANE_RULE: &str = "DFD bytes/plane must be 0 for a supercompressed texture.";
/// ktx2check v4.0.0 predates the UASTC_RG channel id (6).
const UASTC_RG_RULE: &str = "Only UASTC_RGB (0), UASTC_RGBA (3), UASTC_RRR (4) or \
                             UASTC_RRRG (5) channels allowed for UASTC textures.";
/// How ktx2check v4.0.0 fails on the bytesPlane rule for UASTC (a bad format string).
const BYTES_PLANE_CRASH: &str = "extra arguments provided to sprintf";

/// Every ERROR and WARNING of a ktx2check report, one line each, and anything else it said
/// besides its "Issues in: stdin" heading.
fn ktx2check_messages(report: &str) -> Vec<String> {
    let text = report.replace('\0', "");
    let text = text.trim();
    let text = text.strip_prefix("Issues in: stdin").unwrap_or(text);
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let next = ["ERROR:", "WARNING:"]
            .iter()
            .filter_map(|tag| rest[1..].find(tag).map(|i| i + 1))
            .min()
            .unwrap_or(rest.len());
        let message = rest[..next]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        out.push(message);
        rest = rest[next..].trim();
    }
    out
}

/// `bytes` with the DFD's bytesPlane[0-7] zeroed (the old rule for supercompressed files).
fn with_zero_bytes_planes(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let dfd = u32::from_le_bytes(bytes[48..52].try_into().unwrap()) as usize;
    out[dfd + 20..dfd + 28].fill(0);
    out
}

/// ktx2check's note on the LUT's own key. Not one of the two dated rules: a WARNING, not an
/// ERROR (custom keys are allowed by the KTX 2.0 spec; ktx2check lists each one it meets).
const LUT_DOMAIN_NOTE: &str = "WARNING: Custom metadata \"HEARTHlutDomain\" found.";

/// Runs ktx2check on `bytes` and on the same bytes with bytesPlane zeroed, and asserts it
/// reports nothing but the two dated rules (ERRORs), plus, for a LUT, its note on the custom
/// `HEARTHlutDomain` key (a WARNING). Returns its verdict in words (`None`: no ktx2check).
fn ktx2check(name: &str, bytes: &[u8], uastc_rg: bool, lut: bool) -> Option<String> {
    let run = |bytes: &[u8]| shared::ktx2check(bytes).map(|r| r.unwrap());
    let check = run(bytes)?;
    let zeroed = run(&with_zero_bytes_planes(bytes))?;
    // Checks one report against the allowed messages; returns it in words.
    let judge = |what: &str, check: &shared::Ktx2Check, bytes_plane: bool| -> String {
        let mut allowed = Vec::new();
        if bytes_plane {
            allowed.push(format!("ERROR: {BYTES_PLANE_RULE}"));
        }
        if uastc_rg {
            allowed.push(format!("ERROR: {UASTC_RG_RULE}"));
        }
        if lut {
            allowed.push(LUT_DOMAIN_NOTE.to_string());
        }
        let messages = ktx2check_messages(&check.report);
        for m in &messages {
            assert!(
                allowed.contains(m),
                "ktx2check on {name}{what}: unexpected {m:?}\n{}",
                check.report
            );
        }
        let errors = messages.iter().any(|m| m.starts_with("ERROR:"));
        assert_eq!(check.valid, !errors, "{name}{what}: {}", check.report);
        if messages.is_empty() {
            "clean".to_string()
        } else {
            messages.join(" | ")
        }
    };
    // The file as baked: the bytesPlane rule (or v4.0.0's abort while stating it for UASTC).
    let verdict = if check.report.contains(BYTES_PLANE_CRASH) {
        assert!(!check.valid, "{name}: {}", check.report);
        format!("aborts on the bytesPlane rule ({BYTES_PLANE_CRASH})")
    } else {
        judge("", &check, true)
    };
    // bytesPlane zeroed: that rule gone, the rest must still hold.
    let zeroed = judge(" with bytesPlane zeroed", &zeroed, false);
    Some(format!("{verdict}; with bytesPlane zeroed: {zeroed}"))
}

// ---- the checks of one bake pair ------------------------------------------------------------

/// Checks the UASTC bake (made at UASTC pack `level`) and the raw bake of the same `cases`
/// (and any LUTs in them).
fn check_pair(
    cases: &[Case],
    uastc: &BTreeMap<String, Vec<u8>>,
    raw: &BTreeMap<String, Vec<u8>>,
    level: u32,
) -> Vec<(String, f64)> {
    let by_out: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.out.as_str(), c)).collect();
    let mut psnrs = Vec::new();
    for (tree, files, compressed) in [("uastc", uastc, true), ("raw", raw, false)] {
        let expected: Vec<&str> = by_out.keys().copied().collect();
        let textures: Vec<&str> = files
            .keys()
            .map(String::as_str)
            .filter(|p| !p.ends_with(".lut.ktx2"))
            .collect();
        assert_eq!(textures, expected, "{tree}: the baked textures");
        for (path, bytes) in files {
            let name = format!("{tree}/{path}");
            let (kind, case) = if path.ends_with(".lut.ktx2") {
                (Kind::Lut, None)
            } else if compressed {
                (Kind::Uastc, Some(by_out[path.as_str()]))
            } else {
                (Kind::Raw, Some(by_out[path.as_str()]))
            };
            let (info, summary) = cross_check(&name, bytes, kind, case);
            println!("libktx loads {name}: {summary}; hearth's reader agrees");
            let rg = info.color_model == model::UASTC as u32
                && info.sample_channel_types == [channel::UASTC_RG];
            if let Some(verdict) = ktx2check(&name, bytes, rg, kind == Kind::Lut) {
                println!("ktx2check {name}: {verdict}");
            }
            if kind == Kind::Uastc {
                let case = case.unwrap();
                let low = compare_pixels(case, bytes, &raw[path], level);
                psnrs.push((name.clone(), low));
            }
        }
    }
    // The LUTs of both bakes are the same bytes (compress does not apply to them).
    for (path, bytes) in uastc.iter().filter(|(p, _)| p.ends_with(".lut.ktx2")) {
        assert!(
            raw.get(path) == Some(bytes),
            "{path}: differs between the bakes"
        );
    }
    psnrs
}

/// Bakes `inputs` as UASTC and as raw pixels with the same other settings and checks both.
/// `level` is the UASTC pack level that `texture` selects (hearth's default, "faster", is 1).
fn bake_and_check(
    name: &str,
    inputs: &[(String, PathBuf)],
    cases: &[Case],
    (texture, level): (&str, u32),
    rules: &str,
) {
    let start = Instant::now();
    let sep = if texture.is_empty() { "" } else { ", " };
    let uastc = bake(
        &format!("{name}-uastc"),
        inputs,
        &format!("compress = true{sep}{texture}"),
        rules,
    );
    let raw = bake(
        &format!("{name}-raw"),
        inputs,
        &format!("compress = false{sep}{texture}"),
        rules,
    );
    let psnrs = check_pair(cases, &uastc, &raw, level);
    println!(
        "{name}: {} UASTC and {} raw files checked, lowest PSNR per UASTC file: {}; {:.1} s",
        uastc.len(),
        raw.len(),
        psnrs
            .iter()
            .map(|(n, p)| format!("{n} {p:.2}"))
            .collect::<Vec<_>>()
            .join(", "),
        start.elapsed().as_secs_f64()
    );
    if std::env::var_os("KTX_VERIFY_KEEP").is_some() {
        println!("kept: {}", scratch_dir(name).display());
        return;
    }
    for tree in ["uastc", "raw"] {
        let dir = scratch_dir(&format!("{name}-{tree}"));
        let _ = std::fs::remove_dir_all(&dir);
        // The per-process folder goes once the last test has emptied it.
        let _ = std::fs::remove_dir(dir.parent().unwrap());
    }
}

// ---- the tests ------------------------------------------------------------------------------

/// The small corpus files at full size, with the baker's default quality: TGA color images
/// (RGB and RGBA), a TGA normal map, a grayscale map, a cubemap folder, an array folder, the
/// setting variants (linear color, sRGB grayscale, swizzles, no mips) and every .cube LUT.
#[test]
fn baked_small_textures_cubemap_array_and_luts() {
    let tga = corpus("images/tga");
    let sky = corpus("cubemaps/Ryfjallet");
    let diff = tga.join("sponza_thorn_diff.tga");
    let ddn = tga.join("sponza_thorn_ddn.tga");
    let chain = tga.join("chain_texture.tga");
    let mut inputs: Vec<(String, PathBuf)> = Vec::new();
    let mut cases = Vec::new();
    // The TGA images under their own names: color.
    for file in ["chain_texture", "sponza_thorn_ddn", "sponza_thorn_diff"] {
        let from = tga.join(format!("{file}.tga"));
        inputs.push((format!("{file}.tga"), from.clone()));
        cases.push(Case::image(&format!("{file}.ktx2"), true, 4, from));
    }
    // Modes by name: normal (RG, renormalized) and grayscale (R).
    inputs.push(("thorn_ddn.n.tga".into(), ddn.clone()));
    cases.push(Case::image("thorn_ddn.n.ktx2", false, 2, ddn.clone()).indirect());
    inputs.push(("thorn_diff.ao.tga".into(), diff.clone()));
    cases.push(Case::image("thorn_diff.ao.ktx2", false, 1, diff.clone()));
    inputs.push(("sky_px.r.png".into(), sky.join("px.png")));
    cases.push(Case::image("sky_px.r.ktx2", false, 1, sky.join("px.png")));
    // A cubemap folder and an array folder (layers in file-name order).
    let faces = ["px", "nx", "py", "ny", "pz", "nz"];
    for face in faces {
        inputs.push((
            format!("sky.env/{face}.png"),
            sky.join(format!("{face}.png")),
        ));
    }
    cases.push(Case {
        faces: 6,
        from: faces.iter().map(|f| sky.join(format!("{f}.png"))).collect(),
        ..Case::image("sky.env.ktx2", true, 4, PathBuf::new())
    });
    let layers = ["py", "nz", "px"];
    for (i, face) in layers.iter().enumerate() {
        inputs.push((
            format!("tiles.array/{i}_{face}.png"),
            sky.join(format!("{face}.png")),
        ));
    }
    cases.push(Case {
        layers: 3,
        from: layers
            .iter()
            .map(|f| sky.join(format!("{f}.png")))
            .collect(),
        ..Case::image("tiles.arr.ktx2", true, 4, PathBuf::new())
    });
    // Setting variants, by rules.
    let rules = "\n[[default.rules]]\nmatch = \"linear.tga\"\ntexture = { srgb = false }\n\
                 \n[[default.rules]]\nmatch = \"gray_srgb.h.tga\"\ntexture = { srgb = true }\n\
                 \n[[default.rules]]\nmatch = \"swizzle_rg.tga\"\ntexture = { swizzle = \"rg\" }\n\
                 \n[[default.rules]]\nmatch = \"swizzle_a.tga\"\n\
                 texture = { swizzle = \"a\", srgb = false }\n\
                 \n[[default.rules]]\nmatch = \"swizzle_bgr1.tga\"\n\
                 texture = { swizzle = \"bgr1\" }\n\
                 \n[[default.rules]]\nmatch = \"nomips.png\"\n\
                 texture = { mips = false, zstd_level = 19 }\n";
    inputs.push(("linear.tga".into(), diff.clone()));
    cases.push(Case::image("linear.ktx2", false, 4, diff.clone()));
    inputs.push(("gray_srgb.h.tga".into(), diff.clone()));
    cases.push(Case::image("gray_srgb.h.ktx2", true, 1, diff.clone()));
    inputs.push(("swizzle_rg.tga".into(), diff.clone()));
    cases.push(Case::image("swizzle_rg.ktx2", true, 2, diff.clone()).indirect());
    inputs.push(("swizzle_a.tga".into(), chain.clone()));
    cases.push(Case::image("swizzle_a.ktx2", false, 1, chain.clone()).indirect());
    inputs.push(("swizzle_bgr1.tga".into(), diff.clone()));
    cases.push(Case::image("swizzle_bgr1.ktx2", true, 4, diff.clone()).indirect());
    inputs.push(("nomips.png".into(), sky.join("pz.png")));
    cases.push(Case {
        mips: false,
        ..Case::image("nomips.ktx2", true, 4, sky.join("pz.png"))
    });
    // Every LUT.
    let mut luts = 0;
    for entry in std::fs::read_dir(corpus("luts")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cube") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            inputs.push((format!("{stem}.lut.cube"), path));
            luts += 1;
        }
    }
    assert!(luts > 0, "no .cube in the corpus");
    bake_and_check("small", &inputs, &cases, ("", 1), rules);
}

/// The 2K images at max_size 512 and the fastest UASTC level: a JPEG color map, a PNG normal
/// map and a PNG color map with alpha.
#[test]
fn baked_large_images_resized() {
    let helmet = corpus("images/DamagedHelmet_albedo_2k.jpg");
    let metal = corpus("images/FlightHelmet_MetalParts_Normal_2k.png");
    let glass = corpus("images/FlightHelmet_GlassPlastic_BaseColor_2k.png");
    let inputs = vec![
        ("helmet.jpg".to_string(), helmet.clone()),
        ("metal.n.png".to_string(), metal.clone()),
        ("glass.png".to_string(), glass.clone()),
    ];
    let cases = vec![
        Case::image("helmet.ktx2", true, 4, helmet).max_size(512),
        Case::image("metal.n.ktx2", false, 2, metal).max_size(512),
        Case::image("glass.ktx2", true, 4, glass).max_size(512),
    ];
    bake_and_check(
        "large",
        &inputs,
        &cases,
        ("max_size = 512, quality = \"fastest\"", 0),
        "",
    );
}

/// One 2K color image at full size and the baker's default UASTC quality, compared with the
/// JPEG itself.
#[test]
fn baked_full_size_color() {
    let helmet = corpus("images/DamagedHelmet_albedo_2k.jpg");
    let inputs = vec![("helmet_full.jpg".to_string(), helmet.clone())];
    let cases = vec![Case::image("helmet_full.ktx2", true, 4, helmet)];
    bake_and_check("full", &inputs, &cases, ("", 1), "");
}
