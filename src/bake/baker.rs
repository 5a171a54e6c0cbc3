//! [`Baker`]: manifest -> plan -> pipelines (parallel, cached) -> runtime tree, `assets.hman`
//! and the `.hpack`.

use crate::bake::cache::{Cache, CachedAsset, CachedOutput, CachedPack};
use crate::bake::error::BakeError;
use crate::bake::manifest::{check_preset_output, Config, Preset};
use crate::bake::names::{assign_names, NameClaim};
use crate::bake::output::{
    no_symlink_on_way, open_previous_pack, Durability, OutputLock, PreviousOutputs, TreeListing,
};
use crate::bake::pack::{self, PackFile};
use crate::bake::pipeline::{
    check_output_path, BakeContext, Output, Pipeline, Recorded, Registry, Source, SourceFile,
    MAX_INPUT_BYTES,
};
use crate::bake::plan::{mtime_ns, plan, Job, Plan};
use crate::bake::settings;
use crate::bake::shared_cache::{self, SharedCache, SharedCacheConfig, TierKind};
use crate::bake::signing::SigningKey;
use crate::bake::timings::{self, TaskTime};
use crate::bake::transaction::{Recovery, Transaction};
use crate::format::hash::hash_runtime_path;
use crate::format::hman::{self, AssetKind, ColorSpace, ManifestEntry, MANIFEST_PATH};
use crate::format::hnames::{self, NAMES_PATH};
use crate::format::hpack::Codec;
use crate::read::pak::PakReader;
use crate::read::regular_file::read_regular;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most worker threads a bake uses: [`Baker::jobs`] and `NUM_JOBS` are clamped to it (the
/// CLI's `-j` above it is a usage error).
pub const MAX_JOBS: usize = 256;

/// Where the baker gets its manifest.
#[derive(Debug, Clone)]
pub enum ConfigSource {
    /// A TOML manifest on disk; its folder is the content root.
    Path(PathBuf),
    /// An already parsed manifest.
    Parsed(Box<Config>),
}

impl From<&str> for ConfigSource {
    fn from(path: &str) -> Self {
        ConfigSource::Path(path.into())
    }
}
impl From<&Path> for ConfigSource {
    fn from(path: &Path) -> Self {
        ConfigSource::Path(path.into())
    }
}
impl From<&PathBuf> for ConfigSource {
    fn from(path: &PathBuf) -> Self {
        ConfigSource::Path(path.clone())
    }
}

impl From<PathBuf> for ConfigSource {
    fn from(path: PathBuf) -> Self {
        ConfigSource::Path(path)
    }
}
impl From<Config> for ConfigSource {
    fn from(config: Config) -> Self {
        ConfigSource::Parsed(Box::new(config))
    }
}

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

/// A pack entry before its bytes are loaded: (path, content hash, codec, level, owning asset
/// index, or `None` for the manifest, kind).
type PackPlanEntry<'a> = (&'a str, u64, Codec, Option<i32>, Option<usize>, AssetKind);
type WarningFn = Arc<dyn Fn(&str) + Send + Sync>;

/// The manifest's pack entry: its bytes when this bake built them (else they are rebuilt only
/// if the pack must be rewritten), their hash, and the codec its settings ask for.
struct ManifestPackEntry<'a> {
    bytes: Option<&'a [u8]>,
    hash: u64,
    codec: Codec,
    level: Option<i32>,
    /// `assets.hnames` and its hash; packed like the manifest. `None` when the one on disk
    /// stands (then it is rebuilt only if the pack must be).
    names: Option<&'a [u8]>,
    names_hash: u64,
}
type ProgressFn = Arc<dyn Fn(Progress<'_>) + Send + Sync>;

/// What a bake did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The runtime tree's root (the output folder, or a preset's subfolder of it).
    pub out_dir: PathBuf,
    /// Whether the loose runtime tree was written besides the pack (`tree` in the manifest,
    /// [`Baker::tree`]); `false` for a pack-only bake, whose folder holds the pack alone.
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
    /// With [`Baker::keep_last_good`]: the assets that failed, each with its error; their
    /// previous outputs (if any) were kept.
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
    /// With [`Baker::record_timings`]: every task the worker pool ran (an asset's job, or a
    /// slice of one), by start; empty otherwise. Never part of an output or the cache.
    pub tasks: Vec<crate::bake::timings::TaskTime>,
    /// Wall time.
    pub elapsed: Duration,
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

/// Bakes a manifest's content into a runtime tree and a pack.
///
/// ```no_run
/// let report = hearth::bake::Baker::new("assets/hearth.toml", "target/assets")
///     .preset("release")
///     .jobs(4)
///     .run()?;
/// println!("{} assets, {} from cache", report.assets, report.cache_hits);
/// # Ok::<(), hearth::bake::BakeError>(())
/// ```
#[derive(Clone)]
pub struct Baker {
    config: ConfigSource,
    out: PathBuf,
    preset: Option<String>,
    jobs: Option<usize>,
    use_cache: bool,
    keep_going: bool,
    on_warning: Option<WarningFn>,
    on_progress: Option<ProgressFn>,
    registry: Registry,
    /// The first failed registration, reported by [`Baker::run`].
    registration_error: Option<(String, String)>,
    signing_key: Option<SigningKey>,
    keep_last_good: bool,
    cancel: Option<Arc<AtomicBool>>,
    shared: SharedSetup,
    record_timings: bool,
    /// Overrides the manifest's `tree` (see [`Baker::tree`]).
    tree: Option<bool>,
}

/// Where [`Baker::run`] finds its shared cache.
#[derive(Debug, Clone, Default)]
enum SharedSetup {
    #[default]
    Off,
    FromEnv,
    Given(SharedCacheConfig),
}

impl std::fmt::Debug for Baker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Baker")
            .field("config", &self.config)
            .field("out", &self.out)
            .field("preset", &self.preset)
            .field("jobs", &self.jobs)
            .field("use_cache", &self.use_cache)
            .field("keep_going", &self.keep_going)
            .field("pipelines", &self.registry)
            .field("signing_key", &self.signing_key)
            .field("shared_cache", &self.shared)
            .finish_non_exhaustive()
    }
}

/// One job's outcome. A cache hit borrows its record from the loaded cache (`'c`): cloning
/// 10k records was a tenth of a no-op re-bake.
struct AssetResult<'c> {
    record: Cow<'c, CachedAsset>,
    /// Files baked this time (empty for cache hits, whose files are already on disk).
    files: Vec<Output>,
    cached: bool,
    warnings: Vec<String>,
    /// The shared cache's tier the outputs came from.
    shared: Option<TierKind>,
    /// Wall time of the job.
    elapsed: Duration,
}

impl<'c> AssetResult<'c> {
    /// An asset whose outputs, already on disk, are still current: `record` stands.
    fn cached(record: Cow<'c, CachedAsset>) -> Self {
        Self {
            record,
            files: Vec::new(),
            cached: true,
            warnings: Vec::new(),
            shared: None,
            elapsed: Duration::ZERO,
        }
    }
}

impl Baker {
    /// A baker for `config` (a manifest path or a parsed [`Config`]) writing into `out`.
    pub fn new(config: impl Into<ConfigSource>, out: impl Into<PathBuf>) -> Self {
        Self {
            config: config.into(),
            out: out.into(),
            preset: None,
            jobs: None,
            use_cache: true,
            keep_going: false,
            on_warning: None,
            on_progress: None,
            registry: Registry::with_builtins(),
            registration_error: None,
            signing_key: None,
            keep_last_good: false,
            cancel: None,
            shared: SharedSetup::Off,
            record_timings: false,
            tree: None,
        }
    }

    /// Uses the shared bake cache described by `config` (see
    /// [`shared_cache`](crate::bake::shared_cache)): an asset another checkout, teammate or
    /// CI runner baked with the same inputs is taken from it instead of being baked. Off by
    /// default.
    pub fn shared_cache(&mut self, config: SharedCacheConfig) -> &mut Self {
        self.shared = SharedSetup::Given(config);
        self
    }

    /// Uses the shared bake cache the environment describes (`HEARTH_CACHE_DIR`,
    /// `HEARTH_CACHE_URL`, `HEARTH_CACHE_MODE`, else the manifest's `[cache] remote` and the
    /// user cache folder), as `hearth bake` and build scripts do.
    pub fn shared_cache_from_env(&mut self) -> &mut Self {
        self.shared = SharedSetup::FromEnv;
        self
    }

