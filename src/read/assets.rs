//! One read API over a pack ([`PakReader`]: a `.hpack` file or an embedded pack) and a
//! runtime tree folder ([`TreeReader`]: the baked files and `assets.hman`), so a debug build
//! can read the baked tree from disk and a release build the embedded pack through the same
//! calls ([`Assets`]).

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{AssetKind, MANIFEST_PATH};
use crate::read::asset::{AssetBytes, AssetSource};
use crate::read::error::ReadError;
use crate::read::names::{named, NameRecord, NameTable, Names, NAMES_PATH};
use crate::read::pak::{find_record, manifest_records, Entry, ManifestRecord, PakReader};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One entry of a pack or tree, as [`Assets::entries`] lists it.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let assets = hearth::Assets::open(game_hpack)?;
/// let info: hearth::AssetInfo = assets.find("notes/long.txt")?.expect("in the pack");
/// assert_eq!((info.kind, info.size), (hearth::AssetKind::BLOB, 6000));
/// assert_eq!(info.hash, hearth::hash_runtime_path("notes/long.txt"));
/// # Ok::<(), hearth::ReadError>(())
/// ```
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

impl AssetInfo {
    fn of(entry: &Entry<'_>) -> Self {
        AssetInfo {
            path: entry.path().into_owned(),
            hash: entry.hash(),
            kind: entry.kind(),
            size: entry.size(),
        }
    }
}

/// A runtime tree folder read like a pack: `get` reads one file (so an edited or re-baked
/// file is seen at once, no reopen), `get_by_hash` and `resolve` go through `assets.hman`,
/// read at open; `assets.hnames` is read when a name is first needed, as a pack's is.
///
/// A tree serves exactly what its `assets.hman` lists (and `assets.hman` itself), as its pack
/// would: any other file in the folder is absent, and a symbolic link anywhere on an entry's
/// path is an error naming it, so nothing outside the tree is ever read. An asset added by a
/// later bake is found after a reopen.
///
/// Reads are file reads: a bake's commit renames its files into place one by one, so a read
/// *while* a bake applies can mix files of two bakes (for milliseconds); a pack, one file,
/// never does. Hot reload therefore follows the pack (`read::hot`). A bake killed after its
/// commit point leaves such a mix until its journal is finished: [`open`](Self::open)
/// refuses a tree whose commit is pending (`hearth check` or the next bake finishes it).
///
/// ```no_run
/// // The folder a bake wrote (`Assets::open` of a folder opens it this way).
/// let tree = hearth::TreeReader::open("target/assets")?;
/// let level = tree.get("levels/one.json")?.expect("baked");
/// for entry in tree.entries() {
///     println!("{} {}: {} bytes", entry.kind, entry.path, entry.size);
/// }
/// let chair: hearth::Mesh = tree.load("models/chair.hmesh")?;
/// # let _ = (level, chair);
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug)]
pub struct TreeReader {
    root: PathBuf,
    manifest: Vec<ManifestRecord>,
    /// The listed files present at open, `assets.hman` included, sorted by path.
    files: Vec<AssetInfo>,
    /// `assets.hnames`, read and validated when a name is first needed (empty when the tree
    /// has none): a damaged name table fails name lookups, not reads by path or hash.
    names: OnceLock<Result<Names, ReadError>>,
    by_hash: HashMap<u64, usize>,
}

