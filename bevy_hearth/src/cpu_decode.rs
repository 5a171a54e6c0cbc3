//! A GPU-format texture (a `format = "bcn"`, `"astc4x4"` or `"etc2"` bake) on a device that
//! cannot sample its format, decoded on the CPU to 8-bit texels (see
//! [`HearthKtx2Loader`](crate::HearthKtx2Loader)).
//!
//! A platform preset bakes the GPU's own format so that a pack loads without transcoding, but
//! the same pack then meets devices without that format: a desktop GPU and an ASTC bake, a
//! phone or a WebGPU browser and a BCn bake. Bevy's loader refuses those textures; this
//! decodes them instead, at four (colour) or one or two (grey, normal maps) bytes a texel.

use crate::texture::{by_block_rows, keep_channels, plain_image};
use bevy::image::{CompressedImageFormats, Image};
use bevy::render::render_resource::TextureFormat;
use hearth::format::ktx2::vk;
use hearth::Ktx2;

/// A block decoder of `texture2ddecoder`: blocks, width, height, texels out (`0xAARRGGBB`).
type BlockDecoder = fn(&[u8], usize, usize, &mut [u32]) -> Result<(), &'static str>;

/// How one GPU format decodes: the family a device must sample to take it as it is, the
/// decoder, and the uncompressed format (and channel count) it becomes.
struct Decoding {
    family: CompressedImageFormats,
    decode: BlockDecoder,
    /// Bytes one 4x4 block takes (8 or 16).
    block_bytes: usize,
    channels: usize,
    format: TextureFormat,
}

/// How a KTX2 `vkFormat` decodes; `None` for a format this does not decode (EAC R11 and
/// RG11, whose decoder in `texture2ddecoder` 0.1 reads the index bits in the wrong order;
/// uncompressed and UASTC formats, which need no decoding here).
fn decoding(vk_format: u32) -> Option<Decoding> {
    use CompressedImageFormats as Family;
    use TextureFormat as F;
    let colour = |family, decode, block_bytes, srgb: bool| {
        let format = if srgb {
            F::Rgba8UnormSrgb
        } else {
            F::Rgba8Unorm
        };
        Some(Decoding {
            family,
            decode,
            block_bytes,
            channels: 4,
            format,
        })
    };
    let astc: BlockDecoder = |data, width, height, texels| {
        texture2ddecoder::decode_astc(data, width, height, 4, 4, texels)
    };
    match vk_format {
        vk::BC1_RGB_UNORM_BLOCK => colour(Family::BC, texture2ddecoder::decode_bc1, 8, false),
        vk::BC1_RGB_SRGB_BLOCK => colour(Family::BC, texture2ddecoder::decode_bc1, 8, true),
        vk::BC3_UNORM_BLOCK => colour(Family::BC, texture2ddecoder::decode_bc3, 16, false),
        vk::BC3_SRGB_BLOCK => colour(Family::BC, texture2ddecoder::decode_bc3, 16, true),
        vk::BC7_UNORM_BLOCK => colour(Family::BC, texture2ddecoder::decode_bc7, 16, false),
        vk::BC7_SRGB_BLOCK => colour(Family::BC, texture2ddecoder::decode_bc7, 16, true),
        vk::BC4_UNORM_BLOCK => Some(Decoding {
            family: Family::BC,
            decode: texture2ddecoder::decode_bc4,
            block_bytes: 8,
            channels: 1,
            format: F::R8Unorm,
        }),
        vk::BC5_UNORM_BLOCK => Some(Decoding {
            family: Family::BC,
            decode: texture2ddecoder::decode_bc5,
            block_bytes: 16,
            channels: 2,
            format: F::Rg8Unorm,
        }),
        vk::ETC2_R8G8B8_UNORM_BLOCK => {
            colour(Family::ETC2, texture2ddecoder::decode_etc2_rgb, 8, false)
        }
        vk::ETC2_R8G8B8_SRGB_BLOCK => {
            colour(Family::ETC2, texture2ddecoder::decode_etc2_rgb, 8, true)
        }
        vk::ETC2_R8G8B8A8_UNORM_BLOCK => {
            colour(Family::ETC2, texture2ddecoder::decode_etc2_rgba8, 16, false)
        }
        vk::ETC2_R8G8B8A8_SRGB_BLOCK => {
            colour(Family::ETC2, texture2ddecoder::decode_etc2_rgba8, 16, true)
        }
        vk::ASTC_4X4_UNORM_BLOCK => colour(Family::ASTC_LDR, astc, 16, false),
        vk::ASTC_4X4_SRGB_BLOCK => colour(Family::ASTC_LDR, astc, 16, true),
        _ => None,
    }
}

/// `ktx` (a plain 2D texture) as an uncompressed image when it is in a GPU format
/// [`decoding`] takes that `formats` lacks (every level decoded, split across threads as
/// UASTC is, by [`by_block_rows`](crate::texture::by_block_rows)); `None` when the device
/// samples it as it is, or for any other format.
pub(crate) fn decoded_image(
    ktx: &Ktx2<'_>,
    formats: CompressedImageFormats,
) -> Result<Option<Image>, hearth::ReadError> {
    let Some(decoding) = decoding(ktx.vk_format()) else {
        return Ok(None);
    };
    if formats.contains(decoding.family) {
        return Ok(None);
    }
    let decoding = &decoding;
    let data = by_block_rows(ktx, |blocks, level, rows| {
        let (width, height, _) = ktx.level_dimensions(level);
        decode_rows(blocks, width, height, rows, decoding)
    })?;
    Ok(Some(plain_image(ktx, data, decoding.format)))
}