    /// Opens this bake's shared cache; problems are warnings, never errors.
    fn open_shared_cache(&self, config: &Config) -> (Option<SharedCache>, Vec<String>) {
        let settings = match &self.shared {
            SharedSetup::Off => return (None, Vec::new()),
            SharedSetup::Given(settings) => settings.clone(),
            SharedSetup::FromEnv => {
                match SharedCacheConfig::from_env(config.cache_remote.as_deref()) {
                    Ok(settings) => settings,
                    Err(why) => return (None, vec![format!("{why}; shared cache off")]),
                }
            }
        };
        SharedCache::open(&settings)
    }

    /// An asset that fails keeps its previous outputs (when it has any) instead of failing
    /// the bake; the failures are in [`Report::failed`] and the rest of the bake is written.
    /// For tools that re-bake on every edit (`hearth watch`): one broken file does not hold
    /// back every other change.
    pub fn keep_last_good(&mut self, keep: bool) -> &mut Self {
        self.keep_last_good = keep;
        self
    }

    /// Stops the bake with [`BakeError::Cancelled`] once `flag` is set: assets not yet
    /// started are skipped and nothing is committed, so the previous bake stands. Checked
    /// before each asset and before the commit (an asset already baking finishes first).
    pub fn cancel_when(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.cancel = Some(flag);
        self
    }

    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// Signs the pack with `key`: the pack is written as v5, which carries a BLAKE3 digest of
    /// every entry and an Ed25519 signature over its header and tables (README, "Signed
    /// packs"). `content.pack_version` must then be 4 (the default) or unset.
    pub fn sign(&mut self, key: SigningKey) -> &mut Self {
        self.signing_key = Some(key);
        self
    }

    /// Adds a pipeline to hearth's built-in ones: a game's own asset kind. A pipeline whose
    /// name or claims clash with a registered one makes [`run`](Self::run) fail, naming both.
    pub fn pipeline<P: Pipeline>(&mut self, pipeline: P) -> &mut Self {
        if let Err(error) = self.registry.register(pipeline) {
            if self.registration_error.is_none() {
                self.registration_error = Some(match error {
                    BakeError::Pipeline { pipeline, message } => (pipeline, message),
                    other => (String::new(), other.to_string()),
                });
            }
        }
        self
    }

    /// Replaces the whole set of pipelines (built-ins included) with `registry`.
    pub fn registry(&mut self, registry: Registry) -> &mut Self {
        self.registry = registry;
        self
    }

    /// Bakes `config` into `out` with default options.
    pub fn bake(
        config: impl Into<ConfigSource>,
        out: impl Into<PathBuf>,
    ) -> Result<Report, BakeError> {
        Self::new(config, out).run()
    }

    /// Selects a preset (else the manifest's `preset`, else none).
    pub fn preset(&mut self, name: impl Into<String>) -> &mut Self {
        self.preset = Some(name.into());
        self
    }

    /// Selects a preset or clears the selection.
    pub fn preset_opt(&mut self, name: Option<String>) -> &mut Self {
        self.preset = name;
        self
    }

    /// Worker threads (else `NUM_JOBS`, else the number of cores), clamped to
    /// 1..=[`MAX_JOBS`].
    pub fn jobs(&mut self, jobs: usize) -> &mut Self {
        self.jobs = Some(jobs.clamp(1, MAX_JOBS));
        self
    }

    /// Use the incremental cache (default `true`). `false` rebuilds everything.
    pub fn cache(&mut self, use_cache: bool) -> &mut Self {
        self.use_cache = use_cache;
        self
    }

    /// Writes the loose runtime tree besides the pack (`true`), or the pack alone (`false`),
    /// whatever the manifest's `tree` says. A pack-only bake suits a build that embeds or maps
    /// the pack ([`load_pak!`](crate::load_pak)): it writes one file where the tree is one per
    /// output, and its cache finds unchanged assets' outputs in the previous pack. Switching
    /// removes the other form's files: the folder holds one bake.
    ///
    /// ```no_run
    /// use hearth::bake::Baker;
    ///
    /// let report = Baker::new("assets/hearth.toml", "target/assets").tree(false).run()?;
    /// assert!(!report.tree);
    /// # Ok::<(), hearth::bake::BakeError>(())
    /// ```
    pub fn tree(&mut self, tree: bool) -> &mut Self {
        self.tree = Some(tree);
        self
    }

    /// Bake every asset even after a failure, and report all failures together.
    pub fn keep_going(&mut self, keep_going: bool) -> &mut Self {
        self.keep_going = keep_going;
        self
    }

    /// Receives each warning (the library never prints).
    pub fn on_warning(&mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> &mut Self {
        self.on_warning = Some(Arc::new(callback));
        self
    }

    /// Records every task the worker pool runs into [`Report::tasks`] (off by default): each
    /// asset's job, and the slices pipelines split large work into (`hearth bake --timings`).
    pub fn record_timings(&mut self, record: bool) -> &mut Self {
        self.record_timings = record;
        self
    }

    /// Receives progress events, from worker threads.
    pub fn on_progress(
        &mut self,
        callback: impl Fn(Progress<'_>) + Send + Sync + 'static,
    ) -> &mut Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }

    fn thread_count(&self) -> usize {
        self.jobs
            .or_else(|| std::env::var("NUM_JOBS").ok().and_then(|n| n.parse().ok()))
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .clamp(1, MAX_JOBS)
    }

    /// The folder this bake writes: the output folder, or the preset's `output` inside it,
    /// checked like emitted paths (a `Config` built in code skipped `Config::parse`) and with
    /// no symlink on the way from the output folder, which would be written through.
    fn output_folder(
        &self,
        config: &Config,
        preset_name: Option<&str>,
        preset: Option<&Preset>,
    ) -> Result<PathBuf, BakeError> {
        let (Some(name), Some(sub)) = (preset_name, preset.and_then(|p| p.output.as_deref()))
        else {
            return Ok(self.out.clone());
        };
        check_preset_output(name, sub).map_err(|message| BakeError::Config {
            file: config.file.clone(),
            message,
        })?;
        no_symlink_on_way(&self.out, sub)?;
        Ok(self.out.join(sub))
    }

    /// Runs the bake. On error (or a kill) nothing of the previous bake is lost: every output
    /// is staged, then all are switched in by one transaction (see [`crate::bake::transaction`]).
    ///
    /// A bake is a sequence of phases, each a method below; every phase's effects (warnings,
    /// progress events, files staged) come after the previous phase's, and a phase that fails
    /// leaves the later ones undone.
    pub fn run(&self) -> Result<Report, BakeError> {
        let started = Instant::now();
        let mut warnings = Warnings::new(self.on_warning.as_ref());
        let config = self.resolve_settings(&mut warnings)?;
        let target = self.resolve_output(&config)?;
        let mut held = lock_and_recover(&target.out_dir, &mut warnings)?;
        let planned = self.plan(&config, &target, &mut warnings)?;
        let (results, pool, tasks) = self.execute(&planned)?;
        let settled = self.settle(&config, &planned, results, &mut warnings)?;
        let mut report = self.write(
            &config,
            &target,
            &planned,
            settled,
            &pool,
            &mut held.transaction,
        )?;
        // The previous pack is mapped until here; unmapped before it is replaced (Windows
        // refuses to replace a mapped file).
        drop(planned);
        self.commit(held.transaction)?;
        report.tasks = tasks;
        report.warnings = warnings.list;
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// Phase "resolve", settings: the manifest, loaded and checked against the pipelines and
    /// the signing key. First because every later phase reads it, and a bad manifest must
    /// fail before the output folder is touched.
    fn resolve_settings(&self, warnings: &mut Warnings<'_>) -> Result<Config, BakeError> {
        if let Some((pipeline, message)) = &self.registration_error {
            return Err(BakeError::Pipeline {
                pipeline: pipeline.clone(),
                message: message.clone(),
            });
        }
        let config = match &self.config {
            ConfigSource::Path(path) => Config::load(path)?,
            ConfigSource::Parsed(config) => (**config).clone(),
        };
        if self.signing_key.is_some() && config.pack_version != 4 {
            return Err(BakeError::Config {
                file: config.file.clone(),
                message: format!(
                    "`content.pack_version` = {}, but a signed pack is written as v5 (v4 plus \
                     digests and a signature); remove the setting to sign",
                    config.pack_version
                ),
            });
        }
        warnings.extend(config.warnings.iter().cloned());
        warnings.extend(config.check_tables(&self.registry)?);
        Ok(config)
    }

    /// Phase "resolve", output: the preset and the folder this bake writes. Apart from the
    /// settings because it borrows the preset from them.
    fn resolve_output<'c>(&self, config: &'c Config) -> Result<Target<'c>, BakeError> {
        let preset_name = self
            .preset
            .clone()
            .or_else(|| config.default_preset.clone());
        let preset = config.preset(preset_name.as_deref())?;
        let out_dir = self.output_folder(config, preset_name.as_deref(), preset)?;
        let tree = self
            .tree
            .or(preset.and_then(|p| p.tree))
            .unwrap_or(config.tree);
        Ok(Target {
            preset_name,
            preset,
            out_dir,
            tree,
        })
    }

