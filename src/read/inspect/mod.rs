//! Inspection and integrity checks of packs and runtime trees, for tools (`hearth info`,
//! `hearth check`, `hearth pack info`).

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{self, AssetKind, MANIFEST_PATH};
use crate::format::hnames::{NamesView, NAMES_PATH};
use crate::format::hpack;
use crate::read::error::ReadError;
use crate::read::pak::PakReader;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod animation;
mod font;
mod manifest;
mod material;
mod mesh;
mod names;
mod output_file;
mod scene;
mod shader;
mod text;
mod texture;

pub use animation::describe_hanim;
pub use font::describe_font;
pub use material::describe_hmat;
pub use mesh::describe_hmesh;
pub use output_file::write_output;
pub use scene::describe_scene;
pub use shader::{describe_shader, is_spirv};
pub use text::{is_hidden_control, line_field};
pub use texture::{check_ktx2, describe_ktx2};

/// What the tools know of one built-in kind: how to describe, count and check one of its
/// files (its name and extensions are [`AssetKind`]'s, from [`crate::format::kind::KINDS`]).
/// Each kind's entry lives in its own file beside this one; [`KINDS`] lists them, and `hearth
/// info`, `hearth check` and the report read it instead of keeping a `match` of their own.
#[derive(Debug, Clone, Copy)]
pub struct KindTools {
    /// The kind.
    pub kind: AssetKind,
    /// A one-line description of a file of this kind.
    pub describe: Option<DescribeFn>,
    /// The numbers a tool reports for a file of this kind (see [`file_counts`]).
    pub counts: Option<CountsFn>,
    /// Checks a file of this kind against the rest of its output folder, adding problems.
    pub check: Option<CheckFn>,
}

/// A one-line description of a file's bytes.
pub type DescribeFn = fn(&[u8]) -> Result<String, ReadError>;
/// Named numbers of a file's bytes.
pub type CountsFn = fn(&[u8]) -> Result<Vec<(&'static str, u64)>, ReadError>;
/// Checks a file (runtime path, bytes) in its output folder, adding problems.
pub type CheckFn = fn(&TreeCheck<'_>, &str, &[u8], &mut Vec<String>);

/// hearth's built-in kinds (blob has no entry: nothing to describe, count or check).
pub static KINDS: [KindTools; 10] = [
    texture::TEXTURE,
    texture::LUT,
    mesh::TOOLS,
    material::TOOLS,
    animation::TOOLS,
    shader::TOOLS,
    font::TOOLS,
    scene::TOOLS,
    manifest::TOOLS,
    names::TOOLS,
];

/// The tools of `kind`, if it is one of hearth's built-in kinds other than blob.
pub fn kind_tools(kind: AssetKind) -> Option<&'static KindTools> {
    KINDS.iter().find(|tools| tools.kind == kind)
}

/// The tools of the kind whose extension ends `path` ([`AssetKind::from_path`]).
pub fn kind_tools_for_path(path: &str) -> Option<&'static KindTools> {
    kind_tools(AssetKind::from_path(path))
}

/// A one-line description of a file of `kind` (`None` for kinds with nothing to say).
pub fn describe(kind: AssetKind, bytes: &[u8]) -> Option<Result<String, ReadError>> {
    kind_tools(kind)?.describe.map(|describe| describe(bytes))
}

/// What a kind's check sees of the output folder it checks.
#[derive(Debug)]
pub struct TreeCheck<'a> {
    /// The bake's files.
    pub files: &'a OutputFolder,
    /// `assets.hman`'s rows: path -> hash.
    pub listed: BTreeMap<&'a str, u64>,
    /// `assets.hman`'s rows: hash -> path.
    pub by_hash: BTreeMap<u64, &'a str>,
}

impl<'a> TreeCheck<'a> {
    /// The check of a bake whose files are `files` and whose manifest rows are `rows`.
    pub fn new(files: &'a OutputFolder, rows: &[hman::ManifestEntry<'a>]) -> Self {
        Self {
            files,
            listed: rows.iter().map(|r| (r.path, r.hash)).collect(),
            by_hash: rows.iter().map(|r| (r.hash, r.path)).collect(),
        }
    }
}

