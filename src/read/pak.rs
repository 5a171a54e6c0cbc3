//! [`PakReader`]: opens `.hpack` v2, v3, v4 and v5 (signed) files and reads their entries.

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{self, AssetKind, ColorSpace};
use crate::format::hpack::{self, cmp_path, Codec, V2Entry, V3Layout};
use crate::read::aligned::AlignedBytes;
use crate::read::error::ReadError;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

/// Resource limits applied to untrusted data: a pack's entry table, an entry's or a KTX2
/// level's declared uncompressed size. Every limit is checked against the sizes the file
/// declares, before anything of that size is allocated; a file over a limit is a
/// [`ReadError::LimitExceeded`].
///
/// Build one from the defaults so that new limits keep their default:
/// `Limits { max_entry_size: 64 << 20, ..Limits::default() }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most entries a pack may declare. Default 16 Mi (2^24).
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

enum Backing {
    Mapped(memmap2::Mmap),
    Static(&'static [u8]),
    Owned(AlignedBytes),
}

enum Layout {
    /// v2 has variable-length TOC rows: parsed and validated once at open.
    V2(Vec<V2Entry>),
    /// v3, v4 and v5: header and table extents validated at open, each row on access.
    V3(V3Layout),
}

/// An owned row of the pack's `assets.hman`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestRecord {
    /// Asset hash.
    pub hash: u64,
    /// Asset kind.
    pub kind: AssetKind,
    /// Color space baked into the asset.
    pub color_space: ColorSpace,
    /// Runtime path.
    pub path: Box<str>,
}

/// A read-only `.hpack` (v2, v3 or v4): entries by path, by asset hash, or by index.
///
/// Opening validates the header and the table extents (v3 and v4: O(1); v2: one pass over its
/// TOC).
/// Each entry's range, codec and path are validated when the entry is accessed, so a corrupt
/// pack yields [`ReadError`]s, never a panic or an out-of-bounds read. [`verify`](Self::verify)
/// checks every checksum.
pub struct PakReader {
    backing: Backing,
    layout: Layout,
    limits: Limits,
    manifest: OnceLock<Result<Vec<ManifestRecord>, ReadError>>,
    /// v2 has no hash index; built on the first lookup by hash.
    v2_hashes: OnceLock<Vec<(u64, u32)>>,
    /// v3 and later: where each range of hashes starts in the sorted hash index, built on the
    /// first lookup (see [`HashBuckets`]).
    hash_buckets: OnceLock<HashBuckets>,
    /// Opened with a key ([`open_signed`](Self::open_signed)): which entries' digests have
    /// been checked (each is hashed once, before its first [`Entry`] is handed out).
    #[cfg(feature = "verify")]
    digests_checked: Option<Box<[std::sync::atomic::AtomicBool]>>,
}

/// An in-memory index over a v3+ pack's sorted hash slots: the hash's top `bits` bits pick a
/// bucket, `starts[b]..starts[b + 1]` are the slots in it. With about one bucket per entry a
/// lookup reads one `starts` pair and one or two slots: two cache misses instead of the
/// binary search's seventeen at 100k entries. 4 bytes per entry, built in one pass on the
/// first lookup. A pack whose slots are not sorted (corrupt; `verify` says so) gets ranges
/// that may miss entries, never ones outside the table.
#[derive(Debug)]
struct HashBuckets {
    shift: u32,
    starts: Box<[u32]>,
}

impl HashBuckets {
    fn build(layout: &hpack::V3Layout, bytes: &[u8]) -> Self {
        let len = layout.len();
        let bits = (len.max(2).next_power_of_two().trailing_zeros()).min(24);
        let shift = 64 - bits;
        let buckets = 1usize << bits;
        let mut starts = vec![len as u32; buckets + 1];
        let mut next = 0usize;
        for i in 0..len {
            let bucket = (layout.raw_hash_slot(bytes, i).hash >> shift) as usize;
            while next <= bucket {
                starts[next] = i as u32;
                next += 1;
            }
        }
        Self {
            shift,
            starts: starts.into_boxed_slice(),
        }
    }

