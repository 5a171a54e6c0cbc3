//! One read API over a pack ([`PakReader`]: a `.hpack` file or an embedded pack) and a
//! runtime tree folder ([`TreeReader`]: the baked files and `assets.hman`), so a debug build
//! can read the baked tree from disk and a release build the embedded pack through the same
//! calls ([`Assets`]).

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{AssetKind, MANIFEST_PATH};
use crate::read::error::ReadError;
use crate::read::pak::{find_record, manifest_records, ManifestRecord, PakReader};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One entry of a pack or tree, as [`Assets::entries`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetInfo {
    /// Runtime path, `/`-separated.
    pub path: String,
    /// The path's asset hash ([`hash_runtime_path`]).
    pub hash: u64,
    /// The kind: the `assets.hman` row's; `manifest` for `assets.hman`; `blob` without a row.
    pub kind: AssetKind,
    /// Size in bytes, decompressed.
    pub size: u64,
}

/// A runtime tree folder read like a pack: `get` reads one file (so an edited or re-baked
/// file is seen at once, no reopen), `get_by_hash` and `resolve` go through the hash index
/// and `assets.hman` read at open. Files added by a later bake are found by path; reopen to
/// find them by hash and in [`entries`](Self::entries).
///
/// Reads are file reads: a bake's commit renames its files into place one by one, so a read
/// *while* a bake applies can mix files of two bakes (for milliseconds); a pack, one file,
/// never does. Hot reload therefore follows the pack (`read::hot`).
#[derive(Debug)]
pub struct TreeReader {
    root: PathBuf,
    manifest: Vec<ManifestRecord>,
    /// Every file of the tree at open: path -> (hash, kind, size).
    files: Vec<AssetInfo>,
    by_hash: HashMap<u64, usize>,
}

impl TreeReader {
    /// Opens the runtime tree at `root` (a bake's output folder): lists its files and reads
    /// its `assets.hman`.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, ReadError> {
        let root = root.as_ref().to_path_buf();
        let manifest_bytes = std::fs::read(root.join(MANIFEST_PATH))?;
        let manifest = manifest_records(&manifest_bytes)?;
        let kinds: HashMap<&str, AssetKind> = manifest.iter().map(|r| (&*r.path, r.kind)).collect();
        let mut files = Vec::new();
        for (path, full) in crate::read::inspect::tree_files(&root)? {
            let kind = match path.as_str() {
                MANIFEST_PATH => AssetKind::MANIFEST,
                other => kinds.get(other).copied().unwrap_or(AssetKind::BLOB),
            };
            files.push(AssetInfo {
                hash: hash_runtime_path(&path),
                kind,
                size: std::fs::metadata(&full)?.len(),
                path,
            });
        }
        // `tree_files` lists them by path, `assets.hman` included, as a pack does.
        let by_hash = files.iter().enumerate().map(|(i, f)| (f.hash, i)).collect();
        Ok(Self {
            root,
            manifest,
            files,
            by_hash,
        })
    }

    /// The tree's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The bytes of the file at runtime path `path`, read now; `None` when there is none.
    /// Paths that are not plain runtime paths (absolute, `..`, hidden components) are `None`:
    /// nothing outside the tree is ever read.
    pub fn get(&self, path: &str) -> Result<Option<Cow<'static, [u8]>>, ReadError> {
        if !is_runtime_path(path) {
            return Ok(None);
        }
        match std::fs::read(self.root.join(path)) {
            Ok(bytes) => Ok(Some(Cow::Owned(bytes))),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::IsADirectory
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The bytes of the file whose asset hash is `hash` (files listed at open).
    pub fn get_by_hash(&self, hash: u64) -> Result<Option<Cow<'static, [u8]>>, ReadError> {
        match self.by_hash.get(&hash) {
            Some(&index) => self.get(&self.files[index].path),
            None => Ok(None),
        }
    }

    /// The `assets.hman` rows, read at open.
    pub fn manifest(&self) -> &[ManifestRecord] {
        &self.manifest
    }

    /// The `assets.hman` row for `hash`.
    pub fn resolve(&self, hash: u64) -> Option<&ManifestRecord> {
        find_record(&self.manifest, hash)
    }

    /// Every file of the tree at open, by path.
    pub fn entries(&self) -> &[AssetInfo] {
        &self.files
    }
}

