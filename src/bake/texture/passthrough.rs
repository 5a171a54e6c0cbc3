//! Raw textures whose only level is the source itself: 8-bit samples mapped through tables.
//!
//! An uncompressed texture without mips, resize, swizzle or normal renormalizing turns each
//! sample into its output byte on its own (sRGB to linear light and back, or nothing, then
//! quantized). For the 256 values an 8-bit source decodes to, the tables hold what that float
//! round trip makes of them, computed by the round trip itself, so the bytes are the same;
//! any other sample (16-bit, float) still takes the round trip. A pak-style folder of small
//! sRGB bitmaps spent most of its bake in that round trip.

use super::pixels::{gray8, quantize8, u8f};
use super::{TextureMode, Working};

/// Output bytes for the 8-bit sample values, colour channels and alpha apart (alpha never
/// takes the sRGB curve). `inputs[f]` are the floats of decode flavour `f` (colour samples
/// `v / 255`, gray ones `v * (1 / 255)`), `outputs[f][channel class]` their bytes.
pub(super) struct ByteMap {
    inputs: [[f32; 256]; 2],
    outputs: [[[u8; 256]; 2]; 2],
}

impl ByteMap {
    /// The tables for `working`, where its conversion works channel by channel and level 0
    /// is the source unfiltered (`one_to_one`): no swizzle, not a normal map.
    pub(super) fn new(working: &Working, one_to_one: bool) -> Option<Self> {
        if !one_to_one || working.swizzle.is_some() || working.mode == TextureMode::Normal {
            return None;
        }
        let mut map = Self {
            inputs: [[0.0; 256]; 2],
            outputs: [[[0; 256]; 2]; 2],
        };
        for (flavour, to_f32) in [u8f as fn(u8) -> f32, gray8].into_iter().enumerate() {
            for v in 0..=255u8 {
                let x = to_f32(v);
                let p = working.to_output(working.to_working([x, x, x, x]));
                map.inputs[flavour][v as usize] = x;
                map.outputs[flavour][0][v as usize] = quantize8(p[0]);
                map.outputs[flavour][1][v as usize] = quantize8(p[3]);
            }
        }
        Some(map)
    }

    /// Appends one source row as the raw format's `channels` bytes per pixel, exactly as
    /// [`Working::write_row`] would after the round trip.
    pub(super) fn write_row(&self, working: &Working, row: &[[f32; 4]], out: &mut Vec<u8>) {
        let bytes = working.raw_bytes();
        for px in row {
            for (channel, &x) in px[..bytes].iter().enumerate() {
                let class = usize::from(channel == 3);
                let byte = self
                    .lookup(x, class)
                    .unwrap_or_else(|| quantize8(working.to_output(working.to_working(*px))[channel]));
                out.push(byte);
            }
        }
    }

    /// The byte for sample `x` where it is one of the tables' inputs (bit for bit).
    fn lookup(&self, x: f32, class: usize) -> Option<u8> {
        let k = x * 255.0 + 0.5;
        if !(0.0..256.0).contains(&k) {
            return None;
        }
        let v = k as usize;
        (0..2)
            .find(|&flavour| self.inputs[flavour][v].to_bits() == x.to_bits())
            .map(|flavour| self.outputs[flavour][class][v])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn working(mode: TextureMode, srgb: bool, channels: usize) -> Working {
        Working {
            swizzle: None,
            mode,
            srgb,
            channels,
        }
    }

    /// Every sample an 8-bit or 16-bit source decodes to, in both flavours, gives the bytes
    /// of the float round trip, for each mode and colour space the pass-through serves.
    #[test]
    fn tables_give_the_round_trips_bytes() {
        let cases = [
            (TextureMode::Color, true, 4),
            (TextureMode::Color, false, 4),
            (TextureMode::LinearColor, false, 4),
            (TextureMode::Grayscale, false, 1),
            (TextureMode::Grayscale, true, 1),
        ];
        let mut samples: Vec<f32> = (0..=255u8).flat_map(|v| [u8f(v), gray8(v)]).collect();
        samples.extend((0..=u16::MAX).step_by(7).map(|v| v as f32 / 65535.0));
        for (mode, srgb, channels) in cases {
            let working = working(mode, srgb, channels);
            let map = ByteMap::new(&working, true).expect("a per-channel conversion");
            let row: Vec<[f32; 4]> = samples
                .iter()
                .enumerate()
                .map(|(i, &x)| [x, samples[(i + 1) % samples.len()], x, 1.0 - x])
                .collect();
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            map.write_row(&working, &row, &mut fast);
            let working_row: Vec<[f32; 4]> = row.iter().map(|p| working.to_working(*p)).collect();
            working.write_row(&working_row, false, &mut slow);
            assert_eq!(fast, slow, "{mode:?} srgb {srgb}");
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
