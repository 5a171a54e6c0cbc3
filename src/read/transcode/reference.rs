//! Test support for the direct transcoders: random UASTC blocks of each mode, and basisu's
//! transcoder's output for them block by block (the reference they must match).

use super::uastc::MODE_CODES;
use super::{transcode_blocks, TranscodeTarget};

/// A small deterministic generator (xorshift64*), so that failures reproduce.
pub(super) struct XorShift(u64);

impl XorShift {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 16 random bytes whose low bits are `mode`'s code (0 to 18, or 19: the reserved code).
    pub(super) fn block(&mut self, mode: usize) -> [u8; 16] {
        let bits = (self.next() as u128) | (self.next() as u128) << 64;
        let (code, code_bits) = MODE_CODES[mode];
        let bits = (bits >> code_bits << code_bits) | code as u128;
        bits.to_le_bytes()
    }
}

/// `count` random blocks of `mode` (see [`XorShift::block`]), from `seed`.
pub(super) fn random_blocks(mode: usize, count: usize, seed: u64) -> Vec<[u8; 16]> {
    let mut random = XorShift::new(seed ^ (mode as u64) << 32);
    (0..count).map(|_| random.block(mode)).collect()
}

/// Random blocks of each mode that the every-mode tests compare.
const BLOCKS_PER_MODE: usize = 20_000;

/// Modes whose pattern index can be past their table (basisu rejects those blocks).
const PATTERN_MODES: [usize; 6] = [2, 3, 4, 7, 9, 16];

/// Asserts that `ours` gives basisu's `target` output for each of `blocks` (`None` where
/// basisu rejects it); returns how many basisu accepted.
pub(super) fn assert_matches(
    ours: fn(&[u8; 16]) -> Option<Vec<u8>>,
    target: TranscodeTarget,
    blocks: &[[u8; 16]],
    has_alpha: bool,
    what: &str,
) -> usize {
    let expected = reference(blocks, target, has_alpha);
    for (block, expected) in blocks.iter().zip(&expected) {
        assert_eq!(&ours(block), expected, "{what}: UASTC block {block:02x?}");
    }
    expected.iter().filter(|e| e.is_some()).count()
}

/// For each of the 19 modes, [`BLOCKS_PER_MODE`] random blocks (from `seed`) through `ours`
/// and through basisu: the same output, more than half of them accepted (so the comparison is
/// not of rejections alone), rejections exactly in the modes with a pattern index; the first
/// thousand again as a texture with alpha, which basisu's output does not depend on.
pub(super) fn assert_every_mode_matches(
    ours: fn(&[u8; 16]) -> Option<Vec<u8>>,
    target: TranscodeTarget,
    seed: u64,
) {
    for mode in 0..19 {
        let blocks = random_blocks(mode, BLOCKS_PER_MODE, seed);
        let what = format!("{target:?}, mode {mode}");
        let accepted = assert_matches(ours, target, &blocks, false, &what);
        assert!(
            accepted > BLOCKS_PER_MODE / 2,
            "{what}: {accepted} accepted"
        );
        let rejected = BLOCKS_PER_MODE - accepted;
        let expect_rejections = PATTERN_MODES.contains(&mode);
        assert_eq!(
            rejected > 0,
            expect_rejections,
            "{what}: {rejected} rejected"
        );
        let with_alpha = format!("{what}, with alpha");
        assert_matches(ours, target, &blocks[..1000], true, &with_alpha);
    }
}

/// Every value of a block's first byte (the mode code's bits) through `ours` and basisu: the
/// same output; 0x45 in the low 7 bits, the only code of no mode, rejected by both.
pub(super) fn assert_every_first_byte_matches(
    ours: fn(&[u8; 16]) -> Option<Vec<u8>>,
    target: TranscodeTarget,
) {
    for byte in 0..=255u8 {
        let mut block = XorShift::new(byte as u64).block(0);
        block[0] = byte;
        let expected = reference(&[block], target, false).remove(0);
        assert_eq!(ours(&block), expected, "{target:?}, first byte {byte:#x}");
        if byte & 0x7F == 0x45 {
            assert_eq!(expected, None, "{target:?}: the reserved code");
        }
    }
}

/// Solid-colour blocks (mode 8, other bits random) of every RGBA colour whose channels are
/// among `values`.
pub(super) fn solid_blocks(values: &[u8]) -> Vec<[u8; 16]> {
    let n = values.len();
    let mut random = XorShift::new(8);
    (0..n.pow(4))
        .map(|i| {
            let rgba = [i % n, i / n % n, i / n / n % n, i / n / n / n].map(|v| values[v]);
            let colour = u32::from_le_bytes(rgba) as u128;
            let bits = u128::from_le_bytes(random.block(super::uastc::SOLID_MODE as usize));
            (bits & !(0xFFFF_FFFF << 5) | colour << 5).to_le_bytes()
        })
        .collect()
}

/// Blocks from hearth's encoder ([`encoded_blocks`], 10 or more of the 19 modes) through
/// `ours` and basisu, as a texture with and without alpha: the same output, all accepted.
#[cfg(feature = "bake")]
pub(super) fn assert_encoded_blocks_match(
    ours: fn(&[u8; 16]) -> Option<Vec<u8>>,
    target: TranscodeTarget,
) {
    let blocks = encoded_blocks();
    let modes: std::collections::BTreeSet<u8> = blocks.iter().map(super::uastc::mode_of).collect();
    assert!(modes.len() >= 10, "modes {modes:?}");
    for has_alpha in [false, true] {
        let accepted = assert_matches(ours, target, &blocks, has_alpha, "encoded");
        assert_eq!(
            accepted,
            blocks.len(),
            "{target:?}: encoded blocks rejected"
        );
    }
}

