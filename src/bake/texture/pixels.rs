//! Decoded pixels and the operations on them: decoding, resampling, mipmaps, color conversions.

use std::io::Cursor;

/// Largest width or height hearth accepts (the largest texture GPUs commonly sample).
pub const MAX_DIMENSION: u32 = 16384;

/// RGBA pixels as `f32` in `0..=1`, row-major, top row first. Values are as stored in the
/// source: sRGB-encoded for color images (see [`to_linear`] / [`to_srgb`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Pixels {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` pixels.
    pub rgba: Vec<[f32; 4]>,
}

/// What a source image looked like before decoding, for warnings and modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceInfo {
    /// Bits per channel (8 or 16; 32 for float images).
    pub bits: u8,
    /// Channels in the source (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).
    pub channels: u8,
}

impl Pixels {
    /// A `width` x `height` image filled with `value`.
    pub fn filled(width: u32, height: u32, value: [f32; 4]) -> Self {
        Self {
            width,
            height,
            rgba: vec![value; width as usize * height as usize],
        }
    }

    /// Pixels from 8-bit RGBA bytes (`width * height * 4` of them).
    pub fn from_rgba8(width: u32, height: u32, bytes: &[u8]) -> Self {
        assert_eq!(
            bytes.len(),
            width as usize * height as usize * 4,
            "RGBA8 buffer size"
        );
        let rgba = bytes
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]].map(|c| c as f32 / 255.0))
            .collect();
        Self {
            width,
            height,
            rgba,
        }
    }

    /// Decodes a PNG, JPEG or TGA file (any bit depth and channel count the `image` crate
    /// reads). PNG and JPEG are recognized by their header; TGA has none, so `extension`
    /// (the file's, lowercase) selects it.
    pub fn decode(bytes: &[u8], extension: &str) -> Result<(Self, SourceInfo), String> {
        let mut reader = image::ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| format!("cannot read image: {e}"))?;
        if reader.format().is_none() && extension == "tga" {
            reader.set_format(image::ImageFormat::Tga);
        }
        if reader.format().is_none() {
            return Err("not a PNG, JPEG or TGA image (unrecognized header)".into());
        }
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(MAX_DIMENSION);
        limits.max_image_height = Some(MAX_DIMENSION);
        reader.limits(limits);
        let image = reader.decode().map_err(|e| match e {
            image::ImageError::Limits(_) => {
                format!("image larger than {MAX_DIMENSION} pixels on a side")
            }
            e => format!("cannot decode image: {e}"),
        })?;
        let color = image.color();
        let info = SourceInfo {
            bits: (color.bits_per_pixel() / color.channel_count() as u16) as u8,
            channels: color.channel_count(),
        };
        let (width, height) = (image.width(), image.height());
        if width == 0 || height == 0 {
            return Err("image has zero size".into());
        }
        let rgba = image
            .into_rgba32f()
            .into_raw()
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect();
        Ok((
            Self {
                width,
                height,
                rgba,
            },
            info,
        ))
    }

    /// Resamples to `width` x `height` with an area-weighted box filter: each output pixel is
    /// the exact average of the source area it covers (a plain 2x2 average when halving an
    /// even size; odd sizes and arbitrary ratios weigh partial pixels by their overlap).
    pub fn resample(&self, width: u32, height: u32) -> Self {
        let horizontal = resample_axis(
            &self.rgba,
            self.width as usize,
            self.height as usize,
            width as usize,
            true,
        );
        let rgba = resample_axis(
            &horizontal,
            width as usize,
            self.height as usize,
            height as usize,
            false,
        );
        Self {
            width,
            height,
            rgba,
        }
    }

    /// Applies `f` to every pixel.
    pub fn map(&self, f: impl Fn([f32; 4]) -> [f32; 4]) -> Self {
        Self {
            width: self.width,
            height: self.height,
            rgba: self.rgba.iter().map(|p| f(*p)).collect(),
        }
    }

    /// Quantizes to 8 bits per channel (round to nearest), RGBA.
    pub fn to_rgba8(&self) -> Vec<u8> {
        self.rgba.iter().flat_map(|p| p.map(quantize8)).collect()
    }
}

