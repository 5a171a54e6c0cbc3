//! Runtime UASTC transcoding (feature `transcode`): turns a UASTC level of a [`Ktx2`] into a
//! format the GPU at hand samples: BC7, ASTC 4x4 and RGBA8 through hearth's own transcoder
//! (byte for byte what Basis Universal's writes, several times faster), the other targets
//! through Basis Universal's.

use crate::read::error::ReadError;
use crate::read::ktx2::Ktx2;
use basis_universal::{sys, DecodeFlags, TranscoderBlockFormat};

mod astc;
mod bc7;
#[cfg(test)]
mod reference;
mod rgba8;
mod uastc;

/// What to transcode UASTC into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscodeTarget {
    /// BC7 (desktop GPUs): 16 bytes per 4x4 block.
    Bc7,
    /// ASTC 4x4 (mobile GPUs): 16 bytes per 4x4 block.
    Astc4x4,
    /// ETC2 RGBA (EAC alpha): 16 bytes per 4x4 block.
    Etc2Rgba,
    /// ETC2 opaque RGB (ETC1 blocks, which ETC2 decoders read): 8 bytes per 4x4 block.
    Etc2Rgb,
    /// BC1 opaque RGB: 8 bytes per block.
    Bc1,
    /// BC3 (BC4 alpha + BC1 color): 16 bytes per block.
    Bc3,
    /// BC4 of the red channel: 8 bytes per block.
    Bc4,
    /// BC5 of the red and green channels (hearth's two-channel layout): 16 bytes per block.
    Bc5,
    /// EAC R11 of the red channel: 8 bytes per block.
    EacR11,
    /// EAC RG11 of the red and green channels: 16 bytes per block.
    EacRg11,
    /// Uncompressed RGBA8: 4 bytes per pixel, `width * height` pixels.
    Rgba8,
}

impl TranscodeTarget {
    fn block_format(self) -> TranscoderBlockFormat {
        match self {
            Self::Bc7 => TranscoderBlockFormat::BC7,
            Self::Astc4x4 => TranscoderBlockFormat::ASTC_4x4,
            Self::Etc2Rgba => TranscoderBlockFormat::ETC2_RGBA,
            Self::Etc2Rgb => TranscoderBlockFormat::ETC1,
            Self::Bc1 => TranscoderBlockFormat::BC1,
            Self::Bc3 => TranscoderBlockFormat::BC3,
            Self::Bc4 => TranscoderBlockFormat::BC4,
            Self::Bc5 => TranscoderBlockFormat::BC5,
            Self::EacR11 => TranscoderBlockFormat::ETC2_EAC_R11,
            Self::EacRg11 => TranscoderBlockFormat::ETC2_EAC_RG11,
            Self::Rgba8 => TranscoderBlockFormat::RGBA32,
        }
    }

    /// Bytes per 4x4 block (per pixel for [`Rgba8`](Self::Rgba8)).
    pub fn block_bytes(self) -> u32 {
        match self {
            Self::Etc2Rgb | Self::Bc1 | Self::Bc4 | Self::EacR11 => 8,
            Self::Rgba8 => 4,
            _ => 16,
        }
    }

    /// The channels a one- or two-channel target reads: red and green for hearth's RG
    /// layout (normal maps are `rg01`), else basisu's defaults (red, alpha).
    fn channels(self) -> (i32, i32) {
        match self {
            Self::Bc5 | Self::EacRg11 => (0, 1),
            _ => (0, 3),
        }
    }
}

/// Transcodes one image (`layer`, `face`, depth slice 0) of `level` of a UASTC texture.
pub fn transcode(
    ktx: &Ktx2<'_>,
    level: u32,
    layer: u32,
    face: u32,
    target: TranscodeTarget,
) -> Result<Vec<u8>, ReadError> {
    require_uastc(ktx)?;
    if level >= ktx.level_count() {
        return Err(ReadError::OutOfBounds {
            what: "KTX2 level, layer or face",
        });
    }
    let data = ktx.level(level)?;
    let (_, height, _) = ktx.level_dimensions(level);
    let rows = 0..height.div_ceil(4);
    transcode_image_rows(ktx, &data, level, layer, face, rows, target)
}

