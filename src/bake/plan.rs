//! Planning: walk the content groups' globs, classify each file, resolve its settings.

use crate::bake::error::BakeError;
use crate::bake::manifest::{Config, Preset, MATCH_OPTIONS};
use crate::bake::pipeline::Pipeline;
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
    /// The files read: the source file itself, or a folder asset's files in name order.
    pub sources: Vec<PathBuf>,
    /// The pipeline that bakes it.
    pub pipeline: Pipeline,
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
                let (path, rel) = match folder_asset_of(&rel) {
                    Some(folder) => (config.root.join(&folder), folder),
                    None if path.is_file() => (path, rel),
                    None if path.is_dir() && Pipeline::classify_dir(&rel).is_some() => (path, rel),
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
        let (pipeline, sources) = match Pipeline::classify_dir(&rel).filter(|_| source.is_dir()) {
            Some(pipeline) => (pipeline, folder_files(&source)?),
            None => {
                let pipeline = Pipeline::classify(&rel);
                let mut sources = vec![source.clone()];
                let lower = rel.to_ascii_lowercase();
                if pipeline == Pipeline::Model
                    && (lower.ends_with(".gltf") || lower.ends_with(".obj"))
                {
                    // External buffers, material libraries and images are inputs too: hashed,
                    // watched, re-baked.
                    let bytes = std::fs::read(&source).map_err(|e| BakeError::io(&source, e))?;
                    let base = source.parent().unwrap_or(Path::new("."));
                    sources.extend(match lower.ends_with(".obj") {
                        true => crate::bake::mesh::obj::external_files(&bytes, base),
                        false => crate::bake::mesh::external_files(&bytes, base),
                    });
                }
                (pipeline, sources)
            }
        };
        jobs.push(Job {
            pipeline,
            rel,
            source,
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

/// The folder asset (`*.env`, `*.array`) that contains the file at `rel`, if any.
fn folder_asset_of(rel: &str) -> Option<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    (1..parts.len())
        .map(|n| parts[..n].join("/"))
        .find(|prefix| Pipeline::classify_dir(prefix).is_some())
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