/// Where a pack's bytes go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackLayout {
    /// Header bytes.
    pub header: u64,
    /// Table bytes: v2 TOC, or v3/v4 entry table + directory table + hash index.
    pub tables: u64,
    /// v3/v4 string table bytes (v2 keeps paths in its TOC).
    pub strings: u64,
    /// Stored payload bytes.
    pub payload: u64,
    /// v5: the entry digest table and the signature block.
    pub signature: u64,
    /// Alignment padding bytes.
    pub padding: u64,
    /// Uncompressed payload bytes.
    pub uncompressed: u64,
    /// Per kind ([`Entry::kind`](crate::Entry::kind), mapped for v2/v3): (entries,
    /// uncompressed bytes, stored bytes).
    pub per_kind: BTreeMap<AssetKind, (usize, u64, u64)>,
}

/// Breaks a pack down by region and by kind. Fails on the first invalid entry.
pub fn pack_layout(pak: &PakReader) -> Result<PackLayout, ReadError> {
    let mut layout = PackLayout::default();
    match pak.v3_header() {
        Some(h) => {
            layout.header = hpack::V3_HEADER_SIZE as u64;
            layout.tables = h.strings_offset.saturating_sub(h.entries_offset);
            layout.strings = h.strings_size;
            if pak.is_signed() {
                layout.signature =
                    (pak.len() * hpack::V5_DIGEST_SIZE + hpack::V5_SIGNATURE_SIZE) as u64;
            }
        }
        None => {
            layout.header = hpack::V2_HEADER_SIZE as u64;
            layout.tables = pak
                .bytes()
                .get(16..24)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes);
        }
    }
    for entry in pak.entries() {
        let entry = entry?;
        layout.payload = layout.payload.saturating_add(entry.stored_size());
        layout.uncompressed = layout.uncompressed.saturating_add(entry.size());
        let row = layout.per_kind.entry(entry.kind()).or_default();
        row.0 += 1;
        row.1 = row.1.saturating_add(entry.size());
        row.2 = row.2.saturating_add(entry.stored_size());
    }
    // Saturating: entries of a damaged pack may overlap, claiming more payload than the file.
    layout.padding = (pak.bytes().len() as u64)
        .saturating_sub(layout.header)
        .saturating_sub(layout.tables)
        .saturating_sub(layout.strings)
        .saturating_sub(layout.payload)
        .saturating_sub(layout.signature);
    Ok(layout)
}

/// The kind of each file an output folder's `assets.hman` lists, by runtime path (empty when
/// the folder has no readable manifest).
pub fn manifest_kinds(root: &Path) -> BTreeMap<String, AssetKind> {
    let Ok(bytes) = read_tree_file(root, MANIFEST_PATH) else {
        return BTreeMap::new();
    };
    hman::parse(&bytes)
        .map(|rows| kinds_by_path(&rows))
        .unwrap_or_default()
}

/// The bytes of the file at runtime path `rel` of the tree at `root`, read as
/// [`TreeReader`](crate::TreeReader) reads it: no link followed on the way, a regular file
/// only (a FIFO is refused, not waited on). Errors name the file.
fn read_tree_file(root: &Path, rel: &str) -> Result<Vec<u8>, String> {
    match crate::read::assets::read_in_tree(root, rel) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => {
            let path = root.join(rel);
            match std::fs::symlink_metadata(&path) {
                Ok(_) => Err(not_regular(&path).to_string()),
                Err(e) => Err(format!("{}: {e}", path.display())),
            }
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The largest file `hearth info FILE` reads: the largest entry a pack may hold
/// ([`Limits::max_entry_size`](crate::read::pak::Limits::max_entry_size)).
pub const MAX_NAMED_FILE_BYTES: u64 = 1 << 32;

/// The bytes of a file a user named (`hearth info FILE`, a `--timings` file): a link is
/// followed, but only a regular file is read (a FIFO or a device is refused, not waited on or
/// read without end), at most `cap` bytes of it. Errors name the file.
pub fn read_named_file(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    crate::read::regular_file::read_named(path, cap).map_err(|e| format!("{}: {e}", path.display()))
}

/// The error for something in a tree that is neither a folder nor a regular file, naming it.
fn not_regular(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{}: not a regular file (a runtime tree holds only files and folders)",
            path.display()
        ),
    )
}

