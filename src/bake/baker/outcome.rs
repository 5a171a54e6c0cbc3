//! What a bake reports: progress events while it runs, and the [`Report`] at the end.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A progress event, reported from worker threads.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// The plan is made: this many assets will be checked.
    Planned {
        /// Number of source assets.
        assets: usize,
    },
    /// One asset is done (baked or taken from the cache).
    Asset {
        /// Assets done so far, this one included.
        done: usize,
        /// Total assets.
        total: usize,
        /// Source-relative path.
        path: &'a str,
        /// Whether the cache had it.
        cached: bool,
    },
    /// Writing the pack.
    Packing {
        /// Entries in the pack.
        entries: usize,
    },
}

pub(super) type ProgressFn = Arc<dyn Fn(Progress<'_>) + Send + Sync>;

/// What a bake did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The runtime tree's root (the output folder, or a preset's subfolder of it).
    pub out_dir: PathBuf,
    /// Whether the loose runtime tree was written besides the pack (`tree` in the manifest,
    /// [`Baker::tree`](crate::bake::Baker::tree)); `false` for a pack-only bake, whose folder holds
    /// the pack alone.
    pub tree: bool,
    /// The pack's path.
    pub pack_path: PathBuf,
    /// The preset used.
    pub preset: Option<String>,
    /// Source assets in the plan.
    pub assets: usize,
    /// Assets taken from the cache.
    pub cache_hits: usize,
    /// Bytes of every asset's sources and recorded side inputs.
    pub bytes_in: u64,
    /// Bytes of all runtime-tree files (the manifest included).
    pub bytes_out: u64,
    /// Pack size in bytes.
    pub pack_bytes: u64,
    /// Entries in the pack.
    pub pack_entries: usize,
    /// Of those, entries copied from the previous pack as they were stored (unchanged content,
    /// codec and level), not compressed again; 0 when the pack was not rewritten.
    pub pack_entries_copied: usize,
    /// Rows in `assets.hman`.
    pub manifest_entries: usize,
    /// Files written (created or changed), the pack and manifest included.
    pub files_written: usize,
    /// Stale outputs of earlier bakes removed.
    pub files_removed: usize,
    /// Every source file read (for `rerun-if-changed`).
    pub inputs: Vec<PathBuf>,
    /// Every folder a glob walks (for `rerun-if-changed`).
    pub watched_dirs: Vec<PathBuf>,
    /// Warnings, each distinct one (its text names the file) once, in first-seen order; also
    /// sent to the warning callback.
    pub warnings: Vec<String>,
    /// Source paths (relative to the content root) of the assets baked this time, not taken
    /// from the cache.
    pub baked: Vec<String>,
    /// With [`Baker::keep_last_good`](crate::bake::Baker::keep_last_good): the assets that failed,
    /// each with its error; their previous outputs (if any) were kept.
    pub failed: Vec<(String, String)>,
    /// Assets whose outputs came from the shared cache's local tier (no pipeline ran; not in
    /// [`baked`](Self::baked)).
    pub shared_local_hits: Vec<String>,
    /// Assets whose outputs came from the shared cache's remote tier.
    pub shared_remote_hits: Vec<String>,
    /// Baked assets offered to the shared cache's tiers.
    pub shared_stored: usize,
    /// Every asset of the plan that did not fail: how long it took and where its outputs came
    /// from (for `hearth bake --report`).
    pub asset_times: Vec<AssetTime>,
    /// With [`Baker::record_timings`](crate::bake::Baker::record_timings): every task the worker
    /// pool ran (an asset's job, or a slice of one), by start; empty otherwise. Never part of an
    /// output or the cache.
    pub tasks: Vec<crate::bake::timings::TaskTime>,
    /// Wall time.
    pub elapsed: Duration,
    /// With [`Baker::shard`](crate::bake::Baker::shard): the shard baked. Its report counts
    /// that shard's assets, and no output was written.
    pub shard: Option<crate::bake::shard::Shard>,
}

/// One asset's time in a bake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetTime {
    /// Source path relative to the content root.
    pub rel: String,
    /// Wall time of its job (checking the cache, baking, recording; not the write phase).
    pub elapsed: Duration,
    /// Where its outputs came from: `"baked"`, `"cache"` (the incremental cache),
    /// `"shared (local)"` or `"shared (remote)"`.
    pub origin: &'static str,
}
