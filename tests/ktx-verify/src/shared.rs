//! The part of this crate that does not link libktx: the result types, the text format the
//! `libktx-probe` program prints them in, a client that runs that program ([`Probe`]), and
//! the `ktx2check` runner. A test binary that links hearth with its `bake` or `transcode`
//! feature (Basis Universal's C++ encoder and transcoder, via `basis-universal-sys`) cannot
//! also link libktx, whose vendored copy of Basis Universal defines the same C++ symbols: such
//! a test includes this file alone (`#[path = "../src/shared.rs"]`) and reaches libktx through
//! the probe, in another process.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `tests/corpus/<rel>` of the hearth repository (this crate lives in `tests/ktx-verify`):
/// the test corpus, whose `README.md` names each file's source and licence. Panics, naming
/// the path, when it is missing: a test never skips for want of its data.
pub fn corpus(rel: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(rel);
    assert!(
        path.exists(),
        "missing test data: {} (tests/corpus/{rel} of the hearth repository)",
        path.display()
    );
    path
}

/// What libktx reports about a KTX2 file after loading it (image data loaded, so any zstd
/// supercompression has been undone by libktx; `supercompression` is the scheme read from
/// the header, before inflation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibktxInfo {
    /// `ktxTexture2::vkFormat`.
    pub vk_format: u32,
    /// `baseWidth`.
    pub width: u32,
    /// `baseHeight` (libktx reports 1 for a 1D texture, whose header says 0).
    pub height: u32,
    /// `baseDepth` (libktx reports 1 unless 3D, whose header says 0).
    pub depth: u32,
    /// `numDimensions`: 1, 2 or 3, as libktx derived it from the header.
    pub dimensions: u32,
    /// `numLevels` (libktx reports 1 when the header says 0; see `generate_mipmaps`).
    pub levels: u32,
    /// `numLayers` (libktx reports 1 when the header's `layerCount` is 0; see `is_array`).
    pub layers: u32,
    /// `numFaces`: 1 or 6.
    pub faces: u32,
    /// `isArray`: the header's `layerCount` was not 0.
    pub is_array: bool,
    /// `isCubemap`: 6 faces.
    pub is_cubemap: bool,
    /// `isCompressed`: libktx's format size, computed from the DFD, says block-compressed.
    pub is_compressed: bool,
    /// `generateMipmaps`: the header's `levelCount` was 0.
    pub generate_mipmaps: bool,
    /// The header's supercompression scheme (0 none, 1 BasisLZ, 2 zstd, 3 zlib), captured
    /// right after libktx constructed the texture and before anything was transcoded.
    pub supercompression: u32,
    /// `ktxTexture2_NeedsTranscoding`: a UASTC or ETC1S (BasisLZ) texture.
    pub needs_transcoding: bool,
    /// DFD basic block `colorModel` (1 RGBSDA, 163 ETC1S, 166 UASTC, 128+ block formats).
    pub color_model: u32,
    /// DFD basic block `colorPrimaries` (1 BT.709/sRGB, 0 unspecified).
    pub color_primaries: u32,
    /// `ktxTexture2_GetOETF`: the DFD's `transferFunction` (1 linear, 2 sRGB).
    pub transfer_function: u32,
    /// `ktxTexture2_GetPremultipliedAlpha`: the DFD's alpha-premultiplied flag.
    pub premultiplied_alpha: bool,
    /// `ktxTexture2_GetNumComponents`; `None` for a UASTC texture whose channel id is not RGB,
    /// RGBA, RRR or RRRG: libktx v4.0.0 has no case for the others (e.g. RG, id 6, which its
    /// own encoder writes for two channels) and `assert(false)`s, aborting a debug build.
    pub num_components: Option<u32>,
    /// Every DFD sample's `channelType` byte (channel id in the low 4 bits, qualifiers
    /// 0x80 float, 0x40 signed, 0x20 exponent, 0x10 linear in the high 4), from libktx's DFD.
    pub sample_channel_types: Vec<u8>,
    /// `ktxTexture2_GetComponentInfo`: (component count, bytes per component).
    pub component_info: (u32, u32),
    /// `ktxTexture_GetElementSize`: bytes of one texel block.
    pub element_size: usize,
    /// `ktxTexture::orientation` as the letters libktx read from `KTXorientation` (x, then
    /// y for 2D/3D, then z for 3D); libktx's defaults ("rd"/"rdi") when the key is absent.
    pub orientation: String,
    /// Key/value pairs from libktx's hash list, in file order; keys without their NUL,
    /// values as stored (string values keep their NUL).
    pub key_values: Vec<(String, Vec<u8>)>,
    /// `ktxTexture_GetDataSize`: total bytes of the loaded (inflated) image data. After zstd
    /// inflation libktx v4.0.0 reports the levels' sum without the padding it lays between
    /// them, so this can be a few bytes short of the buffer's real extent.
    pub data_size: usize,
    /// `GetImageSize(level)` for each level, level 0 first: the bytes of one image (one
    /// face of one layer; one depth slice of a 3D texture).
    pub image_sizes: Vec<usize>,
}