/// The kind of each manifest row, by runtime path.
fn kinds_by_path(rows: &[hman::ManifestEntry<'_>]) -> BTreeMap<String, AssetKind> {
    rows.iter()
        .map(|row| (row.path.to_owned(), row.kind))
        .collect()
}

/// Whether [`file_counts`] reports anything for `kind` (so a tool need not read other files).
pub fn has_counts(kind: AssetKind) -> bool {
    kind_tools(kind).is_some_and(|tools| tools.counts.is_some())
}

/// The numbers a tool reports for a baked file of `kind`, by name, parsed the way the runtime
/// reads the file:
///
/// - texture, LUT: `width`, `height`, `depth`, `levels`, `layers`, `faces`, `vk_format` (0 for
///   UASTC);
/// - mesh: `vertices`, `indices`, `triangles`, `submeshes`, `meshlets`, `materials`, `joints`,
///   `lods`, `shadow_vertices` (0 without a `SHDW` chunk), `uv_sets` (1, or 2 with `UVS1`),
///   `colors` (1 with `COLR`, else 0), `morph_targets`;
/// - material table: `materials`;
/// - animation: `clips`, `channels`;
/// - manifest: `entries`;
/// - font: for `.hfont`, `glyphs`, `pages`, `kernings`; for other fonts (TTF), none;
/// - scene: `refs`, `geometry`;
/// - shader: for SPIR-V, `stages` (distinct execution models) and `entry_points`; for text
///   shaders (WGSL, GLSL), none;
/// - every other kind: none (an empty list).
pub fn file_counts(kind: AssetKind, bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    match kind_tools(kind).and_then(|tools| tools.counts) {
        Some(counts) => counts(bytes),
        None => Ok(Vec::new()),
    }
}

/// Whether `dir` holds a bake of its own (a preset's `output` subfolder): its own
/// `assets.hman` (or, pack-only, a `.hpack`) next to hearth's bookkeeping (`.hearth-lock`,
/// `.hearth-cache`), which every bake writes into its output folder and no runtime tree
/// contains (runtime paths have no dot-leading components).
pub fn is_bake_folder(dir: &Path) -> bool {
    (dir.join(".hearth-lock").is_file() || dir.join(".hearth-cache").is_file())
        && (dir.join(MANIFEST_PATH).is_file() || root_packs(dir).next().is_some())
}

/// Files of a runtime tree, relative and `/`-separated, sorted. Left out: hearth's own
/// bookkeeping files (cache, lock, temp files: every dot-leading name), the packs (`.hpack`
/// files at the root that the root's `assets.hman` does not list: a baked `levels.hpack` blob
/// is a tree file), and subfolders holding a bake of their own ([`is_bake_folder`]; see
/// [`nested_bakes`]). A link or a special file (FIFO, socket, device) in the tree is an error
/// naming it: the tools read a tree as the runtime does, never through a link.
pub fn tree_files(root: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    Ok(walk_tree(root)?.0)
}

/// The subfolders of `root` (at any depth) that hold a bake of their own, such as a preset's
/// `output = "mobile"`, relative and `/`-separated, sorted. [`check_output`] checks each of
/// them as its own output folder.
pub fn nested_bakes(root: &Path) -> std::io::Result<Vec<String>> {
    Ok(walk_tree(root)?.1)
}

fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A runtime tree's files (relative path, path on disk) and its nested bake folders.
type Walk = (Vec<(String, PathBuf)>, Vec<String>);

/// (tree files, nested bake folders), both sorted.
fn walk_tree(root: &Path) -> std::io::Result<Walk> {
    let listed = manifest_kinds(root);
    let mut files = Vec::new();
    let mut nested = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    let at = |dir: &Path, e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("{}: {e}", dir.display()))
    };
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| at(&dir, e))? {
            let entry = entry.map_err(|e| at(&dir, e))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let file_type = entry.file_type().map_err(|e| at(&path, e))?;
            if !name.starts_with('.') && file_type.is_symlink() {
                return Err(crate::read::assets::tree_link(&path));
            }
            if !name.starts_with('.') && !file_type.is_dir() && !file_type.is_file() {
                return Err(not_regular(&path));
            }
            if file_type.is_dir() {
                if name.starts_with('.') {
                    continue; // the baker's own (staging), never part of the tree
                }
                if is_bake_folder(&path) {
                    nested.push(rel_path(root, &path));
                } else {
                    stack.push(path);
                }
            } else if !name.starts_with('.') {
                let rel = rel_path(root, &path);
                let is_pack = dir == root
                    && name.to_ascii_lowercase().ends_with(".hpack")
                    && !listed.contains_key(&rel);
                if !is_pack {
                    files.push((rel, path));
                }
            }
        }
    }
    files.sort();
    nested.sort();
    Ok((files, nested))
}

