//! `assets.hnames` v1: the name table, readable names -> assets (`docs/names.md`).
//!
//! Layout (little-endian):
//!
//! ```text
//! Header (16 B): magic "HNAM" | version u32 = 1 | count u32 | poolSize u32
//! NameRow[count], 40 B each, sorted by (name bytes, kind) strictly ascending:
//!     hash u64 [0]        the asset hash, as in assets.hman
//!     prefix [u8; 8] [8]  the name's first 8 bytes, zero-padded (compared before the pool)
//!     nameOffset u32 [16] | pathOffset u32 [20]   into the pool
//!     sub u32 [24]        row or clip index inside the file; u32::MAX = the whole file
//!     nameLen u16 [28] | pathLen u16 [30]
//!     kind u8 [32] | reserved [u8; 7] [33] = 0
//! Pool (poolSize B): UTF-8 names and runtime paths, referenced by offset and length.
//! ```
//!
//! The file ends with the pool. A lookup by name is a binary search over the rows, comparing
//! the 8-byte prefixes first so that most steps never touch the pool.

use crate::format::error::{ReadBytes, ReadError};
use crate::format::hman::AssetKind;
use std::cmp::Ordering;

/// Magic bytes of an `.hnames` file.
pub const MAGIC: [u8; 4] = *b"HNAM";
/// The name-table version hearth writes and reads.
pub const VERSION: u32 = 1;
/// Size of the header.
pub const HEADER_SIZE: usize = 16;
/// Size of one row.
pub const ROW_SIZE: usize = 40;
/// The runtime path of the name table in every output tree and pack.
pub const NAMES_PATH: &str = "assets.hnames";
/// The `sub` value of a row naming a whole file.
pub const WHOLE: u32 = u32::MAX;

const FORMAT: &str = ".hnames";

/// One row of a name table, borrowing its strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRow<'a> {
    /// The name, verbatim (`Rock`, `Rock^a`, `Fox#Survey`).
    pub name: &'a str,
    /// The asset's kind (a sub-asset's: material for a material row, animation for a clip).
    pub kind: AssetKind,
    /// The asset hash of the file holding it (as in `assets.hman`).
    pub hash: u64,
    /// The runtime path of that file.
    pub path: &'a str,
    /// The row (material) or clip (animation) index inside the file; `None` for a whole file.
    pub sub: Option<u32>,
}

/// The fields of a row stored in the row itself (see [`NamesView::fixed_fields`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowFields {
    /// The asset hash of the file.
    pub hash: u64,
    /// The asset's kind.
    pub kind: AssetKind,
    /// The row or clip index inside the file; `None` for a whole file.
    pub sub: Option<u32>,
}

/// The order of rows: name bytes, then kind.
fn row_order(a: &NameRow<'_>, b: &NameRow<'_>) -> Ordering {
    a.name
        .as_bytes()
        .cmp(b.name.as_bytes())
        .then(a.kind.cmp(&b.kind))
}

/// The 8-byte, zero-padded prefix of `name` as a big-endian number: ordered like the names
/// whenever two prefixes differ (names hold no NUL bytes, see [`parse`]).
fn prefix_key(name: &[u8]) -> u64 {
    let mut prefix = [0u8; 8];
    let len = name.len().min(8);
    prefix[..len].copy_from_slice(&name[..len]);
    u64::from_be_bytes(prefix)
}