/// Transcodes block rows `rows` (4 pixel rows each) of image 0 (layer 0, face 0, depth slice 0)
/// of a UASTC texture's `level`, whose stored bytes `level_data` are (from
/// [`Ktx2::level`], decompressed once for all its rows): the rows of one image transcode
/// independently, so a large level can be split across threads and the parts joined in order.
/// The result is what [`transcode`] gives for those rows: `rows.len()` rows of blocks, or for
/// [`TranscodeTarget::Rgba8`] the rows' pixel rows (the last block row cut at the image's
/// height).
pub fn transcode_rows(
    ktx: &Ktx2<'_>,
    level_data: &[u8],
    level: u32,
    rows: std::ops::Range<u32>,
    target: TranscodeTarget,
) -> Result<Vec<u8>, ReadError> {
    require_uastc(ktx)?;
    transcode_image_rows(ktx, level_data, level, 0, 0, rows, target)
}

fn require_uastc(ktx: &Ktx2<'_>) -> Result<(), ReadError> {
    match ktx.is_uastc() {
        true => Ok(()),
        false => Err(ReadError::Invalid {
            what: "KTX2 format (transcoding needs UASTC)",
        }),
    }
}

/// Block rows `rows` of one image of `level` (stored bytes `data`), transcoded.
fn transcode_image_rows(
    ktx: &Ktx2<'_>,
    data: &[u8],
    level: u32,
    layer: u32,
    face: u32,
    rows: std::ops::Range<u32>,
    target: TranscodeTarget,
) -> Result<Vec<u8>, ReadError> {
    if layer >= ktx.layers() || face >= ktx.faces() || level >= ktx.level_count() {
        return Err(ReadError::OutOfBounds {
            what: "KTX2 level, layer or face",
        });
    }
    let (width, height, depth) = ktx.level_dimensions(level);
    let (blocks_x, blocks_y) = (width.div_ceil(4), height.div_ceil(4));
    if rows.start >= rows.end || rows.end > blocks_y {
        return Err(ReadError::OutOfBounds {
            what: "KTX2 block rows",
        });
    }
    // `Ktx2::parse` checked the level's size against the dimensions only when the header's
    // format is UASTC's (VK_FORMAT_UNDEFINED); the image's range is checked here regardless.
    let row_bytes = blocks_x as u64 * 16;
    let slice_bytes = row_bytes * blocks_y as u64;
    let image_index = layer as u64 * ktx.faces() as u64 + face as u64;
    let start = slice_bytes
        .checked_mul(depth as u64)
        .and_then(|image| image.checked_mul(image_index))
        .and_then(|image| image.checked_add(row_bytes * rows.start as u64));
    let len = row_bytes * (rows.end - rows.start) as u64;
    let blocks = start
        .and_then(|start| Some((usize::try_from(start).ok()?, usize::try_from(len).ok()?)))
        .and_then(|(start, len)| data.get(start..start.checked_add(len)?))
        .ok_or(ReadError::OutOfBounds {
            what: "KTX2 level data (shorter than its UASTC images)",
        })?;
    let has_alpha = ktx
        .dfd()
        .samples
        .first()
        .is_some_and(|s| s.channel_type & 0xF == crate::format::ktx2::channel::UASTC_RGBA);
    let rows_height = (height - rows.start * 4).min((rows.end - rows.start) * 4);
    transcode_slice(
        blocks,
        blocks_x,
        rows.end - rows.start,
        width,
        rows_height,
        has_alpha,
        target,
    )
}

/// Image 0 (layer 0, face 0, depth slice 0) of `level` as RGBA8, for a UASTC texture
/// (transcoded) or a raw 8-bit one (R as RRR1, RG as RG01, RGBA as is); an error for other
/// formats (GPU blocks, floats), which have no 8-bit decode here.
pub fn rgba8_image(ktx: &Ktx2<'_>, level: u32) -> Result<Vec<u8>, ReadError> {
    if ktx.is_uastc() {
        return transcode(ktx, level, 0, 0, TranscodeTarget::Rgba8);
    }
    use crate::format::ktx2::vk;
    let channels = match ktx.vk_format() {
        vk::R8_UNORM | vk::R8_SRGB => 1,
        vk::R8G8_UNORM | vk::R8G8_SRGB => 2,
        vk::R8G8B8A8_UNORM | vk::R8G8B8A8_SRGB => 4,
        _ => {
            return Err(ReadError::Invalid {
                what: "KTX2 format (only UASTC and raw 8-bit decode to RGBA8)",
            })
        }
    };
    if level >= ktx.level_count() {
        return Err(ReadError::OutOfBounds { what: "KTX2 level" });
    }
    let (width, height, _) = ktx.level_dimensions(level);
    let data = ktx.level(level)?;
    let image = data
        .get(..width as usize * height as usize * channels)
        .ok_or(ReadError::OutOfBounds {
            what: "KTX2 level data (shorter than one image)",
        })?;
    Ok(match channels {
        1 => image.iter().flat_map(|&r| [r, r, r, 255]).collect(),
        2 => image
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[1], 0, 255])
            .collect(),
        _ => image.to_vec(),
    })
}

