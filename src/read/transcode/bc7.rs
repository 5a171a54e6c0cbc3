//! Direct UASTC to BC7 transcoding, bit for bit what Basis Universal's transcoder writes: each
//! UASTC mode has one BC7 mode that holds its endpoints and weights (UASTC was designed so),
//! and the conversion is a requantization of the endpoints (with basisu's choice of p-bits)
//! and a repacking of the weights, with no search.
//!
//! | UASTC modes                 | BC7 mode                                         |
//! |-----------------------------|--------------------------------------------------|
//! | 0, 5, 10, 12, 14, 15, 18    | 6 (one subset, 7-bit RGBA, unique p-bits)        |
//! | 1, 4                        | 3 (two subsets, 7-bit RGB, unique p-bits)        |
//! | 2                           | 1 (two subsets, 6-bit RGB, shared p-bits)        |
//! | 3, 7                        | 2 (three subsets, 5-bit RGB)                     |
//! | 6, 11, 13, 17               | 5 (dual plane: 7-bit RGB, 8-bit alpha, rotation) |
//! | 9, 16                       | 7 (two subsets, 5-bit RGBA, unique p-bits)       |
//! | 8 (solid colour)            | 5 or 6 with basisu's best endpoints for a colour |

use super::uastc::{self, Coded, Partition, SOLID_MODE};

mod solid;

/// Transcodes one UASTC block to BC7; `None` where basisu's transcoder rejects the block (the
/// reserved mode code, or a partition pattern index past the mode's table).
pub(crate) fn uastc_to_bc7(block: &[u8; 16]) -> Option<[u8; 16]> {
    let bits = u128::from_le_bytes(*block);
    // Each arm unpacks its own mode, so that the layout is a constant there.
    let coded = |mode| uastc::unpack_coded(mode, bits);
    let two = |coded: &Coded| TWO_SUBSETS.get(coded.pattern);
    Some(match uastc::mode_of(block) {
        0 => to_mode_6(&coded(0)?),
        1 => partitioned(&coded(1)?, &MODE_3, &MODE_1_PARTITION, unique_7_bit_rgb),
        2 => {
            let coded = coded(2)?;
            partitioned(&coded, &MODE_1, two(&coded)?, shared_6_bit_rgb)
        }
        3 => {
            let coded = coded(3)?;
            let partition = THREE_SUBSETS.get(coded.pattern)?;
            partitioned(&coded, &MODE_2, partition, rgb_5_bit)
        }
        4 => {
            let coded = coded(4)?;
            partitioned(&coded, &MODE_3, two(&coded)?, unique_7_bit_rgb)
        }
        5 => to_mode_6(&coded(5)?),
        6 => to_mode_5(&coded(6)?),
        7 => {
            let coded = coded(7)?;
            let partition = MODE_7_SUBSETS.get(coded.pattern)?;
            partitioned(&coded, &MODE_2, partition, rgb_5_bit)
        }
        SOLID_MODE => solid::to_bc7(uastc::solid_colour(bits)),
        9 => {
            let coded = coded(9)?;
            partitioned(&coded, &MODE_7, two(&coded)?, unique_5_bit_rgba)
        }
        10 => to_mode_6(&coded(10)?),
        11 => to_mode_5(&coded(11)?),
        12 => to_mode_6(&coded(12)?),
        13 => to_mode_5(&coded(13)?),
        14 => to_mode_6(&coded(14)?),
        15 => to_mode_6(&coded(15)?),
        16 => {
            let coded = coded(16)?;
            partitioned(&coded, &MODE_7, two(&coded)?, unique_5_bit_rgba)
        }
        17 => to_mode_5(&coded(17)?),
        18 => to_mode_6(&coded(18)?),
        _ => return None,
    })
}

/// One subset's endpoints in a BC7 mode's precision (without the p-bits), with the p-bits of
/// the low and the high endpoint.
#[derive(Clone, Copy, Default)]
struct Endpoints {
    low: [u8; 4],
    high: [u8; 4],
    pbits: [u8; 2],
}

