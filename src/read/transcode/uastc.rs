//! The UASTC 4x4 block layout (Basis Universal's "UASTC Texture Specification"), shared by the
//! direct transcoders to BC7, ASTC and RGBA8: the 7-bit mode codes, where each mode's fields lie,
//! the base-3/base-5 (BISE) endpoint packing, ASTC endpoint unquantization and the partition
//! patterns with their anchors.
//!
//! A block is 128 bits, read least significant bit first: the mode code, the hints for the
//! other targets (BC1, ETC1, ETC2; skipped here), the partition pattern index or the
//! dual-plane channel where the mode has one, the endpoints (the trit or quint bundles first,
//! then the low bits of each value) and last the weights, texel by texel (both planes of a
//! texel in turn), each anchor texel's weight stored without its top bit (always 0).

/// How one UASTC mode lays out its fields.
pub(crate) struct ModeLayout {
    /// Bits of the mode's code (the block's lowest bits).
    pub(crate) code_bits: u32,
    /// Bits of the hints for other targets after the code, skipped here.
    pub(crate) hint_bits: u32,
    /// Bits of the partition pattern index (0: one subset).
    pub(crate) pattern_bits: u32,
    /// Subsets (each with its endpoints): 1, 2 or 3.
    pub(crate) subsets: usize,
    /// The mode's partition patterns, indexed by the stored pattern index.
    pub(crate) patterns: &'static [Partition],
    /// Bits of the dual-plane channel index (the channel the second plane weights).
    pub(crate) ccs_bits: u32,
    /// The dual-plane channel where it is not stored (mode 17: alpha).
    pub(crate) fixed_ccs: u8,
    /// Weight planes: 1, or 2 where one channel has weights of its own.
    pub(crate) planes: u32,
    /// Endpoint channels: 2 (luminance, alpha), 3 (RGB) or 4 (RGBA).
    pub(crate) comps: usize,
    /// The endpoints' quantization.
    pub(crate) range: &'static EndpointRange,
    /// Bits of each weight (one less at an anchor texel).
    pub(crate) weight_bits: u32,
}

/// The mode of the solid-colour blocks (an RGBA8 colour instead of endpoints and weights).
pub(crate) const SOLID_MODE: u8 = 8;

/// The code of each mode (value, bits) and of the reserved code after them, from the UASTC
/// specification: a prefix code, so every 7-bit value starts with exactly one of them.
pub(crate) const MODE_CODES: [(u8, u32); 20] = [
    (0x01, 4),
    (0x35, 6),
    (0x1D, 5),
    (0x03, 5),
    (0x13, 5),
    (0x0B, 5),
    (0x1B, 5),
    (0x07, 5),
    (0x17, 5),
    (0x0F, 5),
    (0x02, 3),
    (0x00, 2),
    (0x06, 3),
    (0x1F, 5),
    (0x0D, 5),
    (0x05, 7),
    (0x15, 6),
    (0x25, 6),
    (0x09, 4),
    (0x45, 7),
];

/// The mode each value of a block's low 7 bits selects; 19 (the reserved code) is no mode.
const MODE_OF_CODE: [u8; 128] = mode_of_code();

const fn mode_of_code() -> [u8; 128] {
    let mut table = [0u8; 128];
    let mut mode = 0;
    while mode < MODE_CODES.len() {
        let (code, bits) = MODE_CODES[mode];
        let mut high = 0;
        while high < 1 << (7 - bits) {
            table[(code as usize) | (high << bits)] = mode as u8;
            high += 1;
        }
        mode += 1;
    }
    table
}

/// An ASTC endpoint quantization: values of `bits` low bits and, for 3 or 5 times as many
/// levels, a base-3 or base-5 digit above them.
pub(crate) struct EndpointRange {
    pub(crate) bits: u32,
    /// 1 (plain bits), 3 (trits) or 5 (quints).
    pub(crate) base: u32,
    /// Each stored value's 8-bit endpoint; values past the range's levels are 0 (none decodes
    /// to them: every digit is below its base).
    unquant: [u8; 256],
}

impl EndpointRange {
    const fn new(bits: u32, base: u32) -> Self {
        let mut unquant = [0u8; 256];
        let mut value = 0;
        while value < base << bits {
            unquant[value as usize] = unquantize(value, bits, base);
            value += 1;
        }
        Self {
            bits,
            base,
            unquant,
        }
    }
}

