//! Planning: walk the content groups' globs, find the pipeline claiming each file or folder,
//! resolve its settings. No per-kind code: claims decide.

use crate::bake::error::BakeError;
use crate::bake::manifest::{Config, Preset, MATCH_OPTIONS};
use crate::bake::pipeline::Registry;
use crate::bake::settings::Settings;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

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

/// An owned copy of an I/O error the listing keeps (every glob that meets it reports it).
fn copy_io(error: &std::io::Error) -> std::io::Error {
    match error.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(error.kind(), error.to_string()),
    }
}

/// Where a symlink in the content tree leads.
enum LinkTarget {
    /// It cannot be resolved (dangling, a loop).
    Unfollowable(std::io::Error),
    /// Out of the content root; whether the target is a folder is asked only when it matters.
    Outside {
        target: PathBuf,
        is_dir: OnceCell<bool>,
    },
    /// Inside the content root, to a file system object of this type.
    Inside {
        target: PathBuf,
        kind: Result<std::fs::FileType, std::io::Error>,
    },
}

/// One folder entry, as read once per bake and shared by every glob walking its folder.
struct Entry {
    name: std::ffi::OsString,
    /// The entry's own type (a symlink's is a symlink).
    kind: Result<std::fs::FileType, std::io::Error>,
    /// For a symlink: where it leads.
    link: Option<LinkTarget>,
    /// A file's size and mtime, stat-ed when a glob first matches it.
    stamp: OnceCell<Result<Stamp, std::io::Error>>,
}

impl Entry {
    /// The size and mtime of the file at `path` (this entry), following a symlink.
    fn stamp(&self, path: &Path) -> Result<Stamp, BakeError> {
        let stamp = self.stamp.get_or_init(|| {
            let meta = match self.link.is_some() {
                true => std::fs::metadata(path),
                false => std::fs::symlink_metadata(path),
            }?;
            Ok((meta.len(), mtime_ns(&meta)))
        });
        stamp
            .as_ref()
            .map(|stamp| *stamp)
            .map_err(|e| BakeError::io(path, copy_io(e)))
    }
}

/// The content tree as the globs walk it, each folder read once per bake however many globs
/// walk it: 10,000 groups over the same folders used to list and stat them 10,000 times.
struct Listings {
    /// The content root, canonical: a symlink resolving outside it is never followed.
    root: PathBuf,
    /// Each folder's canonical path, by the path a walk reached it as.
    canonical: HashMap<PathBuf, Result<PathBuf, Rc<std::io::Error>>>,
    /// Each folder's entries, by canonical path.
    entries: HashMap<PathBuf, Result<Rc<[Entry]>, Rc<std::io::Error>>>,
    /// Whether a glob's leading literal component is a folder, by path.
    is_dir: HashMap<PathBuf, bool>,
    /// Folders read from the file system.
    reads: usize,
}

impl Listings {
    fn new(root: &Path) -> Self {
        Listings {
            root: root.to_path_buf(),
            canonical: HashMap::new(),
            entries: HashMap::new(),
            is_dir: HashMap::new(),
            reads: 0,
        }
    }

    fn canonical(&mut self, dir: &Path) -> Result<PathBuf, BakeError> {
        let canonical = self
            .canonical
            .entry(dir.to_path_buf())
            .or_insert_with(|| dir.canonicalize().map_err(Rc::new));
        canonical
            .clone()
            .map_err(|e| BakeError::io(dir, copy_io(&e)))
    }

    /// The entries of `dir` (canonical path `canonical`), read on first use.
    fn entries(&mut self, dir: &Path, canonical: &Path) -> Result<Rc<[Entry]>, BakeError> {
        if !self.entries.contains_key(canonical) {
            self.reads += 1;
            let read = read_entries(&self.root, dir).map_err(Rc::new);
            self.entries.insert(canonical.to_path_buf(), read);
        }
        self.entries[canonical]
            .clone()
            .map_err(|e| BakeError::io(dir, copy_io(&e)))
    }

    fn is_dir(&mut self, path: PathBuf) -> bool {
        *self
            .is_dir
            .entry(path)
            .or_insert_with_key(|path| path.is_dir())
    }
}

