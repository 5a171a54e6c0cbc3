//! Pack writing: per-entry compression, then the v2, v3, v4 or signed v5 layout from
//! [`crate::format::hpack`].

use crate::bake::signing::SigningKey;
use crate::format::hman::AssetKind;
use crate::format::hpack::{self, Codec, PackInput};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Write;

/// An entry is stored uncompressed unless compression saves at least this share (1/16, 6.25%)
/// of its size: a smaller saving is not worth a decode at load time.
pub const MIN_SAVING_DIVISOR: usize = 16;
/// Entries smaller than this are always stored.
pub const MIN_COMPRESS_SIZE: usize = 64;
/// zstd level when the manifest gives none (zstd's own default).
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;
/// Brotli quality when the manifest gives none.
pub const DEFAULT_BROTLI_LEVEL: i32 = 9;

/// One file to pack, with the codec its settings ask for.
#[derive(Debug, Clone)]
pub struct PackFile<'a> {
    /// Runtime path.
    pub path: &'a str,
    /// The entry's kind (written in v4; v2 and v3 store the extension's kind instead).
    pub kind: AssetKind,
    /// Uncompressed bytes.
    pub bytes: &'a [u8],
    /// Requested codec.
    pub codec: Codec,
    /// Requested level.
    pub level: Option<i32>,
}

/// Whether `bytes` are already compressed, so compressing again would waste time: common
/// compressed containers by extension, and KTX2 files with supercompression.
pub fn already_compressed(path: &str, bytes: &[u8]) -> bool {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "png" | "jpg" | "jpeg" | "webp" | "ogg" | "mp3" | "opus" | "flac" | "zip" | "gz"
        | "zst" | "br" | "basis" => true,
        // KTX2 header: supercompressionScheme is the u32 at byte 44; 0 means none.
        "ktx2" => bytes.get(44..48).is_some_and(|s| s != [0, 0, 0, 0]),
        _ => false,
    }
}

/// Compresses one entry, or returns it stored (borrowed, not copied: a pack of textures
/// is mostly stored bytes) when that is smaller or not worth it.
pub fn compress<'a>(file: &PackFile<'a>) -> (Codec, Cow<'a, [u8]>) {
    let stored = || (Codec::None, Cow::Borrowed(file.bytes));
    if file.codec == Codec::None
        || file.bytes.len() < MIN_COMPRESS_SIZE
        || already_compressed(file.path, file.bytes)
    {
        return stored();
    }
    let compressed = match file.codec {
        Codec::None => unreachable!("handled above"),
        Codec::Zstd => crate::format::zstd_frame::compress(
            file.bytes,
            file.level.unwrap_or(DEFAULT_ZSTD_LEVEL),
        ),
        Codec::Snap => {
            let mut encoder = snap::write::FrameEncoder::new(Vec::new());
            encoder.write_all(file.bytes).expect("in-memory snap");
            encoder.into_inner().expect("in-memory snap")
        }
        Codec::Brotli => {
            let quality = file.level.unwrap_or(DEFAULT_BROTLI_LEVEL) as u32;
            let mut encoder = brotli::CompressorWriter::new(Vec::new(), 1 << 16, quality, 22);
            encoder.write_all(file.bytes).expect("in-memory brotli");
            encoder.into_inner()
        }
    };
    let worth_it = compressed.len() <= file.bytes.len() - file.bytes.len() / MIN_SAVING_DIVISOR;
    if worth_it {
        (file.codec, Cow::Owned(compressed))
    } else {
        stored()
    }
}

