//! The local tier: a folder shared by every checkout on the machine.
//!
//! Layout: `<dir>/v1/objects/<2 hex>/<64 hex>` and `<dir>/v1/recipes/<2 hex>/<64 hex>`,
//! written through a temporary file in `<dir>/v1/tmp` and a rename, so a reader never sees a
//! half-written object and two bakers racing on one key both leave a whole one. A file's
//! modification time is its last use (a hit touches it): [`gc`] removes the least recently
//! used first.
//!
//! Below `<dir>` the tier uses only what it made: real folders (a link in the layout is an
//! error, a link or stray folder among the shards is skipped), and regular files named as a
//! key (or a temporary file) in the folder their name belongs in. Nothing else is read,
//! counted or deleted, and no link is followed.

use super::{Key, Kind, Tier, MAX_OBJECT_BYTES};
use crate::read::regular_file::{create_new, open_regular, read_regular, Links};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// The layout version folder inside the cache folder.
const VERSION_DIR: &str = "v1";
/// Temporary files older than this are leftovers of a killed baker: `gc` removes them.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// The local tier.
#[derive(Debug, Clone)]
pub struct LocalTier {
    dir: PathBuf,
}

impl LocalTier {
    /// Opens (creating) the tier in `dir`. `dir` itself may be reached through a link (the
    /// user chose it); the folders inside it must be real ones.
    pub fn open(dir: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let root = dir.join(VERSION_DIR);
        real_dir(&root, true)?;
        for sub in ["objects", "recipes", "tmp"] {
            real_dir(&root.join(sub), true)?;
        }
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    /// The file of `key`.
    pub fn path(&self, kind: Kind, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.dir
            .join(VERSION_DIR)
            .join(kind.dir())
            .join(&hex[..2])
            .join(hex)
    }

    /// Checks that the folders leading to `key`'s file are real ones (made when `create`);
    /// `false` when one is missing and not made.
    fn folders_to(&self, kind: Kind, key: &Key, create: bool) -> Result<bool, String> {
        let path = self.path(kind, key);
        let shard = path.parent().expect("two levels under the cache folder");
        let top = shard.parent().expect("one level under the cache folder");
        for dir in [top.parent().expect("v1"), top, shard] {
            if !real_dir(dir, create)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Whether `dir` is a real folder (not a link to one); made when missing and `create`.
/// `Ok(false)`: missing. Anything else in its place is an error naming it.
fn real_dir(dir: &Path, create: bool) -> Result<bool, String> {
    let not_a_folder = || {
        format!(
            "{}: not a real folder (a link or a file); the cache does not go through it",
            dir.display()
        )
    };
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(not_a_folder()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
            match std::fs::create_dir(dir) {
                Ok(()) => Ok(true),
                // Made by another baker meanwhile: check what it is.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => real_dir(dir, false),
                Err(e) => Err(format!("{}: {e}", dir.display())),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", dir.display())),
    }
}

impl Tier for LocalTier {
    fn describe(&self) -> String {
        format!("local cache {}", self.dir.display())
    }

    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Vec<u8>>, String> {
        if !self.folders_to(kind, key, false)? {
            return Ok(None);
        }
        let path = self.path(kind, key);
        match read_regular(&path, MAX_OBJECT_BYTES) {
            Ok(bytes) => {
                // Last use, for `gc`; a read-only folder only makes LRU less exact.
                let mut options = std::fs::OpenOptions::new();
                if let Ok(file) = open_regular(&path, options.write(true), Links::Refuse) {
                    let _ = file.set_modified(SystemTime::now());
                }
                Ok(Some(bytes))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    fn put(&self, kind: Kind, key: &Key, bytes: &[u8], replace: bool) -> Result<(), String> {
        let path = self.path(kind, key);
        // Only a regular file counts as stored: anything else there is replaced by the rename.
        if !replace && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        let io = |e: std::io::Error| format!("{}: {e}", path.display());
        self.folders_to(kind, key, true)?;
        let tmp = self.dir.join(VERSION_DIR).join("tmp");
        real_dir(&tmp, true)?;
        let temp = tmp.join(temp_name());
        let result = (|| {
            let mut file = create_new(&temp)?;
            file.write_all(bytes)?;
            std::fs::rename(&temp, &path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        result.map_err(io)
    }
}

/// A temporary file name no other baker (process or thread) picks.
fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    format!(
        "{}-{}-{nanos}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether `name` is one [`temp_name`] makes: three decimal numbers, then `.tmp`.
fn is_temp_name(name: &OsStr) -> bool {
    name.to_str()
        .and_then(|name| name.strip_suffix(".tmp"))
        .is_some_and(|stem| {
            let parts: Vec<&str> = stem.split('-').collect();
            parts.len() == 3
                && (parts.iter()).all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
}

fn is_lower_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `name` is a shard folder's: the first two hex digits of its keys.
fn is_shard_name(name: &OsStr) -> bool {
    name.to_str().is_some_and(|name| is_lower_hex(name, 2))
}

/// Whether `name` is a key's file name that belongs in shard `shard`.
fn is_key_name(name: &OsStr, shard: &OsStr) -> bool {
    name.to_str().is_some_and(|name| {
        is_lower_hex(name, 64) && shard.to_str().is_some_and(|s| name.starts_with(s))
    })
}

/// What the local tier holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// The cache folder.
    pub dir: PathBuf,
    /// Asset objects.
    pub objects: u64,
    /// Recipes.
    pub recipes: u64,
    /// Bytes of both.
    pub bytes: u64,
    /// The least recently used file's last use.
    pub oldest_use: Option<SystemTime>,
    /// The most recently used file's last use.
    pub newest_use: Option<SystemTime>,
}

/// One stored file: (path, size, last use, is an object).
type Entry = (PathBuf, u64, SystemTime, bool);

/// Every stored file of the tier in `dir` (none when it does not exist): regular files named
/// as keys, in real shard folders named as their prefix. A link in the layout is an error.
fn entries(dir: &Path) -> Result<Vec<Entry>, String> {
    let mut found = Vec::new();
    if !real_dir(&dir.join(VERSION_DIR), false)? {
        return Ok(found);
    }
    for kind in [Kind::Object, Kind::Recipe] {
        let top = dir.join(VERSION_DIR).join(kind.dir());
        if !real_dir(&top, false)? {
            continue;
        }
        let shards = std::fs::read_dir(&top).map_err(|e| format!("{}: {e}", top.display()))?;
        for shard in shards {
            let shard = shard.map_err(|e| format!("{}: {e}", top.display()))?;
            let shard_name = shard.file_name();
            // `file_type` does not follow a link: a linked shard is not walked.
            if !is_shard_name(&shard_name) || !shard.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for file in files.flatten() {
                if !is_key_name(&file.file_name(), &shard_name)
                    || !file.file_type().is_ok_and(|t| t.is_file())
                {
                    continue;
                }
                let Ok(meta) = file.metadata() else { continue };
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((file.path(), meta.len(), used, kind == Kind::Object));
            }
        }
    }
    Ok(found)
}

/// Counts what the tier in `dir` holds.
pub fn stats(dir: &Path) -> Result<Stats, String> {
    let mut stats = Stats {
        dir: dir.to_path_buf(),
        ..Stats::default()
    };
    for (_, size, used, object) in entries(dir)? {
        match object {
            true => stats.objects += 1,
            false => stats.recipes += 1,
        }
        stats.bytes += size;
        stats.oldest_use = Some(stats.oldest_use.map_or(used, |t| t.min(used)));
        stats.newest_use = Some(stats.newest_use.map_or(used, |t| t.max(used)));
    }
    Ok(stats)
}

/// What [`gc`] or [`clear`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    /// Files removed.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes left.
    pub bytes_left: u64,
}

/// The removals that failed during a [`gc`] or [`clear`].
#[derive(Debug, Default)]
struct Failures {
    count: u64,
    first: Option<String>,
}

impl Failures {
    /// Removes `path`: whether it went. One already gone (another `gc`) is not a failure.
    fn remove(&mut self, path: &Path) -> bool {
        // A fault point stands in for a read-only folder (which root could still write).
        let removal = crate::bake::fault::point("shared_cache::remove")
            .and_then(|()| std::fs::remove_file(path));
        match removal {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => {
                self.count += 1;
                self.first
                    .get_or_insert_with(|| format!("{}: {e}", path.display()));
                false
            }
        }
    }

    /// `removed`, or an error saying what could not be removed (and what was).
    fn result(self, removed: Removed) -> Result<Removed, String> {
        match self.first {
            None => Ok(removed),
            Some(first) => Err(format!(
                "could not remove {} files (first: {first}); removed {} files ({} bytes)",
                self.count, removed.files, removed.bytes
            )),
        }
    }
}

/// Removes the least recently used files until the tier in `dir` holds at most `max_bytes`
/// (and temporary files a killed baker left). A file that cannot be removed (a read-only
/// folder) is an error, after the rest were tried.
pub fn gc(dir: &Path, max_bytes: u64) -> Result<Removed, String> {
    let mut failures = Failures::default();
    remove_stale_temps(dir, &mut failures)?;
    let mut all = entries(dir)?;
    // Oldest first; ties by path, so the result does not depend on listing order.
    all.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    let mut total: u64 = all.iter().map(|e| e.1).sum();
    let mut removed = Removed::default();
    for (path, size, _, _) in all {
        if total <= max_bytes {
            break;
        }
        if failures.remove(&path) {
            total -= size;
            removed.files += 1;
            removed.bytes += size;
        }
    }
    removed.bytes_left = total;
    failures.result(removed)
}

/// Removes everything the tier in `dir` holds. A file that cannot be removed is an error,
/// after the rest were tried.
pub fn clear(dir: &Path) -> Result<Removed, String> {
    let mut failures = Failures::default();
    let mut removed = Removed::default();
    for (path, size, _, _) in entries(dir)? {
        if failures.remove(&path) {
            removed.files += 1;
            removed.bytes += size;
        }
    }
    remove_stale_temps(dir, &mut failures)?;
    failures.result(removed)
}

/// Removes the temporary files a killed baker left (by name and age; regular files only).
fn remove_stale_temps(dir: &Path, failures: &mut Failures) -> Result<(), String> {
    let tmp = dir.join(VERSION_DIR).join("tmp");
    if !real_dir(&dir.join(VERSION_DIR), false)? || !real_dir(&tmp, false)? {
        return Ok(());
    }
    let Ok(temps) = std::fs::read_dir(&tmp) else {
        return Ok(());
    };
    let now = SystemTime::now();
    for temp in temps.flatten() {
        if !is_temp_name(&temp.file_name()) || !temp.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let stale = temp
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > STALE_TEMP);
        if stale {
            failures.remove(&temp.path());
        }
    }
    Ok(())
}

/// Parses a size: bytes, or with a `K`, `M`, `G` or `T` suffix (powers of 1024; `KiB`,
/// `MB` and the like are read the same).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?}: expected a size like 500M or 20G"))?;
    let unit = unit.trim().to_ascii_uppercase();
    let shift = match unit.trim_end_matches("IB").trim_end_matches('B') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("{text:?}: unknown unit (use K, M, G or T)")),
    };
    Ok((number * (1u64 << shift) as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_gc_clear() {
        let dir = tempfile::tempdir().unwrap();
        let tier = LocalTier::open(dir.path()).unwrap();
        let (a, b) = (Key([1; 32]), Key([2; 32]));
        assert_eq!(tier.get(Kind::Object, &a).unwrap(), None);
        tier.put(Kind::Object, &a, &[1; 100], false).unwrap();
        // Write once: a second put of the same key keeps the first bytes...
        tier.put(Kind::Object, &a, &[9; 100], false).unwrap();
        assert_eq!(tier.get(Kind::Object, &a).unwrap(), Some(vec![1; 100]));
        // ...unless it replaces a damaged one.
        tier.put(Kind::Object, &a, &[3; 100], true).unwrap();
        assert_eq!(tier.get(Kind::Object, &a).unwrap(), Some(vec![3; 100]));
        tier.put(Kind::Recipe, &b, &[2; 50], false).unwrap();
        let old = SystemTime::now() - Duration::from_secs(1000);
        std::fs::File::options()
            .write(true)
            .open(tier.path(Kind::Recipe, &b))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let counted = stats(dir.path()).unwrap();
        assert_eq!(
            (counted.objects, counted.recipes, counted.bytes),
            (1, 1, 150)
        );
        // The least recently used goes first.
        let removed = gc(dir.path(), 120).unwrap();
        assert_eq!(
            (removed.files, removed.bytes, removed.bytes_left),
            (1, 50, 100)
        );
        assert!(tier.get(Kind::Object, &a).unwrap().is_some());
        assert_eq!(clear(dir.path()).unwrap().files, 1);
        assert_eq!(stats(dir.path()).unwrap().bytes, 0);
    }

    /// `f` on another thread, failing the test (not hanging it) when it takes over 20 s.
    fn within_20_s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(f());
        });
        receive
            .recv_timeout(Duration::from_secs(20))
            .expect("hung: still blocked after 20 s")
    }

    #[test]
    fn only_files_named_as_keys_are_counted_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let tier = LocalTier::open(dir.path()).unwrap();
        let key = Key([0xab; 32]);
        tier.put(Kind::Object, &key, &[1; 10], false).unwrap();
        let objects = dir.path().join("v1/objects");
        let strays = [
            objects.join("ab/notes.txt"),
            objects.join("ab").join("cd".repeat(32)), // a key, in the wrong shard
            objects.join("ab").join("AB".repeat(32)), // not lowercase
            objects.join("zz").join("zz".repeat(32)),
            objects.join("README"),
            dir.path().join("v1/tmp/user-file.tmp"),
        ];
        for stray in &strays {
            std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
            std::fs::write(stray, [0; 1000]).unwrap();
            std::fs::File::options()
                .write(true)
                .open(stray)
                .unwrap()
                .set_modified(SystemTime::UNIX_EPOCH)
                .unwrap();
        }
        let counted = stats(dir.path()).unwrap();
        assert_eq!((counted.objects, counted.bytes), (1, 10));
        assert_eq!(gc(dir.path(), 0).unwrap().files, 1);
        assert_eq!(clear(dir.path()).unwrap().files, 0);
        assert!(strays.iter().all(|stray| stray.exists()));
    }

    #[cfg(unix)]
    #[test]
    fn linked_folders_are_never_walked_or_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let victim = dir.path().join("victim");
        std::fs::create_dir_all(&victim).unwrap();
        // Named as the shard's keys would be: only the link check keeps them.
        let precious = victim.join("ab".repeat(32));
        std::fs::write(&precious, b"precious").unwrap();
        let tier = LocalTier::open(&cache).unwrap();
        std::os::unix::fs::symlink(&victim, cache.join("v1/objects/ab")).unwrap();
        std::os::unix::fs::symlink(&victim, cache.join("v1/recipes/ab")).unwrap();
        assert_eq!(stats(&cache).unwrap().objects, 0);
        assert_eq!(gc(&cache, 0).unwrap().files, 0);
        assert_eq!(clear(&cache).unwrap().files, 0);
        let key = Key([0xab; 32]);
        assert!(tier.get(Kind::Object, &key).is_err());
        assert!(tier.put(Kind::Object, &key, b"new", true).is_err());
        assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
        assert_eq!(std::fs::read(&precious).unwrap(), b"precious");
        // A linked layout folder is an error naming it, for every command.
        std::fs::remove_dir_all(cache.join("v1/objects")).unwrap();
        std::os::unix::fs::symlink(&victim, cache.join("v1/objects")).unwrap();
        for result in [gc(&cache, 0).map(|_| ()), clear(&cache).map(|_| ())] {
            assert!(result.unwrap_err().contains("not a real folder"));
        }
        assert!(stats(&cache).is_err());
        assert!(LocalTier::open(&cache).is_err());
        assert_eq!(std::fs::read(&precious).unwrap(), b"precious");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_in_place_of_an_object_is_a_miss_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let tier = LocalTier::open(dir.path()).unwrap();
        let (fifo_key, zero_key) = (Key([1; 32]), Key([2; 32]));
        let fifo = tier.path(Kind::Object, &fifo_key);
        std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let zero = tier.path(Kind::Object, &zero_key);
        std::fs::create_dir_all(zero.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let probe = tier.clone();
        let (from_fifo, from_zero) = within_20_s(move || {
            (
                probe.get(Kind::Object, &fifo_key),
                probe.get(Kind::Object, &zero_key),
            )
        });
        assert!(from_fifo.unwrap_err().contains("not a regular file"));
        assert!(from_zero.unwrap_err().contains("symbolic link"));
        // A store replaces what is there with a real object.
        tier.put(Kind::Object, &fifo_key, b"whole", false).unwrap();
        assert_eq!(
            tier.get(Kind::Object, &fifo_key).unwrap().unwrap(),
            b"whole"
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("123").unwrap(), 123);
        assert_eq!(parse_size("2K").unwrap(), 2048);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("500MB").unwrap(), 500 << 20);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5X").is_err());
    }
}