/// A plain runtime path: relative, `/`-separated, no empty, `.`, `..` or hidden components.
fn is_runtime_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains(['\\', '\0'])
        && path
            .split('/')
            .all(|part| !part.is_empty() && !part.starts_with('.'))
}

/// A pack or a runtime tree, read through the same calls.
///
/// ```no_run
/// // Debug builds read the baked tree from disk (an art change needs no recompile), release
/// // builds the pack. In a game, `build.rs` sets `HEARTH_OUT` and `HEARTH_PACK`
/// // (`hearth::bake::cargo`): `Assets::open(env!("HEARTH_OUT"))` and
/// // `Assets::from(hearth::include_pak!(env!("HEARTH_PACK"))?)`.
/// #[cfg(debug_assertions)]
/// let assets = hearth::Assets::open("target/assets")?;
/// #[cfg(not(debug_assertions))]
/// let assets = hearth::Assets::open("target/assets/assets.hpack")?;
/// let level = assets.get("levels/one.json")?;
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug)]
pub enum Assets {
    /// A `.hpack` (a file or embedded).
    Pack(PakReader),
    /// A runtime tree folder.
    Tree(TreeReader),
}

impl From<PakReader> for Assets {
    fn from(pack: PakReader) -> Self {
        Assets::Pack(pack)
    }
}

impl From<TreeReader> for Assets {
    fn from(tree: TreeReader) -> Self {
        Assets::Tree(tree)
    }
}

impl Assets {
    /// Opens `path`: a folder as a runtime tree, a file as a pack (memory-mapped).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = path.as_ref();
        match path.is_dir() {
            true => TreeReader::open(path).map(Assets::Tree),
            false => PakReader::open(path).map(Assets::Pack),
        }
    }

    /// The bytes at runtime path `path` (decompressed; borrowed from a stored pack entry).
    pub fn get(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        match self {
            Assets::Pack(pack) => pack.get(path),
            Assets::Tree(tree) => tree.get(path),
        }
    }

    /// The bytes of the entry whose asset hash is `hash`.
    pub fn get_by_hash(&self, hash: u64) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        match self {
            Assets::Pack(pack) => pack.get_by_hash(hash),
            Assets::Tree(tree) => tree.get_by_hash(hash),
        }
    }

    /// The `assets.hman` row for `hash`.
    pub fn resolve(&self, hash: u64) -> Result<Option<&ManifestRecord>, ReadError> {
        match self {
            Assets::Pack(pack) => pack.resolve(hash),
            Assets::Tree(tree) => Ok(tree.resolve(hash)),
        }
    }

    /// The bytes of the asset `hash` names in `assets.hman` (an asset reference, as baked
    /// materials and levels store them).
    pub fn asset(&self, hash: u64) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        match self.resolve(hash)? {
            Some(record) => self.get(&record.path),
            None => Ok(None),
        }
    }

    /// The `assets.hman` rows.
    pub fn manifest(&self) -> Result<&[ManifestRecord], ReadError> {
        match self {
            Assets::Pack(pack) => pack.manifest(),
            Assets::Tree(tree) => Ok(tree.manifest()),
        }
    }

    /// Every entry, by path (a pack's entries; a tree's files at open, `assets.hman`
    /// included in both).
    pub fn entries(&self) -> Result<Vec<AssetInfo>, ReadError> {
        match self {
            Assets::Pack(pack) => pack
                .entries()
                .map(|entry| {
                    let entry = entry?;
                    Ok(AssetInfo {
                        path: entry.path().into_owned(),
                        hash: entry.hash(),
                        kind: entry.kind(),
                        size: entry.size(),
                    })
                })
                .collect(),
            Assets::Tree(tree) => Ok(tree.entries().to_vec()),
        }
    }
}