/// ASTC's endpoint unquantization (ASTC specification, "Color Endpoint Unquantization"): plain
/// bits are replicated to 8 bits; a trit or quint value mixes digit D, the bits' pattern B and
/// the constant C, and flips with the value's lowest bit.
const fn unquantize(value: u32, bits: u32, base: u32) -> u8 {
    let low = value & ((1 << bits) - 1);
    if base == 1 {
        let (mut out, mut filled) = (0, 0);
        while filled < 8 {
            out |= (low << 8 >> filled) >> bits;
            filled += bits;
        }
        return (out & 0xFF) as u8;
    }
    // The specification's table for the ranges UASTC uses: C, and B as 9 characters, most
    // significant first, '0' or the letter of a bit of the value (a: bit 0).
    let (c, b_pattern) = match (base, bits) {
        (3, 2) => (93, b"b000b0bb0"),
        (3, 4) => (22, b"dcb000dcb"),
        (3, 6) => (5, b"fedcb000f"),
        (5, 3) => (26, b"cb0000cbc"),
        (5, 5) => (6, b"edcb0000e"),
        _ => panic!("no UASTC mode uses this endpoint range"),
    };
    let mut b = 0;
    let mut i = 0;
    while i < 9 {
        b <<= 1;
        if b_pattern[i] != b'0' {
            b |= (low >> (b_pattern[i] - b'a')) & 1;
        }
        i += 1;
    }
    let a = if low & 1 == 1 { 0x1FF } else { 0 };
    let t = ((value >> bits) * c + b) ^ a;
    ((a & 0x80) | (t >> 2)) as u8
}

// The endpoint ranges UASTC modes use, by their ASTC range index.
static RANGE_7: EndpointRange = EndpointRange::new(2, 3);
static RANGE_8: EndpointRange = EndpointRange::new(4, 1);
static RANGE_11: EndpointRange = EndpointRange::new(5, 1);
static RANGE_12: EndpointRange = EndpointRange::new(3, 5);
static RANGE_13: EndpointRange = EndpointRange::new(4, 3);
static RANGE_18: EndpointRange = EndpointRange::new(5, 5);
static RANGE_19: EndpointRange = EndpointRange::new(6, 3);
static RANGE_20: EndpointRange = EndpointRange::new(8, 1);

/// A layout with one subset and one plane (the common case, changed field by field).
const fn plain(
    code: usize,
    hint_bits: u32,
    comps: usize,
    range: &'static EndpointRange,
) -> ModeLayout {
    ModeLayout {
        code_bits: MODE_CODES[code].1,
        hint_bits,
        pattern_bits: 0,
        subsets: 1,
        patterns: &SINGLE_SUBSET,
        ccs_bits: 0,
        fixed_ccs: 0,
        planes: 1,
        comps,
        range,
        weight_bits: 0,
    }
}

/// A mode's layout with `weight_bits`-bit weights.
const fn weights(layout: ModeLayout, weight_bits: u32) -> ModeLayout {
    ModeLayout {
        weight_bits,
        ..layout
    }
}

/// A partitioned mode's layout: `subsets` subsets, `pattern_bits` of index into `patterns`.
const fn partitioned(
    layout: ModeLayout,
    subsets: usize,
    pattern_bits: u32,
    patterns: &'static [Partition],
) -> ModeLayout {
    ModeLayout {
        subsets,
        pattern_bits,
        patterns,
        ..layout
    }
}

/// A dual-plane mode's layout, its channel stored in `ccs_bits` (or `fixed_ccs` where none).
const fn dual_plane(layout: ModeLayout, ccs_bits: u32, fixed_ccs: u8) -> ModeLayout {
    ModeLayout {
        ccs_bits,
        fixed_ccs,
        planes: 2,
        ..layout
    }
}