/// The entries of `dir`, with each symlink's target resolved (the type of one inside `root`).
fn read_entries(root: &Path, dir: &Path) -> Result<Rc<[Entry]>, std::io::Error> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type();
        let link = match kind.as_ref().is_ok_and(|kind| kind.is_symlink()) {
            false => None,
            true => Some(match entry.path().canonicalize() {
                Err(error) => LinkTarget::Unfollowable(error),
                Ok(target) if !target.starts_with(root) => LinkTarget::Outside {
                    target,
                    is_dir: OnceCell::new(),
                },
                Ok(target) => LinkTarget::Inside {
                    kind: std::fs::metadata(&target).map(|meta| meta.file_type()),
                    target,
                },
            }),
        };
        // A regular file's size and mtime, stat-ed now, relative to the open folder
        // (`fstatat`, as `find` does): by full path later, the kernel walked every component
        // again, 20% of a no-op re-bake. A visible file no glob matches costs one stat it did
        // not need.
        let name = entry.file_name();
        let hidden = name.as_encoded_bytes().starts_with(b".");
        let stamp = match !hidden && kind.as_ref().is_ok_and(|kind| kind.is_file()) {
            true => OnceCell::from(entry.metadata().map(|meta| (meta.len(), mtime_ns(&meta)))),
            false => OnceCell::new(),
        };
        entries.push(Entry {
            name,
            kind,
            link,
            stamp,
        });
    }
    Ok(entries.into())
}

/// A glob as the walk matches it. `PREFIX/**/*` and `**/*` (every file under a folder, the
/// commonest group) are a prefix test: the walk only meets relative paths without hidden or
/// empty components, and for those the glob crate's answer is the same (checked in a test);
/// its matcher was a tenth of a no-op re-bake. Any other glob goes to the glob crate.
enum WalkGlob {
    /// Everything below this folder (`""`: the content root), at any depth.
    Below(String),
    Glob(glob::Pattern),
}

impl WalkGlob {
    fn new(pattern: &str) -> Result<Self, glob::PatternError> {
        let compiled = glob::Pattern::new(pattern)?;
        // A plain folder path: not empty, no glob syntax, no empty component (nor a leading
        // `/`, which makes one).
        let folder =
            |p: &str| !p.contains(['*', '?', '[', ']']) && !p.split('/').any(str::is_empty);
        let below = match pattern {
            "**/*" => Some(String::new()),
            _ => pattern
                .strip_suffix("/**/*")
                .filter(|prefix| folder(prefix))
                .map(|prefix| format!("{prefix}/")),
        };
        Ok(match below {
            Some(prefix) => WalkGlob::Below(prefix),
            None => WalkGlob::Glob(compiled),
        })
    }

    /// Whether `rel` (as the walk makes it: relative, no hidden or empty component) matches.
    fn matches(&self, rel: &str) -> bool {
        match self {
            WalkGlob::Below(prefix) => rel.len() > prefix.len() && rel.starts_with(prefix.as_str()),
            WalkGlob::Glob(glob) => glob.matches_with(rel, WALK_OPTIONS),
        }
    }
}

/// Walks the content tree for a glob: never follows a symlink out of `root`, visits no folder
/// twice (symlink loops), skips hidden entries, special files, names that are not UTF-8 (with
/// a warning: no glob can name them) and `skip` (the output folder). Folders are read through
/// [`Listings`], once per bake.
struct Walker<'a> {
    skip: Option<&'a Path>,
    listings: Listings,
    warnings: Vec<String>,
    /// Names that are not UTF-8, each warned about once however many globs meet it.
    not_utf8: BTreeSet<PathBuf>,
    /// Symlinks that lead out of the root or nowhere: all reported together.
    refused: BTreeMap<PathBuf, BakeError>,
}

