//! `.hpack`: the single-file pack of a runtime tree, versions 2, 3 and 4.
//!
//! **v2** is assetc's format, read and written byte for byte:
//!
//! ```text
//! PackHeader (24 B): magic "HPAK" | version u32 = 2 | count u32 | flags u32 = 0 | tocBytes u64
//! TOC (tocBytes), count entries sorted by path ascending:
//!     offset u64 | size u64 | kind u8 | pathLen u16 | path [u8; pathLen]
//! Payloads: each file's bytes at its 16-aligned offset, zero-padded to 16 bytes.
//! ```
//!
//! **v3** adds per-entry compression, checksums and an O(1) open. Every table
//! is fixed-stride, every offset is validated at open (tables) or on access (entries), and the
//! header, the tables and each payload carry an xxh3-64 checksum:
//!
//! ```text
//! Header (96 B)
//!    0 magic "HPAK"       4 version u32 = 3     8 entryCount u32     12 dirCount u32
//!   16 flags u32 = 0     20 headerSize u32 = 96 24 fileSize u64
//!   32 entriesOffset u64 (= 96)                 40 dirsOffset u64 (= entries + 48 * entryCount)
//!   48 hashIndexOffset u64 (= dirs + 8 * dirCount)
//!   56 stringsOffset u64 (= hashIndex + 16 * entryCount)   64 stringsSize u64
//!   72 dataOffset u64 (= align16(strings + stringsSize))
//!   80 tablesChecksum u64: xxh3-64 of header bytes [0, 80) then file bytes [96, dataOffset)
//!   88 reserved u64 = 0
//! Entry (48 B) [entryCount], sorted by full path (bytewise):
//!    0 offset u64 (16-aligned, >= dataOffset)   8 storedSize u64   16 size u64 (uncompressed)
//!   24 checksum u64 (xxh3-64 of the stored bytes)
//!   32 dir u32 (index into Dir, 0xFFFFFFFF = root)   36 nameOffset u32   40 nameLen u16
//!   42 kind u8 (v3: PackKind; v4: AssetKind)   43 codec u8 (Codec)   44 reserved u32 = 0
//! Dir (8 B) [dirCount]: offset u32 | len u32 into the string table; sorted, unique
//! HashSlot (16 B) [entryCount]: hash u64 | entry u32 | reserved u32 = 0; sorted by (hash, entry)
//! Strings: UTF-8 bytes; every directory and every file name is stored once and shared
//! Payloads: 16-aligned, zero-padded to 16 bytes.
//! ```
//!
//! An entry's full path is `dir + "/" + name` (just `name` at the root). Its asset hash is
//! [`hash_runtime_path`] of that path.
//!
//! **v4** (hearth's default) is v3 byte for byte, `version = 4`, except the entry's kind byte:
//! it holds an [`AssetKind`], the same table `assets.hman` uses, given by the writer's caller
//! rather than guessed from the extension. Every value 0–255 is valid (0–127 hearth's, 128–255
//! the game's); a reader shows kinds it does not know as opaque entries. v2 and v3 keep
//! assetc's [`PackKind`] on disk, and readers map it to an [`AssetKind`]
//! ([`PackKind::asset_kind`]).

use crate::format::error::{to_usize, ReadBytes, ReadError};
use crate::format::hash::hash_runtime_path;
use crate::format::hman::AssetKind;
use bytemuck::{Pod, Zeroable};
use std::cmp::Ordering;
use std::collections::BTreeMap;

mod write;
pub use write::{
    checksums, layout_v3, layout_v4, layout_v5, write_v2, write_v3, write_v4, write_v5, PackInput,
    PackLayout, PackSigner,
};