impl TreeReader {
    /// Opens the runtime tree at `root` (a bake's output folder): reads its `assets.hman` and
    /// notes the size of each file it lists. A tree whose bake was interrupted after its
    /// commit point (a pending `.hearth-txn/commit`) is refused: it may mix two bakes, and a
    /// reader does not write to finish it.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, ReadError> {
        let root = root.as_ref().to_path_buf();
        refuse_pending_commit(&root)?;
        let manifest_bytes = read_in_tree(&root, MANIFEST_PATH)?.ok_or_else(|| {
            ReadError::Io(std::sync::Arc::new(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{}: no {MANIFEST_PATH}", root.display()),
            )))
        })?;
        let manifest = manifest_records(&manifest_bytes).map_err(|error| ReadError::Asset {
            asset: root.join(MANIFEST_PATH).display().to_string().into(),
            error: error.into(),
        })?;
        let listed = manifest
            .iter()
            .map(|record| (&*record.path, record.kind))
            .chain([
                (MANIFEST_PATH, AssetKind::MANIFEST),
                (NAMES_PATH, AssetKind::NAMES),
            ]);
        let mut files = Vec::new();
        for (path, kind) in listed {
            // A listed file the tree lacks is absent, as a missing file is to `get`.
            if !is_runtime_path(path) {
                continue;
            }
            if let Some(size) = tree_file_size(&root, path)? {
                files.push(AssetInfo {
                    path: path.to_owned(),
                    hash: hash_runtime_path(path),
                    kind,
                    size,
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        let by_hash = files.iter().enumerate().map(|(i, f)| (f.hash, i)).collect();
        Ok(Self {
            root,
            manifest,
            files,
            by_hash,
            names: OnceLock::new(),
        })
    }

    /// The tree's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The bytes of the file at runtime path `path`, read now; `None` when `assets.hman` does
    /// not list it or the file is gone. A symbolic link on its path is an error naming it.
    pub fn get(&self, path: &str) -> Result<Option<Cow<'static, [u8]>>, ReadError> {
        let listed = self
            .files
            .binary_search_by(|file| file.path.as_str().cmp(path))
            .is_ok();
        if !listed {
            return Ok(None);
        }
        Ok(read_in_tree(&self.root, path)?.map(Cow::Owned))
    }

    /// The bytes of the file whose asset hash is `hash` (files listed at open).
    pub fn get_by_hash(&self, hash: u64) -> Result<Option<Cow<'static, [u8]>>, ReadError> {
        match self.by_hash.get(&hash) {
            Some(&index) => self.get(&self.files[index].path),
            None => Ok(None),
        }
    }

    /// The name table (`assets.hnames`), read and validated once, when first asked for; empty
    /// for a tree without one. An error names the file.
    pub fn names(&self) -> Result<NameTable<'_>, ReadError> {
        let names = self.names.get_or_init(|| {
            let bytes = read_in_tree(&self.root, NAMES_PATH)?;
            Names::new(bytes.as_deref()).map_err(|error| ReadError::Asset {
                asset: self.root.join(NAMES_PATH).display().to_string().into(),
                error: error.into(),
            })
        });
        names.as_ref().map(Names::table).map_err(Clone::clone)
    }

    /// The `assets.hman` rows, read at open.
    pub fn manifest(&self) -> &[ManifestRecord] {
        &self.manifest
    }

    /// The `assets.hman` row for `hash`.
    pub fn resolve(&self, hash: u64) -> Option<&ManifestRecord> {
        find_record(&self.manifest, hash)
    }

    /// Every listed file present at open, by path, `assets.hman` included.
    pub fn entries(&self) -> &[AssetInfo] {
        &self.files
    }

    /// The listed file at `path`, as it was at open.
    pub fn find(&self, path: &str) -> Option<&AssetInfo> {
        self.files
            .binary_search_by(|file| file.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.files[index])
    }

    /// The listed file whose asset hash is `hash`, as it was at open.
    pub fn find_by_hash(&self, hash: u64) -> Option<&AssetInfo> {
        self.by_hash.get(&hash).map(|&index| &self.files[index])
    }

    crate::read::asset::typed_loads!();
}

impl AssetSource for TreeReader {
    fn asset_bytes(&self, path: &str) -> Result<Option<AssetBytes>, ReadError> {
        Ok(self
            .get(path)?
            .map(|bytes| AssetBytes::from_vec(bytes.into_owned())))
    }

    fn path_of_hash(&self, hash: u64) -> Result<Option<String>, ReadError> {
        Ok(self.find_by_hash(hash).map(|info| info.path.clone()))
    }

    fn names(&self) -> Result<NameTable<'_>, ReadError> {
        TreeReader::names(self)
    }
}

