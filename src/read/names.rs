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

/// A name table read in place from its bytes.
#[derive(Debug, Clone, Copy)]
pub struct NameTable<'a> {
    view: NamesView<'a>,
}

impl<'a> NameTable<'a> {
    /// Parses and validates `assets.hnames` bytes (one pass; every row checked).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        NamesView::parse(bytes).map(|view| Self { view })
    }

    /// The table of a pack or tree without names.
    pub fn empty() -> NameTable<'static> {
        NameTable {
            view: NamesView::EMPTY,
        }
    }

    /// The row named `name`. Names are unique per kind: when several kinds share one (a
    /// model's mesh, material table and clips are all `Chair`), the lowest kind value's
    /// (texture, then mesh, material, …); [`lookup_kind`](Self::lookup_kind) picks one.
    pub fn lookup(&self, name: &str) -> Option<NameRef<'a>> {
        self.view.find(name)
    }

    /// The row named `name` of kind `kind`.
    pub fn lookup_kind(&self, name: &str, kind: AssetKind) -> Option<NameRef<'a>> {
        self.view.find_kind(name, kind)
    }

    /// Every row named `name`, one per kind, in kind order.
    pub fn lookup_all(&self, name: &str) -> impl Iterator<Item = NameRef<'a>> + '_ {
        self.view.find_all(name).filter_map(|i| self.view.row(i))
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

/// A name table's bytes, validated once and kept by a reader.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameBytes(Arc<[u8]>);

impl NameBytes {
    /// Validates `bytes` (`None`: no table, an empty one).
    pub(crate) fn new(bytes: Option<&[u8]>) -> Result<Self, ReadError> {
        let Some(bytes) = bytes else {
            return Ok(Self::default());
        };
        NamesView::parse(bytes)?;
        Ok(Self(bytes.into()))
    }

    /// The table over the kept bytes (validated at [`new`](Self::new): this only slices).
    pub(crate) fn table(&self) -> NameTable<'_> {
        match self.0.is_empty() {
            true => NameTable::empty(),
            false => NameTable {
                view: NamesView::validated(&self.0),
            },
        }
    }
}

/// An error about the asset named `name`: the name first.
pub(crate) fn named(name: &str) -> impl Fn(ReadError) -> ReadError + '_ {
    move |error| ReadError::Named {
        name: name.into(),
        error: Box::new(error),
    }
}