/// Cross-file integrity of an output folder: `assets.hman` parses and every row points at an
/// existing file whose path hashes to the row's hash; every file is in the manifest; every
/// pack (a root `.hpack` the manifest does not list) verifies and matches the tree file for
/// file (and a v4 pack's entry kinds match the manifest rows); every `.ktx2` is valid; every
/// `.hmesh` is valid, with a companion `.hmat` whose rows match its materials and whose
/// texture refs resolve through the manifest to existing files. A subfolder holding a bake of
/// its own (a preset's `output`, see [`is_bake_folder`]) is not part of the tree: it is
/// checked the same way on its own, its problems prefixed with its path (`mobile/: …`); a
/// folder holding only such bakes (no file of its own) is checked through them. A pack-only
/// bake's folder (one `.hpack`, no tree) has its pack checked the same way, entry for file.
/// Returns the problems found (empty when all is well) and the number of files checked.
pub fn check_output(root: &Path) -> (Vec<String>, usize) {
    // One pack file: checked as a pack-only bake's pack (its folder's pending commit too).
    if is_pack_file(root) {
        let folder = root.parent().unwrap_or(Path::new("."));
        return check_pack_only(folder, root);
    }
    let (files, nested) = match walk_tree(root) {
        Ok(walk) => walk,
        // (The walk's errors name the file or folder.)
        Err(e) => return (vec![e.to_string()], 0),
    };
    // Only bakes in subfolders and no file of its own (manifest, pack or tree file): a folder
    // of presets' outputs.
    let own_file_at_root = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_type().is_ok_and(|t| !t.is_dir())
                && !e.file_name().to_string_lossy().starts_with('.')
        });
    let container = !nested.is_empty() && files.is_empty() && !own_file_at_root;
    let (mut problems, mut count) = match (container, pack_only(root, &files)) {
        (true, _) => (Vec::new(), 0),
        (false, Ok(Some(pack))) => check_pack_only(root, &pack),
        (false, Ok(None)) => check_tree(root, files),
        (false, Err(e)) => (vec![e.to_string()], 0),
    };
    for sub in nested {
        let (sub_problems, sub_count) = check_output(&root.join(&sub));
        problems.extend(sub_problems.into_iter().map(|p| format!("{sub}/: {p}")));
        count += sub_count;
    }
    (problems, count)
}

/// Whether `path` is a file named `*.hpack` (any case): what the tools read as a pack.
pub fn is_pack_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("hpack"))
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// An output folder as the tools read it (`hearth info`, `hearth report`): a runtime tree, or
/// the pack of a pack-only bake (`tree = false`), whose entries stand for the tree's files.
#[derive(Debug)]
pub enum OutputFolder {
    /// A runtime tree at `root`: its files (see [`tree_files`]).
    Tree {
        /// The output folder.
        root: PathBuf,
        /// Its files: (runtime path, path on disk), sorted.
        files: Vec<(String, PathBuf)>,
    },
    /// A pack-only bake's folder: its one pack, opened.
    Pack(Box<PakReader>),
}

impl OutputFolder {
    /// Reads the output folder `root`: its tree, or for a pack-only bake its pack.
    pub fn open(root: &Path) -> Result<Self, String> {
        // Read as the runtime reads it: not while a bake's commit is pending.
        crate::read::assets::refuse_pending_commit(root).map_err(|e| e.to_string())?;
        // (The walk's errors name the file or folder.)
        let files = tree_files(root).map_err(|e| e.to_string())?;
        match pack_only(root, &files).map_err(|e| e.to_string())? {
            Some(pack) => PakReader::open(&pack)
                .map(|pak| OutputFolder::Pack(Box::new(pak)))
                .map_err(|e| format!("{}: {e}", pack.display())),
            None => Ok(OutputFolder::Tree {
                root: root.to_path_buf(),
                files,
            }),
        }
    }

