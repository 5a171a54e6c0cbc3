//! One bake on many machines: a shard bakes its share of the assets into the shared cache
//! ([`Baker::shard`]), and one assemble step writes the output from cache hits alone
//! ([`Baker::require_hits`]). See [`crate::bake::shard`] for the partition.

use super::handoff::Planned;
use super::job::JobResult;
use super::outcome::Report;
use super::warnings::Warnings;
use super::{Baker, SharedSetup};
use crate::bake::cache::Cache;
use crate::bake::error::BakeError;
use crate::bake::manifest::Config;
use crate::bake::output::PreviousOutputs;
use crate::bake::plan::{plan, Plan};
use crate::bake::shard::{self, Balance, MissingAsset, Partition, Shard};
use crate::bake::shared_cache::{self, Mode, SharedCache, SharedCacheConfig, TierKind};
use std::path::{Path, PathBuf};
use std::time::Instant;

impl Baker {
    /// Bakes shard `index` (from 1) of `count` only: [`run`](Self::run) plans the whole
    /// manifest, bakes the assets of this shard (see [`crate::bake::shard`] for the
    /// partition) that the shared cache lacks and stores them there. It writes no output
    /// folder and no pack: an assemble step ([`require_hits`](Self::require_hits)) does.
    ///
    /// A shard needs a cache every machine reaches: a remote tier, or a local tier the
    /// configuration names (`HEARTH_CACHE_DIR` on a shared file system), in read-write
    /// mode. Without one, or when a tier cannot be reached or refuses a write, the run
    /// fails with [`BakeError::Shard`]: a shard that bakes into nowhere is worse than a red job.
    ///
    /// ```no_run
    /// use hearth::bake::shared_cache::SharedCacheConfig;
    /// use hearth::bake::Baker;
    ///
    /// let cache = SharedCacheConfig {
    ///     remote_url: Some("s3://studio-bake-cache/game".into()),
    ///     ..SharedCacheConfig::default()
    /// };
    /// let report = Baker::new("assets/hearth.toml", "unused")
    ///     .shared_cache(cache)
    ///     .shard(2, 8)
    ///     .run()?;
    /// println!("shard 2/8: {} assets, {} baked", report.assets, report.baked.len());
    /// # Ok::<(), hearth::bake::BakeError>(())
    /// ```
    pub fn shard(&mut self, index: usize, count: usize) -> &mut Self {
        self.shard = Some((index, count));
        self
    }

    /// The number of shards the assets were baked in, for an assemble step
    /// ([`require_hits`](Self::require_hits)): each missing asset then names its shard.
    pub fn shards(&mut self, count: usize) -> &mut Self {
        self.shards = Some(count.max(1));
        self
    }

    /// Partitions by the seconds an earlier bake recorded (`--timings`) instead of source
    /// bytes: [`Balance::from_tasks`] of its [`Report::tasks`]. Every shard and the assemble
    /// step must be given the same timings.
    ///
    /// ```no_run
    /// use hearth::bake::{shard::Balance, Baker};
    ///
    /// let timed = Baker::new("assets/hearth.toml", "target/assets")
    ///     .record_timings(true)
    ///     .run()?;
    /// let partition = Baker::new("assets/hearth.toml", "target/assets")
    ///     .balance(Balance::from_tasks(&timed.tasks))
    ///     .partition(8)?;
    /// for k in 1..=8 {
    ///     println!("shard {k}: {:.1} s", partition.cost_of(k));
    /// }
    /// # Ok::<(), hearth::bake::BakeError>(())
    /// ```
    pub fn balance(&mut self, balance: Balance) -> &mut Self {
        self.balance = Some(balance);
        self
    }

