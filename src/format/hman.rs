//! `assets.hman` v1: the global asset-hash -> runtime-path manifest.
//!
//! Layout (little-endian), as specified by assetc:
//!
//! ```text
//! ManHeader (16 B): magic "HMAN" | version u32 = 1 | count u32 | reserved u32 = 0
//! ManEntry[count], sorted by hash ascending, variable length:
//!     hash u64 | kind u8 | colorspace u8 | pathLen u16 | path [u8; pathLen] (UTF-8, '/')
//! ```
//!
//! Unlike assetc, which lists only glTF texture refs, hearth lists every baked asset with the
//! kind values of [`AssetKind`].

use crate::format::error::{ReadBytes, ReadError};

/// Magic bytes of an `.hman` file.
pub const MAGIC: [u8; 4] = *b"HMAN";
/// The manifest version hearth writes and reads.
pub const VERSION: u32 = 1;
/// Size of the manifest header.
pub const HEADER_SIZE: usize = 16;
/// The runtime path of the manifest in every output tree and pack.
pub const MANIFEST_PATH: &str = "assets.hman";

pub use super::kind::AssetKind;

/// The color space a manifest entry records (0 linear, 1 sRGB).
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// for row in pak.manifest()? {
///     // An sRGB texture is uploaded with an `*_SRGB` format, so that sampling decodes it.
///     let srgb = row.color_space == hearth::ColorSpace::Srgb;
///     println!("{} {} {}", row.kind, row.path, if srgb { "sRGB" } else { "linear" });
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum ColorSpace {
    /// Linear data, or not an image.
    Linear = 0,
    /// sRGB-encoded color.
    Srgb = 1,
}

/// One manifest row, borrowing its path from the manifest bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManifestEntry<'a> {
    /// FNV-1a 64 of the canonical ref (see [`crate::format::hash`]).
    pub hash: u64,
    /// The asset's kind.
    pub kind: AssetKind,
    /// The color space baked into the asset.
    pub color_space: ColorSpace,
    /// Runtime path, relative to the runtime root.
    pub path: &'a str,
}

/// Parses and validates a whole manifest: magic, version, every entry's bounds, UTF-8 paths,
/// any kind (unknown ones are opaque), known color spaces, ascending hashes without duplicates, no trailing bytes.
pub fn parse(bytes: &[u8]) -> Result<Vec<ManifestEntry<'_>>, ReadError> {
    const FORMAT: &str = ".hman";
    let magic = bytes.slice_at(0, 4, "manifest header")?;
    if magic != MAGIC {
        return Err(ReadError::BadMagic { format: FORMAT });
    }
    let version = bytes.u32_at(4, "manifest header")?;
    if version != VERSION {
        return Err(ReadError::UnsupportedVersion {
            format: FORMAT,
            version,
        });
    }
    let count = bytes.u32_at(8, "manifest header")? as usize;
    // Each entry takes at least 12 bytes: a count beyond that cannot fit, so don't reserve for it.
    if count > bytes.len().saturating_sub(HEADER_SIZE) / 12 {
        return Err(ReadError::Truncated {
            what: "manifest entries",
        });
    }
    let mut entries = Vec::with_capacity(count);
    let mut at = HEADER_SIZE;
    for _ in 0..count {
        let hash = bytes.u64_at(at, "manifest entry")?;
        let kind = AssetKind(bytes.slice_at(at + 8, 1, "manifest entry")?[0]);
        let color_space = match bytes.slice_at(at + 9, 1, "manifest entry")?[0] {
            0 => ColorSpace::Linear,
            1 => ColorSpace::Srgb,
            _ => {
                return Err(ReadError::Invalid {
                    what: "manifest entry colorspace",
                })
            }
        };
        let path_len = bytes.u16_at(at + 10, "manifest entry")? as usize;
        let path = std::str::from_utf8(bytes.slice_at(at + 12, path_len, "manifest path")?)
            .map_err(|_| ReadError::Invalid {
                what: "manifest path (not UTF-8)",
            })?;
        if let Some(previous) = entries.last().map(|e: &ManifestEntry<'_>| e.hash) {
            if previous >= hash {
                return Err(ReadError::Invalid {
                    what: "manifest order (hashes must ascend)",
                });
            }
        }
        entries.push(ManifestEntry {
            hash,
            kind,
            color_space,
            path,
        });
        at += 12 + path_len;
    }
    if at != bytes.len() {
        return Err(ReadError::Invalid {
            what: "manifest length (trailing bytes)",
        });
    }
    Ok(entries)
}