    /// Reads one pack file (`assets.hpack`, a pack-only bake's or a shipped one) as the folder
    /// it stands for: its entries are the tree's files.
    pub fn open_pack(pack: &Path) -> Result<Self, String> {
        PakReader::open(pack)
            .map(|pak| OutputFolder::Pack(Box::new(pak)))
            .map_err(|e| format!("{}: {e}", pack.display()))
    }

    /// The baked files' runtime paths, sorted.
    pub fn paths(&self) -> Vec<String> {
        match self {
            OutputFolder::Tree { files, .. } => files.iter().map(|(rel, _)| rel.clone()).collect(),
            OutputFolder::Pack(pak) => pak
                .entries()
                .flatten()
                .map(|e| e.path().into_owned())
                .collect(),
        }
    }

    /// Whether the bake has a file at runtime path `rel`.
    pub fn has(&self, rel: &str) -> bool {
        match self {
            OutputFolder::Tree { files, .. } => tree_has(files, rel),
            OutputFolder::Pack(pak) => pak.find(rel).is_ok_and(|entry| entry.is_some()),
        }
    }

    /// The size of the baked file at `rel`.
    pub fn size(&self, rel: &str) -> Result<u64, String> {
        match self {
            OutputFolder::Tree { root, files } if tree_has(files, rel) => {
                match std::fs::symlink_metadata(root.join(rel)) {
                    Ok(meta) if meta.is_file() => Ok(meta.len()),
                    Ok(_) => Err(not_regular(&root.join(rel)).to_string()),
                    Err(e) => Err(e.to_string()),
                }
            }
            OutputFolder::Tree { .. } => Err("not in the tree".to_owned()),
            OutputFolder::Pack(pak) => match pak.find(rel) {
                Ok(Some(entry)) => Ok(entry.size()),
                Ok(None) => Err("not in the pack".to_owned()),
                Err(e) => Err(e.to_string()),
            },
        }
    }

    /// The bytes of the baked file at `rel`, a file of the tree read as the runtime reads it
    /// (no link followed, regular files only).
    pub fn read(&self, rel: &str) -> Result<Vec<u8>, String> {
        match self {
            OutputFolder::Tree { root, files } if tree_has(files, rel) => read_tree_file(root, rel),
            OutputFolder::Tree { .. } => Err("not in the tree".to_owned()),
            OutputFolder::Pack(pak) => match pak.get(rel) {
                Ok(Some(bytes)) => Ok(bytes.into_owned()),
                Ok(None) => Err("not in the pack".to_owned()),
                Err(e) => Err(e.to_string()),
            },
        }
    }

    /// The kind of each file the bake's `assets.hman` lists, by runtime path.
    pub fn manifest_kinds(&self) -> BTreeMap<String, AssetKind> {
        let bytes = self.read(MANIFEST_PATH).unwrap_or_default();
        hman::parse(&bytes)
            .map(|rows| kinds_by_path(&rows))
            .unwrap_or_default()
    }
}

/// Whether the walked tree `files` (sorted) has runtime path `rel`.
fn tree_has(files: &[(String, PathBuf)], rel: &str) -> bool {
    files
        .binary_search_by(|(path, _)| path.as_str().cmp(rel))
        .is_ok()
}

/// The pack of a pack-only bake's folder (`tree = false`) whose tree files are `files`: no tree
/// file, no `assets.hman`, and one `.hpack` at the root. Several packs there are an error
/// naming them.
fn pack_only(root: &Path, files: &[(String, PathBuf)]) -> Result<Option<PathBuf>, ReadError> {
    if !files.is_empty() || root.join(MANIFEST_PATH).exists() {
        return Ok(None);
    }
    crate::read::assets::only_pack(root)
}

/// The non-hidden `.hpack` files at the root of a folder.
fn root_packs(root: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("hpack"))
                && p.file_name()
                    .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
        })
}

