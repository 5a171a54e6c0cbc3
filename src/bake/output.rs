//! Output-folder primitives under the write transaction (`transaction.rs`): unchanged-file
//! detection, symlink refusal, stale removal, and a lock that serializes bakes into one folder.

use crate::bake::error::BakeError;
use crate::read::regular_file::{open_regular, read_regular, Links};
use std::fs::{self, File};
use std::path::Path;

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Atomic against a crash of the process (staged, then renamed by the transaction):
    /// runtime-tree files, which a later bake can always redo.
    Atomic,
    /// Also synced to disk before the commit, surviving a power loss: the pack, manifest and
    /// cache.
    /// Syncing every tree file made a 2000-file bake fsync-bound (measured in
    /// `benches/RESULTS.md`).
    Durable,
}

/// Whether `path` is a regular file holding exactly `bytes` (then it is not rewritten, so its
/// mtime stays put and `include_bytes!` users do not recompile). A symlink planted there is
/// never read through: it is replaced.
pub(crate) fn same_file_bytes(path: &Path, bytes: &[u8]) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| {
        meta.is_file()
            && meta.len() == bytes.len() as u64
            && read_regular(path, bytes.len() as u64).is_ok_and(|old| old == bytes)
    })
}

/// Makes the renames inside `dir` durable (a no-op where folders cannot be synced).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    let _ = dir;
    Ok(())
}

/// Fails when a folder on the way from `root` to the file `rel` is a symlink.
pub(crate) fn no_symlinked_folder(root: &Path, rel: &str) -> Result<(), BakeError> {
    let folder = rel.rsplit_once('/').map_or("", |(folder, _)| folder);
    no_symlink_on_way(root, folder)
}

/// Fails, naming the link, when any folder from `root` down to `root/folder` (`/`-separated,
/// checked one component at a time without following links) is a symlink: every folder
/// hearth writes into goes through here. `root` is the folder the user named, taken as named;
/// a component not there yet is created later as a real folder.
pub(crate) fn no_symlink_on_way(root: &Path, folder: &str) -> Result<(), BakeError> {
    let mut path = root.to_path_buf();
    for part in folder.split('/').filter(|part| !part.is_empty()) {
        path.push(part);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(BakeError::asset(
                    &path,
                    "a symlink inside the output folder; hearth does not write through it",
                ))
            }
            Ok(_) => {}
            Err(_) => break, // not there yet: created as a real folder
        }
    }
    Ok(())
}

/// Removes a file this baker wrote earlier and no longer produces, then any folders that
/// became empty up to (not including) `root`. Returns whether a file was removed.
pub fn remove_stale(root: &Path, rel: &str) -> Result<bool, BakeError> {
    // The cache was validated on load; checked again because a delete cannot be undone.
    crate::bake::pipeline::check_output_path(rel).map_err(|e| BakeError::asset(root, e))?;
    no_symlinked_folder(root, rel)?;
    let path = root.join(rel);
    match fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(BakeError::io(path, e)),
    }
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if fs::remove_dir(d).is_err() {
            break; // not empty
        }
        dir = d.parent();
    }
    Ok(true)
}

/// An exclusive lock on an output folder, held for the whole bake (cargo runs build scripts
/// concurrently, and two crates may bake into one folder). Released on drop.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
}

impl OutputLock {
    /// Blocks until the folder's lock file is ours. A link or a special file in its place is
    /// an error: the lock is never created or opened through a link.
    pub fn acquire(dir: &Path) -> Result<Self, BakeError> {
        let path = dir.join(".hearth-lock");
        let mut options = fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let file = open_regular(&path, &mut options, Links::Refuse)
            .map_err(|e| BakeError::io(&path, e))?;
        file.lock().map_err(|e| BakeError::io(&path, e))?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_and_stale_removal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/a.bin");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, b"one").unwrap();
        assert!(same_file_bytes(&path, b"one"));
        assert!(!same_file_bytes(&path, b"two"));
        assert!(!same_file_bytes(&dir.path().join("none"), b""));
        assert!(remove_stale(dir.path(), "sub/a.bin").unwrap());
        assert!(!dir.path().join("sub").exists(), "empty folder pruned");
        assert!(!remove_stale(dir.path(), "sub/a.bin").unwrap());
    }
}