/// Serializes `rows` (in any order): sorted by (name, kind), strings pooled (a path shared by
/// several rows is stored once).
///
/// # Panics
/// When two rows share a (name, kind), a name is empty or holds a NUL byte, or a name or path
/// is longer than `u16::MAX`: caller bugs, which the baker rules out before it gets here.
pub fn write(rows: &[NameRow<'_>]) -> Vec<u8> {
    let mut sorted = rows.to_vec();
    sorted.sort_by(row_order);
    assert!(
        sorted
            .windows(2)
            .all(|w| row_order(&w[0], &w[1]) == Ordering::Less),
        "name rows must be unique by (name, kind)"
    );
    let mut pool: Vec<u8> = Vec::new();
    // Paths repeat (a model's sub-assets share their file's); names do not.
    let mut pooled_paths: std::collections::HashMap<&str, u32> = Default::default();
    let append = |text: &str, pool: &mut Vec<u8>| -> u32 {
        let at = u32::try_from(pool.len()).expect("name pool over 4 GiB");
        pool.extend_from_slice(text.as_bytes());
        at
    };
    let mut table = Vec::with_capacity(HEADER_SIZE + ROW_SIZE * sorted.len());
    table.extend_from_slice(&MAGIC);
    table.extend_from_slice(&VERSION.to_le_bytes());
    table.extend_from_slice(&(sorted.len() as u32).to_le_bytes());
    table.extend_from_slice(&0u32.to_le_bytes()); // pool size, set below
    for row in &sorted {
        assert!(
            !row.name.is_empty() && !row.name.contains('\0'),
            "empty name or NUL in a name"
        );
        let name_len = u16::try_from(row.name.len()).expect("name over 65535 bytes");
        let path_len = u16::try_from(row.path.len()).expect("path over 65535 bytes");
        let name_at = append(row.name, &mut pool);
        let path_at = match pooled_paths.get(row.path) {
            Some(&at) => at,
            None => append(row.path, &mut pool),
        };
        pooled_paths.insert(row.path, path_at);
        table.extend_from_slice(&row.hash.to_le_bytes());
        table.extend_from_slice(&prefix_key(row.name.as_bytes()).to_be_bytes());
        table.extend_from_slice(&name_at.to_le_bytes());
        table.extend_from_slice(&path_at.to_le_bytes());
        table.extend_from_slice(&row.sub.unwrap_or(WHOLE).to_le_bytes());
        table.extend_from_slice(&name_len.to_le_bytes());
        table.extend_from_slice(&path_len.to_le_bytes());
        table.push(row.kind.0);
        table.extend_from_slice(&[0; 7]);
    }
    let pool_size = u32::try_from(pool.len()).expect("name pool over 4 GiB");
    table[12..16].copy_from_slice(&pool_size.to_le_bytes());
    table.extend_from_slice(&pool);
    table
}

/// A validated name table over its bytes: lookups by name are binary searches, rows are read
/// in place (nothing is copied).
#[derive(Debug, Clone, Copy)]
pub struct NamesView<'a> {
    rows: &'a [u8],
    pool: &'a [u8],
}

