//! zstd compression through one context per thread, reused: making a context (its allocation
//! and its tables' first zeroing, page faults included) cost a tenth of a bake of small raw
//! textures. A reused context writes the same frame as a new one (same parameters, session
//! reset per frame).

use std::cell::RefCell;

thread_local! {
    static CONTEXT: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
}

/// `data` as one zstd frame at `level`: the bytes of `zstd::bulk::compress(data, level)`.
pub(crate) fn compress(data: &[u8], level: i32) -> Vec<u8> {
    CONTEXT
        .with(|cell| {
            let Ok(mut slot) = cell.try_borrow_mut() else {
                // Re-entered on this thread (never, but not worth a panic): a context of its own.
                return zstd::bulk::compress(data, level);
            };
            if !matches!(&*slot, Some((l, _)) if *l == level) {
                *slot = Some((level, zstd::bulk::Compressor::new(level)?));
            }
            match slot.as_mut() {
                Some((_, context)) => context.compress(data),
                None => zstd::bulk::compress(data, level),
            }
        })
        .expect("in-memory zstd")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_reused_context_writes_a_new_ones_frames() {
        let texts: Vec<Vec<u8>> = (0..6u32)
            .map(|i| {
                (0..20_000 * (i + 1))
                    .map(|j| (j * (i + 3) % 251) as u8)
                    .collect()
            })
            .collect();
        for level in [1, 9, 1, 19, -5] {
            for text in &texts {
                assert_eq!(
                    super::compress(text, level),
                    zstd::bulk::compress(text, level).unwrap()
                );
            }
        }
    }
}
