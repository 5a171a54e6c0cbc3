//! What one phase of a bake hands the next: the plan phase's [`Planned`] and the settled
//! results the write phase writes ([`Settled`]).

use super::job::AssetResult;
use crate::bake::cache::Cache;
use crate::bake::output::PreviousOutputs;
use crate::bake::plan::{Job, Plan};
use crate::bake::shared_cache::SharedCache;
use std::borrow::Cow;

/// What the plan phase found: the jobs, and what the caches and the output tree hold.
pub(super) struct Planned {
    pub(super) plan: Plan,
    /// The incremental cache (empty with the cache off).
    pub(super) old_cache: Cache,
    /// The previous bake's record when the cache is off (read anyway: its stale outputs
    /// go); with the cache on it is `old_cache`. See [`Planned::previous`].
    pub(super) previous: Option<Cache>,
    /// Where the previous bake's outputs are: the output tree's files, or a pack-only bake's
    /// previous pack.
    pub(super) outputs: PreviousOutputs,
    pub(super) shared: Option<SharedCache>,
}

impl Planned {
    /// The previous bake's record, whether the cache is on or off.
    pub(super) fn previous(&self) -> &Cache {
        self.previous.as_ref().unwrap_or(&self.old_cache)
    }
}

/// The assets a settled bake writes, with everything the write phase needs to know.
pub(super) struct Settled<'p> {
    pub(super) assets: Vec<AssetResult<'p>>,
    /// The jobs of `assets`, index for index.
    pub(super) jobs: Cow<'p, [Job]>,
    /// With [`Baker::keep_last_good`](crate::bake::Baker::keep_last_good): the assets that failed,
    /// each with its error.
    pub(super) failed: Vec<(String, String)>,
    /// Nothing re-baked and the same assets as last time.
    pub(super) unchanged: bool,
    /// `assets.hman`, unless `unchanged` (then the one on disk stands).
    pub(super) built_manifest: Option<Vec<u8>>,
    /// `assets.hnames`, unless the one on disk stands (see `Baker::settle`).
    pub(super) names: Option<Vec<u8>>,
    /// What `names` is built from besides the assets (see
    /// [`Cache::names_input`](crate::bake::cache::Cache::names_input)).
    pub(super) names_input: u64,
}
