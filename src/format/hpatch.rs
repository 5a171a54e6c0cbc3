//! `assets.hpatch` v1: the bookkeeping entry that makes an ordinary pack a patch pack
//! (`docs/formats.md`, `docs/shipping.md`).
//!
//! Layout (little-endian):
//!
//! ```text
//! Header (48 B)
//!    0  4 magic "HPCH"
//!    4  4 version u32 = 1
//!    8  4 deletedCount u32
//!   12  4 reserved u32 = 0
//!   16 16 baseIdentity   [u8; 16]  pack identity of the pack the patch applies to
//!   32 16 resultIdentity [u8; 16]  pack identity of the pack the patch was made from (NEW)
//! Deleted[deletedCount], sorted bytewise, unique, each a non-empty UTF-8 runtime path:
//!     pathLen u16 | path [u8; pathLen]
//! ```
//!
//! The file ends with the last deleted path. A pack's identity ([`pack_identity`]) is the
//! xxh3-128 of its header and tables (v3 and later: bytes `[0, dataOffset)`; a v2 pack, which
//! has no checksums, the whole file). Each entry row holds its payload's xxh3 checksum, size,
//! kind and codec, and the tables hold every path, so any change to any entry (its bytes, its
//! path, its kind or codec, an entry more or less) changes the identity; computing it over the
//! bytes rather than trusting the header's 64-bit `tablesChecksum` field means a pack cannot
//! claim another's identity by copying one field, and 128 bits make accidental collisions
//! irrelevant. It is an identity, not a signature: signed packs carry the trust.

use crate::format::error::{ReadBytes, ReadError};
use crate::format::hpack::{self, V3Layout};

/// Magic bytes of an `assets.hpatch` file.
pub const MAGIC: [u8; 4] = *b"HPCH";
/// The version hearth writes and reads.
pub const VERSION: u32 = 1;
/// Size of the header.
pub const HEADER_SIZE: usize = 48;
/// The runtime path of the patch record inside a patch pack.
pub const PATCH_PATH: &str = "assets.hpatch";

const FORMAT: &str = ".hpatch";

/// A pack's identity: xxh3-128 of its header and tables (see the module documentation).
pub type PackIdentity = [u8; 16];

/// The identity of the pack in `bytes` (v2 to v5). Errors when the bytes are not a pack.
pub fn pack_identity(bytes: &[u8]) -> Result<PackIdentity, ReadError> {
    let covered = match hpack::sniff_version(bytes)? {
        2 => bytes,
        3..=5 => {
            let layout = V3Layout::parse(bytes)?;
            // `parse` checked that the tables end inside the file.
            let end = crate::format::error::to_usize(layout.header.data_offset, "pack tables")?;
            bytes.slice_at(0, end, "pack tables")?
        }
        version => {
            return Err(ReadError::UnsupportedVersion {
                format: ".hpack",
                version,
            })
        }
    };
    Ok(xxhash_rust::xxh3::xxh3_128(covered).to_le_bytes())
}

/// A parsed patch record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchRecord {
    /// The identity of the pack this patch applies to.
    pub base: PackIdentity,
    /// The identity of the pack the patch was made from: what base + patch read as.
    pub result: PackIdentity,
    /// Runtime paths of the base's entries that the new version no longer has: sorted
    /// bytewise, unique.
    pub deleted: Vec<Box<str>>,
}