impl Endpoints {
    /// Low and high swapped, as where the subset's selectors are inverted.
    fn swapped(self) -> Self {
        Self {
            low: self.high,
            high: self.low,
            pbits: [self.pbits[1], self.pbits[0]],
        }
    }
}

/// One channel value quantized with a given p-bit: the stored bits, and the f32 error basisu
/// weighs p-bits with.
#[derive(Clone, Copy)]
struct PbitChoice {
    value: u8,
    error: f32,
}

/// For p-bit 0 and 1, each 8-bit channel value's quantization.
type PbitTable = [[PbitChoice; 256]; 2];

/// Quantizes every 8-bit value to `total_bits` (the p-bit the lowest) with each p-bit, as
/// basisu's transcoder does in f32 (round half up, clamp), with the error it compares: the
/// squared difference in 0..255 units (`unique`), or in 0..1 units (shared p-bits).
const fn pbit_table(total_bits: u32, unique: bool) -> PbitTable {
    let blank = PbitChoice {
        value: 0,
        error: 0.0,
    };
    let mut table = [[blank; 256]; 2];
    let max = (1 << total_bits) - 1;
    let mut p = 0;
    while p < 2 {
        let mut v = 0;
        while v < 256 {
            let x = v as f32 / 255.0;
            let rounded = ((x * max as f32 - p as f32) / 2.0 + 0.5) as i32 * 2 + p;
            let q = if rounded < p {
                p
            } else if rounded > max - 1 + p {
                max - 1 + p
            } else {
                rounded
            };
            // The quantized value widened back to 8 bits by replicating its top bits.
            let widened = (q << (8 - total_bits)) | ((q << (8 - total_bits)) >> total_bits);
            let error = if unique {
                let d = widened as f32 - x * 255.0;
                d * d
            } else {
                let d = widened as f32 / 255.0 - x;
                d * d
            };
            table[p as usize][v] = PbitChoice {
                value: (q >> 1) as u8,
                error,
            };
            v += 1;
        }
        p += 1;
    }
    table
}

/// 7 bits and a p-bit (BC7 modes 3 and 6).
static UNIQUE_8_BIT: PbitTable = pbit_table(8, true);
/// 5 bits and a p-bit (BC7 mode 7).
static UNIQUE_6_BIT: PbitTable = pbit_table(6, true);
/// 6 bits and a p-bit shared by the pair (BC7 mode 1).
static SHARED_7_BIT: PbitTable = pbit_table(7, false);

/// One endpoint with the p-bit basisu picks for it: 1 where its error summed (in order) over
/// the first `channels` channels is smaller than 0's.
#[inline(always)]
fn unique_pbit(table: &PbitTable, color: [u8; 4], channels: usize) -> ([u8; 4], u8) {
    let error = |p: usize| {
        color[..channels]
            .iter()
            .fold(0.0f32, |sum, &c| sum + table[p][c as usize].error)
    };
    let p = (error(1) < error(0)) as usize;
    (color.map(|c| table[p][c as usize].value), p as u8)
}

/// A pair of endpoints, each with its own p-bit (see [`unique_pbit`]).
#[inline(always)]
fn unique_pbits(table: &PbitTable, channels: usize, low: [u8; 4], high: [u8; 4]) -> Endpoints {
    let (low, p_low) = unique_pbit(table, low, channels);
    let (high, p_high) = unique_pbit(table, high, channels);
    Endpoints {
        low,
        high,
        pbits: [p_low, p_high],
    }
}

/// BC7 mode 3's endpoints: RGB, 7 bits and a p-bit each.
#[inline(always)]
fn unique_7_bit_rgb(low: [u8; 4], high: [u8; 4]) -> Endpoints {
    unique_pbits(&UNIQUE_8_BIT, 3, low, high)
}

/// BC7 mode 7's endpoints: RGBA, 5 bits and a p-bit each.
#[inline(always)]
fn unique_5_bit_rgba(low: [u8; 4], high: [u8; 4]) -> Endpoints {
    unique_pbits(&UNIQUE_6_BIT, 4, low, high)
}