/// The 19 modes' layouts (UASTC specification, "Mode Table"); mode 8's is only its code's.
pub(crate) static MODES: [ModeLayout; 19] = [
    weights(plain(0, 15, 3, &RANGE_19), 4),
    weights(plain(1, 15, 3, &RANGE_20), 2),
    partitioned(weights(plain(2, 15, 3, &RANGE_8), 3), 2, 5, &TWO_SUBSETS),
    partitioned(weights(plain(3, 15, 3, &RANGE_7), 2), 3, 4, &THREE_SUBSETS),
    partitioned(weights(plain(4, 15, 3, &RANGE_12), 2), 2, 5, &TWO_SUBSETS),
    weights(plain(5, 15, 3, &RANGE_20), 3),
    dual_plane(weights(plain(6, 15, 3, &RANGE_18), 2), 2, 0),
    partitioned(
        weights(plain(7, 15, 3, &RANGE_12), 2),
        2,
        5,
        &MODE_7_SUBSETS,
    ),
    plain(8, 0, 4, &RANGE_20),
    partitioned(weights(plain(9, 23, 4, &RANGE_8), 2), 2, 5, &TWO_SUBSETS),
    weights(plain(10, 17, 4, &RANGE_13), 4),
    dual_plane(weights(plain(11, 17, 4, &RANGE_13), 2), 2, 0),
    weights(plain(12, 17, 4, &RANGE_19), 3),
    dual_plane(weights(plain(13, 23, 4, &RANGE_20), 1), 2, 0),
    weights(plain(14, 23, 4, &RANGE_20), 2),
    weights(plain(15, 23, 2, &RANGE_20), 4),
    partitioned(weights(plain(16, 23, 2, &RANGE_20), 2), 2, 5, &TWO_SUBSETS),
    dual_plane(weights(plain(17, 23, 2, &RANGE_20), 2), 0, 3),
    weights(plain(18, 15, 3, &RANGE_11), 5),
];

/// A partition pattern: the subset of each texel, with the anchors.
pub(crate) struct Partition {
    /// Texel i's subset in bits 2i and 2i + 1 (texels row by row).
    pub(crate) subsets: u32,
    /// Each subset's texels (bit i: texel i).
    pub(crate) masks: [u16; 3],
    /// The anchor texels (bit i: texel i): the first texel of each subset, whose weight is
    /// stored without its top bit.
    pub(crate) anchors: u16,
}

impl Partition {
    /// The pattern whose texel i is in the subset in bits 2i and 2i + 1 of `subsets`.
    pub(crate) const fn new(subsets: u32) -> Self {
        let mut masks = [0u16; 3];
        let mut texel = 0;
        while texel < 16 {
            let subset = (subsets >> (2 * texel)) & 3;
            masks[subset as usize] |= 1 << texel;
            texel += 1;
        }
        Self {
            subsets,
            masks,
            anchors: lowest_bit(masks[0]) | lowest_bit(masks[1]) | lowest_bit(masks[2]),
        }
    }

    /// The two-subset pattern whose subset 1 is the texels of `mask`.
    const fn two(mask: u16) -> Self {
        let mut subsets = 0;
        let mut texel = 0;
        while texel < 16 {
            subsets |= (((mask >> texel) & 1) as u32) << (2 * texel);
            texel += 1;
        }
        Self::new(subsets)
    }
}

/// `mask`'s lowest set bit alone (0 for 0).
const fn lowest_bit(mask: u16) -> u16 {
    mask & mask.wrapping_neg()
}

/// The single-subset "pattern" of the modes without partitions.
static SINGLE_SUBSET: [Partition; 1] = [Partition::new(0)];

/// The 30 two-subset patterns of modes 2, 4, 9 and 16 (UASTC specification; each is an ASTC
/// partition that is also a BC7 one), as the texels of subset 1.
pub(crate) const TWO_SUBSET_MASKS: [u16; 30] = [
    0xCCCC, 0x8888, 0x1111, 0xECC8, 0x377F, 0xFEEC, 0x0137, 0x137F, 0xC800, 0x0013, 0xFE80, 0x17FF,
    0x0017, 0x00FF, 0xFFF0, 0x0FFF, 0xFF71, 0x8EFF, 0x08CE, 0x008C, 0x7310, 0xCEFF, 0x7331, 0x088C,
    0xCEEF, 0x6666, 0xF00F, 0x5555, 0x0F0F, 0x36C9,
];
static TWO_SUBSETS: [Partition; 30] = two_subset_partitions(TWO_SUBSET_MASKS);

/// The 11 three-subset patterns of mode 3 (UASTC specification), 2 bits per texel.
pub(crate) const THREE_SUBSET_PATTERNS: [u32; 11] = [
    0xA5A5_0000,
    0xAA00_5555,
    0xAA00_0055,
    0x0000_AA55,
    0x2525_2525,
    0x9494_9494,
    0x5858_5858,
    0x5656_0202,
    0x9292_9292,
    0x55AA_0055,
    0xA050_50A0,
];
static THREE_SUBSETS: [Partition; 11] = {
    let mut out = [const { Partition::new(0) }; 11];
    let mut i = 0;
    while i < 11 {
        out[i] = Partition::new(THREE_SUBSET_PATTERNS[i]);
        i += 1;
    }
    out
};

