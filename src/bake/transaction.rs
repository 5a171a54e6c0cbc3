//! A bake's write phase as one transaction: after a kill, a panic or an I/O error the output
//! folder holds the previous bake or the new one, never a mix.
//!
//! The scheme is a redo journal, as in SQLite's hot-journal recovery:
//! 1. **Prepare.** Every new or changed file (tree files, `assets.hman`, the pack, the cache)
//!    is written under `.hearth-txn/` in the output folder; folders the new files need are
//!    created. Nothing the previous bake wrote is touched. A failure here (a full disk, a
//!    kill) leaves the previous bake whole; the staged files are discarded.
//! 2. **Commit.** One journal file, `.hearth-txn/commit`, lists every move and delete with a
//!    checksum; it is synced and renamed into place. Its rename is the commit point.
//! 3. **Apply.** Each staged file is renamed over its target, stale outputs are deleted, then
//!    the journal and the staging folder go. Renames need no space and cannot half-happen.
//!
//! Whoever next opens the folder for writing (the next bake, `hearth check`) finishes a
//! committed journal first (roll forward: every step is idempotent) or discards an
//! uncommitted staging folder (roll back), under the folder's lock.

use crate::bake::error::BakeError;
use crate::bake::output::{no_symlinked_folder, same_file_parts, sync_dir, Durability};
use crate::read::regular_file::{open_regular, read_regular, Links};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use crate::format::{JOURNAL_FILE as JOURNAL, STAGING_DIR};
const JOURNAL_MAGIC: &str = "hearth-transaction 1";
/// The longest journal read back: one line per step, and a bake's steps are as many as the
/// rows of its cache, whose decoder stops at 1 GiB.
const MAX_JOURNAL_BYTES: u64 = 1 << 30;

/// The one dot-named file a transaction may write at the top of the output folder.
const CACHE_FILE: &str = crate::bake::cache::FILE_NAME;

/// What `recover` found in an output folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// No transaction was left behind.
    Clean,
    /// A committed bake had been interrupted while applying; it was finished (this many moves
    /// and deletes were replayed, counting those already done).
    RolledForward(usize),
    /// An uncommitted bake's staged files were discarded; the previous bake stands.
    RolledBack,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recovery::Clean => write!(f, "no interrupted bake"),
            Recovery::RolledForward(steps) => {
                write!(f, "finished an interrupted bake's commit ({steps} steps)")
            }
            Recovery::RolledBack => write!(
                f,
                "discarded an interrupted bake's uncommitted files; the previous bake stands"
            ),
        }
    }
}

/// One step of the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Move staged file `index` to `path`.
    Put { index: usize, path: String },
    /// Delete `path` (and folders left empty by it).
    Delete { path: String },
}

/// An open write phase on one output folder. Dropped without [`Transaction::commit`], it
/// discards what it staged.
#[derive(Debug)]
pub(crate) struct Transaction {
    root: PathBuf,
    staging: PathBuf,
    steps: Vec<Step>,
    puts: usize,
    /// Folders created for new files, removed again (when still empty) on rollback.
    created_dirs: Vec<PathBuf>,
    any_durable: bool,
    /// Durable staged files, written but not yet synced: synced together, concurrently, just
    /// before the journal (so the file system can batch them into fewer disk flushes).
    unsynced: Vec<(PathBuf, fs::File)>,
    done: bool,
}

impl Transaction {
    /// Opens a transaction on `root`, after recovering whatever an earlier one left there.
    /// The caller holds the folder's [`crate::bake::output::OutputLock`].
    pub fn begin(root: &Path) -> Result<(Self, Recovery), BakeError> {
        let recovery = recover(root)?;
        Ok((
            Self {
                root: root.to_path_buf(),
                staging: root.join(STAGING_DIR),
                steps: Vec::new(),
                puts: 0,
                created_dirs: Vec::new(),
                any_durable: false,
                unsynced: Vec::new(),
                done: false,
            },
            recovery,
        ))
    }

    /// Stages `bytes` for `rel` (relative to the output folder) unless the file there already
    /// holds exactly these bytes (then nothing is written and its mtime stays put). Returns
    /// whether it will be written.
    pub fn put(
        &mut self,
        rel: &str,
        bytes: &[u8],
        durability: Durability,
    ) -> Result<bool, BakeError> {
        self.put_parts(rel, &[bytes], durability)
    }

