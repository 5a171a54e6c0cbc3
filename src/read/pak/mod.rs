//! [`PakReader`]: opens `.hpack` v2, v3, v4 and v5 (signed) files and reads their entries.

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{self, AssetKind};
use crate::format::hpack::{self, cmp_path, Codec, V2Entry, V3Layout};
use crate::read::aligned::AlignedBytes;
use crate::read::asset::Backing;
use crate::read::asset::{AssetBytes, AssetSource};
use crate::read::error::ReadError;
use crate::read::names::{named, NameRecord, NameTable, Names, NAMES_PATH};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

mod hash_index;
mod manifest;
mod verify;

use hash_index::{first_hash_slot, HashIndex};
pub use manifest::ManifestRecord;
pub(crate) use manifest::{find_record, manifest_records};

/// Resource limits applied to untrusted data: a pack's entry table, an entry's or a KTX2
/// level's declared uncompressed size. Every limit is checked against the sizes the file
/// declares, before anything of that size is allocated; a file over a limit is a
/// [`ReadError::LimitExceeded`].
///
/// Build one from the defaults so that new limits keep their default:
/// `Limits { max_entry_size: 64 << 20, ..Limits::default() }`.
///
/// ```
/// use hearth::{Limits, PakReader, ReadError};
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// // A pack from a mod or a download: no entry over 1000 bytes is read or inflated.
/// let limits = Limits { max_entry_size: 1000, ..Limits::default() };
/// let read = PakReader::open_with_limits(game_hpack, limits)
///     .and_then(|pak| pak.get("notes/long.txt").map(|_| ()));
/// assert!(matches!(read, Err(ReadError::LimitExceeded { .. })), "{read:?}");
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most entries a pack may declare. Default 16 Mi (2^24); packs of 2^31 entries or more
    /// (96 GiB of table rows) are refused whatever the limit.
    pub max_entries: usize,
    /// Largest uncompressed size of one pack entry, in bytes. Default 4 GiB (2^32).
    pub max_entry_size: u64,
    /// Largest uncompressed size of one KTX2 mip level (all its layers, faces and slices), in
    /// bytes: [`Ktx2::parse_with_limits`](crate::Ktx2::parse_with_limits). Default 2 GiB
    /// (2^31: a 16384 x 16384 RGBA16F level).
    pub max_ktx2_level_size: u64,
}

impl Default for Limits {
    /// 16 Mi entries, 4 GiB per entry, 2 GiB per KTX2 level.
    fn default() -> Self {
        Self {
            max_entries: 1 << 24,
            max_entry_size: 1 << 32,
            max_ktx2_level_size: 1 << 31,
        }
    }
}

enum Layout {
    /// v2 has variable-length TOC rows: parsed and validated once at open.
    V2(Vec<V2Entry>),
    /// v3, v4 and v5: header and table extents validated at open, each row on access.
    V3(V3Layout),
}

/// A read-only `.hpack` (v2, v3 or v4): entries by path, by asset hash, or by index.
///
/// Opening validates the header and the table extents (v3 and v4: O(1); v2: one pass over its
/// TOC).
/// Each entry's range, codec and path are validated when the entry is accessed, so a corrupt
/// pack yields [`ReadError`]s, never a panic or an out-of-bounds read. [`verify`](Self::verify)
/// checks every checksum.
///
/// ```
/// use hearth::PakReader;
/// // A game embeds its pack with `include_pak!(env!("HEARTH_PACK"))` (`load_pak!` maps it in
/// // debug builds), or maps one shipped beside it with `PakReader::open("assets.hpack")`.
/// let pak: PakReader = hearth::include_pak!("../../../tests/fixtures/tiny.hpack")?;
/// // By runtime path: stored entries are borrowed, compressed ones decoded.
/// let hello = pak.get("hello.txt")?.expect("in the pack");
/// assert_eq!(&*hello, b"hello from the fixture pack\n");
/// // By 64-bit asset hash, and back to its `assets.hman` row.
/// let hash = hearth::hash_asset_ref("notes/long.txt");
/// assert_eq!(pak.get_by_hash(hash)?.map(|bytes| bytes.len()), Some(6000));
/// assert_eq!(&*pak.resolve(hash)?.expect("in the manifest").path, "notes/long.txt");
/// // Every entry, with its kind, codec and sizes.
/// for entry in pak.entries() {
///     let entry = entry?;
///     let (path, codec) = (entry.path(), entry.codec().name());
///     println!("{path}: {} B, {} B stored ({codec})", entry.size(), entry.stored_size());
/// }
/// pak.verify()?; // every checksum
/// # Ok::<(), hearth::ReadError>(())
/// ```
pub struct PakReader {
    backing: Arc<Backing>,
    layout: Layout,
    limits: Limits,
    manifest: OnceLock<Result<Vec<ManifestRecord>, ReadError>>,
    /// The pack's `assets.hnames`, validated once and kept (empty if the pack has none).
    names: OnceLock<Result<Names, ReadError>>,
    /// v2 has no hash index; built on the first lookup by hash.
    v2_hashes: OnceLock<Vec<(u64, u32)>>,
    /// v3 and later: hash -> entry in memory, built on the first lookup (see [`HashIndex`]).
    hash_index: OnceLock<HashIndex>,
    /// Opened with a key ([`open_signed`](Self::open_signed)): which entries' digests have
    /// been checked (each is hashed once, before its first [`Entry`] is handed out).
    #[cfg(feature = "verify")]
    digests_checked: Option<Box<[std::sync::atomic::AtomicBool]>>,
}

