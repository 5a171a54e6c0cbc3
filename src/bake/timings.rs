//! Task timings of a bake (`hearth bake --timings FILE`, [`Baker::record_timings`]): every
//! unit of work the worker pool ran, with its thread, start and length.
//!
//! A task is an asset's job, or a slice of one that a pipeline runs as its own parallel task
//! (a large texture's row slices and mip levels). A task is timed as the stretches its thread
//! spends on it and on nothing else: when a task forks (it waits on nested tasks, or its
//! thread picks up another task meanwhile), its current stretch ends and a new one starts when
//! it resumes, so no second is counted twice and each recorded stretch is work one thread did
//! without waiting. Timings only ever reach the [`Report`](crate::bake::Report): never an
//! output or the cache, so outputs stay byte-identical whether timings are recorded or not.
//!
//! [`Baker::record_timings`]: crate::bake::Baker::record_timings

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One stretch of one task on one worker thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskTime {
    /// The task: the asset's source path for its job, then `#` and the slice for a slice of
    /// one (e.g. `textures/big.png#level0/rows 0-255`).
    pub name: String,
    /// The asset's source path (relative to the content root).
    pub asset: String,
    /// When the stretch started, from the start of the bake's execute phase.
    pub start: Duration,
    /// How long it ran.
    pub elapsed: Duration,
    /// The worker thread, `0..jobs`.
    pub thread: usize,
}

/// Where a bake's tasks are collected.
#[derive(Debug)]
pub(crate) struct Recorder {
    origin: Instant,
    tasks: Mutex<Vec<TaskTime>>,
}

impl Recorder {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            origin: Instant::now(),
            tasks: Mutex::new(Vec::new()),
        })
    }

    /// The tasks recorded, by start then thread.
    pub(crate) fn take(&self) -> Vec<TaskTime> {
        let mut tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        tasks.sort_by_key(|t| (t.start, t.thread));
        tasks
    }

    fn push(&self, span: &Span, from: Instant, to: Instant) {
        let task = TaskTime {
            name: span.name.to_string(),
            asset: span.asset.to_string(),
            start: from.saturating_duration_since(self.origin),
            elapsed: to.saturating_duration_since(from),
            thread: rayon::current_thread_index().unwrap_or(0),
        };
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(task);
    }
}

/// A task's identity, handed to the nested tasks it forks (they may run on other threads).
#[derive(Debug, Clone)]
pub(crate) struct Span {
    recorder: Arc<Recorder>,
    asset: Arc<str>,
    name: Arc<str>,
}

impl Span {
    /// The job of asset `rel`.
    pub(crate) fn asset(recorder: &Arc<Recorder>, rel: &str) -> Self {
        let rel: Arc<str> = rel.into();
        Self {
            recorder: recorder.clone(),
            asset: rel.clone(),
            name: rel,
        }
    }

    fn child(&self, label: &str) -> Self {
        Self {
            recorder: self.recorder.clone(),
            asset: self.asset.clone(),
            name: format!("{}#{label}", self.name).into(),
        }
    }
}

/// The task running on this thread and when its current stretch started.
struct Active {
    span: Span,
    since: Instant,
}

thread_local! {
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// Ends the current stretch of this thread's task (recording it) and returns the task.
fn pause() -> Option<Active> {
    let active = ACTIVE.with(|a| a.borrow_mut().take())?;
    active
        .span
        .recorder
        .push(&active.span, active.since, Instant::now());
    Some(active)
}

/// Makes `active` this thread's task again, its new stretch starting now.
fn resume(active: Option<Active>) {
    let active = active.map(|a| Active {
        since: Instant::now(),
        ..a
    });
    ACTIVE.with(|a| *a.borrow_mut() = active);
}

/// The task running on this thread, for the nested tasks it forks (`None` when timings are
/// off or outside a bake).
pub(crate) fn current() -> Option<Span> {
    ACTIVE.with(|a| a.borrow().as_ref().map(|a| a.span.clone()))
}

/// Runs `work` as task `span` on this thread (the thread's previous task, if any, paused
/// meanwhile). With no span, just runs `work`.
pub(crate) fn run<R>(span: Option<Span>, work: impl FnOnce() -> R) -> R {
    let Some(span) = span else {
        return work();
    };
    let outer = pause();
    ACTIVE.with(|a| {
        *a.borrow_mut() = Some(Active {
            span,
            since: Instant::now(),
        })
    });
    let result = work();
    pause();
    resume(outer);
    result
}

/// Runs `work` as the slice `label` of task `parent` (see [`current`]).
pub(crate) fn slice<R>(parent: Option<&Span>, label: &str, work: impl FnOnce() -> R) -> R {
    run(parent.map(|p| p.child(label)), work)
}

/// Runs `work`, which forks nested tasks and waits for them, outside this thread's task: the
/// task's stretch ends before and a new one starts after.
pub(crate) fn fork<R>(work: impl FnOnce() -> R) -> R {
    let outer = pause();
    let result = work();
    resume(outer);
    result
}

/// The sum of the tasks' lengths over the longest one: the most a bake of these tasks could
/// gain from more threads (Amdahl's bound, counting every task as independent); `None` with
/// no task.
pub fn parallel_slack(tasks: &[TaskTime]) -> Option<f64> {
    let longest = tasks.iter().map(|t| t.elapsed).max()?;
    let total = tasks
        .iter()
        .fold(Duration::ZERO, |sum, t| sum.saturating_add(t.elapsed));
    (longest > Duration::ZERO).then(|| total.as_secs_f64() / longest.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_splits_the_outer_task_into_stretches() {
        let recorder = Recorder::new();
        run(Some(Span::asset(&recorder, "a.png")), || {
            let parent = current();
            fork(|| {
                slice(parent.as_ref(), "level0", || {
                    std::thread::sleep(Duration::from_millis(2))
                })
            });
        });
        assert!(current().is_none(), "the thread's task ends with `run`");
        let tasks = recorder.take();
        let names: Vec<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a.png", "a.png#level0", "a.png"]);
        assert!(tasks.iter().all(|t| t.asset == "a.png"));
        assert!(tasks[1].elapsed >= Duration::from_millis(2));
        assert!(parallel_slack(&tasks).unwrap() >= 1.0);
    }
}