/// Rounds a `0..=1` value to the nearest 8-bit step.
pub fn quantize8(value: f32) -> u8 {
    (value.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// One pass of the separable box filter along x (`horizontal`) or y.
fn resample_axis(
    src: &[[f32; 4]],
    width: usize,
    height: usize,
    out_len: usize,
    horizontal: bool,
) -> Vec<[f32; 4]> {
    let in_len = if horizontal { width } else { height };
    let other = if horizontal { height } else { width };
    let scale = in_len as f64 / out_len as f64;
    // Per output sample: the source indices it covers and their weights (overlap / scale).
    let taps: Vec<Vec<(usize, f32)>> = (0..out_len)
        .map(|o| {
            let (start, end) = (o as f64 * scale, (o + 1) as f64 * scale);
            (start.floor() as usize..(end.ceil() as usize).min(in_len))
                .map(|i| {
                    let overlap = (end.min(i as f64 + 1.0) - start.max(i as f64)).max(0.0);
                    (i, (overlap / scale) as f32)
                })
                .filter(|(_, w)| *w > 0.0)
                .collect()
        })
        .collect();
    let (out_w, out_h) = if horizontal {
        (out_len, height)
    } else {
        (width, out_len)
    };
    let mut out = vec![[0.0f32; 4]; out_w * out_h];
    for line in 0..other {
        for (o, taps) in taps.iter().enumerate() {
            let mut acc = [0.0f32; 4];
            for &(i, w) in taps {
                let p = if horizontal {
                    src[line * width + i]
                } else {
                    src[i * width + line]
                };
                for c in 0..4 {
                    acc[c] += p[c] * w;
                }
            }
            let at = if horizontal {
                line * out_w + o
            } else {
                o * out_w + line
            };
            out[at] = acc;
        }
    }
    out
}

/// sRGB-encoded value to linear light (IEC 61966-2-1).
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light to sRGB encoding.
pub fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// Converts RGB (not alpha) from sRGB encoding to linear light.
pub fn to_linear(p: [f32; 4]) -> [f32; 4] {
    [
        srgb_to_linear(p[0]),
        srgb_to_linear(p[1]),
        srgb_to_linear(p[2]),
        p[3],
    ]
}

/// Converts RGB (not alpha) from linear light to sRGB encoding.
pub fn to_srgb(p: [f32; 4]) -> [f32; 4] {
    [
        linear_to_srgb(p[0]),
        linear_to_srgb(p[1]),
        linear_to_srgb(p[2]),
        p[3],
    ]
}

/// The size of level `level` of a mip chain starting at `size` (never below 1).
pub fn mip_size(size: u32, level: u32) -> u32 {
    (size >> level).max(1)
}

/// Number of levels of a full mip chain down to 1x1.
pub fn full_mip_count(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_even_sizes_is_a_2x2_average() {
        let mut p = Pixels::filled(4, 2, [0.0; 4]);
        for (i, px) in p.rgba.iter_mut().enumerate() {
            *px = [i as f32; 4];
        }
        let half = p.resample(2, 1);
        // (0 + 1 + 4 + 5) / 4 and (2 + 3 + 6 + 7) / 4
        assert_eq!(half.rgba, vec![[2.5; 4], [4.5; 4]]);
    }

    #[test]
    fn odd_sizes_weigh_every_source_pixel_equally_overall() {
        let mut p = Pixels::filled(3, 1, [0.0; 4]);
        p.rgba = vec![[0.0; 4], [3.0; 4], [6.0; 4]];
        assert_eq!(p.resample(1, 1).rgba, vec![[3.0; 4]]);
        let two = p.resample(2, 1);
        let mean = (two.rgba[0][0] + two.rgba[1][0]) / 2.0;
        assert!((mean - 3.0).abs() < 1e-5, "mean preserved: {two:?}");
    }

    #[test]
    fn srgb_round_trips_and_mip_counts() {
        for i in 0..=255 {
            let c = i as f32 / 255.0;
            assert_eq!(quantize8(linear_to_srgb(srgb_to_linear(c))), i as u8);
        }
        assert_eq!(full_mip_count(1, 1), 1);
        assert_eq!(full_mip_count(256, 64), 9);
        assert_eq!(full_mip_count(5, 3), 3);
        assert_eq!(mip_size(5, 2), 1);
    }

    #[test]
    fn decode_errors_are_clear() {
        assert!(Pixels::decode(b"not an image at all", "png")
            .unwrap_err()
            .contains("not a PNG"));
        let mut png = Vec::new();
        image::RgbaImage::from_pixel(4, 4, image::Rgba([1, 2, 3, 4]))
            .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let (p, info) = Pixels::decode(&png, "png").unwrap();
        assert_eq!(
            (p.width, p.height, info),
            (
                4,
                4,
                SourceInfo {
                    bits: 8,
                    channels: 4
                }
            )
        );
        assert_eq!(p.to_rgba8()[..4], [1, 2, 3, 4]);
        let err = Pixels::decode(&png[..png.len() / 2], "png").unwrap_err();
        assert!(err.contains("cannot decode"), "{err}");
    }
}