/// BC7 mode 1's endpoints: RGB, 6 bits each and one p-bit for the pair, the one whose error
/// over both endpoints (summed channel by channel) is smaller, 0 on a tie.
#[inline(always)]
fn shared_6_bit_rgb(low: [u8; 4], high: [u8; 4]) -> Endpoints {
    let t = &SHARED_7_BIT;
    let error = |p: usize| {
        (0..3).fold(0.0f32, |sum, c| {
            sum + (t[p][low[c] as usize].error + t[p][high[c] as usize].error)
        })
    };
    let p = (error(1) < error(0)) as usize;
    Endpoints {
        low: low.map(|c| t[p][c as usize].value),
        high: high.map(|c| t[p][c as usize].value),
        pbits: [p as u8; 2],
    }
}

/// BC7 mode 2's endpoints: RGB, 5 bits each, rounded.
#[inline(always)]
fn rgb_5_bit(low: [u8; 4], high: [u8; 4]) -> Endpoints {
    let to_5_bits = |c: u8| ((c as u32 * 31 + 127) / 255) as u8;
    Endpoints {
        low: low.map(to_5_bits),
        high: high.map(to_5_bits),
        pbits: [0; 2],
    }
}

/// An 8-bit value as 7 bits, rounded (BC7 mode 5's colour channels).
fn to_7_bits(c: u8) -> u8 {
    ((c as u32 * 127 + 127) / 255) as u8
}

/// Builds a BC7 block least significant bit first.
struct BitWriter {
    bits: u128,
    len: u32,
}

impl BitWriter {
    /// A block of BC7 mode `mode`: its mode bit, after `mode` zeros.
    fn new(mode: u32) -> Self {
        Self {
            bits: 1 << mode,
            len: mode + 1,
        }
    }

    /// Appends the `width` low bits of `value`.
    fn put(&mut self, value: u64, width: u32) {
        let mask = (1u128 << width) - 1;
        self.bits |= (value as u128 & mask) << self.len;
        self.len += width;
    }

    fn finish(self) -> [u8; 16] {
        debug_assert_eq!(self.len, 128);
        self.bits.to_le_bytes()
    }
}

/// `selectors` (`bits` each) without bit `pos`, which is 0: an anchor's top bit, which BC7
/// does not store.
#[inline(always)]
fn drop_bit(selectors: u64, pos: u32) -> u64 {
    let below = (1u64 << pos) - 1;
    (selectors & below) | ((selectors >> 1) & !below)
}

/// Each `bits`-bit selector field set to all ones where `texels` has the texel: the XOR mask
/// that inverts those texels' selectors.
const fn texel_fields(texels: u16, bits: u32) -> u64 {
    let ones = (1u64 << bits) - 1;
    let mut out = 0;
    let mut texel = 0;
    while texel < 16 {
        out |= (((texels >> texel) & 1) as u64 * ones) << (texel * bits);
        texel += 1;
    }
    out
}

/// 16 2-bit fields (the low 32 bits of `x`) moved into the low halves of 16 nibbles.
#[inline(always)]
fn widen_2_to_4(x: u64) -> u64 {
    let x = (x & 0xFFFF) | (x & 0xFFFF_0000) << 16;
    let x = (x & 0x0000_00FF_0000_00FF) | (x & 0x0000_FF00_0000_FF00) << 8;
    let x = (x & 0x000F_000F_000F_000F) | (x & 0x00F0_00F0_00F0_00F0) << 4;
    (x & 0x0303_0303_0303_0303) | (x & 0x0C0C_0C0C_0C0C_0C0C) << 2
}

/// 16 3-bit fields (the low 48 bits of `x`) moved into the low 3 bits of 16 nibbles.
#[inline(always)]
fn widen_3_to_4(x: u64) -> u64 {
    let x = (x & 0xFF_FFFF) | (x & 0xFFFF_FF00_0000) << 8;
    let x = (x & 0x0000_0FFF_0000_0FFF) | (x & 0x00FF_F000_00FF_F000) << 4;
    let x = (x & 0x003F_003F_003F_003F) | (x & 0x0FC0_0FC0_0FC0_0FC0) << 2;
    (x & 0x0707_0707_0707_0707) | (x & 0x3838_3838_3838_3838) << 1
}