impl PatchRecord {
    /// Parses and validates `assets.hpatch` bytes: every length checked before use, the loop
    /// bounded by the declared count (itself bounded by the bytes there are). Never panics.
    pub fn parse(bytes: &[u8]) -> Result<Self, ReadError> {
        let header = bytes.slice_at(0, HEADER_SIZE, "patch record header")?;
        if header[..4] != MAGIC {
            return Err(ReadError::BadMagic { format: FORMAT });
        }
        let version = bytes.u32_at(4, "patch record version")?;
        if version != VERSION {
            return Err(ReadError::UnsupportedVersion {
                format: FORMAT,
                version,
            });
        }
        let count = bytes.u32_at(8, "patch record count")? as usize;
        if bytes.u32_at(12, "patch record reserved")? != 0 {
            return Err(ReadError::Invalid {
                what: "patch record reserved field (must be 0)",
            });
        }
        // Each deleted path takes at least 3 bytes: a count beyond that is a lie, refused
        // before anything of its size is allocated.
        if count > (bytes.len() - HEADER_SIZE) / 3 {
            return Err(ReadError::Truncated {
                what: "patch record deleted paths",
            });
        }
        let mut base = [0u8; 16];
        base.copy_from_slice(&header[16..32]);
        let mut result = [0u8; 16];
        result.copy_from_slice(&header[32..48]);
        let mut deleted: Vec<Box<str>> = Vec::with_capacity(count);
        let mut at = HEADER_SIZE;
        for _ in 0..count {
            let len = bytes.u16_at(at, "patch record path length")? as usize;
            let path = bytes.slice_at(at + 2, len, "patch record path")?;
            at += 2 + len;
            let path = std::str::from_utf8(path).map_err(|_| ReadError::Invalid {
                what: "patch record path (not UTF-8)",
            })?;
            if path.is_empty() {
                return Err(ReadError::Invalid {
                    what: "patch record path (empty)",
                });
            }
            if deleted.last().is_some_and(|last| **last >= *path) {
                return Err(ReadError::Invalid {
                    what: "patch record paths (must ascend, each once)",
                });
            }
            deleted.push(path.into());
        }
        if at != bytes.len() {
            return Err(ReadError::Invalid {
                what: "patch record size (bytes after the last path)",
            });
        }
        Ok(Self {
            base,
            result,
            deleted,
        })
    }

    /// The record's bytes. `deleted` must be sorted and unique, each path 1 to 65535 bytes.
    ///
    /// # Panics
    /// On unsorted paths or a path over 65535 bytes (caller bugs: pack paths fit).
    pub fn to_bytes(&self) -> Vec<u8> {
        assert!(
            self.deleted.windows(2).all(|w| w[0] < w[1]),
            "deleted paths must be sorted and unique"
        );
        let mut out = Vec::with_capacity(
            HEADER_SIZE + self.deleted.iter().map(|p| 2 + p.len()).sum::<usize>(),
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.deleted.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.base);
        out.extend_from_slice(&self.result);
        for path in &self.deleted {
            let len = u16::try_from(path.len()).expect("pack paths fit in 65535 bytes");
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(path.as_bytes());
        }
        out
    }
}

/// An identity as 32 hex digits, for messages.
pub fn identity_hex(identity: &PackIdentity) -> String {
    identity.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> PatchRecord {
        PatchRecord {
            base: [1; 16],
            result: [2; 16],
            deleted: vec!["a/b.txt".into(), "c.json".into()],
        }
    }

    #[test]
    fn round_trips() {
        let bytes = record().to_bytes();
        assert_eq!(bytes.len(), HEADER_SIZE + 2 + 7 + 2 + 6);
        assert_eq!(PatchRecord::parse(&bytes).unwrap(), record());
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error_or_a_valid_record() {
        let bytes = record().to_bytes();
        for len in 0..bytes.len() {
            assert!(PatchRecord::parse(&bytes[..len]).is_err(), "cut at {len}");
        }
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            // Identity bits and path bytes may flip into another valid record; nothing panics.
            let _ = PatchRecord::parse(&flipped);
        }
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(PatchRecord::parse(&huge).is_err());
    }

    #[test]
    fn unsorted_or_empty_paths_are_refused() {
        let mut unsorted = record();
        unsorted.deleted.reverse();
        let mut bytes = unsorted.deleted.iter().fold(
            record().to_bytes()[..HEADER_SIZE].to_vec(),
            |mut out, path| {
                out.extend_from_slice(&(path.len() as u16).to_le_bytes());
                out.extend_from_slice(path.as_bytes());
                out
            },
        );
        assert!(PatchRecord::parse(&bytes).is_err());
        bytes.truncate(HEADER_SIZE);
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&[0, 0, 0]);
        assert!(
            PatchRecord::parse(&bytes).is_err(),
            "trailing byte / empty path"
        );
    }
}
