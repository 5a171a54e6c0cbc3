//! Hot reload (feature `watch`): follow a `.hpack` file across bakes and say which assets
//! changed.
//!
//! ```no_run
//! # fn main() -> Result<(), hearth::ReadError> {
//! let mut assets = hearth::read::hot::HotPack::open("target/assets/assets.hpack")?;
//! loop {
//!     // Once per frame: cheap when nothing happened (no system call).
//!     if let Some(reload) = assets.poll()? {
//!         for changed in reload.changed.iter().chain(&reload.added) {
//!             // re-upload the texture, re-parse the level, … from `assets.pack()`
//!             println!("reloaded {}", changed.path);
//!         }
//!     }
//!     let pack = assets.pack(); // this frame's generation
//!     let _hello = pack.get("text/hello.txt")?;
//!     # break;
//! }
//! # Ok(()) }
//! ```
//!
//! **Never a torn read.** A bake writes its pack beside the old one and renames it into place
//! (one transaction, `bake::transaction`), so the file at the pack's path is always one whole
//! bake. A [`HotPack`] maps that file; a reload maps the new file and swaps one
//! `Arc<PakReader>`. Whoever still holds the previous `Arc` keeps reading the previous bake
//! (its mapping keeps the replaced file's bytes alive) until they drop it: every read sees one
//! generation, never a mix. A runtime tree is many files renamed one by one, so hot reload
//! follows the pack, not the tree.
//!
//! **How changes are found.** The pack's folder is watched with `notify`; an event there makes
//! the next [`poll`](HotPack::poll) compare the file's identity (device, inode, size and
//! modification time) with the open one's, and reopen when it differs. As a fallback for lost
//! events (a folder deleted and made again, an overflowed queue) `poll` also checks the
//! identity every [`RESCAN_INTERVAL`]. Entries are compared by path and their stored bytes'
//! checksum (xxh3; computed for v2 packs, which store none), so a re-stored but identical
//! asset is not reported; an asset whose codec changed is.
//!
//! **Limits.** A pack written in place by another tool (not renamed) can be seen half written:
//! the open then fails, `poll` returns the error once and keeps the previous generation, and
//! the next change to the file retries. Mapping a file that is later truncated in place is the usual mmap
//! hazard ([`PakReader::open`]); hearth itself never does that.

use crate::read::error::ReadError;
use crate::read::pak::PakReader;
use notify::{RecursiveMode, Watcher};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// How often [`HotPack::poll`] checks the pack's identity even without an event.
pub const RESCAN_INTERVAL: Duration = Duration::from_secs(1);

/// One asset a reload reports.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AssetChange {
    /// Runtime path.
    pub path: String,
    /// The path's asset hash.
    pub hash: u64,
}

/// What a reload changed: the lists are sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reload {
    /// The new generation (the first open is generation 0).
    pub generation: u64,
    /// Entries in both packs whose bytes differ.
    pub changed: Vec<AssetChange>,
    /// Entries only in the new pack.
    pub added: Vec<AssetChange>,
    /// Entries only in the previous pack.
    pub removed: Vec<AssetChange>,
}

impl Reload {
    /// No entry changed (the pack was rewritten with the same contents).
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

/// What tells two files at one path apart without reading them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
}

