//! A pack's (or a tree's) `assets.hman` read into owned rows.

use crate::format::hman::{self, AssetKind, ColorSpace};
use crate::read::error::ReadError;

/// An owned row of the pack's `assets.hman`.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let hash = hearth::hash_runtime_path("notes/long.txt");
/// let row: &hearth::ManifestRecord = pak.resolve(hash)?.expect("listed");
/// assert_eq!((&*row.path, row.kind), ("notes/long.txt", hearth::AssetKind::BLOB));
/// # Ok::<(), hearth::ReadError>(())
/// ```
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
