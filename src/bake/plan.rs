//! Planning: walk the content groups' globs, find the pipeline claiming each file or folder,
//! resolve its settings. No per-kind code: claims decide.

use crate::bake::error::BakeError;
use crate::bake::manifest::{Config, Preset, MATCH_OPTIONS};
use crate::bake::pipeline::Registry;
use crate::bake::settings::Settings;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One asset to bake.
#[derive(Debug, Clone)]
pub struct Job {
    /// Source path relative to the content root, `/`-separated.
    pub rel: String,
    /// The source file or folder (joined to the content root).
    pub source: PathBuf,
    /// Whether the source is a claimed folder.
    pub folder: bool,
    /// The files read: the source file itself, or a folder asset's files in name order.
    pub sources: Vec<PathBuf>,
    /// Size and mtime (ns since the epoch) of each source, as the walk saw them: stat-ed
    /// relative to their folder (cheaper than a stat by full path).
    pub stamps: Vec<Stamp>,
    /// The pipeline that bakes it (an index into the bake's [`Registry`]).
    pub pipeline: usize,
    /// Resolved settings.
    pub settings: Settings,
}

/// Everything a bake will do, in a deterministic order.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The content root, canonical: every file a bake reads must resolve inside it.
    pub root: PathBuf,
    /// Jobs sorted by source-relative path.
    pub jobs: Vec<Job>,
    /// Folders the globs walk (for `rerun-if-changed`: a new file there triggers a re-bake).
    pub watched_dirs: Vec<PathBuf>,
    /// Warnings, e.g. a glob that matched nothing.
    pub warnings: Vec<String>,
}

/// Glob options for walking: `*` stays within one path component, as in a shell.
const WALK_OPTIONS: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: true,
};

/// A file's size and its mtime in nanoseconds since the Unix epoch.
pub type Stamp = (u64, u128);

/// A path a glob matched while walking.
struct Found {
    rel: String,
    path: PathBuf,
    is_dir: bool,
    /// A file's size and mtime.
    stamp: Stamp,
}

/// Nanoseconds since the Unix epoch of a file's mtime (0 when unknown).
pub(crate) fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// A directory entry's size and mtime, stat-ed relative to its folder (`fstatat`), following
/// a symlink (already checked to stay inside the root).
fn entry_stamp(entry: &std::fs::DirEntry, symlink: bool) -> Result<Stamp, BakeError> {
    let path = entry.path();
    let meta = match symlink {
        true => std::fs::metadata(&path),
        false => entry.metadata(),
    }
    .map_err(|e| BakeError::io(&path, e))?;
    Ok((meta.len(), mtime_ns(&meta)))
}

/// Walks the content tree for a glob: never follows a symlink out of `root`, visits no folder
/// twice (symlink loops), skips hidden entries, special files, names that are not UTF-8 (with
/// a warning: no glob can name them) and `skip` (the output folder).
struct Walker<'a> {
    root: &'a Path,
    skip: Option<&'a Path>,
    warnings: Vec<String>,
    /// Symlinks that lead out of the root or nowhere: all reported together.
    refused: BTreeMap<PathBuf, BakeError>,
}

impl Walker<'_> {
    fn walk(
        &mut self,
        config: &Config,
        pattern: &str,
        found: &mut Vec<Found>,
    ) -> Result<(), BakeError> {
        let compiled = glob::Pattern::new(pattern).map_err(|e| BakeError::Config {
            file: config.file.clone(),
            message: format!("glob {pattern:?}: {}", e.msg),
        })?;
        let (base, base_rel) = walk_base(&config.root, pattern);
        // How deep a match can be: unbounded under `**`.
        let max_depth = match pattern.contains("**") {
            true => usize::MAX,
            false => pattern.split('/').count(),
        };
        let mut visited = BTreeSet::new();
        let mut stack = vec![(base, base_rel)];
        while let Some((dir, rel)) = stack.pop() {
            let canonical = dir.canonicalize().map_err(|e| BakeError::io(&dir, e))?;
            if self.skip == Some(canonical.as_path()) || !visited.insert(canonical) {
                continue;
            }
            let depth = match rel.is_empty() {
                true => 0,
                false => rel.split('/').count(),
            };
            let io = |e| BakeError::io(&dir, e);
            for entry in std::fs::read_dir(&dir).map_err(io)? {
                let entry = entry.map_err(io)?;
                let path = entry.path();
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    self.warnings.push(format!(
                        "{}: file name is not valid UTF-8; left out",
                        path.display()
                    ));
                    continue;
                };
                if name.starts_with('.') {
                    continue;
                }
                if name.contains(['\n', '\r']) {
                    return Err(BakeError::asset(&path, "file name contains a newline"));
                }
                let mut kind = entry.file_type().map_err(|e| BakeError::io(&path, e))?;
                let rel = join_rel(&rel, &name);
                let matched = compiled.matches_with(&rel, WALK_OPTIONS);
                let symlink = kind.is_symlink();
                if symlink {
                    // A link is followed only inside the root; one the glob would take (or
                    // walk into) that leads out, or nowhere, is refused. Others are ignored.
                    let may_descend = depth + 1 < max_depth;
                    let target = match path.canonicalize() {
                        Ok(target) => target,
                        Err(e) if matched => {
                            self.refused
                                .insert(path.clone(), link_unfollowable(&path, e));
                            continue;
                        }
                        Err(_) => continue,
                    };
                    if !target.starts_with(self.root) {
                        if matched || (may_descend && target.is_dir()) {
                            self.refused
                                .insert(path.clone(), link_outside(&path, &target));
                        }
                        continue;
                    }
                    kind = std::fs::metadata(&target)
                        .map_err(|e| BakeError::io(&target, e))?
                        .file_type();
                }
                let is_dir = kind.is_dir();
                if !is_dir && !kind.is_file() {
                    continue; // sockets, FIFOs, devices: never sources
                }
                if matched {
                    let stamp = match is_dir {
                        true => (0, 0),
                        false => entry_stamp(&entry, symlink)?,
                    };
                    found.push(Found {
                        rel: rel.clone(),
                        path: path.clone(),
                        is_dir,
                        stamp,
                    });
                }
                if is_dir && depth + 1 < max_depth {
                    stack.push((path, rel));
                }
            }
        }
        Ok(())
    }
}

