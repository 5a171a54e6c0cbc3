//! The asset source: Bevy's [`AssetReader`] over a hearth pack or runtime tree.

use bevy::asset::io::{AssetReader, AssetReaderError, PathStream, Reader, VecReader};
use bevy::tasks::futures_lite::stream;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Serves the entries of a [`hearth::Assets`] (a pack or a runtime tree) by runtime path.
///
/// There are no `.meta` files: Bevy picks each loader by extension. Directories are the
/// `/`-separated prefixes of the entries' paths.
#[derive(Clone)]
pub struct HearthReader {
    assets: Arc<hearth::Assets>,
}

impl HearthReader {
    /// A reader over `assets`.
    pub fn new(assets: Arc<hearth::Assets>) -> Self {
        Self { assets }
    }

    /// The bytes at `path`, copied out of the pack (a stored entry) or decompressed once.
    fn bytes(&self, path: &Path) -> Result<Vec<u8>, AssetReaderError> {
        let runtime_path = runtime_path(path)?;
        match self.assets.get(&runtime_path) {
            Ok(Some(bytes)) => Ok(bytes.into_owned()),
            Ok(None) => Err(AssetReaderError::NotFound(path.to_path_buf())),
            Err(error) => Err(io_error(error)),
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
        let entries = self.assets.entries().map_err(io_error)?;
        let children: BTreeSet<&str> = entries
            .iter()
            .filter_map(|entry| entry.path.strip_prefix(&prefix))
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
        self.bytes(path).map(VecReader::new)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        // A bake writes no `.meta` files; Bevy then uses each loader's default settings.
        Err::<VecReader, _>(AssetReaderError::NotFound(path.to_path_buf()))
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
        let entries = self.assets.entries().map_err(io_error)?;
        Ok(entries.iter().any(|entry| entry.path.starts_with(&prefix)))
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
