//! The bake's bookkeeping files: references checked, `assets.hman` and `assets.hnames`
//! built.

use crate::bake::error::BakeError;
use crate::bake::manifest::Config;
use crate::bake::names::{assign_names, NameClaim};
use crate::bake::plan::Job;
use crate::format::hman::{self, AssetKind, ColorSpace, ManifestEntry};
use crate::format::hnames::{self};
use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::job::*;
use super::warnings::*;

/// Every reference an asset recorded must name an asset of this bake (by its canonical
/// ref's hash); the errors name both ends.
pub(super) fn check_references(
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
pub(super) fn build_manifest(assets: &[AssetResult]) -> Result<Vec<u8>, BakeError> {
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
pub(super) fn name_same_stem_siblings<'a>(claims: &mut [NameClaim<'a>]) {
    pub(super) fn key<'a>(claim: &NameClaim<'a>) -> (&'a str, AssetKind) {
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
pub(super) fn warn_unbaked_names(
    config: &Config,
    assets: &[AssetResult],
    warnings: &mut Warnings<'_>,
) {
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
pub(super) fn names_input(config: &Config) -> u64 {
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
pub(super) fn build_names(
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