impl std::fmt::Debug for PakReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PakReader")
            .field("version", &self.version())
            .field("entries", &self.len())
            .field("bytes", &self.bytes().len())
            .finish()
    }
}

impl PakReader {
    /// Memory-maps and opens the pack at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        Self::open_with_limits(path, Limits::default())
    }

    /// [`open`](Self::open), then [`verify`](Self::verify) every checksum (O(pack size)).
    pub fn open_verified(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let pak = Self::open(path)?;
        pak.verify()?;
        Ok(pak)
    }

    /// [`open`](Self::open) with custom [`Limits`].
    pub fn open_with_limits(path: impl AsRef<Path>, limits: Limits) -> Result<Self, ReadError> {
        // A regular file only, opened without blocking: a FIFO named as a pack is refused, not
        // waited on. A link is followed (a pack is a file the caller names).
        let file = crate::read::regular_file::open_regular(
            path.as_ref(),
            std::fs::OpenOptions::new().read(true),
            crate::read::regular_file::Links::Follow,
        )
        .map_err(|e| match path.as_ref().is_dir() {
            // An output folder given for its pack: say what is expected (asked only on error).
            true => ReadError::Invalid {
                what: "pack: a folder, not a file (a `.hpack` file is expected)",
            },
            false => ReadError::from(e),
        })?;
        Self::map_file(file, limits)
    }

    /// Memory-maps and opens an already opened pack file (the baker opens its previous pack
    /// without following links).
    pub(crate) fn map_file(file: std::fs::File, limits: Limits) -> Result<Self, ReadError> {
        let metadata = file.metadata()?;
        if metadata.len() == 0 {
            return Err(ReadError::Truncated {
                what: "pack header",
            });
        }
        // SAFETY: `Mmap::map` is unsafe because the mapping aliases a file that another process
        // could modify or truncate while we hold it. The bytes are never trusted: every offset
        // and size is validated before use, so modified contents can only yield errors. hearth's
        // own writer never modifies a pack in place (it writes a temp file and renames it over
        // the old one, leaving existing mappings intact); truncation by a third party while
        // mapped would raise SIGBUS, the documented limit of reading through mmap.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Self::with_backing(Backing::Mapped(map), limits)
    }

    /// Opens a pack in static memory, such as one embedded by [`include_pak!`](crate::include_pak).
    /// Zero-copy; stored entries are aligned when `bytes` is 16-aligned.
    pub fn from_static(bytes: &'static [u8]) -> Result<Self, ReadError> {
        Self::from_static_with_limits(bytes, Limits::default())
    }

    /// [`from_static`](Self::from_static) with custom [`Limits`].
    pub fn from_static_with_limits(
        bytes: &'static [u8],
        limits: Limits,
    ) -> Result<Self, ReadError> {
        Self::with_backing(Backing::Static(bytes), limits)
    }

    /// Opens a pack from owned bytes (copied once into a 16-aligned buffer).
    pub fn from_bytes(bytes: impl AsRef<[u8]>) -> Result<Self, ReadError> {
        Self::from_bytes_with_limits(bytes, Limits::default())
    }

    /// [`from_bytes`](Self::from_bytes) with custom [`Limits`].
    pub fn from_bytes_with_limits(
        bytes: impl AsRef<[u8]>,
        limits: Limits,
    ) -> Result<Self, ReadError> {
        Self::with_backing(
            Backing::Owned(AlignedBytes::copy_from(bytes.as_ref())),
            limits,
        )
    }

    fn with_backing(backing: Backing, limits: Limits) -> Result<Self, ReadError> {
        let backing = Arc::new(backing);
        let bytes = backing.as_slice();
        let layout = match hpack::sniff_version(bytes)? {
            2 => Layout::V2(hpack::parse_v2(bytes, limits.max_entries)?),
            3..=5 => {
                let layout = V3Layout::parse(bytes)?;
                // The hash index keeps file slot indices in 31 bits.
                if layout.len() > limits.max_entries || layout.len() >= 1 << 31 {
                    return Err(ReadError::LimitExceeded {
                        what: "pack entry count",
                    });
                }
                Layout::V3(layout)
            }
            version => {
                return Err(ReadError::UnsupportedVersion {
                    format: ".hpack",
                    version,
                })
            }
        };
        Ok(Self {
            backing,
            layout,
            limits,
            manifest: OnceLock::new(),
            names: OnceLock::new(),
            v2_hashes: OnceLock::new(),
            hash_index: OnceLock::new(),
            #[cfg(feature = "verify")]
            digests_checked: None,
        })
    }

    /// Memory-maps and opens a signed pack (v5), checking its signature against `key`: an
    /// unsigned pack, another key or any changed byte of the header and tables is an error
    /// here; each entry's bytes are checked against their signed BLAKE3 digest before the
    /// entry is first handed out (so `get`, `find`, `entries` … never return unchecked
    /// bytes). A mapped file that another process rewrites in place after an entry was
    /// checked is outside this guarantee: for packs an attacker can write to while the game
    /// runs, use [`from_bytes_signed`](Self::from_bytes_signed), which reads them into memory.
    #[cfg(feature = "verify")]
    #[cfg_attr(docsrs, doc(cfg(feature = "verify")))]
    pub fn open_signed(
        path: impl AsRef<Path>,
        key: &crate::read::signed::PublicKey,
    ) -> Result<Self, ReadError> {
        Self::open(path)?.require_signature(key)
    }

    /// [`open_signed`](Self::open_signed) over owned bytes (copied once).
    #[cfg(feature = "verify")]
    #[cfg_attr(docsrs, doc(cfg(feature = "verify")))]
    pub fn from_bytes_signed(
        bytes: impl AsRef<[u8]>,
        key: &crate::read::signed::PublicKey,
    ) -> Result<Self, ReadError> {
        Self::from_bytes(bytes)?.require_signature(key)
    }

    /// [`open_signed`](Self::open_signed) over static bytes ([`include_pak!`](crate::include_pak)).
    #[cfg(feature = "verify")]
    #[cfg_attr(docsrs, doc(cfg(feature = "verify")))]
    pub fn from_static_signed(
        bytes: &'static [u8],
        key: &crate::read::signed::PublicKey,
    ) -> Result<Self, ReadError> {
        Self::from_static(bytes)?.require_signature(key)
    }

    #[cfg(feature = "verify")]
    pub(crate) fn require_signature(
        mut self,
        key: &crate::read::signed::PublicKey,
    ) -> Result<Self, ReadError> {
        let Layout::V3(layout) = &self.layout else {
            return Err(ReadError::Signature {
                what: "the pack is not signed (pack v5 carries signatures)",
                entry: None,
            });
        };
        crate::read::signed::check_signature(layout, self.bytes(), key)?;
        self.digests_checked = Some((0..self.len()).map(|_| Default::default()).collect());
        Ok(self)
    }

    /// Whether the pack carries a signature (v5). Only a pack opened with
    /// [`open_signed`](Self::open_signed) (feature `verify`) has had it checked.
    pub fn is_signed(&self) -> bool {
        matches!(&self.layout, Layout::V3(layout) if layout.is_signed())
    }

    /// The public key stored in a signed pack's signature block, unchecked (for tools: which
    /// key to verify with). `None` for unsigned packs.
    pub fn signer_key(&self) -> Option<[u8; 32]> {
        match &self.layout {
            Layout::V3(layout) => layout.signature_parts(self.bytes()).map(|(_, key, _)| *key),
            Layout::V2(_) => None,
        }
    }

    /// With a signed open, checks entry `index`'s stored bytes against its signed digest (once).
    #[cfg(feature = "verify")]
    fn check_digest(
        &self,
        layout: &V3Layout,
        index: usize,
        stored: &[u8],
    ) -> Result<(), ReadError> {
        use std::sync::atomic::Ordering::Relaxed;
        let Some(checked) = &self.digests_checked else {
            return Ok(());
        };
        if checked[index].load(Relaxed) {
            return Ok(());
        }
        let matches = layout
            .digest(self.bytes(), index)
            .is_some_and(|digest| crate::read::signed::digest_matches(digest, stored));
        if !matches {
            return Err(ReadError::Signature {
                what: "entry bytes do not match their signed digest",
                entry: Some(index as u32),
            });
        }
        checked[index].store(true, Relaxed);
        Ok(())
    }

    /// The [`Limits`] the pack was opened with.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The whole pack's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.backing.as_slice()
    }

    /// The pack format version (2, 3, 4 or 5).
    pub fn version(&self) -> u32 {
        match &self.layout {
            Layout::V2(_) => 2,
            Layout::V3(layout) => layout.version(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match &self.layout {
            Layout::V2(entries) => entries.len(),
            Layout::V3(layout) => layout.len(),
        }
    }

    /// Whether the pack has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The v3, v4 or v5 header, for tools (`None` for v2 packs).
    pub fn v3_header(&self) -> Option<&hpack::V3Header> {
        match &self.layout {
            Layout::V3(layout) => Some(&layout.header),
            Layout::V2(_) => None,
        }
    }

    /// Entry `index`, in path order, validated.
    pub fn entry(&self, index: usize) -> Result<Entry<'_>, ReadError> {
        if index >= self.len() {
            return Err(ReadError::OutOfBounds {
                what: "entry index",
            });
        }
        let bytes = self.bytes();
        match &self.layout {
            Layout::V2(entries) => {
                let row = entries[index];
                // Path range and UTF-8 validated by `parse_v2`.
                let path =
                    std::str::from_utf8(&bytes[row.path_start..row.path_start + row.path_len])
                        .map_err(|_| ReadError::Invalid {
                            what: "pack entry path (not UTF-8)",
                        })?;
                Ok(Entry {
                    pack: self,
                    index: index as u32,
                    path: EntryPath::Whole(path),
                    kind: row.kind.asset_kind(),
                    codec: Codec::None,
                    offset: row.offset,
                    stored_size: row.size,
                    size: row.size,
                    checksum: None,
                })
            }
            Layout::V3(layout) => self.v3_entry(layout, index, false),
        }
    }

    /// Entry `index` (below `len`) of a v3+ pack, validated; its path too unless
    /// `path_checked` says that was done before (by the hash index build, or by a lookup that
    /// matched it against a query).
    fn v3_entry<'s>(
        &'s self,
        layout: &'s V3Layout,
        index: usize,
        path_checked: bool,
    ) -> Result<Entry<'s>, ReadError> {
        let bytes = self.bytes();
        let raw = layout.raw_entry(bytes, index);
        let (kind, codec) = layout.check_entry(&raw, self.limits.max_entry_size)?;
        if !path_checked {
            let (dir, name) = layout.path_parts(bytes, &raw)?;
            if std::str::from_utf8(dir).is_err() || std::str::from_utf8(name).is_err() {
                return Err(ReadError::Invalid {
                    what: "pack entry path (not UTF-8)",
                });
            }
        }
        #[cfg(feature = "verify")]
        self.check_digest(
            layout,
            index,
            // Range validated by `check_entry`.
            &bytes[raw.offset as usize..(raw.offset + raw.stored_size) as usize],
        )?;
        Ok(Entry {
            pack: self,
            index: index as u32,
            path: EntryPath::Row {
                layout,
                dir: raw.dir,
                name_offset: raw.name_offset,
                name_len: raw.name_len,
            },
            kind,
            codec,
            offset: raw.offset,
            stored_size: raw.stored_size,
            size: raw.size,
            checksum: Some(raw.checksum),
        })
    }

    /// Every entry's path and kind in path order, each row validated as [`entry`](Self::entry)
    /// validates it but no payload read: a signed open's digest checks (O(payload bytes)) are
    /// left to the reads. The tables hold both, and a signature covers the tables. A layered
    /// mount lists a layer this way.
    pub(crate) fn paths_and_kinds(&self) -> Result<Vec<(Box<str>, AssetKind)>, ReadError> {
        let Layout::V3(layout) = &self.layout else {
            return self
                .entries()
                .map(|entry| entry.map(|e| (e.path().into(), e.kind())))
                .collect();
        };
        let bytes = self.bytes();
        (0..layout.len())
            .map(|index| {
                let raw = layout.raw_entry(bytes, index);
                let (kind, _) = layout.check_entry(&raw, self.limits.max_entry_size)?;
                let (dir, name) = layout.path_parts(bytes, &raw)?;
                let utf8 = |text| {
                    std::str::from_utf8(text).map_err(|_| ReadError::Invalid {
                        what: "pack entry path (not UTF-8)",
                    })
                };
                let (dir, name) = (utf8(dir)?, utf8(name)?);
                let path = match dir.is_empty() {
                    true => name.into(),
                    false => format!("{dir}/{name}").into(),
                };
                Ok((path, kind))
            })
            .collect()
    }

    /// All entries in path order; each item is validated as it is produced.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Result<Entry<'_>, ReadError>> + '_ {
        (0..self.len()).map(move |index| self.entry(index))
    }

    /// The entry at runtime path `path`: for v3 and later through the in-memory hash index
    /// (the path's hash, its slot, one path comparison per entry of that hash); for v2 a
    /// binary search over the sorted table.
    pub fn find(&self, path: &str) -> Result<Option<Entry<'_>>, ReadError> {
        match &self.layout {
            Layout::V3(layout) => self.find_v3(layout, path, hash_runtime_path(path)),
            Layout::V2(_) => self.find_sorted(path),
        }
    }

    /// [`find`](Self::find) when the caller has hashed the path already
    /// (`hash == hash_runtime_path(path)`): a layered mount hashes each query once.
    pub(crate) fn find_hashed(
        &self,
        path: &str,
        hash: u64,
    ) -> Result<Option<Entry<'_>>, ReadError> {
        match &self.layout {
            Layout::V3(layout) => self.find_v3(layout, path, hash),
            Layout::V2(_) => self.find_sorted(path),
        }
    }

    /// Every entry whose path hashes to `hash` (paths that differ only in ASCII case, or by a
    /// `.ktx2` extension), in path order. For the rare lookup by hash whose first entry a
    /// layered mount hides.
    pub(crate) fn find_all_by_hash(&self, hash: u64) -> Result<Vec<Entry<'_>>, ReadError> {
        let mut found = Vec::new();
        if let Layout::V3(layout) = &self.layout {
            let bytes = self.bytes();
            let slots = (first_hash_slot(layout, bytes, hash)..layout.len())
                .map(|i| layout.raw_hash_slot(bytes, i))
                .take_while(|slot| slot.hash == hash);
            for slot in slots {
                if (slot.entry as usize) < layout.len() {
                    found.push(self.entry(slot.entry as usize)?);
                }
            }
        } else {
            for entry in self.entries() {
                let entry = entry?;
                if entry.hash() == hash {
                    found.push(entry);
                }
            }
        }
        found.sort_by_key(|e| e.index);
        Ok(found)
    }

    /// A v3+ lookup by path through the hash index.
    fn find_v3<'s>(
        &'s self,
        layout: &'s V3Layout,
        path: &str,
        hash: u64,
    ) -> Result<Option<Entry<'s>>, ReadError> {
        let bytes = self.bytes();
        let query = path.as_bytes();
        let Some(first) = self.hash_index(layout).get(layout, bytes, hash) else {
            return Ok(None);
        };
        if first.checked() {
            // The usual case: the first entry of this hash is the one; its name and row
            // are read in parallel.
            let (query_dir, query_name) = match path.rfind('/') {
                Some(slash) => (&query[..slash], &query[slash + 1..]),
                None => (&[][..], query),
            };
            let name = layout.name(bytes, first.name_offset, query_name.len());
            let raw = layout.raw_entry(bytes, first.entry());
            if name.is_ok_and(|name| name == query_name)
                && raw.name_len as usize == query_name.len()
                && layout.dir_name(bytes, raw.dir).is_ok_and(|dir| {
                    dir == query_dir
                        && (raw.dir == hpack::ROOT_DIR) == (query.len() == query_name.len())
                })
            {
                return self.v3_entry(layout, first.entry(), true).map(Some);
            }
        }
        // Every entry of this hash, from the file's sorted hash slots: entries that share
        // it, and first entries that failed validation or whose name holds a `/`.
        let candidates = (first_hash_slot(layout, bytes, hash)..layout.len())
            .map(|i| layout.raw_hash_slot(bytes, i))
            .take_while(|slot| slot.hash == hash)
            .map(|slot| slot.entry as usize);
        for index in candidates {
            if index >= layout.len() {
                continue; // a corrupt slot: `verify` reports it
            }
            let raw = layout.raw_entry(bytes, index);
            let (dir, name) = layout.path_parts(bytes, &raw)?;
            if cmp_path(dir, name, query) == Ordering::Equal {
                // Equal to a `&str`: in bounds and UTF-8.
                return self.v3_entry(layout, index, true).map(Some);
            }
        }
        Ok(None)
    }

    /// A lookup by path as a binary search over the sorted table (v2).
    fn find_sorted(&self, path: &str) -> Result<Option<Entry<'_>>, ReadError> {
        let bytes = self.bytes();
        let query = path.as_bytes();
        let (mut low, mut high) = (0usize, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            let order = match &self.layout {
                Layout::V2(entries) => {
                    let row = entries[mid];
                    bytes[row.path_start..row.path_start + row.path_len].cmp(query)
                }
                Layout::V3(layout) => {
                    let raw = layout.raw_entry(bytes, mid);
                    let (dir, name) = layout.path_parts(bytes, &raw)?;
                    cmp_path(dir, name, query)
                }
            };
            match order {
                Ordering::Less => low = mid + 1,
                Ordering::Greater => high = mid,
                Ordering::Equal => return self.entry(mid).map(Some),
            }
        }
        Ok(None)
    }

    /// The bytes of the entry at `path`: borrowed when stored, decompressed otherwise.
    pub fn get(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        self.find(path)?.map(|entry| entry.bytes()).transpose()
    }

    /// The bytes of the entry at `path` into `out` (contents replaced, allocation reused):
    /// `Ok(false)`, `out` untouched, when there is no such entry. For loops that read many
    /// entries, this saves an allocation per compressed entry over [`get`](Self::get).
    pub fn get_into(&self, path: &str, out: &mut Vec<u8>) -> Result<bool, ReadError> {
        match self.find(path)? {
            Some(entry) => entry.bytes_into(out).map(|()| true),
            None => Ok(false),
        }
    }

    /// The entry whose asset hash (see [`crate::format::hash`]) is `hash`.
    pub fn find_by_hash(&self, hash: u64) -> Result<Option<Entry<'_>>, ReadError> {
        let index = match &self.layout {
            Layout::V3(layout) => {
                return match self.hash_index(layout).get(layout, self.bytes(), hash) {
                    Some(slot) => self
                        .v3_entry(layout, slot.entry(), slot.checked())
                        .map(Some),
                    None => Ok(None),
                };
            }
            Layout::V2(_) => {
                let hashes = self.v2_hashes.get_or_init(|| {
                    let mut hashes: Vec<(u64, u32)> = self
                        .entries()
                        .filter_map(|e| e.ok().map(|e| (hash_runtime_path(&e.path()), e.index)))
                        .collect();
                    hashes.sort_unstable();
                    hashes
                });
                let at = hashes.partition_point(|(h, _)| *h < hash);
                match hashes.get(at) {
                    Some((h, index)) if *h == hash => *index as usize,
                    _ => return Ok(None),
                }
            }
        };
        self.entry(index).map(Some)
    }

    /// The in-memory hash index, built on first use.
    fn hash_index(&self, layout: &V3Layout) -> &HashIndex {
        self.hash_index
            .get_or_init(|| HashIndex::build(layout, self.bytes(), self.limits.max_entry_size))
    }

    /// The bytes of the entry whose asset hash is `hash`.
    pub fn get_by_hash(&self, hash: u64) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        self.find_by_hash(hash)?
            .map(|entry| entry.bytes())
            .transpose()
    }

    /// The pack's `assets.hman`, parsed once and kept (empty if the pack has none).
    pub fn manifest(&self) -> Result<&[ManifestRecord], ReadError> {
        let manifest = self.manifest.get_or_init(|| {
            let Some(bytes) = self.get(hman::MANIFEST_PATH)? else {
                return Ok(Vec::new());
            };
            manifest_records(&bytes)
        });
        manifest.as_deref().map_err(Clone::clone)
    }

    /// The pack's name table (`assets.hnames`), read and validated once (an empty table for
    /// a pack baked before names existed).
    pub fn names(&self) -> Result<NameTable<'_>, ReadError> {
        let names = self
            .names
            .get_or_init(|| Names::new(self.get(NAMES_PATH)?.as_deref()));
        names.as_ref().map(Names::table).map_err(Clone::clone)
    }

    /// The row named `name` in the pack's `assets.hnames` (of the lowest kind when several
    /// kinds share it; [`names`](Self::names) has per-kind lookups). An error names `name`.
    pub fn lookup_name(&self, name: &str) -> Result<Option<NameRecord>, ReadError> {
        let table = self.names().map_err(named(name))?;
        Ok(table.lookup(name).map(NameRecord::from))
    }

    /// The bytes of the file `name` names (for a sub-asset, its whole file). An error names
    /// `name`.
    pub fn get_by_name(&self, name: &str) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        let table = self.names().map_err(named(name))?;
        match table.lookup(name) {
            Some(row) => self.get(row.path).map_err(named(name)),
            None => Ok(None),
        }
    }

    /// Resolves an asset hash to its runtime path through the pack's `assets.hman`.
    pub fn resolve(&self, hash: u64) -> Result<Option<&ManifestRecord>, ReadError> {
        Ok(find_record(self.manifest()?, hash))
    }

    crate::read::asset::typed_loads!();

    /// Deprecated: [`find_by_hash`](Self::find_by_hash) gives the same entry (the vocabulary
    /// is `get*` = bytes, `find*` = the entry's metadata, `load*` = an owned typed asset).
    #[deprecated(since = "0.2.0", note = "use `find_by_hash` (same entry)")]
    pub fn asset(&self, hash: u64) -> Result<Option<Entry<'_>>, ReadError> {
        match self.resolve(hash)? {
            Some(record) => self.find(&record.path),
            None => Ok(None),
        }
    }
}