/// Magic bytes of an `.hpack`.
pub const MAGIC: [u8; 4] = *b"HPAK";
/// Payload alignment, in bytes.
pub const ALIGN: u64 = 16;
/// v2 header size.
pub const V2_HEADER_SIZE: usize = 24;
/// v3 and v4 header size.
pub const V3_HEADER_SIZE: usize = 96;
/// v3 (and v4) entry stride.
pub const V3_ENTRY_SIZE: usize = 48;
/// v3 directory-table stride.
pub const V3_DIR_SIZE: usize = 8;
/// v3 hash-index stride.
pub const V3_HASH_SLOT_SIZE: usize = 16;
/// The `dir` value of an entry at the root of the tree.
pub const ROOT_DIR: u32 = u32::MAX;
/// v5: size of one entry's BLAKE3 digest in the digest table.
pub const V5_DIGEST_SIZE: usize = 32;
/// v5: size of the signature block that ends the file: Ed25519 public key (32 bytes), then
/// the signature (64 bytes).
pub const V5_SIGNATURE_SIZE: usize = 96;
/// v5: the signed message is this tag followed by the pack's bytes `[0, data_offset)`.
pub const V5_SIGNATURE_CONTEXT: &[u8] = b"hearth pack v5 signature\0";
const FORMAT: &str = ".hpack";

/// Rounds `value` up to the payload alignment.
pub const fn align_up(value: u64) -> u64 {
    value.div_ceil(ALIGN) * ALIGN
}

/// The kind byte of `.hpack` v2 and v3 entries: assetc's `PackKind`, derived from the path's
/// extension when the pack is written. Readers report it as an [`AssetKind`]
/// ([`asset_kind`](Self::asset_kind)); v4 stores an [`AssetKind`] directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PackKind {
    /// Anything else.
    Other = 0,
    /// `.hmesh`
    Mesh = 1,
    /// `.hmat`
    Material = 2,
    /// `.hman`
    Manifest = 3,
    /// `.hanim`
    Animation = 4,
    /// `.ktx2`
    Texture = 5,
    /// `.spv`
    Shader = 6,
}

impl PackKind {
    /// All kinds, in value order.
    pub const ALL: [PackKind; 7] = [
        Self::Other,
        Self::Mesh,
        Self::Material,
        Self::Manifest,
        Self::Animation,
        Self::Texture,
        Self::Shader,
    ];

    /// The kind of a runtime path, by its last extension: the one whose kind's usual
    /// extension ([`AssetKind::extensions`]) it is, compared exactly as v3 does (`.ktx2`, so
    /// `x.lut.ktx2` too, is a texture; `.KTX2` is other); other for the rest.
    pub fn from_path(path: &str) -> Self {
        let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        Self::ALL
            .into_iter()
            .find(|kind| kind.asset_kind().extensions().first() == Some(&ext))
            .unwrap_or(Self::Other)
    }

    /// The kind for a stored byte, if it is a known one.
    pub fn from_u8(value: u8) -> Option<Self> {
        Self::ALL.get(value as usize).copied()
    }

    /// The [`AssetKind`] a v2/v3 reader reports for this on-disk kind: other is
    /// [`AssetKind::BLOB`], shader (`.spv`) is [`AssetKind::SHADER`], the rest by name.
    pub fn asset_kind(self) -> AssetKind {
        match self {
            Self::Other => AssetKind::BLOB,
            Self::Mesh => AssetKind::MESH,
            Self::Material => AssetKind::MATERIAL,
            Self::Manifest => AssetKind::MANIFEST,
            Self::Animation => AssetKind::ANIMATION,
            Self::Texture => AssetKind::TEXTURE,
            Self::Shader => AssetKind::SHADER,
        }
    }

    /// A short lowercase name, for tools.
    pub fn name(self) -> &'static str {
        match self {
            Self::Other => "other",
            Self::Mesh => "mesh",
            Self::Material => "material",
            Self::Manifest => "manifest",
            Self::Animation => "animation",
            Self::Texture => "texture",
            Self::Shader => "shader",
        }
    }
}

/// How a v3 entry's payload is stored.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let entry = pak.find("notes/long.txt")?.expect("in the pack");
/// assert_eq!(entry.codec(), hearth::Codec::Zstd);
/// assert_eq!((entry.size(), entry.stored_size()), (6000, 180));
/// assert_eq!(pak.find("hello.txt")?.unwrap().codec(), hearth::Codec::None); // zero-copy
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum Codec {
    /// Stored as is; readable zero-copy.
    #[default]
    None = 0,
    /// A zstd frame.
    Zstd = 1,
    /// The Snappy frame format (with its CRC-32C per frame).
    Snap = 2,
    /// A Brotli stream.
    Brotli = 3,
}