    /// [`put`](Self::put) of the bytes `parts` joined, written one part after another (a pack
    /// laid out in parts is never joined in memory).
    pub fn put_parts(
        &mut self,
        rel: &str,
        parts: &[&[u8]],
        durability: Durability,
    ) -> Result<bool, BakeError> {
        check_path(rel).map_err(|e| BakeError::asset(&self.root, e))?;
        no_symlinked_folder(&self.root, rel)?;
        let target = self.root.join(rel);
        if same_file_parts(&target, parts) {
            return Ok(false);
        }
        if target.is_dir() && !target.is_symlink() {
            return Err(BakeError::asset(
                &target,
                "is a folder, and the bake writes a file there; remove the folder",
            ));
        }
        if self.puts == 0 {
            fs::create_dir_all(&self.staging).map_err(|e| BakeError::io(&self.staging, e))?;
        }
        if let Some(parent) = target.parent() {
            self.create_dirs(parent)?;
        }
        let index = self.puts;
        let staged = self.staging.join(index.to_string());
        let file = write_staged(&staged, parts).map_err(|e| BakeError::io(&staged, e))?;
        if durability == Durability::Durable {
            self.unsynced.push((staged, file));
        }
        self.puts += 1;
        self.any_durable |= durability == Durability::Durable;
        self.steps.push(Step::Put {
            index,
            path: rel.to_owned(),
        });
        Ok(true)
    }

    /// Records that `rel` goes when the transaction commits. Returns whether a file is there.
    pub fn remove(&mut self, rel: &str) -> Result<bool, BakeError> {
        check_path(rel).map_err(|e| BakeError::asset(&self.root, e))?;
        no_symlinked_folder(&self.root, rel)?;
        let there = fs::symlink_metadata(self.root.join(rel)).is_ok_and(|m| m.is_file());
        if there {
            self.steps.push(Step::Delete {
                path: rel.to_owned(),
            });
        }
        Ok(there)
    }

    /// Commits and applies. With nothing staged or removed, writes nothing at all.
    pub fn commit(mut self) -> Result<(), BakeError> {
        // Before anything is committed: a failed sync rolls back (on drop) as a failed write.
        sync_all(std::mem::take(&mut self.unsynced))?;
        self.done = true;
        if self.steps.is_empty() {
            return Ok(());
        }
        fs::create_dir_all(&self.staging).map_err(|e| BakeError::io(&self.staging, e))?;
        crate::bake::fault::point("transaction::commit")
            .map_err(|e| BakeError::io(&self.staging, e))?;
        let journal = encode_journal(&self.steps);
        let journal_path = self.staging.join(JOURNAL);
        let temp = self.staging.join("commit.tmp");
        let io = |e| BakeError::io(&journal_path, e);
        write_staged(&temp, &[journal.as_bytes()])
            .and_then(|file| file.sync_all())
            .map_err(io)?;
        fs::rename(&temp, &journal_path).map_err(io)?;
        if self.any_durable {
            sync_dir(&self.staging).map_err(io)?;
        }
        // Committed: from here on, an error leaves a journal the next open finishes.
        apply(&self.root, &self.steps)?;
        if self.any_durable {
            sync_dir(&self.root).map_err(|e| BakeError::io(&self.root, e))?;
        }
        Ok(())
    }

