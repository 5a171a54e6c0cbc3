//! Direct UASTC to ASTC 4x4 transcoding, bit for bit what Basis Universal's transcoder writes.
//! UASTC was designed as a subset of ASTC 4x4: each mode but the solid-colour one is an ASTC
//! block with a 4x4 weight grid of plain-bit weights, one or two planes, one colour endpoint
//! mode for all its partitions (LA, RGB or RGBA direct) and, where partitioned, an ASTC
//! partition. The conversion is a repacking with no search:
//!
//! - the block mode (weight range, planes), partition count, the ASTC partition seed that gives
//!   the UASTC pattern, and the colour endpoint mode;
//! - the endpoints' quantized values as ASTC's integer sequence (trit or quint groups
//!   interleaved with each value's low bits) right after;
//! - the weights from the block's top bit down, bit-reversed, the dual-plane channel below them.
//!
//! As basisu does, an RGB or RGBA subset whose high endpoint has a smaller R + G + B than its low
//! one is stored swapped, its weights inverted: ASTC would decode it with blue contraction.
//! Solid-colour blocks (mode 8) become void-extent blocks holding the colour as UNORM16.

use super::uastc::{self, ModeLayout, SOLID_MODE};

/// Transcodes one UASTC block to ASTC 4x4; `None` where basisu's transcoder rejects the block
/// (the reserved mode code, or a partition pattern index past the mode's table).
pub(crate) fn uastc_to_astc(block: &[u8; 16]) -> Option<[u8; 16]> {
    let bits = u128::from_le_bytes(*block);
    // Each arm repacks its own mode, so that the layout is a constant there.
    let astc = match uastc::mode_of(block) {
        0 => repack(0, bits),
        1 => repack(1, bits),
        2 => repack(2, bits),
        3 => repack(3, bits),
        4 => repack(4, bits),
        5 => repack(5, bits),
        6 => repack(6, bits),
        7 => repack(7, bits),
        SOLID_MODE => Some(void_extent(uastc::solid_colour(bits))),
        9 => repack(9, bits),
        10 => repack(10, bits),
        11 => repack(11, bits),
        12 => repack(12, bits),
        13 => repack(13, bits),
        14 => repack(14, bits),
        15 => repack(15, bits),
        16 => repack(16, bits),
        17 => repack(17, bits),
        18 => repack(18, bits),
        _ => None,
    }?;
    Some(astc.to_le_bytes())
}

/// The ASTC block of a UASTC block of `mode` (not the solid-colour mode) whose bits are `bits`;
/// `None` where its pattern index is past the mode's table.
#[inline(always)]
fn repack(mode: u8, bits: u128) -> Option<u128> {
    let coded = uastc::unpack_coded(mode, bits)?;
    let layout = coded.layout;
    let (weight_bits, planes) = (layout.weight_bits, layout.planes);
    let weights_len = 16 * planes * weight_bits;
    let weights_mask = (1u128 << weights_len) - 1;
    let mut weights = coded.weights & weights_mask;
    let mut values = coded.values;
    if layout.comps >= 3 {
        let subsets = values.iter_mut().zip(&coded.endpoints);
        for (subset, (values, endpoints)) in subsets.enumerate().take(layout.subsets) {
            let low: u32 = endpoints.iter().step_by(2).take(3).map(|&e| e as u32).sum();
            let high: u32 = endpoints
                .iter()
                .skip(1)
                .step_by(2)
                .take(3)
                .map(|&e| e as u32)
                .sum();
            // Without branches (the swap is as likely as not): all ones where swapped.
            let swap = ((high < low) as u64).wrapping_neg();
            let row = u64::from_le_bytes(*values);
            let pairs_swapped =
                (row & 0x00FF_00FF_00FF_00FF) << 8 | (row >> 8) & 0x00FF_00FF_00FF_00FF;
            *values = (row ^ ((row ^ pairs_swapped) & swap)).to_le_bytes();
            let fields = match layout.subsets {
                1 => weights_mask,
                _ => texel_fields(coded.partition.masks[subset], weight_bits * planes),
            };
            weights ^= fields & (swap as u128 | (swap as u128) << 64);
        }
    }
    // ASTC's direct colour endpoint modes: 4 luminance-alpha, 8 RGB, 12 RGBA.
    let cem = match layout.comps {
        2 => 4,
        3 => 8,
        _ => 12,
    };
    let mut astc = block_mode(weight_bits, planes) | ((layout.subsets as u128 - 1) << 11);
    let endpoints_at = match layout.subsets {
        1 => {
            astc |= cem << 13;
            17
        }
        _ => {
            // The seed, then the endpoint mode's 2-bit selector (0: the same for all
            // partitions) and the mode.
            let seeds: &[u16] = match mode {
                3 => &THREE_SUBSET_SEEDS,
                7 => &MODE_7_SEEDS,
                _ => &TWO_SUBSET_SEEDS,
            };
            astc |= (*seeds.get(coded.pattern)? as u128) << 13 | cem << 25;
            29
        }
    };
    astc |= pack_endpoints(&values, layout, endpoints_at);
    if planes == 2 {
        astc |= (coded.ccs as u128 & 3) << (126 - weights_len);
    }
    Some(astc | weights.reverse_bits())
}

