//! GPU-native block formats (`texture.format`): BC1/3/4/5/7, ASTC 4x4, ETC2 and EAC.
//!
//! Two encoders make them:
//! - **transcode**: the texture is encoded to UASTC as usual, then each slice goes through
//!   Basis Universal's transcoder (the one a device would run at load, here run once at bake
//!   time). Every format; integer code, so byte-identical on every machine.
//! - **direct**: Intel's ISPC texture compressor (`intel_tex_2`) encodes the 8-bit levels
//!   itself: BC1, BC3, BC4, BC5 and BC7. Not ASTC: `intel_tex_2` 0.5's ASTC encoder is a stub
//!   (`unimplemented!()`). Not ETC2: its ETC1 kernel aborts the process (an ISPC `assert` in
//!   `etc_pack`) on a corpus albedo at 250 x 250. ISPC picks SSE2 to AVX-512 code at run time
//!   with fast-math, so its blocks are only promised to repeat on the same kind of CPU.
//!
//! `auto` picks per format by the measurement in the README ("GPU formats").

use crate::bake::texture::settings::{TextureEncoder, TextureFormat, TextureQuality};
use crate::format::ktx2::vk;
use crate::read::transcode::TranscodeTarget;

/// A resolved block format: what the KTX2 says and how its blocks are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockTarget {
    /// The KTX2 `vkFormat` (its block size: [`crate::format::ktx2::block_bytes`]).
    pub vk_format: u32,
    /// Encoder.
    pub encoder: Encoder,
}

/// How a [`BlockTarget`]'s blocks are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoder {
    /// UASTC through Basis Universal's transcoder.
    Transcode(TranscodeTarget),
    /// Intel's ISPC kernels.
    Direct(DirectFormat),
}

/// The formats Intel's ISPC compressor encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectFormat {
    /// BC1 (opaque).
    Bc1,
    /// BC3.
    Bc3,
    /// BC4 of the red channel.
    Bc4,
    /// BC5 of red and green.
    Bc5,
    /// BC7.
    Bc7,
}

/// The encoder `auto` uses for `format`, by the README's measurement ("GPU formats", one core,
/// corpus images at full size): Intel's encoder wherever it exists. BC7 0.8 to 3.1 dB better on
/// color than UASTC transcoded, 2.7 to 4x faster; BC5 3.4 to 6.6 dB better, 26 to 45x faster;
/// BC4 the same quality (±0.1 dB), 145x faster; BC1 and BC3 mixed (transcoding is 2.8 dB
/// better on a smooth color map, 1.2 dB worse on foliage with alpha) at 12 to 25x the time.
/// Transcoding for ASTC 4x4 and ETC2, which it alone makes here.
fn auto_encoder(format: TextureFormat) -> TextureEncoder {
    match format {
        TextureFormat::Bc7
        | TextureFormat::Bc1
        | TextureFormat::Bc3
        | TextureFormat::Bc4
        | TextureFormat::Bc5 => TextureEncoder::Direct,
        _ => TextureEncoder::Transcode,
    }
}