    /// Creates `dir` and missing ancestors inside the output folder, remembering which.
    fn create_dirs(&mut self, dir: &Path) -> Result<(), BakeError> {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| *d != self.root && d.starts_with(&self.root)) {
            if d.exists() {
                break;
            }
            missing.push(d.to_path_buf());
            at = d.parent();
        }
        for d in missing.into_iter().rev() {
            fs::create_dir(&d).map_err(|e| BakeError::io(&d, e))?;
            self.created_dirs.push(d);
        }
        Ok(())
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // Rolled back: the staged files go, and the folders made for them if still empty.
        let _ = fs::remove_dir_all(&self.staging);
        for dir in self.created_dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Finishes or discards whatever transaction an interrupted bake left in the output folder
/// `root` and every bake folder under it (preset outputs), each under its lock, so a bake in
/// progress there is waited for. Returns each folder's outcome other than
/// [`Recovery::Clean`]. This is what `hearth check` does before checking.
pub fn recover_all(root: &Path) -> Result<Vec<(PathBuf, Recovery)>, BakeError> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        // This folder's own transaction first: rolling it forward may delete subfolders, which
        // must not be listed before it.
        if fs::symlink_metadata(dir.join(STAGING_DIR)).is_ok() {
            let _lock = crate::bake::output::OutputLock::acquire(&dir)?;
            let recovery = recover(&dir)?;
            if recovery != Recovery::Clean {
                found.push((dir.clone(), recovery));
            }
        }
        let entries = fs::read_dir(&dir).map_err(|e| BakeError::io(&dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| BakeError::io(&dir, e))?;
            let name = entry.file_name();
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && !name.to_string_lossy().starts_with('.') {
                stack.push(entry.path());
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Finishes or discards whatever transaction an interrupted bake left in `root`. The caller
/// holds the folder's lock. A journal that does not parse or fails its checksum was never
/// committed (its rename is the commit point), so its staging folder is discarded.
pub(crate) fn recover(root: &Path) -> Result<Recovery, BakeError> {
    let staging = root.join(STAGING_DIR);
    match fs::symlink_metadata(&staging) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Recovery::Clean),
        Err(e) => return Err(BakeError::io(&staging, e)),
        Ok(meta) if !meta.is_dir() => {
            // Not ours to interpret (a file or a symlink planted there): removed, not followed.
            fs::remove_file(&staging).map_err(|e| BakeError::io(&staging, e))?;
            return Ok(Recovery::RolledBack);
        }
        Ok(_) => {}
    }
    let journal_path = staging.join(JOURNAL);
    let steps = match read_regular(&journal_path, MAX_JOURNAL_BYTES) {
        Ok(bytes) => parse_journal(&bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(BakeError::io(&journal_path, e)),
    };
    let recovery = match steps {
        Some(steps) => {
            apply(root, &steps)?;
            Recovery::RolledForward(steps.len())
        }
        None => {
            fs::remove_dir_all(&staging).map_err(|e| BakeError::io(&staging, e))?;
            Recovery::RolledBack
        }
    };
    Ok(recovery)
}

/// Replays `steps` (each idempotent: a staged file already moved is skipped, a file already
/// deleted is fine), then removes the journal and the staging folder.
fn apply(root: &Path, steps: &[Step]) -> Result<(), BakeError> {
    let staging = root.join(STAGING_DIR);
    for step in steps {
        crate::bake::fault::point("transaction::apply").map_err(|e| BakeError::io(root, e))?;
        match step {
            Step::Put { index, path } => {
                no_symlinked_folder(root, path)?;
                let staged = staging.join(index.to_string());
                let target = root.join(path);
                if !staged.exists() {
                    continue; // moved before the interruption
                }
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(|e| BakeError::io(parent, e))?;
                }
                fs::rename(&staged, &target).map_err(|e| BakeError::io(&target, e))?;
            }
            Step::Delete { path } => {
                crate::bake::output::remove_stale(root, path)?;
            }
        }
    }
    // The journal goes first: a staging folder without one is discarded, never replayed.
    let journal = staging.join(JOURNAL);
    match fs::remove_file(&journal) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(BakeError::io(&journal, e)),
    }
    fs::remove_dir_all(&staging).map_err(|e| BakeError::io(&staging, e))
}

/// Syncs the durable staged files, each on a thread of its own: syncs issued together let the
/// file system flush them in one go (ext4 commits its journal once for concurrent syncs),
/// where one after another each waited for a flush of its own. All are synced before the
/// journal is written, as when each was synced as it was written.
fn sync_all(files: Vec<(PathBuf, fs::File)>) -> Result<(), BakeError> {
    let sync =
        |(path, file): &(PathBuf, fs::File)| file.sync_all().map_err(|e| BakeError::io(path, e));
    match files.as_slice() {
        [] => Ok(()),
        [one] => sync(one),
        [first, rest @ ..] => std::thread::scope(|scope| {
            let others: Vec<_> = rest.iter().map(|f| scope.spawn(move || sync(f))).collect();
            let mut result = sync(first);
            for other in others {
                let joined = other.join().unwrap_or_else(|_| {
                    Err(BakeError::io(
                        &first.0,
                        std::io::Error::other("sync panicked"),
                    ))
                });
                result = result.and(joined);
            }
            result
        }),
    }
}

