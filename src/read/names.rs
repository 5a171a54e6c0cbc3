//! Asset names at run time: the `assets.hnames` table of a pack or tree (`docs/names.md`).
//!
//! [`NameTable`] is a zero-copy view (lookup by name is a binary search over the file's
//! rows); [`PakReader::lookup_name`](crate::PakReader::lookup_name) and
//! [`Assets::lookup_name`](crate::Assets::lookup_name) hand out owned [`NameRecord`]s. A pack
//! or tree baked before names existed has no table: it reads as an empty one.

use crate::format::hman::AssetKind;
use crate::format::hnames::{NameRow, NamesView, WHOLE};
use crate::read::error::ReadError;
use std::sync::Arc;

pub use crate::format::hnames::{NameRow as NameRef, NAMES_PATH};

/// An owned row of the name table.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let record: hearth::NameRecord = pak.lookup_name("long")?.expect("named");
/// assert_eq!(&*record.path, "notes/long.txt");
/// assert_eq!((record.kind, record.sub), (hearth::AssetKind::BLOB, None));
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameRecord {
    /// The name (`Rock`, `Rock^a`, `Fox#Survey`).
    pub name: Box<str>,
    /// The kind of the file (a sub-asset's: its file's, material or animation).
    pub kind: AssetKind,
    /// The file's asset hash, as in `assets.hman`.
    pub hash: u64,
    /// The file's runtime path.
    pub path: Box<str>,
    /// The material row or clip index inside the file; `None` for a whole file.
    pub sub: Option<u32>,
}

impl From<NameRow<'_>> for NameRecord {
    fn from(row: NameRow<'_>) -> Self {
        Self {
            name: row.name.into(),
            kind: row.kind,
            hash: row.hash,
            path: row.path.into(),
            sub: row.sub,
        }
    }
}

/// A name table read in place from its bytes. From a reader ([`Names`]), lookups by name go
/// through an in-memory hash index (one probe, then the row); from [`parse`](Self::parse)
/// alone, a binary search over the rows.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let names: hearth::NameTable = pak.names()?;
/// assert_eq!(names.len(), 2);
/// assert_eq!(names.lookup("hello").expect("named").path, "hello.txt");
/// for row in names.iter() {
///     println!("{} {} {}", row.name, row.kind, row.path);
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NameTable<'a> {
    view: NamesView<'a>,
    index: Option<&'a NameIndex>,
}

impl<'a> NameTable<'a> {
    /// Parses and validates `assets.hnames` bytes (one pass; every row checked).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        NamesView::parse(bytes).map(|view| Self { view, index: None })
    }

    /// The table of a pack or tree without names.
    pub fn empty() -> NameTable<'static> {
        NameTable {
            view: NamesView::EMPTY,
            index: None,
        }
    }

    /// The row named `name`. Names are unique per kind: when several kinds share one (a
    /// model's mesh, material table and clips are all `Chair`), the lowest kind value's
    /// (texture, then mesh, material, …); [`lookup_kind`](Self::lookup_kind) picks one.
    pub fn lookup(&self, name: &str) -> Option<NameRef<'a>> {
        match self.index {
            Some(index) => index.first(&self.view, name),
            None => self.view.find(name),
        }
    }

    /// The row named `name` of kind `kind`.
    pub fn lookup_kind(&self, name: &str, kind: AssetKind) -> Option<NameRef<'a>> {
        self.lookup_all(name).find(|row| row.kind == kind)
    }

    /// Every row named `name`, one per kind, in kind order.
    pub fn lookup_all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = NameRef<'a>> + 's {
        let rows = match self.index {
            Some(index) => match index.first_row(&self.view, name) {
                // The rows of one name are adjacent (sorted by name, then kind): at most
                // one per kind.
                Some(first) => first..(first + 256).min(self.view.len()),
                None => 0..0,
            },
            None => self.view.find_all(name),
        };
        rows.map_while(move |i| self.view.row(i).filter(|row| row.name == name))
    }

    /// The rows naming sub-assets of the file at `path` (material rows, clips, files baked
    /// beside it), in name order. A scan of the whole table: for tools and loading, not for
    /// a frame's hot path.
    pub fn subs_of<'p>(&self, path: &'p str) -> impl Iterator<Item = NameRef<'a>> + 'p
    where
        'a: 'p,
    {
        let view = self.view;
        (0..view.len())
            .filter_map(move |i| view.row(i))
            .filter(move |row| row.path == path && row.sub.is_some())
    }

    /// Every row, sorted by (name bytes, kind).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = NameRef<'a>> + '_ {
        self.view.rows()
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.view.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.view.is_empty()
    }
}