    /// Phase "plan": the jobs, the incremental cache, the shared cache, the previous bake's
    /// outputs and the files now in the output tree. After the lock, because the cache and
    /// the tree are only stable while the folder is ours.
    fn plan(
        &self,
        config: &Config,
        target: &Target<'_>,
        warnings: &mut Warnings<'_>,
    ) -> Result<Planned, BakeError> {
        let out_dir = &target.out_dir;
        let make_plan = || plan(config, &self.registry, target.preset, Some(out_dir));
        // The cache and the output tree's listing, which do not depend on the plan: read on a
        // second thread while the content tree is walked, when the bake may use two.
        let load_outputs = || -> Result<_, BakeError> {
            let (old_cache, warning) = match self.use_cache {
                true => Cache::load(out_dir),
                false => (Cache::default(), None),
            };
            let mut warnings: Vec<String> = warning.into_iter().collect();
            let outputs = previous_outputs(target, &old_cache, &mut warnings)?;
            Ok((old_cache, warnings, outputs))
        };
        let (plan, loaded) = match self.thread_count() {
            1 => (make_plan(), load_outputs()),
            _ => std::thread::scope(|scope| {
                let loading = scope.spawn(load_outputs);
                let plan = make_plan();
                let loaded = loading
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e));
                (plan, loaded)
            }),
        };
        let plan = plan?;
        warnings.extend(plan.warnings.iter().cloned());
        let (old_cache, cache_warnings, outputs) = loaded?;
        warnings.extend(cache_warnings);
        let (shared, shared_warnings) = self.open_shared_cache(config);
        warnings.extend(shared_warnings);
        // Even with the cache off, the previous bake's outputs are known, so stale ones go.
        // With it on, that record is `old_cache` itself (not a copy: 10k records to clone).
        let previous = match self.use_cache {
            true => None,
            false => Some(Cache::load(out_dir).0),
        };
        Ok(Planned {
            plan,
            old_cache,
            previous,
            outputs,
            shared,
        })
    }

    /// The shared cache as the jobs use it: with whether they may look assets up in it.
    fn shared<'a>(&self, planned: &'a Planned) -> Option<(&'a SharedCache, bool)> {
        planned.shared.as_ref().map(|cache| (cache, self.use_cache))
    }

    /// Phase "execute": every job, baked or proven current from a cache, in parallel on the
    /// worker pool (returned: the pack is built on it too). Its results are in plan order,
    /// whatever the thread count, so what follows is deterministic. With
    /// [`Baker::record_timings`], also the tasks it ran.
    #[allow(clippy::type_complexity)]
    fn execute<'p>(
        &self,
        planned: &'p Planned,
    ) -> Result<(Vec<JobResult<'p>>, rayon::ThreadPool, Vec<TaskTime>), BakeError> {
        let jobs = &planned.plan.jobs;
        if let Some(progress) = &self.on_progress {
            progress(Progress::Planned { assets: jobs.len() });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.thread_count())
            .build()
            .map_err(|e| BakeError::Cargo(format!("cannot start worker threads: {e}")))?;
        let done = AtomicUsize::new(0);
        let shared = self.shared(planned);
        let recorder = self.record_timings.then(timings::Recorder::new);
        let results = pool.install(|| {
            jobs.par_iter()
                .enumerate()
                .map(|(index, job)| {
                    if self.cancelled() {
                        return Err(BakeError::Cancelled);
                    }
                    let started = Instant::now();
                    let span = recorder.as_ref().map(|r| timings::Span::asset(r, &job.rel));
                    let result = timings::run(span, || {
                        bake_one(
                            (index, job),
                            &self.registry,
                            &planned.old_cache,
                            &planned.outputs,
                            &planned.plan.root,
                            shared,
                        )
                    })
                    .map(|mut asset| {
                        asset.elapsed = started.elapsed();
                        asset
                    });
                    if let Some(progress) = &self.on_progress {
                        let done = done.fetch_add(1, Ordering::Relaxed) + 1;
                        let cached = result.as_ref().is_ok_and(|r| r.cached);
                        progress(Progress::Asset {
                            done,
                            total: jobs.len(),
                            path: &job.rel,
                            cached,
                        });
                    }
                    result
                })
                .collect()
        });
        let tasks = recorder.map(|r| r.take()).unwrap_or_default();
        Ok((results, pool, tasks))
    }

    /// Phase "settle": the jobs' results become this bake's assets (or its error), their
    /// warnings are reported, and the whole is checked: one owner per runtime path, no
    /// dangling reference, no manifest hash collision. Last before anything is written, so
    /// a bake that cannot be written stages nothing.
    fn settle<'p>(
        &self,
        config: &Config,
        planned: &'p Planned,
        results: Vec<JobResult<'p>>,
        warnings: &mut Warnings<'_>,
    ) -> Result<Settled<'p>, BakeError> {
        if self.cancelled() {
            return Err(BakeError::Cancelled);
        }
        let (assets, jobs, failed) = self.collect_results(planned, results)?;
        if let Some((shared, _)) = self.shared(planned) {
            warnings.extend(shared.take_notes());
        }
        for asset in &assets {
            warnings.extend(asset.warnings.iter().cloned());
        }
        claim_outputs(config, &assets)?;
        check_references(&jobs, &assets, self.keep_going)?;
        // Nothing re-baked and the same assets as last time: the manifest is the one on disk,
        // so it is neither rebuilt nor compared (a no-op re-bake opens no file it need not).
        let old_cache = &planned.old_cache;
        let unchanged = self.use_cache
            && assets.len() == old_cache.assets.len()
            && planned.outputs.contains(MANIFEST_PATH)
            && old_cache.manifest_hash.is_some()
            && assets
                .iter()
                .zip(&old_cache.assets)
                .all(|(asset, old)| asset.cached && same_record(&asset.record, old));
        // Built (and so checked for hash collisions) before anything is written.
        let built_manifest = match unchanged {
            true => None,
            false => Some(build_manifest(&assets)?),
        };
        // A pure function of the rows and `[content.names]`: rebuilt (and so checked for
        // collisions, which fail the bake here) unless both are those of the name table on
        // disk. Building it was a tenth of a no-op re-bake of 10k files.
        let names_input = names_input(config);
        let names = match unchanged
            && old_cache.names_input == Some(names_input)
            && old_cache.names_hash.is_some()
            && planned.outputs.contains(NAMES_PATH)
        {
            true => {
                warn_unbaked_names(config, &assets, warnings);
                None
            }
            false => Some(build_names(config, &assets, warnings)?),
        };
        Ok(Settled {
            assets,
            jobs,
            failed,
            unchanged,
            built_manifest,
            names,
            names_input,
        })
    }

    /// The assets of the jobs' results and their jobs, index for index, and the failures
    /// [`Baker::keep_last_good`] kept the last good outputs of; or the bake's error.
    #[allow(clippy::type_complexity)]
    fn collect_results<'p>(
        &self,
        planned: &'p Planned,
        results: Vec<JobResult<'p>>,
    ) -> Result<(Vec<AssetResult<'p>>, Cow<'p, [Job]>, Vec<(String, String)>), BakeError> {
        let plan_jobs = &planned.plan.jobs;
        let mut assets = Vec::with_capacity(results.len());
        let mut failures = Vec::new();
        let mut kept = Vec::new();
        // The jobs of `assets`, index for index (fewer than planned only when an asset failed
        // with nothing to keep).
        let mut dropped = Vec::new();
        for (index, (result, job)) in results.into_iter().zip(plan_jobs).enumerate() {
            match result {
                Ok(asset) => assets.push(asset),
                Err(error) if self.keep_last_good => {
                    // The previous outputs stay, when they are all still there.
                    let last_good = planned.previous().get(&job.rel).filter(|old| {
                        old.outputs
                            .iter()
                            .all(|o| planned.outputs.contains(&o.path))
                    });
                    match last_good {
                        Some(old) => assets.push(AssetResult::cached(Cow::Borrowed(old))),
                        None => dropped.push(index),
                    }
                    kept.push((job.rel.clone(), error.to_string()));
                }
                Err(error) if self.keep_going => failures.push(error),
                Err(error) => return Err(error),
            }
        }
        let jobs: Cow<'_, [Job]> = match dropped.is_empty() {
            true => Cow::Borrowed(plan_jobs),
            false => Cow::Owned(
                (0..plan_jobs.len())
                    .filter(|i| !dropped.contains(i))
                    .map(|i| plan_jobs[i].clone())
                    .collect(),
            ),
        };
        if !failures.is_empty() {
            return Err(BakeError::Failed(failures));
        }
        Ok((assets, jobs, kept))
    }

    /// Phase "write": stages in the transaction every file this bake changes (new outputs,
    /// the removal of stale ones, the manifest, the pack, the cache record) and fills the
    /// report. Nothing is switched in yet: the previous bake stands until the commit.
    fn write(
        &self,
        config: &Config,
        target: &Target<'_>,
        planned: &Planned,
        settled: Settled<'_>,
        pool: &rayon::ThreadPool,
        transaction: &mut Transaction,
    ) -> Result<Report, BakeError> {
        let mut report = self.tally(config, target, planned, &settled);
        let manifest_hash = stage_outputs(config, planned, &settled, transaction, &mut report)?;
        let names_hash = stage_names(planned, settled.names.as_deref(), transaction, &mut report)?;
        let manifest_settings = config.resolve(target.preset, None, MANIFEST_PATH)?;
        let manifest = ManifestPackEntry {
            bytes: settled.built_manifest.as_deref(),
            hash: manifest_hash,
            codec: manifest_settings.compression,
            level: manifest_settings.compression_level,
            names: settled.names.as_deref(),
            names_hash,
        };
        let old_cache = &planned.old_cache;
        let pack = self.write_pack(
            config,
            &settled.jobs,
            &settled.assets,
            manifest,
            planned,
            pool,
            transaction,
            &mut report,
        )?;
        let names_unchanged = old_cache.names_hash == Some(names_hash)
            && old_cache.names_input == Some(settled.names_input);
        if !(settled.unchanged && names_unchanged && old_cache.pack.as_ref() == Some(&pack)) {
            let new_cache = Cache {
                assets: settled
                    .assets
                    .into_iter()
                    .map(|a| a.record.into_owned())
                    .collect(),
                pack: Some(pack),
                manifest_hash: Some(manifest_hash),
                names_hash: Some(names_hash),
                names_input: Some(settled.names_input),
            };
            transaction.put(
                crate::bake::cache::FILE_NAME,
                &new_cache.encode(),
                Durability::Durable,
            )?;
        }
        Ok(report)
    }

    /// The report of a settled bake, before anything is written: what it holds, where each
    /// asset came from, how long each took, and the sizes read and produced.
    fn tally(
        &self,
        config: &Config,
        target: &Target<'_>,
        planned: &Planned,
        settled: &Settled<'_>,
    ) -> Report {
        let assets = &settled.assets;
        let mut report = Report {
            out_dir: target.out_dir.clone(),
            tree: target.tree,
            pack_path: target.out_dir.join(pack_file_name(config)),
            preset: target
                .preset_name
                .clone()
                .filter(|_| target.preset.is_some()),
            assets: assets.len(),
            inputs: settled
                .jobs
                .iter()
                .zip(assets)
                .flat_map(|(job, asset)| job.sources.iter().chain(&asset.record.side_inputs))
                .cloned()
                .collect(),
            watched_dirs: planned.plan.watched_dirs.clone(),
            failed: settled.failed.clone(),
            ..Report::default()
        };
        if let Some((shared, _)) = self.shared(planned) {
            report.shared_stored = shared.stored.load(Ordering::Relaxed);
        }
        for asset in assets {
            report.asset_times.push(AssetTime {
                rel: asset.record.rel.clone(),
                elapsed: asset.elapsed,
                origin: match (asset.shared, asset.cached) {
                    (Some(TierKind::Local), _) => "shared (local)",
                    (Some(TierKind::Remote), _) => "shared (remote)",
                    (None, true) => "cache",
                    (None, false) => "baked",
                },
            });
            match asset.shared {
                Some(TierKind::Local) => report.shared_local_hits.push(asset.record.rel.clone()),
                Some(TierKind::Remote) => report.shared_remote_hits.push(asset.record.rel.clone()),
                None if !asset.cached => report.baked.push(asset.record.rel.clone()),
                None => {}
            }
            report.cache_hits += asset.cached as usize;
            report.bytes_in += asset.record.source_size;
            report.bytes_out += asset.record.outputs.iter().map(|o| o.size).sum::<u64>();
        }
        // One row per listed output (paths are unique, checked by `claim_outputs`).
        let rows = || {
            assets
                .iter()
                .flat_map(|a| &a.record.outputs)
                .filter(|o| o.manifest.is_some())
        };
        report.manifest_entries = rows().count();
        report.bytes_out +=
            hman::encoded_size(report.manifest_entries, rows().map(|o| o.path.len()).sum()) as u64;
        report
    }

    /// Phase "commit": the one point where this bake replaces the previous one, unless the
    /// bake was cancelled meanwhile. Last, so that any earlier error leaves the previous bake
    /// whole.
    fn commit(&self, transaction: Transaction) -> Result<(), BakeError> {
        if self.cancelled() {
            return Err(BakeError::Cancelled);
        }
        // The commit point: until here the previous bake was untouched.
        transaction.commit()
    }

    /// Writes the pack unless the cache shows an identical one is already there.
    #[allow(clippy::too_many_arguments)]
    fn write_pack(
        &self,
        config: &Config,
        jobs: &[Job],
        assets: &[AssetResult],
        manifest: ManifestPackEntry<'_>,
        planned: &Planned,
        pool: &rayon::ThreadPool,
        transaction: &mut Transaction,
        report: &mut Report,
    ) -> Result<CachedPack, BakeError> {
        let entries = pack_entries(jobs, assets, &manifest);
        let fingerprint = self.pack_fingerprint(config.pack_version, &entries);
        report.pack_entries = entries.len();
        let pack_path = &report.pack_path;
        if let Some(old) = &planned.old_cache.pack {
            let size_on_disk = std::fs::metadata(pack_path).map(|m| m.len()).ok();
            let same_file = old.file == pack_file_name(config);
            if same_file && old.fingerprint == fingerprint && size_on_disk == Some(old.size) {
                report.pack_bytes = old.size;
                return Ok(old.clone());
            }
        }
        if let Some(progress) = &self.on_progress {
            progress(Progress::Packing {
                entries: entries.len(),
            });
        }

        let rebuilt_manifest;
        let manifest_bytes = match manifest.bytes {
            Some(bytes) => bytes,
            None => {
                rebuilt_manifest = build_manifest(assets)?;
                &rebuilt_manifest
            }
        };
        let rebuilt_names;
        let names_bytes = match manifest.names {
            Some(bytes) => bytes,
            None => {
                // Its warnings were reported when it was skipped.
                rebuilt_names = build_names(config, assets, &mut Warnings::new(None))?;
                &rebuilt_names
            }
        };
        let sources = pack_entry_bytes(
            &entries,
            assets,
            [manifest_bytes, names_bytes],
            &report.out_dir,
            // Only a pack-only bake opens the previous pack.
            planned.outputs.pack.as_ref(),
        )?;
        let files: Vec<PackFile<'_>> = entries
            .iter()
            .zip(&sources)
            .map(|((path, _, codec, level, _, kind), bytes)| PackFile {
                path,
                kind: *kind,
                bytes,
                codec: *codec,
                level: *level,
            })
            .collect();
        let bytes = pool.install(|| match &self.signing_key {
            Some(key) => pack::build_signed(&files, key),
            None => pack::build(config.pack_version, &files),
        });
        report.files_written +=
            transaction.put(&pack_file_name(config), &bytes, Durability::Durable)? as usize;
        report.pack_bytes = bytes.len() as u64;
        Ok(CachedPack {
            fingerprint,
            size: bytes.len() as u64,
            file: pack_file_name(config),
        })
    }

    /// What makes the pack's bytes: the pack version, the signing key, and every entry's
    /// path, codec, kind, content hash and level. Equal to the cached one, the pack on disk
    /// is this bake's.
    fn pack_fingerprint(&self, pack_version: u32, entries: &[PackPlanEntry<'_>]) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&pack_version.to_le_bytes());
        // Signing (and with which key) changes the pack's bytes.
        let signer = self
            .signing_key
            .as_ref()
            .map(|key| key.public_key().to_bytes());
        hasher.update(&signer.unwrap_or_default());
        hasher.update(&[signer.is_some() as u8]);
        for (path, hash, codec, level, _, kind) in entries {
            hasher.update(path.as_bytes());
            hasher.update(&[0, *codec as u8, kind.0]);
            hasher.update(&hash.to_le_bytes());
            hasher.update(&level.unwrap_or(i32::MIN).to_le_bytes());
        }
        hasher.digest()
    }
}

