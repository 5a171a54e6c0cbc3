//! One bake split across machines: which shard an asset belongs to, and which shard this
//! machine is (guide: [scaling out](crate::guide::scaling_out)).
//!
//! A shard bake ([`Baker::shard`](crate::bake::Baker::shard), `hearth bake --shard K/N`)
//! plans the whole manifest, bakes only its own assets and stores them in the shared cache;
//! one assemble step ([`Baker::require_hits`](crate::bake::Baker::require_hits), `hearth bake
//! --require-hits`) then writes the output from cache hits alone.
//!
//! # The partition
//! Every machine computes the same partition from the manifest and the sources alone: each
//! asset is keyed by its source path relative to the content root and its cost, never by an
//! absolute path or a hash map's order. The cost is the asset's source bytes by default, or
//! the seconds an earlier bake's `--timings` recorded for it ([`Balance`]); assets are then
//! dealt longest first, each to the shard with the least cost so far (the lowest-numbered
//! one on a tie), ties between assets broken by path. Shards are disjoint and together hold
//! every asset. An asset is never split: a large model's textures stay in its shard.
//!
//! ```
//! use hearth::bake::shard::{Partition, Shard};
//!
//! let costs = [("a.png", 30.0), ("b.png", 20.0), ("c.png", 10.0), ("d.png", 10.0)];
//! let partition = Partition::new(costs.iter().map(|(p, c)| (p.to_string(), *c)), 2);
//! assert_eq!(partition.shard_of("a.png"), Some(1));
//! let second: Vec<&str> = partition.assets_of(2).map(|a| a.path.as_str()).collect();
//! assert_eq!(second, ["b.png", "c.png"]);
//! assert_eq!(Shard::parse("2/2").unwrap(), Shard::new(2, 2).unwrap());
//! ```

use crate::bake::timings::TaskTime;
use std::collections::{BTreeMap, BinaryHeap};

/// The variable that names this machine's shard as `K/N` (checked first by [`Shard::from_env`]).
pub const ENV_SHARD: &str = "HEARTH_SHARD";
/// The variable that gives the number of shards when a scheduler gives only the index.
pub const ENV_SHARDS: &str = "HEARTH_SHARDS";

/// Where schedulers put a task's index: (variable, whether it counts from 0, the variable of
/// the count when the scheduler gives one reliably).
const INDEX_VARS: [(&str, bool, Option<&str>); 5] = [
    // Kubernetes Indexed Jobs.
    ("JOB_COMPLETION_INDEX", true, None),
    // Slurm job arrays, submitted as `--array=1-N` (a task resubmitted alone sees
    // SLURM_ARRAY_TASK_COUNT=1, so the count comes from HEARTH_SHARDS).
    ("SLURM_ARRAY_TASK_ID", false, None),
    // GitLab `parallel` (1-based).
    ("CI_NODE_INDEX", false, Some("CI_NODE_TOTAL")),
    // CircleCI `parallelism` (0-based).
    ("CIRCLE_NODE_INDEX", true, Some("CIRCLE_NODE_TOTAL")),
    // Buildkite `parallelism` (0-based).
    (
        "BUILDKITE_PARALLEL_JOB",
        true,
        Some("BUILDKITE_PARALLEL_JOB_COUNT"),
    ),
];