/// An owned name table, validated once and indexed by name hash: what the readers keep.
/// [`table`](Self::table) views it.
///
/// ```
/// use hearth::format::hnames::{self, NameRow};
/// let rows = [NameRow { name: "Rock^a", kind: hearth::AssetKind::MESH, hash: 1, path: "a/Rock.hmesh", sub: None }];
/// let names = hearth::Names::from_bytes(&hnames::write(&rows))?;
/// assert_eq!(names.table().lookup("Rock^a").unwrap().path, "a/Rock.hmesh");
/// assert!(names.table().lookup("Rock").is_none());
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Names {
    bytes: Arc<[u8]>,
    index: NameIndex,
}

impl Names {
    /// Validates `assets.hnames` bytes and indexes them.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReadError> {
        let view = NamesView::parse(bytes)?;
        let index = NameIndex::build(&view);
        Ok(Self {
            bytes: bytes.into(),
            index,
        })
    }

    /// Validates `bytes` (`None`: no table, an empty one).
    pub(crate) fn new(bytes: Option<&[u8]>) -> Result<Self, ReadError> {
        match bytes {
            Some(bytes) => Self::from_bytes(bytes),
            None => Ok(Self::default()),
        }
    }

    /// The table over the kept bytes (validated when made: this only slices).
    pub fn table(&self) -> NameTable<'_> {
        match self.bytes.is_empty() {
            true => NameTable::empty(),
            false => NameTable {
                view: NamesView::validated(&self.bytes),
                index: Some(&self.index),
            },
        }
    }
}

/// Name hash -> the first row of that name, laid out for a lookup to touch one cache line
/// (the 100 ns budget at 100k names is spent on misses):
///
/// - a 64-byte slot (one line: the mapping is page-aligned) holds a hash tag, the row, the
///   row's fields (asset hash, sub-asset, kind), where the name and its path sit in the text
///   area, and the name's first [`INLINE_NAME`] bytes, so a name that short is compared and
///   answered from the slot alone; the text area is read only to compare a longer name;
/// - slots and text share one anonymous mapping that asks for huge pages (Linux's
///   `MADV_HUGEPAGE`; elsewhere, or where refused, it is an ordinary mapping), so a lookup
///   misses the TLB once or not at all.
///
/// The price is memory: 64 bytes a slot, two slots a name (16 MiB of slots at 100k names).
///
/// Open addressing, linear probing, at most 0.5 load, each probe run bounded by
/// [`NameIndex::MAX_PROBE`] (a table whose names crowd past it, which a real bake does not
/// make, gets no index: lookups binary-search instead).
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    /// `[slots: slot_count × 64 B][text]`, little-endian. A slot: tag u32 | row + 1 u32 (0:
    /// empty, so that the zeroed mapping starts empty) | hash u64 | sub u32 | text offset u32
    /// | name length u16 | path length u16 | kind u8 | the name's first bytes.
    area: Option<memmap2::MmapMut>,
    slot_count: usize,
    shift: u32,
}

impl Clone for NameIndex {
    fn clone(&self) -> Self {
        let area = self.area.as_ref().and_then(|area| {
            let mut copy = memmap2::MmapMut::map_anon(area.len()).ok()?;
            copy.copy_from_slice(area);
            Some(copy)
        });
        Self {
            slot_count: if area.is_some() { self.slot_count } else { 0 },
            area,
            ..*self
        }
    }
}

/// A slot of [`NameIndex`], found: where it starts in the area, and its text.
#[derive(Debug, Clone, Copy)]
struct Slot {
    at: usize,
    text: usize,
    name_len: usize,
    path_len: usize,
    row: usize,
}

const SLOT_SIZE: usize = 64;
const INLINE_AT: usize = 29;
/// How many of a name's bytes its slot holds.
const INLINE_NAME: usize = SLOT_SIZE - INLINE_AT;

impl NameIndex {
    const MAX_PROBE: usize = 64;

    fn hash(name: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64(name)
    }