/// The low 2 bits of each of `x`'s 16 nibbles, packed together (32 bits).
#[inline(always)]
fn even_fields_of_4(x: u64) -> u64 {
    let x = x & 0x3333_3333_3333_3333;
    let x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F;
    let x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF;
    let x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF;
    (x | x >> 16) & 0xFFFF_FFFF
}

/// Re-maps UASTC weights of `from_bits` each to BC7 selectors of `to_bits` each through
/// `map`.
#[inline(always)]
fn remap_weights(weights: u128, from_bits: u32, to_bits: u32, map: &[u8]) -> u64 {
    let mask = (1u128 << from_bits) - 1;
    (0..16).fold(0, |out, texel| {
        let weight = ((weights >> (texel * from_bits)) & mask) as usize;
        out | (map.get(weight).copied().unwrap_or(0) as u64) << (texel * to_bits)
    })
}

/// UASTC modes 0, 5, 10, 12, 14, 15 and 18 as BC7 mode 6: one subset, 7-bit RGBA endpoints
/// with a p-bit each (alpha 127 and the p-bits chosen on RGB alone for the RGB modes), 4-bit
/// selectors (the UASTC weights widened or, from 5 bits, narrowed as basisu does).
#[inline(always)]
fn to_mode_6(coded: &Coded) -> [u8; 16] {
    let (low, high) = coded.rgba_endpoints(0);
    let channels = if coded.layout.comps == 3 { 3 } else { 4 };
    let mut endpoints = unique_pbits(&UNIQUE_8_BIT, channels, low, high);
    if channels == 3 {
        (endpoints.low[3], endpoints.high[3]) = (127, 127);
    }
    let bits = coded.layout.weight_bits;
    let selectors = match bits {
        4 => coded.weights as u64,
        // 2 bits to 4: 0, 5, 10, 15 (w * 5 stays within each nibble).
        2 => widen_2_to_4(coded.weights as u64) * 5,
        // 3 bits to 4: 0, 2, 4, 6, 9, 11, 13, 15 (the top bit replicated below).
        3 => {
            let w = widen_3_to_4(coded.weights as u64);
            w << 1 | (w >> 2) & 0x1111_1111_1111_1111
        }
        _ => remap_weights(coded.weights, bits, 4, &FIVE_TO_FOUR_BITS),
    };
    // BC7 stores the anchor's selector without its top bit: where it is set, invert.
    let mut selectors = selectors;
    if selectors & 8 != 0 {
        selectors = !selectors;
        endpoints = endpoints.swapped();
    }
    let mut out = BitWriter::new(6);
    for c in 0..4 {
        out.put(endpoints.low[c] as u64, 7);
        out.put(endpoints.high[c] as u64, 7);
    }
    out.put(endpoints.pbits[0] as u64, 1);
    out.put(endpoints.pbits[1] as u64, 1);
    out.put(drop_bit(selectors, 3), 63);
    out.finish()
}

/// basisu's mapping of 5-bit UASTC weights (mode 18) to 4-bit BC7 selectors.
const FIVE_TO_FOUR_BITS: [u8; 32] = [
    0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6, 7, 8, 9, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14,
    14, 15, 15,
];