/// One decoded image: width, height, and `width * height * 4` bytes of RGBA8, rows top to
/// bottom as stored.
pub type Rgba8Image = (u32, u32, Vec<u8>);

// ---- the probe's text format ------------------------------------------------------------

// Plain loops over bytes, not `format!`/`from_str_radix` per byte: test builds are unoptimized
// and a 2K texture's level crosses the pipe as tens of megabytes of hex.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize]);
        out.push(DIGITS[(b & 0xF) as usize]);
    }
    String::from_utf8(out).expect("hex digits are ASCII")
}

fn unhex(text: &str) -> Result<Vec<u8>, String> {
    // Digit values by byte; 0xFF for bytes that are not hex digits.
    const VALUE: [u8; 256] = {
        let mut table = [0xFF; 256];
        let mut i = 0;
        while i < 10 {
            table[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            table[b'a' as usize + i] = 10 + i as u8;
            table[b'A' as usize + i] = 10 + i as u8;
            i += 1;
        }
        table
    };
    let text = text.as_bytes();
    if !text.len().is_multiple_of(2) {
        return Err(format!("odd-length hex ({} digits)", text.len()));
    }
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut invalid = 0;
    for pair in text.chunks_exact(2) {
        let (high, low) = (VALUE[pair[0] as usize], VALUE[pair[1] as usize]);
        invalid |= high | low;
        out.push((high << 4) | low);
    }
    if invalid & 0xF0 != 0 {
        let bad = text.iter().find(|&&c| VALUE[c as usize] == 0xFF).copied();
        return Err(format!("hex: invalid digit {:?}", bad.map(char::from)));
    }
    Ok(out)
}

/// `info` as the probe prints it: one `name value...` line per field; byte strings in hex
/// (`-` for empty), `none` for an absent `num_components`.
pub fn info_to_text(info: &LibktxInfo) -> String {
    let list = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let mut line = |name: &str, value: String| {
        out.push_str(name);
        out.push(' ');
        out.push_str(&value);
        out.push('\n');
    };
    let i = info;
    line("vk_format", i.vk_format.to_string());
    line("width", i.width.to_string());
    line("height", i.height.to_string());
    line("depth", i.depth.to_string());
    line("dimensions", i.dimensions.to_string());
    line("levels", i.levels.to_string());
    line("layers", i.layers.to_string());
    line("faces", i.faces.to_string());
    line("is_array", i.is_array.to_string());
    line("is_cubemap", i.is_cubemap.to_string());
    line("is_compressed", i.is_compressed.to_string());
    line("generate_mipmaps", i.generate_mipmaps.to_string());
    line("supercompression", i.supercompression.to_string());
    line("needs_transcoding", i.needs_transcoding.to_string());
    line("color_model", i.color_model.to_string());
    line("color_primaries", i.color_primaries.to_string());
    line("transfer_function", i.transfer_function.to_string());
    line("premultiplied_alpha", i.premultiplied_alpha.to_string());
    let components = i.num_components.map_or("none".into(), |n| n.to_string());
    line("num_components", components);
    let types = &mut i.sample_channel_types.iter().map(|t| t.to_string());
    line("sample_channel_types", list(types));
    let (count, size) = i.component_info;
    line("component_info", format!("{count} {size}"));
    line("element_size", i.element_size.to_string());
    let orientation = hex(i.orientation.as_bytes());
    line(
        "orientation",
        if orientation.is_empty() {
            "-".into()
        } else {
            orientation
        },
    );
    for (key, value) in &i.key_values {
        let value = if value.is_empty() {
            "-".into()
        } else {
            hex(value)
        };
        line("key_value", format!("{} {value}", hex(key.as_bytes())));
    }
    line("data_size", i.data_size.to_string());
    line(
        "image_sizes",
        list(&mut i.image_sizes.iter().map(|s| s.to_string())),
    );
    out
}

/// Reads [`info_to_text`]'s output back.
pub fn info_from_text(text: &str) -> Result<LibktxInfo, String> {
    let mut fields = std::collections::HashMap::new();
    let mut key_values = Vec::new();
    for line in text.lines() {
        let (name, value) = line.split_once(' ').unwrap_or((line, ""));
        if name == "key_value" {
            let (key, value) = value.split_once(' ').ok_or("key_value without a value")?;
            let key = String::from_utf8(unhex(key)?).map_err(|e| e.to_string())?;
            let value = if value == "-" {
                Vec::new()
            } else {
                unhex(value)?
            };
            key_values.push((key, value));
        } else {
            fields.insert(name, value);
        }
    }
    let get = |name: &str| {
        fields
            .get(name)
            .copied()
            .ok_or(format!("probe output lacks {name}"))
    };
    fn num<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, String> {
        v.parse()
            .map_err(|_| format!("probe output: bad {name} {v:?}"))
    }
    let u = |name: &str| -> Result<u32, String> { num(name, get(name)?) };
    let b = |name: &str| -> Result<bool, String> { num(name, get(name)?) };
    let list = |name: &str| -> Result<Vec<usize>, String> {
        get(name)?
            .split_whitespace()
            .map(|v| num(name, v))
            .collect()
    };
    let components = get("num_components")?;
    let info = get("component_info")?
        .split_once(' ')
        .ok_or("bad component_info")?;
    let orientation = get("orientation")?;
    Ok(LibktxInfo {
        vk_format: u("vk_format")?,
        width: u("width")?,
        height: u("height")?,
        depth: u("depth")?,
        dimensions: u("dimensions")?,
        levels: u("levels")?,
        layers: u("layers")?,
        faces: u("faces")?,
        is_array: b("is_array")?,
        is_cubemap: b("is_cubemap")?,
        is_compressed: b("is_compressed")?,
        generate_mipmaps: b("generate_mipmaps")?,
        supercompression: u("supercompression")?,
        needs_transcoding: b("needs_transcoding")?,
        color_model: u("color_model")?,
        color_primaries: u("color_primaries")?,
        transfer_function: u("transfer_function")?,
        premultiplied_alpha: b("premultiplied_alpha")?,
        num_components: match components {
            "none" => None,
            n => Some(num("num_components", n)?),
        },
        sample_channel_types: list("sample_channel_types")?
            .into_iter()
            .map(|t| t as u8)
            .collect(),
        component_info: (
            num("component_info", info.0)?,
            num("component_info", info.1)?,
        ),
        element_size: num("element_size", get("element_size")?)?,
        orientation: match orientation {
            "-" => String::new(),
            o => String::from_utf8(unhex(o)?).map_err(|e| e.to_string())?,
        },
        key_values,
        data_size: num("data_size", get("data_size")?)?,
        image_sizes: list("image_sizes")?,
    })
}

/// Images as the probe prints them: one `width height hex` line each.
pub fn images_to_text(images: &[Rgba8Image]) -> String {
    let hex_or_dash = |p: &[u8]| {
        if p.is_empty() {
            "-".to_string()
        } else {
            hex(p)
        }
    };
    images
        .iter()
        .map(|(w, h, pixels)| format!("{w} {h} {}\n", hex_or_dash(pixels)))
        .collect()
}

/// Reads [`images_to_text`]'s output back.
pub fn images_from_text(text: &str) -> Result<Vec<Rgba8Image>, String> {
    text.lines()
        .map(|line| {
            let mut parts = line.split(' ');
            let mut next = || parts.next().ok_or(format!("bad image line {line:?}"));
            let w = next()?.parse().map_err(|_| "bad width")?;
            let h = next()?.parse().map_err(|_| "bad height")?;
            let pixels = match next()? {
                "-" => Vec::new(),
                p => unhex(p)?,
            };
            Ok((w, h, pixels))
        })
        .collect()
}

/// Bytes as the probe prints them: one hex line (`-` when empty).
pub fn bytes_to_text(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        "-\n".into()
    } else {
        format!("{}\n", hex(bytes))
    }
}

