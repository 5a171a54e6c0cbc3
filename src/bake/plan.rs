//! Planning: walk the content groups' globs, find the pipeline claiming each file or folder,
//! resolve its settings. No per-kind code: claims decide.

use crate::bake::error::BakeError;
use crate::bake::manifest::{Config, Preset, MATCH_OPTIONS};
use crate::bake::pipeline::Registry;
use crate::bake::settings::Settings;
use std::collections::BTreeMap;
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
    /// The pipeline that bakes it (an index into the bake's [`Registry`]).
    pub pipeline: usize,
    /// Resolved settings.
    pub settings: Settings,
}

/// Everything a bake will do, in a deterministic order.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Jobs sorted by source-relative path.
    pub jobs: Vec<Job>,
    /// Folders the globs walk (for `rerun-if-changed`: a new file there triggers a re-bake).
    pub watched_dirs: Vec<PathBuf>,
    /// Warnings, e.g. a glob that matched nothing.
    pub warnings: Vec<String>,
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
    let mut matched: BTreeMap<String, (PathBuf, usize)> = BTreeMap::new();
    let mut watched = Vec::new();
    let mut warnings = Vec::new();
    let walk_options = glob::MatchOptions {
        require_literal_leading_dot: true,
        ..MATCH_OPTIONS
    };
    let skip_dir = skip_dir.and_then(|dir| dir.canonicalize().ok());
    for (group_index, group) in config.groups.iter().enumerate() {
        for pattern in &group.assets {
            let full = config.root.join(pattern);
            let full_text = full.to_str().ok_or_else(|| BakeError::Config {
                file: config.file.clone(),
                message: format!("content root {} is not valid UTF-8", config.root.display()),
            })?;
            watched.push(walk_base(&config.root, pattern));
            let paths =
                glob::glob_with(full_text, walk_options).map_err(|e| BakeError::Config {
                    file: config.file.clone(),
                    message: format!("glob {pattern:?}: {}", e.msg),
                })?;
            let mut any = false;
            for path in paths {
                let path = path.map_err(|e| BakeError::io(e.path().to_path_buf(), e.into()))?;
                if let (Some(skip), Ok(canonical)) = (&skip_dir, path.canonicalize()) {
                    if canonical.starts_with(skip) {
                        continue;
                    }
                }
                let rel = relative_path(&config.root, &path)?;
                // A file inside a folder asset (`sky.env/px.png`) stands for the folder.
                let (path, rel) = match folder_asset_of(registry, &rel) {
                    Some(folder) => (config.root.join(&folder), folder),
                    None if path.is_file() => (path, rel),
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
                matched.entry(rel).or_insert((path, group_index));
            }
            if !any {
                warnings.push(format!(
                    "{}: glob {pattern:?} matched no file",
                    config.file.display()
                ));
            }
        }
    }
    watched.sort();
    watched.dedup();
    let mut jobs = Vec::with_capacity(matched.len());
    for (rel, (source, group_index)) in matched {
        let settings = config.resolve(preset, Some(&config.groups[group_index]), &rel)?;
        let folder = source.is_dir();
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let Some(pipeline) = registry.classify(name, folder) else {
            warnings.push(format!(
                "{}: no pipeline claims this file; left out",
                source.display()
            ));
            continue;
        };
        let sources = match folder {
            true => folder_files(&source)?,
            false => vec![source.clone()],
        };
        jobs.push(Job {
            pipeline,
            rel,
            source,
            folder,
            sources,
            settings,
        });
    }
    Ok(Plan {
        jobs,
        watched_dirs: watched,
        warnings,
    })
}

/// The claimed folder (`*.env`, `*.array`) that is or contains the path `rel`, if any: a file
/// inside a folder asset stands for the folder.
fn folder_asset_of(registry: &Registry, rel: &str) -> Option<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    (1..=parts.len())
        .find(|n| registry.classify(parts[n - 1], true).is_some())
        .map(|n| parts[..n].join("/"))
}

/// The visible files directly inside a folder asset, sorted by name.
fn folder_files(dir: &Path) -> Result<Vec<PathBuf>, BakeError> {
    let io = |e| BakeError::io(dir, e);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !hidden && entry.file_type().map_err(io)?.is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// The deepest existing folder that a glob's walk starts from: its literal leading components.
fn walk_base(root: &Path, pattern: &str) -> PathBuf {
    let mut base = root.to_path_buf();
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
    }
    base
}

/// `path` relative to `root`, `/`-separated; an error for non-UTF-8 names.
fn relative_path(root: &Path, path: &Path) -> Result<String, BakeError> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut parts = Vec::new();
    for component in rel.components() {
        let part = component
            .as_os_str()
            .to_str()
            .ok_or_else(|| BakeError::asset(path, "file name is not valid UTF-8"))?;
        if part.contains('\n') {
            return Err(BakeError::asset(path, "file name contains a newline"));
        }
        parts.push(part);
    }
    Ok(parts.join("/"))
}