/// The pack's entries, sorted by path: the manifest, then every asset's outputs with their
/// job's compression.
fn pack_entries<'a>(
    jobs: &[Job],
    assets: &'a [AssetResult],
    manifest: &ManifestPackEntry<'_>,
) -> Vec<PackPlanEntry<'a>> {
    // (path, content hash, codec, level, the asset owning it, kind)
    let mut entries: Vec<PackPlanEntry<'_>> = vec![
        (
            MANIFEST_PATH,
            manifest.hash,
            manifest.codec,
            manifest.level,
            None,
            AssetKind::MANIFEST,
        ),
        (
            NAMES_PATH,
            manifest.names_hash,
            manifest.codec,
            manifest.level,
            None,
            AssetKind::NAMES,
        ),
    ];
    for (index, (asset, job)) in assets.iter().zip(jobs).enumerate() {
        for output in &asset.record.outputs {
            entries.push((
                &output.path,
                output.hash,
                job.settings.compression,
                job.settings.compression_level,
                Some(index),
                // The manifest row's kind; an output without a row is an opaque blob.
                output
                    .manifest
                    .map_or(AssetKind::BLOB, |(_, kind, _)| AssetKind(kind)),
            ));
        }
    }
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// Bytes of every pack entry: in memory for fresh bakes, read back for cache hits (from the
/// output folder, or a pack-only bake's previous pack) and checked against the hash the cache
/// recorded.
fn pack_entry_bytes<'a>(
    entries: &[PackPlanEntry<'_>],
    assets: &'a [AssetResult],
    [manifest_bytes, names_bytes]: [&'a [u8]; 2],
    out_dir: &Path,
    previous_pack: Option<&'a PakReader>,
) -> Result<Vec<Cow<'a, [u8]>>, BakeError> {
    let mut sources: Vec<Cow<'_, [u8]>> = Vec::with_capacity(entries.len());
    for (path, hash, _, _, owner, _) in entries {
        let Some(owner) = *owner else {
            // The two bookkeeping entries: the manifest and the name table.
            sources.push(Cow::Borrowed(match *path == NAMES_PATH {
                true => names_bytes,
                false => manifest_bytes,
            }));
            continue;
        };
        if let Some(file) = assets[owner].files.iter().find(|f| f.path == *path) {
            sources.push(Cow::Borrowed(&file.bytes));
            continue;
        }
        // A cached output, read back as hearth's own file: a link or special file there
        // (planted after the tree was listed) is an error naming it, never followed or waited
        // on, and the read stops at the recorded size. Failing loses nothing: the bake's
        // transaction is not committed, and the next bake lists the tree again and bakes that
        // asset afresh.
        let file_path = out_dir.join(path);
        let recorded = assets[owner]
            .record
            .outputs
            .iter()
            .find(|o| o.path == *path);
        // Always found: the entries are the records' outputs.
        let cap = recorded.map_or(0, |output| output.size);
        let cannot_read = |e: String| {
            BakeError::asset(
                &file_path,
                format!(
                    "cannot read back the output of `{}` ({e}); bake again",
                    assets[owner].record.rel
                ),
            )
        };
        let bytes = match previous_pack {
            // Proven there by the cache check (`PreviousOutputs::contains`).
            Some(pack) => pack
                .get(path)
                .map_err(|e| cannot_read(e.to_string()))?
                .ok_or_else(|| cannot_read("not in the previous pack".into()))?,
            None => {
                Cow::Owned(read_regular(&file_path, cap).map_err(|e| cannot_read(e.to_string()))?)
            }
        };
        if xxhash_rust::xxh3::xxh3_64(&bytes) != *hash {
            return Err(BakeError::asset(
                &file_path,
                format!(
                    "changed since `{}` was baked (edited outside hearth?); bake again with the cache off",
                    assets[owner].record.rel
                ),
            ));
        }
        sources.push(bytes);
    }
    Ok(sources)
}