/// The 19 two-subset patterns of mode 7 (UASTC specification; ASTC partitions that merge two
/// subsets of a BC7 three-subset one), as the texels of subset 1.
pub(crate) const MODE_7_MASKS: [u16; 19] = [
    0x00F0, 0x4444, 0x0133, 0xCC80, 0xF0FF, 0x2222, 0xFFC8, 0xCCCE, 0x3C03, 0x00EE, 0x7700, 0x3003,
    0x00CE, 0xFF80, 0x6FFF, 0x1333, 0x11FF, 0x136C, 0x00EF,
];
static MODE_7_SUBSETS: [Partition; 19] = two_subset_partitions(MODE_7_MASKS);

const fn two_subset_partitions<const N: usize>(masks: [u16; N]) -> [Partition; N] {
    let mut out = [const { Partition::new(0) }; N];
    let mut i = 0;
    while i < N {
        out[i] = Partition::two(masks[i]);
        i += 1;
    }
    out
}

/// UASTC's base-3 packing of endpoint digits: 5 trits in 8 bits, the first the least
/// significant (value = t0 + 3 t1 + 9 t2 + 27 t3 + 81 t4; digits of larger values wrap).
static TRITS: [[u8; 5]; 256] = digits::<5, 256>(3);
/// UASTC's base-5 packing: 3 quints in 7 bits (value = q0 + 5 q1 + 25 q2).
static QUINTS: [[u8; 3]; 128] = digits::<3, 128>(5);

const fn digits<const N: usize, const V: usize>(base: u32) -> [[u8; N]; V] {
    let mut out = [[0u8; N]; V];
    let mut value = 0;
    while value < V {
        let mut rest = value as u32;
        let mut i = 0;
        while i < N {
            out[value][i] = (rest % base) as u8;
            rest /= base;
            i += 1;
        }
        value += 1;
    }
    out
}

/// Bits of a trit bundle holding 0 to 5 digits, and of a quint bundle holding 0 to 3.
const TRIT_BUNDLE_BITS: [u32; 6] = [0, 2, 4, 5, 7, 8];
const QUINT_BUNDLE_BITS: [u32; 4] = [0, 3, 5, 7];

/// The fields of a block with endpoints and weights.
pub(crate) struct Coded {
    pub(crate) layout: &'static ModeLayout,
    /// The partition pattern's index in the mode's table (0 without partitions).
    pub(crate) pattern: usize,
    pub(crate) partition: &'static Partition,
    /// The channel of the second weight plane (dual-plane modes; 0 otherwise).
    pub(crate) ccs: u8,
    /// The unquantized endpoints, 0 to 255, of each subset: channel by channel
    /// (`layout.comps` channels), low then high. (Four rows, so that a subset index masked
    /// with 3 is in range.)
    pub(crate) endpoints: [[u8; 8]; 4],
    /// The same endpoints as stored, before unquantization: ASTC's quantized values (the
    /// value's trit or quint times `2^range.bits`, plus its low bits).
    pub(crate) values: [[u8; 8]; 4],
    /// The weights, `layout.weight_bits` each, texel by texel (with two planes, a texel's
    /// first then second), the anchors' top bits restored.
    pub(crate) weights: u128,
}

impl Coded {
    /// The weight of texel `texel` in plane `plane` (0, or 1 in dual-plane modes).
    #[inline(always)]
    pub(crate) fn weight(&self, texel: u32, plane: u32) -> u32 {
        let bits = self.layout.weight_bits;
        let index = texel * self.layout.planes + plane;
        ((self.weights >> (index * bits)) as u32) & ((1 << bits) - 1)
    }

    /// Subset `subset`'s low and high endpoints as RGBA: luminance-alpha as (L, L, L, A), RGB
    /// with alpha 255.
    #[inline(always)]
    pub(crate) fn rgba_endpoints(&self, subset: usize) -> ([u8; 4], [u8; 4]) {
        let e = self.endpoints[subset & 3];
        match self.layout.comps {
            2 => ([e[0], e[0], e[0], e[2]], [e[1], e[1], e[1], e[3]]),
            3 => ([e[0], e[2], e[4], 255], [e[1], e[3], e[5], 255]),
            _ => ([e[0], e[2], e[4], e[6]], [e[1], e[3], e[5], e[7]]),
        }
    }
}

/// `len` (at most 9) bits of `bits` from bit `pos` (below 128).
fn field(bits: u128, pos: u32, len: u32) -> u32 {
    ((bits >> pos) as u32) & ((1 << len) - 1)
}

