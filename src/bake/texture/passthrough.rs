//! Raw textures whose only level is the source itself: 8-bit samples mapped through tables.
//!
//! An uncompressed texture without mips, resize, swizzle or normal renormalizing turns each
//! sample into its output byte on its own (sRGB to linear light and back, or nothing, then
//! quantized). For the 256 values an 8-bit source decodes to, the tables hold what that float
//! round trip makes of them, computed by the round trip itself, so the bytes are the same;
//! any other sample (16-bit, float) still takes the round trip. A pak-style folder of small
//! sRGB bitmaps spent most of its bake in that round trip.

use super::pixels::{gray8, quantize8, u8f, PixelSource};
use super::{TextureMode, Working};

/// The decode flavours of 8-bit samples: colour samples are `v / 255`, gray ones (and their
/// alpha) `v * (1 / 255)`, which can differ in the last bit.
const COLOUR: usize = 0;
const GRAY: usize = 1;

/// Output bytes for the 8-bit sample values, colour channels and alpha apart (alpha never
/// takes the sRGB curve). `inputs[f]` are the floats of decode flavour `f`,
/// `colour[f]` / `alpha[f]` their bytes; `opaque` is the byte of a missing alpha (1.0).
pub(super) struct ByteMap {
    inputs: [[f32; 256]; 2],
    colour: [[u8; 256]; 2],
    alpha: [[u8; 256]; 2],
    opaque: u8,
    /// Output bytes per pixel: 1 (R) or 4 (RGBA; 2 channels only come with a swizzle).
    bytes: usize,
}

impl ByteMap {
    /// The tables for `working`, where its conversion works channel by channel and level 0
    /// is the source unfiltered (`one_to_one`): no swizzle, not a normal map.
    pub(super) fn new(working: &Working, one_to_one: bool) -> Option<Self> {
        if !one_to_one || working.swizzle.is_some() || working.mode == TextureMode::Normal {
            return None;
        }
        let round_trip = |x: f32| working.to_output(working.to_working([x, x, x, x]));
        let mut map = Self {
            inputs: [[0.0; 256]; 2],
            colour: [[0; 256]; 2],
            alpha: [[0; 256]; 2],
            opaque: quantize8(round_trip(1.0)[3]),
            bytes: working.raw_bytes(),
        };
        for (flavour, to_f32) in [(COLOUR, u8f as fn(u8) -> f32), (GRAY, gray8)] {
            for v in 0..=255u8 {
                let x = to_f32(v);
                let p = round_trip(x);
                map.inputs[flavour][v as usize] = x;
                map.colour[flavour][v as usize] = quantize8(p[0]);
                map.alpha[flavour][v as usize] = quantize8(p[3]);
            }
        }
        Some(map)
    }

    /// Appends source row `y` as the raw format's bytes: from the source's 8-bit samples
    /// where it has them, else from its `f32` row (`row`, `samples`: reused buffers).
    pub(super) fn write_source_row<P: PixelSource>(
        &self,
        (image, y): (&P, u32),
        working: &Working,
        (row, samples): (&mut [[f32; 4]], &mut Vec<u8>),
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        match image.read_row_u8(y, samples) {
            Some(channels) => {
                self.write_samples(samples, channels?, out);
                Ok(())
            }
            None => {
                image.read_row(y, row)?;
                self.write_row(working, row, out);
                Ok(())
            }
        }
    }

    /// Appends 8-bit samples, `channels` a pixel, as [`read_row`](PixelSource::read_row)'s
    /// floats of them would come out of the round trip.
    fn write_samples(&self, samples: &[u8], channels: usize, out: &mut Vec<u8>) {
        let flavour = match channels {
            1 | 2 => GRAY,
            _ => COLOUR,
        };
        let (colour, alpha) = (&self.colour[flavour], &self.alpha[flavour]);
        out.reserve(samples.len() / channels.max(1) * self.bytes);
        let pixels = samples.chunks_exact(channels.clamp(1, 4));
        if self.bytes == 1 {
            out.extend(pixels.map(|px| colour[px[0] as usize]));
            return;
        }
        for px in pixels {
            let c = |i: usize| colour[px[i] as usize];
            // A fixed-size copy: a length known only at run time was a `memcpy` call per pixel.
            out.extend_from_slice(&match px.len() {
                1 => [c(0), c(0), c(0), self.opaque],
                2 => [c(0), c(0), c(0), alpha[px[1] as usize]],
                3 => [c(0), c(1), c(2), self.opaque],
                _ => [c(0), c(1), c(2), alpha[px[3] as usize]],
            });
        }
    }

    /// Appends one `f32` source row as the raw format's bytes, exactly as
    /// [`Working::write_row`] would after the round trip.
    fn write_row(&self, working: &Working, row: &[[f32; 4]], out: &mut Vec<u8>) {
        for px in row {
            for (channel, &x) in px[..self.bytes].iter().enumerate() {
                let byte = self.lookup(x, channel == 3).unwrap_or_else(|| {
                    quantize8(working.to_output(working.to_working(*px))[channel])
                });
                out.push(byte);
            }
        }
    }