impl Codec {
    /// The codec for a stored byte, if it is a known one.
    pub fn from_u8(value: u8) -> Option<Self> {
        Some(match value {
            0 => Self::None,
            1 => Self::Zstd,
            2 => Self::Snap,
            3 => Self::Brotli,
            _ => return None,
        })
    }

    /// The codec's lowercase name, as the manifest spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Zstd => "zstd",
            Self::Snap => "snap",
            Self::Brotli => "brotli",
        }
    }
}

/// v3, v4 and v5 header, as laid out on disk (little-endian host assumed; see the crate docs).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct V3Header {
    /// `"HPAK"`.
    pub magic: [u8; 4],
    /// 3, 4 or 5.
    pub version: u32,
    /// Number of entries (and hash slots).
    pub entry_count: u32,
    /// Number of directory strings.
    pub dir_count: u32,
    /// Reserved, 0.
    pub flags: u32,
    /// 96.
    pub header_size: u32,
    /// Total file size in bytes: any truncation is caught at open.
    pub file_size: u64,
    /// Offset of the entry table.
    pub entries_offset: u64,
    /// Offset of the directory table.
    pub dirs_offset: u64,
    /// Offset of the hash index.
    pub hash_index_offset: u64,
    /// Offset of the string table.
    pub strings_offset: u64,
    /// Size of the string table.
    pub strings_size: u64,
    /// Offset of the first payload.
    pub data_offset: u64,
    /// xxh3-64 of header bytes `[0, 80)` followed by the tables `[96, data_offset)`.
    pub tables_checksum: u64,
    /// v3, v4: 0. v5: offset of the signature block (the file's last
    /// [`V5_SIGNATURE_SIZE`] bytes).
    pub signature_offset: u64,
}
const _: () = assert!(std::mem::size_of::<V3Header>() == V3_HEADER_SIZE);

/// v3 and v4 entry-table row.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct V3Entry {
    /// Payload offset from the file start (16-aligned).
    pub offset: u64,
    /// Payload bytes as stored.
    pub stored_size: u64,
    /// Payload bytes once decompressed.
    pub size: u64,
    /// xxh3-64 of the stored bytes.
    pub checksum: u64,
    /// Directory index, or [`ROOT_DIR`].
    pub dir: u32,
    /// File name offset in the string table.
    pub name_offset: u32,
    /// File name length.
    pub name_len: u16,
    /// v3: a [`PackKind`] value; v4: an [`AssetKind`] value.
    pub kind: u8,
    /// [`Codec`] value.
    pub codec: u8,
    /// Reserved, 0.
    pub reserved: u32,
}
const _: () = assert!(std::mem::size_of::<V3Entry>() == V3_ENTRY_SIZE);

/// v3 directory-table row: a string-table range.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct V3Dir {
    /// Offset in the string table.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}
const _: () = assert!(std::mem::size_of::<V3Dir>() == V3_DIR_SIZE);

/// v3 hash-index row.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct V3HashSlot {
    /// Asset hash of the entry's path.
    pub hash: u64,
    /// Entry index.
    pub entry: u32,
    /// Reserved, 0.
    pub reserved: u32,
}
const _: () = assert!(std::mem::size_of::<V3HashSlot>() == V3_HASH_SLOT_SIZE);

/// The pack version in a file's first 8 bytes, after checking the magic.
pub fn sniff_version(bytes: &[u8]) -> Result<u32, ReadError> {
    if bytes.slice_at(0, 4, "pack header")? != MAGIC {
        return Err(ReadError::BadMagic { format: FORMAT });
    }
    bytes.u32_at(4, "pack header")
}

/// A v3, v4 or v5 pack whose header and table extents have been validated (O(1), no
/// per-entry work). v3 and v4 differ only in what an entry's kind byte means; v5 is v4 with a
/// BLAKE3 digest per entry after the string table and a signature block at the end.
#[derive(Debug, Clone, Copy)]
pub struct V3Layout {
    /// The validated header.
    pub header: V3Header,
}

