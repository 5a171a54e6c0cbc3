//! 16-byte-aligned byte storage and the `include_pak!` macro.

use bytemuck::{Pod, Zeroable};

#[repr(C, align(16))]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Block([u8; 16]);

/// An owned byte buffer whose start is 16-byte aligned, so zero-copy views of pack payloads
/// (which are 16-aligned within the pack) stay aligned. `Vec<u8>` only promises alignment 1.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let bytes = std::fs::read(game_hpack)?;
/// let aligned = hearth::AlignedBytes::copy_from(&bytes);
/// assert_eq!(aligned.as_slice(), &bytes[..]);
/// assert_eq!(aligned.as_slice().as_ptr() as usize % 16, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct AlignedBytes {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedBytes {
    /// Copies `bytes` into a new aligned buffer.
    pub fn copy_from(bytes: &[u8]) -> Self {
        let mut blocks = vec![Block([0; 16]); bytes.len().div_ceil(16)];
        bytemuck::cast_slice_mut::<Block, u8>(&mut blocks)[..bytes.len()].copy_from_slice(bytes);
        Self {
            blocks,
            len: bytes.len(),
        }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &bytemuck::cast_slice::<Block, u8>(&self.blocks)[..self.len]
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlignedBytes")
            .field("len", &self.len)
            .finish()
    }
}

/// Embeds a pack in the binary, 16-byte aligned, and opens it: expands to
/// `Result<PakReader, ReadError>`.
///
/// Plain `include_bytes!` is only 1-byte aligned; this wraps the bytes in a
/// `#[repr(C, align(16))]` static so stored entries can be viewed zero-copy.
///
/// ```ignore
/// let pak = hearth::include_pak!(env!("HEARTH_PACK")).expect("embedded pack is valid");
/// ```
#[macro_export]
macro_rules! include_pak {
    ($($path:tt)+) => {{
        #[repr(C, align(16))]
        struct __HearthAligned<T: ?Sized>(T);
        static __HEARTH_PACK: &__HearthAligned<[u8]> = &__HearthAligned(*include_bytes!($($path)+));
        $crate::PakReader::from_static(&__HEARTH_PACK.0)
    }};
}

/// Debug builds read the pack from disk, release builds embed it: expands to
/// `Result<PakReader, ReadError>`.
///
/// With `debug_assertions` (the calling crate's: a debug build) this is
/// [`PakReader::open`](crate::PakReader::open) on the path, a memory map of the file the last
/// bake wrote, so an art change re-baked by `hearth watch` (or the next `cargo build`) needs
/// no recompile, and a hot reload ([`read::hot`](crate::read)) can follow it. Without, it is
/// [`include_pak!`]: the pack is part of the binary and nothing is read at run time. The path
/// must be a string literal or `env!(…)` (it is embedded in release builds).
///
/// ```ignore
/// let pak = hearth::load_pak!(env!("HEARTH_PACK"))?;
/// ```
#[macro_export]
macro_rules! load_pak {
    ($($path:tt)+) => {{
        #[cfg(debug_assertions)]
        let pak = $crate::PakReader::open($($path)+);
        #[cfg(not(debug_assertions))]
        let pak = $crate::include_pak!($($path)+);
        pak
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_aligned_and_exact() {
        for len in [0usize, 1, 15, 16, 17, 1000] {
            let source: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let aligned = AlignedBytes::copy_from(&source);
            assert_eq!(aligned.as_slice(), &source[..]);
            assert_eq!(aligned.as_slice().as_ptr() as usize % 16, 0);
        }
    }
}
