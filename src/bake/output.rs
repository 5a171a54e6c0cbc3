//! Safe output writing: temp file + rename, write only when the bytes changed, and a lock
//! that serializes concurrent bakes into one folder.

use crate::bake::error::BakeError;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Atomic against a crash of the process (temp file + rename): runtime-tree files, which
    /// a later bake can always redo.
    Atomic,
    /// Also synced to disk before the rename, surviving a power loss: the pack and manifest.
    /// Syncing every tree file made a 2000-file bake fsync-bound (measured in
    /// `benches/RESULTS.md`).
    Durable,
}

/// Writes `bytes` to `path` unless the file already holds exactly these bytes (so its mtime
/// stays put and `include_bytes!` users do not recompile). The new file is written under a
/// temporary name in the same folder and renamed over the old one: a reader or a crash sees
/// the old file or the new one, never a mix. Returns whether it wrote.
pub fn write_if_changed(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<bool, BakeError> {
    // Compared only when it is a regular file: a symlink planted there is replaced by the
    // rename, never read or written through.
    if let Ok(meta) = fs::symlink_metadata(path) {
        let same_size = meta.is_file() && meta.len() == bytes.len() as u64;
        if same_size && fs::read(path).is_ok_and(|old| old == bytes) {
            return Ok(false);
        }
    }
    let io = |e| BakeError::io(path, e);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io)?;
    let temp = temp_path(path);
    let result = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        if durability == Durability::Durable {
            file.sync_all()?;
        }
        fs::rename(&temp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(io(e));
    }
    Ok(true)
}

/// Writes a runtime-tree file at `rel` under `root` (see [`write_if_changed`]), refusing to
/// go through a symlinked folder inside the tree: hearth writes only inside its output folder.
pub fn write_output(root: &Path, rel: &str, bytes: &[u8]) -> Result<bool, BakeError> {
    no_symlinked_folder(root, rel)?;
    write_if_changed(&root.join(rel), bytes, Durability::Atomic)
}

/// Fails when a folder on the way from `root` to `rel` is a symlink.
fn no_symlinked_folder(root: &Path, rel: &str) -> Result<(), BakeError> {
    let mut path = root.to_path_buf();
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    for part in parts {
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

/// A temp name beside `path`, unique within this process and across processes.
fn temp_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
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
    /// Blocks until the folder's lock file is ours.
    pub fn acquire(dir: &Path) -> Result<Self, BakeError> {
        let path = dir.join(".hearth-lock");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| BakeError::io(&path, e))?;
        file.lock().map_err(|e| BakeError::io(&path, e))?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_changes_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/a.bin");
        assert!(write_if_changed(&path, b"one", Durability::Durable).unwrap());
        assert!(!write_if_changed(&path, b"one", Durability::Durable).unwrap());
        assert!(write_if_changed(&path, b"two", Durability::Atomic).unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["a.bin"]);
        assert!(remove_stale(dir.path(), "sub/a.bin").unwrap());
        assert!(!dir.path().join("sub").exists(), "empty folder pruned");
        assert!(!remove_stale(dir.path(), "sub/a.bin").unwrap());
    }
}
