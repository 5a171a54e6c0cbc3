//! One asset's job: its cache keys (stamps and content hash), a cache hit or a pipeline run,
//! and the record the cache keeps of it.

use crate::bake::cache::{Cache, CachedAsset, CachedOutput};
use crate::bake::error::BakeError;
use crate::bake::output::PreviousOutputs;
use crate::bake::pipeline::{
    check_output_path, BakeContext, Output, Recorded, Registry, Source, SourceFile, MAX_INPUT_BYTES,
};
use crate::bake::plan::{mtime_ns, Job};
use crate::bake::settings;
use crate::bake::shard::MissingAsset;
use crate::bake::shared_cache::{self, SharedCache, TierKind};
use crate::format::hash::hash_runtime_path;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One job's outcome. A cache hit borrows its record from the loaded cache (`'c`): cloning
/// 10k records was a tenth of a no-op re-bake.
pub(super) struct AssetResult<'c> {
    pub(super) record: Cow<'c, CachedAsset>,
    /// Files baked this time (empty for cache hits, whose files are already on disk).
    pub(super) files: Vec<Output>,
    pub(super) cached: bool,
    pub(super) warnings: Vec<String>,
    /// The shared cache's tier the outputs came from.
    pub(super) shared: Option<TierKind>,
    /// Baked and offered to the shared cache's tiers.
    pub(super) stored: bool,
    /// Wall time of the job.
    pub(super) elapsed: Duration,
}

impl<'c> AssetResult<'c> {
    /// An asset whose outputs, already on disk, are still current: `record` stands.
    pub(super) fn cached(record: Cow<'c, CachedAsset>) -> Self {
        Self {
            record,
            files: Vec::new(),
            cached: true,
            warnings: Vec::new(),
            shared: None,
            stored: false,
            elapsed: Duration::ZERO,
        }
    }
}

/// Whether a hit's record is `old`: the same record (borrowed from the cache) or an equal one.
pub(super) fn same_record(record: &CachedAsset, old: &CachedAsset) -> bool {
    std::ptr::eq(record, old) || record == old
}

/// One job's outcome, from the execute phase.
pub(super) type JobResult<'c> = Result<AssetResult<'c>, BakeError>;

/// One side input's contribution to the fast-path stamp: like a source's, or a marker when it
/// cannot be stat-ed (a side file the bake looked for and did not find is an input too).
pub(super) fn stamp_side(stamp: &mut xxhash_rust::xxh3::Xxh3, path: &Path) -> u64 {
    let meta = std::fs::metadata(path).ok();
    stamp_file(stamp, path, meta.map(|m| (m.len(), mtime_ns(&m))))
}

/// One input's contribution to the fast-path stamp: its path, size and mtime (the walk's, for
/// sources), or a marker when it is missing.
pub(super) fn stamp_file(
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
pub(super) fn hash_input(
    content: &mut xxhash_rust::xxh3::Xxh3,
    name: &[u8],
    digest: Option<(u64, u64)>,
) {
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
pub(super) fn side_name<'a>(base: &Path, path: &'a Path) -> &'a [u8] {
    path.strip_prefix(base)
        .unwrap_or(path)
        .as_os_str()
        .as_encoded_bytes()
}

/// The folder a job's side files resolve against.
pub(super) fn job_base(job: &Job) -> &Path {
    match job.folder {
        true => &job.source,
        false => job.source.parent().unwrap_or(Path::new(".")),
    }
}

/// Bakes one job, or proves from the cache that its outputs are current. With `require_hit`,
/// an asset no cache holds is [`BakeError::Missing`] instead of baked.
pub(super) fn bake_one<'c>(
    (index, job, require_hit): (usize, &Job, bool),
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

    if require_hit {
        let missing = MissingAsset {
            path: job.rel.clone(),
            shard: None,
        };
        return Err(BakeError::Missing(vec![missing]));
    }
    let mut recorded = run_pipeline(registry, job, &files, root)?;
    let Some(shared) = shared else {
        return record_asset(job, root, content, encoder, recorded);
    };
    let stored = shared.stored_asset(&recorded);
    recorded
        .warnings
        .splice(0..0, shared.warnings.iter().cloned());
    let mut asset = record_asset(job, root, content, encoder, recorded)?;
    if let Some(stored) = stored {
        shared.store(stored);
        asset.stored = true;
    }
    Ok(asset)
}

/// The cache's record of `job`, when it may prove the outputs current: same encoder, same
/// settings, side inputs only inside the content root, and every output still on disk.
/// `index` is the job's place in the plan, where its record is when the plan is unchanged.
pub(super) fn usable_record<'a>(
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
pub(super) fn stamp_inputs(job: &Job, side_inputs: &[PathBuf]) -> (u64, u64) {
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
pub(super) fn read_sources(
    job: &Job,
) -> Result<(xxhash_rust::xxh3::Xxh3, Vec<SourceFile>), BakeError> {
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
pub(super) fn recorded_content_hash(
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
pub(super) fn run_pipeline(
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
pub(super) fn record_asset(
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
        stored: false,
        elapsed: Duration::ZERO,
    })
}