/// Reads [`bytes_to_text`]'s output back.
pub fn bytes_from_text(text: &str) -> Result<Vec<u8>, String> {
    match text.trim_end() {
        "-" => Ok(Vec::new()),
        t => unhex(t),
    }
}

/// One image of a texture with its place: (level, layer, face or depth slice, bytes).
pub type IndexedImage = (u32, u32, u32, Vec<u8>);

/// Images as the probe's `images` command prints them: one `level layer face_slice hex` line
/// each (`-` for empty bytes).
pub fn indexed_images_to_text(images: &[IndexedImage]) -> String {
    images
        .iter()
        .map(|(level, layer, face, bytes)| {
            format!("{level} {layer} {face} {}", bytes_to_text(bytes))
        })
        .collect()
}

/// Reads [`indexed_images_to_text`]'s output back.
pub fn indexed_images_from_text(text: &str) -> Result<Vec<IndexedImage>, String> {
    text.lines()
        .map(|line| {
            let mut parts = line.split(' ');
            let mut num = || -> Result<u32, String> {
                let part = parts.next().ok_or(format!("bad image line {line:?}"))?;
                part.parse().map_err(|_| format!("bad number in {line:?}"))
            };
            let (level, layer, face) = (num()?, num()?, num()?);
            let bytes = bytes_from_text(parts.next().ok_or("image line without bytes")?)?;
            Ok((level, layer, face, bytes))
        })
        .collect()
}

