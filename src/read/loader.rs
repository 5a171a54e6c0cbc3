//! Background loading: typed assets read and validated on worker threads, handed out as
//! [`Handle`]s that become ready, with progress and cancelling. No async runtime: a handle is
//! also a plain `std::future::Future`, for any executor that wants one.
//!
//! ```no_run
//! use hearth::read::loader::Loader;
//! let pak = hearth::PakReader::open("game.hpack")?;
//! let loader = Loader::new(pak, 2);
//! let chair = loader.load_model("models/chair.hmesh");
//! let logo = loader.load::<hearth::Texture>("ui/logo.ktx2");
//! // … each frame:
//! let progress = loader.progress();
//! println!("{}/{} loaded", progress.finished, progress.requested);
//! if let Some(model) = chair.get() {
//!     let model = model?; // ready: spawn it
//! #   let _ = model;
//! }
//! let logo = logo.wait()?; // or block until ready
//! # let _ = logo;
//! # Ok::<(), hearth::ReadError>(())
//! ```

use crate::read::asset::{AssetSource, LoadAsset};
use crate::read::error::ReadError;
use crate::read::model::Model;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// A unit of work: runs the load, or with `cancel` only settles its handle as cancelled.
type Job<S> = Box<dyn FnOnce(&S, bool) + Send>;

/// What the workers and the loader share.
struct Shared<S> {
    source: S,
    queue: Mutex<VecDeque<Job<S>>>,
    work: Condvar,
    stopping: AtomicBool,
    requested: AtomicU64,
    finished: AtomicU64,
    failed: AtomicU64,
    cancelled: AtomicU64,
}

/// Locks `mutex`; a worker that panicked while holding it left only plain data behind, so
/// the data is used as it is.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How far the loads have come, counted since the loader was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Loads asked for.
    pub requested: u64,
    /// Loads settled: ready, failed or cancelled.
    pub finished: u64,
    /// Of those, failed.
    pub failed: u64,
    /// Of those, cancelled before they ran.
    pub cancelled: u64,
}

impl Progress {
    /// `finished / requested`, 1.0 when nothing was asked.
    pub fn fraction(&self) -> f32 {
        match self.requested {
            0 => 1.0,
            requested => self.finished as f32 / requested as f32,
        }
    }

    /// Whether every load asked for has settled.
    pub fn is_done(&self) -> bool {
        self.finished == self.requested
    }
}

/// Loads typed assets from a source on worker threads (see the [module](self)).
///
/// With 0 threads nothing runs by itself: the game runs queued loads where it wants with
/// [`pump`](Self::pump) (a platform without threads, or a loading screen's own budget).
/// Dropping the loader cancels what has not started and joins the workers.
pub struct Loader<S: AssetSource + Send + Sync + 'static> {
    shared: Arc<Shared<S>>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl<S: AssetSource + Send + Sync + 'static> Loader<S> {
    /// A loader over `source` (a [`PakReader`](crate::PakReader), [`Assets`](crate::Assets),
    /// …) with `threads` workers.
    pub fn new(source: S, threads: usize) -> Self {
        let shared = Arc::new(Shared {
            source,
            queue: Mutex::new(VecDeque::new()),
            work: Condvar::new(),
            stopping: AtomicBool::new(false),
            requested: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
        });
        let workers = (0..threads)
            .map(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("hearth-loader-{i}"))
                    .spawn(move || worker(&shared))
                    .expect("spawning a loader thread")
            })
            .collect();
        Self { shared, workers }
    }

    /// The source the loads read.
    pub fn source(&self) -> &S {
        &self.shared.source
    }

    /// Queues a load of the asset at `path` as `T`; the handle becomes ready when it ran.
    pub fn load<T: LoadAsset + Clone + Send + 'static>(&self, path: &str) -> Handle<T> {
        let path = path.to_owned();
        self.submit(move |source| crate::read::asset::load(source, &path))
    }

    /// Queues a load by name (see [`PakReader::load_by_name`](crate::PakReader::load_by_name)).
    pub fn load_by_name<T: LoadAsset + Clone + Send + 'static>(&self, name: &str) -> Handle<T> {
        let name = name.to_owned();
        self.submit(move |source| crate::read::asset::load_by_name(source, &name))
    }

    /// Queues a [`Model::load`] of the mesh at `mesh_path` (its materials and textures
    /// included).
    pub fn load_model(&self, mesh_path: &str) -> Handle<Model> {
        let path = mesh_path.to_owned();
        self.submit(move |source| Model::load(source, &path))
    }

    /// Queues `load` (any work over the source that gives a `T`).
    pub fn submit<T: Clone + Send + 'static>(
        &self,
        load: impl FnOnce(&S) -> Result<T, ReadError> + Send + 'static,
    ) -> Handle<T> {
        let slot = Arc::new(Slot::default());
        let handle = Handle {
            slot: Arc::clone(&slot),
        };
        let shared = Arc::clone(&self.shared);
        let job: Job<S> = Box::new(move |source, cancel| {
            let result = match cancel || slot.cancelled.load(Relaxed) {
                true => {
                    shared.cancelled.fetch_add(1, Relaxed);
                    Err(ReadError::Cancelled)
                }
                // A panicking load (a bug: bad data gives errors) still settles its handle.
                false => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load(source)))
                    .unwrap_or(Err(ReadError::Invalid {
                        what: "load (it panicked: a bug in hearth or in the load given)",
                    })),
            };
            if result.is_err() {
                shared.failed.fetch_add(1, Relaxed);
            }
            shared.finished.fetch_add(1, Relaxed);
            slot.settle(result);
        });
        self.shared.requested.fetch_add(1, Relaxed);
        lock(&self.shared.queue).push_back(job);
        self.shared.work.notify_one();
        handle
    }

    /// Runs up to `max` queued loads on this thread; returns how many ran.
    pub fn pump(&self, max: usize) -> usize {
        let mut ran = 0;
        while ran < max {
            let Some(job) = lock(&self.shared.queue).pop_front() else {
                break;
            };
            job(&self.shared.source, false);
            ran += 1;
        }
        ran
    }

    /// The counts so far.
    pub fn progress(&self) -> Progress {
        let shared = &self.shared;
        Progress {
            requested: shared.requested.load(Relaxed),
            finished: shared.finished.load(Relaxed),
            failed: shared.failed.load(Relaxed),
            cancelled: shared.cancelled.load(Relaxed),
        }
    }

    /// Cancels every load that has not started (each settles as [`ReadError::Cancelled`]).
    pub fn cancel_all(&self) {
        let pending: Vec<Job<S>> = lock(&self.shared.queue).drain(..).collect();
        for job in pending {
            job(&self.shared.source, true);
        }
    }
}