/// Builds a whole pack at `version` (2, 3, or 4 for anything else). `files` must be sorted by
/// path and unique; compression runs in parallel on the current rayon pool, and the output
/// does not depend on the thread count.
pub fn build(version: u32, files: &[PackFile<'_>]) -> Vec<u8> {
    build_reusing(version, None, files, &[])
}

/// Builds a signed pack (v5): as [`build`] at v4, plus each entry's BLAKE3 digest (computed in
/// parallel) and `key`'s signature. Deterministic, like the rest: Ed25519 signs without
/// randomness.
pub fn build_signed(files: &[PackFile<'_>], key: &SigningKey) -> Vec<u8> {
    build_reusing(5, Some(key), files, &[])
}

/// What makes an entry's stored bytes: its content (hash) and the codec and level its settings
/// ask for. Two entries with one key at one path are stored alike ([`compress`] is
/// deterministic), so a re-bake may copy the earlier one's stored bytes.
pub fn entry_key(content_hash: u64, codec: Codec, level: Option<i32>) -> u64 {
    let mut key = [0u8; 13];
    key[..8].copy_from_slice(&content_hash.to_le_bytes());
    key[8] = codec as u8;
    key[9..].copy_from_slice(&level.unwrap_or(i32::MIN).to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&key)
}

/// An entry as an earlier pack stored it, copied as it is rather than compressed again.
#[derive(Debug, Clone, Copy)]
pub struct Reused<'a> {
    /// How it is stored.
    pub codec: Codec,
    /// The stored bytes.
    pub stored: &'a [u8],
    /// Its uncompressed size.
    pub size: u64,
    /// Its checksum (xxh3-64 of `stored`), as the earlier pack recorded and the copy checked.
    pub checksum: u64,
}

/// [`build`] at `version` (5 with a signing `key`), where `reused[i]`, when given, is file
/// `i`'s stored form from an earlier pack (its `bytes` then go unread and may be empty): the
/// same pack as a cold build, without compressing those entries again. `reused` may be shorter
/// than `files`.
pub fn build_reusing(
    version: u32,
    key: Option<&SigningKey>,
    files: &[PackFile<'_>],
    reused: &[Option<Reused<'_>>],
) -> Vec<u8> {
    let encoded = encode_reusing(files, reused);
    layout_reusing(version, key, files, &encoded, reused).to_vec()
}

/// Each file's stored form (codec, bytes): `reused[i]`'s where given, else compressed in
/// parallel on the current rayon pool. What [`layout_reusing`] lays out.
pub(crate) fn encode_reusing<'a>(
    files: &[PackFile<'a>],
    reused: &[Option<Reused<'a>>],
) -> Vec<(Codec, Cow<'a, [u8]>)> {
    files
        .par_iter()
        .enumerate()
        .map(|(i, file)| match reused.get(i).copied().flatten() {
            Some(r) => (r.codec, Cow::Borrowed(r.stored)),
            None => compress(file),
        })
        .collect()
}

/// [`build_reusing`]'s pack laid out over `encoded` ([`encode_reusing`]'s), not joined: the
/// output writer writes its parts one after another, so copied entries go from the previous
/// pack's mapping to the file without a second copy of the pack in memory.
pub(crate) fn layout_reusing<'e>(
    version: u32,
    key: Option<&SigningKey>,
    files: &[PackFile<'e>],
    encoded: &'e [(Codec, Cow<'_, [u8]>)],
    reused: &[Option<Reused<'_>>],
) -> hpack::PackLayout<'e> {
    let inputs: Vec<PackInput<'e>> = files
        .iter()
        .zip(encoded)
        .enumerate()
        .map(|(i, (file, (codec, stored)))| PackInput {
            path: file.path,
            kind: file.kind,
            codec: *codec,
            stored,
            size: reused
                .get(i)
                .copied()
                .flatten()
                .map_or(file.bytes.len() as u64, |r| r.size),
        })
        .collect();
    if key.is_none() && version == 2 {
        // v2 records no checksums.
        return hpack::PackLayout::joined(hpack::write_v2(&inputs));
    }
    let checksums = checksums(&inputs, reused);
    match (key, version) {
        (Some(key), _) => hpack::layout_v5(&inputs, &checksums, &digests(&inputs), key),
        (None, 3) => hpack::layout_v3(&inputs, &checksums),
        (None, _) => hpack::layout_v4(&inputs, &checksums),
    }
}

/// Each input's entry checksum, in parallel: a copied entry's (`reused[i]`) is the one its
/// old pack recorded, which the copy was checked against; the rest are computed.
fn checksums(inputs: &[PackInput<'_>], reused: &[Option<Reused<'_>>]) -> Vec<u64> {
    inputs
        .par_iter()
        .enumerate()
        .map(|(i, input)| match reused.get(i).copied().flatten() {
            Some(r) => r.checksum,
            None => xxhash_rust::xxh3::xxh3_64(input.stored),
        })
        .collect()
}

/// Each input's BLAKE3 digest, as a signed pack records it, computed in parallel.
fn digests(inputs: &[PackInput<'_>]) -> Vec<[u8; 32]> {
    inputs
        .par_iter()
        .map(|input| *blake3::hash(input.stored).as_bytes())
        .collect()
}

/// Writes entries that are encoded already (each `stored` as it is, under its codec) as a v4
/// pack, or a v5 pack signed by `key`: what `hearth diff` copies out of a pack. `inputs` must
/// be sorted by path and unique.
pub fn build_encoded(inputs: &[PackInput<'_>], key: Option<&SigningKey>) -> Vec<u8> {
    let checksums = checksums(inputs, &[]);
    let layout = match key {
        None => hpack::layout_v4(inputs, &checksums),
        Some(key) => hpack::layout_v5(inputs, &checksums, &digests(inputs), key),
    };
    layout.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_when_compression_does_not_pay() {
        let text = "hello hearth ".repeat(100);
        let file = |path, bytes, codec| PackFile {
            path,
            kind: AssetKind::BLOB,
            bytes,
            codec,
            level: None,
        };
        for codec in [Codec::Zstd, Codec::Snap, Codec::Brotli] {
            assert_eq!(compress(&file("a.txt", text.as_bytes(), codec)).0, codec);
            assert_eq!(
                compress(&file("a.ogg", text.as_bytes(), codec)).0,
                Codec::None,
                "already compressed"
            );
            assert_eq!(
                compress(&file("a.txt", b"tiny", codec)).0,
                Codec::None,
                "too small"
            );
        }
        // Incompressible bytes: xorshift noise.
        let mut x = 0x9E3779B97F4A7C15u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert_eq!(compress(&file("n.bin", &noise, Codec::Zstd)).0, Codec::None);
    }

    #[test]
    fn supercompressed_ktx2_is_stored() {
        let mut header = vec![0u8; 80];
        header[44] = 2; // zstd supercompression
        assert!(already_compressed("t.ktx2", &header));
        header[44] = 0;
        assert!(!already_compressed("t.ktx2", &header));
    }
}