impl<'a> NamesView<'a> {
    /// An empty table (a pack baked before names existed).
    pub const EMPTY: NamesView<'static> = NamesView {
        rows: &[],
        pool: &[],
    };

    /// Parses and validates a whole table: magic, version, sizes, every row's strings in the
    /// pool and UTF-8, names non-empty without NUL, rows strictly ascending by (name, kind),
    /// reserved bytes zero, no trailing bytes. One pass, bounded by the file's length.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        if bytes.slice_at(0, 4, "name table header")? != MAGIC {
            return Err(ReadError::BadMagic { format: FORMAT });
        }
        let version = bytes.u32_at(4, "name table header")?;
        if version != VERSION {
            return Err(ReadError::UnsupportedVersion {
                format: FORMAT,
                version,
            });
        }
        let count = bytes.u32_at(8, "name table header")? as usize;
        let pool_size = bytes.u32_at(12, "name table header")? as usize;
        // Bounded before any loop: the rows must fit in the file.
        if count > (bytes.len() - HEADER_SIZE) / ROW_SIZE {
            return Err(ReadError::Truncated {
                what: "name table rows",
            });
        }
        let pool_at = HEADER_SIZE + count * ROW_SIZE;
        let pool = bytes.slice_at(pool_at, pool_size, "name table pool")?;
        if pool_at + pool_size != bytes.len() {
            return Err(ReadError::Invalid {
                what: "name table length (trailing bytes)",
            });
        }
        let view = NamesView {
            rows: &bytes[HEADER_SIZE..pool_at],
            pool,
        };
        let mut previous: Option<NameRow<'_>> = None;
        for index in 0..count {
            let row = view.checked_row(index)?;
            if previous.is_some_and(|p| row_order(&p, &row) != Ordering::Less) {
                return Err(ReadError::Invalid {
                    what: "name table order (rows must ascend by name and kind)",
                });
            }
            previous = Some(row);
        }
        Ok(view)
    }

    /// The view over bytes [`parse`](Self::parse) accepted before, in O(1): only the header
    /// is read again. Bytes it never accepted give a view whose rows may read as absent or
    /// whose lookups miss, never a panic.
    pub fn validated(bytes: &'a [u8]) -> Self {
        let count = bytes.u32_at(8, "").unwrap_or(0) as usize;
        let rows_end = count
            .checked_mul(ROW_SIZE)
            .and_then(|size| size.checked_add(HEADER_SIZE))
            .filter(|end| *end <= bytes.len());
        match rows_end {
            Some(end) => NamesView {
                rows: &bytes[HEADER_SIZE..end],
                pool: &bytes[end..],
            },
            None => NamesView {
                rows: &[],
                pool: &[],
            },
        }
    }

    /// Row `index`, validated (used once per row by [`parse`](Self::parse)).
    fn checked_row(&self, index: usize) -> Result<NameRow<'a>, ReadError> {
        let at = index * ROW_SIZE;
        let raw = self.rows.slice_at(at, ROW_SIZE, "name table row")?;
        if raw[33..40].iter().any(|b| *b != 0) {
            return Err(ReadError::Invalid {
                what: "name table row (reserved bytes not zero)",
            });
        }
        let string = |offset: usize, len: usize, what: &'static str| {
            let bytes = self.pool.slice_at(offset, len, what)?;
            std::str::from_utf8(bytes).map_err(|_| ReadError::Invalid { what })
        };
        let name = string(
            raw.u32_at(16, "name table row")? as usize,
            raw.u16_at(28, "name table row")? as usize,
            "name table name",
        )?;
        if name.is_empty() || name.contains('\0') {
            return Err(ReadError::Invalid {
                what: "name table name (empty or holding NUL)",
            });
        }
        if raw.slice_at(8, 8, "name table row")? != prefix_key(name.as_bytes()).to_be_bytes() {
            return Err(ReadError::Invalid {
                what: "name table row (prefix does not match its name)",
            });
        }
        let path = string(
            raw.u32_at(20, "name table row")? as usize,
            raw.u16_at(30, "name table row")? as usize,
            "name table path",
        )?;
        let sub = raw.u32_at(24, "name table row")?;
        Ok(NameRow {
            name,
            kind: AssetKind(raw[32]),
            hash: raw.u64_at(0, "name table row")?,
            path,
            sub: (sub != WHOLE).then_some(sub),
        })
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows.len() / ROW_SIZE
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `index` (`None` past the end). Every row passed `checked_row` in `parse`, so this
    /// only slices; a failure (impossible) reads as an absent row, never a panic.
    pub fn row(&self, index: usize) -> Option<NameRow<'a>> {
        let raw = self.rows.get(index * ROW_SIZE..(index + 1) * ROW_SIZE)?;
        let fields = self.fixed_fields(index)?;
        Some(NameRow {
            name: self.pool_str(raw, 16, 28)?,
            kind: fields.kind,
            hash: fields.hash,
            path: self.pool_str(raw, 20, 30)?,
            sub: fields.sub,
        })
    }

    /// Row `index`'s fields that live in the row itself (not in the pool): what a lookup
    /// that already holds the name and path needs.
    pub fn fixed_fields(&self, index: usize) -> Option<RowFields> {
        let raw = self.rows.get(index * ROW_SIZE..(index + 1) * ROW_SIZE)?;
        let sub = u32::from_le_bytes(raw[24..28].try_into().ok()?);
        Some(RowFields {
            hash: u64::from_le_bytes(raw[0..8].try_into().ok()?),
            kind: AssetKind(raw[32]),
            sub: (sub != WHOLE).then_some(sub),
        })
    }

    /// Row `index`'s name bytes (no UTF-8 check: for comparing with a name asked for).
    pub fn name_bytes(&self, index: usize) -> Option<&'a [u8]> {
        let raw = self.rows.get(index * ROW_SIZE..(index + 1) * ROW_SIZE)?;
        self.pool_bytes(raw, 16, 28)
    }

    /// The pool string whose offset is at `offset_at` and length at `len_at` in `raw`.
    fn pool_str(&self, raw: &[u8], offset_at: usize, len_at: usize) -> Option<&'a str> {
        std::str::from_utf8(self.pool_bytes(raw, offset_at, len_at)?).ok()
    }

    /// The pool bytes whose offset is at `offset_at` and length at `len_at` in `raw`.
    fn pool_bytes(&self, raw: &[u8], offset_at: usize, len_at: usize) -> Option<&'a [u8]> {
        let offset = u32::from_le_bytes(raw.get(offset_at..offset_at + 4)?.try_into().ok()?);
        let len = u16::from_le_bytes(raw.get(len_at..len_at + 2)?.try_into().ok()?);
        let start = offset as usize;
        self.pool.get(start..start + len as usize)
    }

    /// How row `index` compares with `name` (by name only).
    fn compare(&self, index: usize, key: u64, name: &[u8]) -> Ordering {
        let Some(raw) = self.rows.get(index * ROW_SIZE..(index + 1) * ROW_SIZE) else {
            return Ordering::Greater;
        };
        let prefix = u64::from_be_bytes(raw[8..16].try_into().unwrap_or([0; 8]));
        match prefix.cmp(&key) {
            Ordering::Equal => match self.pool_bytes(raw, 16, 28) {
                Some(bytes) => bytes.cmp(name),
                None => Ordering::Greater,
            },
            unequal => unequal,
        }
    }

    /// The rows named `name`, one per kind, in kind order: a range of row indices.
    pub fn find_all(&self, name: &str) -> std::ops::Range<usize> {
        let key = prefix_key(name.as_bytes());
        let name = name.as_bytes();
        // Lower bound, then the (at most 256) rows of other kinds that follow it.
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.compare(mid, key, name) {
                Ordering::Less => low = mid + 1,
                _ => high = mid,
            }
        }
        let mut end = low;
        while end < self.len() && end - low < 256 && self.compare(end, key, name).is_eq() {
            end += 1;
        }
        low..end
    }

    /// The row named `name`: of the lowest kind value when several kinds share the name (a
    /// model's mesh before its material table).
    pub fn find(&self, name: &str) -> Option<NameRow<'a>> {
        let range = self.find_all(name);
        (!range.is_empty()).then(|| self.row(range.start)).flatten()
    }

    /// The row named `name` of kind `kind`.
    pub fn find_kind(&self, name: &str, kind: AssetKind) -> Option<NameRow<'a>> {
        self.find_all(name)
            .filter_map(|i| self.row(i))
            .find(|row| row.kind == kind)
    }

    /// Every row, in (name, kind) order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = NameRow<'a>> + '_ {
        let view = *self;
        (0..self.len()).map(move |i| {
            view.row(i).unwrap_or(NameRow {
                name: "",
                kind: AssetKind::BLOB,
                hash: 0,
                path: "",
                sub: None,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<NameRow<'static>> {
        vec![
            NameRow {
                name: "Rock^b",
                kind: AssetKind::TEXTURE,
                hash: 2,
                path: "b/Rock.ktx2",
                sub: None,
            },
            NameRow {
                name: "Fox#Survey",
                kind: AssetKind::ANIMATION,
                hash: 9,
                path: "models/Fox.hanim",
                sub: Some(0),
            },
            NameRow {
                name: "Rock^a",
                kind: AssetKind::TEXTURE,
                hash: 1,
                path: "a/Rock.ktx2",
                sub: None,
            },
            NameRow {
                name: "Fox",
                kind: AssetKind::MESH,
                hash: 7,
                path: "models/Fox.hmesh",
                sub: None,
            },
            NameRow {
                name: "Fox",
                kind: AssetKind::ANIMATION,
                hash: 9,
                path: "models/Fox.hanim",
                sub: None,
            },
        ]
    }

    #[test]
    fn round_trips_sorted_and_finds_by_name() {
        let bytes = write(&sample());
        assert_eq!(&bytes[0..4], b"HNAM");
        let view = NamesView::parse(&bytes).unwrap();
        let names: Vec<_> = view.rows().map(|r| (r.name, r.kind)).collect();
        assert_eq!(
            names,
            [
                ("Fox", AssetKind::MESH),
                ("Fox", AssetKind::ANIMATION),
                ("Fox#Survey", AssetKind::ANIMATION),
                ("Rock^a", AssetKind::TEXTURE),
                ("Rock^b", AssetKind::TEXTURE),
            ]
        );
        assert_eq!(view.find("Rock^b").unwrap().path, "b/Rock.ktx2");
        assert_eq!(view.find("Fox").unwrap().kind, AssetKind::MESH);
        assert_eq!(view.find_all("Fox"), 0..2);
        assert_eq!(view.find_kind("Fox", AssetKind::ANIMATION).unwrap().hash, 9);
        assert_eq!(view.find("Fox#Survey").unwrap().sub, Some(0));
        assert!(view.find("Rock").is_none() && view.find("").is_none());
        assert!(view.find("Zebra").is_none() && view.find("A").is_none());
        // Written twice, identical (the order does not depend on the input's).
        let mut reversed = sample();
        reversed.reverse();
        assert_eq!(write(&reversed), bytes);
    }

    #[test]
    fn long_names_sharing_a_prefix_are_told_apart() {
        let rows: Vec<NameRow<'_>> = ["Character_Body", "Character_Arm", "Character", "Chara"]
            .iter()
            .enumerate()
            .map(|(i, name)| NameRow {
                name,
                kind: AssetKind::MESH,
                hash: i as u64,
                path: "p.hmesh",
                sub: None,
            })
            .collect();
        let bytes = write(&rows);
        let view = NamesView::parse(&bytes).unwrap();
        for (i, name) in ["Character_Body", "Character_Arm", "Character", "Chara"]
            .iter()
            .enumerate()
        {
            assert_eq!(view.find(name).unwrap().hash, i as u64, "{name}");
        }
        assert!(view.find("Character_").is_none());
        assert!(view.find("Characte").is_none());
    }

    #[test]
    fn every_truncation_and_garbage_is_an_error() {
        let bytes = write(&sample());
        for len in 0..bytes.len() {
            assert!(NamesView::parse(&bytes[..len]).is_err(), "prefix {len}");
        }
        // Every single-byte change either still parses (a hash, a kind) or is an error;
        // never a panic.
        for at in 0..bytes.len() {
            for value in [0u8, 1, 0x7f, 0xff] {
                let mut bad = bytes.clone();
                bad[at] = value;
                if let Ok(view) = NamesView::parse(&bad) {
                    for row in view.rows() {
                        let _ = view.find(row.name);
                    }
                }
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(NamesView::parse(&long).is_err());
        // A count that claims more rows than fit.
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            NamesView::parse(&huge),
            Err(ReadError::Truncated { .. })
        ));
        assert!(matches!(
            NamesView::parse(b"HMAN\x01\0\0\0\0\0\0\0\0\0\0\0"),
            Err(ReadError::BadMagic { .. })
        ));
    }

    #[test]
    fn rejects_unsorted_and_bad_fields() {
        let bytes = write(&sample());
        // Swap the first two rows' hashes is fine; swap whole rows breaks the order.
        let mut swapped = bytes.clone();
        let (a, b) = (HEADER_SIZE, HEADER_SIZE + ROW_SIZE);
        let first: Vec<u8> = swapped[a..b].to_vec();
        let second: Vec<u8> = swapped[b..b + ROW_SIZE].to_vec();
        swapped[a..b].copy_from_slice(&second);
        swapped[b..b + ROW_SIZE].copy_from_slice(&first);
        assert!(matches!(
            NamesView::parse(&swapped),
            Err(ReadError::Invalid { .. })
        ));
        let mut reserved = bytes.clone();
        reserved[HEADER_SIZE + 35] = 1;
        assert!(NamesView::parse(&reserved).is_err());
        let mut version = bytes.clone();
        version[4] = 2;
        assert!(matches!(
            NamesView::parse(&version),
            Err(ReadError::UnsupportedVersion { .. })
        ));
        let empty = write(&[]);
        assert_eq!(empty.len(), HEADER_SIZE);
        assert!(NamesView::parse(&empty).unwrap().is_empty());
    }
}