/// Walks every group's globs under the content root. A file matched by several groups is
/// baked once, with the settings of the first group that lists it. Hidden files (a leading
/// `.` in any component) and files inside `skip_dir` (the output folder) are left out.
pub fn plan(
    config: &Config,
    registry: &Registry,
    preset: Option<&Preset>,
    skip_dir: Option<&Path>,
) -> Result<Plan, BakeError> {
    let mut matched: BTreeMap<String, (PathBuf, bool, Stamp, usize)> = BTreeMap::new();
    let mut watched = Vec::new();
    let root = config
        .root
        .canonicalize()
        .map_err(|e| BakeError::io(&config.root, e))?;
    let skip_dir = skip_dir.and_then(|dir| dir.canonicalize().ok());
    let mut walker = Walker {
        root: &root,
        skip: skip_dir.as_deref(),
        warnings: Vec::new(),
        refused: BTreeMap::new(),
    };
    for (group_index, group) in config.groups.iter().enumerate() {
        for pattern in &group.assets {
            watched.push(walk_base(&config.root, pattern).0);
            let mut found = Vec::new();
            walker.walk(config, pattern, &mut found)?;
            let mut any = false;
            for Found {
                rel,
                path,
                is_dir,
                stamp,
            } in found
            {
                // A file inside a folder asset (`sky.env/px.png`) stands for the folder.
                let (path, rel, is_dir) = match folder_asset_of(registry, &rel) {
                    Some(folder) if folder == rel => (path, rel, is_dir),
                    Some(folder) => (config.root.join(&folder), folder, true),
                    None if !is_dir => (path, rel, false),
                    None => continue,
                };
                any = true;
                if group
                    .exclude
                    .iter()
                    .any(|ex| ex.matches_with(&rel, MATCH_OPTIONS))
                {
                    continue;
                }
                matched
                    .entry(rel)
                    .or_insert((path, is_dir, stamp, group_index));
            }
            if !any {
                walker.warnings.push(format!(
                    "{}: glob {pattern:?} matched no file",
                    config.file.display()
                ));
            }
        }
    }
    add_dependencies(&root, registry, &mut matched, &walker);
    let (mut refused, mut warnings) = (walker.refused, walker.warnings);
    watched.sort();
    watched.dedup();
    let mut jobs = Vec::with_capacity(matched.len());
    for (rel, (source, folder, stamp, group_index)) in matched {
        let settings = config.resolve(preset, Some(&config.groups[group_index]), &rel)?;
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let Some(pipeline) = registry.classify(name, folder) else {
            warnings.push(format!(
                "{}: no pipeline claims this file; left out",
                source.display()
            ));
            continue;
        };
        let (sources, stamps) = match folder {
            true => folder_files(&root, &source, &mut refused)?
                .into_iter()
                .unzip(),
            false => (vec![source.clone()], vec![stamp]),
        };
        jobs.push(Job {
            pipeline,
            rel,
            source,
            folder,
            sources,
            stamps,
            settings,
        });
    }
    // Every refused link at once, the walk's and the folder assets' members'.
    let mut refused: Vec<BakeError> = refused.into_values().collect();
    match refused.len() {
        0 => {}
        1 => return Err(refused.remove(0)),
        _ => return Err(BakeError::Failed(refused)),
    }
    Ok(Plan {
        root,
        jobs,
        watched_dirs: watched,
        warnings,
    })
}