impl AssetSource for Assets {
    fn asset_bytes(&self, path: &str) -> Result<Option<AssetBytes>, ReadError> {
        match self {
            Assets::Pack(pack) => pack.asset_bytes(path),
            Assets::Tree(tree) => tree.asset_bytes(path),
        }
    }

    fn path_of_hash(&self, hash: u64) -> Result<Option<String>, ReadError> {
        match self {
            Assets::Pack(pack) => pack.path_of_hash(hash),
            Assets::Tree(tree) => tree.path_of_hash(hash),
        }
    }

    fn names(&self) -> Result<NameTable<'_>, ReadError> {
        Assets::names(self)
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

/// Refuses the output folder `root` while a bake's commit is pending in it: a journal
/// (`.hearth-txn/commit`) means the folder may hold files of two bakes. Readers never write,
/// so they do not finish it; `hearth check` and the next bake do.
pub(crate) fn refuse_pending_commit(root: &Path) -> Result<(), ReadError> {
    let journal = root
        .join(crate::format::STAGING_DIR)
        .join(crate::format::JOURNAL_FILE);
    match std::fs::symlink_metadata(&journal) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ReadError::Io(std::sync::Arc::new(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", journal.display()),
        )))),
        Ok(_) => Err(ReadError::Io(std::sync::Arc::new(std::io::Error::other(
            format!(
                "{}: an interrupted bake's commit is pending, so the folder may mix two bakes; \
                 `hearth check {}` or the next bake finishes it",
                journal.display(),
                root.display()
            ),
        )))),
    }
}

/// The error for a link met inside a tree, naming it.
fn link_error(full: &Path) -> ReadError {
    ReadError::Io(std::sync::Arc::new(tree_link(full)))
}

/// A link at `full` in a runtime tree, naming it (the runtime's and the tools' one wording).
pub(crate) fn tree_link(full: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{}: a symbolic link in a runtime tree (links are not followed)",
            full.display()
        ),
    )
}

/// The size of the regular file at runtime path `rel` under `root`, looked at without
/// following links: `None` when it is missing or not a regular file; a link on the way is an
/// error naming it.
fn tree_file_size(root: &Path, rel: &str) -> Result<Option<u64>, ReadError> {
    let mut full = root.to_path_buf();
    let mut parts = rel.split('/').peekable();
    while let Some(part) = parts.next() {
        full.push(part);
        let meta = match std::fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if meta.file_type().is_symlink() {
            return Err(link_error(&full));
        }
        let last = parts.peek().is_none();
        if (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return Ok(None);
        }
        if last {
            return Ok(Some(meta.len()));
        }
    }
    Ok(None)
}

/// Reads the regular file at runtime path `rel` under `root` without following a link on
/// the way (each folder is checked, then the file opened as hearth opens its own files);
/// `None` when it is missing or not a regular file.
pub(crate) fn read_in_tree(root: &Path, rel: &str) -> Result<Option<Vec<u8>>, ReadError> {
    if tree_file_size(root, rel)?.is_none() {
        return Ok(None);
    }
    let full = root.join(rel);
    // No size cap: the file is a regular file the bake wrote, its size known above.
    match crate::read::regular_file::read_regular(&full, u64::MAX) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReadError::Io(std::sync::Arc::new(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", full.display()),
        )))),
    }
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
///
/// Every [`PakReader`] is one; the calls are the same for a tree:
///
/// ```
/// let assets = hearth::Assets::from(hearth::include_pak!("../../tests/fixtures/tiny.hpack")?);
/// let hash = hearth::hash_asset_ref("notes/long.txt");
/// let row = assets.resolve(hash)?.expect("in assets.hman");
/// assert_eq!(&*row.path, "notes/long.txt");
/// assert_eq!(assets.get_by_hash(hash)?.expect("baked").len(), 6000);
/// assert!(assets.entries()?.iter().any(|entry| &*entry.path == "hello.txt"));
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug)]
pub enum Assets {
    /// A `.hpack` (a file or embedded).
    Pack(PakReader),
    /// A runtime tree folder.
    Tree(TreeReader),
}