/// One shard of a bake: shard `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Shard `index` of `count`; the error says why when not `1 <= index <= count`.
    pub fn new(index: usize, count: usize) -> Result<Self, String> {
        match (1..=count).contains(&index) {
            true => Ok(Self { index, count }),
            false if count == 0 => Err("the number of shards must be at least 1".into()),
            false => Err(format!(
                "shard {index} of {count}: the index must be from 1 to {count}"
            )),
        }
    }

    /// `K/N`, as `hearth bake --shard` and `HEARTH_SHARD` take it.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?}: expected K/N, shard K (from 1) of N");
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k = k.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Self::new(k, n)
    }

    /// The shard a scheduler's environment names (`--shard auto`), read through `var`:
    /// `HEARTH_SHARD=K/N`; else the index from Kubernetes (`JOB_COMPLETION_INDEX`, from 0),
    /// Slurm (`SLURM_ARRAY_TASK_ID`, from 1: submit `--array=1-N`), GitLab (`CI_NODE_INDEX`,
    /// from 1), CircleCI (`CIRCLE_NODE_INDEX`, from 0) or Buildkite (`BUILDKITE_PARALLEL_JOB`,
    /// from 0), and the count from `HEARTH_SHARDS` (else GitLab's, CircleCI's or Buildkite's
    /// own total). The error names the variables it looked for.
    ///
    /// ```
    /// use hearth::bake::shard::Shard;
    ///
    /// let env = |name: &str| match name {
    ///     "SLURM_ARRAY_TASK_ID" => Some("3".to_owned()),
    ///     "HEARTH_SHARDS" => Some("4".to_owned()),
    ///     _ => None,
    /// };
    /// assert_eq!(Shard::from_env(env).unwrap(), Shard::new(3, 4).unwrap());
    /// ```
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if let Some(text) = var(ENV_SHARD) {
            return Self::parse(&text).map_err(|e| format!("{ENV_SHARD}={e}"));
        }
        let Some((name, from_zero, total, value)) = INDEX_VARS
            .iter()
            .find_map(|&(name, zero, total)| var(name).map(|v| (name, zero, total, v)))
        else {
            let names: Vec<&str> = INDEX_VARS.iter().map(|v| v.0).collect();
            return Err(format!(
                "--shard auto: no shard index in the environment (looked for {ENV_SHARD}, {})",
                names.join(", ")
            ));
        };
        let index: usize = value
            .trim()
            .parse()
            .map_err(|_| format!("{name}={value:?}: not a shard index"))?;
        let count_var = match var(ENV_SHARDS) {
            Some(count) => Some((ENV_SHARDS, count)),
            None => total.and_then(|t| var(t).map(|count| (t, count))),
        };
        let Some((count_name, count)) = count_var else {
            return Err(format!(
                "--shard auto: {name}={value} gives the index; set {ENV_SHARDS} to the number \
                 of shards (schedulers do not reliably give it)"
            ));
        };
        let count: usize = count
            .trim()
            .parse()
            .map_err(|_| format!("{count_name}={count:?}: not a number of shards"))?;
        let index = index + from_zero as usize;
        Self::new(index, count).map_err(|e| format!("{name}={value}, {count_name}={count}: {e}"))
    }

    /// The shard's number, from 1.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many shards the bake is split into.
    pub fn count(&self) -> usize {
        self.count
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What a partition's costs measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostUnit {
    /// Source bytes (the estimate).
    Bytes,
    /// Seconds an earlier bake recorded ([`Balance`]); unlisted assets are estimated from
    /// their source bytes at the recorded seconds per byte.
    Seconds,
}

impl CostUnit {
    /// `"bytes"` or `"seconds"`.
    pub fn name(self) -> &'static str {
        match self {
            CostUnit::Bytes => "bytes",
            CostUnit::Seconds => "seconds",
        }
    }
}

/// Recorded seconds per asset, from an earlier bake's `--timings`
/// ([`Report::tasks`](crate::bake::Report::tasks)): `--balance TIMINGS.json`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Balance {
    seconds: BTreeMap<String, f64>,
}

impl Balance {
    /// Each asset's seconds: the sum of its tasks' (its job and its slices).
    pub fn from_tasks(tasks: &[TaskTime]) -> Self {
        let mut seconds = BTreeMap::new();
        for task in tasks {
            *seconds.entry(task.asset.clone()).or_insert(0.0) += task.elapsed.as_secs_f64();
        }
        Self { seconds }
    }

    /// The seconds recorded for the asset at `path` (relative to the content root).
    pub fn seconds(&self, path: &str) -> Option<f64> {
        self.seconds.get(path).copied()
    }
}