    /// The byte for sample `x` where it is one of the tables' inputs (bit for bit).
    fn lookup(&self, x: f32, is_alpha: bool) -> Option<u8> {
        let k = x * 255.0 + 0.5;
        if !(0.0..256.0).contains(&k) {
            return None;
        }
        let v = k as usize;
        [COLOUR, GRAY]
            .into_iter()
            .find(|&flavour| self.inputs[flavour][v].to_bits() == x.to_bits())
            .map(|flavour| match is_alpha {
                true => self.alpha[flavour][v],
                false => self.colour[flavour][v],
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::ImageEncoder;

    fn working(mode: TextureMode, srgb: bool, channels: usize) -> Working {
        Working {
            swizzle: None,
            mode,
            srgb,
            channels,
        }
    }

    /// The round trip's bytes of a row, as the filtering path makes them.
    fn round_trip(working: &Working, row: &[[f32; 4]]) -> Vec<u8> {
        let working_row: Vec<[f32; 4]> = row.iter().map(|p| working.to_working(*p)).collect();
        let mut out = Vec::new();
        working.write_row(&working_row, false, &mut out);
        out
    }

    const CASES: [(TextureMode, bool, usize); 5] = [
        (TextureMode::Color, true, 4),
        (TextureMode::Color, false, 4),
        (TextureMode::LinearColor, false, 4),
        (TextureMode::Grayscale, false, 1),
        (TextureMode::Grayscale, true, 1),
    ];

    /// Every sample an 8-bit or 16-bit source decodes to, in both flavours, gives the bytes
    /// of the float round trip, for each mode and colour space the pass-through serves.
    #[test]
    fn float_rows_give_the_round_trips_bytes() {
        let mut samples: Vec<f32> = (0..=255u8).flat_map(|v| [u8f(v), gray8(v)]).collect();
        samples.extend((0..=u16::MAX).step_by(7).map(|v| v as f32 / 65535.0));
        let row: Vec<[f32; 4]> = samples
            .iter()
            .enumerate()
            .map(|(i, &x)| [x, samples[(i + 1) % samples.len()], x, 1.0 - x])
            .collect();
        for (mode, srgb, channels) in CASES {
            let working = working(mode, srgb, channels);
            let map = ByteMap::new(&working, true).expect("a per-channel conversion");
            let mut fast = Vec::new();
            map.write_row(&working, &row, &mut fast);
            assert_eq!(fast, round_trip(&working, &row), "{mode:?} srgb {srgb}");
        }
    }

    /// Decoded 8-bit images of each channel count, streamed PNG rows and whole images: their
    /// 8-bit samples are what `read_row` gives as floats, and map to the round trip's bytes.
    #[test]
    fn eight_bit_samples_give_the_round_trips_bytes() {
        use super::super::pixels::DecodedImage;
        use image::ColorType;
        let (w, h) = (256u32, 3u32);
        for (colour, channels) in [
            (ColorType::L8, 1),
            (ColorType::La8, 2),
            (ColorType::Rgb8, 3),
            (ColorType::Rgba8, 4),
        ] {
            let raw: Vec<u8> = (0..w * h * channels)
                .map(|i| (i * 7 + i / 251) as u8)
                .collect();
            let mut png = Vec::new();
            image::codecs::png::PngEncoder::new(&mut png)
                .write_image(&raw, w, h, colour.into())
                .expect("encodes");
            for stream in [true, false] {
                let image = DecodedImage::decode_with(&png, "png", 1 << 20, stream).unwrap();
                assert_eq!(image.is_row_streamed(), stream);
                for (mode, srgb, out_channels) in CASES {
                    let working = working(mode, srgb, out_channels);
                    let map = ByteMap::new(&working, true).unwrap();
                    let mut row = vec![[0.0; 4]; w as usize];
                    let (mut samples, mut fast) = (Vec::new(), Vec::new());
                    for y in 0..h {
                        map.write_source_row(
                            (&image, y),
                            &working,
                            (&mut row, &mut samples),
                            &mut fast,
                        )
                        .unwrap();
                        assert_eq!(samples.len(), (w * channels) as usize);
                    }
                    let mut slow = Vec::new();
                    for y in 0..h {
                        image.read_row(y, &mut row).unwrap();
                        slow.extend(round_trip(&working, &row));
                    }
                    assert_eq!(
                        fast, slow,
                        "{colour:?} streamed {stream} {mode:?} srgb {srgb}"
                    );
                }
            }
        }
    }

    #[test]
    fn normal_maps_swizzles_and_resized_levels_take_the_round_trip() {
        assert!(ByteMap::new(&working(TextureMode::Normal, false, 2), true).is_none());
        assert!(ByteMap::new(&working(TextureMode::Color, true, 4), false).is_none());
        let mut swizzled = working(TextureMode::Color, true, 4);
        swizzled.swizzle = Some(Vec::new());
        assert!(ByteMap::new(&swizzled, true).is_none());
    }
}
