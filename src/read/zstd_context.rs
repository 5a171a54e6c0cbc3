//! One zstd decompression context per thread, reused by every entry and KTX2 level read:
//! making a context (its allocation and set-up) costs more than inflating a small entry.

use std::cell::RefCell;
use std::io::Read;

thread_local! {
    static CONTEXT: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Whether `size` declared output bytes are plausible for `stored` compressed bytes, so one
/// allocation of that size up front is fine; a (corrupt) size far beyond is decoded in a
/// stream instead, so memory follows the real output.
fn plausible_size(stored: &[u8], size: u64) -> bool {
    size <= (stored.len() as u64).saturating_mul(64).max(1 << 20)
}

/// Replaces `out`'s contents with what the frame `stored` inflates to, when that is exactly
/// `size` bytes; `false` (and `out` emptied) otherwise. A plausible size goes through the
/// thread's reused context into one allocation ([`decompress_exact`]); an implausible one
/// (corrupt) through a stream that stops one byte past it, so memory follows what really
/// inflates.
pub(crate) fn inflate(stored: &[u8], size: u64, out: &mut Vec<u8>) -> bool {
    if plausible_size(stored, size) {
        return decompress_exact(stored, size as usize, out);
    }
    out.clear();
    out.reserve(size.min((stored.len() as u64).saturating_mul(32)) as usize);
    let ok = zstd::stream::read::Decoder::with_buffer(stored)
        .and_then(|d| d.take(size.saturating_add(1)).read_to_end(out))
        .is_ok_and(|n| n as u64 == size);
    if !ok {
        out.clear();
    }
    ok
}

/// Replaces `out`'s contents with what the frame `stored` inflates to, when that is exactly
/// `size` bytes; `false` (and `out` emptied) otherwise. `out`'s allocation is reused when it
/// is large enough; a frame inflating beyond its capacity fails rather than growing it.
fn decompress_exact(stored: &[u8], size: usize, out: &mut Vec<u8>) -> bool {
    out.clear();
    out.reserve_exact(size);
    let inflated = CONTEXT.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = zstd::bulk::Decompressor::new().ok();
            }
            match slot.as_mut() {
                Some(context) => context.decompress_to_buffer(stored, out),
                None => zstd::bulk::decompress_to_buffer(stored, out),
            }
        }
        // Re-entered on this thread (hearth's readers never are): a context of its own.
        Err(_) => zstd::bulk::decompress_to_buffer(stored, out),
    });
    if inflated.is_ok_and(|n| n == size) {
        true
    } else {
        out.clear();
        false
    }
}

#[cfg(test)]
mod tests {
    use super::{decompress_exact, inflate};

    #[test]
    fn exact_sizes_only_and_buffers_reused() {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let frame = zstd::bulk::compress(&data, 3).unwrap();
        let mut out = Vec::new();
        assert!(decompress_exact(&frame, data.len(), &mut out));
        assert_eq!(out, data);
        let pointer = out.as_ptr();
        assert!(decompress_exact(&frame, data.len(), &mut out));
        assert_eq!(out.as_ptr(), pointer, "the caller's allocation is reused");
        // A declared size off by one either way, or a damaged frame: false, `out` empty.
        assert!(!decompress_exact(&frame, data.len() + 1, &mut out));
        assert!(out.is_empty());
        let mut small = Vec::new();
        assert!(!decompress_exact(&frame, data.len() - 1, &mut small));
        assert!(small.is_empty());
        assert!(!decompress_exact(
            &frame[..frame.len() / 2],
            data.len(),
            &mut small
        ));
        assert!(!decompress_exact(b"not zstd", 8, &mut small));
    }

    #[test]
    fn implausible_sizes_stream_and_still_check_the_size() {
        let data = vec![7u8; 4 << 20]; // inflates 4 MiB from a few hundred bytes
        let frame = zstd::bulk::compress(&data, 3).unwrap();
        assert!(!super::plausible_size(&frame, data.len() as u64));
        let mut out = Vec::new();
        assert!(inflate(&frame, data.len() as u64, &mut out));
        assert_eq!(out, data);
        assert!(!inflate(&frame, data.len() as u64 + 1, &mut out));
        assert!(out.is_empty());
        assert!(!inflate(&frame, u64::MAX, &mut out));
    }
}
