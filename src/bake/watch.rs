//! The edit-and-see loop behind `hearth watch` (features `bake` + `watch`): bake once, then
//! re-bake whenever something under the content root changes.
//!
//! What is watched: the whole content root, recursively (every source, side file, walked
//! folder and the manifest live there: reads outside it are refused). Events inside the
//! output folder and on hidden names (editor swap files, hearth's own files) are ignored.
//! Events are debounced: a re-bake starts once nothing changed for [`Watch::debounce`]
//! (a burst of 1000 changes is one re-bake), and at the latest after [`MAX_BATCH_WAIT`].
//!
//! What is re-baked: the baker's cache makes every re-bake incremental (only what changed,
//! and what read a changed side file, is baked again; a manifest edit re-plans). Re-bakes
//! run with [`Baker::keep_last_good`]: an asset that fails keeps its previous outputs while
//! everything else updates; fixing it re-bakes it. Each re-bake is one transaction, so the
//! output is valid whenever the loop is stopped or killed.

use crate::bake::baker::{Baker, Report};
use crate::bake::error::BakeError;
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest a burst of changes delays its re-bake.
pub const MAX_BATCH_WAIT: Duration = Duration::from_secs(1);

/// What happened, for the caller to show.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// A bake finished (the first one, or a re-bake after `changed`).
    Baked {
        /// Its report (see [`Report::baked`] and [`Report::failed`]).
        report: &'a Report,
        /// The changed paths that started it (empty for the first bake).
        changed: &'a [PathBuf],
    },
    /// A bake failed as a whole (an invalid manifest, a collision, an I/O error); the
    /// previous output stands and watching goes on.
    Failed {
        /// Why.
        error: &'a BakeError,
        /// The changed paths that started it (empty for the first bake).
        changed: &'a [PathBuf],
    },
}

/// A watch over one manifest's content root.
pub struct Watch {
    baker: Baker,
    root: PathBuf,
    out: PathBuf,
    debounce: Duration,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("root", &self.root)
            .field("out", &self.out)
            .field("debounce", &self.debounce)
            .finish_non_exhaustive()
    }
}

impl Watch {
    /// Watches the folder of `manifest` (the content root) and re-bakes with `baker` (set up
    /// for `manifest` and `out`, the output folder, whose events are ignored).
    pub fn new(baker: Baker, manifest: impl AsRef<Path>, out: impl AsRef<Path>) -> Self {
        let manifest = manifest.as_ref();
        let root = manifest
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Self {
            baker,
            root: absolute(root),
            out: absolute(out.as_ref()),
            debounce: Duration::from_millis(30),
        }
    }

    /// How long nothing must change before a re-bake starts (default 30 ms).
    pub fn debounce(&mut self, quiet: Duration) -> &mut Self {
        self.debounce = quiet;
        self
    }

    /// Bakes, then re-bakes on every change until `stop` is set (checked every 50 ms, and by
    /// the baker before each asset and before its commit: a stop mid-bake leaves the previous
    /// output). Errors only when the content root cannot be watched.
    pub fn run(
        &mut self,
        stop: Arc<AtomicBool>,
        mut on_event: impl FnMut(WatchEvent<'_>),
    ) -> Result<(), BakeError> {
        self.baker.keep_last_good(true).cancel_when(stop.clone());
        let (sender, events) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = sender.send(event);
        })
        .map_err(|e| watch_error(&self.root, e))?;
        watcher
            .watch(&self.root, RecursiveMode::Recursive)
            .map_err(|e| watch_error(&self.root, e))?;

        self.bake(&[], &mut on_event);
        // Now that the first bake made it, the output folder's canonical path.
        self.out = absolute(&self.out);
        while !stop.load(Ordering::Relaxed) {
            let first = match events.recv_timeout(Duration::from_millis(50)) {
                Ok(event) => event,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let mut changed = Vec::new();
            self.collect(first, &mut changed);
            if changed.is_empty() {
                continue;
            }
            // Debounce: until quiet, or the batch is as old as MAX_BATCH_WAIT.
            let started = Instant::now();
            while started.elapsed() < MAX_BATCH_WAIT && !stop.load(Ordering::Relaxed) {
                match events.recv_timeout(self.debounce) {
                    Ok(event) => self.collect(event, &mut changed),
                    Err(_) => break,
                }
            }
            changed.sort();
            changed.dedup();
            if !stop.load(Ordering::Relaxed) {
                self.bake(&changed, &mut on_event);
            }
        }
        Ok(())
    }

    fn bake(&self, changed: &[PathBuf], on_event: &mut impl FnMut(WatchEvent<'_>)) {
        match self.baker.run() {
            Ok(report) => on_event(WatchEvent::Baked {
                report: &report,
                changed,
            }),
            // A stop request is not news.
            Err(BakeError::Cancelled) => {}
            Err(error) => on_event(WatchEvent::Failed {
                error: &error,
                changed,
            }),
        }
    }

    /// Adds the relevant paths of `event` (under the root, outside the output folder, no
    /// hidden component) to `changed`.
    fn collect(&self, event: notify::Result<notify::Event>, changed: &mut Vec<PathBuf>) {
        let Ok(event) = event else {
            // The watcher's own errors (an overflowed queue): re-bake to be safe.
            changed.push(self.root.clone());
            return;
        };
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        for path in event.paths {
            let Ok(rel) = path.strip_prefix(&self.root) else {
                continue;
            };
            if path.starts_with(&self.out) {
                continue;
            }
            let hidden = rel
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
            if !hidden {
                changed.push(rel.to_path_buf());
            }
        }
    }
}

fn watch_error(root: &Path, error: notify::Error) -> BakeError {
    BakeError::Asset {
        file: root.to_path_buf(),
        message: format!("cannot watch the content folder: {error}"),
    }
}

/// `path` made absolute and, where it exists, canonical (so event paths compare).
fn absolute(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