/// ASTC's 11-bit block mode for a 4x4 weight grid of `weight_bits`-bit weights (1 to 5) in
/// `planes` planes (ASTC specification, "Block Mode"; the layout whose bits 2 and 3 are 0,
/// grid width B + 4 and height A + 2): D (dual plane) in bit 10, the weight range's precision
/// bit H in bit 9, B = 0 in bits 7-8, A = 2 in bits 5-6, the range's R0 in bit 4 and R2 R1 in
/// bits 0-1.
const fn block_mode(weight_bits: u32, planes: u32) -> u128 {
    // (H, R): the ranges of 2, 4, 8, 16 and 32 levels.
    let (h, r) = match weight_bits {
        1 => (0, 0b010),
        2 => (0, 0b100),
        3 => (0, 0b111),
        4 => (1, 0b100),
        _ => (1, 0b111),
    };
    ((planes - 1) << 10 | h << 9 | 2 << 5 | (r & 1) << 4 | r >> 1) as u128
}

/// Fields of `width` bits, all ones, at each texel of `texels` (bit i: texel i).
#[inline(always)]
fn texel_fields(texels: u16, width: u32) -> u128 {
    let [low, high] = texels.to_le_bytes().map(usize::from);
    // The widths of the partitioned modes' weights, by table; any other by texel.
    let table = match width {
        2 => &FIELDS_2,
        3 => &FIELDS_3,
        _ => {
            let ones = (1u128 << width) - 1;
            let (mut fields, mut texels) = (0, texels);
            while texels != 0 {
                fields |= ones << (texels.trailing_zeros() * width);
                texels &= texels - 1;
            }
            return fields;
        }
    };
    table[low] as u128 | (table[high] as u128) << (8 * width)
}

/// For each 8-texel mask, fields of 2 (or 3) bits, all ones, at its texels.
static FIELDS_2: [u32; 256] = fields_of_bytes(2);
static FIELDS_3: [u32; 256] = fields_of_bytes(3);

const fn fields_of_bytes(width: u32) -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut texel = 0;
        while texel < 8 {
            if byte >> texel & 1 == 1 {
                table[byte] |= ((1 << width) - 1) << (texel * width);
            }
            texel += 1;
        }
        byte += 1;
    }
    table
}

/// `value` at bit `pos` of a block (nothing where `pos` is past the block).
fn put(value: u64, pos: u32) -> u128 {
    (value as u128).checked_shl(pos).unwrap_or(0)
}

/// The endpoints' quantized values (subset by subset, `layout.comps` low-high pairs each) as
/// ASTC's integer sequence, from bit `pos`. Each trit or quint group is written whole, the
/// values past the last one 0 (whose encoding is 0 in the bits ASTC leaves out, as basisu does).
#[inline(always)]
fn pack_endpoints(values: &[[u8; 8]; 4], layout: &ModeLayout, mut pos: u32) -> u128 {
    let per_subset = layout.comps * 2;
    let count = per_subset * layout.subsets;
    // In one sequence, with room for whole groups after the last value (at most 3 x 8).
    let mut flat = [0u8; 25];
    for (subset, row) in values.iter().enumerate().take(layout.subsets) {
        for (i, &value) in row.iter().enumerate().take(per_subset) {
            flat[subset * per_subset + i] = value;
        }
    }
    let n = layout.range.bits;
    let mut packed = 0;
    match layout.range.base {
        3 => {
            for group in flat.chunks_exact(5).take(count.div_ceil(5)) {
                packed |= put(trit_group(group, n), pos);
                pos += 5 * n + 8;
            }
        }
        5 => {
            for group in flat.chunks_exact(3).take(count.div_ceil(3)) {
                packed |= put(quint_group(group, n), pos);
                pos += 3 * n + 7;
            }
        }
        _ => {
            for &value in flat.iter().take(count) {
                packed |= put(value as u64, pos);
                pos += n;
            }
        }
    }
    packed
}

