//! Direct UASTC to RGBA8 decoding, byte for byte what Basis Universal's transcoder gives (its
//! UASTC to RGBA32 unpacking, linear, not sRGB): each texel's channels interpolated between its
//! subset's endpoints by its weight, as ASTC decoders do.

use super::uastc::{self, Coded, SOLID_MODE};

/// Decodes one UASTC block to its 16 texels, row by row, as RGBA8; `None` where basisu's
/// transcoder rejects the block (the reserved mode code, or a partition pattern index past the
/// mode's table).
pub(crate) fn uastc_to_rgba8(block: &[u8; 16]) -> Option<[[u8; 4]; 16]> {
    let bits = u128::from_le_bytes(*block);
    // Each arm unpacks its own mode, so that the layout is a constant there.
    let texels = |mode| uastc::unpack_coded(mode, bits).map(|coded| texels(&coded));
    match uastc::mode_of(block) {
        0 => texels(0),
        1 => texels(1),
        2 => texels(2),
        3 => texels(3),
        4 => texels(4),
        5 => texels(5),
        6 => texels(6),
        7 => texels(7),
        SOLID_MODE => Some([uastc::solid_colour(bits); 16]),
        9 => texels(9),
        10 => texels(10),
        11 => texels(11),
        12 => texels(12),
        13 => texels(13),
        14 => texels(14),
        15 => texels(15),
        16 => texels(16),
        17 => texels(17),
        18 => texels(18),
        _ => None,
    }
}

/// ASTC's weight unquantization for weights of 1 to 5 plain bits (ASTC specification,
/// "Weight Unquantization"): the bits replicated to 6, then 1 added above 32, giving 0 to 64.
const WEIGHTS: [[u8; 32]; 6] = {
    let mut out = [[0u8; 32]; 6];
    let mut bits = 1;
    while bits <= 5 {
        let mut value = 0;
        while value < 1 << bits {
            let (mut six, mut filled) = (0, 0);
            while filled < 6 {
                six |= (value << 6 >> filled) >> bits;
                filled += bits;
            }
            let six = six & 63;
            out[bits][value] = (six + (six > 32) as usize) as u8;
            value += 1;
        }
        bits += 1;
    }
    out
};

/// A colour's four channels in the 16-bit lanes of a `u64`, red lowest.
#[inline(always)]
fn lanes(rgba: [u8; 4]) -> u64 {
    u64::from_le_bytes([rgba[0], 0, rgba[1], 0, rgba[2], 0, rgba[3], 0])
}

/// Ones in the lowest bit of each 16-bit lane.
const LANE_ONES: u64 = 0x0001_0001_0001_0001;

/// ASTC's interpolation of 8-bit endpoints by a weight of 0 to 64, for the four channels of
/// `low` and `high` (see [`lanes`]) at once: each endpoint widened to 16 bits by repeating it,
/// `(low * (64 - weight) + high * weight + 32) >> 6`, the top 8 bits of that kept.
#[inline(always)]
fn interpolate_lanes(low: u64, high: u64, weight: u64) -> [u8; 4] {
    // Each lane's low * (64 - w) + high * w is at most 255 * 64, within its 16 bits. ASTC's
    // (257 t + 32) >> 14 is then, with t = 64 q + r: q, plus 1 where 256 r + t + 32 reaches
    // 2^14 (that sum stays below 2^15, so no lane carries into the next).
    let t = low * (64 - weight) + high * weight;
    let quotient = (t >> 6) & (0xFF * LANE_ONES);
    let remainder = t & (0x3F * LANE_ONES);
    let round_up = (((remainder << 8) + t + 32 * LANE_ONES) >> 14) & LANE_ONES;
    let bytes = quotient + round_up;
    let bytes = (bytes | bytes >> 8) & 0x0000_FFFF_0000_FFFF;
    ((bytes | bytes >> 16) as u32).to_le_bytes()
}

