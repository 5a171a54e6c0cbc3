//! `.ktx2` entries of a pack → Bevy [`Image`]s, UASTC transcoded on every core (see
//! [`HearthKtx2Loader`]).

use crate::HearthLoadError;
use bevy::asset::io::{Reader, VecReader};
use bevy::asset::meta::{AssetAction, AssetMeta, AssetMetaDyn};
use bevy::asset::{AssetLoader, LoadContext};
use bevy::image::{CompressedImageFormats, Image, ImageLoader, ImageLoaderSettings};
use bevy::reflect::TypePath;
use bevy::render::render_resource::{
    AstcBlock, AstcChannel, Extent3d, TextureDataOrder, TextureDimension, TextureFormat,
};
use bevy::tasks::AsyncComputeTaskPool;
use hearth::format::ktx2::channel;
use hearth::read::transcode::{transcode_rows, TranscodeTarget};
use hearth::Ktx2;
use std::ops::Range;
use std::sync::OnceLock;

/// About how many 4x4 blocks one transcoding task takes (a few milliseconds of work).
const BLOCKS_PER_TASK: u32 = 16 * 1024;

/// Loads a pack's `.ktx2` textures, transcoding UASTC in parallel; registered by
/// [`HearthPlugin`](crate::HearthPlugin) once Bevy's renderer has said which compressed
/// formats the device samples.
///
/// Bevy's own KTX2 loader transcodes a UASTC texture level by level on the one task that loads
/// it. This loader splits each level's block rows across Bevy's async compute pool and the
/// loading thread, and for colour textures gives the image Bevy's loader would (the same
/// transcoder, flags and target format), with one difference: a linear texture (metal-rough,
/// occlusion or data, which hearth marks linear in the file) gets a linear format where Bevy's
/// loader would take it as sRGB. That holds for every texture it loads, those it hands to
/// Bevy's loader included (a GPU-format or uncompressed bake's). It also loads what Bevy
/// 0.19's loader fails on: one-channel UASTC (its BC4 transcode fails), two-channel (hearth's
/// normal maps), any UASTC on a device without compressed formats (its RGBA8 path panics),
/// and a GPU-format bake (BCn, ETC2, ASTC 4x4) on a device that cannot sample its format,
/// decoded on the CPU to RGBA8 (R8 for BC4, RG8 for BC5) where Bevy's loader refuses it.
/// Anything else (a GPU format the device samples, EAC, a cube map or array, an image read as
/// an array) goes to Bevy's loader unchanged.
/// [`HearthReader`](crate::HearthReader) names this loader in the `.meta` it serves for a
/// `.ktx2` entry, so only a pack's (or runtime tree's) textures come here.
#[derive(TypePath)]
pub struct HearthKtx2Loader {
    formats: CompressedImageFormats,
    /// Bevy's own image loader, for what this one leaves to it.
    bevy: ImageLoader,
}

impl HearthKtx2Loader {
    /// A loader for a device that samples `formats` (what Bevy's renderer reports as
    /// `CompressedImageFormatSupport`).
    pub fn new(formats: CompressedImageFormats) -> Self {
        Self {
            formats,
            bevy: ImageLoader::new(formats),
        }
    }

    /// The `.meta` bytes that send an asset to this loader with default settings.
    pub(crate) fn meta() -> &'static [u8] {
        static META: OnceLock<Vec<u8>> = OnceLock::new();
        META.get_or_init(|| {
            AssetMeta::<HearthKtx2Loader, ()>::new(AssetAction::Load {
                loader: Self::type_path().to_owned(),
                settings: ImageLoaderSettings::default(),
            })
            .serialize()
        })
    }
}

impl AssetLoader for HearthKtx2Loader {
    type Asset = Image;
    type Settings = ImageLoaderSettings;
    type Error = HearthLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &ImageLoaderSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<Image, HearthLoadError> {
        let path = load_context.path().clone();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| HearthLoadError::new(&path, e))?;
        let transcoded = match settings.array_layout {
            None => own_image(&bytes, self.formats).map_err(|e| HearthLoadError::new(&path, e))?,
            Some(_) => None,
        };
        let Some(mut image) = transcoded else {
            // Bevy's loader takes sRGB or linear from the settings (sRGB by default) for
            // every format with both forms; the file says which it is.
            let mut settings = settings.clone();
            if let Ok(ktx) = Ktx2::parse(&bytes) {
                settings.is_srgb = ktx.is_srgb();
            }
            return self
                .bevy
                .load(&mut VecReader::new(bytes), &settings, load_context)
                .await
                .map_err(|e| HearthLoadError::new(&path, e));
        };
        image.sampler = settings.sampler.clone();
        image.asset_usage = settings.asset_usage;
        if let Some(format) = settings.texture_format {
            image.texture_descriptor.format = format;
        }
        Ok(image)
    }

    /// None: the reader's `.meta` picks this loader, never a file's extension alone.
    fn extensions(&self) -> &[&str] {
        &[]
    }
}