/// Five values of a trit range with `n` low bits as ASTC stores them: the trits' 8-bit code T
/// interleaved with the low bits m as m0 T1:0 m1 T3:2 m2 T4 m3 T6:5 m4 T7 (low bits first).
#[inline(always)]
fn trit_group(group: &[u8], n: u32) -> u64 {
    let low = |i: usize| (group[i] as u64) & ((1 << n) - 1);
    let trits = group
        .iter()
        .take(5)
        .rev()
        .fold(0, |acc, &v| acc * 3 + (v >> n) as usize);
    let t = TRIT_CODES[trits & 0xFF] as u64;
    low(0)
        | (t & 3) << n
        | low(1) << (n + 2)
        | (t >> 2 & 3) << (2 * n + 2)
        | low(2) << (2 * n + 4)
        | (t >> 4 & 1) << (3 * n + 4)
        | low(3) << (3 * n + 5)
        | (t >> 5 & 3) << (4 * n + 5)
        | low(4) << (4 * n + 7)
        | (t >> 7) << (5 * n + 7)
}

/// Three values of a quint range with `n` low bits as ASTC stores them: the quints' 7-bit code
/// Q interleaved with the low bits m as m0 Q2:0 m1 Q4:3 m2 Q6:5.
#[inline(always)]
fn quint_group(group: &[u8], n: u32) -> u64 {
    let low = |i: usize| (group[i] as u64) & ((1 << n) - 1);
    let quints = group
        .iter()
        .take(3)
        .rev()
        .fold(0, |acc, &v| acc * 5 + (v >> n) as usize);
    let q = QUINT_CODES[quints & 0x7F] as u64;
    low(0)
        | (q & 7) << n
        | low(1) << (n + 3)
        | (q >> 3 & 3) << (2 * n + 3)
        | low(2) << (2 * n + 5)
        | (q >> 5) << (3 * n + 5)
}

/// The 8-bit ASTC code of five trits, by their value t0 + 3 t1 + 9 t2 + 27 t3 + 81 t4: the
/// inverse of the ASTC specification's trit decoding ("Integer Sequence Encoding"). 13 values
/// have two codes; basisu writes the lower one.
static TRIT_CODES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut code = 256;
    while code > 0 {
        code -= 1;
        table[decode_trits(code)] = code as u8;
    }
    table
};

/// The 7-bit ASTC code of three quints, by their value q0 + 5 q1 + 25 q2 (the inverse of the
/// specification's quint decoding). Only (4, 4, 4) has several codes; basisu writes the highest.
static QUINT_CODES: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut code = 0;
    while code < 128 {
        table[decode_quints(code)] = code as u8;
        code += 1;
    }
    table
};

/// Bit `i` of `x`.
const fn bit(x: usize, i: u32) -> usize {
    (x >> i) & 1
}

/// The five trits' value (t0 + 3 t1 + ...) that the 8-bit code `t` decodes to (ASTC
/// specification, "Integer Sequence Encoding", trit decoding).
const fn decode_trits(t: usize) -> usize {
    let (c, t3, t4) = if (t >> 2) & 7 == 7 {
        ((t >> 5 & 7) << 2 | (t & 3), 2, 2)
    } else if (t >> 5) & 3 == 3 {
        (t & 31, bit(t, 7), 2)
    } else {
        (t & 31, t >> 5 & 3, bit(t, 7))
    };
    let (t0, t1, t2) = if c & 3 == 3 {
        (bit(c, 3) << 1 | (bit(c, 2) & !bit(c, 3) & 1), bit(c, 4), 2)
    } else if (c >> 2) & 3 == 3 {
        (c & 3, 2, 2)
    } else {
        (
            bit(c, 1) << 1 | (bit(c, 0) & !bit(c, 1) & 1),
            c >> 2 & 3,
            bit(c, 4),
        )
    };
    t0 + 3 * t1 + 9 * t2 + 27 * t3 + 81 * t4
}