/// The mode of `block`: 0 to 18, or 19 for the reserved code (no mode).
pub(crate) fn mode_of(block: &[u8; 16]) -> u8 {
    MODE_OF_CODE[(block[0] & 0x7F) as usize]
}

/// The colour of a solid-colour block (mode 8) whose bits are `bits`.
pub(crate) fn solid_colour(bits: u128) -> [u8; 4] {
    let pos = MODES[SOLID_MODE as usize].code_bits;
    [0, 8, 16, 24].map(|shift| field(bits, pos + shift, 8) as u8)
}

/// Decodes a block of `mode` (not the solid-colour mode) whose bits are `bits`; `None` where
/// its pattern index is past the mode's table (or `mode` is no mode). Inlined so that where
/// `mode` is a constant, the layout's sizes are too and the loops unroll.
#[inline(always)]
pub(crate) fn unpack_coded(mode: u8, bits: u128) -> Option<Coded> {
    let layout = MODES.get(mode as usize)?;
    let mut pos = layout.code_bits + layout.hint_bits;
    let pattern = field(bits, pos, layout.pattern_bits) as usize;
    let partition = layout.patterns.get(pattern)?;
    pos += layout.pattern_bits;
    let ccs = match layout.ccs_bits {
        0 => layout.fixed_ccs,
        ccs_bits => field(bits, pos, ccs_bits) as u8,
    };
    pos += layout.ccs_bits;
    let (values, endpoints, pos) = decode_endpoints(bits, pos, layout);
    let anchors = match layout.planes {
        2 => 0b11,
        _ => partition.anchors as u32,
    };
    Some(Coded {
        layout,
        pattern,
        partition,
        ccs,
        endpoints,
        values,
        weights: restore_anchors(bits >> pos, anchors, layout.weight_bits),
    })
}

/// The endpoints of a block of `layout` from bit `pos` of `bits`, as stored and unquantized,
/// and the bit after them.
#[inline(always)]
fn decode_endpoints(bits: u128, mut pos: u32, layout: &ModeLayout) -> Endpoints {
    let range = layout.range;
    let per_subset = layout.comps * 2;
    let count = per_subset * layout.subsets;
    // The trit or quint bundles come first, then each value's low bits.
    let mut digits = [0u8; 20];
    match range.base {
        3 => {
            for (bundle, chunk) in digits
                .chunks_exact_mut(5)
                .take(count.div_ceil(5))
                .enumerate()
            {
                let width = TRIT_BUNDLE_BITS[(count - bundle * 5).min(5)];
                chunk.copy_from_slice(&TRITS[field(bits, pos, width) as usize]);
                pos += width;
            }
        }
        5 => {
            for (bundle, chunk) in digits
                .chunks_exact_mut(3)
                .take(count.div_ceil(3))
                .enumerate()
            {
                let width = QUINT_BUNDLE_BITS[(count - bundle * 3).min(3)];
                chunk.copy_from_slice(&QUINTS[field(bits, pos, width) as usize & 0x7F]);
                pos += width;
            }
        }
        _ => {}
    }
    let mut values = [[0u8; 8]; 4];
    let mut endpoints = [[0u8; 8]; 4];
    let rows = values.iter_mut().zip(&mut endpoints);
    for (subset, (values, endpoints)) in rows.enumerate().take(layout.subsets) {
        let digits = digits.iter().skip(subset * per_subset);
        let row = values.iter_mut().zip(endpoints.iter_mut());
        for ((value, endpoint), &digit) in row.zip(digits).take(per_subset) {
            let stored = field(bits, pos, range.bits) | (digit as u32) << range.bits;
            *value = stored as u8;
            *endpoint = range.unquant[stored as usize & 0xFF];
            pos += range.bits;
        }
    }
    (values, endpoints, pos)
}

/// Endpoints as stored, unquantized, and the bit after them.
type Endpoints = ([[u8; 8]; 4], [[u8; 8]; 4], u32);