/// Each asset's cost: `(path, source bytes)` become bytes, or with `balance` seconds.
pub(crate) fn costs<'a>(
    assets: impl Iterator<Item = (&'a str, u64)> + Clone,
    balance: Option<&Balance>,
) -> (Vec<(String, f64)>, CostUnit) {
    let Some(balance) = balance else {
        let costs = assets.map(|(p, b)| (p.to_owned(), b as f64)).collect();
        return (costs, CostUnit::Bytes);
    };
    // Seconds per byte of the assets the timings list (in path order: the same sum on every
    // machine), else a megabyte a second.
    let (mut seconds, mut bytes) = (0.0, 0.0);
    for (path, size) in assets.clone() {
        if let Some(s) = balance.seconds(path) {
            seconds += s;
            bytes += size as f64;
        }
    }
    let rate = match seconds > 0.0 && bytes > 0.0 {
        true => seconds / bytes,
        false => 1e-6,
    };
    let costs = assets
        .map(|(path, size)| {
            let cost = balance.seconds(path).unwrap_or(size as f64 * rate);
            (path.to_owned(), cost)
        })
        .collect();
    (costs, CostUnit::Seconds)
}

/// One asset of a partition.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardAsset {
    /// Its source path relative to the content root.
    pub path: String,
    /// Its cost (see [`Partition::unit`]).
    pub cost: f64,
    /// Its shard, from 1.
    pub shard: usize,
}

/// Every asset of a bake, each in one of `shards` shards.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    shards: usize,
    unit: CostUnit,
    /// In path order.
    assets: Vec<ShardAsset>,
}

/// A shard's load in the dealing heap: least cost first, then lowest index.
#[derive(PartialEq)]
struct Load(f64, usize);
impl Eq for Load {}
impl PartialOrd for Load {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Load {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: the heap pops the greatest, which is the least loaded.
        (other.0.total_cmp(&self.0)).then(other.1.cmp(&self.1))
    }
}

impl Partition {
    /// Deals `assets` (path, cost) into `shards` shards (at least 1), longest first. The
    /// result depends only on the paths and costs, not on their order. Costs are bytes.
    pub fn new(assets: impl IntoIterator<Item = (String, f64)>, shards: usize) -> Self {
        Self::with_unit(assets, shards, CostUnit::Bytes)
    }

    pub(crate) fn with_unit(
        assets: impl IntoIterator<Item = (String, f64)>,
        shards: usize,
        unit: CostUnit,
    ) -> Self {
        let shards = shards.max(1);
        let mut assets: Vec<ShardAsset> = assets
            .into_iter()
            .map(|(path, cost)| ShardAsset {
                path,
                cost: if cost.is_finite() { cost.max(0.0) } else { 0.0 },
                shard: 0,
            })
            .collect();
        assets.sort_by(|a, b| a.path.cmp(&b.path));
        let mut order: Vec<usize> = (0..assets.len()).collect();
        // Longest first; equal costs in path order (`assets` is in path order, the sort stable).
        order.sort_by(|&a, &b| assets[b].cost.total_cmp(&assets[a].cost));
        let mut heap: BinaryHeap<Load> = (1..=shards).map(|k| Load(0.0, k)).collect();
        for i in order {
            let Load(load, k) = heap.pop().expect("at least one shard");
            assets[i].shard = k;
            heap.push(Load(load + assets[i].cost, k));
        }
        Self {
            shards,
            unit,
            assets,
        }
    }

    /// The number of shards.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// What the costs measure.
    pub fn unit(&self) -> CostUnit {
        self.unit
    }

    /// Every asset, in path order.
    pub fn assets(&self) -> &[ShardAsset] {
        &self.assets
    }

    /// Shard `k`'s assets, in path order.
    pub fn assets_of(&self, k: usize) -> impl Iterator<Item = &ShardAsset> {
        self.assets.iter().filter(move |a| a.shard == k)
    }

    /// The shard of the asset at `path`, if the partition has it.
    pub fn shard_of(&self, path: &str) -> Option<usize> {
        self.assets
            .binary_search_by(|a| a.path.as_str().cmp(path))
            .ok()
            .map(|i| self.assets[i].shard)
    }