/// Owns a basisu low-level UASTC transcoder.
struct Transcoder(*mut sys::LowLevelUastcTranscoder);

impl Drop for Transcoder {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from `low_level_uastc_transcoder_new` and is deleted only here.
        unsafe { sys::low_level_uastc_transcoder_delete(self.0) }
    }
}

/// Transcodes one slice of `blocks_x * blocks_y` UASTC blocks (the baker's GPU-format targets
/// come through here too). To a block format, each run of equal blocks is transcoded once and
/// its result copied: every block target here transcodes a block from its own 16 bytes alone,
/// and flat colors and flat normals make runs common (in the corpus's textures 3 to 97 % of
/// the blocks repeat the one before, 41 % in all). hearth's own BC7, ASTC and RGBA8 paths take
/// a few tens of nanoseconds a block, so they only reuse a block's result for the next one.
pub(crate) fn transcode_slice(
    blocks: &[u8],
    blocks_x: u32,
    blocks_y: u32,
    width: u32,
    height: u32,
    has_alpha: bool,
    target: TranscodeTarget,
) -> Result<Vec<u8>, ReadError> {
    assert_eq!(
        blocks.len(),
        blocks_x as usize * blocks_y as usize * 16,
        "slice size"
    );
    assert!(
        blocks_x == width.div_ceil(4) && blocks_y == height.div_ceil(4),
        "slice dimensions"
    );
    match target {
        TranscodeTarget::Bc7 => return direct_blocks(blocks, bc7::uastc_to_bc7),
        TranscodeTarget::Astc4x4 => return direct_blocks(blocks, astc::uastc_to_astc),
        TranscodeTarget::Rgba8 => return direct_rgba8(blocks, blocks_x, width, height),
        _ => {}
    }
    // Finding the runs costs a few nanoseconds a block, each block it spares about a hundred:
    // it pays where at least one block in eight repeats the one before.
    let neighbours = blocks.chunks_exact(16).zip(blocks.chunks_exact(16).skip(1));
    let repeats = neighbours.filter(|(a, b)| a == b).count();
    if repeats * 8 < blocks.len() / 16 {
        return transcode_blocks(blocks, blocks_x, blocks_y, width, height, has_alpha, target);
    }
    let runs = BlockRuns::of(blocks, blocks.len() / 16 - repeats);
    // The distinct blocks as one row, transcoded, then each copied over its run.
    let count = u32::try_from(runs.starts.len())
        .ok()
        .filter(|count| count.checked_mul(4).is_some())
        .ok_or(ReadError::LimitExceeded {
            what: "UASTC slice size",
        })?;
    let unique = transcode_blocks(&runs.unique, count, 1, count * 4, 4, has_alpha, target)?;
    Ok(runs.expand(&unique, target.block_bytes() as usize))
}

/// Each of `blocks` through hearth's own per-block `transcode` (no FFI, no setup); a block equal
/// to the one before reuses its result, which costs one comparison.
fn direct_blocks<const OUT: usize>(
    blocks: &[u8],
    transcode: fn(&[u8; 16]) -> Option<[u8; OUT]>,
) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::with_capacity(blocks.len() / 16 * OUT);
    let mut previous: Option<(&[u8; 16], [u8; OUT])> = None;
    let (blocks, _) = blocks.as_chunks::<16>();
    for block in blocks {
        let result = match previous {
            Some((before, result)) if before == block => result,
            _ => transcode(block).ok_or_else(rejected_blocks)?,
        };
        out.extend_from_slice(&result);
        previous = Some((block, result));
    }
    Ok(out)
}

