//! [`Baker`]: manifest -> plan -> pipelines (parallel, cached) -> runtime tree, `assets.hman`
//! and the `.hpack`.

use crate::bake::cache::{Cache, CachedPack};
use crate::bake::error::BakeError;
use crate::bake::manifest::{check_preset_output, Config, Preset};
use crate::bake::output::{no_symlink_on_way, open_previous_pack, Durability};
use crate::bake::pack::{self, PackFile};
use crate::bake::pipeline::{Pipeline, Registry};
use crate::bake::plan::{plan, Job};
use crate::bake::shard::Balance;
use crate::bake::shared_cache::{SharedCache, SharedCacheConfig, TierKind};
use crate::bake::signing::SigningKey;
use crate::bake::timings::{self, TaskTime};
use crate::bake::transaction::Transaction;
use crate::format::hman::{self, MANIFEST_PATH};
use crate::format::hnames::NAMES_PATH;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

mod bookkeeping;
mod distributed;
mod handoff;
mod job;
mod outcome;
mod pack_entries;
mod staging;
mod warnings;

use bookkeeping::*;
use distributed::first_missing_folder;
use handoff::*;
use job::*;
use outcome::ProgressFn;
pub use outcome::{AssetTime, Progress, Report};
use pack_entries::*;
use staging::*;
use warnings::*;

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
    /// [`Baker::shard`]: (index, count), checked by [`Baker::run`].
    shard: Option<(usize, usize)>,
    /// [`Baker::shards`]: the partition missing assets are named by.
    shards: Option<usize>,
    balance: Option<Balance>,
    require_hits: bool,
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
            shard: None,
            shards: None,
            balance: None,
            require_hits: false,
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
    ///
    /// With [`Baker::shard`], bakes one shard into the shared cache instead and writes no
    /// output; with [`Baker::require_hits`], fails with [`BakeError::Missing`] before writing
    /// anything when a cache lacks an asset.
    pub fn run(&self) -> Result<Report, BakeError> {
        if let Some(shard) = self.shard {
            return self.run_shard(shard);
        }
        let started = Instant::now();
        let mut warnings = Warnings::new(self.on_warning.as_ref());
        let config = self.resolve_settings(&mut warnings)?;
        let target = self.resolve_output(&config)?;
        // An assemble that finds an asset missing leaves no output folder it created.
        let created = match self.require_hits {
            true => first_missing_folder(&target.out_dir),
            false => None,
        };
        let result = self.run_locked(&config, &target, warnings);
        if let (Some(created), Err(BakeError::Missing(_))) = (created, &result) {
            std::fs::remove_dir_all(created).ok();
        }
        let mut report = result?;
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// [`Baker::run`] from the lock on.
    fn run_locked(
        &self,
        config: &Config,
        target: &Target<'_>,
        mut warnings: Warnings<'_>,
    ) -> Result<Report, BakeError> {
        let mut held = lock_and_recover(&target.out_dir, &mut warnings)?;
        let planned = self.plan(config, target, &mut warnings)?;
        let (results, pool, tasks) = self.execute(&planned)?;
        let settled = self.settle(config, &planned, results, &mut warnings)?;
        let mut report = self.write(
            config,
            target,
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
        let lookups = self.use_cache || self.require_hits;
        planned.shared.as_ref().map(|cache| (cache, lookups))
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
                            (index, job, self.require_hits),
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
        if self.require_hits {
            if let Some(missing) = self.missing(planned, &results) {
                return Err(missing);
            }
        }
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
        // The previous pack, to copy unchanged entries from: a pack-only bake has it open; a
        // tree bake opens the one the cache recorded, when it is still there as recorded.
        let version = match self.signing_key {
            Some(_) => 5,
            None => config.pack_version,
        };
        let recorded = planned.old_cache.pack.as_ref();
        let opened = match planned.outputs.pack {
            Some(_) => None,
            None => recorded
                .filter(|old| old.file == pack_file_name(config))
                .and_then(|old| open_previous_pack(&report.out_dir.join(&old.file), old.size).ok())
                .flatten(),
        };
        let previous = planned.outputs.pack.as_ref().or(opened.as_ref());
        let reused = pool.install(|| reusable_entries(previous, recorded, version, &entries));
        report.pack_entries_copied = reused.iter().flatten().count();
        let sources = pack_entry_bytes(
            &entries,
            assets,
            [manifest_bytes, names_bytes],
            &report.out_dir,
            // Only a pack-only bake reads cached outputs out of the previous pack.
            planned.outputs.pack.as_ref(),
            &reused,
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
        // Laid out, not joined: the parts (copied entries straight from the previous pack's
        // mapping) are written one after another.
        let key = self.signing_key.as_ref();
        let encoded = pool.install(|| pack::encode_reusing(&files, &reused));
        let layout = pool.install(|| pack::layout_reusing(version, key, &files, &encoded, &reused));
        let parts: Vec<&[u8]> = layout.parts().collect();
        report.files_written +=
            transaction.put_parts(&pack_file_name(config), &parts, Durability::Durable)? as usize;
        let size = layout.len();
        report.pack_bytes = size;
        Ok(CachedPack {
            fingerprint,
            size,
            file: pack_file_name(config),
            version,
            entries: entry_keys(&entries),
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