    /// The slot indices of `hash`'s bucket.
    fn range(&self, hash: u64) -> std::ops::Range<usize> {
        let bucket = (hash >> self.shift) as usize;
        self.starts[bucket] as usize..self.starts[bucket + 1] as usize
    }
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
        let file = std::fs::File::open(path)?;
        if file.metadata()?.len() == 0 {
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
        let bytes: &[u8] = match &backing {
            Backing::Mapped(map) => map,
            Backing::Static(bytes) => bytes,
            Backing::Owned(owned) => owned.as_slice(),
        };
        let layout = match hpack::sniff_version(bytes)? {
            2 => Layout::V2(hpack::parse_v2(bytes, limits.max_entries)?),
            3..=5 => {
                let layout = V3Layout::parse(bytes)?;
                if layout.len() > limits.max_entries {
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
            v2_hashes: OnceLock::new(),
            hash_buckets: OnceLock::new(),
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
    fn require_signature(
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
        match &self.backing {
            Backing::Mapped(map) => map,
            Backing::Static(bytes) => bytes,
            Backing::Owned(owned) => owned.as_slice(),
        }
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
                    dir: "",
                    name: path,
                    kind: row.kind.asset_kind(),
                    codec: Codec::None,
                    offset: row.offset,
                    stored_size: row.size,
                    size: row.size,
                    checksum: None,
                })
            }
            Layout::V3(layout) => {
                let raw = layout.raw_entry(bytes, index);
                let (kind, codec) = layout.check_entry(&raw, self.limits.max_entry_size)?;
                let (dir, name) = layout.path_parts(bytes, &raw)?;
                #[cfg(feature = "verify")]
                self.check_digest(
                    layout,
                    index,
                    // Range validated by `check_entry`.
                    &bytes[raw.offset as usize..(raw.offset + raw.stored_size) as usize],
                )?;
                let utf8 = |b| {
                    std::str::from_utf8(b).map_err(|_| ReadError::Invalid {
                        what: "pack entry path (not UTF-8)",
                    })
                };
                Ok(Entry {
                    pack: self,
                    index: index as u32,
                    dir: utf8(dir)?,
                    name: utf8(name)?,
                    kind,
                    codec,
                    offset: raw.offset,
                    stored_size: raw.stored_size,
                    size: raw.size,
                    checksum: Some(raw.checksum),
                })
            }
        }
    }

    /// All entries in path order; each item is validated as it is produced.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Result<Entry<'_>, ReadError>> + '_ {
        (0..self.len()).map(move |index| self.entry(index))
    }

    /// The entry at runtime path `path`: for v3 and later through the hash index (the path's
    /// hash, its bucket, one path comparison per entry of that hash); for v2 a binary search
    /// over the sorted table.
    pub fn find(&self, path: &str) -> Result<Option<Entry<'_>>, ReadError> {
        let bytes = self.bytes();
        let query = path.as_bytes();
        if let Layout::V3(layout) = &self.layout {
            let hash = hash_runtime_path(path);
            for slot in self.hash_slots(layout, hash) {
                let index = slot as usize;
                if index >= layout.len() {
                    continue; // a corrupt slot: `verify` reports it
                }
                let raw = layout.raw_entry(bytes, index);
                let (dir, name) = layout.path_parts(bytes, &raw)?;
                if cmp_path(dir, name, query) == Ordering::Equal {
                    return self.entry(index).map(Some);
                }
            }
            return Ok(None);
        }
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
            Layout::V3(layout) => match self.hash_slots(layout, hash).next() {
                Some(entry) => entry as usize,
                None => return Ok(None),
            },
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

    /// The entry indices of the hash slots whose hash is `hash`, in index order: the hash's
    /// bucket, then a scan of its (on average one or two) slots.
    fn hash_slots<'s>(
        &'s self,
        layout: &'s hpack::V3Layout,
        hash: u64,
    ) -> impl Iterator<Item = u32> + 's {
        let buckets = self
            .hash_buckets
            .get_or_init(|| HashBuckets::build(layout, self.bytes()));
        let bytes = self.bytes();
        buckets
            .range(hash)
            .map(move |i| layout.raw_hash_slot(bytes, i))
            .skip_while(move |slot| slot.hash < hash)
            .take_while(move |slot| slot.hash == hash)
            .map(|slot| slot.entry)
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

    /// Resolves an asset hash to its runtime path through the pack's `assets.hman`.
    pub fn resolve(&self, hash: u64) -> Result<Option<&ManifestRecord>, ReadError> {
        Ok(find_record(self.manifest()?, hash))
    }

    /// The entry of the asset whose hash is `hash`, resolved through the pack's `assets.hman`
    /// (hash -> runtime path -> entry): how a material's texture ref becomes its `.ktx2`.
    pub fn asset(&self, hash: u64) -> Result<Option<Entry<'_>>, ReadError> {
        match self.resolve(hash)? {
            Some(record) => self.find(&record.path),
            None => Ok(None),
        }
    }

    /// Checks everything: the tables checksum (v3–v5), path order, the hash index against the
    /// paths (v3–v5), every entry's range, checksum and decompressed size, and that payloads
    /// follow each other in entry order with only zero bytes between them (so no byte of a
    /// pack goes unchecked). Opened with [`open_signed`](Self::open_signed), every entry's
    /// signed digest too.
    pub fn verify(&self) -> Result<(), ReadError> {
        if let Layout::V3(layout) = &self.layout {
            let [prefix, tables] = layout.checksummed_parts(self.bytes());
            if hpack::tables_checksum(prefix, tables) != layout.header.tables_checksum {
                return Err(ReadError::ChecksumMismatch {
                    what: "pack header and tables",
                    entry: None,
                });
            }
        }
        let mut previous: Option<String> = None;
        for entry in self.entries() {
            let entry = entry?;
            let path = entry.path();
            if previous.as_deref().is_some_and(|p| p >= &*path) {
                return Err(ReadError::Invalid {
                    what: "pack entry order (paths must ascend)",
                });
            }
            entry.verify()?;
            entry.bytes()?;
            previous = Some(path.into_owned());
        }
        if let Layout::V3(layout) = &self.layout {
            let mut last = None;
            for slot_index in 0..layout.len() {
                let slot = layout.raw_hash_slot(self.bytes(), slot_index);
                let entry = self.entry(slot.entry as usize)?;
                if slot.reserved != 0 || hash_runtime_path(&entry.path()) != slot.hash {
                    return Err(ReadError::Invalid {
                        what: "pack hash index (hash does not match path)",
                    });
                }
                if last.is_some_and(|l| l >= (slot.hash, slot.entry)) {
                    return Err(ReadError::Invalid {
                        what: "pack hash index order",
                    });
                }
                last = Some((slot.hash, slot.entry));
            }
            let bytes = self.bytes();
            let bad_layout = || ReadError::Invalid {
                what: "pack payload layout (payloads out of entry order, or non-zero padding)",
            };
            let zeros =
                |from: u64, to: u64| bytes[from as usize..to as usize].iter().all(|b| *b == 0);
            let mut end = layout.header.data_offset;
            for index in 0..layout.len() {
                // Ranges validated by `entry` in the loop above.
                let raw = layout.raw_entry(bytes, index);
                if raw.offset != hpack::align_up(end) || !zeros(end, raw.offset) {
                    return Err(bad_layout());
                }
                end = raw.offset + raw.stored_size;
            }
            if hpack::align_up(end) != layout.payload_end() || !zeros(end, layout.payload_end()) {
                return Err(bad_layout());
            }
        }
        Ok(())
    }
}