/// The three quints' value (q0 + 5 q1 + 25 q2) that the 7-bit code `q` decodes to (ASTC
/// specification, quint decoding).
const fn decode_quints(q: usize) -> usize {
    if (q >> 1) & 3 == 3 && (q >> 5) & 3 == 0 {
        let not_q0 = !q & 1;
        let q2 = bit(q, 0) << 2 | (bit(q, 4) & not_q0) << 1 | (bit(q, 3) & not_q0);
        return 4 + 5 * 4 + 25 * q2;
    }
    let (c, q2) = if (q >> 1) & 3 == 3 {
        ((q >> 3 & 3) << 3 | (!(q >> 5) & 3) << 1 | bit(q, 0), 4)
    } else {
        (q & 31, q >> 5 & 3)
    };
    let (q0, q1) = if c & 7 == 5 {
        (c >> 3 & 3, 4)
    } else {
        (c & 7, c >> 3 & 3)
    };
    q0 + 5 * q1 + 25 * q2
}

/// The ASTC partition seed (10-bit partition index, 2 partitions) whose 4x4 pattern is each of
/// UASTC's 30 two-subset patterns (modes 2, 4, 9, 16), subsets numbered alike: from the UASTC
/// specification (basisu's `g_astc_bc7_common_partitions2`), checked against ASTC's partition
/// function in the tests.
const TWO_SUBSET_SEEDS: [u16; 30] = [
    28, 20, 16, 29, 91, 9, 107, 72, 149, 204, 50, 114, 496, 17, 78, 39, 252, 828, 43, 156, 116,
    210, 476, 273, 684, 359, 246, 195, 694, 524,
];

/// The ASTC seeds (3 partitions) of UASTC's 11 three-subset patterns (mode 3; basisu's
/// `g_astc_bc7_common_partitions3`).
const THREE_SUBSET_SEEDS: [u16; 11] = [260, 74, 32, 156, 183, 15, 745, 0, 335, 902, 254];

/// The ASTC seeds (2 partitions) of UASTC mode 7's 19 two-subset patterns (basisu's
/// `g_bc7_3_astc2_common_partitions`).
const MODE_7_SEEDS: [u16; 19] = [
    36, 48, 61, 137, 161, 183, 226, 281, 302, 307, 479, 495, 593, 594, 605, 799, 812, 988, 993,
];

