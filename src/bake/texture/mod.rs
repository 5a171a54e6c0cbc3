//! The texture pipeline: images, cubemaps, arrays and 3D LUTs -> KTX2.
//!
//! - Decoding through the `image` crate (PNG, JPEG, TGA; 8 or 16 bits, any channel count);
//!   non-interlaced PNGs row by row through the `png` crate as the levels read them, never
//!   held decoded ([`pixels::DecodedImage`]).
//! - Mipmaps: a full chain down to 1x1, each level an area-weighted box filter of the one
//!   above (a 2x2 average for even sizes), computed in linear light for sRGB sources; normal
//!   maps are renormalized per level.
//! - Encoding: UASTC through basisu (`texture.compress = true`), or raw 8-bit pixels
//!   (`compress = false`, pixel-exact at level 0); both zstd-supercompressed in the KTX2.
//! - glTF-embedded textures reuse [`encode`] with the mode their material slot dictates.

pub(crate) mod asset_file;
pub mod gpu_format;
pub(crate) mod image_file;
pub mod lut;
mod passthrough;
pub mod pipelines;
pub mod pixels;
pub mod settings;
mod slices;
mod truncation;
pub mod uastc;

use crate::bake::texture::settings::TextureSettings;
use crate::bake::timings;
use crate::format::hman::ColorSpace;
use crate::format::ktx2::{self, channel, BasicDfd, Ktx2Description};
use crate::read::transcode::TranscodeTarget;
use pixels::{
    full_mip_count, mip_size, quantize8, to_linear, to_srgb, DecodedImage, PixelSource,
    RowResampler,
};

/// How an image's channels are interpreted (assetc's modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureMode {
    /// sRGB color (base color, emissive, UI): RGBA, sRGB transfer.
    Color,
    /// Linear data in RGBA (metallic-roughness, occlusion, ORM packs).
    LinearColor,
    /// Tangent-space normal map: linear, `rg01` (X in R, Y in G; Z rebuilt in the shader).
    Normal,
    /// One linear channel (ambient occlusion, height, roughness).
    Grayscale,
}

impl TextureMode {
    /// The mode of a standalone image by its name: `*.n.png` normal; `*.ao.png`, `*.h.png`,
    /// `*.r.png` grayscale; everything else color.
    pub fn from_file_name(rel: &str) -> Self {
        let stem = rel
            .rsplit_once('.')
            .map(|(stem, _)| stem)
            .unwrap_or(rel)
            .to_ascii_lowercase();
        match stem.rsplit_once('.').map(|(_, tag)| tag) {
            Some("n") => Self::Normal,
            Some("ao" | "h" | "r") => Self::Grayscale,
            _ => Self::Color,
        }
    }
}

/// How the images of one texture are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureShape {
    /// One 2D image.
    Single,
    /// Six square faces: +X, -X, +Y, -Y, +Z, -Z.
    Cubemap,
    /// Layers of a 2D array.
    Array,
}

/// An encoded texture.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedTexture {
    /// The KTX2 file.
    pub ktx2: Vec<u8>,
    /// Its color space, for `assets.hman`.
    pub color_space: ColorSpace,
}

/// The value of `KTXwriter` in every KTX2 hearth writes.
pub fn writer_id() -> Vec<u8> {
    format!("hearth {}\0", env!("CARGO_PKG_VERSION")).into_bytes()
}

/// A channel source in a swizzle.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Channel(usize),
    Constant(f32),
}

fn parse_swizzle(text: &str) -> Result<Vec<Source>, String> {
    if text.is_empty() || text.len() > 4 {
        return Err(format!(
            "texture.swizzle = {text:?}: use 1 to 4 of r, g, b, a, 0, 1"
        ));
    }
    text.chars()
        .map(|c| match c {
            'r' => Ok(Source::Channel(0)),
            'g' => Ok(Source::Channel(1)),
            'b' => Ok(Source::Channel(2)),
            'a' => Ok(Source::Channel(3)),
            '0' => Ok(Source::Constant(0.0)),
            '1' => Ok(Source::Constant(1.0)),
            other => Err(format!(
                "texture.swizzle = {text:?}: `{other}` is not one of r, g, b, a, 0, 1"
            )),
        })
        .collect()
}