/// UASTC's dual-plane modes 6, 11, 13 and 17 as BC7 mode 5: BC7 interpolates the second
/// plane's channel as its alpha and swaps it into place (the rotation), so that channel's
/// endpoints go to alpha (8 bits) and alpha's to its place (7 bits like all colour).
#[inline(always)]
fn to_mode_5(coded: &Coded) -> [u8; 16] {
    let (low, high) = coded.rgba_endpoints(0);
    let ccs = (coded.ccs & 3) as usize;
    let mut endpoints = Endpoints::default();
    for channel in 0..4 {
        let bc7_channel = match channel {
            c if c == ccs => 3,
            3 => ccs,
            c => c,
        };
        let precision = |c| if bc7_channel < 3 { to_7_bits(c) } else { c };
        endpoints.low[bc7_channel] = precision(low[channel]);
        endpoints.high[bc7_channel] = precision(high[channel]);
    }
    let weights = coded.weights as u64;
    let (colour, alpha) = match coded.layout.weight_bits {
        // 1-bit weights, a texel's two in each 2 bits: 0 or 3 as 2-bit selectors.
        1 => (
            (weights & 0x5555_5555) * 3,
            (weights >> 1 & 0x5555_5555) * 3,
        ),
        // 2-bit weights, a texel's two in each 4 bits.
        _ => (even_fields_of_4(weights), even_fields_of_4(weights >> 2)),
    };
    write_mode_5(coded.ccs as u64 + 1, endpoints, colour, alpha)
}

/// A BC7 mode 5 block: `rotation` (its low 2 bits), colour and alpha endpoints and 2-bit
/// selectors.
#[inline(always)]
fn write_mode_5(rotation: u64, endpoints: Endpoints, colour: u64, alpha: u64) -> [u8; 16] {
    let (mut low, mut high) = (endpoints.low, endpoints.high);
    // Each selector set's anchor (texel 0) must have a 0 top bit: where not, invert it and swap
    // the endpoints it interpolates.
    let invert_colour = colour & 2 != 0;
    let invert_alpha = alpha & 2 != 0;
    for c in 0..4 {
        if (c < 3 && invert_colour) || (c == 3 && invert_alpha) {
            (low[c], high[c]) = (high[c], low[c]);
        }
    }
    let colour = colour ^ (invert_colour as u64 * 0xFFFF_FFFF);
    let alpha = alpha ^ (invert_alpha as u64 * 0xFFFF_FFFF);
    let mut out = BitWriter::new(5);
    out.put(rotation, 2);
    for c in 0..4 {
        let bits = if c < 3 { 7 } else { 8 };
        out.put(low[c] as u64, bits);
        out.put(high[c] as u64, bits);
    }
    out.put(drop_bit(colour, 1), 31);
    out.put(drop_bit(alpha, 1), 31);
    out.finish()
}

/// The field sizes of a BC7 mode with partitions.
struct PartitionedMode {
    mode: u32,
    subsets: usize,
    /// Channels with endpoints: 3 (RGB) or 4 (RGBA).
    channels: usize,
    endpoint_bits: u32,
    /// P-bits per subset: 0, 1 (shared by the pair) or 2.
    pbits: usize,
    selector_bits: u32,
}

const MODE_1: PartitionedMode = PartitionedMode {
    mode: 1,
    subsets: 2,
    channels: 3,
    endpoint_bits: 6,
    pbits: 1,
    selector_bits: 3,
};
const MODE_2: PartitionedMode = PartitionedMode {
    mode: 2,
    subsets: 3,
    channels: 3,
    endpoint_bits: 5,
    pbits: 0,
    selector_bits: 2,
};
const MODE_3: PartitionedMode = PartitionedMode {
    mode: 3,
    subsets: 2,
    channels: 3,
    endpoint_bits: 7,
    pbits: 2,
    selector_bits: 2,
};
const MODE_7: PartitionedMode = PartitionedMode {
    mode: 7,
    subsets: 2,
    channels: 4,
    endpoint_bits: 5,
    pbits: 2,
    selector_bits: 2,
};

/// A UASTC partition pattern as a BC7 partition: the same texels in each subset, but the
/// subsets possibly in another order (and for UASTC mode 7, one UASTC subset split in two).
struct Bc7Partition {
    /// The BC7 partition's index (6 bits).
    index: u8,
    /// Each BC7 subset's anchor texel (BC7 specification's anchor tables).
    anchors: [u8; 3],
    /// The UASTC subset whose endpoints each BC7 subset takes.
    uastc_subsets: [u8; 3],
    /// The anchors highest first (the order their top bits are dropped in), 0 last.
    drop_order: [u8; 3],
    /// Each subset's texels as 2-bit and as 3-bit selector fields of all ones: the XOR that
    /// inverts the subset's selectors.
    inverts_2_bit: [u64; 3],
    inverts_3_bit: [u64; 3],
}