/// Adds the files the matched sources name ([`Pipeline::dependencies`](crate::bake::pipeline::Pipeline::dependencies))
/// that no group matched: each in the group of the first file naming it, transitively. A
/// named file that does not exist, is not a regular file, or leads out of the root is left
/// to the bake that names it to report.
fn add_dependencies(
    root: &Path,
    registry: &Registry,
    matched: &mut BTreeMap<String, (PathBuf, bool, Stamp, usize)>,
    walker: &Walker<'_>,
) {
    let mut pending: Vec<String> = matched.keys().cloned().collect();
    while let Some(rel) = pending.pop() {
        let (path, folder, _, group) = matched[&rel].clone();
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let Some(pipeline) = registry.classify(name, folder).map(|i| registry.get(i)) else {
            continue;
        };
        // Only sources of pipelines that name dependencies are read here (asset files:
        // small TOML); a file that cannot be read is the bake's to report.
        if folder || !pipeline.names_dependencies() {
            continue;
        }
        let named = match std::fs::read(&path) {
            Ok(bytes) => pipeline.dependencies(&rel, &bytes),
            Err(_) => Vec::new(),
        };
        for dependency in named {
            if matched.contains_key(&dependency) {
                continue;
            }
            let candidate = root.join(&dependency);
            let inside = candidate
                .canonicalize()
                .is_ok_and(|real| real.starts_with(root) && real.is_file());
            let Ok(meta) = std::fs::metadata(&candidate) else {
                continue;
            };
            if !inside || walker.skip.is_some_and(|skip| candidate.starts_with(skip)) {
                continue;
            }
            let stamp = (meta.len(), mtime_ns(&meta));
            matched.insert(dependency.clone(), (candidate, false, stamp, group));
            pending.push(dependency);
        }
    }
}

/// The claimed folder (`*.env`, `*.array`) that is or contains the path `rel`, if any: a file
/// inside a folder asset stands for the folder.
fn folder_asset_of(registry: &Registry, rel: &str) -> Option<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    (1..=parts.len())
        .find(|n| registry.classify(parts[n - 1], true).is_some())
        .map(|n| parts[..n].join("/"))
}

/// The error for a symlink the walk would take that cannot be resolved (dangling, a loop).
fn link_unfollowable(link: &Path, error: std::io::Error) -> BakeError {
    BakeError::asset(link, format!("symlink cannot be followed: {error}"))
}

/// The error for a symlink the walk would take that resolves to `target`, outside the root.
fn link_outside(link: &Path, target: &Path) -> BakeError {
    let message = format!(
        "symlink leads outside the content root, to {}",
        target.display()
    );
    BakeError::asset(link, message)
}

/// The visible files directly inside a folder asset, sorted by name. A member that is a
/// symlink is taken as a glob match is: followed inside `root` (canonical), and otherwise
/// (leading out, or nowhere) added to `refused`, so the bake fails naming it rather than
/// leaving a layer or stage out.
fn folder_files(
    root: &Path,
    dir: &Path,
    refused: &mut BTreeMap<PathBuf, BakeError>,
) -> Result<Vec<(PathBuf, Stamp)>, BakeError> {
    let io = |e| BakeError::io(dir, e);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let mut kind = entry.file_type().map_err(io)?;
        let symlink = kind.is_symlink();
        if symlink {
            match path.canonicalize() {
                Ok(target) if target.starts_with(root) => {
                    kind = std::fs::metadata(&target)
                        .map_err(|e| BakeError::io(&target, e))?
                        .file_type();
                }
                Ok(target) => {
                    refused.insert(path.clone(), link_outside(&path, &target));
                    continue;
                }
                Err(e) => {
                    refused.insert(path.clone(), link_unfollowable(&path, e));
                    continue;
                }
            }
        }
        // Subfolders, sockets, FIFOs and devices are never members.
        if kind.is_file() {
            files.push((path, entry_stamp(&entry, symlink)?));
        }
    }
    files.sort();
    Ok(files)
}

/// The deepest existing folder that a glob's walk starts from (its literal leading
/// components), and its path relative to the root.
fn walk_base(root: &Path, pattern: &str) -> (PathBuf, String) {
    let mut base = root.to_path_buf();
    let mut rel = Vec::new();
    let components: Vec<&str> = pattern.split('/').collect();
    for component in &components[..components.len().saturating_sub(1)] {
        if component.contains(['*', '?', '[']) {
            break;
        }
        let next = base.join(component);
        if !next.is_dir() {
            break;
        }
        base = next;
        rel.push(*component);
    }
    (base, rel.join("/"))
}

/// `parent/name`, or `name` at the root.
pub(crate) fn join_rel(parent: &str, name: &str) -> String {
    let mut rel = String::with_capacity(parent.len() + 1 + name.len());
    if !parent.is_empty() {
        rel.push_str(parent);
        rel.push('/');
    }
    rel.push_str(name);
    rel
}