impl Walker<'_> {
    /// Adds the matches of `pattern`, walked from `base` (its path relative to the root is
    /// `base_rel`), to `found`.
    fn walk(
        &mut self,
        config: &Config,
        pattern: &str,
        (base, base_rel): (PathBuf, String),
        found: &mut Vec<Found>,
    ) -> Result<(), BakeError> {
        let compiled = WalkGlob::new(pattern).map_err(|e| BakeError::Config {
            file: config.file.clone(),
            message: format!("glob {pattern:?}: {}", e.msg),
        })?;
        // How deep a match can be: unbounded under `**`.
        let max_depth = match pattern.contains("**") {
            true => usize::MAX,
            false => pattern.split('/').count(),
        };
        let mut visited = BTreeSet::new();
        let mut stack = vec![(base, base_rel)];
        while let Some((dir, rel)) = stack.pop() {
            let canonical = self.listings.canonical(&dir)?;
            if self.skip == Some(canonical.as_path()) || visited.contains(&canonical) {
                continue;
            }
            let entries = self.listings.entries(&dir, &canonical)?;
            visited.insert(canonical);
            let depth = match rel.is_empty() {
                true => 0,
                false => rel.split('/').count(),
            };
            let may_descend = depth + 1 < max_depth;
            for entry in entries.iter() {
                let Some(name) = entry.name.to_str() else {
                    let path = dir.join(&entry.name);
                    if self.not_utf8.insert(path.clone()) {
                        self.warnings.push(format!(
                            "{}: file name is not valid UTF-8; left out",
                            path.display()
                        ));
                    }
                    continue;
                };
                if name.starts_with('.') {
                    continue;
                }
                let path = || dir.join(name);
                if name.contains(['\n', '\r']) {
                    return Err(BakeError::asset(path(), "file name contains a newline"));
                }
                let mut kind = *entry
                    .kind
                    .as_ref()
                    .map_err(|e| BakeError::io(path(), copy_io(e)))?;
                let mut rel = join_rel(&rel, name);
                let matched = compiled.matches(&rel);
                if let Some(link) = &entry.link {
                    // A link is followed only inside the root; one the glob would take (or
                    // walk into) that leads out, or nowhere, is refused. Others are ignored.
                    kind = match link {
                        LinkTarget::Unfollowable(e) => {
                            if matched {
                                let path = path();
                                let error = link_unfollowable(&path, copy_io(e));
                                self.refused.insert(path, error);
                            }
                            continue;
                        }
                        LinkTarget::Outside { target, is_dir } => {
                            if matched || (may_descend && *is_dir.get_or_init(|| target.is_dir())) {
                                let path = path();
                                let error = link_outside(&path, target);
                                self.refused.insert(path, error);
                            }
                            continue;
                        }
                        LinkTarget::Inside { target, kind } => *kind
                            .as_ref()
                            .map_err(|e| BakeError::io(target, copy_io(e)))?,
                    };
                }
                let is_dir = kind.is_dir();
                if !is_dir && !kind.is_file() {
                    continue; // sockets, FIFOs, devices: never sources
                }
                let descend = is_dir && may_descend;
                if matched {
                    let path = path();
                    let stamp = match is_dir {
                        true => (0, 0),
                        false => entry.stamp(&path)?,
                    };
                    found.push(Found {
                        rel: match descend {
                            true => rel.clone(),
                            false => std::mem::take(&mut rel),
                        },
                        path,
                        is_dir,
                        stamp,
                    });
                }
                if descend {
                    stack.push((path(), rel));
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
    plan_counting_reads(config, registry, preset, skip_dir).map(|(plan, _)| plan)
}

/// [`plan`], and how many folders it read from the file system (each at most once).
fn plan_counting_reads(
    config: &Config,
    registry: &Registry,
    preset: Option<&Preset>,
    skip_dir: Option<&Path>,
) -> Result<(Plan, usize), BakeError> {
    let mut matched: BTreeMap<String, (PathBuf, bool, Stamp, usize)> = BTreeMap::new();
    let mut watched = Vec::new();
    let root = config
        .root
        .canonicalize()
        .map_err(|e| BakeError::io(&config.root, e))?;
    let skip_dir = skip_dir.and_then(|dir| dir.canonicalize().ok());
    let mut walker = Walker {
        skip: skip_dir.as_deref(),
        listings: Listings::new(&root),
        warnings: Vec::new(),
        not_utf8: BTreeSet::new(),
        refused: BTreeMap::new(),
    };
    for (group_index, group) in config.groups.iter().enumerate() {
        for pattern in &group.assets {
            let base = walk_base(&mut walker.listings, &config.root, pattern);
            watched.push(base.0.clone());
            let mut found = Vec::new();
            walker.walk(config, pattern, base, &mut found)?;
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
    let reads = walker.listings.reads;
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
    let plan = Plan {
        root,
        jobs,
        watched_dirs: watched,
        warnings,
    };
    Ok((plan, reads))
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
    // Only sources of pipelines that name dependencies are read here (asset files: small
    // TOML); a file that cannot be read is the bake's to report.
    let names_dependencies = |rel: &str, folder: bool| {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        !folder
            && registry
                .classify(name, folder)
                .is_some_and(|i| registry.get(i).names_dependencies())
    };
    let mut pending: Vec<String> = matched
        .iter()
        .filter(|(rel, (_, folder, _, _))| names_dependencies(rel, *folder))
        .map(|(rel, _)| rel.clone())
        .collect();
    while let Some(rel) = pending.pop() {
        let (path, folder, _, group) = matched[&rel].clone();
        if !names_dependencies(&rel, folder) {
            continue;
        }
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let Some(pipeline) = registry.classify(name, folder).map(|i| registry.get(i)) else {
            continue;
        };
        let named = match std::fs::read(&path) {
            Ok(bytes) => pipeline.dependencies(registry, &rel, &bytes),
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
    let mut end = 0;
    for part in rel.split('/') {
        end += part.len();
        if registry.classify(part, true).is_some() {
            return Some(rel[..end].to_owned());
        }
        end += 1; // the `/`
    }
    None
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
fn walk_base(listings: &mut Listings, root: &Path, pattern: &str) -> (PathBuf, String) {
    let mut base = root.to_path_buf();
    let mut rel = Vec::new();
    let components: Vec<&str> = pattern.split('/').collect();
    for component in &components[..components.len().saturating_sub(1)] {
        if component.contains(['*', '?', '[']) {
            break;
        }
        let next = base.join(component);
        if !listings.is_dir(next.clone()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The prefix test answers as the glob crate does for every path the walk can meet.
    #[test]
    fn folder_globs_match_as_the_glob_crate_does() {
        let paths = [
            "a",
            "data",
            "data/x",
            "data/x.png",
            "data/sub/y",
            "database/x",
            "dat/x",
            "data/sub/deeper/z.bin",
            "Data/x",
            "art/data/x",
            "data2/x",
            "a/b/c",
        ];
        for pattern in [
            "**/*",
            "data/**/*",
            "data/sub/**/*",
            "a/**/*",
            "art/data/**/*",
        ] {
            let fast = WalkGlob::new(pattern).unwrap();
            assert!(matches!(fast, WalkGlob::Below(_)), "{pattern}");
            let slow = glob::Pattern::new(pattern).unwrap();
            for path in paths {
                assert_eq!(
                    fast.matches(path),
                    slow.matches_with(path, WALK_OPTIONS),
                    "{pattern} {path}"
                );
            }
        }
        for other in [
            "data/*",
            "data/**/*.png",
            "d?ta/**/*",
            "[d]ata/**/*",
            "a//**/*",
            "/**/*",
            "/data/**/*",
            "**",
        ] {
            assert!(
                matches!(WalkGlob::new(other).unwrap(), WalkGlob::Glob(_)),
                "{other}"
            );
        }
    }

    /// 2,000 groups over the same small tree read each of its folders once: every group used
    /// to list (and stat) the whole tree again, 2M stat calls for 10k groups of 200 files.
    #[test]
    fn many_groups_read_each_folder_once() {
        let dir = tempfile::tempdir().unwrap();
        for (path, bytes) in [
            ("a/one.txt", "1"),
            ("a/two.txt", "22"),
            ("a/b/three.txt", "333"),
            ("c/four.bin", "4444"),
            (".hidden/five.txt", "5"),
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        let groups = 2_000;
        let mut manifest = String::new();
        for i in 0..groups {
            let glob = ["**/*.txt", "a/*.txt", "c/*", "a/b/*"][i % 4];
            manifest += &format!("[[content.group]]\nassets = [\"{glob}\"]\n");
        }
        let config = Config::parse(&manifest, "hearth.toml", dir.path()).unwrap();
        let registry = Registry::with_builtins();
        let (plan, reads) = plan_counting_reads(&config, &registry, None, None).unwrap();
        // The root, a, a/b and c: the hidden folder is never entered.
        assert_eq!(reads, 4);
        let jobs: Vec<(&str, Stamp)> = plan
            .jobs
            .iter()
            .map(|job| (job.rel.as_str(), (job.stamps[0].0, 0)))
            .collect();
        assert_eq!(
            jobs,
            [
                ("a/b/three.txt", (3, 0)),
                ("a/one.txt", (1, 0)),
                ("a/two.txt", (2, 0)),
                ("c/four.bin", (4, 0)),
            ]
        );
        assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    }
}