// ---- the probe client ---------------------------------------------------------------------

/// libktx in another process: the `libktx-probe` program of this crate, fed the file on
/// stdin. Its methods mean exactly what the same-named functions of the library mean (they run
/// them); an `Err` is the probe's own error line, i.e. libktx's error.
#[derive(Debug, Clone)]
pub struct Probe {
    exe: PathBuf,
}

impl Probe {
    /// The probe program at `exe` (in an integration test of this crate:
    /// `env!("CARGO_BIN_EXE_libktx-probe")`).
    pub fn new(exe: impl AsRef<Path>) -> Self {
        Self {
            exe: exe.as_ref().to_owned(),
        }
    }

    fn run(&self, bytes: &[u8], args: &[String]) -> Result<String, String> {
        let output = run_with_stdin(&self.exe, args, bytes)?;
        if output.status.success() {
            String::from_utf8(output.stdout).map_err(|e| format!("probe output: {e}"))
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            Err(stderr.trim_end().to_owned())
        }
    }

    /// `load` in the probe.
    pub fn load(&self, bytes: &[u8]) -> Result<LibktxInfo, String> {
        info_from_text(&self.run(bytes, &["info".into()])?)
    }

    /// `decode_rgba8` in the probe.
    pub fn decode_rgba8(&self, bytes: &[u8]) -> Result<Vec<Rgba8Image>, String> {
        self.decode_rgba8_at(bytes, 0, 0)
    }

    /// `decode_rgba8_at` in the probe.
    pub fn decode_rgba8_at(
        &self,
        bytes: &[u8],
        layer: u32,
        face: u32,
    ) -> Result<Vec<Rgba8Image>, String> {
        let args = ["decode".into(), layer.to_string(), face.to_string()];
        images_from_text(&self.run(bytes, &args)?)
    }