impl Bc7Partition {
    /// BC7 partition `index`, whose subsets' texels are `masks` and anchors `anchors` (the
    /// first always 0), taking the endpoints of UASTC subsets `uastc_subsets`.
    const fn new(index: u8, masks: [u16; 3], anchors: [u8; 3], uastc_subsets: [u8; 3]) -> Self {
        let (a, b) = (anchors[1], anchors[2]);
        let drop_order = if a > b { [a, b, 0] } else { [b, a, 0] };
        Self {
            index,
            anchors,
            uastc_subsets,
            drop_order,
            inverts_2_bit: [
                texel_fields(masks[0], 2),
                texel_fields(masks[1], 2),
                texel_fields(masks[2], 2),
            ],
            inverts_3_bit: [
                texel_fields(masks[0], 3),
                texel_fields(masks[1], 3),
                texel_fields(masks[2], 3),
            ],
        }
    }

    /// A UASTC two-subset pattern (subset 1: `uastc_mask`) as two-subset BC7 partition
    /// `index`, whose subsets are the UASTC ones swapped where `swap`.
    const fn two(index: u8, swap: bool, anchor: u8, uastc_mask: u16) -> Self {
        let second = if swap { !uastc_mask } else { uastc_mask };
        Self::new(
            index,
            [!second, second, 0],
            [0, anchor, 0],
            [swap as u8, !swap as u8, 0],
        )
    }

    /// A UASTC three-subset pattern (`uastc_pattern`, 2 bits a texel) as three-subset BC7
    /// partition `index`, UASTC subset s being BC7 subset `to_bc7[s]`.
    const fn three(index: u8, to_bc7: [u8; 3], anchors: [u8; 2], uastc_pattern: u32) -> Self {
        let uastc = Partition::new(uastc_pattern).masks;
        let mut masks = [0u16; 3];
        let mut uastc_subsets = [0u8; 3];
        let mut s = 0;
        while s < 3 {
            masks[to_bc7[s] as usize] = uastc[s];
            uastc_subsets[to_bc7[s] as usize] = s as u8;
            s += 1;
        }
        Self::new(index, masks, [0, anchors[0], anchors[1]], uastc_subsets)
    }
}

/// UASTC's two-subset patterns (modes 2, 4, 9 and 16) as BC7 partitions: each pattern's BC7
/// index, whether its subsets are swapped in BC7, and BC7's anchor of subset 1 (basisu's
/// transcoder tables and the BC7 specification's anchor table).
static TWO_SUBSETS: [Bc7Partition; 30] = {
    const BC7: [(u8, bool, u8); 30] = [
        (0, false, 15),
        (1, false, 15),
        (2, true, 15),
        (3, false, 15),
        (4, true, 15),
        (5, false, 15),
        (6, true, 15),
        (7, true, 15),
        (8, false, 15),
        (9, true, 15),
        (10, false, 15),
        (11, true, 15),
        (12, true, 15),
        (13, true, 15),
        (14, false, 15),
        (15, true, 15),
        (17, true, 2),
        (18, true, 8),
        (19, false, 2),
        (20, false, 2),
        (21, false, 8),
        (22, true, 8),
        (23, true, 15),
        (24, false, 2),
        (25, true, 8),
        (26, false, 2),
        (29, true, 8),
        (32, true, 15),
        (33, true, 15),
        (52, true, 15),
    ];
    let mut out = [const { Bc7Partition::new(0, [0; 3], [0; 3], [0; 3]) }; 30];
    let mut i = 0;
    while i < 30 {
        let (index, swap, anchor) = BC7[i];
        out[i] = Bc7Partition::two(index, swap, anchor, uastc::TWO_SUBSET_MASKS[i]);
        i += 1;
    }
    out
};