/// `blocks` (`blocks_x` a row) decoded by hearth's own UASTC decoder to `width * height` RGBA8
/// pixels, row by row, the last block column and row cut at the image's edge (as basisu writes
/// them); a block equal to the one before reuses its texels.
fn direct_rgba8(
    blocks: &[u8],
    blocks_x: u32,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, ReadError> {
    let (width, height) = (width as usize, height as usize);
    let row_blocks = blocks_x as usize * 16;
    if row_blocks == 0 {
        return Ok(Vec::new()); // an empty image (which `Ktx2::parse` never lets through)
    }
    let mut out = Vec::with_capacity(width * height * 4);
    // One block row's four pixel rows, each `blocks_x * 4` pixels (the edge cut on copying out).
    let mut band = vec![0u8; row_blocks * 4];
    let mut previous: Option<(&[u8; 16], [[u8; 4]; 16])> = None;
    for (block_row, row) in blocks.chunks_exact(row_blocks).enumerate() {
        let (row, _) = row.as_chunks::<16>();
        for (column, block) in row.iter().enumerate() {
            let texels = match previous {
                Some((before, texels)) if before == block => texels,
                _ => rgba8::uastc_to_rgba8(block).ok_or_else(rejected_blocks)?,
            };
            previous = Some((block, texels));
            for (y, texel_row) in texels.chunks_exact(4).enumerate() {
                let at = y * row_blocks + column * 16;
                band[at..at + 16].copy_from_slice(texel_row.as_flattened());
            }
        }
        let rows = height.saturating_sub(block_row * 4).min(4);
        for pixel_row in band.chunks_exact(row_blocks).take(rows) {
            out.extend_from_slice(&pixel_row[..width * 4]);
        }
    }
    Ok(out)
}

/// A slice's blocks as runs of equal neighbours (in memory order, across block rows too).
struct BlockRuns {
    /// The first block of each run, one after the other.
    unique: Vec<u8>,
    /// The index of each run's first block; the run ends where the next one starts.
    starts: Vec<usize>,
    total: usize,
}

impl BlockRuns {
    /// The runs of `blocks`, `count` of them.
    fn of(blocks: &[u8], count: usize) -> Self {
        let mut unique = Vec::with_capacity(count * 16);
        let mut starts = Vec::with_capacity(count);
        let mut previous: Option<&[u8]> = None;
        for (index, block) in blocks.chunks_exact(16).enumerate() {
            if previous != Some(block) {
                unique.extend_from_slice(block);
                starts.push(index);
                previous = Some(block);
            }
        }
        Self {
            unique,
            starts,
            total: blocks.len() / 16,
        }
    }

    /// Each run's transcoded block (`block_bytes` each in `unique`), repeated over the run.
    fn expand(&self, unique: &[u8], block_bytes: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.total * block_bytes);
        let ends = self.starts.iter().skip(1).copied().chain([self.total]);
        for ((start, end), block) in self
            .starts
            .iter()
            .zip(ends)
            .zip(unique.chunks_exact(block_bytes))
        {
            for _ in *start..end {
                out.extend_from_slice(block);
            }
        }
        out
    }
}

/// [`transcode_slice`] of every block as it is. The `basis-universal` crate's
/// own `transcode_slice` passes the row pitch in blocks even for uncompressed targets, which
/// sizes the RGBA32 buffer at a quarter of what the transcoder writes (heap corruption): hearth
/// calls the transcoder with the pitch in pixels for RGBA8 and in blocks for block formats.
fn transcode_blocks(
    blocks: &[u8],
    blocks_x: u32,
    blocks_y: u32,
    width: u32,
    height: u32,
    has_alpha: bool,
    target: TranscodeTarget,
) -> Result<Vec<u8>, ReadError> {
    let format = target.block_format();
    let (stride, pitch, rows, size) = match target {
        TranscodeTarget::Rgba8 => (4, width, height, width as u64 * height as u64 * 4),
        _ => {
            let block = target.block_bytes();
            (
                block,
                blocks_x,
                0,
                blocks_x as u64 * blocks_y as u64 * block as u64,
            )
        }
    };
    let size = usize::try_from(size).map_err(|_| ReadError::LimitExceeded {
        what: "transcoded image size",
    })?;
    let blocks_len = u32::try_from(blocks.len()).map_err(|_| ReadError::LimitExceeded {
        what: "UASTC slice size (over 4 GiB)",
    })?;
    assert_eq!(
        blocks.len(),
        blocks_x as usize * blocks_y as usize * 16,
        "slice size"
    );
    assert!(
        blocks_x == width.div_ceil(4) && blocks_y == height.div_ceil(4),
        "slice dimensions"
    );
    let (channel0, channel1) = target.channels();
    let mut out = vec![0u8; size];
    basis_universal::transcoder_init();
    // SAFETY: the transcoder is created here and freed by `Transcoder`'s drop. The input is
    // `blocks_x * blocks_y` 16-byte UASTC blocks (asserted above) and the output buffer holds
    // exactly what the transcoder writes for these arguments: `blocks_x * blocks_y` blocks of
    // the target's size (`stride`: 8 or 16 bytes, basisu's own size for each of these
    // formats) with a pitch of `blocks_x` blocks for block formats, or `width * height` 4-byte
    // pixels with a pitch of `width` pixels and `height` rows for RGBA32. A null state is
    // allowed (the transcoder then uses a local one).
    let ok = unsafe {
        let transcoder = Transcoder(sys::low_level_uastc_transcoder_new());
        sys::low_level_uastc_transcoder_transcode_slice(
            transcoder.0,
            out.as_mut_ptr().cast(),
            blocks_x,
            blocks_y,
            blocks.as_ptr(),
            blocks_len,
            format.into(),
            stride,
            false,
            has_alpha,
            width,
            height,
            pitch,
            std::ptr::null_mut(),
            rows,
            channel0,
            channel1,
            DecodeFlags::HIGH_QUALITY.bits(),
        )
    };
    if ok {
        Ok(out)
    } else {
        Err(rejected_blocks())
    }
}