/// The bake's warnings, in the order found: each goes to the warning callback at once, and
/// all into [`Report::warnings`] at the end. Each distinct warning (its text names the file)
/// once per bake: a mesh instanced on several nodes, or a file several assets read, says it
/// once.
struct Warnings<'a> {
    callback: Option<&'a WarningFn>,
    list: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl<'a> Warnings<'a> {
    fn new(callback: Option<&'a WarningFn>) -> Self {
        Self {
            callback,
            list: Vec::new(),
            seen: Default::default(),
        }
    }

    fn push(&mut self, message: String) {
        if !self.seen.insert(message.clone()) {
            return;
        }
        if let Some(callback) = self.callback {
            callback(&message);
        }
        self.list.push(message);
    }

    fn extend(&mut self, messages: impl IntoIterator<Item = String>) {
        messages.into_iter().for_each(|message| self.push(message));
    }
}

/// Where the bake goes: the preset it uses and the folder it writes.
struct Target<'c> {
    preset_name: Option<String>,
    preset: Option<&'c Preset>,
    out_dir: PathBuf,
    /// Whether the loose runtime tree is written (see [`Baker::tree`]).
    tree: bool,
}

/// The output folder, held for the whole bake. The transaction comes first so that it is
/// dropped (and so rolled back) while the lock is still held.
struct Held {
    transaction: Transaction,
    _lock: OutputLock,
}

/// What the plan phase found: the jobs, and what the caches and the output tree hold.
struct Planned {
    plan: Plan,
    /// The incremental cache (empty with the cache off).
    old_cache: Cache,
    /// The previous bake's record when the cache is off (read anyway: its stale outputs
    /// go); with the cache on it is `old_cache`. See [`Planned::previous`].
    previous: Option<Cache>,
    /// Where the previous bake's outputs are: the output tree's files, or a pack-only bake's
    /// previous pack.
    outputs: PreviousOutputs,
    shared: Option<SharedCache>,
}

impl Planned {
    /// The previous bake's record, whether the cache is on or off.
    fn previous(&self) -> &Cache {
        self.previous.as_ref().unwrap_or(&self.old_cache)
    }
}

/// Whether a hit's record is `old`: the same record (borrowed from the cache) or an equal one.
fn same_record(record: &CachedAsset, old: &CachedAsset) -> bool {
    std::ptr::eq(record, old) || record == old
}

/// One job's outcome, from the execute phase.
type JobResult<'c> = Result<AssetResult<'c>, BakeError>;

/// The assets a settled bake writes, with everything the write phase needs to know.
struct Settled<'p> {
    assets: Vec<AssetResult<'p>>,
    /// The jobs of `assets`, index for index.
    jobs: Cow<'p, [Job]>,
    /// With [`Baker::keep_last_good`]: the assets that failed, each with its error.
    failed: Vec<(String, String)>,
    /// Nothing re-baked and the same assets as last time.
    unchanged: bool,
    /// `assets.hman`, unless `unchanged` (then the one on disk stands).
    built_manifest: Option<Vec<u8>>,
    /// `assets.hnames`, unless the one on disk stands (see `Baker::settle`).
    names: Option<Vec<u8>>,
    /// What `names` is built from besides the assets (see [`Cache::names_input`]).
    names_input: u64,
}

/// Where the previous bake's outputs are. The output tree's files, listed once: a cached
/// output must still be there, or for a pack-only bake be gone (the folder holds the pack
/// alone, so a pack-only bake lists it whatever the cache says) and be in the previous pack.
fn previous_outputs(
    target: &Target<'_>,
    old_cache: &Cache,
    warnings: &mut Vec<String>,
) -> Result<PreviousOutputs, BakeError> {
    let mut outputs = PreviousOutputs {
        pack_only: !target.tree,
        ..PreviousOutputs::default()
    };
    if old_cache.assets.is_empty() && target.tree {
        return Ok(outputs);
    }
    outputs.tree = TreeListing::list(&target.out_dir)?;
    if let (false, Some(pack)) = (target.tree, &old_cache.pack) {
        // Where the previous bake wrote it: `content.name` may have changed since.
        let path = target.out_dir.join(&pack.file);
        match open_previous_pack(&path, pack.size) {
            Ok(pack) => outputs.pack = pack,
            Err(why) => warnings.push(format!(
                "{}: the previous pack is unusable ({why}); its assets are baked again",
                path.display()
            )),
        }
    }
    Ok(outputs)
}