    /// `image_bytes` in the probe.
    pub fn image_bytes(
        &self,
        bytes: &[u8],
        level: u32,
        layer: u32,
        face: u32,
    ) -> Result<Vec<u8>, String> {
        let args = [
            "image".into(),
            level.to_string(),
            layer.to_string(),
            face.to_string(),
        ];
        bytes_from_text(&self.run(bytes, &args)?)
    }

    /// `level_bytes` in the probe.
    pub fn level_bytes(&self, bytes: &[u8], level: u32) -> Result<Vec<u8>, String> {
        bytes_from_text(&self.run(bytes, &["level".into(), level.to_string()])?)
    }

    /// `all_image_bytes` in the probe (one process, one load, for every image).
    pub fn all_image_bytes(&self, bytes: &[u8]) -> Result<Vec<IndexedImage>, String> {
        indexed_images_from_text(&self.run(bytes, &["images".into()])?)
    }

    /// `all_level_bytes` in the probe (one process, one load, for every level).
    pub fn all_level_bytes(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
        self.run(bytes, &["levels".into()])?
            .lines()
            .map(bytes_from_text)
            .collect()
    }
}

/// Runs `exe args` with `input` on its stdin and collects its output.
fn run_with_stdin(
    exe: &Path,
    args: &[String],
    input: &[u8],
) -> Result<std::process::Output, String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    // The program may stop reading early (a broken file): a closed pipe is fine.
    let _ = writer.join();
    Ok(output)
}

// ---- ktx2check ----------------------------------------------------------------------------

/// What Khronos' validator said about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ktx2Check {
    /// The validator's own path.
    pub tool: PathBuf,
    /// It exited 0 (no errors; warnings are not errors).
    pub valid: bool,
    /// Its report (stdout and stderr), with its "Issues in: stdin" line; empty when clean.
    pub report: String,
}

/// The `ktx2check` program that `libktx-rs-sys` builds next to libktx (same KTX-Software
/// v4.0.0 sources), or the one named by the `KTX2CHECK` environment variable. Found from the
/// running executable: `<target>/<profile>/deps/<test>` → the newest
/// `<target>/<profile>/build/libktx-rs-sys-*/out/bin/ktx2check`.
pub fn ktx2check_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("KTX2CHECK") {
        return Some(path.into());
    }
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.ancestors().find(|dir| dir.join("build").is_dir())?;
    std::fs::read_dir(profile_dir.join("build"))
        .ok()?
        .filter_map(|entry| entry.ok())
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("libktx-rs-sys-")
        })
        .map(|entry| entry.path().join("out/bin/ktx2check"))
        .filter(|tool| tool.is_file())
        .max_by_key(|tool| tool.metadata().and_then(|m| m.modified()).ok())
}

/// Runs Khronos' KTX2 validator, `ktx2check` v4.0.0 (see [`ktx2check_path`]), on `bytes`
/// (fed through stdin). Stricter than [`load`]: it checks the DFD against `vkFormat`, level
/// sizes and offsets, alignment, and key/value rules. `None` when the program is not found.
/// Note that v4.0.0 holds the KTX 2.0 rule of its time that a supercompressed file's DFD
/// has `bytesPlane[0-7]` = 0 (KTX-Software dropped that rule in 2025 and now warns when they
/// are 0), and predates the UASTC_RG channel id (6).
pub fn ktx2check(bytes: &[u8]) -> Option<Result<Ktx2Check, String>> {
    let tool = ktx2check_path()?;
    let run = || -> Result<Ktx2Check, String> {
        let output = run_with_stdin(&tool, &[], bytes)?;
        let mut report = String::from_utf8_lossy(&output.stdout).into_owned();
        report.push_str(&String::from_utf8_lossy(&output.stderr));
        Ok(Ktx2Check {
            tool: tool.clone(),
            valid: output.status.success(),
            report,
        })
    };
    Some(run())
}