impl<S: AssetSource + Send + Sync + 'static> Drop for Loader<S> {
    fn drop(&mut self) {
        self.cancel_all();
        self.shared.stopping.store(true, Relaxed);
        {
            // Taking the lock orders the flag before any worker's wait.
            let _queue = lock(&self.shared.queue);
            self.shared.work.notify_all();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

impl<S: AssetSource + Send + Sync + 'static> std::fmt::Debug for Loader<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("threads", &self.workers.len())
            .field("progress", &self.progress())
            .finish()
    }
}

/// A worker: runs queued jobs until the loader stops.
fn worker<S>(shared: &Shared<S>) {
    loop {
        let job = {
            let mut queue = lock(&shared.queue);
            loop {
                if let Some(job) = queue.pop_front() {
                    break job;
                }
                if shared.stopping.load(Relaxed) {
                    return;
                }
                queue = shared
                    .work
                    .wait(queue)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        };
        job(&shared.source, false);
    }
}

/// A load's result once settled, and who waits for it.
struct Slot<T> {
    state: Mutex<SlotState<T>>,
    settled: Condvar,
    cancelled: AtomicBool,
}

struct SlotState<T> {
    result: Option<Result<T, ReadError>>,
    waker: Option<Waker>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self {
            state: Mutex::new(SlotState {
                result: None,
                waker: None,
            }),
            settled: Condvar::new(),
            cancelled: AtomicBool::new(false),
        }
    }
}

impl<T> Slot<T> {
    fn settle(&self, result: Result<T, ReadError>) {
        let waker = {
            let mut state = lock(&self.state);
            state.result = Some(result);
            state.waker.take()
        };
        self.settled.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// A load in flight: [`get`](Self::get) each frame, [`wait`](Self::wait) to block, or
/// `.await` it. Cloning shares the same load.
pub struct Handle<T> {
    slot: Arc<Slot<T>>,
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        Self {
            slot: Arc::clone(&self.slot),
        }
    }
}

impl<T: Clone> Handle<T> {
    /// The result once the load settled (the asset, cloned: typed assets share their bytes),
    /// `None` while it is queued or running.
    pub fn get(&self) -> Option<Result<T, ReadError>> {
        lock(&self.slot.state).result.clone()
    }

    /// Whether the load settled.
    pub fn is_ready(&self) -> bool {
        lock(&self.slot.state).result.is_some()
    }

    /// Blocks until the load settles.
    pub fn wait(&self) -> Result<T, ReadError> {
        let mut state = lock(&self.slot.state);
        loop {
            if let Some(result) = &state.result {
                return result.clone();
            }
            state = self
                .slot
                .settled
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Cancels the load if it has not started: it then settles as [`ReadError::Cancelled`].
    /// A load already running finishes.
    pub fn cancel(&self) {
        self.slot.cancelled.store(true, Relaxed);
    }
}

impl<T: Clone> Future for Handle<T> {
    type Output = Result<T, ReadError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = lock(&self.slot.state);
        match &state.result {
            Some(result) => Poll::Ready(result.clone()),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> std::fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = lock(&self.slot.state);
        f.debug_struct("Handle")
            .field("ready", &state.result.is_some())
            .finish()
    }
}