/// Phase "lock and recover": creates the output folder, holds its lock for the rest of the
/// bake, and opens the one transaction everything this bake writes goes through. An earlier
/// bake's interrupted transaction is finished or discarded first, so what follows sees one
/// bake.
fn lock_and_recover(out_dir: &Path, warnings: &mut Warnings<'_>) -> Result<Held, BakeError> {
    std::fs::create_dir_all(out_dir).map_err(|e| BakeError::io(out_dir, e))?;
    let lock = OutputLock::acquire(out_dir)?;
    let (transaction, recovery) = Transaction::begin(out_dir)?;
    if recovery != Recovery::Clean {
        warnings.push(format!("{}: {recovery}", out_dir.display()));
    }
    Ok(Held {
        transaction,
        _lock: lock,
    })
}

/// Every runtime path has one owner; the manifest's and the pack's paths are reserved,
/// whatever their case (on a case-insensitive file system `ASSETS.HPACK` is the pack).
fn claim_outputs(config: &Config, assets: &[AssetResult]) -> Result<(), BakeError> {
    let pack_file_name = pack_file_name(config);
    let outputs = assets.iter().map(|a| a.record.outputs.len()).sum::<usize>();
    let mut owners: HashMap<&str, &str> = HashMap::with_capacity(outputs + 3);
    owners.insert(MANIFEST_PATH, "(the manifest)");
    owners.insert(NAMES_PATH, "(the name table)");
    owners.insert(&pack_file_name, "(the pack)");
    for asset in assets {
        for output in &asset.record.outputs {
            let reserved = [
                (MANIFEST_PATH, "the manifest's file name; rename the source"),
                (NAMES_PATH, "the name table's file name; rename the source"),
                (
                    pack_file_name.as_str(),
                    "the pack's file name (`content.name` + `.hpack`); rename the source or set another `content.name`",
                ),
            ];
            if let Some((_, what)) = reserved
                .iter()
                .find(|(name, _)| output.path.eq_ignore_ascii_case(name))
            {
                return Err(BakeError::Collision {
                    message: format!(
                        "{}: `{}` produces `{}`, which is {what}",
                        config.file.display(),
                        asset.record.rel,
                        output.path
                    ),
                });
            }
            if let Some(owner) = owners.insert(&output.path, &asset.record.rel) {
                return Err(BakeError::Collision {
                    message: format!(
                        "`{owner}` and `{}` both produce `{}`",
                        asset.record.rel, output.path
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Stages the assets' new files, the removal of the previous bake's outputs that no path of
/// this bake (output, manifest or pack) claims, and the manifest when it was rebuilt.
/// Returns the manifest's hash.
fn stage_outputs(
    config: &Config,
    planned: &Planned,
    settled: &Settled<'_>,
    transaction: &mut Transaction,
    report: &mut Report,
) -> Result<u64, BakeError> {
    remove_previous_pack(config, planned, settled, transaction, report)?;
    if planned.outputs.pack_only {
        return remove_tree(planned, settled, transaction, report);
    }
    for asset in &settled.assets {
        for file in &asset.files {
            report.files_written +=
                transaction.put(&file.path, &file.bytes, Durability::Atomic)? as usize;
        }
    }
    if settled.unchanged {
        // The same assets and records as the previous bake: every old output is claimed.
        return Ok(planned.old_cache.manifest_hash.unwrap_or_default());
    }
    let pack_file_name = pack_file_name(config);
    let claimed: HashSet<&str> = [MANIFEST_PATH, pack_file_name.as_str()]
        .into_iter()
        .chain(settled.assets.iter().flat_map(|asset| {
            asset
                .record
                .outputs
                .iter()
                .map(|output| output.path.as_str())
        }))
        .collect();
    for old in &planned.previous().assets {
        for output in &old.outputs {
            if !claimed.contains(output.path.as_str()) {
                report.files_removed += transaction.remove(&output.path)? as usize;
            }
        }
    }
    Ok(match &settled.built_manifest {
        None => planned.old_cache.manifest_hash.unwrap_or_default(),
        Some(bytes) => {
            report.files_written +=
                transaction.put(MANIFEST_PATH, bytes, Durability::Durable)? as usize;
            xxhash_rust::xxh3::xxh3_64(bytes)
        }
    })
}

/// The previous bake's pack, when this bake names its pack otherwise (`content.name`
/// changed): a previous output like the others, removed unless an asset now writes that path.
fn remove_previous_pack(
    config: &Config,
    planned: &Planned,
    settled: &Settled<'_>,
    transaction: &mut Transaction,
    report: &mut Report,
) -> Result<(), BakeError> {
    let Some(previous) = &planned.previous().pack else {
        return Ok(());
    };
    let (old, new) = (previous.file.as_str(), pack_file_name(config));
    let claimed = settled
        .assets
        .iter()
        .flat_map(|asset| &asset.record.outputs)
        .any(|output| output.path == old);
    let out_dir = &report.out_dir;
    if old == new || claimed || same_file(&out_dir.join(old), &out_dir.join(&new)) {
        return Ok(());
    }
    report.files_removed += transaction.remove(old)? as usize;
    Ok(())
}

/// Whether two paths name one file (a pack renamed only in case, on a file system that
/// ignores case): deleting the old name would delete the new pack.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        // Without inode numbers: names that differ only in case are taken as one file.
        let name = |p: &Path| p.to_string_lossy().to_ascii_lowercase();
        name(a) == name(b)
    }
}

/// A pack-only bake's tree: the previous bake's outputs, manifest and name table that are files
/// in the output folder (a tree bake wrote them) are removed, so the folder holds one bake.
/// Returns the manifest's hash.
fn remove_tree(
    planned: &Planned,
    settled: &Settled<'_>,
    transaction: &mut Transaction,
    report: &mut Report,
) -> Result<u64, BakeError> {
    let outputs = planned.previous().assets.iter().flat_map(|a| &a.outputs);
    let paths = [MANIFEST_PATH, NAMES_PATH]
        .into_iter()
        .chain(outputs.map(|o| o.path.as_str()));
    for path in paths.filter(|path| planned.outputs.tree.contains(path)) {
        report.files_removed += transaction.remove(path)? as usize;
    }
    Ok(match &settled.built_manifest {
        Some(bytes) => xxhash_rust::xxh3::xxh3_64(bytes),
        None => planned.old_cache.manifest_hash.unwrap_or_default(),
    })
}

/// Stages `assets.hnames` unless the cache shows the same one is on disk (`names` is `None`
/// when the settle phase found so without building it). Returns its hash.
fn stage_names(
    planned: &Planned,
    names: Option<&[u8]>,
    transaction: &mut Transaction,
    report: &mut Report,
) -> Result<u64, BakeError> {
    let Some(names) = names else {
        return Ok(planned.old_cache.names_hash.unwrap_or_default());
    };
    let hash = xxhash_rust::xxh3::xxh3_64(names);
    if planned.outputs.pack_only {
        return Ok(hash);
    }
    let on_disk = planned.outputs.tree.contains(NAMES_PATH);
    if !(on_disk && planned.old_cache.names_hash == Some(hash)) {
        report.files_written += transaction.put(NAMES_PATH, names, Durability::Durable)? as usize;
    }
    Ok(hash)
}

/// The pack's file name in the output folder.
fn pack_file_name(config: &Config) -> String {
    format!("{}.hpack", config.pack_name)
}

/// One side input's contribution to the fast-path stamp: like a source's, or a marker when it
/// cannot be stat-ed (a side file the bake looked for and did not find is an input too).
fn stamp_side(stamp: &mut xxhash_rust::xxh3::Xxh3, path: &Path) -> u64 {
    let meta = std::fs::metadata(path).ok();
    stamp_file(stamp, path, meta.map(|m| (m.len(), mtime_ns(&m))))
}

/// One input's contribution to the fast-path stamp: its path, size and mtime (the walk's, for
/// sources), or a marker when it is missing.
fn stamp_file(
    stamp: &mut xxhash_rust::xxh3::Xxh3,
    path: &Path,
    size_and_mtime: Option<(u64, u128)>,
) -> u64 {
    stamp.update(path.as_os_str().as_encoded_bytes());
    stamp.update(&[0]);
    match size_and_mtime {
        Some((len, mtime)) => {
            stamp.update(&[1]);
            stamp.update(&len.to_le_bytes());
            stamp.update(&mtime.to_le_bytes());
            len
        }
        None => {
            stamp.update(&[2]);
            0
        }
    }
}

/// One input's contribution to the content hash: its name and the digest of its bytes (or a
/// marker when it could not be read).
fn hash_input(content: &mut xxhash_rust::xxh3::Xxh3, name: &[u8], digest: Option<(u64, u64)>) {
    content.update(&(name.len() as u64).to_le_bytes());
    content.update(name);
    match digest {
        Some((hash, len)) => {
            content.update(&[1]);
            content.update(&len.to_le_bytes());
            content.update(&hash.to_le_bytes());
        }
        None => content.update(&[2]),
    }
}

/// A side input's name in the content hash: relative to the content root (where every side
/// input is), so a moved checkout hashes the same.
fn side_name<'a>(base: &Path, path: &'a Path) -> &'a [u8] {
    path.strip_prefix(base)
        .unwrap_or(path)
        .as_os_str()
        .as_encoded_bytes()
}

/// The folder a job's side files resolve against.
fn job_base(job: &Job) -> &Path {
    match job.folder {
        true => &job.source,
        false => job.source.parent().unwrap_or(Path::new(".")),
    }
}

/// Bakes one job, or proves from the cache that its outputs are current.
fn bake_one<'c>(
    (index, job): (usize, &Job),
    registry: &Registry,
    cache: &'c Cache,
    outputs: &PreviousOutputs,
    root: &Path,
    shared: Option<(&SharedCache, bool)>,
) -> Result<AssetResult<'c>, BakeError> {
    let pipeline = registry.get(job.pipeline);
    let encoder = (pipeline.name(), pipeline.version());
    let usable = usable_record((index, job), encoder, cache, outputs, root);

    // Fast path: the sources' and the recorded side inputs' paths, sizes and mtimes.
    let no_side_inputs = Vec::new();
    let side_inputs = usable.map_or(&no_side_inputs, |old| &old.side_inputs);
    let (stamp, source_size) = stamp_inputs(job, side_inputs);
    if let Some(old) = usable.filter(|old| old.source_stamp == stamp) {
        return Ok(AssetResult::cached(Cow::Borrowed(old)));
    }

    // Slow path: the bytes.
    let (content, files) = read_sources(job)?;
    if let Some(old) = usable {
        if old.source_hash == recorded_content_hash(&content, side_inputs, root) {
            // Touched but unchanged: keep the outputs, remember the new stamp.
            return Ok(AssetResult::cached(Cow::Owned(CachedAsset {
                source_stamp: stamp,
                source_size,
                ..old.clone()
            })));
        }
    }

    let encoder = (pipeline.name().to_owned(), pipeline.version());
    // The shared cache: another checkout, teammate or CI runner may have baked these inputs.
    let mut shared = shared.map(|(cache, lookups)| {
        let name = (pipeline.name(), pipeline.version());
        shared_cache::AssetEntry::new(cache, lookups, name, job, &files, root)
    });
    if let Some((recorded, tier)) = shared.as_mut().and_then(|entry| entry.lookup()) {
        let mut asset = record_asset(job, root, content, encoder, recorded)?;
        asset.shared = Some(tier);
        return Ok(asset);
    }

    let mut recorded = run_pipeline(registry, job, &files, root)?;
    let Some(shared) = shared else {
        return record_asset(job, root, content, encoder, recorded);
    };
    let stored = shared.stored_asset(&recorded);
    recorded
        .warnings
        .splice(0..0, shared.warnings.iter().cloned());
    let asset = record_asset(job, root, content, encoder, recorded)?;
    if let Some(stored) = stored {
        shared.store(stored);
    }
    Ok(asset)
}

/// The cache's record of `job`, when it may prove the outputs current: same encoder, same
/// settings, side inputs only inside the content root, and every output still on disk.
/// `index` is the job's place in the plan, where its record is when the plan is unchanged.
fn usable_record<'a>(
    (index, job): (usize, &Job),
    (name, version): (&str, u32),
    cache: &'a Cache,
    outputs: &PreviousOutputs,
    root: &Path,
) -> Option<&'a CachedAsset> {
    cache.get_near(&job.rel, index).filter(|old| {
        old.encoder.0 == name && old.encoder.1 == version
            // Only side inputs inside the content root are ever stat-ed or read again.
            && old.side_inputs.iter().all(|side| side.starts_with(root))
            && old.settings.iter().all(|(table, fingerprint)| {
                settings::fingerprint(job.settings.tables.get(table)) == *fingerprint
            })
            && old.outputs.iter().all(|o| outputs.contains(&o.path))
    })
}