    fn build(view: &NamesView<'_>) -> Self {
        let count = view.len();
        let text_size: usize = view.rows().map(|r| r.name.len() + r.path.len()).sum();
        let slot_count = (count * 2).next_power_of_two().max(2);
        let text_start = slot_count * SLOT_SIZE;
        // Offsets are u32: a table past 4 GiB of text is not indexed.
        if count == 0 || count >= u32::MAX as usize || text_start + text_size > u32::MAX as usize {
            return Self::default();
        }
        let Ok(mut area) = memmap2::MmapMut::map_anon(text_start + text_size) else {
            return Self::default();
        };
        #[cfg(target_os = "linux")]
        let _ = area.advise(memmap2::Advice::HugePage); // a hint: refused is fine
        let shift = 64 - slot_count.trailing_zeros();
        let mut text = text_start;
        let mut previous: Option<&str> = None;
        for (row, entry) in view.rows().enumerate() {
            if previous == Some(entry.name) {
                continue; // the same name of a higher kind: the first row stands for both
            }
            previous = Some(entry.name);
            let hash = Self::hash(entry.name.as_bytes());
            let home = (hash >> shift) as usize;
            let free = (0..Self::MAX_PROBE)
                .map(|step| (home + step) & (slot_count - 1))
                .find(|&slot| read_u32(&area, slot * SLOT_SIZE + 4) == 0);
            let Some(slot) = free else {
                return Self::default();
            };
            // Lengths fit u16 (the format stores them so); offsets fit u32 (checked above).
            let raw = &mut area[slot * SLOT_SIZE..][..SLOT_SIZE];
            raw[0..4].copy_from_slice(&(hash as u32).to_le_bytes());
            raw[4..8].copy_from_slice(&(row as u32 + 1).to_le_bytes());
            raw[8..16].copy_from_slice(&entry.hash.to_le_bytes());
            raw[16..20].copy_from_slice(&entry.sub.unwrap_or(WHOLE).to_le_bytes());
            raw[20..24].copy_from_slice(&(text as u32).to_le_bytes());
            raw[24..26].copy_from_slice(&(entry.name.len() as u16).to_le_bytes());
            raw[26..28].copy_from_slice(&(entry.path.len() as u16).to_le_bytes());
            raw[28] = entry.kind.0;
            let inline = entry.name.len().min(INLINE_NAME);
            raw[INLINE_AT..INLINE_AT + inline].copy_from_slice(&entry.name.as_bytes()[..inline]);
            for part in [entry.name, entry.path] {
                area[text..text + part.len()].copy_from_slice(part.as_bytes());
                text += part.len();
            }
        }
        Self {
            area: Some(area),
            slot_count,
            shift,
        }
    }

    /// The slot of `name`; `None` when there is none (or no index).
    fn slot(&self, name: &str) -> Option<Slot> {
        let area = self.area.as_deref()?;
        let hash = Self::hash(name.as_bytes());
        let home = (hash >> self.shift) as usize;
        let inline = name.len().min(INLINE_NAME);
        for step in 0..Self::MAX_PROBE {
            let at = ((home + step) & (self.slot_count - 1)) * SLOT_SIZE;
            let raw = area.get(at..at + SLOT_SIZE)?;
            let row = read_u32(raw, 4) as usize;
            if row == 0 {
                return None;
            }
            let slot = Slot {
                at,
                text: read_u32(raw, 20) as usize,
                name_len: read_u16(raw, 24),
                path_len: read_u16(raw, 26),
                row: row - 1,
            };
            if read_u32(raw, 0) == hash as u32
                && slot.name_len == name.len()
                && raw[INLINE_AT..INLINE_AT + inline] == name.as_bytes()[..inline]
                && (name.len() <= INLINE_NAME
                    || area.get(slot.text..slot.text + slot.name_len) == Some(name.as_bytes()))
            {
                return Some(slot);
            }
        }
        None
    }

    /// The first row named `name`, from the index alone (the table's pool is not touched).
    /// Without an index (empty, or a crowded table), the binary search.
    fn first<'a>(&'a self, view: &NamesView<'a>, name: &str) -> Option<NameRef<'a>> {
        let Some(area) = self.area.as_deref() else {
            return view.find(name);
        };
        let slot = self.slot(name)?;
        let raw = area.get(slot.at..slot.at + SLOT_SIZE)?;
        let path_at = slot.text + slot.name_len;
        let sub = read_u32(raw, 16);
        // A name that fits its slot is answered from the slot, which this lookup holds in
        // cache; a longer one from the text it was just compared with.
        let name = match slot.name_len <= INLINE_NAME {
            true => raw.get(INLINE_AT..INLINE_AT + slot.name_len)?,
            false => area.get(slot.text..path_at)?,
        };
        Some(NameRef {
            name: std::str::from_utf8(name).ok()?,
            kind: AssetKind(raw[28]),
            hash: u64::from_le_bytes(raw[8..16].try_into().ok()?),
            path: text_str(area.get(path_at..path_at + slot.path_len)?),
            sub: (sub != WHOLE).then_some(sub),
        })
    }

