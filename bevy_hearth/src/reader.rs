//! The asset source: Bevy's [`AssetReader`] over a hearth pack or runtime tree.

use bevy::asset::io::{
    AssetReader, AssetReaderError, PathStream, Reader, ReaderNotSeekableError, SeekableReader,
    StackFuture, VecReader, STACK_FUTURE_SIZE,
};
use bevy::tasks::futures_lite::{stream, AsyncRead, AsyncSeek};
use std::collections::BTreeSet;
use std::io::SeekFrom;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};

/// One generation of what a source serves: fixed assets (a pack, embedded or mapped, or a
/// runtime tree), or one generation of a hot-reloaded pack.
#[derive(Clone, Debug)]
pub enum Generation {
    /// A pack or runtime tree that does not change.
    Assets(Arc<hearth::Assets>),
    /// A [`hearth::read::hot::HotPack`]'s generation.
    Pack(Arc<hearth::PakReader>),
}

impl Generation {
    /// The bytes at runtime path `path`, owned; `None` when there is no such entry.
    pub fn get(&self, path: &str) -> Result<Option<Vec<u8>>, hearth::ReadError> {
        let bytes = match self {
            Self::Assets(assets) => assets.get(path)?.map(|b| b.into_owned()),
            Self::Pack(pack) => pack.get(path)?.map(|b| b.into_owned()),
        };
        Ok(bytes)
    }

    /// Every entry's runtime path.
    pub fn paths(&self) -> Result<Vec<String>, hearth::ReadError> {
        match self {
            Self::Assets(assets) => Ok(assets.entries()?.into_iter().map(|e| e.path).collect()),
            Self::Pack(pack) => pack
                .entries()
                .map(|entry| entry.map(|e| e.path().into_owned()))
                .collect(),
        }
    }

    /// The name table's row `name` (of `kind`, or the lowest kind that has the name).
    pub fn lookup_name(
        &self,
        name: &str,
        kind: Option<hearth::AssetKind>,
    ) -> Result<Option<hearth::read::names::NameRecord>, hearth::ReadError> {
        let table = match self {
            Self::Assets(assets) => assets.names()?,
            Self::Pack(pack) => pack.names()?,
        };
        let row = match kind {
            Some(kind) => table.lookup_kind(name, kind),
            None => table.lookup(name),
        };
        Ok(row.map(Into::into))
    }
}

/// What a source serves now, shared by its readers, its name lookups and (hot packs) the
/// watcher that swaps in each new generation.
#[derive(Clone, Debug)]
pub struct Served(Arc<RwLock<Generation>>);

impl Served {
    /// Serves `generation`.
    pub fn new(generation: Generation) -> Self {
        Self(Arc::new(RwLock::new(generation)))
    }

    /// The current generation (a read holds it, so it sees one bake throughout).
    pub fn current(&self) -> Generation {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Serves `generation` from now on.
    pub fn replace(&self, generation: Generation) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = generation;
    }
}

/// Serves the entries of a [`Served`] pack or runtime tree by runtime path.
///
/// A bake writes no `.meta` files: Bevy picks each loader by extension, except that a
/// `.ktx2`'s meta names [`HearthKtx2Loader`](crate::HearthKtx2Loader) once
/// [`HearthPlugin`](crate::HearthPlugin) has registered it. Directories are the
/// `/`-separated prefixes of the entries' paths.
#[derive(Clone)]
pub struct HearthReader {
    served: Served,
    ktx2_loader: Arc<AtomicBool>,
}

impl HearthReader {
    /// A reader over `assets`.
    pub fn new(assets: Arc<hearth::Assets>) -> Self {
        Self::serving(Served::new(Generation::Assets(assets)))
    }

    /// A reader over whatever `served` serves at each read.
    pub fn serving(served: Served) -> Self {
        Self {
            served,
            ktx2_loader: Arc::default(),
        }
    }

    /// Sends `.ktx2` entries to [`HearthKtx2Loader`](crate::HearthKtx2Loader) once `flag` is
    /// set (when the loader is registered).
    pub(crate) fn with_ktx2_loader(mut self, flag: Arc<AtomicBool>) -> Self {
        self.ktx2_loader = flag;
        self
    }