/// [`check_output`] of one output folder whose tree is `files`.
fn check_tree(root: &Path, files: Vec<(String, PathBuf)>) -> (Vec<String>, usize) {
    let mut problems = pending_commit(root);
    let count = files.len();
    let folder = OutputFolder::Tree {
        root: root.to_path_buf(),
        files,
    };
    let manifest_bytes = match read_tree_file(root, MANIFEST_PATH) {
        Ok(bytes) => bytes,
        Err(e) => return (vec![e], count),
    };
    match hman::parse(&manifest_bytes) {
        Err(e) => problems.push(format!("{MANIFEST_PATH}: {e}")),
        Ok(rows) => {
            check_bake(&TreeCheck::new(&folder, &rows), &rows, &mut problems);
        }
    }
    // v4 entry kinds must be the manifest rows' (manifest itself: MANIFEST; no row: BLOB).
    let listed_kinds = manifest_kinds(root);
    // The packs: root `.hpack` files the manifest does not list (a listed one is a baked file).
    let packs = root_packs(root).filter(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        name.is_none_or(|n| !listed_kinds.contains_key(&n))
    });
    for pack_path in packs {
        let name = pack_path.display();
        let pak = match PakReader::open_verified(&pack_path) {
            Ok(pak) => pak,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let mut in_pack = 0;
        for entry in pak.entries().flatten() {
            in_pack += 1;
            let path = entry.path();
            if let Some(problem) = kind_problem(&pak, &entry, &listed_kinds) {
                problems.push(format!("{name}: {problem}"));
            }
            if !folder.has(&path) {
                problems.push(format!("{name}: `{path}` is not in the tree"));
                continue;
            }
            match (folder.read(&path), entry.bytes()) {
                (Ok(on_disk), Ok(packed)) if on_disk == *packed => {}
                (Ok(_), Ok(_)) => problems.push(format!(
                    "{name}: `{path}` differs from the file in the tree"
                )),
                (Err(e), _) => problems.push(format!("{name}: `{path}`: {e}")),
                (_, Err(e)) => problems.push(format!("{name}: `{path}`: {e}")),
            }
        }
        if in_pack != count {
            problems.push(format!(
                "{name}: {in_pack} entries, but the tree has {} files",
                count
            ));
        }
    }
    (problems, count)
}

/// A pack-only bake's folder (see [`check_output`]): its one pack, checked as a tree is.
fn check_pack_only(root: &Path, pack_path: &Path) -> (Vec<String>, usize) {
    let mut problems = pending_commit(root);
    let name = pack_path.display();
    let pak = match PakReader::open_verified(pack_path) {
        Ok(pak) => pak,
        Err(e) => return (vec![format!("{name}: {e}")], 0),
    };
    let manifest_bytes = match pak.get(MANIFEST_PATH) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return (vec![format!("{name}: no `{MANIFEST_PATH}` entry")], 0),
        Err(e) => return (vec![format!("{name}: `{MANIFEST_PATH}`: {e}")], 0),
    };
    let manifest_bytes = manifest_bytes.into_owned();
    let entries = pak.len();
    let rows = match hman::parse(&manifest_bytes) {
        Ok(rows) => rows,
        Err(e) => {
            problems.push(format!("{name}: {MANIFEST_PATH}: {e}"));
            return (problems, entries);
        }
    };
    let listed_kinds = kinds_by_path(&rows);
    for entry in pak.entries().flatten() {
        if let Some(problem) = kind_problem(&pak, &entry, &listed_kinds) {
            problems.push(format!("{name}: {problem}"));
        }
    }
    let folder = OutputFolder::Pack(Box::new(pak));
    check_bake(&TreeCheck::new(&folder, &rows), &rows, &mut problems);
    (problems, entries)
}

/// An interrupted commit in an output folder, as a problem.
fn pending_commit(root: &Path) -> Vec<String> {
    let journal = root
        .join(crate::format::STAGING_DIR)
        .join(crate::format::JOURNAL_FILE);
    match journal.exists() {
        true => vec![format!(
            "{}: an interrupted bake's commit is pending (`hearth check` or the next bake finishes it)",
            journal.display()
        )],
        false => Vec::new(),
    }
}

