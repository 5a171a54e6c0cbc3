//! The texture pipelines' settings: the `texture = { … }` table and its enums.

use crate::bake::settings_decl::{invalid, settings};
use serde::Deserialize;

/// Largest `texture.max_pixels`: the per-side limit squared (16384², 2^28).
pub const MAX_PIXELS_LIMIT: u64 = 1 << 28;

settings! {
    /// Texture settings: the `texture = { … }` table.
    TextureSettings {
        /// `true`: UASTC; `false`: raw pixels + zstd, pixel-exact (`format = "rgba8"`).
        compress: bool = true,
        /// The GPU format written: `uastc` (the default, transcoded on the device), a GPU's own
        /// block format (`bc7`, `bc5`, `bc4`, `bc1`, `bc3`, `astc4x4`, `etc2`; `bcn` picks bc7,
        /// bc5 or bc4 by the texture's channels), or `rgba8` (raw pixels, as `compress = false`).
        format: TextureFormat = TextureFormat::Uastc,
        /// How a GPU block format is made: `auto` (each format's better encoder, see the
        /// README), `transcode` (UASTC, then Basis Universal's transcoder), `direct` (Intel's
        /// ISPC encoders; not for `astc4x4` and `etc2`).
        encoder: TextureEncoder = TextureEncoder::Auto,
        /// UASTC speed/quality level.
        quality: TextureQuality = TextureQuality::Faster,
        /// UASTC RDO quality scalar (0 = off; 0.5..4 trades quality for smaller zstd output).
        rdo: f32 = 0.0,
        /// Generate a full mip chain.
        mips: bool = true,
        /// Downscale (keeping the aspect ratio) so neither side exceeds this; 0 = no limit.
        max_size: u32 = 0,
        /// Override the mode's color space: `true` sRGB, `false` linear.
        srgb: Option<bool> = None,
        /// Channel selection (pak-style): 1-4 of `r g b a 0 1`; its length picks the raw
        /// format (1 R8, 2 RG8, 3-4 RGBA8). Empty: the mode decides.
        swizzle: String = String::new(),
        /// zstd level of the KTX2 supercompression (zstd's range, -131072..=22).
        zstd_level: i32 = 9,
        /// Pixel budget per source image (width x height), checked from the image's header
        /// before it is decoded: 1..=2^28 (the default, 16384²).
        max_pixels: u64 = MAX_PIXELS_LIMIT,
    }
}

impl TextureSettings {
    /// Whether the texture is written as raw pixels (`compress = false` or `format = "rgba8"`).
    pub fn raw(&self) -> bool {
        !self.compress || self.format == TextureFormat::Rgba8
    }

    /// Checks every value's range; the error names the key (`` `rdo` = NaN: … ``).
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rdo == 0.0 || (0.001..=50.0).contains(&self.rdo)) {
            return Err(invalid(
                "rdo",
                self.rdo,
                "must be 0 (off) or a number from 0.001 to 50 (basisu's range)",
            ));
        }
        let zstd = zstd::compression_level_range();
        if !zstd.contains(&self.zstd_level) {
            return Err(invalid(
                "zstd_level",
                self.zstd_level,
                &format!("must be in zstd's range {}..={}", zstd.start(), zstd.end()),
            ));
        }
        let max_side = crate::bake::texture::pixels::MAX_DIMENSION;
        if self.max_size > max_side {
            return Err(invalid(
                "max_size",
                self.max_size,
                &format!("must be 0 (no limit) or at most {max_side}"),
            ));
        }
        if !(1..=MAX_PIXELS_LIMIT).contains(&self.max_pixels) {
            return Err(invalid(
                "max_pixels",
                self.max_pixels,
                &format!("must be 1 to {MAX_PIXELS_LIMIT} (16384²)"),
            ));
        }
        if !self.compress && !matches!(self.format, TextureFormat::Uastc | TextureFormat::Rgba8) {
            return Err(invalid(
                "format",
                self.format,
                "disagrees with `compress = false` (raw pixels): leave one of them out",
            ));
        }
        if self.encoder == TextureEncoder::Direct
            && matches!(self.format, TextureFormat::Astc4x4 | TextureFormat::Etc2)
        {
            return Err(invalid(
                "encoder",
                "direct",
                "has no ASTC or ETC2 encoder: use `transcode` (or `auto`)",
            ));
        }
        if self.swizzle.len() > 4 || self.swizzle.chars().any(|c| !"rgba01".contains(c)) {
            return Err(invalid(
                "swizzle",
                &self.swizzle,
                "use 1 to 4 of r, g, b, a, 0, 1",
            ));
        }
        Ok(())
    }
}

/// The GPU format a texture is baked to (`texture.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureFormat {
    /// UASTC 4x4: one file for every GPU, transcoded at load (feature `transcode`).
    Uastc,
    /// The BC family by channels (a desktop preset's one setting): BC7 for color and RGBA
    /// data, BC5 for two channels (normal maps), BC4 for one (grayscale).
    Bcn,
    /// BC7 (desktop): RGBA, 8 bits per pixel.
    Bc7,
    /// BC5 (desktop): two channels, for normal maps; 8 bits per pixel.
    Bc5,
    /// BC4 (desktop): one channel; 4 bits per pixel.
    Bc4,
    /// BC1 (desktop, legacy): opaque RGB; 4 bits per pixel.
    Bc1,
    /// BC3 (desktop, legacy): RGB + alpha; 8 bits per pixel.
    Bc3,
    /// ASTC 4x4 (mobile, Apple): RGBA, 8 bits per pixel.
    Astc4x4,
    /// ETC2 (OpenGL ES 3, older mobile): RGB(A); one- and two-channel textures as EAC R11 and
    /// RG11.
    Etc2,
    /// Raw 8-bit pixels (R8, RG8 or RGBA8 by the texture's channels), as `compress = false`.
    Rgba8,
}

/// Which encoder makes a GPU block format (`texture.encoder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureEncoder {
    /// Each format's default, chosen by measurement (README, "GPU formats").
    Auto,
    /// Encode UASTC, then transcode it with Basis Universal's transcoder.
    Transcode,
    /// Intel's ISPC texture compressor (BC1, BC3, BC4, BC5, BC7).
    Direct,
}

/// UASTC encoder levels, fastest to slowest (basisu pack levels 0 to 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureQuality {
    /// Level 0: for debug presets.
    Fastest,
    /// Level 1: the default.
    Faster,
    /// Level 2.
    Default,
    /// Level 3.
    Slower,
    /// Level 4: can take minutes per large image.
    Veryslow,
}

impl TextureQuality {
    /// basisu's pack level.
    pub fn level(self) -> u32 {
        self as u32
    }
}