/// The ASTC void-extent block (one colour for the whole block, no extent) of `rgba`: the colour
/// as UNORM16, each 8-bit channel widened by repetition as basisu does.
fn void_extent(rgba: [u8; 4]) -> u128 {
    // Block mode 0x1FC with LDR (bit 9 clear), reserved bits 10-11 set and the four 13-bit
    // extent coordinates all ones.
    let mut block = 0xFFFF_FFFF_FFFF_FDFCu128;
    for (i, &c) in rgba.iter().enumerate() {
        block |= (c as u128 * 0x101) << (64 + 16 * i);
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::transcode::reference::{self as basisu, random_blocks};
    use crate::read::transcode::uastc::MODES;
    use crate::read::transcode::TranscodeTarget;

    /// `uastc_to_astc`'s output for `block`, as bytes.
    fn ours(block: &[u8; 16]) -> Option<Vec<u8>> {
        uastc_to_astc(block).map(|astc| astc.to_vec())
    }

    /// Asserts that `uastc_to_astc` gives basisu's output for each of `blocks` (`None` where
    /// basisu rejects it); returns how many basisu accepted.
    fn assert_matches_basisu(blocks: &[[u8; 16]], has_alpha: bool, what: &str) -> usize {
        basisu::assert_matches(ours, TranscodeTarget::Astc4x4, blocks, has_alpha, what)
    }

    #[test]
    fn random_blocks_of_every_mode_transcode_as_basisu_does() {
        basisu::assert_every_mode_matches(ours, TranscodeTarget::Astc4x4, 0xA5);
    }

    #[test]
    fn swapped_subsets_are_common_in_random_blocks() {
        // The blue-contraction swap is exercised: in about half of the RGB and RGBA subsets the
        // high endpoint's R + G + B is below the low one's.
        for mode in [0u8, 3, 10, 18] {
            let swapped = random_blocks(mode as usize, 1000, 3)
                .iter()
                .filter_map(|block| uastc::unpack_coded(mode, u128::from_le_bytes(*block)))
                .filter(|coded| {
                    let e = coded.endpoints[0];
                    (e[1] as u32 + e[3] as u32 + e[5] as u32)
                        < e[0] as u32 + e[2] as u32 + e[4] as u32
                })
                .count();
            assert!((300..700).contains(&swapped), "mode {mode}: {swapped}");
        }
    }

    #[test]
    fn solid_colours_at_the_ends_of_the_range_transcode_as_basisu_does() {
        let blocks = basisu::solid_blocks(&[0, 1, 127, 128, 254, 255]);
        assert_eq!(assert_matches_basisu(&blocks, false, "solid"), blocks.len());
        assert_eq!(assert_matches_basisu(&blocks, true, "solid"), blocks.len());
    }

    #[test]
    fn every_first_byte_transcodes_as_basisu_does() {
        basisu::assert_every_first_byte_matches(ours, TranscodeTarget::Astc4x4);
    }

    #[cfg(feature = "bake")]
    #[test]
    fn encoded_pictures_transcode_as_basisu_does() {
        basisu::assert_encoded_blocks_match(ours, TranscodeTarget::Astc4x4);
    }

    /// ASTC's partition of texel (x, y) of a 4x4 block (ASTC specification, "Partition Pattern
    /// Generation", small-block case).
    fn astc_partition(seed: u32, partitions: u32, x: u32, y: u32) -> u32 {
        let seed = seed + (partitions - 1) * 1024;
        let mut r = seed;
        r ^= r >> 15;
        r = r.wrapping_sub(r << 17);
        r = r.wrapping_add(r << 7);
        r = r.wrapping_add(r << 4);
        r ^= r >> 5;
        r = r.wrapping_add(r << 16);
        r ^= r >> 7;
        r ^= r >> 3;
        r ^= r << 6;
        r ^= r >> 17;
        let nibble = |shift: u32| {
            let s = r.rotate_right(shift) & 0xF;
            s * s
        };
        let mut s: [u32; 12] = [0, 4, 8, 12, 16, 20, 24, 28, 18, 22, 26, 30].map(nibble);
        let (sh1, sh2) = match (seed & 1 == 1, seed & 2 == 2) {
            (true, two) => (if two { 4 } else { 5 }, if partitions == 3 { 6 } else { 5 }),
            (false, two) => (if partitions == 3 { 6 } else { 5 }, if two { 4 } else { 5 }),
        };
        let sh3 = if seed & 0x10 != 0 { sh1 } else { sh2 };
        for (i, v) in s.iter_mut().enumerate() {
            *v >>= match i {
                0..8 if i % 2 == 0 => sh1,
                0..8 => sh2,
                _ => sh3,
            };
        }
        let (x, y) = (x * 2, y * 2);
        let a = (s[0] * x + s[1] * y + (r >> 14)) & 0x3F;
        let b = (s[2] * x + s[3] * y + (r >> 10)) & 0x3F;
        let c = match partitions {
            3 => (s[4] * x + s[5] * y + (r >> 6)) & 0x3F,
            _ => 0,
        };
        if a >= b && a >= c {
            0
        } else if b >= c {
            1
        } else {
            2
        }
    }

    #[test]
    fn partition_seeds_give_the_uastc_patterns() {
        let tables: [(usize, &[u16]); 3] = [
            (2, &TWO_SUBSET_SEEDS),
            (3, &THREE_SUBSET_SEEDS),
            (7, &MODE_7_SEEDS),
        ];
        for (mode, seeds) in tables {
            let layout = &MODES[mode];
            assert_eq!(seeds.len(), layout.patterns.len(), "mode {mode}");
            for (pattern, (&seed, partition)) in seeds.iter().zip(layout.patterns).enumerate() {
                for texel in 0..16 {
                    let (x, y) = (texel % 4, texel / 4);
                    let subset = (partition.subsets >> (2 * texel)) & 3;
                    let astc = astc_partition(seed as u32, layout.subsets as u32, x, y);
                    assert_eq!(astc, subset, "mode {mode} pattern {pattern} texel {texel}");
                }
            }
        }
    }

    #[test]
    fn trit_and_quint_codes_decode_back() {
        for (value, &code) in TRIT_CODES.iter().enumerate().take(243) {
            assert_eq!(decode_trits(code as usize), value);
        }
        for (value, &code) in QUINT_CODES.iter().enumerate().take(125) {
            assert_eq!(decode_quints(code as usize), value);
        }
        // Trailing zero digits leave the code's top bits 0 (what lets ASTC drop them).
        assert!(TRIT_CODES[..9].iter().all(|&t| t < 16));
        assert!(QUINT_CODES[..5].iter().all(|&q| q < 8));
    }

    /// Not a check: `cargo test --release ... astc::tests::speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn speed() {
        basisu::print_speed("ASTC", uastc_to_astc, TranscodeTarget::Astc4x4);
    }
}
