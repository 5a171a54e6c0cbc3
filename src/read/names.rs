//! Asset names at run time: the `assets.hnames` table of a pack or tree (`docs/names.md`).
//!
//! [`NameTable`] is a zero-copy view (lookup by name is a binary search over the file's
//! rows); [`PakReader::lookup_name`](crate::PakReader::lookup_name) and
//! [`Assets::lookup_name`](crate::Assets::lookup_name) hand out owned [`NameRecord`]s. A pack
//! or tree baked before names existed has no table: it reads as an empty one.

use crate::format::hman::AssetKind;
use crate::format::hnames::{NameRow, NamesView};
use crate::read::error::ReadError;
use std::sync::Arc;

pub use crate::format::hnames::{NameRow as NameRef, NAMES_PATH};

/// An owned row of the name table.
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
            Some(index) => index
                .first_row(&self.view, name)
                .and_then(|i| self.view.row(i)),
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

/// Name hash -> the first row of that name: open addressing, linear probing, at most 0.5
/// load, each probe run bounded by [`NameIndex::MAX_PROBE`] (a table whose names crowd past
/// it, which a real bake does not make, gets no index: lookups binary-search instead).
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex {
    /// `(name hash, first row)`; row `u32::MAX` marks an empty slot.
    slots: Box<[(u64, u32)]>,
    shift: u32,
}

impl NameIndex {
    const MAX_PROBE: usize = 64;
    const EMPTY: u32 = u32::MAX;

    fn hash(name: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64(name)
    }

    fn build(view: &NamesView<'_>) -> Self {
        let count = view.len();
        if count == 0 || count >= Self::EMPTY as usize {
            return Self::default();
        }
        let size = (count * 2).next_power_of_two().max(2);
        let mut slots = vec![(0u64, Self::EMPTY); size].into_boxed_slice();
        let shift = 64 - size.trailing_zeros();
        let mut previous: Option<&str> = None;
        for (row, entry) in view.rows().enumerate() {
            if previous == Some(entry.name) {
                continue; // the same name of a higher kind: the first row stands for both
            }
            previous = Some(entry.name);
            let hash = Self::hash(entry.name.as_bytes());
            let home = (hash >> shift) as usize;
            let free = (0..Self::MAX_PROBE)
                .map(|step| (home + step) & (size - 1))
                .find(|&slot| slots[slot].1 == Self::EMPTY);
            match free {
                Some(slot) => slots[slot] = (hash, row as u32),
                None => return Self::default(),
            }
        }
        Self { slots, shift }
    }

    /// The first row named `name`; `None` when there is none. Without an index (empty, or
    /// a crowded table), the binary search.
    fn first_row(&self, view: &NamesView<'_>, name: &str) -> Option<usize> {
        if self.slots.is_empty() {
            let rows = view.find_all(name);
            return (!rows.is_empty()).then_some(rows.start);
        }
        let hash = Self::hash(name.as_bytes());
        let size = self.slots.len();
        let home = (hash >> self.shift) as usize;
        for step in 0..Self::MAX_PROBE {
            let (slot_hash, row) = self.slots[(home + step) & (size - 1)];
            if row == Self::EMPTY {
                return None;
            }
            if slot_hash == hash && view.name_bytes(row as usize) == Some(name.as_bytes()) {
                return Some(row as usize);
            }
        }
        None
    }
}

/// An error about the asset named `name`: the name first.
pub(crate) fn named(name: &str) -> impl Fn(ReadError) -> ReadError + '_ {
    move |error| ReadError::Named {
        name: name.into(),
        error: Box::new(error),
    }
}