/// The weights stored in `stored` (`bits` each, but one less at the weights `anchors` marks)
/// with a 0 top bit put back at each anchor, so that every weight is `bits` wide.
#[inline(always)]
fn restore_anchors(stored: u128, mut anchors: u32, bits: u32) -> u128 {
    let mut weights = stored;
    while anchors != 0 {
        let top = anchors.trailing_zeros() * bits + bits - 1;
        let below = weights & ((1u128 << top) - 1);
        weights = below | ((weights ^ below) << 1);
        anchors &= anchors - 1;
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_7_bit_code_selects_one_mode_or_the_reserved_code() {
        for (value, &mode) in MODE_OF_CODE.iter().enumerate() {
            let (code, bits) = MODE_CODES[mode as usize];
            assert_eq!(value & ((1 << bits) - 1), code as usize, "{value:#x}");
            let prefixes = MODE_CODES
                .iter()
                .filter(|&&(code, bits)| value & ((1 << bits) - 1) == code as usize)
                .count();
            assert_eq!(prefixes, 1, "{value:#x}");
        }
    }

    /// Where each mode's weights start and how many bits they take.
    fn weight_span(mode: usize) -> (u32, u32) {
        let layout = &MODES[mode];
        let subsets = layout.subsets as u32;
        let pattern_subsets = layout.patterns[0].masks.iter().filter(|&&m| m != 0).count();
        assert_eq!(pattern_subsets, layout.subsets, "mode {mode}");
        let count = layout.comps as u32 * 2 * subsets;
        let digit_bits = match layout.range.base {
            3 => (0..count.div_ceil(5))
                .map(|b| TRIT_BUNDLE_BITS[(count - b * 5).min(5) as usize])
                .sum(),
            5 => (0..count.div_ceil(3))
                .map(|b| QUINT_BUNDLE_BITS[(count - b * 3).min(3) as usize])
                .sum(),
            _ => 0,
        };
        let start = layout.code_bits
            + layout.hint_bits
            + layout.pattern_bits
            + layout.ccs_bits
            + digit_bits
            + count * layout.range.bits;
        let anchors = if layout.planes == 2 { 2 } else { subsets };
        (start, 16 * layout.planes * layout.weight_bits - anchors)
    }

    #[test]
    fn every_mode_s_fields_fit_in_128_bits() {
        // Worked out by hand from the UASTC specification's mode table; modes 0, 6, 10, 11,
        // 12, 16 and 18 fill all 128 bits, the others leave bits unused at the end.
        let expected_starts = [
            65, 69, 73, 89, 89, 68, 66, 89, 0, 97, 65, 66, 81, 94, 92, 62, 98, 61, 49,
        ];
        let full = [0, 6, 10, 11, 12, 16, 18];
        for mode in (0..19).filter(|&mode| mode != SOLID_MODE as usize) {
            let (start, len) = weight_span(mode);
            assert_eq!(start, expected_starts[mode], "mode {mode}");
            assert!(start + len <= 128, "mode {mode}");
            assert_eq!(start + len == 128, full.contains(&mode), "mode {mode}");
        }
    }

    #[test]
    fn unquantization_matches_the_astc_tables_endpoints() {
        // Spot checks from the ASTC specification's unquantization: the range's ends map to 0
        // and 255, and its values rise monotonically in the order of their 8-bit results.
        for range in [
            &RANGE_7, &RANGE_8, &RANGE_11, &RANGE_12, &RANGE_13, &RANGE_18, &RANGE_19, &RANGE_20,
        ] {
            let levels = range.base << range.bits;
            let mut values: Vec<u8> = (0..levels).map(|v| range.unquant[v as usize]).collect();
            values.sort_unstable();
            assert_eq!(values[0], 0);
            assert_eq!(values[levels as usize - 1], 255);
            values.dedup();
            assert_eq!(values.len(), levels as usize, "levels distinct");
        }
        // 12 levels (a trit and 2 bits), in the order of the stored values: the ASTC
        // specification's table.
        let twelve = [0, 255, 69, 186, 23, 232, 92, 163, 46, 209, 116, 139];
        assert_eq!(RANGE_7.unquant[..12], twelve);
        assert_eq!(RANGE_8.unquant[0xA], 0xAA);
        assert_eq!(RANGE_11.unquant[0b10110], 0b1011_0101);
    }

    #[test]
    fn anchors_are_each_subset_s_first_texel() {
        let all = TWO_SUBSETS
            .iter()
            .chain(&THREE_SUBSETS)
            .chain(&MODE_7_SUBSETS);
        for partition in all {
            let masks = partition.masks;
            assert_eq!(masks[0] | masks[1] | masks[2], 0xFFFF);
            assert_eq!(masks[0] & masks[1], 0);
            for mask in masks.into_iter().filter(|&m| m != 0) {
                assert_eq!(partition.anchors & mask, 1 << mask.trailing_zeros());
            }
        }
        assert_eq!(THREE_SUBSETS[0].anchors, 1 | 1 << 8 | 1 << 10);
    }
}