    /// Shard `k`'s total cost.
    pub fn cost_of(&self, k: usize) -> f64 {
        self.assets_of(k).map(|a| a.cost).sum()
    }
}

/// An asset the caches do not hold ([`BakeError::Missing`](crate::bake::BakeError::Missing)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingAsset {
    /// Its source path relative to the content root.
    pub path: String,
    /// The shard that should have stored it, when the bake knew the partition
    /// ([`Baker::shards`](crate::bake::Baker::shards)).
    pub shard: Option<Shard>,
}

impl std::fmt::Display for MissingAsset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.shard {
            Some(shard) => write!(f, "{} (shard {shard})", self.path),
            None => f.write_str(&self.path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn every_scheduler_s_index_and_the_count() {
        let shard = |pairs: &[(&str, &str)]| Shard::from_env(env(pairs));
        let two_of_four = Ok(Shard::new(2, 4).unwrap());
        assert_eq!(shard(&[("HEARTH_SHARD", "2/4")]), two_of_four);
        for (var, value) in [
            ("JOB_COMPLETION_INDEX", "1"),
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("CI_NODE_INDEX", "2"),
            ("CIRCLE_NODE_INDEX", "1"),
            ("BUILDKITE_PARALLEL_JOB", "1"),
        ] {
            assert_eq!(shard(&[(var, value), ("HEARTH_SHARDS", "4")]), two_of_four);
        }
        assert_eq!(
            shard(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "4")]),
            two_of_four
        );
        let none = shard(&[]).unwrap_err();
        assert!(none.contains("SLURM_ARRAY_TASK_ID") && none.contains("JOB_COMPLETION_INDEX"));
        let no_count = shard(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(no_count.unwrap_err().contains("HEARTH_SHARDS"));
        let over = shard(&[("SLURM_ARRAY_TASK_ID", "5"), ("HEARTH_SHARDS", "4")]);
        assert!(over.unwrap_err().contains("SLURM_ARRAY_TASK_ID=5"));
        assert!(shard(&[("HEARTH_SHARD", "0/4")]).is_err());
        assert!(Shard::parse("x").is_err() && Shard::parse("1/0").is_err());
    }

    #[test]
    fn shards_are_disjoint_cover_everything_and_ignore_input_order() {
        let assets: Vec<(String, f64)> = (0..50)
            .map(|i| (format!("a/{i:02}.png"), ((i * 37) % 11) as f64))
            .collect();
        for n in 1..=9 {
            let partition = Partition::new(assets.clone(), n);
            let reversed = Partition::new(assets.iter().rev().cloned(), n);
            assert_eq!(partition, reversed);
            let total: usize = (1..=n).map(|k| partition.assets_of(k).count()).sum();
            assert_eq!(total, assets.len());
            let max = (1..=n).map(|k| partition.cost_of(k)).fold(0.0, f64::max);
            let min = (1..=n)
                .map(|k| partition.cost_of(k))
                .fold(f64::MAX, f64::min);
            assert!(max - min <= 10.0, "n = {n}: {min}..{max}");
        }
    }

    #[test]
    fn balance_uses_recorded_seconds_and_estimates_the_rest() {
        use std::time::Duration;
        let task = |asset: &str, secs: u64| TaskTime {
            name: asset.into(),
            asset: asset.into(),
            start: Duration::ZERO,
            elapsed: Duration::from_secs(secs),
            thread: 0,
        };
        let balance = Balance::from_tasks(&[task("a", 4), task("a", 2), task("b", 2)]);
        let assets = [("a", 100u64), ("b", 100), ("c", 50)];
        let (costs, unit) = costs(assets.iter().copied(), Some(&balance));
        assert_eq!(unit, CostUnit::Seconds);
        assert_eq!(costs[0], ("a".into(), 6.0));
        // c: 50 bytes at (8 s / 200 bytes).
        assert_eq!(costs[2], ("c".into(), 2.0));
    }
}