/// Encodes `images` (one per face or layer, all the same size) into a KTX2 file.
///
/// Images are read one row at a time ([`PixelSource`]): the size limit and the whole mip
/// chain are computed in one streaming pass per image, each level's rows quantized to 8 bits
/// as they come out, so besides the sources only the 8-bit levels are held (4 bytes per pixel
/// at most, plus a third for the mips), never an `f32` copy of an image.
pub fn encode<P: PixelSource>(
    images: &[P],
    shape: TextureShape,
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<EncodedTexture, String> {
    let levels = Levels::build(images, shape, mode, settings, true)?;
    levels.finish(settings)
}

/// [`encode`] for decoded sources it may drop once their levels are made (before the UASTC
/// encoder runs, which holds its own copies), to keep the peak memory of large images down.
pub fn encode_decoded(
    images: Vec<DecodedImage<'_>>,
    shape: TextureShape,
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<EncodedTexture, String> {
    let levels = Levels::build(&images, shape, mode, settings, true)?;
    drop(images);
    levels.finish(settings)
}

/// How pixels go to the filtering space and back.
struct Working {
    swizzle: Option<Vec<Source>>,
    mode: TextureMode,
    srgb: bool,
    /// Output channels: 1 (R), 2 (RG) or 3-4 (RGBA).
    channels: usize,
}

impl Working {
    fn to_working(&self, p: [f32; 4]) -> [f32; 4] {
        let p = match &self.swizzle {
            Some(s) => {
                let mut out = [0.0, 0.0, 0.0, 1.0];
                for (o, src) in out.iter_mut().zip(s) {
                    *o = match src {
                        Source::Channel(c) => p[*c],
                        Source::Constant(v) => *v,
                    };
                }
                out
            }
            None => p,
        };
        match self.mode {
            _ if self.srgb => to_linear(p),
            TextureMode::Normal => {
                normalize([p[0] * 2.0 - 1.0, p[1] * 2.0 - 1.0, p[2] * 2.0 - 1.0, p[3]])
            }
            _ => p,
        }
    }

    fn to_output(&self, p: [f32; 4]) -> [f32; 4] {
        match self.mode {
            _ if self.srgb => to_srgb(p),
            TextureMode::Normal => {
                let n = normalize(p);
                [n[0] * 0.5 + 0.5, n[1] * 0.5 + 0.5, n[2] * 0.5 + 0.5, 1.0]
            }
            _ => p,
        }
    }

    /// Bytes per pixel of the raw formats: R8, RG8, or RGBA8 for 3 and 4 channels.
    fn raw_bytes(&self) -> usize {
        match self.channels {
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }

    /// Whether each mip level is renormalized (normal maps without a swizzle).
    fn renormalizes(&self) -> bool {
        self.mode == TextureMode::Normal && self.swizzle.is_none()
    }

    /// Appends one working-space row, converted back and quantized: RGBA8 laid out as the
    /// UASTC DFD says (`uastc`), or the raw format's `channels` bytes per pixel.
    fn write_row(&self, row: &[[f32; 4]], uastc: bool, out: &mut Vec<u8>) {
        for px in row {
            let px = self.to_output(*px);
            if uastc {
                out.extend(match self.channels {
                    1 => [quantize8(px[0]), quantize8(px[0]), quantize8(px[0]), 255],
                    2 => [quantize8(px[0]), quantize8(px[1]), 0, 255],
                    _ => px.map(quantize8),
                });
            } else {
                out.extend(px[..self.raw_bytes()].iter().map(|c| quantize8(*c)));
            }
        }
    }
}

/// The 8-bit levels of a texture, before encoding.
struct Levels {
    working: Working,
    shape: TextureShape,
    image_count: usize,
    width: u32,
    height: u32,
    /// `data[level][image]`: RGBA8 for UASTC, `channels` bytes per pixel raw; every level
    /// empty where `streamed` encodes them.
    data: Vec<Vec<Vec<u8>>>,
    /// The levels encoded to UASTC in tasks started as they were made: the first in row
    /// slices, the rest once the chain was made (joined in [`Levels::into_uastc`]).
    streamed: Option<slices::RowStream>,
}

/// Makes the levels of every image, sending the streamed levels' rows to `stream` a slice at
/// a time and then the other levels whole (so every level ends empty in `data`).
fn stream_levels<P: PixelSource>(
    images: &[P],
    working: &Working,
    sizes: (u32, u32, u32, u32),
    data: &mut [Vec<Vec<u8>>],
    stream: &slices::RowStream,
) -> Result<(), String> {
    let asset = timings::current();
    let streamed = stream.level_count();
    // The slices run in the scope; this thread's task (the asset) covers making the rows,
    // not the wait for the last slices.
    timings::fork(|| {
        rayon::in_place_scope(|scope| {
            timings::run(asset, || {
                for (index, image) in images.iter().enumerate() {
                    let mut outs: Vec<&mut Vec<u8>> =
                        data.iter_mut().map(|level| &mut level[index]).collect();
                    let mut sent_rows = vec![0u32; streamed];
                    let mut send = |outs: &mut [&mut Vec<u8>], last: bool| {
                        for (level, sent) in sent_rows.iter_mut().enumerate() {
                            let pixels = &mut *outs[level];
                            stream.send_ready(scope, (level, index), pixels, sent, last);
                        }
                    };
                    image_levels(image, working, true, sizes, &mut outs, &mut |outs| {
                        send(outs, false)
                    })
                    .map_err(|e| image_error(images.len(), index, e))?;
                    send(&mut outs, true);
                }
                // The smaller levels are made: their tasks start now, beside the last slices.
                let rest = data
                    .iter_mut()
                    .enumerate()
                    .map(|(level, images)| match level < streamed {
                        true => Vec::new(),
                        false => std::mem::take(images),
                    })
                    .collect();
                stream.send_rest(scope, rest);
                Ok(())
            })
        })
    })
}

/// An error reading image `index` of `count`, naming which where there are several.
fn image_error(count: usize, index: usize, error: String) -> String {
    match count {
        1 => error,
        _ => format!("image {index}: {error}"),
    }
}

/// Makes the levels of one image: reads its rows, filters them into the chain and appends
/// each level's rows to `outs[level]`, calling `after_row` with them after each source
/// row. `sizes` is the source's width and height, then level 0's. Fails where reading a
/// source row does (a PNG decoded as it is read).
fn image_levels<P: PixelSource>(
    image: &P,
    working: &Working,
    uastc: bool,
    (width, height, w, h): (u32, u32, u32, u32),
    outs: &mut [&mut Vec<u8>],
    after_row: &mut dyn FnMut(&mut [&mut Vec<u8>]),
) -> Result<(), String> {
    let level_count = outs.len() as u32;
    // chain[k] filters level k into level k + 1; `base` the source into level 0.
    let mut chain: Vec<RowResampler> = (1..level_count)
        .map(|l| {
            RowResampler::new(
                mip_size(w, l - 1),
                mip_size(h, l - 1),
                mip_size(w, l),
                mip_size(h, l),
            )
        })
        .collect();
    let mut base = ((w, h) != (width, height)).then(|| RowResampler::new(width, height, w, h));
    let one_to_one = !uastc && level_count == 1 && base.is_none();
    let passthrough = passthrough::ByteMap::new(working, one_to_one);
    let mut row = vec![[0.0f32; 4]; width as usize];
    let mut samples = Vec::new();
    for y in 0..height {
        if let (Some(map), [out]) = (&passthrough, &mut *outs) {
            map.write_source_row((image, y), working, (&mut row, &mut samples), out)?;
            after_row(outs);
            continue;
        }
        image.read_row(y, &mut row)?;
        let working_row: Vec<[f32; 4]> = row.iter().map(|p| working.to_working(*p)).collect();
        match &mut base {
            Some(base) => base.push(y as usize, &working_row, &mut |o, level0| {
                feed(working, uastc, o, level0, &mut chain, outs)
            }),
            None => feed(working, uastc, y as usize, working_row, &mut chain, outs),
        }
        after_row(outs);
    }
    Ok(())
}

impl Levels {
    fn build<P: PixelSource>(
        images: &[P],
        shape: TextureShape,
        mode: TextureMode,
        settings: &TextureSettings,
        may_stream: bool,
    ) -> Result<Self, String> {
        let first = images.first().ok_or("no images")?;
        let (width, height) = (first.width(), first.height());
        if let Some((i, other)) = images
            .iter()
            .enumerate()
            .find(|(_, p)| (p.width(), p.height()) != (width, height))
        {
            return Err(format!(
                "image {i} is {}x{}, but image 0 is {width}x{height}: all must match",
                other.width(),
                other.height()
            ));
        }
        if shape == TextureShape::Cubemap && (images.len() != 6 || width != height) {
            return Err(format!(
                "cubemap faces must be 6 equal squares (got {} of {width}x{height})",
                images.len()
            ));
        }

        // Channel layout: the swizzle if given, else the mode's.
        let swizzle = if settings.swizzle.is_empty() {
            None
        } else {
            Some(parse_swizzle(&settings.swizzle)?)
        };
        let channels = match (&swizzle, mode) {
            (Some(s), _) => s.len().max(1),
            (None, TextureMode::Normal) => 2,
            (None, TextureMode::Grayscale) => 1,
            (None, _) => 4,
        };
        let srgb = settings.srgb.unwrap_or(mode == TextureMode::Color);
        let working = Working {
            swizzle,
            mode,
            srgb,
            channels,
        };

        // Size limit, then the mip chain in working space.
        let (mut w, mut h) = (width, height);
        if settings.max_size > 0 && w.max(h) > settings.max_size {
            let scale = settings.max_size as f64 / w.max(h) as f64;
            w = ((w as f64 * scale).round() as u32).clamp(1, settings.max_size);
            h = ((h as f64 * scale).round() as u32).clamp(1, settings.max_size);
        }
        let level_count = if settings.mips {
            full_mip_count(w, h)
        } else {
            1
        };
        // Every format but raw pixels starts from RGBA8 levels. Plain UASTC without RDO
        // encodes level 0 in row slices as its rows come (never held whole).
        let uastc = !settings.raw();
        let stream = (may_stream && uastc && settings.format == settings::TextureFormat::Uastc)
            .then(|| {
                let options = uastc_options(&working, settings);
                slices::RowStream::plan(w, h, level_count, images.len(), &options)
            })
            .flatten();
        let mut data: Vec<Vec<Vec<u8>>> = (0..level_count)
            .map(|level| {
                let bytes = match &stream {
                    Some(stream) if (level as usize) < stream.level_count() => {
                        stream.slice_bytes(level as usize)
                    }
                    _ => {
                        mip_size(w, level) as usize
                            * mip_size(h, level) as usize
                            * if uastc { 4 } else { working.raw_bytes() }
                    }
                };
                (0..images.len())
                    .map(|_| Vec::with_capacity(bytes))
                    .collect()
            })
            .collect();
        let sizes = (width, height, w, h);
        let streamed = match stream {
            None => {
                for (index, image) in images.iter().enumerate() {
                    let mut outs: Vec<&mut Vec<u8>> =
                        data.iter_mut().map(|level| &mut level[index]).collect();
                    image_levels(image, &working, uastc, sizes, &mut outs, &mut |_| {})
                        .map_err(|e| image_error(images.len(), index, e))?;
                }
                None
            }
            Some(stream) => {
                stream_levels(images, &working, sizes, &mut data, &stream)?;
                Some(stream)
            }
        };
        Ok(Self {
            working,
            shape,
            image_count: images.len(),
            width: w,
            height: h,
            data,
            streamed,
        })
    }

    /// Encodes the levels as the settings ask (a GPU block format, UASTC, or raw 8-bit) and
    /// writes them as a KTX2.
    fn finish(self, settings: &TextureSettings) -> Result<EncodedTexture, String> {
        let (layers, faces) = match self.shape {
            TextureShape::Single => (0, 1),
            TextureShape::Cubemap => (0, 6),
            TextureShape::Array => (self.image_count as u32, 1),
        };
        let (width, height, srgb) = (self.width, self.height, self.working.srgb);
        let encoded = if settings.raw() {
            self.into_raw()
        } else {
            match self.block_target(settings)? {
                Some((target, has_alpha)) => self.into_blocks(target, has_alpha, settings)?,
                None => self.into_uastc(settings)?,
            }
        };
        let desc = Ktx2Description {
            vk_format: encoded.vk_format,
            type_size: 1,
            width,
            height,
            depth: 0,
            layers,
            faces,
            block_bytes: encoded.block_bytes,
            dfd: encoded.dfd,
            key_values: vec![
                ("KTXorientation".to_owned(), b"rd\0".to_vec()),
                ("KTXwriter".to_owned(), writer_id()),
            ],
            zstd_level: Some(settings.zstd_level),
        };
        Ok(EncodedTexture {
            ktx2: ktx2::write_owned(&desc, encoded.data),
            color_space: if srgb {
                ColorSpace::Srgb
            } else {
                ColorSpace::Linear
            },
        })
    }

    /// The GPU block format the settings ask for (none: UASTC), and whether level 0 has
    /// alpha below 255, which decides BC1's and ETC2's variant and the direct BC7 encoder's
    /// settings.
    fn block_target(
        &self,
        settings: &TextureSettings,
    ) -> Result<Option<(gpu_format::BlockTarget, bool)>, String> {
        let (channels, srgb) = (self.working.channels, self.working.srgb);
        let has_alpha = channels == 4
            && self.data[0]
                .iter()
                .any(|image| image.chunks_exact(4).any(|px| px[3] < 255));
        Ok(
            gpu_format::resolve(settings.format, settings.encoder, channels, srgb, has_alpha)?
                .map(|target| (target, has_alpha)),
        )
    }

    /// The UASTC encoder's options for these levels.
    fn uastc_options(&self, settings: &TextureSettings) -> uastc::UastcOptions {
        uastc_options(&self.working, settings)
    }

    /// The levels in a GPU block format: transcoded from UASTC or encoded directly.
    fn into_blocks(
        self,
        target: gpu_format::BlockTarget,
        has_alpha: bool,
        settings: &TextureSettings,
    ) -> Result<EncodedLevels, String> {
        let data = match target.encoder {
            gpu_format::Encoder::Transcode(transcode_target) => {
                self.transcoded(transcode_target, has_alpha, settings)?
            }
            gpu_format::Encoder::Direct(direct) => self.encoded_direct(direct, has_alpha, settings),
        };
        let dfd = BasicDfd::block_compressed(target.vk_format)
            .ok_or("internal: a block format without a DFD")?;
        let block_bytes = ktx2::block_bytes(target.vk_format)
            .ok_or("internal: a block format without a block size")?;
        Ok(EncodedLevels {
            vk_format: target.vk_format,
            block_bytes,
            dfd,
            data,
        })
    }

    /// Each level's blocks, encoded to UASTC and transcoded to `target`.
    fn transcoded(
        self,
        target: TranscodeTarget,
        has_alpha: bool,
        settings: &TextureSettings,
    ) -> Result<Vec<Vec<u8>>, String> {
        let (w, h) = (self.width, self.height);
        let options = self.uastc_options(settings);
        let (uastc_levels, _) = slices::encode_levels(self.data, w, h, &options)?;
        uastc_levels
            .iter()
            .enumerate()
            .map(|(level, slices)| {
                let (lw, lh) = (mip_size(w, level as u32), mip_size(h, level as u32));
                let mut out = Vec::new();
                for slice in slices {
                    out.extend(
                        crate::read::transcode::transcode_slice(
                            &slice.data,
                            slice.blocks_x,
                            slice.blocks_y,
                            lw,
                            lh,
                            has_alpha,
                            target,
                        )
                        .map_err(|e| format!("transcoding UASTC: {e}"))?,
                    );
                }
                Ok(out)
            })
            .collect()
    }

    /// Each level's blocks, encoded directly by Intel's kernels.
    fn encoded_direct(
        self,
        format: gpu_format::DirectFormat,
        has_alpha: bool,
        settings: &TextureSettings,
    ) -> Vec<Vec<u8>> {
        let (w, h) = (self.width, self.height);
        self.data
            .into_iter()
            .enumerate()
            .map(|(level, images)| {
                let (lw, lh) = (mip_size(w, level as u32), mip_size(h, level as u32));
                images
                    .iter()
                    .flat_map(|rgba| {
                        gpu_format::encode_direct(format, settings.quality, has_alpha, lw, lh, rgba)
                    })
                    .collect()
            })
            .collect()
    }

    /// The levels in UASTC, to be transcoded at load time.
    fn into_uastc(self, settings: &TextureSettings) -> Result<EncodedLevels, String> {
        let (channels, srgb) = (self.working.channels, self.working.srgb);
        let options = self.uastc_options(settings);
        let (uastc_levels, has_alpha) = match self.streamed {
            None => slices::encode_levels(self.data, self.width, self.height, &options)?,
            // Every level is encoded already, in tasks started as its rows were made.
            Some(stream) => stream.finish(self.image_count)?,
        };
        let data: Vec<Vec<u8>> = uastc_levels
            .into_iter()
            .map(|slices| {
                // Sized up front: a growing buffer would hold up to twice the level.
                let mut level = Vec::with_capacity(slices.iter().map(|s| s.data.len()).sum());
                for slice in slices {
                    level.extend_from_slice(&slice.data);
                }
                level
            })
            .collect();
        let uastc_channel = match channels {
            1 => channel::UASTC_RRR,
            2 => channel::UASTC_RG,
            _ if has_alpha => channel::UASTC_RGBA,
            _ => channel::UASTC_RGB,
        };
        Ok(EncodedLevels {
            vk_format: ktx2::vk::UNDEFINED,
            block_bytes: 16,
            dfd: BasicDfd::uastc(uastc_channel, srgb),
            data,
        })
    }

    /// The levels as raw 8-bit R, RG or RGBA.
    fn into_raw(self) -> EncodedLevels {
        let (vk_format, ids): (u32, &[u8]) = match (self.working.channels, self.working.srgb) {
            (1, false) => (ktx2::vk::R8_UNORM, &[channel::R]),
            (1, true) => (ktx2::vk::R8_SRGB, &[channel::R]),
            (2, false) => (ktx2::vk::R8G8_UNORM, &[channel::R, channel::G]),
            (2, true) => (ktx2::vk::R8G8_SRGB, &[channel::R, channel::G]),
            (_, false) => (
                ktx2::vk::R8G8B8A8_UNORM,
                &[channel::R, channel::G, channel::B, channel::A],
            ),
            (_, true) => (
                ktx2::vk::R8G8B8A8_SRGB,
                &[channel::R, channel::G, channel::B, channel::A],
            ),
        };
        // Images follow each other within a level; a single image's buffer is moved.
        let data = self
            .data
            .into_iter()
            .map(|images| match images.len() {
                1 => images.into_iter().next().unwrap_or_default(),
                _ => images.concat(),
            })
            .collect();
        EncodedLevels {
            vk_format,
            block_bytes: ids.len() as u32,
            dfd: BasicDfd::uncompressed(ids, 8, false, self.working.srgb),
            data,
        }
    }
}

/// The UASTC encoder's options for levels made by `working`.
fn uastc_options(working: &Working, settings: &TextureSettings) -> uastc::UastcOptions {
    uastc::UastcOptions {
        level: settings.quality.level(),
        rdo: (settings.rdo > 0.0).then_some(settings.rdo),
        perceptual: working.srgb,
        normal_map: working.mode == TextureMode::Normal,
    }
}

/// A texture's levels, encoded, and what its KTX2 says about them.
struct EncodedLevels {
    vk_format: u32,
    block_bytes: u32,
    dfd: BasicDfd,
    data: Vec<Vec<u8>>,
}

/// One finished working-space row `y` of level `k` (`outs[0]`): written out, and filtered
/// into the next levels (`chain[0]` makes level `k + 1`).
fn feed(
    working: &Working,
    uastc: bool,
    y: usize,
    row: Vec<[f32; 4]>,
    chain: &mut [RowResampler],
    outs: &mut [&mut Vec<u8>],
) {
    let Some((out, outs_rest)) = outs.split_first_mut() else {
        return;
    };
    working.write_row(&row, uastc, out);
    if let Some((next, chain_rest)) = chain.split_first_mut() {
        next.push(y, &row, &mut |o, down| {
            let down = if working.renormalizes() {
                down.into_iter().map(normalize).collect()
            } else {
                down
            };
            feed(working, uastc, o, down, chain_rest, outs_rest)
        });
    }
}

/// Normalizes the xyz of `p` (a zero vector becomes +Z, the flat normal).
fn normalize(p: [f32; 4]) -> [f32; 4] {
    let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    if len > 1e-12 {
        [p[0] / len, p[1] / len, p[2] / len, p[3]]
    } else {
        [0.0, 0.0, 1.0, p[3]]
    }
}

/// Encodes a 3D LUT as an RGBA16F 3D texture (alpha 1), one level, zstd-supercompressed. The
/// domain goes into the key `HEARTHlutDomain` as six numbers: min r g b, max r g b.
pub fn encode_lut(lut: &lut::CubeLut, zstd_level: i32) -> EncodedTexture {
    let data: Vec<u8> = lut
        .rgb
        .iter()
        .flat_map(|c| [c[0], c[1], c[2], 1.0])
        .flat_map(|v| half::f16::from_f32(v).to_le_bytes())
        .collect();
    let (min, max) = (lut.domain_min, lut.domain_max);
    let domain = format!(
        "{} {} {} {} {} {}\0",
        min[0], min[1], min[2], max[0], max[1], max[2]
    );
    let desc = Ktx2Description {
        vk_format: ktx2::vk::R16G16B16A16_SFLOAT,
        type_size: 2,
        width: lut.size,
        height: lut.size,
        depth: lut.size,
        layers: 0,
        faces: 1,
        block_bytes: 8,
        dfd: BasicDfd::uncompressed(
            &[channel::R, channel::G, channel::B, channel::A],
            16,
            true,
            false,
        ),
        key_values: vec![
            ("KTXorientation".into(), b"rdi\0".to_vec()),
            ("KTXwriter".into(), writer_id()),
            ("HEARTHlutDomain".into(), domain.into_bytes()),
        ],
        zstd_level: Some(zstd_level),
    };
    EncodedTexture {
        ktx2: ktx2::write(&desc, &[data]),
        color_space: ColorSpace::Linear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::settings::TextureQuality;

    /// `count` images `w x h` of a pattern, alpha below 255 in one corner of the last only.
    fn images(w: u32, h: u32, count: u32) -> Vec<pixels::Pixels> {
        (0..count)
            .map(|image| pixels::Pixels {
                width: w,
                height: h,
                rgba: (0..w * h)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        let alpha = if image + 1 == count && x < 8 && y < 8 {
                            0.4
                        } else {
                            1.0
                        };
                        let v = |n: u32| (n % 256) as f32 / 255.0;
                        [v(x * 7 + y + image), v(x ^ y), v(y * 3), alpha]
                    })
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn level0_streamed_in_slices_is_the_same_ktx2_as_encoded_whole() {
        // 1030 wide: level 0 goes out in slices of 252 rows (the last one short), with an edge
        // column of blocks; and with a size limit (rows made by the base resampler).
        let settings = TextureSettings {
            quality: TextureQuality::Fastest,
            ..TextureSettings::default()
        };
        let limited = TextureSettings {
            max_size: 1000,
            ..settings.clone()
        };
        // 600x1800: levels 0 and 1 are cut (level 1 into 872-row slices), level 2 is not.
        for (size, count, shape, settings, streamed_levels) in [
            ((1030, 601), 1, TextureShape::Single, &settings, 1),
            ((1030, 601), 2, TextureShape::Array, &settings, 1),
            ((1030, 601), 1, TextureShape::Single, &limited, 1),
            ((600, 1800), 1, TextureShape::Single, &settings, 2),
        ] {
            let images = images(size.0, size.1, count);
            let streamed =
                Levels::build(&images, shape, TextureMode::Color, settings, true).unwrap();
            let levels = streamed.streamed.as_ref().map(|s| s.level_count());
            assert_eq!(levels, Some(streamed_levels), "{size:?}");
            let whole = Levels::build(&images, shape, TextureMode::Color, settings, false).unwrap();
            assert!(whole.streamed.is_none());
            assert_eq!(
                streamed.finish(settings).unwrap(),
                whole.finish(settings).unwrap(),
                "{count} image(s), max_size {}",
                settings.max_size
            );
        }
    }

    /// PNGs of every color type and depth, decoded as rows are read (interlaced ones whole,
    /// as before), bake the KTX2 of the same image decoded whole by the `image` crate.
    #[test]
    fn png_rows_read_as_decoded_bake_what_whole_images_bake() {
        use pixels::test_png;
        use png::{BitDepth as D, ColorType as C};
        // 1100 wide: level 0 goes to the UASTC encoder in row slices of 236 rows.
        let size = (1100u32, 300u32);
        let palette = |entries: usize| -> Vec<u8> {
            (0..entries * 3).map(|i| (i * 37 % 256) as u8).collect()
        };
        let alphas: Vec<u8> = (0..200).map(|i| (i * 5 % 256) as u8).collect();
        /// Name, color type, depth, samples per pixel, palette, tRNS.
        type Case = (&'static str, C, D, u32, Option<Vec<u8>>, Option<Vec<u8>>);
        let cases: Vec<Case> = vec![
            ("gray", C::Grayscale, D::Eight, 1, None, None),
            ("gray 1-bit", C::Grayscale, D::One, 1, None, None),
            (
                "gray tRNS",
                C::Grayscale,
                D::Eight,
                1,
                None,
                Some(vec![0, 7]),
            ),
            ("gray+alpha", C::GrayscaleAlpha, D::Eight, 2, None, None),
            ("rgb", C::Rgb, D::Eight, 3, None, None),
            (
                "rgb tRNS",
                C::Rgb,
                D::Eight,
                3,
                None,
                Some(vec![0, 7, 0, 14, 0, 21]),
            ),
            ("rgba", C::Rgba, D::Eight, 4, None, None),
            ("palette", C::Indexed, D::Eight, 1, Some(palette(256)), None),
            (
                "palette tRNS",
                C::Indexed,
                D::Eight,
                1,
                Some(palette(256)),
                Some(alphas),
            ),
            (
                "palette 4-bit",
                C::Indexed,
                D::Four,
                1,
                Some(palette(16)),
                None,
            ),
            ("gray 16", C::Grayscale, D::Sixteen, 1, None, None),
            (
                "gray+alpha 16",
                C::GrayscaleAlpha,
                D::Sixteen,
                2,
                None,
                None,
            ),
            ("rgb 16", C::Rgb, D::Sixteen, 3, None, None),
            (
                "rgb 16 tRNS",
                C::Rgb,
                D::Sixteen,
                3,
                None,
                Some(vec![1, 2, 3, 4, 5, 6]),
            ),
            ("rgba 16", C::Rgba, D::Sixteen, 4, None, None),
        ];
        let mut files: Vec<(String, Vec<u8>, bool)> = cases
            .into_iter()
            .map(|(name, color, depth, samples, palette, trns)| {
                let row = test_png::row_bytes(size.0, samples, depth as u32);
                let data = test_png::data(size.1 as usize, row);
                let png = test_png::encode(size, (color, depth), palette, trns, &data);
                (name.to_owned(), png, true)
            })
            .collect();
        for (name, color, bytes_per_pixel) in
            [("interlaced rgba", 6u8, 4), ("interlaced gray", 0, 1)]
        {
            let data = test_png::data(size.1 as usize, size.0 as usize * bytes_per_pixel);
            files.push((
                name.into(),
                test_png::adam7(size, (color, 8), bytes_per_pixel, &data),
                false,
            ));
        }
        let data = test_png::data(size.1 as usize, size.0 as usize * 8);
        files.push((
            "interlaced rgba 16".into(),
            test_png::adam7(size, (6, 16), 8, &data),
            false,
        ));

        let uastc = TextureSettings {
            quality: TextureQuality::Fastest,
            ..TextureSettings::default()
        };
        let raw = TextureSettings {
            compress: false,
            max_size: 500,
            ..TextureSettings::default()
        };
        let runs = [
            (&uastc, TextureMode::Color),
            (&raw, TextureMode::Normal),
            (&raw, TextureMode::Grayscale),
        ];
        for (name, png, streams) in &files {
            let streamed = DecodedImage::decode(png, "png", 1 << 20).unwrap();
            assert_eq!(streamed.is_row_streamed(), *streams, "{name}");
            let whole = DecodedImage::decode_with(png, "png", 1 << 20, false).unwrap();
            assert!(!whole.is_row_streamed());
            assert_eq!(streamed.info(), whole.info(), "{name}");
            let bits = |p: pixels::Pixels| -> Vec<u32> {
                p.rgba.iter().flatten().map(|v| v.to_bits()).collect()
            };
            let pixels = bits(streamed.to_pixels().unwrap());
            assert_eq!(pixels, bits(whole.to_pixels().unwrap()), "{name}");
            assert!(pixels.iter().any(|v| *v != pixels[0]), "{name}: not flat");
            for (settings, mode) in runs {
                let one = |image| {
                    encode_decoded(vec![image], TextureShape::Single, mode, settings).unwrap()
                };
                let from_rows = one(DecodedImage::decode(png, "png", 1 << 20).unwrap());
                let from_whole =
                    one(DecodedImage::decode_with(png, "png", 1 << 20, false).unwrap());
                assert!(
                    from_rows == from_whole,
                    "{name}, {mode:?}, compress {}",
                    settings.compress
                );
            }
        }
    }
}