/// The error for a slice with a block that is no valid UASTC (hearth's transcoder and basisu's
/// reject the same blocks).
fn rejected_blocks() -> ReadError {
    ReadError::Invalid {
        what: "UASTC blocks (the transcoder rejected them)",
    }
}

#[cfg(all(test, feature = "bake"))]
mod tests {
    use super::*;
    use crate::bake::texture::uastc::{self, UastcOptions};

    /// UASTC blocks of a `w x h` image whose left part is one flat color (runs of equal
    /// blocks, across block rows too) and whose right part is a noisy gradient.
    pub(super) fn blocks(w: u32, h: u32, alpha: bool) -> Vec<u8> {
        let pixels: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                let a = if alpha && y > h / 2 { 90 } else { 255 };
                match x < w / 2 {
                    true => [40, 120, 200, a],
                    false => [(x * 13 + y * 7) as u8, (x ^ y) as u8 * 3, (y * 11) as u8, a],
                }
            })
            .collect();
        let options = UastcOptions {
            level: uastc::LEVEL_FASTEST,
            rdo: None,
            perceptual: true,
            normal_map: false,
        };
        let (slices, _) = uastc::encode(&[(w, h, &pixels)], &options).unwrap();
        slices.into_iter().next().unwrap().data
    }

    const TARGETS: [TranscodeTarget; 11] = [
        TranscodeTarget::Bc7,
        TranscodeTarget::Astc4x4,
        TranscodeTarget::Etc2Rgba,
        TranscodeTarget::Etc2Rgb,
        TranscodeTarget::Bc1,
        TranscodeTarget::Bc3,
        TranscodeTarget::Bc4,
        TranscodeTarget::Bc5,
        TranscodeTarget::EacR11,
        TranscodeTarget::EacRg11,
        TranscodeTarget::Rgba8,
    ];

    #[test]
    fn runs_of_equal_blocks_transcode_to_what_every_block_transcodes_to() {
        // 38 x 23: edge blocks cut in both directions; one block wide and one pixel high too.
        for (w, h) in [(38, 23), (64, 16), (4, 9), (13, 1)] {
            for alpha in [false, true] {
                let blocks = blocks(w, h, alpha);
                let (bx, by) = (w.div_ceil(4), h.div_ceil(4));
                let pairs = blocks.chunks_exact(16).zip(blocks.chunks_exact(16).skip(1));
                let repeats = pairs.filter(|(a, b)| a == b).count();
                if w >= 32 {
                    // Enough repeats for the runs to be used.
                    assert!(
                        repeats * 8 >= (bx * by) as usize,
                        "{w}x{h}: {repeats} repeats"
                    );
                }
                for target in TARGETS {
                    let whole = transcode_blocks(&blocks, bx, by, w, h, alpha, target).unwrap();
                    let by_runs = transcode_slice(&blocks, bx, by, w, h, alpha, target).unwrap();
                    assert_eq!(by_runs, whole, "{w}x{h}, alpha {alpha}, {target:?}");
                }
            }
        }
    }

    #[test]
    fn a_bad_block_inside_a_run_fails_the_slice() {
        let (w, h) = (64, 16);
        let mut blocks = blocks(w, h, false);
        // Blocks 1 and 2 of the flat run: a mode code no UASTC block has (mode 19).
        for block in [1, 2] {
            blocks[block * 16] = 69;
        }
        for target in TARGETS {
            let result = transcode_slice(&blocks, 16, 4, w, h, false, target);
            assert!(result.is_err(), "{target:?}");
        }
    }
}