/// The one `.hpack` file at the top of `dir` (hidden names left out): `None` when there is
/// none, an error naming two of them when there are several (a pack-only bake's folder holds
/// one; which one is the bake cannot be told).
pub(crate) fn only_pack(dir: &Path) -> Result<Option<PathBuf>, ReadError> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_pack = !name.starts_with('.')
            && name.to_ascii_lowercase().ends_with(".hpack")
            && entry.file_type()?.is_file();
        if is_pack {
            found.push(entry.path());
        }
    }
    found.sort();
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        [first, second, ..] => Err(ReadError::Io(std::sync::Arc::new(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{}: two packs, {} and {}, and no {MANIFEST_PATH}: a pack-only bake's folder \
                 holds one; remove the stale one or open a pack by its path",
                dir.display(),
                first.display(),
                second.display()
            ),
        )))),
    }
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
    /// Opens `path`: a folder as a runtime tree, a file as a pack (memory-mapped). The
    /// folder of a pack-only bake (`tree = false`: no `assets.hman`, one `.hpack`) opens as
    /// its pack, so a game reads a bake's output folder the same way in either form. A
    /// folder whose bake's commit is pending is refused (see [`TreeReader::open`]), as is a
    /// folder without `assets.hman` that holds several packs.
    ///
    /// ```no_run
    /// let assets = hearth::Assets::open("target/assets")?;
    /// let level = assets.get("levels/one.json")?;
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = path.as_ref();
        if !path.is_dir() {
            return PakReader::open(path).map(Assets::Pack);
        }
        // (`TreeReader::open` refuses a pending commit itself.)
        match path.join(MANIFEST_PATH).exists() {
            true => TreeReader::open(path).map(Assets::Tree),
            false => match only_pack(path)? {
                Some(pack) => {
                    refuse_pending_commit(path)?;
                    PakReader::open(pack).map(Assets::Pack)
                }
                None => TreeReader::open(path).map(Assets::Tree),
            },
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

    /// The entry at runtime path `path`: its path, hash, kind and size (a tree's file as it
    /// was at open).
    pub fn find(&self, path: &str) -> Result<Option<AssetInfo>, ReadError> {
        match self {
            Assets::Pack(pack) => Ok(pack.find(path)?.map(|entry| AssetInfo::of(&entry))),
            Assets::Tree(tree) => Ok(tree.find(path).cloned()),
        }
    }

    /// The entry whose asset hash is `hash`.
    pub fn find_by_hash(&self, hash: u64) -> Result<Option<AssetInfo>, ReadError> {
        match self {
            Assets::Pack(pack) => Ok(pack.find_by_hash(hash)?.map(|entry| AssetInfo::of(&entry))),
            Assets::Tree(tree) => Ok(tree.find_by_hash(hash).cloned()),
        }
    }

    crate::read::asset::typed_loads!();

    /// Deprecated: [`get_by_hash`](Self::get_by_hash) gives the same bytes (the vocabulary is
    /// `get*` = bytes, `find*` = the entry's metadata, `load*` = an owned typed asset).
    #[deprecated(since = "0.2.0", note = "use `get_by_hash` (same bytes)")]
    pub fn asset(&self, hash: u64) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        match self.resolve(hash)? {
            Some(record) => self.get(&record.path),
            None => Ok(None),
        }
    }

    /// The name table (`assets.hnames`; empty when the pack or tree has none).
    pub fn names(&self) -> Result<NameTable<'_>, ReadError> {
        match self {
            Assets::Pack(pack) => pack.names(),
            Assets::Tree(tree) => tree.names(),
        }
    }

    /// The row named `name` (of the lowest kind when several kinds share it). An error names
    /// `name`.
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
                .map(|entry| Ok(AssetInfo::of(&entry?)))
                .collect(),
            Assets::Tree(tree) => Ok(tree.entries().to_vec()),
        }
    }
}