/// Finds an entry by hash in a parsed manifest (entries ascend by hash).
pub fn find<'a>(entries: &[ManifestEntry<'a>], hash: u64) -> Option<ManifestEntry<'a>> {
    entries
        .binary_search_by_key(&hash, |e| e.hash)
        .ok()
        .map(|i| entries[i])
}

/// The size of a manifest of `rows` entries whose paths take `path_bytes` in all.
pub fn encoded_size(rows: usize, path_bytes: usize) -> usize {
    HEADER_SIZE + 12 * rows + path_bytes
}

/// Serializes `entries`, which must already be sorted by hash and free of duplicates.
///
/// # Panics
/// When the entries are not strictly ascending by hash or a path is longer than `u16::MAX`:
/// both are caller bugs, which the baker rules out before it gets here.
pub fn write(entries: &[ManifestEntry<'_>]) -> Vec<u8> {
    assert!(
        entries.windows(2).all(|w| w[0].hash < w[1].hash),
        "manifest entries must ascend by hash"
    );
    let size = encoded_size(entries.len(), entries.iter().map(|e| e.path.len()).sum());
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for entry in entries {
        let path_len = u16::try_from(entry.path.len()).expect("manifest path over 65535 bytes");
        out.extend_from_slice(&entry.hash.to_le_bytes());
        out.push(entry.kind.0);
        out.push(entry.color_space as u8);
        out.extend_from_slice(&path_len.to_le_bytes());
        out.extend_from_slice(entry.path.as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<ManifestEntry<'static>> {
        vec![
            ManifestEntry {
                hash: 1,
                kind: AssetKind::TEXTURE,
                color_space: ColorSpace::Srgb,
                path: "a/tex_0.ktx2",
            },
            ManifestEntry {
                hash: 7,
                kind: AssetKind::BLOB,
                color_space: ColorSpace::Linear,
                path: "sounds/hit.ogg",
            },
        ]
    }

    #[test]
    fn round_trips_byte_exact() {
        let bytes = write(&sample());
        assert_eq!(&bytes[0..4], b"HMAN");
        assert_eq!(bytes.len(), 16 + 12 + 12 + 12 + 14);
        assert_eq!(parse(&bytes).unwrap(), sample());
        assert_eq!(
            find(&parse(&bytes).unwrap(), 7).unwrap().path,
            "sounds/hit.ogg"
        );
        assert!(find(&parse(&bytes).unwrap(), 3).is_none());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = write(&sample());
        for len in 0..bytes.len() {
            assert!(
                parse(&bytes[..len]).is_err(),
                "prefix of {len} bytes parsed"
            );
        }
    }

    #[test]
    fn unknown_kinds_are_opaque_entries() {
        let mut bytes = write(&sample());
        bytes[16 + 8] = 99; // a hearth kind newer than this reader
        assert_eq!(parse(&bytes).unwrap()[0].kind, AssetKind(99));
        bytes[16 + 8] = 200; // a game's kind
        let kind = parse(&bytes).unwrap()[0].kind;
        assert!(kind.is_game() && kind.name().is_none());
        assert_eq!(kind.to_string(), "game(200)");
        assert_eq!(AssetKind::game(5), None);
        assert_eq!(AssetKind::game(130), Some(AssetKind(130)));
    }

    #[test]
    fn rejects_unsorted_and_bad_fields() {
        let mut bytes = write(&sample());
        bytes[16 + 9] = 7; // colorspace
        assert!(matches!(parse(&bytes), Err(ReadError::Invalid { .. })));
        let mut bytes = write(&sample());
        bytes[16..24].copy_from_slice(&9u64.to_le_bytes()); // first hash above the second
        assert!(matches!(parse(&bytes), Err(ReadError::Invalid { .. })));
        let mut bytes = write(&sample());
        bytes.push(0);
        assert!(parse(&bytes).is_err());
    }
}