/// Resolves `format` for a texture of `channels` channels (1, 2 or 4), sRGB or not, with or
/// without alpha below 255. `None` for `uastc` and `rgba8`, which are not block targets here;
/// an error when the format cannot hold the texture (the message names the key to change).
pub fn resolve(
    format: TextureFormat,
    encoder: TextureEncoder,
    channels: usize,
    srgb: bool,
    has_alpha: bool,
) -> Result<Option<BlockTarget>, String> {
    use TranscodeTarget as T;
    if format == TextureFormat::Bcn {
        let by_channels = match channels {
            1 => TextureFormat::Bc4,
            2 => TextureFormat::Bc5,
            _ => TextureFormat::Bc7,
        };
        return resolve(by_channels, encoder, channels, srgb, has_alpha);
    }
    let name = format!("{format:?}").to_ascii_lowercase();
    let linear_only = |what: &str| {
        if srgb {
            Err(format!(
                "texture.format = \"{name}\" has no sRGB variant: {what} (set `srgb = false`, \
                 or use bc7)"
            ))
        } else {
            Ok(())
        }
    };
    let at_most = |most: usize| {
        if channels > most {
            Err(format!(
                "texture.format = \"{name}\" keeps {most} channel(s), but this texture has \
                 {channels} (use a `swizzle`, or a format that keeps them, e.g. bc7)"
            ))
        } else {
            Ok(())
        }
    };
    let pick = |unorm: u32, srgb_format: u32| if srgb { srgb_format } else { unorm };
    // (vkFormat, transcoder target, the direct encoder's format if it has one)
    let (vk_format, transcoded, direct) = match format {
        TextureFormat::Uastc | TextureFormat::Rgba8 => return Ok(None),
        TextureFormat::Bcn => unreachable!("resolved by channels above"),
        TextureFormat::Bc7 => (
            pick(vk::BC7_UNORM_BLOCK, vk::BC7_SRGB_BLOCK),
            T::Bc7,
            Some(DirectFormat::Bc7),
        ),
        TextureFormat::Bc5 => {
            at_most(2)?;
            linear_only("BC5 is for two linear channels (normal maps)")?;
            (vk::BC5_UNORM_BLOCK, T::Bc5, Some(DirectFormat::Bc5))
        }
        TextureFormat::Bc4 => {
            at_most(1)?;
            linear_only("BC4 is one linear channel")?;
            (vk::BC4_UNORM_BLOCK, T::Bc4, Some(DirectFormat::Bc4))
        }
        TextureFormat::Bc1 => {
            if has_alpha {
                return Err(format!(
                    "texture.format = \"{name}\" is opaque, but this texture has alpha below 255 \
                     (use bc3 or bc7)"
                ));
            }
            (
                pick(vk::BC1_RGB_UNORM_BLOCK, vk::BC1_RGB_SRGB_BLOCK),
                T::Bc1,
                Some(DirectFormat::Bc1),
            )
        }
        TextureFormat::Bc3 => (
            pick(vk::BC3_UNORM_BLOCK, vk::BC3_SRGB_BLOCK),
            T::Bc3,
            Some(DirectFormat::Bc3),
        ),
        TextureFormat::Astc4x4 => (
            pick(vk::ASTC_4X4_UNORM_BLOCK, vk::ASTC_4X4_SRGB_BLOCK),
            T::Astc4x4,
            None,
        ),
        TextureFormat::Etc2 => match channels {
            1 => {
                linear_only("one channel is EAC R11, which is linear")?;
                (vk::EAC_R11_UNORM_BLOCK, T::EacR11, None)
            }
            2 => {
                linear_only("two channels are EAC RG11, which is linear")?;
                (vk::EAC_R11G11_UNORM_BLOCK, T::EacRg11, None)
            }
            _ if has_alpha => (
                pick(vk::ETC2_R8G8B8A8_UNORM_BLOCK, vk::ETC2_R8G8B8A8_SRGB_BLOCK),
                T::Etc2Rgba,
                None,
            ),
            _ => (
                pick(vk::ETC2_R8G8B8_UNORM_BLOCK, vk::ETC2_R8G8B8_SRGB_BLOCK),
                T::Etc2Rgb,
                None,
            ),
        },
    };
    let encoder = match (encoder, direct) {
        (TextureEncoder::Auto, _) => match (auto_encoder(format), direct) {
            (TextureEncoder::Direct, Some(direct)) => Encoder::Direct(direct),
            _ => Encoder::Transcode(transcoded),
        },
        (TextureEncoder::Transcode, _) => Encoder::Transcode(transcoded),
        (TextureEncoder::Direct, Some(direct)) => Encoder::Direct(direct),
        (TextureEncoder::Direct, None) => {
            return Err(format!(
                "texture.encoder = \"direct\" cannot make \"{name}\" (Intel's encoder makes \
                 bc1, bc3, bc4, bc5 and bc7): use `transcode` or `auto`"
            ))
        }
    };
    Ok(Some(BlockTarget { vk_format, encoder }))
}

impl BlockTarget {
    /// The transcoder target when the blocks come from UASTC.
    pub fn transcoded(&self) -> Option<TranscodeTarget> {
        match self.encoder {
            Encoder::Transcode(target) => Some(target),
            Encoder::Direct(_) => None,
        }
    }
}