/// The checks of a bake's files, wherever they are: every manifest row names a file the bake
/// has and hashes to its path; every file is listed, and passes its kind's check; the name
/// table names listed files.
fn check_bake(check: &TreeCheck<'_>, rows: &[hman::ManifestEntry<'_>], problems: &mut Vec<String>) {
    check_names(check, problems);
    for row in rows {
        if !check.files.has(row.path) {
            problems.push(format!("{MANIFEST_PATH}: `{}` does not exist", row.path));
        }
        if hash_runtime_path(row.path) != row.hash {
            problems.push(format!(
                "{MANIFEST_PATH}: hash {:#018x} does not match `{}`",
                row.hash, row.path
            ));
        }
    }
    for rel in check.files.paths() {
        let rel = rel.as_str();
        let bookkeeping = rel == MANIFEST_PATH || rel == NAMES_PATH;
        if !bookkeeping && !check.listed.contains_key(rel) {
            problems.push(format!("`{rel}` is not listed in {MANIFEST_PATH}"));
        }
        let Some(kind_check) = kind_tools_for_path(rel).and_then(|tools| tools.check) else {
            continue;
        };
        match check.files.read(rel) {
            Ok(bytes) => kind_check(check, rel, &bytes, problems),
            Err(e) => problems.push(format!("`{rel}`: {e}")),
        }
    }
}

/// A v4 (or later) pack entry whose kind is not its manifest row's (the manifest itself:
/// MANIFEST; the name table: NAMES; no row: BLOB), as a problem.
fn kind_problem(
    pak: &PakReader,
    entry: &crate::read::pak::Entry<'_>,
    listed_kinds: &BTreeMap<String, AssetKind>,
) -> Option<String> {
    if pak.version() < 4 {
        return None;
    }
    let path = entry.path();
    let want = match listed_kinds.get(&*path) {
        Some(kind) => *kind,
        None if path == MANIFEST_PATH => AssetKind::MANIFEST,
        None if path == NAMES_PATH => AssetKind::NAMES,
        None => AssetKind::BLOB,
    };
    (entry.kind() != want).then(|| {
        format!(
            "`{path}` has kind {}, but {MANIFEST_PATH} says {want}",
            entry.kind()
        )
    })
}

/// `assets.hnames`, when the bake has one (older bakes do not): it parses, and every row
/// names a file `assets.hman` lists, by its hash.
fn check_names(tree: &TreeCheck<'_>, problems: &mut Vec<String>) {
    // (A tree's is opened without following a link, regular files only: see `read`.)
    let Ok(bytes) = tree.files.read(NAMES_PATH) else {
        return;
    };
    match NamesView::parse(&bytes) {
        Err(e) => problems.push(format!("{NAMES_PATH}: {e}")),
        Ok(names) => {
            for row in names.rows() {
                if tree.listed.get(row.path) != Some(&row.hash) {
                    problems.push(format!(
                        "{NAMES_PATH}: `{}` names `{}`, which {MANIFEST_PATH} does not list \
                         with hash {:#018x}",
                        row.name, row.path, row.hash
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hman::{ColorSpace, ManifestEntry};

    #[test]
    fn kinds_from_paths_follow_the_bakers_extensions() {
        for (path, kind) in [
            ("models/chair/tex_0.ktx2", AssetKind::TEXTURE),
            ("grading/warm.lut.ktx2", AssetKind::LUT),
            ("models/chair.HMESH", AssetKind::MESH),
            ("models/chair.hmat", AssetKind::MATERIAL),
            ("models/chair.hanim", AssetKind::ANIMATION),
            ("assets.hman", AssetKind::MANIFEST),
            ("shaders/a.wgsl", AssetKind::SHADER),
            ("shaders/a.spv", AssetKind::SHADER),
            ("fonts/ui.otf", AssetKind::FONT),
            ("data/level.json", AssetKind::BLOB),
            ("no-extension", AssetKind::BLOB),
        ] {
            assert_eq!(AssetKind::from_path(path), kind, "{path}");
        }
    }

    #[test]
    fn counts_per_kind() {
        let manifest = hman::write(&[ManifestEntry {
            hash: 1,
            kind: AssetKind(200),
            color_space: ColorSpace::Linear,
            path: "x.lvl",
        }]);
        assert_eq!(
            file_counts(AssetKind::MANIFEST, &manifest).unwrap(),
            [("entries", 1)]
        );
        assert!(file_counts(AssetKind::TEXTURE, b"not a ktx2").is_err());
        assert!(file_counts(AssetKind::MESH, b"not a mesh").is_err());
        for value in 0..=255u8 {
            let kind = AssetKind(value);
            if !has_counts(kind) {
                assert_eq!(file_counts(kind, b"any bytes").unwrap(), [], "{kind}");
            }
        }
        assert!(has_counts(AssetKind::LUT) && !has_counts(AssetKind::BLOB));
    }
}