/// What a UASTC texture becomes on a device that samples `formats`: colour (RGB, RGBA) as
/// Bevy's own loader chooses (ASTC, else BC7, else ETC2, else RGBA8), sRGB or linear as the
/// file says; one channel (RRR) BC4, else EAC R11, else R8; two (hearth's normal maps, RG)
/// RG8 on every device, as `bevy_hearth`'s materials take them (UASTC to BC5 re-encodes, and
/// costs more than it saves). `None` for a layout left to Bevy's loader (RRRG).
fn plan(formats: CompressedImageFormats, layout: u8, srgb: bool) -> Option<Plan> {
    let has = |format| formats.contains(format);
    let blocks = |target, format| Some(Plan::new(target, 4, format));
    let pick = |unorm, srgb_format| if srgb { srgb_format } else { unorm };
    match layout {
        channel::UASTC_RGB | channel::UASTC_RGBA => {
            if has(CompressedImageFormats::ASTC_LDR) {
                let astc = |channel| TextureFormat::Astc {
                    block: AstcBlock::B4x4,
                    channel,
                };
                let format = pick(astc(AstcChannel::Unorm), astc(AstcChannel::UnormSrgb));
                blocks(TranscodeTarget::Astc4x4, format)
            } else if has(CompressedImageFormats::BC) {
                let format = pick(TextureFormat::Bc7RgbaUnorm, TextureFormat::Bc7RgbaUnormSrgb);
                blocks(TranscodeTarget::Bc7, format)
            } else if has(CompressedImageFormats::ETC2) {
                let format = pick(
                    TextureFormat::Etc2Rgba8Unorm,
                    TextureFormat::Etc2Rgba8UnormSrgb,
                );
                blocks(TranscodeTarget::Etc2Rgba, format)
            } else {
                let format = pick(TextureFormat::Rgba8Unorm, TextureFormat::Rgba8UnormSrgb);
                blocks(TranscodeTarget::Rgba8, format)
            }
        }
        channel::UASTC_RRR => {
            if has(CompressedImageFormats::BC) {
                blocks(TranscodeTarget::Bc4, TextureFormat::Bc4RUnorm)
            } else if has(CompressedImageFormats::ETC2) {
                blocks(TranscodeTarget::EacR11, TextureFormat::EacR11Unorm)
            } else {
                Some(Plan::new(TranscodeTarget::Rgba8, 1, TextureFormat::R8Unorm))
            }
        }
        channel::UASTC_RG => Some(Plan::new(
            TranscodeTarget::Rgba8,
            2,
            TextureFormat::Rg8Unorm,
        )),
        _ => None,
    }
}

/// How a UASTC texture is transcoded: to `target`'s blocks (or RGBA8, keeping the first
/// `channels` of each texel), sampled as `format`.
#[derive(Clone, Copy)]
struct Plan {
    target: TranscodeTarget,
    channels: usize,
    format: TextureFormat,
}

impl Plan {
    fn new(target: TranscodeTarget, channels: usize, format: TextureFormat) -> Self {
        Self {
            target,
            channels,
            format,
        }
    }
}

/// `bytes` as an image when this loader makes it: a plain 2D UASTC texture (see
/// [`uastc_image`]) or a GPU format the device cannot sample (decoded, see
/// [`crate::cpu_decode`]); `None` for anything Bevy's loader should take.
fn own_image(
    bytes: &[u8],
    formats: CompressedImageFormats,
) -> Result<Option<Image>, hearth::ReadError> {
    let Ok(ktx) = Ktx2::parse(bytes) else {
        return Ok(None);
    };
    if !is_plain_2d(&ktx) {
        return Ok(None);
    }
    match ktx.is_uastc() {
        true => uastc_image(&ktx, formats),
        false => crate::cpu_decode::decoded_image(&ktx, formats),
    }
}

/// `ktx` (a plain 2D UASTC texture) as an image when [`plan`] takes its layout (every level
/// transcoded, split across threads); `None` for anything Bevy's loader should take.
fn uastc_image(
    ktx: &Ktx2<'_>,
    formats: CompressedImageFormats,
) -> Result<Option<Image>, hearth::ReadError> {
    let layout = ktx
        .dfd()
        .samples
        .first()
        .map(|sample| sample.channel_type & 0xF);
    let Some(plan) = layout.and_then(|layout| plan(formats, layout, ktx.is_srgb())) else {
        return Ok(None);
    };
    let data = transcode_levels(ktx, plan.target, plan.channels)?;
    Ok(Some(plain_image(ktx, data, plan.format)))
}

/// Whether `ktx` is one 2D image with its mips: no depth, array layers or cube faces.
pub(crate) fn is_plain_2d(ktx: &Ktx2<'_>) -> bool {
    let (_, _, depth) = ktx.level_dimensions(0);
    depth == 1 && ktx.layers() <= 1 && ktx.faces() == 1
}