/// UASTC mode 1 (one subset) as BC7 mode 3 takes partition 0 with the same endpoints twice.
static MODE_1_PARTITION: Bc7Partition =
    Bc7Partition::new(0, [0x3333, 0xCCCC, 0], [0, 15, 0], [0, 0, 0]);

/// UASTC mode 3's three-subset patterns as BC7 partitions: each pattern's BC7 index, the BC7
/// subset of each UASTC subset, and BC7's anchors of subsets 1 and 2.
static THREE_SUBSETS: [Bc7Partition; 11] = {
    const BC7: [(u8, [u8; 3], [u8; 2]); 11] = [
        (4, [0, 1, 2], [8, 15]),
        (8, [1, 0, 2], [8, 15]),
        (9, [1, 0, 2], [8, 15]),
        (10, [2, 0, 1], [6, 15]),
        (11, [2, 0, 1], [6, 15]),
        (12, [0, 1, 2], [6, 15]),
        (13, [0, 2, 1], [5, 15]),
        (20, [1, 2, 0], [3, 15]),
        (35, [1, 2, 0], [5, 10]),
        (36, [1, 0, 2], [6, 10]),
        (57, [0, 1, 2], [10, 15]),
    ];
    let mut out = [const { Bc7Partition::new(0, [0; 3], [0; 3], [0; 3]) }; 11];
    let mut i = 0;
    while i < 11 {
        let (index, to_bc7, anchors) = BC7[i];
        out[i] = Bc7Partition::three(index, to_bc7, anchors, uastc::THREE_SUBSET_PATTERNS[i]);
        i += 1;
    }
    out
};

/// UASTC mode 7's two-subset patterns as BC7 three-subset partitions: each pattern's BC7
/// index and BC7 pattern (2 bits a texel, BC7 specification), the UASTC subset each BC7
/// subset takes, and BC7's anchors of subsets 1 and 2.
static MODE_7_SUBSETS: [Bc7Partition; 19] = {
    const BC7: [(u8, u32, [u8; 3], [u8; 2]); 19] = [
        (10, 0xAAAA_5500, [0, 1, 0], [6, 15]),
        (11, 0x9090_9090, [0, 1, 0], [6, 15]),
        (0, 0xAA68_5050, [1, 0, 0], [3, 15]),
        (2, 0x5A5A_4200, [0, 1, 0], [15, 8]),
        (8, 0xAA55_0000, [1, 0, 1], [8, 15]),
        (13, 0xA4A4_A4A4, [0, 1, 0], [5, 15]),
        (1, 0x6A5A_5040, [0, 1, 1], [3, 8]),
        (33, 0x5090_A0A8, [0, 1, 1], [15, 3]),
        (40, 0x500A_A550, [1, 0, 0], [15, 6]),
        (20, 0xA8A8_5454, [0, 1, 0], [3, 15]),
        (21, 0x6A6A_4040, [0, 0, 1], [3, 8]),
        (58, 0xA0A5_A5A0, [1, 0, 0], [8, 15]),
        (3, 0x5450_A0A8, [0, 0, 1], [15, 3]),
        (32, 0xA9A5_8000, [0, 1, 1], [8, 15]),
        (59, 0x9600_0000, [1, 1, 0], [13, 15]),
        (34, 0xA8A0_9050, [1, 0, 0], [3, 15]),
        (20, 0xA8A8_5454, [1, 1, 0], [3, 15]),
        (14, 0xA9A5_9450, [0, 1, 0], [3, 15]),
        (31, 0x6A5A_0200, [1, 0, 0], [15, 8]),
    ];
    let mut out = [const { Bc7Partition::new(0, [0; 3], [0; 3], [0; 3]) }; 19];
    let mut i = 0;
    while i < 19 {
        let (index, pattern, uastc_subsets, anchors) = BC7[i];
        let masks = Partition::new(pattern).masks;
        out[i] = Bc7Partition::new(index, masks, [0, anchors[0], anchors[1]], uastc_subsets);
        i += 1;
    }
    out
};