/// Not a check (each transcoder's `#[ignore]`d `speed` test): prints the time per block of
/// `ours` and of basisu's `target` over 1 Mi random valid blocks of all modes, and of `ours`
/// for each mode.
pub(super) fn print_speed<T>(
    name: &str,
    ours: fn(&[u8; 16]) -> Option<T>,
    target: TranscodeTarget,
) {
    let time_per_block = |blocks: &[[u8; 16]]| {
        let start = std::time::Instant::now();
        for block in blocks {
            std::hint::black_box(ours(std::hint::black_box(block)));
        }
        start.elapsed().as_nanos() as f64 / blocks.len() as f64
    };
    let count = 1 << 20;
    let mut random = XorShift::new(0x5eed);
    let blocks: Vec<[u8; 16]> = (0..count * 2)
        .map(|i| random.block(i % 19))
        .filter(|block| ours(block).is_some())
        .take(count)
        .collect();
    let here = time_per_block(&blocks);
    let (flat, n) = (blocks.concat(), count as u32);
    let start = std::time::Instant::now();
    let row = transcode_blocks(&flat, n, 1, n * 4, 4, false, target);
    let basisu = start.elapsed().as_nanos() as f64 / count as f64;
    assert!(row.is_ok());
    println!("UASTC to {name}: {here:.1} ns/block here, {basisu:.1} ns/block basisu");
    for mode in 0..19 {
        let mut blocks = random_blocks(mode, 1 << 18, 1);
        blocks.retain(|block| ours(block).is_some());
        println!("mode {mode}: {:.1} ns/block", time_per_block(&blocks));
    }
}

/// basisu's output for each block: `target`'s block (for RGBA8, the 16 texels row by row, 4
/// bytes each), or `None` where it rejects the block. A slice that basisu rejects is redone
/// one block at a time to find the blocks it rejects.
pub(super) fn reference(
    blocks: &[[u8; 16]],
    target: TranscodeTarget,
    has_alpha: bool,
) -> Vec<Option<Vec<u8>>> {
    blocks
        .chunks(1024)
        .flat_map(|chunk| match transcode_row(chunk, target, has_alpha) {
            Some(row) => row.into_iter().map(Some).collect(),
            None => chunk
                .iter()
                .map(|block| transcode_row(std::slice::from_ref(block), target, has_alpha))
                .map(|row| row.map(|mut row| row.remove(0)))
                .collect::<Vec<_>>(),
        })
        .collect()
}

/// `blocks` transcoded by basisu as one row of blocks (an image `4 * n` by 4 pixels), split
/// into each block's output.
fn transcode_row(
    blocks: &[[u8; 16]],
    target: TranscodeTarget,
    has_alpha: bool,
) -> Option<Vec<Vec<u8>>> {
    let n = blocks.len() as u32;
    let flat = blocks.concat();
    let out = transcode_blocks(&flat, n, 1, n * 4, 4, has_alpha, target).ok()?;
    Some(match target {
        // Pixel rows: block k's texel (x, y) is pixel (4k + x, y) of a row 4n pixels wide.
        TranscodeTarget::Rgba8 => (0..n as usize)
            .map(|k| {
                (0..4)
                    .flat_map(|y| {
                        let start = (y * n as usize * 4 + k * 4) * 4;
                        out[start..start + 16].to_vec()
                    })
                    .collect()
            })
            .collect(),
        _ => out
            .chunks_exact(target.block_bytes() as usize)
            .map(<[u8]>::to_vec)
            .collect(),
    })
}

/// UASTC blocks as hearth's encoder makes them: the transcode tests' picture
/// (`tests::blocks`, opaque and with alpha) and a 64 x 64 picture of flat, smooth, noisy, sharp
/// and translucent parts, at the fastest and the slowest level, as colour and as a normal map,
/// so that the encoder picks many modes.
#[cfg(feature = "bake")]
fn encoded_blocks() -> Vec<[u8; 16]> {
    use crate::bake::texture::uastc::{self, UastcOptions, LEVEL_FASTEST, LEVEL_VERY_SLOW};
    let (w, h) = (64u32, 64u32);
    let mut random = XorShift::new(64);
    let pixels: Vec<u8> = (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            let noise = random.next() as u8;
            let rgb = match (x / 16, y / 16) {
                (0, _) => [200, 40, 90],
                (1, _) => [(x * 8) as u8, (y * 4) as u8, 128],
                (2, _) => [noise, noise / 2, 255 - noise],
                _ if (x + y) % 8 < 4 => [255, 255, 255],
                _ => [0, 0, 0],
            };
            let a = match y / 16 {
                0 => 255,
                1 => (x * 4) as u8,
                2 => noise | 0x80,
                _ => [0, 255][(x / 2 % 2) as usize],
            };
            [rgb[0], rgb[1], rgb[2], a]
        })
        .collect();
    let mut out = Vec::new();
    for alpha in [false, true] {
        out.extend(
            super::tests::blocks(64, 32, alpha)
                .chunks_exact(16)
                .map(as_block),
        );
    }
    for level in [LEVEL_FASTEST, LEVEL_VERY_SLOW] {
        for normal_map in [false, true] {
            let options = UastcOptions {
                level,
                rdo: None,
                perceptual: !normal_map,
                normal_map,
            };
            let (slices, _) = uastc::encode(&[(w, h, &pixels)], &options).unwrap();
            out.extend(slices[0].data.chunks_exact(16).map(as_block));
        }
    }
    out
}

#[cfg(feature = "bake")]
fn as_block(bytes: &[u8]) -> [u8; 16] {
    bytes.try_into().unwrap_or_default()
}