/// A plain 2D image of `ktx`'s size and level count: `data`, every level mip-major, sampled as
/// `format`.
pub(crate) fn plain_image(ktx: &Ktx2<'_>, data: Vec<u8>, format: TextureFormat) -> Image {
    let (width, height, _) = ktx.level_dimensions(0);
    let mut image = Image {
        data: Some(data),
        data_order: TextureDataOrder::MipMajor,
        ..Image::default()
    };
    let descriptor = &mut image.texture_descriptor;
    descriptor.format = format;
    descriptor.size = Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    descriptor.mip_level_count = ktx.level_count();
    // As Bevy's loader: a one-row uncompressed image is 1D.
    descriptor.dimension = match !format.is_compressed() && height == 1 {
        true => TextureDimension::D1,
        false => TextureDimension::D2,
    };
    image
}

/// Every level of image 0 transcoded to `target` and joined, mip-major (for RGBA8, the first
/// `channels` of each texel kept), split across threads by [`by_block_rows`].
pub(crate) fn transcode_levels(
    ktx: &Ktx2<'_>,
    target: TranscodeTarget,
    channels: usize,
) -> Result<Vec<u8>, hearth::ReadError> {
    by_block_rows(ktx, |data, level, rows| {
        let part = transcode_rows(ktx, data, level, rows, target)?;
        Ok(keep_channels(part, channels))
    })
}

/// Every level of image 0 of `ktx` made by `rows_job(level data, level, block rows)` and
/// joined, mip-major: the levels are decompressed one per task, then their block rows handed
/// out in tasks of about [`BLOCKS_PER_TASK`] blocks, on Bevy's async compute pool and this
/// thread (or on this thread alone where there is no pool).
pub(crate) fn by_block_rows(
    ktx: &Ktx2<'_>,
    rows_job: impl Fn(&[u8], u32, Range<u32>) -> Result<Vec<u8>, hearth::ReadError> + Sync,
) -> Result<Vec<u8>, hearth::ReadError> {
    let decompress = |level| move || ktx.level(level).map(std::borrow::Cow::into_owned);
    let levels: Vec<Vec<u8>> = parallel((0..ktx.level_count()).map(decompress))
        .into_iter()
        .collect::<Result<_, _>>()?;
    let rows_job = &rows_job;
    let mut tasks = Vec::new();
    for (level, data) in (0..ktx.level_count()).zip(&levels) {
        let (width, height, _) = ktx.level_dimensions(level);
        let (blocks_x, blocks_y) = (width.div_ceil(4), height.div_ceil(4));
        let rows_per_task = (BLOCKS_PER_TASK / blocks_x).max(1);
        for start in (0..blocks_y).step_by(rows_per_task as usize) {
            let rows = start..(start + rows_per_task).min(blocks_y);
            tasks.push(move || rows_job(data, level, rows));
        }
    }
    let parts: Vec<Result<Vec<u8>, hearth::ReadError>> = parallel(tasks);
    let mut joined = Vec::with_capacity(parts.iter().flatten().map(Vec::len).sum());
    for part in parts {
        joined.extend_from_slice(&part?);
    }
    Ok(joined)
}

/// The first `channels` (1 to 4) of each RGBA8 texel of `rgba`.
pub(crate) fn keep_channels(rgba: Vec<u8>, channels: usize) -> Vec<u8> {
    /// With the count a constant, each texel's copy is a few moves, not a `memcpy` call or
    /// a byte-at-a-time iterator (which took 6 % of a UASTC pack's load).
    fn keep<const N: usize>(rgba: &[u8]) -> Vec<u8> {
        let mut kept = vec![0; rgba.len() / 4 * N];
        for (to, texel) in kept.chunks_exact_mut(N).zip(rgba.chunks_exact(4)) {
            to.copy_from_slice(&texel[..N]);
        }
        kept
    }
    match channels {
        1 => keep::<1>(&rgba),
        2 => keep::<2>(&rgba),
        3 => keep::<3>(&rgba),
        _ => rgba,
    }
}

/// Runs `jobs` on Bevy's async compute pool (this thread helping), their results in order.
fn parallel<T: Send + 'static, F: FnOnce() -> T + Send>(
    jobs: impl IntoIterator<Item = F>,
) -> Vec<T> {
    let jobs: Vec<F> = jobs.into_iter().collect();
    match AsyncComputeTaskPool::try_get() {
        Some(pool) if jobs.len() > 1 => pool.scope(|scope| {
            for job in jobs {
                scope.spawn(async move { job() });
            }
        }),
        _ => jobs.into_iter().map(|job| job()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::keep_channels;

    #[test]
    fn keep_channels_keeps_the_first_channels_of_each_texel_in_order() {
        let rgba: Vec<u8> = (0..32).collect();
        let expect = |n: usize| -> Vec<u8> {
            rgba.chunks_exact(4)
                .flat_map(|texel| texel[..n].to_vec())
                .collect()
        };
        for n in 1..=4 {
            assert_eq!(keep_channels(rgba.clone(), n), expect(n), "{n} channels");
        }
        assert_eq!(keep_channels(rgba.clone(), 2)[..6], [0, 1, 4, 5, 8, 9]);
    }
}