/// The fast-path stamp of a job's sources (as the walk saw them) and then of `side_inputs`,
/// and their total size.
fn stamp_inputs(job: &Job, side_inputs: &[PathBuf]) -> (u64, u64) {
    let mut stamp = xxhash_rust::xxh3::Xxh3::new();
    let mut source_size = 0;
    for (source, walked) in job.sources.iter().zip(&job.stamps) {
        source_size += stamp_file(&mut stamp, source, Some(*walked));
    }
    for side in side_inputs {
        source_size += stamp_side(&mut stamp, side);
    }
    (stamp.digest(), source_size)
}

/// Every source of a job, read (each within the input limit), and the content hash of their
/// names and bytes so far (side inputs are added once known).
fn read_sources(job: &Job) -> Result<(xxhash_rust::xxh3::Xxh3, Vec<SourceFile>), BakeError> {
    let mut content = xxhash_rust::xxh3::Xxh3::new();
    let mut files = Vec::with_capacity(job.sources.len());
    for (source, (len, _)) in job.sources.iter().zip(&job.stamps) {
        if *len > MAX_INPUT_BYTES {
            let message = format!("{len} bytes, over the {MAX_INPUT_BYTES}-byte input limit");
            return Err(BakeError::asset(source, message));
        }
        let bytes = std::fs::read(source).map_err(|e| BakeError::io(source, e))?;
        let name = source.file_name().unwrap_or_default().as_encoded_bytes();
        let digest = (xxhash_rust::xxh3::xxh3_64(&bytes), bytes.len() as u64);
        hash_input(&mut content, name, Some(digest));
        files.push(SourceFile {
            path: source.clone(),
            bytes,
        });
    }
    Ok((content, files))
}

/// The sources' content hash completed with the recorded side inputs, read again: equal to
/// the recorded one when nothing the asset read has changed.
fn recorded_content_hash(
    content: &xxhash_rust::xxh3::Xxh3,
    side_inputs: &[PathBuf],
    root: &Path,
) -> u64 {
    let mut recorded = content.clone();
    for side in side_inputs {
        let digest = std::fs::read(side)
            .ok()
            .map(|b| (xxhash_rust::xxh3::xxh3_64(&b), b.len() as u64));
        hash_input(&mut recorded, side_name(root, side), digest);
    }
    recorded.digest()
}

/// Runs `pipeline` on a job's sources: what it recorded, or its error (or panic) as the
/// source's error naming the pipeline. A refused read fails the asset whatever the pipeline
/// made of the error.
fn run_pipeline(
    registry: &Registry,
    job: &Job,
    files: &[SourceFile],
    root: &Path,
) -> Result<Recorded, BakeError> {
    let source = Source {
        rel: &job.rel,
        path: &job.source,
        folder: job.folder,
        files,
    };
    let base = job_base(job);
    let base = base.canonicalize().map_err(|e| BakeError::io(base, e))?;
    let mut cx = BakeContext::new(&job.source, base, root, &job.settings.tables);
    let fail = |message: String| BakeError::asset(&job.source, message);
    let pipeline = registry.get(job.pipeline);
    let name = pipeline.name();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pipeline.bake_dyn(registry, &source, &mut cx)
    }));
    let recorded = cx.finish();
    if let Some(refused) = recorded.refused.first() {
        return Err(fail(format!("pipeline `{name}`: {refused}")));
    }
    match outcome {
        Ok(Ok(())) => Ok(recorded),
        // Errors of side files name them after the source: "a.gltf: pipeline `model`: a.bin: …".
        Ok(Err(error)) => Err(fail(format!("pipeline `{name}`: {error}"))),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(fail(format!("pipeline `{name}` panicked: {message}")))
        }
    }
}