impl V3Layout {
    /// Validates the header against the file's length.
    pub fn parse(bytes: &[u8]) -> Result<Self, ReadError> {
        let header: V3Header =
            bytemuck::pod_read_unaligned(bytes.slice_at(0, V3_HEADER_SIZE, "pack header")?);
        if header.magic != MAGIC {
            return Err(ReadError::BadMagic { format: FORMAT });
        }
        if !matches!(header.version, 3..=5) {
            return Err(ReadError::UnsupportedVersion {
                format: FORMAT,
                version: header.version,
            });
        }
        if header.header_size as usize != V3_HEADER_SIZE {
            return Err(ReadError::Invalid {
                what: "pack header size",
            });
        }
        let signed = header.version == 5;
        if header.flags != 0 || (!signed && header.signature_offset != 0) {
            return Err(ReadError::Invalid {
                what: "pack header flags (unknown bits set)",
            });
        }
        let len = bytes.len() as u64;
        match header.file_size.cmp(&len) {
            Ordering::Greater => return Err(ReadError::Truncated { what: "pack file" }),
            Ordering::Less => {
                return Err(ReadError::Invalid {
                    what: "pack file size (trailing bytes)",
                })
            }
            Ordering::Equal => {}
        }
        let n = header.entry_count as u64;
        let d = header.dir_count as u64;
        let extent = |offset: u64, stride: usize, count: u64, what: &'static str| {
            count
                .checked_mul(stride as u64)
                .and_then(|size| offset.checked_add(size))
                .filter(|end| *end <= len)
                .ok_or(ReadError::Truncated { what })
        };
        if header.entries_offset != V3_HEADER_SIZE as u64 {
            return Err(ReadError::Invalid {
                what: "pack entry table offset",
            });
        }
        let entries_end = extent(header.entries_offset, V3_ENTRY_SIZE, n, "pack entry table")?;
        if header.dirs_offset != entries_end {
            return Err(ReadError::Invalid {
                what: "pack directory table offset",
            });
        }
        let dirs_end = extent(header.dirs_offset, V3_DIR_SIZE, d, "pack directory table")?;
        if header.hash_index_offset != dirs_end {
            return Err(ReadError::Invalid {
                what: "pack hash index offset",
            });
        }
        let hashes_end = extent(
            header.hash_index_offset,
            V3_HASH_SLOT_SIZE,
            n,
            "pack hash index",
        )?;
        if header.strings_offset != hashes_end {
            return Err(ReadError::Invalid {
                what: "pack string table offset",
            });
        }
        let strings_end = extent(
            header.strings_offset,
            1,
            header.strings_size,
            "pack string table",
        )?;
        if header.strings_size > u32::MAX as u64 {
            return Err(ReadError::Invalid {
                what: "pack string table size",
            });
        }
        let data_offset = match signed {
            false => Some(align_up(strings_end)),
            true => extent(
                align_up(strings_end),
                V5_DIGEST_SIZE,
                n,
                "pack digest table",
            )
            .ok(),
        };
        if Some(header.data_offset) != data_offset || header.data_offset > len {
            return Err(ReadError::Invalid {
                what: "pack data offset",
            });
        }
        if signed
            && (len.checked_sub(V5_SIGNATURE_SIZE as u64) != Some(header.signature_offset)
                || header.signature_offset < header.data_offset
                || !header.signature_offset.is_multiple_of(ALIGN))
        {
            return Err(ReadError::Invalid {
                what: "pack signature offset",
            });
        }
        Ok(Self { header })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.header.entry_count as usize
    }

    /// Whether the pack has no entries.
    pub fn is_empty(&self) -> bool {
        self.header.entry_count == 0
    }

    /// The string table.
    fn strings<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        // Extent validated in `parse`.
        let start = self.header.strings_offset as usize;
        &bytes[start..start + self.header.strings_size as usize]
    }

    fn string<'a>(
        &self,
        bytes: &'a [u8],
        offset: u32,
        len: usize,
        what: &'static str,
    ) -> Result<&'a [u8], ReadError> {
        self.strings(bytes)
            .get(offset as usize..)
            .and_then(|s| s.get(..len))
            .ok_or(ReadError::OutOfBounds { what })
    }

    /// The raw row of entry `index` (which must be below [`len`](Self::len)).
    pub fn raw_entry(&self, bytes: &[u8], index: usize) -> V3Entry {
        assert!(index < self.len(), "entry index out of range");
        // Extent validated in `parse`.
        let at = self.header.entries_offset as usize + index * V3_ENTRY_SIZE;
        bytemuck::pod_read_unaligned(&bytes[at..at + V3_ENTRY_SIZE])
    }

    /// The raw row of hash slot `index` (which must be below [`len`](Self::len)).
    pub fn raw_hash_slot(&self, bytes: &[u8], index: usize) -> V3HashSlot {
        assert!(index < self.len(), "hash slot index out of range");
        let at = self.header.hash_index_offset as usize + index * V3_HASH_SLOT_SIZE;
        bytemuck::pod_read_unaligned(&bytes[at..at + V3_HASH_SLOT_SIZE])
    }

    /// The directory and name bytes of an entry row, bounds-checked.
    pub fn path_parts<'a>(
        &self,
        bytes: &'a [u8],
        raw: &V3Entry,
    ) -> Result<(&'a [u8], &'a [u8]), ReadError> {
        let name = self.name(bytes, raw.name_offset, raw.name_len as usize)?;
        Ok((self.dir_name(bytes, raw.dir)?, name))
    }

    /// The `len` name bytes at `offset` in the string table, bounds-checked.
    pub fn name<'a>(
        &self,
        bytes: &'a [u8],
        offset: u32,
        len: usize,
    ) -> Result<&'a [u8], ReadError> {
        self.string(bytes, offset, len, "pack entry name")
    }

    /// The name of directory `dir` (empty for [`ROOT_DIR`]), bounds-checked.
    pub fn dir_name<'a>(&self, bytes: &'a [u8], dir: u32) -> Result<&'a [u8], ReadError> {
        if dir == ROOT_DIR {
            return Ok(&[]);
        }
        if dir >= self.header.dir_count {
            return Err(ReadError::OutOfBounds {
                what: "pack entry directory index",
            });
        }
        let at = self.header.dirs_offset as usize + dir as usize * V3_DIR_SIZE;
        let row: V3Dir = bytemuck::pod_read_unaligned(&bytes[at..at + V3_DIR_SIZE]);
        self.string(bytes, row.offset, row.len as usize, "pack directory name")
    }

    /// The format version, 3, 4 or 5.
    pub fn version(&self) -> u32 {
        self.header.version
    }

    /// Whether the pack is signed (v5).
    pub fn is_signed(&self) -> bool {
        self.header.version == 5
    }

    /// Where payloads end: the signature block (v5) or the end of the file.
    pub fn payload_end(&self) -> u64 {
        match self.is_signed() {
            true => self.header.signature_offset,
            false => self.header.file_size,
        }
    }

    /// v5: the BLAKE3 digest of entry `index`'s stored bytes (`index` below
    /// [`len`](Self::len)); `None` for v3 and v4.
    pub fn digest<'a>(&self, bytes: &'a [u8], index: usize) -> Option<&'a [u8; V5_DIGEST_SIZE]> {
        if !self.is_signed() || index >= self.len() {
            return None;
        }
        // The digest table ends at `data_offset` (validated in `parse`).
        let table = self.header.data_offset as usize - self.len() * V5_DIGEST_SIZE;
        let at = table + index * V5_DIGEST_SIZE;
        bytes.get(at..at + V5_DIGEST_SIZE)?.try_into().ok()
    }

    /// v5: the signed bytes (`[0, data_offset)`: header, tables, digests; the signed message
    /// is [`V5_SIGNATURE_CONTEXT`] followed by these), the public key and the signature.
    /// `None` for v3 and v4.
    pub fn signature_parts<'a>(
        &self,
        bytes: &'a [u8],
    ) -> Option<(&'a [u8], &'a [u8; 32], &'a [u8; 64])> {
        if !self.is_signed() {
            return None;
        }
        let signed = bytes.get(..self.header.data_offset as usize)?;
        let block = bytes.get(self.header.signature_offset as usize..)?;
        Some((
            signed,
            block.get(..32)?.try_into().ok()?,
            block.get(32..96)?.try_into().ok()?,
        ))
    }

    /// Validates an entry row's payload range, codec, kind and reserved fields. The kind is
    /// the v4 byte as it is (every value is valid), or the v3 [`PackKind`] mapped to its
    /// [`AssetKind`] (an unknown v3 value is an error).
    pub fn check_entry(
        &self,
        raw: &V3Entry,
        max_entry_size: u64,
    ) -> Result<(AssetKind, Codec), ReadError> {
        let kind = if self.header.version == 3 {
            PackKind::from_u8(raw.kind)
                .ok_or(ReadError::Invalid {
                    what: "pack entry kind",
                })?
                .asset_kind()
        } else {
            AssetKind(raw.kind)
        };
        let codec = Codec::from_u8(raw.codec).ok_or(ReadError::Invalid {
            what: "pack entry codec",
        })?;
        if raw.reserved != 0 {
            return Err(ReadError::Invalid {
                what: "pack entry reserved field",
            });
        }
        if !raw.offset.is_multiple_of(ALIGN) {
            return Err(ReadError::Misaligned {
                what: "pack entry offset",
            });
        }
        let end = raw.offset.checked_add(raw.stored_size);
        if raw.offset < self.header.data_offset || end.is_none_or(|end| end > self.payload_end()) {
            return Err(ReadError::OutOfBounds {
                what: "pack entry payload range",
            });
        }
        if codec == Codec::None && raw.size != raw.stored_size {
            return Err(ReadError::Invalid {
                what: "pack entry size (stored entry with two sizes)",
            });
        }
        if raw.size > max_entry_size {
            return Err(ReadError::LimitExceeded {
                what: "pack entry size",
            });
        }
        Ok((kind, codec))
    }

    /// Bytes covered by the tables checksum, in order.
    pub fn checksummed_parts<'a>(&self, bytes: &'a [u8]) -> [&'a [u8]; 2] {
        [
            &bytes[..80],
            &bytes[V3_HEADER_SIZE..self.header.data_offset as usize],
        ]
    }
}