impl FileIdentity {
    fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        let (device, inode) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (device, inode) = (0, 0);
        Ok(Self {
            device,
            inode,
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// A pack file that follows its bakes: [`poll`](Self::poll) reopens it when a bake replaced it
/// and reports what changed; [`pack`](Self::pack) is the current generation.
pub struct HotPack {
    path: PathBuf,
    folder: PathBuf,
    current: Arc<PakReader>,
    identity: FileIdentity,
    /// Entry path -> (hash, content key) of the current generation.
    contents: HashMap<String, (u64, u64)>,
    generation: u64,
    events: mpsc::Receiver<notify::Result<notify::Event>>,
    watcher: notify::RecommendedWatcher,
    /// Whether the folder is watched (it may have gone; rescans re-arm it).
    watching: bool,
    /// The file that last failed to open: not retried until it changes.
    failed: Option<FileIdentity>,
    last_check: Instant,
}

impl std::fmt::Debug for HotPack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotPack")
            .field("path", &self.path)
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

impl HotPack {
    /// Opens the pack at `path` (memory-mapped, as [`PakReader::open`]) and starts watching
    /// its folder.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let path = std::path::absolute(path.as_ref())?;
        let folder = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        let (identity, pack) = open_generation(&path)?;
        let contents = contents(&pack)?;
        let (sender, events) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(sender).map_err(watch_error)?;
        watcher
            .watch(&folder, RecursiveMode::NonRecursive)
            .map_err(watch_error)?;
        Ok(Self {
            path,
            folder,
            current: Arc::new(pack),
            identity,
            contents,
            generation: 0,
            events,
            watcher,
            watching: true,
            failed: None,
            last_check: Instant::now(),
        })
    }

    /// The pack's path (absolute).
    pub fn path(&self) -> &Path {
        &self.path
    }

    // `load`, `load_by_hash`, `load_by_name` in the current generation: an asset keeps that
    // generation's bytes alive after a reload, so one in use stays valid until the game
    // drops it.
    crate::read::asset::typed_loads!();

    /// The current generation's reader. Hold the `Arc` for as long as a read must see one
    /// bake (a frame, a level load); a reload never changes what it reads.
    pub fn pack(&self) -> Arc<PakReader> {
        Arc::clone(&self.current)
    }

    /// How many reloads happened since the open.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Reloads if a bake replaced the pack since the last call, and says what changed;
    /// `None` when nothing did. Does no system call unless the folder had events or
    /// [`RESCAN_INTERVAL`] passed. On an error (the new file is not a valid pack) the current
    /// generation stays.
    pub fn poll(&mut self) -> Result<Option<Reload>, ReadError> {
        let mut events = false;
        while let Ok(event) = self.events.try_recv() {
            events |= match event {
                Ok(event) => !matches!(event.kind, notify::EventKind::Access(_)),
                Err(_) => true, // the watcher's own trouble: look
            };
        }
        if !events && self.last_check.elapsed() < RESCAN_INTERVAL {
            return Ok(None);
        }
        self.check()
    }

    /// Waits up to `timeout` for a reload (one that changed something or not) and returns it;
    /// `None` when none came.
    pub fn wait(&mut self, timeout: Duration) -> Result<Option<Reload>, ReadError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(reload) = self.check()? {
                return Ok(Some(reload));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            // An event or the rescan interval, whichever comes first.
            let _ = self.events.recv_timeout(left.min(RESCAN_INTERVAL));
            while self.events.try_recv().is_ok() {}
        }
    }

    /// Compares the file's identity with the open one's; reopens and diffs when it differs.
    fn check(&mut self) -> Result<Option<Reload>, ReadError> {
        self.last_check = Instant::now();
        if !self.watching {
            // The folder had gone; watch it again once it is back.
            self.watching = self
                .watcher
                .watch(&self.folder, RecursiveMode::NonRecursive)
                .is_ok();
        }
        let identity = match FileIdentity::of(&self.path) {
            Ok(identity) => identity,
            // The pack (or its folder) is gone: keep the current generation and wait for it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.watching = self.folder.is_dir() && self.watching;
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        if identity == self.identity || self.failed == Some(identity) {
            return Ok(None);
        }
        let opened = open_generation(&self.path)
            .and_then(|(identity, pack)| Ok((identity, contents(&pack)?, pack)));
        let (identity, contents, pack) = match opened {
            Ok(opened) => opened,
            Err(error) => {
                // Said once; the same bytes are not opened again until the file changes.
                self.failed = Some(identity);
                return Err(error);
            }
        };
        self.failed = None;
        let mut reload = diff(&self.contents, &contents);
        self.generation += 1;
        reload.generation = self.generation;
        self.identity = identity;
        self.contents = contents;
        self.current = Arc::new(pack);
        Ok(Some(reload))
    }
}

/// Opens `path` with the identity of the very file opened (checked before and after, so a
/// rename between the two is seen and retried).
fn open_generation(path: &Path) -> Result<(FileIdentity, PakReader), ReadError> {
    for _ in 0..8 {
        let before = FileIdentity::of(path)?;
        let pack = PakReader::open(path)?;
        if FileIdentity::of(path)? == before {
            return Ok((before, pack));
        }
    }
    Err(ReadError::Invalid {
        what: "pack file keeps changing while it is opened",
    })
}

/// Path -> (hash, content key) of every entry.
fn contents(pack: &PakReader) -> Result<HashMap<String, (u64, u64)>, ReadError> {
    pack.entries()
        .map(|entry| {
            let entry = entry?;
            let key = entry
                .checksum()
                .unwrap_or_else(|| xxhash_rust::xxh3::xxh3_64(entry.stored_bytes()));
            Ok((entry.path().into_owned(), (entry.hash(), key)))
        })
        .collect()
}

fn diff(old: &HashMap<String, (u64, u64)>, new: &HashMap<String, (u64, u64)>) -> Reload {
    let change = |path: &String, hash: u64| AssetChange {
        path: path.clone(),
        hash,
    };
    let mut reload = Reload::default();
    for (path, &(hash, key)) in new {
        match old.get(path) {
            None => reload.added.push(change(path, hash)),
            Some(&(_, old_key)) if old_key != key => reload.changed.push(change(path, hash)),
            Some(_) => {}
        }
    }
    for (path, &(hash, _)) in old {
        if !new.contains_key(path) {
            reload.removed.push(change(path, hash));
        }
    }
    reload.changed.sort();
    reload.added.sort();
    reload.removed.sort();
    reload
}

fn watch_error(error: notify::Error) -> ReadError {
    std::io::Error::other(format!("cannot watch the pack's folder: {error}")).into()
}

impl crate::read::asset::AssetSource for HotPack {
    fn asset_bytes(&self, path: &str) -> Result<Option<crate::read::asset::AssetBytes>, ReadError> {
        self.current.asset_bytes(path)
    }

    fn path_of_hash(&self, hash: u64) -> Result<Option<String>, ReadError> {
        self.current.path_of_hash(hash)
    }

    fn names(&self) -> Result<crate::read::names::NameTable<'_>, ReadError> {
        self.current.names()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_sorts_changes_by_kind_and_path() {
        let map = |rows: &[(&str, u64)]| {
            rows.iter()
                .map(|&(p, key)| (p.to_owned(), (key * 10, key)))
                .collect::<HashMap<_, _>>()
        };
        let old = map(&[("a", 1), ("b", 2), ("c", 3)]);
        let new = map(&[("b", 2), ("c", 4), ("d", 5)]);
        let reload = diff(&old, &new);
        let paths = |list: &[AssetChange]| list.iter().map(|c| c.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&reload.changed), ["c"]);
        assert_eq!(paths(&reload.added), ["d"]);
        assert_eq!(paths(&reload.removed), ["a"]);
        assert_eq!(reload.changed[0].hash, 40);
        assert!(diff(&old, &old).is_empty());
    }
}
