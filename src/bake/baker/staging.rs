//! The output folder's side of a bake: the lock and recovery, what the previous bake left,
//! claims on output paths, and staging the outputs, the name table and removals in the
//! transaction.

use crate::bake::cache::Cache;
use crate::bake::error::BakeError;
use crate::bake::manifest::{Config, Preset};
use crate::bake::output::{
    open_previous_pack, Durability, OutputLock, PreviousOutputs, TreeListing,
};
use crate::bake::transaction::{Recovery, Transaction};
use crate::format::hman::MANIFEST_PATH;
use crate::format::hnames::NAMES_PATH;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::handoff::*;
use super::job::*;
use super::outcome::*;
use super::warnings::*;

/// Where the bake goes: the preset it uses and the folder it writes.
pub(super) struct Target<'c> {
    pub(super) preset_name: Option<String>,
    pub(super) preset: Option<&'c Preset>,
    pub(super) out_dir: PathBuf,
    /// Whether the loose runtime tree is written (see [`Baker::tree`](crate::bake::Baker::tree)).
    pub(super) tree: bool,
}

/// The output folder, held for the whole bake. The transaction comes first so that it is
/// dropped (and so rolled back) while the lock is still held.
pub(super) struct Held {
    pub(super) transaction: Transaction,
    pub(super) _lock: OutputLock,
}

/// Where the previous bake's outputs are. The output tree's files, listed once: a cached
/// output must still be there, or for a pack-only bake be gone (the folder holds the pack
/// alone, so a pack-only bake lists it whatever the cache says) and be in the previous pack.
pub(super) fn previous_outputs(
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
pub(super) fn lock_and_recover(
    out_dir: &Path,
    warnings: &mut Warnings<'_>,
) -> Result<Held, BakeError> {
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
pub(super) fn claim_outputs(config: &Config, assets: &[AssetResult]) -> Result<(), BakeError> {
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
pub(super) fn stage_outputs(
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
pub(super) fn remove_previous_pack(
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
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
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
pub(super) fn remove_tree(
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
pub(super) fn stage_names(
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
pub(super) fn pack_file_name(config: &Config) -> String {
    format!("{}.hpack", config.pack_name)
}
