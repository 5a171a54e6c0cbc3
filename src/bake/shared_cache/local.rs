//! The local tier: a folder shared by every checkout on the machine.
//!
//! Layout: `<dir>/v1/objects/<2 hex>/<64 hex>` and `<dir>/v1/recipes/<2 hex>/<64 hex>`,
//! written through a temporary file in `<dir>/v1/tmp` and a rename, so a reader never sees a
//! half-written object and two bakers racing on one key both leave a whole one. A file's
//! modification time is its last use (a hit touches it): [`gc`] removes the least recently
//! used first.

use super::{Key, Kind, Tier};
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
    /// Opens (creating) the tier in `dir`.
    pub fn open(dir: &Path) -> Result<Self, String> {
        let root = dir.join(VERSION_DIR);
        for sub in ["objects", "recipes", "tmp"] {
            std::fs::create_dir_all(root.join(sub)).map_err(|e| e.to_string())?;
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
}

impl Tier for LocalTier {
    fn describe(&self) -> String {
        format!("local cache {}", self.dir.display())
    }

    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Vec<u8>>, String> {
        let path = self.path(kind, key);
        match std::fs::read(&path) {
            Ok(bytes) => {
                // Last use, for `gc`; a read-only folder only makes LRU less exact.
                if let Ok(file) = std::fs::File::options().write(true).open(&path) {
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
        if !replace && path.exists() {
            return Ok(());
        }
        let io = |e: std::io::Error| format!("{}: {e}", path.display());
        let parent = path.parent().expect("two levels under the cache folder");
        std::fs::create_dir_all(parent).map_err(io)?;
        let temp = self.dir.join(VERSION_DIR).join("tmp").join(temp_name());
        let result = (|| {
            let mut file = std::fs::File::create(&temp)?;
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

/// Every stored file of the tier in `dir` (none when it does not exist).
fn entries(dir: &Path) -> Result<Vec<Entry>, String> {
    let mut found = Vec::new();
    for kind in [Kind::Object, Kind::Recipe] {
        let top = dir.join(VERSION_DIR).join(kind.dir());
        let shards = match std::fs::read_dir(&top) {
            Ok(shards) => shards,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", top.display())),
        };
        for shard in shards {
            let shard = shard.map_err(|e| format!("{}: {e}", top.display()))?;
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for file in files.flatten() {
                let Ok(meta) = file.metadata() else { continue };
                if meta.is_file() {
                    let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    found.push((file.path(), meta.len(), used, kind == Kind::Object));
                }
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

/// Removes the least recently used files until the tier in `dir` holds at most `max_bytes`
/// (and temporary files a killed baker left).
pub fn gc(dir: &Path, max_bytes: u64) -> Result<Removed, String> {
    remove_stale_temps(dir);
    let mut all = entries(dir)?;
    // Oldest first; ties by path, so the result does not depend on listing order.
    all.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    let mut total: u64 = all.iter().map(|e| e.1).sum();
    let mut removed = Removed::default();
    for (path, size, _, _) in all {
        if total <= max_bytes {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= size;
            removed.files += 1;
            removed.bytes += size;
        }
    }
    removed.bytes_left = total;
    Ok(removed)
}

/// Removes everything the tier in `dir` holds.
pub fn clear(dir: &Path) -> Result<Removed, String> {
    let mut removed = Removed::default();
    for (path, size, _, _) in entries(dir)? {
        if std::fs::remove_file(&path).is_ok() {
            removed.files += 1;
            removed.bytes += size;
        }
    }
    remove_stale_temps(dir);
    Ok(removed)
}

fn remove_stale_temps(dir: &Path) {
    let Ok(temps) = std::fs::read_dir(dir.join(VERSION_DIR).join("tmp")) else {
        return;
    };
    let now = SystemTime::now();
    for temp in temps.flatten() {
        let stale = temp
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > STALE_TEMP);
        if stale {
            let _ = std::fs::remove_file(temp.path());
        }
    }
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