/// The incremental cache's record of a baked asset (or one taken from the shared cache),
/// after checking its outputs' paths.
fn record_asset(
    job: &Job,
    root: &Path,
    mut content: xxhash_rust::xxh3::Xxh3,
    encoder: (String, u32),
    mut recorded: Recorded,
) -> Result<AssetResult<'static>, BakeError> {
    let fail = |message: String| BakeError::asset(&job.source, message);
    let mut seen = BTreeSet::new();
    for output in &recorded.outputs {
        check_output_path(&output.path)
            .map_err(|e| fail(format!("pipeline `{}`: {e}", encoder.0)))?;
        if !seen.insert(output.path.as_str()) {
            return Err(fail(format!(
                "pipeline `{}` emitted `{}` twice",
                encoder.0, output.path
            )));
        }
    }
    recorded.side_inputs.sort_by(|a, b| a.path.cmp(&b.path));
    recorded.side_inputs.dedup_by(|a, b| a.path == b.path);
    let mut stamp = xxhash_rust::xxh3::Xxh3::new();
    let mut source_size = 0;
    for (source, walked) in job.sources.iter().zip(&job.stamps) {
        source_size += stamp_file(&mut stamp, source, Some(*walked));
    }
    for side in &recorded.side_inputs {
        source_size += stamp_side(&mut stamp, &side.path);
        hash_input(&mut content, side_name(root, &side.path), side.digest);
    }
    recorded.tables.sort();
    recorded.tables.dedup();
    recorded.references.sort();
    recorded.references.dedup();
    let outputs = recorded
        .outputs
        .iter()
        .map(|file| CachedOutput {
            path: file.path.clone(),
            size: file.bytes.len() as u64,
            hash: xxhash_rust::xxh3::xxh3_64(&file.bytes),
            manifest: Some((
                hash_runtime_path(&file.path),
                file.kind.0,
                file.color_space as u8,
            )),
            sub_assets: file.sub_assets.clone(),
        })
        .collect();
    let record = CachedAsset {
        rel: job.rel.clone(),
        source_size,
        source_stamp: stamp.digest(),
        source_hash: content.digest(),
        settings: recorded.tables,
        encoder,
        side_inputs: recorded.side_inputs.into_iter().map(|s| s.path).collect(),
        references: recorded.references,
        outputs,
    };
    Ok(AssetResult {
        record: Cow::Owned(record),
        files: recorded.outputs,
        cached: false,
        warnings: recorded.warnings,
        shared: None,
        elapsed: Duration::ZERO,
    })
}

/// Every reference an asset recorded must name an asset of this bake (by its canonical
/// ref's hash); the errors name both ends.
fn check_references(
    jobs: &[Job],
    assets: &[AssetResult],
    keep_going: bool,
) -> Result<(), BakeError> {
    let produced: BTreeSet<u64> = assets
        .iter()
        .flat_map(|a| &a.record.outputs)
        .filter_map(|o| o.manifest.map(|(hash, _, _)| hash))
        .collect();
    let mut dangling = Vec::new();
    for (job, asset) in jobs.iter().zip(assets) {
        for (reference, hash) in &asset.record.references {
            if !produced.contains(hash) {
                let error = BakeError::DanglingReference {
                    file: job.source.clone(),
                    from: job.rel.clone(),
                    reference: reference.clone(),
                };
                if !keep_going {
                    return Err(error);
                }
                dangling.push(error);
            }
        }
    }
    match dangling.len() {
        0 => Ok(()),
        1 => Err(dangling.remove(0)),
        _ => Err(BakeError::Failed(dangling)),
    }
}

/// `assets.hman` from every asset's manifest rows: sorted by hash, identical rows merged,
/// two paths with one hash an error naming both.
fn build_manifest(assets: &[AssetResult]) -> Result<Vec<u8>, BakeError> {
    let mut rows: BTreeMap<u64, ManifestEntry<'_>> = BTreeMap::new();
    for asset in assets {
        for output in &asset.record.outputs {
            let Some((hash, kind, color_space)) = output.manifest else {
                continue;
            };
            let entry = ManifestEntry {
                hash,
                kind: AssetKind(kind),
                color_space: match color_space {
                    1 => ColorSpace::Srgb,
                    _ => ColorSpace::Linear,
                },
                path: &output.path,
            };
            match rows.insert(hash, entry) {
                Some(other) if other.path != output.path => {
                    return Err(BakeError::Collision {
                        message: format!(
                            "`{}` and `{}` have the same asset hash {hash:#018x}; rename one",
                            other.path, output.path
                        ),
                    })
                }
                _ => {}
            }
        }
    }
    let entries: Vec<ManifestEntry<'_>> = rows.into_values().collect();
    if let Some(long) = entries.iter().find(|e| e.path.len() > u16::MAX as usize) {
        return Err(BakeError::asset(
            long.path,
            "runtime path longer than 65535 bytes",
        ));
    }
    Ok(hman::write(&entries))
}

/// One asset's top-level files of one kind that share a stem (a WGSL shader baked to
/// `sprite.wgsl` and `sprite.spv`) are one source's, not a collision: each is named by its
/// file name (`sprite.wgsl`, `sprite.spv`).
fn name_same_stem_siblings<'a>(claims: &mut [NameClaim<'a>]) {
    fn key<'a>(claim: &NameClaim<'a>) -> (&'a str, AssetKind) {
        (crate::bake::names::stem(claim.path), claim.kind)
    }
    let top_level: Vec<usize> = (0..claims.len())
        .filter(|&i| claims[i].parent.is_none() && claims[i].set_name.is_none())
        .collect();
    for &i in &top_level {
        let shared = top_level
            .iter()
            .any(|&j| j != i && key(&claims[j]) == key(&claims[i]));
        if shared {
            let path = claims[i].path;
            claims[i].set_name = Some(path.rsplit('/').next().unwrap_or(path));
        }
    }
}

/// Warns about each source `[content.names]` names that this bake does not bake.
fn warn_unbaked_names(config: &Config, assets: &[AssetResult], warnings: &mut Warnings<'_>) {
    if config.names.is_empty() {
        return;
    }
    let baked: HashSet<&str> = assets.iter().map(|a| a.record.rel.as_str()).collect();
    for source in config.names.keys().filter(|s| !baked.contains(s.as_str())) {
        warnings.push(format!(
            "{}: `content.names` names `{source}`, which no group bakes; ignored",
            config.file.display()
        ));
    }
}

/// The digest of what `assets.hnames` is built from besides the assets' rows: the rules'
/// version and `[content.names]`.
fn names_input(config: &Config) -> u64 {
    /// Bump when `build_names` or `bake::names` would name the same rows differently.
    const NAME_RULES: u32 = 1;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&NAME_RULES.to_le_bytes());
    for (source, name) in &config.names {
        for text in [source, name] {
            hasher.update(&(text.len() as u64).to_le_bytes());
            hasher.update(text.as_bytes());
        }
    }
    hasher.digest()
}

/// `assets.hnames` from every asset's manifest rows, their sub-asset names and
/// `[content.names]` (`bake::names` has the rules). A file an asset bakes under
/// `<dir>/<stem>/`, beside its own `<dir>/<stem>.<ext>` (a model's textures), lives in that
/// file's namespace. A set name naming no baked source is warned about.
fn build_names(
    config: &Config,
    assets: &[AssetResult],
    warnings: &mut Warnings<'_>,
) -> Result<Vec<u8>, BakeError> {
    let mut claims: Vec<NameClaim<'_>> = Vec::new();
    for asset in assets {
        let set_name = config.names.get(&asset.record.rel).map(String::as_str);
        let first = claims.len();
        for output in &asset.record.outputs {
            let Some((hash, kind, _)) = output.manifest else {
                continue;
            };
            claims.push(NameClaim {
                path: &output.path,
                kind: AssetKind(kind),
                hash,
                sub_assets: &output.sub_assets,
                parent: None,
                set_name,
            });
        }
        // This asset's files by path without extension: the candidate parents.
        let mut bases: BTreeMap<&str, usize> = BTreeMap::new();
        for index in first..claims.len() {
            let path = claims[index].path;
            let base = path.rfind('.').map_or(path, |dot| &path[..dot]);
            let kind = claims[index].kind;
            let entry = bases.entry(base).or_insert(index);
            if (kind, path) < (claims[*entry].kind, claims[*entry].path) {
                *entry = index;
            }
        }
        for claim in &mut claims[first..] {
            let path = claim.path;
            // The outermost folder of its path that is a parent's base (so the parent is
            // itself top-level).
            let parent =
                (path.match_indices('/')).find_map(|(slash, _)| bases.get(&path[..slash]).copied());
            if let Some(parent) = parent {
                claim.parent = Some(parent);
                claim.set_name = None;
            }
        }
        name_same_stem_siblings(&mut claims[first..]);
    }
    warn_unbaked_names(config, assets, warnings);
    let rows = assign_names(&claims).map_err(|message| BakeError::Collision {
        message: format!("{}: asset names: {message}", config.file.display()),
    })?;
    let rows: Vec<hnames::NameRow<'_>> = rows
        .iter()
        .map(|row| hnames::NameRow {
            name: &row.name,
            kind: row.kind,
            hash: row.hash,
            path: &row.path,
            sub: row.sub,
        })
        .collect();
    Ok(hnames::write(&rows))
}