/// Where an [`Entry`]'s path is.
#[derive(Clone, Copy)]
enum EntryPath<'a> {
    /// v2: the whole path.
    Whole(&'a str),
    /// v3 and later: the row's directory and name, validated when the entry was made and read
    /// again when asked (lookups by hash never touch the strings).
    Row {
        layout: &'a V3Layout,
        dir: u32,
        name_offset: u32,
        name_len: u16,
    },
}

impl std::fmt::Debug for EntryPath<'_> {
    // The row's numbers, not the layout they point into.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Whole(path) => f.debug_tuple("Whole").field(path).finish(),
            Self::Row {
                dir,
                name_offset,
                name_len,
                ..
            } => f
                .debug_struct("Row")
                .field("dir", dir)
                .field("name_offset", name_offset)
                .field("name_len", name_len)
                .finish(),
        }
    }
}

/// One validated pack entry.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// for entry in pak.entries() {
///     let entry: hearth::Entry = entry?;
///     let (size, stored) = (entry.size(), entry.stored_size());
///     println!("{} {}: {size} bytes, {stored} stored ({})", entry.kind(), entry.path(), entry.codec().name());
/// }
/// let long = pak.find("notes/long.txt")?.expect("in the pack");
/// assert_eq!(long.bytes()?.len(), 6000);
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pack: &'a PakReader,
    index: u32,
    path: EntryPath<'a>,
    kind: AssetKind,
    codec: Codec,
    offset: u64,
    stored_size: u64,
    size: u64,
    checksum: Option<u64>,
}