    /// The bytes at `path`, copied out of the pack (a stored entry) or decompressed once.
    fn bytes(&self, path: &Path) -> Result<Vec<u8>, AssetReaderError> {
        let runtime_path = runtime_path(path)?;
        match self.served.current().get(&runtime_path) {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(AssetReaderError::NotFound(path.to_path_buf())),
            Err(error) => Err(io_error(format!("{runtime_path}: {error}"))),
        }
    }

    /// The immediate children (files and folders) of folder `path`, as paths from the root.
    fn children(&self, path: &Path) -> Result<Vec<PathBuf>, AssetReaderError> {
        let folder = runtime_path(path)?;
        let prefix = if folder.is_empty() {
            String::new()
        } else {
            format!("{}/", folder.trim_end_matches('/'))
        };
        let paths = self.served.current().paths().map_err(io_error)?;
        let children: BTreeSet<&str> = paths
            .iter()
            .filter_map(|path| path.strip_prefix(&prefix))
            .filter_map(|rest| rest.split('/').next())
            .filter(|child| !child.is_empty())
            .collect();
        Ok(children
            .into_iter()
            .map(|child| PathBuf::from(format!("{prefix}{child}")))
            .collect())
    }
}

impl AssetReader for HearthReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.bytes(path).map(EntryReader::new)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        let ktx2 = path
            .extension()
            .is_some_and(|extension| extension == "ktx2");
        if ktx2 && self.ktx2_loader.load(Ordering::Acquire) {
            return Ok(EntryReader::new(crate::HearthKtx2Loader::meta().to_vec()));
        }
        // A bake writes no `.meta` files; Bevy then uses each loader's default settings.
        Err(AssetReaderError::NotFound(path.to_path_buf()))
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        let children = self.children(path)?;
        if children.is_empty() {
            return Err(AssetReaderError::NotFound(path.to_path_buf()));
        }
        Ok(Box::new(stream::iter(children)))
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        let folder = runtime_path(path)?;
        if folder.is_empty() {
            return Ok(true);
        }
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        let paths = self.served.current().paths().map_err(io_error)?;
        Ok(paths.iter().any(|path| path.starts_with(&prefix)))
    }
}

/// An entry's bytes, read by Bevy's loaders: a [`VecReader`] whose whole-file read into an
/// empty buffer (what the loaders do) hands over the bytes instead of copying them, so an
/// entry is copied once (out of the pack, or decompressed), not twice.
struct EntryReader {
    inner: VecReader,
    /// Whether a read or seek has moved the position from the start.
    touched: bool,
}

impl EntryReader {
    fn new(bytes: Vec<u8>) -> Self {
        Self {
            inner: VecReader::new(bytes),
            touched: false,
        }
    }
}

impl AsyncRead for EntryReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        this.touched = true;
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncSeek for EntryReader {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<std::io::Result<u64>> {
        let this = self.get_mut();
        this.touched = true;
        Pin::new(&mut this.inner).poll_seek(cx, pos)
    }
}

impl Reader for EntryReader {
    fn read_to_end<'a>(
        &'a mut self,
        buf: &'a mut Vec<u8>,
    ) -> StackFuture<'a, std::io::Result<usize>, STACK_FUTURE_SIZE> {
        if self.touched || !buf.is_empty() {
            return self.inner.read_to_end(buf);
        }
        // Left empty, so a later read finds the end.
        std::mem::swap(buf, &mut self.inner.bytes);
        self.touched = true;
        let n = buf.len();
        StackFuture::from(async move { Ok(n) })
    }

    fn seekable(&mut self) -> Result<&mut dyn SeekableReader, ReaderNotSeekableError> {
        Ok(self)
    }
}

/// A Bevy path as a hearth runtime path: UTF-8, `/`-separated.
fn runtime_path(path: &Path) -> Result<String, AssetReaderError> {
    let text = path.to_str().ok_or_else(|| {
        io_error(format!(
            "{}: not UTF-8, and hearth's runtime paths are",
            path.display()
        ))
    })?;
    Ok(text.replace('\\', "/"))
}

/// A hearth error as Bevy's I/O error (its message names the asset).
fn io_error(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> AssetReaderError {
    AssetReaderError::Io(Arc::new(std::io::Error::other(error)))
}