/// A UASTC block with partitions (or mode 1) as BC7 `mode` with `partition`, each BC7
/// subset's endpoints from its UASTC subset's through `quantize`, the selectors the UASTC
/// weights (same widths).
#[inline(always)]
fn partitioned(
    coded: &Coded,
    mode: &PartitionedMode,
    partition: &Bc7Partition,
    quantize: impl Fn([u8; 4], [u8; 4]) -> Endpoints,
) -> [u8; 16] {
    let subsets = mode.subsets;
    let mut endpoints = [Endpoints::default(); 3];
    for (subset, slot) in endpoints.iter_mut().enumerate().take(subsets) {
        let (low, high) = coded.rgba_endpoints(partition.uastc_subsets[subset] as usize);
        *slot = quantize(low, high);
    }
    let bits = mode.selector_bits;
    let mut selectors = coded.weights as u64;
    // Each subset's anchor selector must have a 0 top bit: where not, invert the subset's
    // selectors and swap its endpoints.
    for subset in 0..subsets {
        let anchor = partition.anchors[subset] as u32;
        if (selectors >> (anchor * bits + bits - 1)) & 1 != 0 {
            let inverts = match bits {
                2 => &partition.inverts_2_bit,
                _ => &partition.inverts_3_bit,
            };
            selectors ^= inverts[subset];
            endpoints[subset] = endpoints[subset].swapped();
        }
    }
    for &anchor in &partition.drop_order[..subsets] {
        selectors = drop_bit(selectors, anchor as u32 * bits + bits - 1);
    }
    let mut out = BitWriter::new(mode.mode);
    out.put(partition.index as u64, 6);
    for c in 0..mode.channels {
        for subset in &endpoints[..subsets] {
            out.put(subset.low[c] as u64, mode.endpoint_bits);
            out.put(subset.high[c] as u64, mode.endpoint_bits);
        }
    }
    for subset in &endpoints[..subsets] {
        for &pbit in &subset.pbits[..mode.pbits] {
            out.put(pbit as u64, 1);
        }
    }
    out.put(selectors, 16 * bits - subsets as u32);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::transcode::reference as basisu;
    use crate::read::transcode::TranscodeTarget;

    /// `uastc_to_bc7`'s output for `block`, as bytes.
    fn ours(block: &[u8; 16]) -> Option<Vec<u8>> {
        uastc_to_bc7(block).map(|bc7| bc7.to_vec())
    }

    /// Asserts that `uastc_to_bc7` gives basisu's output for each of `blocks` (`None` where
    /// basisu rejects it); returns how many basisu accepted.
    fn assert_matches_basisu(blocks: &[[u8; 16]], has_alpha: bool, what: &str) -> usize {
        basisu::assert_matches(ours, TranscodeTarget::Bc7, blocks, has_alpha, what)
    }

    #[test]
    fn random_blocks_of_every_mode_transcode_as_basisu_does() {
        basisu::assert_every_mode_matches(ours, TranscodeTarget::Bc7, 0xB7);
    }

    #[test]
    fn solid_colours_at_the_ends_of_the_range_transcode_as_basisu_does() {
        // Channels 0, 1, 127, 254 and 255: where the mode 6 p-bits conflict.
        let blocks = basisu::solid_blocks(&[0, 1, 127, 254, 255]);
        assert_eq!(assert_matches_basisu(&blocks, false, "solid"), 625);
    }

    #[test]
    fn every_first_byte_transcodes_as_basisu_does() {
        basisu::assert_every_first_byte_matches(ours, TranscodeTarget::Bc7);
    }

    #[cfg(feature = "bake")]
    #[test]
    fn encoded_pictures_transcode_as_basisu_does() {
        basisu::assert_encoded_blocks_match(ours, TranscodeTarget::Bc7);
    }

    /// Not a check: `cargo test --release ... bc7::tests::speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn speed() {
        basisu::print_speed("BC7", uastc_to_bc7, TranscodeTarget::Bc7);
    }
}
