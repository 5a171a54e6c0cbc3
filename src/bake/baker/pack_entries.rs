//! The pack's entries: which outputs go in, in what order, and their stored bytes.

use crate::bake::cache::CachedPack;
use crate::bake::error::BakeError;
use crate::bake::pack::{entry_key, Reused};
use crate::bake::plan::Job;
use crate::format::hman::{AssetKind, MANIFEST_PATH};
use crate::format::hnames::NAMES_PATH;
use crate::format::hpack::Codec;
use crate::read::pak::PakReader;
use crate::read::regular_file::read_regular;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::Path;

use super::job::*;

/// A pack entry before its bytes are loaded: (path, content hash, codec, level, owning asset
/// index, or `None` for the manifest, kind).
pub(super) type PackPlanEntry<'a> = (&'a str, u64, Codec, Option<i32>, Option<usize>, AssetKind);

/// The manifest's pack entry: its bytes when this bake built them (else they are rebuilt only
/// if the pack must be rewritten), their hash, and the codec its settings ask for.
pub(super) struct ManifestPackEntry<'a> {
    pub(super) bytes: Option<&'a [u8]>,
    pub(super) hash: u64,
    pub(super) codec: Codec,
    pub(super) level: Option<i32>,
    /// `assets.hnames` and its hash; packed like the manifest. `None` when the one on disk
    /// stands (then it is rebuilt only if the pack must be).
    pub(super) names: Option<&'a [u8]>,
    pub(super) names_hash: u64,
}

/// The pack's entries, sorted by path: the manifest, then every asset's outputs with their
/// job's compression.
pub(super) fn pack_entries<'a>(
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

/// Each entry's (hash of its path, [`entry_key`]), sorted: what the cache records of the pack
/// so that the next bake can copy unchanged entries.
pub(super) fn entry_keys(entries: &[PackPlanEntry<'_>]) -> Vec<(u64, u64)> {
    let mut keys: Vec<(u64, u64)> = entries
        .iter()
        .map(|(path, hash, codec, level, _, _)| {
            (
                crate::format::hash::hash_runtime_path(path),
                entry_key(*hash, *codec, *level),
            )
        })
        .collect();
    keys.sort_unstable();
    keys
}

/// The entries the previous pack already stores as this one would: same path, same key (content,
/// codec and level), a pack of the same version, and stored bytes that still match the
/// checksum it recorded for them (v3 and later; a v2 pack's entries are compressed again).
/// Those are copied as they are stored, never decompressed and compressed again.
pub(super) fn reusable_entries<'p>(
    previous: Option<&'p PakReader>,
    recorded: Option<&CachedPack>,
    version: u32,
    entries: &[PackPlanEntry<'_>],
) -> Vec<Option<Reused<'p>>> {
    let (Some(pack), Some(recorded)) = (previous, recorded) else {
        return Vec::new();
    };
    if recorded.version != version || pack.version() < 3 {
        return Vec::new();
    }
    // Checking the copies reads the whole previous pack: in parallel.
    entries
        .par_iter()
        .map(|(path, hash, codec, level, _, _)| {
            let path_hash = crate::format::hash::hash_runtime_path(path);
            let at = recorded
                .entries
                .binary_search_by_key(&path_hash, |(p, _)| *p)
                .ok()?;
            if recorded.entries[at].1 != entry_key(*hash, *codec, *level) {
                return None;
            }
            let entry = pack.find(path).ok().flatten()?;
            let stored = entry.stored_bytes();
            let checksum = entry.checksum()?;
            (checksum == xxhash_rust::xxh3::xxh3_64(stored)).then_some(Reused {
                codec: entry.codec(),
                stored,
                size: entry.size(),
                checksum,
            })
        })
        .collect()
}

/// Bytes of every pack entry: in memory for fresh bakes, read back for cache hits (from the
/// output folder, or a pack-only bake's previous pack) and checked against the hash the cache
/// recorded. An entry `reused` from the previous pack is not read (its bytes are empty).
pub(super) fn pack_entry_bytes<'a>(
    entries: &[PackPlanEntry<'_>],
    assets: &'a [AssetResult],
    [manifest_bytes, names_bytes]: [&'a [u8]; 2],
    out_dir: &Path,
    previous_pack: Option<&'a PakReader>,
    reused: &[Option<Reused<'_>>],
) -> Result<Vec<Cow<'a, [u8]>>, BakeError> {
    let mut sources: Vec<Cow<'_, [u8]>> = Vec::with_capacity(entries.len());
    for (i, (path, hash, _, _, owner, _)) in entries.iter().enumerate() {
        if reused.get(i).is_some_and(Option::is_some) {
            sources.push(Cow::Borrowed(&[]));
            continue;
        }
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