/// Encodes one RGBA8 image (`width * height * 4` bytes) with Intel's ISPC kernels, at the
/// speed `quality` asks for (BC7; the other formats have one setting). The kernels take whole
/// blocks, so a size that is not a multiple of 4 is padded by repeating the last column and
/// row (what a sampler clamping to the edge would read there).
pub fn encode_direct(
    format: DirectFormat,
    quality: TextureQuality,
    has_alpha: bool,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Vec<u8> {
    assert_eq!(
        rgba.len(),
        width as usize * height as usize * 4,
        "RGBA8 size"
    );
    let (padded_width, padded_height) = (width.next_multiple_of(4), height.next_multiple_of(4));
    let padded;
    let rgba = if (padded_width, padded_height) == (width, height) {
        rgba
    } else {
        padded = pad_to_blocks(rgba, width, height, padded_width, padded_height);
        &padded
    };
    // Only the channels BC4 (R) and BC5 (RG) read.
    let channels = |count: usize| -> Vec<u8> {
        rgba.chunks_exact(4)
            .flat_map(|px| px[..count].iter().copied())
            .collect()
    };
    let rgba_surface = intel_tex_2::RgbaSurface {
        data: rgba,
        width: padded_width,
        height: padded_height,
        stride: padded_width * 4,
    };
    match format {
        DirectFormat::Bc1 => intel_tex_2::bc1::compress_blocks(&rgba_surface),
        DirectFormat::Bc3 => intel_tex_2::bc3::compress_blocks(&rgba_surface),
        DirectFormat::Bc4 => {
            let red = channels(1);
            intel_tex_2::bc4::compress_blocks(&intel_tex_2::RSurface {
                data: &red,
                width: padded_width,
                height: padded_height,
                stride: padded_width,
            })
        }
        DirectFormat::Bc5 => {
            let red_green = channels(2);
            intel_tex_2::bc5::compress_blocks(&intel_tex_2::RgSurface {
                data: &red_green,
                width: padded_width,
                height: padded_height,
                stride: padded_width * 2,
            })
        }
        DirectFormat::Bc7 => {
            use intel_tex_2::bc7;
            let settings = match (quality, has_alpha) {
                (TextureQuality::Fastest, false) => bc7::opaque_ultra_fast_settings(),
                (TextureQuality::Faster, false) => bc7::opaque_very_fast_settings(),
                (TextureQuality::Default, false) => bc7::opaque_fast_settings(),
                (TextureQuality::Slower, false) => bc7::opaque_basic_settings(),
                (TextureQuality::Veryslow, false) => bc7::opaque_slow_settings(),
                (TextureQuality::Fastest, true) => bc7::alpha_ultra_fast_settings(),
                (TextureQuality::Faster, true) => bc7::alpha_very_fast_settings(),
                (TextureQuality::Default, true) => bc7::alpha_fast_settings(),
                (TextureQuality::Slower, true) => bc7::alpha_basic_settings(),
                (TextureQuality::Veryslow, true) => bc7::alpha_slow_settings(),
            };
            bc7::compress_blocks(&settings, &rgba_surface)
        }
    }
}

/// `rgba` (`width x height`) grown to `padded_width x padded_height` by repeating its last
/// column and row.
fn pad_to_blocks(
    rgba: &[u8],
    width: u32,
    height: u32,
    padded_width: u32,
    padded_height: u32,
) -> Vec<u8> {
    let (row_bytes, padded_row_bytes) = (width as usize * 4, padded_width as usize * 4);
    let mut out = Vec::with_capacity(padded_row_bytes * padded_height as usize);
    for row in rgba.chunks_exact(row_bytes) {
        out.extend_from_slice(row);
        let last_pixel = &row[row_bytes - 4..];
        for _ in width..padded_width {
            out.extend_from_slice(last_pixel);
        }
    }
    let last_row = out[out.len() - padded_row_bytes..].to_vec();
    for _ in height..padded_height {
        out.extend_from_slice(&last_row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_repeats_the_last_column_and_row() {
        // 2x1 -> 4x4
        let rgba = [1, 1, 1, 1, 2, 2, 2, 2];
        let padded = pad_to_blocks(&rgba, 2, 1, 4, 4);
        assert_eq!(padded.len(), 4 * 4 * 4);
        let row: Vec<u8> = [1, 2, 2, 2].iter().flat_map(|&v| [v; 4]).collect();
        for y in 0..4 {
            assert_eq!(&padded[y * 16..(y + 1) * 16], &row[..]);
        }
    }

    #[test]
    fn formats_that_cannot_hold_the_texture_are_errors_naming_the_key() {
        let e = resolve(TextureFormat::Bc5, TextureEncoder::Auto, 4, false, false).unwrap_err();
        assert!(
            e.contains("texture.format = \"bc5\"") && e.contains("4"),
            "{e}"
        );
        let e = resolve(TextureFormat::Bc4, TextureEncoder::Auto, 1, true, false).unwrap_err();
        assert!(e.contains("sRGB"), "{e}");
        let e = resolve(TextureFormat::Bc1, TextureEncoder::Auto, 4, true, true).unwrap_err();
        assert!(e.contains("alpha"), "{e}");
        let e = resolve(
            TextureFormat::Astc4x4,
            TextureEncoder::Direct,
            4,
            true,
            false,
        )
        .unwrap_err();
        assert!(e.contains("texture.encoder"), "{e}");
    }

    #[test]
    fn bcn_follows_the_channels() {
        let vk_of = |channels, srgb| {
            resolve(
                TextureFormat::Bcn,
                TextureEncoder::Auto,
                channels,
                srgb,
                false,
            )
            .unwrap()
            .unwrap()
            .vk_format
        };
        assert_eq!(vk_of(1, false), vk::BC4_UNORM_BLOCK);
        assert_eq!(vk_of(2, false), vk::BC5_UNORM_BLOCK);
        assert_eq!(vk_of(4, true), vk::BC7_SRGB_BLOCK);
        // One sRGB channel has no BC4 form: an error, not a silent BC7.
        assert!(resolve(TextureFormat::Bcn, TextureEncoder::Auto, 1, true, false).is_err());
    }

    #[test]
    fn etc2_follows_the_channels() {
        let vk_of = |channels, alpha| {
            resolve(
                TextureFormat::Etc2,
                TextureEncoder::Auto,
                channels,
                false,
                alpha,
            )
            .unwrap()
            .unwrap()
            .vk_format
        };
        assert_eq!(vk_of(1, false), vk::EAC_R11_UNORM_BLOCK);
        assert_eq!(vk_of(2, false), vk::EAC_R11G11_UNORM_BLOCK);
        assert_eq!(vk_of(4, false), vk::ETC2_R8G8B8_UNORM_BLOCK);
        assert_eq!(vk_of(4, true), vk::ETC2_R8G8B8A8_UNORM_BLOCK);
    }
}