    /// Bakes from the caches only (the assemble step of a sharded bake): when the incremental
    /// and shared caches lack any asset, [`run`](Self::run) fails with
    /// [`BakeError::Missing`], naming every missing asset (and its shard, with
    /// [`shards`](Self::shards)), before anything is written. No pipeline runs.
    ///
    /// ```no_run
    /// use hearth::bake::{BakeError, Baker};
    ///
    /// let mut baker = Baker::new("assets/hearth.toml", "target/assets");
    /// baker.shared_cache_from_env().require_hits(true).shards(8);
    /// match baker.run() {
    ///     Ok(report) => assert!(report.baked.is_empty()),
    ///     Err(BakeError::Missing(assets)) => {
    ///         for asset in assets {
    ///             eprintln!("missing {asset}"); // "textures/rock.png (shard 3/8)"
    ///         }
    ///     }
    ///     Err(other) => return Err(other),
    /// }
    /// # Ok::<(), hearth::bake::BakeError>(())
    /// ```
    pub fn require_hits(&mut self, require: bool) -> &mut Self {
        self.require_hits = require;
        self
    }

    /// The partition of this bake's assets into `shards` shards, as every shard computes it:
    /// plans the manifest (nothing is baked or written). `hearth bake --shard K/N --list`.
    pub fn partition(&self, shards: usize) -> Result<Partition, BakeError> {
        let mut warnings = Warnings::new(self.on_warning.as_ref());
        let config = self.resolve_settings(&mut warnings)?;
        let target = self.resolve_output(&config)?;
        let plan = plan(
            &config,
            &self.registry,
            target.preset,
            Some(&target.out_dir),
        )?;
        warnings.extend(plan.warnings.iter().cloned());
        Ok(self.partition_of(&plan, shards))
    }

    fn partition_of(&self, plan: &Plan, shards: usize) -> Partition {
        let sizes = plan.jobs.iter().map(|job| {
            (
                job.rel.as_str(),
                job.stamps.iter().map(|s| s.0).sum::<u64>(),
            )
        });
        let (costs, unit) = shard::costs(sizes, self.balance.as_ref());
        Partition::with_unit(costs, shards, unit)
    }