/// Compares the path `dir/name` (or `name` when `dir` is empty) with `query`, bytewise,
/// without building the path.
pub fn cmp_path(dir: &[u8], name: &[u8], query: &[u8]) -> Ordering {
    if dir.is_empty() {
        return name.cmp(query);
    }
    let n = dir.len().min(query.len());
    match dir[..n].cmp(&query[..n]) {
        Ordering::Equal if query.len() <= dir.len() => Ordering::Greater, // `dir/…` is longer
        Ordering::Equal => match b'/'.cmp(&query[dir.len()]) {
            Ordering::Equal => name.cmp(&query[dir.len() + 1..]),
            other => other,
        },
        other => other,
    }
}

/// One parsed v2 table-of-contents row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V2Entry {
    /// Payload offset.
    pub offset: u64,
    /// Payload size.
    pub size: u64,
    /// Kind, as stored (assetc's table).
    pub kind: PackKind,
    /// Where the path's bytes start in the file.
    pub path_start: usize,
    /// Path length.
    pub path_len: usize,
}

/// Parses and validates a whole v2 TOC (v2 has variable-length rows, so this is O(entries)).
pub fn parse_v2(bytes: &[u8], max_entries: usize) -> Result<Vec<V2Entry>, ReadError> {
    if sniff_version(bytes)? != 2 {
        return Err(ReadError::Invalid {
            what: "pack version (expected 2)",
        });
    }
    let count = bytes.u32_at(8, "pack header")? as usize;
    if bytes.u32_at(12, "pack header")? != 0 {
        return Err(ReadError::Invalid {
            what: "pack header flags (unknown bits set)",
        });
    }
    let toc_bytes = to_usize(bytes.u64_at(16, "pack header")?, "pack TOC size")?;
    let toc = bytes.slice_at(V2_HEADER_SIZE, toc_bytes, "pack TOC")?;
    let toc_end = (V2_HEADER_SIZE + toc_bytes) as u64;
    if count > max_entries {
        return Err(ReadError::LimitExceeded {
            what: "pack entry count",
        });
    }
    if count > toc_bytes / 19 {
        return Err(ReadError::Truncated { what: "pack TOC" });
    }
    let mut entries: Vec<V2Entry> = Vec::with_capacity(count);
    let mut at = 0usize;
    for _ in 0..count {
        let offset = toc.u64_at(at, "pack TOC entry")?;
        let size = toc.u64_at(at + 8, "pack TOC entry")?;
        let kind = PackKind::from_u8(toc.slice_at(at + 16, 1, "pack TOC entry")?[0]).ok_or(
            ReadError::Invalid {
                what: "pack entry kind",
            },
        )?;
        let path_len = toc.u16_at(at + 17, "pack TOC entry")? as usize;
        let path = toc.slice_at(at + 19, path_len, "pack TOC path")?;
        std::str::from_utf8(path).map_err(|_| ReadError::Invalid {
            what: "pack entry path (not UTF-8)",
        })?;
        if !offset.is_multiple_of(ALIGN) {
            return Err(ReadError::Misaligned {
                what: "pack entry offset",
            });
        }
        if offset < toc_end
            || offset
                .checked_add(size)
                .is_none_or(|end| end > bytes.len() as u64)
        {
            return Err(ReadError::OutOfBounds {
                what: "pack entry payload range",
            });
        }
        let path_start = V2_HEADER_SIZE + at + 19;
        if let Some(previous) = entries.last() {
            let previous = &bytes[previous.path_start..previous.path_start + previous.path_len];
            if previous >= path {
                return Err(ReadError::Invalid {
                    what: "pack TOC order (paths must ascend)",
                });
            }
        }
        entries.push(V2Entry {
            offset,
            size,
            kind,
            path_start,
            path_len,
        });
        at += 19 + path_len;
    }
    if at != toc_bytes {
        return Err(ReadError::Invalid {
            what: "pack TOC size",
        });
    }
    Ok(entries)
}

