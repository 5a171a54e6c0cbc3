//! Hot reload: a [`HotPack`]'s generations served to Bevy, each reload's changed, added and
//! removed entries sent as the source's events, which Bevy turns into reloads and
//! [`AssetEvent`](bevy::asset::AssetEvent)s; and a loose runtime tree's folder watched with
//! `notify`, its changed files sent the same way.

use crate::reader::{Generation, Served};
use bevy::asset::io::{AssetSourceEvent, AssetWatcher};
use hearth::format::hman::MANIFEST_PATH;
use hearth::format::{JOURNAL_FILE, STAGING_DIR};
use hearth::read::hot::{HotPack, Reload};
use hearth::read::names::NAMES_PATH;
use hearth::TreeReader;
use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the watcher thread waits for a reload before it checks whether it should stop.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Bevy's handle on the watcher thread: dropping it stops the thread.
struct PackWatcher {
    stop: Arc<AtomicBool>,
}

impl AssetWatcher for PackWatcher {}

impl Drop for PackWatcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Starts a thread that follows `hot` and, on each reload, serves its new generation through
/// `served`, then sends Bevy the entries that changed. `None` when the thread cannot start
/// (the source then serves the pack as it is).
pub(crate) fn watch(
    mut hot: HotPack,
    served: Served,
    events: async_channel::Sender<AssetSourceEvent>,
) -> Option<Box<dyn AssetWatcher>> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::Builder::new()
        .name("hearth pack watcher".into())
        .spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                // An error (a half-written pack) keeps the current generation; HotPack retries
                // when the file changes again.
                let Ok(Some(reload)) = hot.wait(STOP_CHECK) else {
                    continue;
                };
                served.replace(Generation::Pack(hot.pack()));
                if send_reload(&events, reload).is_err() {
                    return; // Bevy's asset server is gone
                }
            }
        })
        .ok()?;
    Some(Box::new(PackWatcher { stop }))
}

/// Sends one event per changed, added and removed entry.
fn send_reload(
    events: &async_channel::Sender<AssetSourceEvent>,
    reload: Reload,
) -> Result<(), async_channel::TrySendError<AssetSourceEvent>> {
    let path = |change: hearth::read::hot::AssetChange| PathBuf::from(change.path);
    for change in reload.changed {
        events.try_send(AssetSourceEvent::ModifiedAsset(path(change)))?;
    }
    for change in reload.added {
        events.try_send(AssetSourceEvent::AddedAsset(path(change)))?;
    }
    for change in reload.removed {
        events.try_send(AssetSourceEvent::RemovedAsset(path(change)))?;
    }
    Ok(())
}

/// How long a tree's files stay quiet before their changes go to Bevy (a bake renames its
/// files into place one by one: one batch, not one reload per file).
const TREE_DEBOUNCE: Duration = Duration::from_millis(100);

/// The longest a tree that keeps changing holds its changes back.
const TREE_MAX_DELAY: Duration = Duration::from_secs(1);

/// Bevy's handle on a tree's watch: dropping it drops the `notify` watcher, which closes the
/// channel the watching thread waits on, and the thread ends.
struct TreeWatcher {
    _watcher: notify::RecommendedWatcher,
}

impl AssetWatcher for TreeWatcher {}

/// Watches the runtime tree at `root` (served through `served`) and sends Bevy its changed,
/// added and removed files, debounced. A change to `assets.hman` or `assets.hnames` (or a
/// listed file that was absent) reopens the tree and serves the new one first. `None` when the
/// folder cannot be watched (the source then serves the tree as it is).
pub(crate) fn watch_tree(
    root: &Path,
    served: Served,
    events: async_channel::Sender<AssetSourceEvent>,
) -> Option<Box<dyn AssetWatcher>> {
    // Watched by its canonical path: the events' paths start with it.
    let watched = root.canonicalize().ok()?;
    let (send, changes) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // The receiving thread is gone only once Bevy dropped the watch.
        let _ = send.send(event);
    })
    .ok()?;
    watcher.watch(&watched, RecursiveMode::Recursive).ok()?;
    let tree = TreeFollower {
        watched,
        served,
        events,
    };
    std::thread::Builder::new()
        .name("hearth tree watcher".into())
        .spawn(move || tree.follow(changes))
        .ok()?;
    Some(Box::new(TreeWatcher { _watcher: watcher }))
}