    /// [`run`](Self::run) of a shard: plan, keep this shard's jobs, bake what the shared
    /// cache lacks into it, and report. Nothing is written but the cache.
    pub(super) fn run_shard(&self, (index, count): (usize, usize)) -> Result<Report, BakeError> {
        let started = Instant::now();
        let shard = Shard::new(index, count).map_err(|message| BakeError::Shard {
            shard: format!("{index}/{count}"),
            message,
        })?;
        let fail = |message: String| BakeError::Shard {
            shard: shard.to_string(),
            message,
        };
        let mut warnings = Warnings::new(self.on_warning.as_ref());
        let config = self.resolve_settings(&mut warnings)?;
        let target = self.resolve_output(&config)?;
        // Before the walk: a shard with nowhere to store fails at once.
        let cache = self.shard_cache(&config).map_err(fail)?;
        let mut plan = plan(
            &config,
            &self.registry,
            target.preset,
            Some(&target.out_dir),
        )?;
        warnings.extend(plan.warnings.iter().cloned());
        let partition = self.partition_of(&plan, count);
        plan.jobs
            .retain(|job| partition.shard_of(&job.rel) == Some(index));
        let planned = Planned {
            plan,
            old_cache: Cache::default(),
            previous: None,
            outputs: PreviousOutputs::default(),
            shared: Some(cache),
        };
        let (results, _pool, tasks) = self.execute(&planned)?;
        let cache = planned.shared.as_ref().expect("opened above");
        warnings.extend(cache.take_notes());
        if let Some(failure) = cache.failure() {
            return Err(fail(format!("{failure}; what it baked may not be stored")));
        }
        let mut report = Report {
            assets: planned.plan.jobs.len(),
            shard: Some(shard),
            tasks,
            ..Report::default()
        };
        let mut errors = Vec::new();
        for (result, job) in results.into_iter().zip(&planned.plan.jobs) {
            let asset = match result {
                Ok(asset) => asset,
                Err(error) if self.keep_going => {
                    errors.push(error);
                    continue;
                }
                Err(error) => return Err(error),
            };
            warnings.extend(asset.warnings.iter().cloned());
            let rel = asset.record.rel.clone();
            match asset.shared {
                Some(TierKind::Local) => report.shared_local_hits.push(rel),
                Some(TierKind::Remote) => report.shared_remote_hits.push(rel),
                None => {
                    if !asset.stored {
                        let why = "baked, but cannot be stored in the shared cache (it reads a \
                                   file outside the content root, or one that changed during \
                                   the bake)";
                        errors.push(BakeError::asset(&job.source, why.to_owned()));
                    }
                    report.baked.push(rel);
                }
            }
            report.bytes_in += asset.record.source_size;
        }
        match errors.len() {
            0 => {}
            1 => return Err(errors.remove(0)),
            _ => return Err(BakeError::Failed(errors)),
        }
        report.shared_stored = cache.stored.load(std::sync::atomic::Ordering::Relaxed);
        report.warnings = warnings.list;
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// The shared cache a shard stores into: one every machine reaches, in read-write mode,
    /// whose remote tier answers. The error says what is missing or which tier failed.
    fn shard_cache(&self, config: &Config) -> Result<SharedCache, String> {
        let none = "a shard needs a shared cache to store into: a remote tier \
                    (HEARTH_CACHE_URL, or the manifest's `[cache] remote`) or a local tier on a \
                    file system every machine shares (HEARTH_CACHE_DIR)";
        let settings = match &self.shared {
            SharedSetup::Off => return Err(none.to_owned()),
            SharedSetup::Given(settings) => settings.clone(),
            SharedSetup::FromEnv => {
                let mut settings = SharedCacheConfig::from_env(config.cache_remote.as_deref())?;
                // The user cache folder is this machine's alone: not a place to store a shard.
                if std::env::var_os(shared_cache::ENV_DIR).is_none_or(|v| v.is_empty()) {
                    settings.local_dir = None;
                }
                settings
            }
        };
        match settings.mode {
            Mode::ReadWrite => {}
            Mode::Read => {
                return Err(format!(
                    "{}=read: a shard must store",
                    shared_cache::ENV_MODE
                ))
            }
            Mode::Off => return Err(format!("{}=off; {none}", shared_cache::ENV_MODE)),
        }
        if settings.local_dir.is_none() && settings.remote_url.is_none() {
            return Err(none.to_owned());
        }
        let (cache, problems) = SharedCache::open(&settings);
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        let cache = cache.ok_or_else(|| none.to_owned())?;
        cache.probe()?;
        Ok(cache)
    }

    /// With [`require_hits`](Self::require_hits): every asset no cache held, each with its
    /// shard when the partition is known, as one error (`None` when all were hits).
    pub(super) fn missing(
        &self,
        planned: &Planned,
        results: &[JobResult<'_>],
    ) -> Option<BakeError> {
        let mut missing: Vec<MissingAsset> = results
            .iter()
            .filter_map(|result| match result {
                Err(BakeError::Missing(assets)) => Some(assets.iter().cloned()),
                _ => None,
            })
            .flatten()
            .collect();
        if missing.is_empty() {
            return None;
        }
        if let Some(count) = self.shards {
            let partition = self.partition_of(&planned.plan, count);
            for asset in &mut missing {
                asset.shard =
                    (partition.shard_of(&asset.path)).and_then(|k| Shard::new(k, count).ok());
            }
        }
        Some(BakeError::Missing(missing))
    }
}

/// The outermost folder on the way to `dir` that does not exist yet (what creating `dir`
/// creates), or `None` when `dir` exists.
pub(super) fn first_missing_folder(dir: &Path) -> Option<PathBuf> {
    let mut missing = None;
    let mut at = Some(dir);
    while let Some(path) = at.filter(|p| !p.as_os_str().is_empty()) {
        if path.symlink_metadata().is_ok() {
            break;
        }
        missing = Some(path.to_path_buf());
        at = path.parent();
    }
    missing
}