/// `blocks` decoded to `width` x `height` texels (`0xAARRGGBB`); `None` when `decode` fails
/// or panics. `texture2ddecoder`'s ASTC decoder panics on some malformed blocks (an arithmetic
/// overflow; arbitrary bytes find one at once), so a damaged or hostile file is caught here
/// and becomes the load's error. Sound to catch: the decoder shares no state, and the texels
/// it was writing are dropped. (A game built with `panic = "abort"` cannot catch it.)
fn decode_blocks(
    decode: BlockDecoder,
    blocks: &[u8],
    width: usize,
    height: usize,
) -> Option<Vec<u32>> {
    let mut texels = vec![0u32; width * height];
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        decode(blocks, width, height, &mut texels)
    }));
    matches!(decoded, Ok(Ok(()))).then_some(texels)
}

/// Block rows `rows` of a `width` x `height` level's `blocks`, decoded to
/// `decoding.channels` bytes a texel.
fn decode_rows(
    blocks: &[u8],
    width: u32,
    height: u32,
    rows: std::ops::Range<u32>,
    decoding: &Decoding,
) -> Result<Vec<u8>, hearth::ReadError> {
    let row_bytes = width.div_ceil(4) as usize * decoding.block_bytes;
    let band = blocks
        .get(rows.start as usize * row_bytes..rows.end as usize * row_bytes)
        .ok_or(hearth::ReadError::OutOfBounds {
            what: "KTX2 level data (shorter than its blocks)",
        })?;
    let band_height = (height - rows.start * 4).min((rows.end - rows.start) * 4);
    let texels = decode_blocks(decoding.decode, band, width as usize, band_height as usize).ok_or(
        hearth::ReadError::Invalid {
            what: "KTX2 level data (GPU blocks that do not decode)",
        },
    )?;
    let mut rgba = vec![0u8; texels.len() * 4];
    for (to, texel) in rgba.chunks_exact_mut(4).zip(&texels) {
        let [b, g, r, a] = texel.to_le_bytes();
        to.copy_from_slice(&[r, g, b, a]);
    }
    Ok(keep_channels(rgba, decoding.channels))
}

#[cfg(test)]
mod tests {
    use super::{decode_blocks, decode_rows, decoding};
    use hearth::format::ktx2::vk;

    /// Every decoder on arbitrary blocks (xorshift streams), sizes not multiples of 4, and on
    /// too few blocks: texels or `None`, never a panic out of it. BC and ETC2 decode any
    /// bytes; ASTC fails on some (its decoder panics, caught).
    #[test]
    fn arbitrary_blocks_decode_or_fail_without_a_panic() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut random = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        };
        let streams: Vec<Vec<u8>> = (0..8)
            .map(|_| (0..64 * 64 * 16).map(|_| random()).collect())
            .collect();
        let mut astc_failures = 0;
        for vk_format in vk::BC1_RGB_UNORM_BLOCK..=vk::ASTC_4X4_SRGB_BLOCK {
            let Some(decoding) = decoding(vk_format) else {
                continue;
            };
            let astc = vk_format >= vk::ASTC_4X4_UNORM_BLOCK;
            for blocks in &streams {
                for (width, height) in [(256, 256), (250, 13), (1, 1)] {
                    let texels = decode_blocks(decoding.decode, blocks, width, height);
                    match texels {
                        Some(texels) => assert_eq!(texels.len(), width * height),
                        None if astc => astc_failures += 1,
                        None => panic!("vkFormat {vk_format}: arbitrary blocks failed"),
                    }
                }
                assert!(decode_blocks(decoding.decode, &blocks[..100], 256, 256).is_none());
            }
        }
        assert!(astc_failures > 0, "no ASTC failure: the catch is untested");
    }

    /// A level decoded in bands of block rows, joined, is the level decoded whole, for every
    /// format (a 40 x 30 level: ten blocks across, eight rows, the last two texels high).
    #[test]
    fn block_rows_decoded_apart_and_joined_are_the_whole_level() {
        let blocks: Vec<u8> = (0..10 * 8 * 16u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for vk_format in vk::BC1_RGB_UNORM_BLOCK..=vk::ASTC_4X4_SRGB_BLOCK {
            let Some(decoding) = decoding(vk_format) else {
                continue;
            };
            let blocks = &blocks[..10 * 8 * decoding.block_bytes];
            let Ok(whole) = decode_rows(blocks, 40, 30, 0..8, &decoding) else {
                continue; // ASTC: these bytes may not decode
            };
            let mut joined = Vec::new();
            for rows in [0..3, 3..6, 6..8] {
                joined.extend(decode_rows(blocks, 40, 30, rows, &decoding).unwrap());
            }
            assert_eq!(joined, whole, "vkFormat {vk_format}");
            assert_eq!(whole.len(), 40 * 30 * decoding.channels);
            assert!(decode_rows(&blocks[..100], 40, 30, 0..8, &decoding).is_err());
        }
    }
}