/// The texels of a block with endpoints and weights: in a dual-plane mode, the second plane's
/// channel by the second weight, the others by the first.
#[inline(always)]
fn texels(coded: &Coded) -> [[u8; 4]; 16] {
    let layout = coded.layout;
    let bits = layout.weight_bits;
    let levels = 1usize << bits;
    let weights = &WEIGHTS[bits as usize % 6];
    // (Four subsets' room, so that any 2-bit subset index is in range.)
    let mut endpoints = [(0u64, 0u64); 4];
    for (subset, lanes_pair) in endpoints.iter_mut().enumerate().take(layout.subsets) {
        let (low, high) = coded.rgba_endpoints(subset);
        *lanes_pair = (lanes(low), lanes(high));
    }
    let subset_of = |texel: u32| match layout.subsets {
        1 => 0,
        _ => (coded.partition.subsets >> (2 * texel)) as usize & 3,
    };
    let ccs = coded.ccs as usize & 3;
    let mut out = [[0u8; 4]; 16];
    if layout.subsets * levels > 16 {
        // More colours than texels: interpolate each texel's.
        for (texel, rgba) in (0..16).zip(&mut out) {
            let (low, high) = endpoints[subset_of(texel)];
            let weight = |plane| weights[coded.weight(texel, plane) as usize & 31] as u64;
            *rgba = interpolate_lanes(low, high, weight(0));
            if layout.planes == 2 {
                rgba[ccs] = interpolate_lanes(low, high, weight(1))[ccs];
            }
        }
        return out;
    }
    // Each subset's colour at each weight, then a look-up a texel.
    let mut palette = [[[0u8; 4]; 16]; 4];
    for (colours, &(low, high)) in palette.iter_mut().zip(&endpoints).take(layout.subsets) {
        for (colour, &weight) in colours.iter_mut().zip(weights).take(levels) {
            *colour = interpolate_lanes(low, high, weight as u64);
        }
    }
    for (texel, rgba) in (0..16).zip(&mut out) {
        let colours = &palette[subset_of(texel)];
        *rgba = colours[coded.weight(texel, 0) as usize & 15];
        if layout.planes == 2 {
            rgba[ccs] = colours[coded.weight(texel, 1) as usize & 15][ccs];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::transcode::reference as basisu;
    use crate::read::transcode::TranscodeTarget;

    /// `uastc_to_rgba8`'s output for `block`, as bytes.
    fn ours(block: &[u8; 16]) -> Option<Vec<u8>> {
        uastc_to_rgba8(block).map(|texels| texels.concat())
    }

    #[test]
    fn random_blocks_of_every_mode_decode_as_basisu_does() {
        basisu::assert_every_mode_matches(ours, TranscodeTarget::Rgba8, 0x48);
    }

    #[test]
    fn every_first_byte_decodes_as_basisu_does() {
        basisu::assert_every_first_byte_matches(ours, TranscodeTarget::Rgba8);
    }

    #[cfg(feature = "bake")]
    #[test]
    fn encoded_pictures_decode_as_basisu_does() {
        basisu::assert_encoded_blocks_match(ours, TranscodeTarget::Rgba8);
    }

    /// ASTC's interpolation of 8-bit endpoints `low` and `high` by `weight` (0 to 64), with the
    /// endpoints widened to 16 bits by repeating them and the result's top 8 bits kept.
    fn interpolate(low: u8, high: u8, weight: u32) -> u8 {
        let (low, high) = (low as u32 * 257, high as u32 * 257);
        ((low * (64 - weight) + high * weight + 32) >> 14) as u8
    }

    #[test]
    fn all_four_lanes_interpolate_as_one_channel_does() {
        for low in 0..=255u8 {
            for high in 0..=255u8 {
                let four = [[low, high], [high, low], [!low, high], [low, !high]];
                let (l, h) = (four.map(|c| c[0]), four.map(|c| c[1]));
                for weight in 0..=64 {
                    let expected = [0, 1, 2, 3].map(|c| interpolate(l[c], h[c], weight));
                    let lanes = interpolate_lanes(lanes(l), lanes(h), weight as u64);
                    assert_eq!(lanes, expected, "{low} {high} {weight}");
                }
            }
        }
    }

    #[test]
    fn weights_are_astc_s() {
        // The ASTC specification's tables for 2, 3 and 4 bits.
        assert_eq!(WEIGHTS[1][..2], [0, 64]);
        assert_eq!(WEIGHTS[2][..4], [0, 21, 43, 64]);
        assert_eq!(WEIGHTS[3][..8], [0, 9, 18, 27, 37, 46, 55, 64]);
        let four = [0, 4, 8, 12, 17, 21, 25, 29, 35, 39, 43, 47, 52, 56, 60, 64];
        assert_eq!(WEIGHTS[4][..16], four);
        assert_eq!(WEIGHTS[5][15..18], [30, 34, 36]);
    }

    /// Not a check: `cargo test --release ... rgba8::tests::speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn speed() {
        basisu::print_speed("RGBA8", uastc_to_rgba8, TranscodeTarget::Rgba8);
    }
}