    /// The index of the first row named `name`.
    fn first_row(&self, view: &NamesView<'_>, name: &str) -> Option<usize> {
        if self.area.is_none() {
            let rows = view.find_all(name);
            return (!rows.is_empty()).then_some(rows.start);
        }
        self.slot(name).map(|slot| slot.row)
    }
}

/// A path of [`NameIndex`]'s text area as text, without reading its bytes: a lookup hands it
/// out, and reading it to validate it would cost a cache miss the caller may never need.
fn text_str(bytes: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: `NameIndex::build` fills the text area only by copying whole `&str`s (a name,
    // then its path) and records each one's start and length, which is how `first` cuts
    // `bytes`; the mapping is private to the index and never written after `build` (every
    // later access is through `&self`; `Clone` copies it whole). So `bytes` are exactly the
    // bytes of a `str`: valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u16(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(at..at + 2)
        .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
}

/// An error about the asset named `name`: the name first.
pub(crate) fn named(name: &str) -> impl Fn(ReadError) -> ReadError + '_ {
    move |error| ReadError::Named {
        name: name.into(),
        error: Box::new(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hnames::{self, NameRow};

    /// The index answers exactly what the binary search answers: every name (multi-byte
    /// ones, names shared by several kinds, prefixes of each other), and nothing for names
    /// that are not there.
    #[test]
    fn the_index_agrees_with_the_binary_search() {
        let names: Vec<String> = (0..500)
            .map(|i| match i % 4 {
                0 => format!("Rock^folder_{i}"),
                1 => format!("Fox#Survey{i}"),
                2 => format!("Ünïcødé_{i}"),
                3 if i % 8 == 3 => format!("AVeryLongModelNameThatSpillsPastItsSlot_{i}#Sub"),
                _ => format!("R{i}"),
            })
            .collect();
        let paths: Vec<String> = (0..500).map(|i| format!("p/{i}/asset.hmesh")).collect();
        let mut rows: Vec<NameRow<'_>> = Vec::new();
        for (i, (name, path)) in names.iter().zip(&paths).enumerate() {
            let kinds: &[AssetKind] = match i % 5 {
                0 => &[AssetKind::MESH, AssetKind::MATERIAL, AssetKind::ANIMATION],
                _ => &[AssetKind::TEXTURE],
            };
            for (k, kind) in kinds.iter().enumerate() {
                let sub = (k > 0).then_some(k as u32);
                let hash = i as u64 * 8 + k as u64;
                rows.push(NameRow {
                    name,
                    kind: *kind,
                    hash,
                    path,
                    sub,
                });
            }
        }
        let bytes = hnames::write(&rows);
        let names_owned = Names::from_bytes(&bytes).unwrap();
        let indexed = names_owned.table();
        let searched = NameTable::parse(&bytes).unwrap();
        assert!(names_owned.index.area.is_some(), "the table is indexed");
        for name in &names {
            assert_eq!(indexed.lookup(name), searched.lookup(name), "{name}");
            assert!(indexed.lookup(name).is_some());
            let all: Vec<_> = indexed.lookup_all(name).collect();
            assert_eq!(all, searched.lookup_all(name).collect::<Vec<_>>(), "{name}");
            let kind = all.last().unwrap().kind;
            assert_eq!(indexed.lookup_kind(name, kind), all.last().copied());
        }
        let cloned = names_owned.clone();
        assert!(cloned.index.area.is_some(), "a clone keeps its index");
        for name in names.iter().step_by(7) {
            assert_eq!(cloned.table().lookup(name), searched.lookup(name), "{name}");
        }
        for missing in [
            "",
            "Rock",
            "Fox#Survey",
            "Ünïcødé_",
            "R10000",
            "AVeryLongModelNameThatSpillsPastItsSlot_3#Suc",
            "p/1/asset.hmesh",
        ] {
            assert_eq!(indexed.lookup(missing), None, "{missing}");
            assert_eq!(indexed.lookup_all(missing).count(), 0, "{missing}");
        }
    }
}