/// The v3/v4 tables checksum over the first 80 header bytes and the table region.
pub fn tables_checksum(header_prefix: &[u8], tables: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(header_prefix);
    hasher.update(tables);
    hasher.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// v3's kind byte: the spec's six extensions, exactly as written, everything else other.
    #[test]
    fn v3_kinds_come_from_the_specs_extensions() {
        for (path, kind) in [
            ("a/b.hmesh", PackKind::Mesh),
            ("b.hmat", PackKind::Material),
            ("assets.hman", PackKind::Manifest),
            ("c.hanim", PackKind::Animation),
            ("t.ktx2", PackKind::Texture),
            ("grade.lut.ktx2", PackKind::Texture),
            ("s.spv", PackKind::Shader),
            ("s.wgsl", PackKind::Other),
            ("f.hfont", PackKind::Other),
            ("scene.hscene", PackKind::Other),
            ("assets.hnames", PackKind::Other),
            ("T.KTX2", PackKind::Other),
            ("README", PackKind::Other),
        ] {
            assert_eq!(PackKind::from_path(path), kind, "{path}");
        }
    }

    fn input<'a>(path: &'a str, kind: AssetKind, stored: &'a [u8]) -> PackInput<'a> {
        PackInput {
            path,
            kind,
            codec: Codec::None,
            stored,
            size: stored.len() as u64,
        }
    }

    fn kinds(bytes: &[u8]) -> (Vec<u8>, Vec<AssetKind>) {
        let layout = V3Layout::parse(bytes).unwrap();
        (0..layout.len())
            .map(|i| {
                let raw = layout.raw_entry(bytes, i);
                (raw.kind, layout.check_entry(&raw, u64::MAX).unwrap().0)
            })
            .unzip()
    }

    #[test]
    fn v4_stores_the_callers_kind_and_v3_the_extensions() {
        let inputs = [
            input("a.wgsl", AssetKind::SHADER, b"fn main() {}"),
            input("b/c.dat", AssetKind(200), b"game data"),
            input("b/d.hmesh", AssetKind::MESH, b"mesh"),
            input("e.lut.ktx2", AssetKind::LUT, b"lut"),
        ];
        let v3 = write_v3(&inputs);
        let v4 = write_v4(&inputs);
        assert_eq!(V3Layout::parse(&v3).unwrap().version(), 3);
        assert_eq!(V3Layout::parse(&v4).unwrap().version(), 4);
        assert_eq!(
            kinds(&v3),
            (
                vec![0, 0, 1, 5],
                vec![
                    AssetKind::BLOB,
                    AssetKind::BLOB,
                    AssetKind::MESH,
                    AssetKind::TEXTURE
                ]
            )
        );
        assert_eq!(
            kinds(&v4),
            (
                vec![4, 200, 1, 3],
                vec![
                    AssetKind::SHADER,
                    AssetKind(200),
                    AssetKind::MESH,
                    AssetKind::LUT
                ]
            )
        );
        // Byte for byte the same layout: only the version, the tables checksum and the kind
        // bytes differ.
        assert_eq!(v3.len(), v4.len());
        let differing: Vec<usize> = (0..v3.len()).filter(|&i| v3[i] != v4[i]).collect();
        let kind_bytes: Vec<usize> = (0..inputs.len())
            .map(|i| V3_HEADER_SIZE + i * V3_ENTRY_SIZE + 42)
            .collect();
        assert!(differing.contains(&4), "version");
        assert!(
            differing
                .iter()
                .all(|i| *i == 4 || (80..88).contains(i) || kind_bytes.contains(i)),
            "{differing:?}"
        );
    }

    #[test]
    fn every_v4_kind_is_valid_and_an_unknown_v3_kind_is_an_error() {
        let inputs = [input("x.bin", AssetKind::BLOB, b"x")];
        let kind_at = V3_HEADER_SIZE + 42;
        let mut v4 = write_v4(&inputs);
        for value in 0..=255u8 {
            v4[kind_at] = value;
            assert_eq!(kinds(&v4).1, [AssetKind(value)]);
        }
        let mut v3 = write_v3(&inputs);
        for value in 0..=255u8 {
            v3[kind_at] = value;
            let layout = V3Layout::parse(&v3).unwrap();
            let result = layout.check_entry(&layout.raw_entry(&v3, 0), u64::MAX);
            match PackKind::from_u8(value) {
                Some(kind) => assert_eq!(result.unwrap().0, kind.asset_kind()),
                None => assert!(
                    matches!(result, Err(ReadError::Invalid { .. })),
                    "{value}: {result:?}"
                ),
            }
        }
    }

    #[test]
    fn v2_and_v3_kinds_map_onto_the_asset_kind_table() {
        let mapped: Vec<(u8, AssetKind)> = PackKind::ALL
            .iter()
            .map(|k| (*k as u8, k.asset_kind()))
            .collect();
        assert_eq!(
            mapped,
            [
                (0, AssetKind::BLOB),
                (1, AssetKind::MESH),
                (2, AssetKind::MATERIAL),
                (3, AssetKind::MANIFEST),
                (4, AssetKind::ANIMATION),
                (5, AssetKind::TEXTURE),
                (6, AssetKind::SHADER),
            ]
        );
    }

    #[test]
    fn cmp_path_matches_comparing_the_joined_path() {
        let cases = [
            ("", "a.txt"),
            ("models", "chair.hmesh"),
            ("m", "x"),
            ("models/chair", "tex_0.ktx2"),
        ];
        let queries = [
            "",
            "a",
            "a.txt",
            "m",
            "m/",
            "m/x",
            "m/y",
            "m.",
            "models",
            "models/",
            "models/chair.hmesh",
            "models/chair/tex_0.ktx2",
            "models0",
            "zzz",
        ];
        for (dir, name) in cases {
            let joined = if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            };
            for query in queries {
                assert_eq!(
                    cmp_path(dir.as_bytes(), name.as_bytes(), query.as_bytes()),
                    joined.as_bytes().cmp(query.as_bytes()),
                    "{joined} vs {query}"
                );
            }
        }
    }
}