/// Writes a staged file, unsynced: the caller syncs it when it must be durable. A fault point
/// stands in for a full disk.
fn write_staged(path: &Path, parts: &[&[u8]]) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    let mut file = open_regular(path, &mut options, Links::Refuse)?;
    if let Err(e) = crate::bake::fault::point("transaction::write") {
        // Half the bytes, then the error, as a disk that fills up mid-write leaves it.
        let half = parts.iter().map(|part| part.len()).sum::<usize>() / 2;
        let mut left = half;
        for part in parts {
            let take = left.min(part.len());
            file.write_all(&part[..take])?;
            left -= take;
        }
        return Err(e);
    }
    // Small parts (entry padding, small entries) gathered; large ones written straight from
    // where they are (BufWriter passes a write larger than its buffer through).
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, &mut file);
    let mut writeback = Writeback::default();
    for part in parts {
        writer.write_all(part)?;
        writeback.wrote(part.len(), writer.get_ref());
    }
    writer.flush()?;
    drop(writer);
    Ok(file)
}

/// Starts the disk writing a large staged file while the rest of it is still being written, so
/// that the commit's `fsync` waits for the tail only instead of all of it.
#[derive(Default)]
struct Writeback {
    written: u64,
    started: u64,
}

impl Writeback {
    /// How much has to be written before writeback of it is started.
    const STEP: u64 = 8 << 20;

    #[cfg(target_os = "linux")]
    fn wrote(&mut self, bytes: usize, file: &fs::File) {
        use std::os::fd::AsRawFd;
        self.written += bytes as u64;
        if self.written - self.started < Self::STEP {
            return;
        }
        // SAFETY: sync_file_range only reads its integer arguments; the descriptor is open for
        // the whole call as `file` is borrowed. Its result is only advice: an error (a file
        // system without it) leaves the commit's fsync to do all the work, as before.
        unsafe {
            libc::sync_file_range(
                file.as_raw_fd(),
                self.started as libc::off64_t,
                (self.written - self.started) as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
        self.started = self.written;
    }

    #[cfg(not(target_os = "linux"))]
    fn wrote(&mut self, _bytes: usize, _file: &fs::File) {}
}

/// A path a transaction may write or delete: inside the folder, `/`-separated, no `.` or
/// `..` components, hidden only for the cache file. Checked again when a journal is read
/// back, as a journal on disk could have been tampered with.
fn check_path(path: &str) -> Result<(), String> {
    if path == CACHE_FILE {
        return Ok(());
    }
    let bad = path.is_empty()
        || path.len() > u16::MAX as usize
        || path.starts_with('/')
        || path.contains(['\\', '\0', '\n', '\r'])
        || path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == ".." || part.starts_with('.'));
    match bad {
        true => Err(format!(
            "{path:?} is not a path inside the output folder hearth may write"
        )),
        false => Ok(()),
    }
}

fn encode_journal(steps: &[Step]) -> String {
    let mut text = format!("{JOURNAL_MAGIC}\n");
    for step in steps {
        match step {
            Step::Put { index, path } => text.push_str(&format!("put {index} {path}\n")),
            Step::Delete { path } => text.push_str(&format!("delete {path}\n")),
        }
    }
    let checksum = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
    text.push_str(&format!("end {checksum:016x}\n"));
    text
}

/// The journal's steps, or `None` when it is not a whole, valid journal.
fn parse_journal(bytes: &[u8]) -> Option<Vec<Step>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let body_len = text.trim_end_matches('\n').rfind('\n')? + 1;
    let (body, end) = text.split_at(body_len);
    let checksum = u64::from_str_radix(end.strip_prefix("end ")?.strip_suffix('\n')?, 16).ok()?;
    if xxhash_rust::xxh3::xxh3_64(body.as_bytes()) != checksum {
        return None;
    }
    let mut lines = body.lines();
    if lines.next()? != JOURNAL_MAGIC {
        return None;
    }
    let mut steps = Vec::new();
    for line in lines {
        let step = match line.split_once(' ')? {
            ("put", rest) => {
                let (index, path) = rest.split_once(' ')?;
                Step::Put {
                    index: index.parse().ok()?,
                    path: path.to_owned(),
                }
            }
            ("delete", path) => Step::Delete {
                path: path.to_owned(),
            },
            _ => return None,
        };
        let (Step::Put { path, .. } | Step::Delete { path }) = &step;
        check_path(path).ok()?;
        steps.push(step);
    }
    Some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    out.push((rel, fs::read(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_staged_file_larger_than_a_writeback_step_is_written_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        // Parts of odd sizes around the step, so that writeback starts mid-part and between
        // parts gathered by the buffer.
        let parts: Vec<Vec<u8>> = [3usize, 9 << 20, 100, 5 << 20, 7 << 20, 1]
            .iter()
            .enumerate()
            .map(|(i, &len)| (0..len).map(|j| (i * 31 + j % 251) as u8).collect())
            .collect();
        let slices: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        write_staged(&path, &slices).unwrap().sync_all().unwrap();
        assert_eq!(fs::read(&path).unwrap(), parts.concat());
    }

    #[test]
    fn commit_moves_and_deletes_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("old.txt"), b"old").unwrap();
        fs::write(root.join("same.txt"), b"same").unwrap();
        let (mut txn, recovery) = Transaction::begin(root).unwrap();
        assert_eq!(recovery, Recovery::Clean);
        assert!(txn.put("a/b/new.txt", b"new", Durability::Atomic).unwrap());
        assert!(!txn.put("same.txt", b"same", Durability::Durable).unwrap());
        assert!(txn.remove("old.txt").unwrap());
        assert!(!txn.remove("never.txt").unwrap());
        assert!(
            !root.join("a/b/new.txt").exists(),
            "staged, not yet applied"
        );
        txn.commit().unwrap();
        assert_eq!(
            files(root),
            vec![
                ("a/b/new.txt".into(), b"new".to_vec()),
                ("same.txt".into(), b"same".to_vec())
            ]
        );
    }