impl<'a> Entry<'a> {
    /// Index in path order.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// Runtime path, `/`-separated.
    pub fn path(&self) -> Cow<'a, str> {
        let (layout, dir, name_offset, name_len) = match self.path {
            EntryPath::Whole(path) => return Cow::Borrowed(path),
            EntryPath::Row {
                layout,
                dir,
                name_offset,
                name_len,
            } => (layout, dir, name_offset, name_len),
        };
        let row = hpack::V3Entry {
            dir,
            name_offset,
            name_len,
            ..bytemuck::Zeroable::zeroed()
        };
        // Bounds and UTF-8 were checked when the entry was made and the pack's bytes do not
        // change, so neither fallback is taken (a mapped file rewritten in place by another
        // process could only read as replacement characters).
        let (dir, name) = layout
            .path_parts(self.pack.bytes(), &row)
            .unwrap_or_default();
        let (dir, name) = (String::from_utf8_lossy(dir), String::from_utf8_lossy(name));
        if dir.is_empty() {
            name
        } else {
            Cow::Owned(format!("{dir}/{name}"))
        }
    }

    /// The pack the entry lives in.
    pub(crate) fn pack(&self) -> &'a PakReader {
        self.pack
    }

    /// The asset hash of the path.
    pub fn hash(&self) -> u64 {
        hash_runtime_path(&self.path())
    }

    /// The entry's kind, from the one table `assets.hman` uses too: stored as is in v4 (any
    /// value; kinds this reader does not name are opaque entries), mapped from assetc's
    /// [`PackKind`](crate::format::hpack::PackKind) in v2 and v3.
    pub fn kind(&self) -> AssetKind {
        self.kind
    }

    /// How the payload is stored.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Payload offset in the pack.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Uncompressed size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Uncompressed size in bytes (what [`bytes`](Self::bytes) returns the length of).
    pub fn len(&self) -> usize {
        self.size as usize
    }

    /// Whether the entry is empty.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The entry's bytes, owned: shared with the pack when stored (no copy; the pack's
    /// mapping stays alive while they do), decompressed once otherwise.
    pub fn to_asset_bytes(&self) -> Result<AssetBytes, ReadError> {
        if self.codec == Codec::None {
            // Range validated when the entry was made.
            return Ok(AssetBytes::from_pack(
                &self.pack.backing,
                self.offset as usize,
                self.stored_size as usize,
            ));
        }
        let mut out = Vec::new();
        self.decompress_into(&mut out)?;
        Ok(AssetBytes::from_vec(out))
    }

    /// Size as stored in the pack.
    pub fn stored_size(&self) -> u64 {
        self.stored_size
    }

    /// The stored payload (compressed when [`codec`](Self::codec) is not `None`). Zero-copy.
    pub fn stored_bytes(&self) -> &'a [u8] {
        // Range validated when the entry was made.
        &self.pack.bytes()[self.offset as usize..(self.offset + self.stored_size) as usize]
    }

    /// The entry's bytes: borrowed from the pack when stored, decompressed otherwise.
    pub fn bytes(&self) -> Result<Cow<'a, [u8]>, ReadError> {
        if self.codec == Codec::None {
            return Ok(Cow::Borrowed(self.stored_bytes()));
        }
        let mut out = Vec::new();
        self.decompress_into(&mut out)?;
        Ok(Cow::Owned(out))
    }

    /// The entry's bytes into `out` (its contents replaced, its allocation reused when large
    /// enough): for reading many entries without an allocation each.
    pub fn bytes_into(&self, out: &mut Vec<u8>) -> Result<(), ReadError> {
        if self.codec == Codec::None {
            out.clear();
            out.extend_from_slice(self.stored_bytes());
            return Ok(());
        }
        self.decompress_into(out)
    }

    fn decompress_into(&self, out: &mut Vec<u8>) -> Result<(), ReadError> {
        let stored = self.stored_bytes();
        let decompress_error = || ReadError::Decompress {
            codec: self.codec.name(),
            entry: self.index,
        };
        if self.codec == Codec::Zstd {
            // The thread's reused zstd context, straight into `out`.
            return match super::zstd_context::inflate(stored, self.size, out) {
                true => Ok(()),
                false => Err(decompress_error()),
            };
        }
        // A (corrupt) declared size far beyond the stored bytes is decoded in a stream that
        // stops one byte past it.
        let capacity = (self.size as usize).min(stored.len().saturating_mul(32).max(4096));
        let limit = self.size + 1; // one byte more reveals an overlong stream
        out.clear();
        out.reserve(capacity);
        let result = match self.codec {
            Codec::None | Codec::Zstd => {
                unreachable!("stored entries are not decompressed, zstd inflates above")
            }
            Codec::Snap => snap::read::FrameDecoder::new(stored)
                .take(limit)
                .read_to_end(out),
            Codec::Brotli => brotli_decompressor::Decompressor::new(stored, 4096)
                .take(limit)
                .read_to_end(out),
        };
        match result {
            Ok(_) if out.len() as u64 == self.size => Ok(()),
            _ => {
                out.clear();
                Err(decompress_error())
            }
        }
    }

    /// The xxh3 checksum of the stored bytes (v3 and later; v2 stores none).
    pub fn checksum(&self) -> Option<u64> {
        self.checksum
    }

    /// Checks the stored bytes against the entry's checksum (v3, v4; v2 has none).
    pub fn verify(&self) -> Result<(), ReadError> {
        match self.checksum {
            Some(sum) if xxhash_rust::xxh3::xxh3_64(self.stored_bytes()) != sum => {
                Err(ReadError::ChecksumMismatch {
                    what: "payload",
                    entry: Some(self.index),
                })
            }
            _ => Ok(()),
        }
    }
}

impl AssetSource for PakReader {
    fn asset_bytes(&self, path: &str) -> Result<Option<AssetBytes>, ReadError> {
        self.find(path)?.map(|e| e.to_asset_bytes()).transpose()
    }

    fn path_of_hash(&self, hash: u64) -> Result<Option<String>, ReadError> {
        Ok(self.find_by_hash(hash)?.map(|e| e.path().into_owned()))
    }

    fn names(&self) -> Result<NameTable<'_>, ReadError> {
        PakReader::names(self)
    }
}
