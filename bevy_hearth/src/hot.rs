//! Hot reload: a [`HotPack`]'s generations served to Bevy, each reload's changed, added and
//! removed entries sent as the source's events, which Bevy turns into reloads and
//! [`AssetEvent`](bevy::asset::AssetEvent)s.

use crate::reader::{Generation, Served};
use bevy::asset::io::{AssetSourceEvent, AssetWatcher};
use hearth::read::hot::{HotPack, Reload};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

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