/// The owned rows of an `assets.hman` (a pack's entry or a tree's file).
pub(crate) fn manifest_records(bytes: &[u8]) -> Result<Vec<ManifestRecord>, ReadError> {
    Ok(hman::parse(bytes)?
        .into_iter()
        .map(|e| ManifestRecord {
            hash: e.hash,
            kind: e.kind,
            color_space: e.color_space,
            path: e.path.into(),
        })
        .collect())
}

/// The row for `hash` in rows sorted by hash (as `assets.hman` stores them).
pub(crate) fn find_record(records: &[ManifestRecord], hash: u64) -> Option<&ManifestRecord> {
    records
        .binary_search_by_key(&hash, |r| r.hash)
        .ok()
        .map(|i| &records[i])
}

/// One validated pack entry.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pack: &'a PakReader,
    index: u32,
    dir: &'a str,
    name: &'a str,
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
        if self.dir.is_empty() {
            Cow::Borrowed(self.name)
        } else {
            Cow::Owned(format!("{}/{}", self.dir, self.name))
        }
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
        // A (corrupt) declared size far beyond the stored bytes is decoded in a stream that
        // stops one byte past it.
        let plausible = super::zstd_context::plausible_size(stored, self.size);
        if self.codec == Codec::Zstd && plausible {
            // The thread's reused zstd context, straight into `out`.
            return match super::zstd_context::decompress_exact(stored, self.size as usize, out) {
                true => Ok(()),
                false => Err(decompress_error()),
            };
        }
        let capacity = (self.size as usize).min(stored.len().saturating_mul(32).max(4096));
        let limit = self.size + 1; // one byte more reveals an overlong stream
        out.clear();
        out.reserve(capacity);
        let result = match self.codec {
            Codec::None => unreachable!("stored entries are not decompressed"),
            Codec::Zstd => zstd::stream::read::Decoder::with_buffer(stored)
                .map_err(|_| decompress_error())?
                .take(limit)
                .read_to_end(out),
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