    #[test]
    fn a_dropped_transaction_leaves_the_folder_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("keep.txt"), b"keep").unwrap();
        let (mut txn, _) = Transaction::begin(root).unwrap();
        txn.put("deep/er/x.txt", b"x", Durability::Atomic).unwrap();
        txn.put("keep.txt", b"changed", Durability::Atomic).unwrap();
        txn.remove("keep.txt").unwrap();
        drop(txn);
        assert_eq!(files(root), vec![("keep.txt".into(), b"keep".to_vec())]);
        assert!(
            !root.join("deep").exists(),
            "folders made for it are gone too"
        );
    }

    #[test]
    fn a_committed_journal_is_rolled_forward_from_any_point() {
        // Build the staged state by hand: a journal whose first step was already applied.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let staging = root.join(STAGING_DIR);
        fs::create_dir_all(&staging).unwrap();
        fs::write(root.join("a.txt"), b"new a").unwrap(); // step 0 done
        fs::write(staging.join("1"), b"new b").unwrap();
        fs::write(root.join("b.txt"), b"old b").unwrap();
        fs::write(root.join("stale.txt"), b"stale").unwrap();
        let steps = vec![
            Step::Put {
                index: 0,
                path: "a.txt".into(),
            },
            Step::Put {
                index: 1,
                path: "b.txt".into(),
            },
            Step::Delete {
                path: "stale.txt".into(),
            },
        ];
        fs::write(staging.join(JOURNAL), encode_journal(&steps)).unwrap();
        assert!(staging.join(JOURNAL).is_file());
        assert_eq!(recover(root).unwrap(), Recovery::RolledForward(3));
        assert_eq!(
            files(root),
            vec![
                ("a.txt".into(), b"new a".to_vec()),
                ("b.txt".into(), b"new b".to_vec())
            ]
        );
        assert_eq!(recover(root).unwrap(), Recovery::Clean);
    }

    #[test]
    fn uncommitted_or_damaged_journals_are_rolled_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), b"old").unwrap();
        let staging = root.join(STAGING_DIR);
        let steps = vec![Step::Put {
            index: 0,
            path: "a.txt".into(),
        }];
        let journal = encode_journal(&steps);
        let mut damaged = [
            None,                                                // never committed
            Some(journal[..journal.len() - 3].to_string()),      // cut short
            Some(journal.replace("put 0 a.txt", "put 0 b.txt")), // checksum fails
            Some(encode_journal(&[Step::Delete {
                path: "../x".into(),
            }])), // escapes
        ];
        for journal in damaged.iter_mut() {
            fs::create_dir_all(&staging).unwrap();
            fs::write(staging.join("0"), b"new").unwrap();
            if let Some(text) = journal.take() {
                fs::write(staging.join(JOURNAL), text).unwrap();
            }
            assert_eq!(recover(root).unwrap(), Recovery::RolledBack);
            assert_eq!(files(root), vec![("a.txt".into(), b"old".to_vec())]);
        }
    }

    #[test]
    fn paths_outside_the_folder_are_refused() {
        for bad in [
            "", "/abs", "../up", "a/../b", "a//b", ".hidden", "a\\b", "x\ny",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?}");
        }
        for good in [
            "a",
            "a/b.ktx2",
            ".hearth-cache",
            "assets.hman",
            "game.hpack",
        ] {
            check_path(good).unwrap();
        }
    }
}