/// The watching thread's state: the tree's canonical folder, what the source serves, Bevy's
/// event sender.
struct TreeFollower {
    watched: PathBuf,
    served: Served,
    events: async_channel::Sender<AssetSourceEvent>,
}

impl TreeFollower {
    /// Waits for changes (blocking: no polling) and sends each quiet batch's events; returns
    /// when the watcher is dropped or Bevy's asset server is gone.
    fn follow(self, changes: Receiver<notify::Result<notify::Event>>) {
        while let Ok(first) = changes.recv() {
            let mut paths = BTreeSet::new();
            self.collect(first, &mut paths);
            let started = Instant::now();
            while started.elapsed() < TREE_MAX_DELAY {
                match changes.recv_timeout(TREE_DEBOUNCE) {
                    Ok(event) => self.collect(event, &mut paths),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            if paths.is_empty() {
                continue;
            }
            for event in self.batch_events(&paths) {
                if self.events.try_send(event).is_err() {
                    return;
                }
            }
        }
    }

    /// Adds the runtime paths a write, creation, rename or removal touched. Reads (Bevy's own
    /// included) and metadata changes are no change.
    fn collect(&self, event: notify::Result<notify::Event>, paths: &mut BTreeSet<String>) {
        // A watcher error (a lost event queue) has no paths: the next change is seen.
        let Ok(event) = event else { return };
        let changes = match event.kind {
            EventKind::Create(_) | EventKind::Remove(_) => true,
            EventKind::Modify(ModifyKind::Metadata(_)) => false,
            EventKind::Modify(_) => true,
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            _ => false,
        };
        if !changes {
            return;
        }
        paths.extend(
            event
                .paths
                .iter()
                .filter_map(|path| self.runtime_path(path)),
        );
    }

    /// `path` (under the watched folder) as a runtime path: UTF-8, `/`-separated.
    fn runtime_path(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.watched).ok()?;
        let parts: Option<Vec<&str>> = relative
            .components()
            .map(|c| match c {
                std::path::Component::Normal(part) => part.to_str(),
                _ => None,
            })
            .collect();
        let parts = parts.filter(|p| !p.is_empty())?;
        Some(parts.join("/"))
    }

    /// The batch's events: modified (served before and now), added (now only), removed (before
    /// only); paths the tree does not list are no asset and are left out. The tree is reopened
    /// first when its manifest or names changed, a listed file it lacked appeared, or a bake's
    /// journal went (a tree is refused while a commit is pending: the reopen is retried then).
    fn batch_events(&self, paths: &BTreeSet<String>) -> Vec<AssetSourceEvent> {
        let Generation::Assets(assets) = self.served.current() else {
            return Vec::new();
        };
        let hearth::Assets::Tree(before) = &*assets else {
            return Vec::new();
        };
        let listed: HashSet<&str> = before.manifest().iter().map(|r| &*r.path).collect();
        let journal = format!("{STAGING_DIR}/{JOURNAL_FILE}");
        let reopen = paths.iter().any(|path| {
            path == MANIFEST_PATH
                || path == NAMES_PATH
                || *path == journal
                || (before.find(path).is_none() && listed.contains(path.as_str()))
        });
        // A tree that does not open (a manifest being replaced) keeps the one served; the
        // next change retries.
        let reopened = reopen
            .then(|| TreeReader::open(before.root()).ok())
            .flatten();
        let now = reopened.as_ref().unwrap_or(before);
        let mut events = Vec::new();
        for path in paths {
            let was = before.find(path).is_some();
            let is = now.find(path).is_some() && is_file(&self.watched.join(path));
            let path = PathBuf::from(path);
            events.push(match (was, is) {
                (true, true) => AssetSourceEvent::ModifiedAsset(path),
                (false, true) => AssetSourceEvent::AddedAsset(path),
                (true, false) => AssetSourceEvent::RemovedAsset(path),
                (false, false) => continue,
            });
        }
        if let Some(tree) = reopened {
            self.served
                .replace(Generation::Assets(Arc::new(hearth::Assets::Tree(tree))));
        }
        events
    }
}

/// A regular file (not a link: a tree serves none).
fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file())
}
