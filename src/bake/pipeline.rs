//! The pipeline contract: every asset kind, built-in or the game's own, is a [`Pipeline`].
//!
//! A pipeline says which sources it claims ([`Claim`]), its name and version (part of the
//! cache key), the settings table it reads, and how it bakes one source through a
//! [`BakeContext`]: side files are read through the context (and so recorded as inputs of the
//! asset), outputs are emitted with their [`AssetKind`], references to other assets are
//! recorded and checked at the end of the bake, and warnings are collected. The baker does
//! everything else: planning, settings layering, caching, hashing, manifest rows, packing.
//!
//! A pipeline may also claim tables of pak's asset files ([`Pipeline::asset_tables`]): a `*.toml`
//! whose one table it claims is baked by [`Pipeline::bake_asset_table`].
//!
//! A [`Registry`] holds the pipelines of a bake: [`Registry::with_builtins`] has hearth's own
//! (image, cubemap, array, LUT, model, blob), and [`Baker::pipeline`](crate::bake::Baker::pipeline)
//! or [`CargoBake::pipeline`](crate::bake::cargo::CargoBake::pipeline) add the game's.

use crate::bake::error::BakeError;
use crate::bake::settings;
use crate::format::hash::hash_asset_ref;
use crate::format::hman::{AssetKind, ColorSpace, MANIFEST_PATH};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a pipeline's bake returns on failure: any error; the baker adds the source file and
/// the pipeline's name to the message.
pub type PipelineError = Box<dyn std::error::Error + Send + Sync>;

/// An asset kind's baker.
///
/// ```
/// use hearth::bake::pipeline::{BakeContext, Claim, Output, Pipeline, PipelineError, Source};
/// use hearth::AssetKind;
///
/// /// `*.dialogue.txt` -> `.dialogue`: one line per entry, trimmed, with a line count.
/// struct Dialogue;
///
/// #[derive(serde::Deserialize, Default)]
/// #[serde(default)]
/// struct DialogueSettings {
///     uppercase: bool,
/// }
///
/// impl Pipeline for Dialogue {
///     type Settings = DialogueSettings; // from `dialogue = { uppercase = true }` in any layer
///     fn name(&self) -> &str { "dialogue" }
///     fn version(&self) -> u32 { 1 }
///     fn claims(&self) -> Vec<Claim> { vec![Claim::file("*.dialogue.txt")] }
///     fn bake(
///         &self,
///         source: &Source<'_>,
///         settings: &DialogueSettings,
///         cx: &mut BakeContext<'_>,
///     ) -> Result<(), PipelineError> {
///         let text = std::str::from_utf8(source.bytes())?;
///         let mut lines: Vec<String> = text.lines().map(|l| l.trim().to_owned()).collect();
///         if settings.uppercase {
///             lines.iter_mut().for_each(|l| *l = l.to_uppercase());
///         }
///         let mut out = (lines.len() as u32).to_le_bytes().to_vec();
///         out.extend(lines.join("\n").into_bytes());
///         let path = format!("{}.dialogue", source.stem().trim_end_matches(".dialogue"));
///         cx.emit(Output::new(path, AssetKind::game(130).unwrap(), out));
///         Ok(())
///     }
/// }
/// ```
pub trait Pipeline: Send + Sync + 'static {
    /// The typed settings, deserialized from this pipeline's [settings table](Self::settings_table)
    /// after layering (`[content]` < `[default]` < preset < group < rules). Derive
    /// `Deserialize` with `#[serde(default)]` so that unset keys take their defaults.
    type Settings: DeserializeOwned + Default + Send + Sync + 'static;

    /// A unique name, for messages and the cache.
    fn name(&self) -> &str;

    /// The encoder version: part of the cache key, so bumping it re-bakes every asset of this
    /// pipeline. Bump it whenever the output for the same input changes, a settings default
    /// included.
    fn version(&self) -> u32;

    /// The sources this pipeline bakes. The most specific claim wins (`*.lut.cube` over
    /// `*.cube`); two pipelines claiming the same pattern is an error at registration.
    fn claims(&self) -> Vec<Claim>;

    /// The manifest table its settings come from (`texture = { … }`); by default its name.
    /// Several pipelines may share one table.
    fn settings_table(&self) -> &str {
        self.name()
    }

    /// Bakes one source: reads side files, emits outputs, records references and warnings
    /// through `cx`.
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &Self::Settings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError>;

    /// Whether [`dependencies`](Self::dependencies) can name anything: only then does the
    /// plan read this pipeline's sources (every bake, cached or not), so keep it `false`
    /// (the default) for pipelines of large files.
    fn names_dependencies(&self) -> bool {
        false
    }

    /// Other sources this file names that must be baked as assets of their own even when no
    /// content group matches them (a scene's meshes and materials): paths relative to the
    /// content root. The plan adds each existing file no group claims, in the group of the
    /// file that names it, and asks it in turn. Called with the file's bytes at planning
    /// time, when [`names_dependencies`](Self::names_dependencies) is on; by default, none.
    fn dependencies(&self, source_rel: &str, bytes: &[u8]) -> Vec<String> {
        let _ = (source_rel, bytes);
        Vec::new()
    }

    /// The tables of pak's asset files this pipeline bakes (`["mesh", "animation"]`): a
    /// `*.toml` whose one top-level table has one of these names goes to
    /// [`bake_asset_table`](Self::bake_asset_table). Two pipelines claiming one table is an
    /// error at registration. By default, none.
    fn asset_tables(&self) -> &[&str] {
        &[]
    }

    /// Bakes one asset file whose table this pipeline claims, with this pipeline's settings.
    /// Only called for the tables of [`asset_tables`](Self::asset_tables).
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        settings: &Self::Settings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let _ = (settings, cx);
        Err(format!(
            "`[{}]` asset files are not baked by this pipeline",
            file.table()
        )
        .into())
    }

    /// The other sources an asset file of one of this pipeline's tables names (a scene's
    /// meshes), as [`dependencies`](Self::dependencies) gives them for whole files.
    fn asset_table_dependencies(&self, file: &AssetTable<'_>) -> Vec<String> {
        let _ = file;
        Vec::new()
    }
}

/// One of pak's asset files (`chair.toml` holding one `[mesh]` table), handed to the pipeline
/// that claims its table ([`Pipeline::asset_tables`]).
#[derive(Debug, Clone, Copy)]
pub struct AssetTable<'a> {
    pub(crate) rel: &'a str,
    pub(crate) table: &'a str,
    pub(crate) body: &'a toml::Table,
}

impl<'a> AssetTable<'a> {
    /// The TOML file's path relative to the content root (`props/chair.toml`).
    pub fn rel(&self) -> &'a str {
        self.rel
    }

    /// The path without `.toml` (`props/chair`): the base of its outputs' paths.
    pub fn name(&self) -> &'a str {
        self.rel.strip_suffix(".toml").unwrap_or(self.rel)
    }

    /// The table's name (`mesh`).
    pub fn table(&self) -> &'a str {
        self.table
    }

    /// The table's keys.
    pub fn body(&self) -> &'a toml::Table {
        self.body
    }
}

/// A source pattern a pipeline claims.
///
/// Patterns are `*` followed by a literal suffix, matched against the file or folder name
/// without regard to ASCII case: `*.glb`, `*.lut.cube`; `*` alone claims every file (the blob
/// pipeline's fallback). A folder claim makes a folder whose name matches one asset, baked
/// from the visible files directly inside it, in name order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pattern: String,
    folder: bool,
}

impl Claim {
    /// Files whose name matches `pattern` (`*.glb`).
    pub fn file(pattern: impl Into<String>) -> Self {
        Self {
            pattern: pattern.into(),
            folder: false,
        }
    }

    /// Folders whose name matches `pattern` (`*.env` or `*.env/`).
    pub fn folder(pattern: impl Into<String>) -> Self {
        let pattern: String = pattern.into();
        Self {
            pattern: pattern.strip_suffix('/').unwrap_or(&pattern).to_owned(),
            folder: true,
        }
    }

    /// The pattern as written (without a folder's trailing `/`).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether this claims folders.
    pub fn is_folder(&self) -> bool {
        self.folder
    }

    /// The lowercased literal suffix after the leading `*`, or why the pattern is not valid.
    fn suffix(&self) -> Result<String, String> {
        let suffix = self.pattern.strip_prefix('*').ok_or_else(|| {
            format!(
                "claim {:?}: a pattern is `*` followed by a literal suffix, like `*.glb`",
                self.pattern
            )
        })?;
        if suffix.contains(['*', '?', '[', ']', '/', '\\']) {
            return Err(format!(
                "claim {:?}: only one leading `*` is allowed, and no `?`, `[`, `/`",
                self.pattern
            ));
        }
        if self.folder && suffix.is_empty() {
            return Err("a folder claim needs a suffix (`*.env`)".to_owned());
        }
        Ok(suffix.to_ascii_lowercase())
    }
}

/// The source being baked: one file, or a claimed folder and its files.
#[derive(Debug)]
pub struct Source<'a> {
    pub(crate) rel: &'a str,
    pub(crate) path: &'a Path,
    pub(crate) folder: bool,
    pub(crate) files: &'a [SourceFile],
}

/// One file read for a [`Source`].
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Its path on disk.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl SourceFile {
    /// The file name (empty if it has none or it is not UTF-8).
    pub fn name(&self) -> &str {
        self.path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }
}

impl Source<'_> {
    /// The path relative to the content root, `/`-separated, as the manifest's globs see it
    /// (`models/chair.glb`, `sky.env`).
    pub fn rel(&self) -> &str {
        self.rel
    }

    /// [`rel`](Self::rel) without its last extension (`models/chair`, `grading/warm.lut`):
    /// the usual base of output paths.
    pub fn stem(&self) -> &str {
        let name_start = self.rel.rfind('/').map_or(0, |i| i + 1);
        match self.rel[name_start..].rfind('.') {
            Some(dot) if dot > 0 => &self.rel[..name_start + dot],
            _ => self.rel,
        }
    }

    /// The file or folder on disk.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// Whether the source is a claimed folder.
    pub fn is_folder(&self) -> bool {
        self.folder
    }

    /// The bytes of a file source (empty for a folder).
    pub fn bytes(&self) -> &[u8] {
        match (self.folder, self.files.first()) {
            (false, Some(file)) => &file.bytes,
            _ => &[],
        }
    }

    /// A folder source's visible files in name order; a file source's one file.
    pub fn files(&self) -> &[SourceFile] {
        self.files
    }
}

/// A file a pipeline emits into the runtime tree, the manifest and the pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub(crate) path: String,
    pub(crate) kind: AssetKind,
    pub(crate) color_space: ColorSpace,
    pub(crate) bytes: Vec<u8>,
    /// The names of its sub-assets by index (`assets.hnames`): material rows, clips.
    pub(crate) sub_assets: Vec<String>,
}

impl Output {
    /// An output at runtime path `path` (relative to the tree's root, `/`-separated), of
    /// `kind`, linear color space.
    pub fn new(path: impl Into<String>, kind: AssetKind, bytes: Vec<u8>) -> Self {
        Self {
            path: path.into(),
            kind,
            color_space: ColorSpace::Linear,
            bytes,
            sub_assets: Vec::new(),
        }
    }

    /// Names the file's sub-assets, by index: a material table's rows (by source material
    /// name), an animation's clips. Each is named `Parent#Sub` in `assets.hnames`
    /// (`docs/names.md`); an empty name stands for its index.
    pub fn sub_assets(mut self, names: Vec<String>) -> Self {
        self.sub_assets = names;
        self
    }

    /// Sets the color space recorded in `assets.hman`.
    pub fn color_space(mut self, color_space: ColorSpace) -> Self {
        self.color_space = color_space;
        self
    }

    /// The runtime path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// A side file a bake read (or tried to read), recorded as an input of the asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SideInput {
    pub path: PathBuf,
    /// xxh3-64 and length of the bytes; `None` when the file could not be read.
    pub digest: Option<(u64, u64)>,
}

/// What a bake gives the baker besides its outputs.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    pub outputs: Vec<Output>,
    pub side_inputs: Vec<SideInput>,
    /// (ref as written, its hash)
    pub references: Vec<(String, u64)>,
    /// (table, fingerprint) of every settings table read
    pub tables: Vec<(String, u64)>,
    pub warnings: Vec<String>,
    /// Side-file reads refused by the containment policy: any fails the asset.
    pub refused: Vec<String>,
}

/// The most bytes hearth reads from one input file (a source or a side file): 4 GiB, the
/// reader's default per-entry limit. A larger file is an error, not an allocation.
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

/// The baker's side of one bake: side-file reads, outputs, references, warnings.
///
/// Side files are confined to the content root: a reference that is absolute, climbs out
/// with `..`, or leads out through a symlink, and anything that is not a regular file
/// (`/dev/zero`, a FIFO), is refused. A refused read fails the asset even when the pipeline
/// ignores the error, naming the source and the reference.
#[derive(Debug)]
pub struct BakeContext<'a> {
    source_path: &'a Path,
    base: PathBuf,
    root: &'a Path,
    tables: &'a toml::Table,
    recorded: Recorded,
}

impl<'a> BakeContext<'a> {
    /// `base` and `root` are canonical: the folder side files resolve against, and the
    /// content root they must stay in.
    pub(crate) fn new(
        source_path: &'a Path,
        base: PathBuf,
        root: &'a Path,
        tables: &'a toml::Table,
    ) -> Self {
        Self {
            source_path,
            base,
            root,
            tables,
            recorded: Recorded::default(),
        }
    }

    pub(crate) fn finish(self) -> Recorded {
        self.recorded
    }

    /// The folder side files resolve against: a file source's folder, or a folder source
    /// itself (canonical).
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Reads a side file at `relative` (to [`base`](Self::base)) and records it as an input
    /// of this asset: a change to it re-bakes the asset, and build scripts re-run on it. A
    /// file that does not exist is recorded too, so creating it later re-bakes the asset. A
    /// reference outside the content root, or to something that is not a regular file, is
    /// refused (see the type's docs).
    pub fn read(&mut self, relative: &str) -> Result<Vec<u8>, BakeError> {
        let refuse = |this: &mut Self, why: String| {
            Err(this.refuse(format!("refused to read {relative:?}: {why}")))
        };
        let path = match self.confine(relative) {
            Ok(path) => path,
            Err(why) => return refuse(self, why),
        };
        match std::fs::metadata(&path) {
            Ok(meta) if !meta.is_file() => {
                return refuse(self, "not a regular file".into());
            }
            Ok(meta) if meta.len() > MAX_INPUT_BYTES => {
                let why = format!(
                    "{} bytes, over the {MAX_INPUT_BYTES}-byte input limit",
                    meta.len()
                );
                return refuse(self, why);
            }
            _ => {}
        }
        let result = std::fs::read(&path);
        let digest = result
            .as_ref()
            .ok()
            .map(|bytes| (xxhash_rust::xxh3::xxh3_64(bytes), bytes.len() as u64));
        self.record_side_input(path.clone(), digest);
        result.map_err(|e| BakeError::io(&path, e))
    }

    /// Whether a regular file exists at `relative` (to [`base`](Self::base)), recorded as an
    /// input of this asset whatever the answer, like [`read`](Self::read): creating, removing
    /// or changing that file later re-bakes the asset, in the incremental and the shared
    /// cache alike. A pipeline that picks a file by trying names asks here, never the file
    /// system. A file found is read once to record its digest. A path that leads outside the
    /// content root is refused as `read` refuses it; a folder or other non-file answers `false`.
    pub fn exists(&mut self, relative: &str) -> Result<bool, BakeError> {
        let path = match self.confine(relative) {
            Ok(path) => path,
            Err(why) => {
                let message = format!("refused to look for {relative:?}: {why}");
                return Err(self.refuse(message));
            }
        };
        if std::fs::metadata(&path).is_ok_and(|meta| meta.is_file()) {
            return self.read(relative).map(|_| true);
        }
        self.record_side_input(path, None);
        Ok(false)
    }

    /// The content root side files must stay in (canonical).
    pub(crate) fn root(&self) -> &Path {
        self.root
    }

    /// Records a file an importer read itself (a USD layer or texture opened through the
    /// stage's resolver, which cannot borrow the context) as an input of this asset, with the
    /// digest of the bytes it read, or `None` when it was missing: what [`read`](Self::read)
    /// records for its own reads.
    pub(crate) fn record_side_input(&mut self, path: PathBuf, digest: Option<(u64, u64)>) {
        self.recorded.side_inputs.push(SideInput { path, digest });
    }

    /// Records a read refused by the containment policy (see the type's docs), this context's
    /// or an importer's: the asset fails, naming the source and `message`.
    pub(crate) fn refuse(&mut self, message: String) -> BakeError {
        self.recorded.refused.push(message.clone());
        BakeError::asset(self.source_path, message)
    }

    /// Resolves `relative` against the base, inside the root: `..` lexically, then symlinks
    /// through the file system. A missing file resolves to its lexical path.
    fn confine(&self, relative: &str) -> Result<PathBuf, String> {
        use std::path::Component;
        if relative.is_empty() || relative.contains('\0') {
            return Err("an empty or malformed path".into());
        }
        let mut path = self.base.clone();
        for component in Path::new(relative).components() {
            match component {
                Component::Normal(part) => path.push(part),
                Component::CurDir => {}
                Component::ParentDir => {
                    path.pop();
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(
                        "an absolute path; side files must be inside the content root".into(),
                    )
                }
            }
        }
        if !path.starts_with(self.root) {
            return Err("it leads outside the content root".into());
        }
        match path.canonicalize() {
            Ok(real) if real.starts_with(self.root) => Ok(real),
            Ok(real) => Err(format!(
                "a symlink to {}, outside the content root",
                real.display()
            )),
            Err(_) => Ok(path),
        }
    }

    /// The layered settings of another table (`texture` for a model's embedded images),
    /// recorded in the cache key like the pipeline's own table. Unknown keys are ignored here:
    /// the manifest check warns about them once.
    pub fn settings<T: DeserializeOwned + Default>(&mut self, table: &str) -> Result<T, BakeError> {
        let value = self.tables.get(table);
        self.recorded
            .tables
            .push((table.to_owned(), settings::fingerprint(value)));
        settings::deserialize_table(value, |_| {}).map_err(|e| {
            let message = settings::qualify(table, &e);
            BakeError::asset(self.source_path, format!("settings {message}"))
        })
    }

    /// Emits an output file.
    pub fn emit(&mut self, output: Output) {
        self.recorded.outputs.push(output);
    }

    /// Whether this bake already emitted an output at `path` (emitting it twice is an error).
    pub fn emitted(&self, path: &str) -> bool {
        self.recorded.outputs.iter().any(|o| o.path == path)
    }

    /// Records a reference to another asset by its canonical ref (`models/chair/tex_0`,
    /// `textures/bricks`: the runtime path, with `.ktx2` dropped) and returns its 64-bit hash
    /// for the output to store. A reference to an asset that the bake does not produce fails
    /// the bake, naming both.
    pub fn reference(&mut self, asset_ref: &str) -> u64 {
        let hash = hash_asset_ref(asset_ref);
        self.recorded.references.push((asset_ref.to_owned(), hash));
        hash
    }

    /// A warning about the source, prefixed with its path.
    pub fn warn(&mut self, message: impl std::fmt::Display) {
        self.recorded
            .warnings
            .push(format!("{}: {message}", self.source_path.display()));
    }

    /// A warning that names its own file (a cubemap face, a side file).
    pub fn warn_about(&mut self, file: &Path, message: impl std::fmt::Display) {
        self.recorded
            .warnings
            .push(format!("{}: {message}", file.display()));
    }
}

/// The object-safe face of a [`Pipeline`], with its settings erased to TOML.
pub(crate) trait DynPipeline: Send + Sync {
    fn name(&self) -> &str;
    fn version(&self) -> u32;
    fn claims(&self) -> Vec<Claim>;
    fn settings_table(&self) -> &str;
    /// Deserializes one layer's table: unknown key paths go to `unknown`; a type error is
    /// returned.
    fn check_table(
        &self,
        value: &toml::Value,
        unknown: &mut dyn FnMut(String),
    ) -> Result<(), String>;
    /// Bakes one source; `registry` is the bake's, for pipelines that hand sources on.
    fn bake_dyn(
        &self,
        registry: &Registry,
        source: &Source<'_>,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError>;
    fn names_dependencies(&self) -> bool;
    fn dependencies(&self, registry: &Registry, source_rel: &str, bytes: &[u8]) -> Vec<String>;
    fn asset_tables(&self) -> &[&str];
    fn bake_asset_table_dyn(
        &self,
        file: &AssetTable<'_>,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError>;
    fn asset_table_dependencies(&self, file: &AssetTable<'_>) -> Vec<String>;
}

impl<P: Pipeline> DynPipeline for P {
    fn name(&self) -> &str {
        Pipeline::name(self)
    }
    fn version(&self) -> u32 {
        Pipeline::version(self)
    }
    fn claims(&self) -> Vec<Claim> {
        Pipeline::claims(self)
    }
    fn settings_table(&self) -> &str {
        Pipeline::settings_table(self)
    }
    fn check_table(
        &self,
        value: &toml::Value,
        unknown: &mut dyn FnMut(String),
    ) -> Result<(), String> {
        settings::deserialize_table::<P::Settings>(Some(value), unknown).map(|_| ())
    }
    fn bake_dyn(
        &self,
        _: &Registry,
        source: &Source<'_>,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let table = Pipeline::settings_table(self).to_owned();
        let settings: P::Settings = cx.settings(&table)?;
        self.bake(source, &settings, cx)
    }
    fn names_dependencies(&self) -> bool {
        Pipeline::names_dependencies(self)
    }
    fn dependencies(&self, _: &Registry, source_rel: &str, bytes: &[u8]) -> Vec<String> {
        Pipeline::dependencies(self, source_rel, bytes)
    }
    fn asset_tables(&self) -> &[&str] {
        Pipeline::asset_tables(self)
    }
    fn bake_asset_table_dyn(
        &self,
        file: &AssetTable<'_>,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let table = Pipeline::settings_table(self).to_owned();
        let settings: P::Settings = cx.settings(&table)?;
        self.bake_asset_table(file, &settings, cx)
    }
    fn asset_table_dependencies(&self, file: &AssetTable<'_>) -> Vec<String> {
        Pipeline::asset_table_dependencies(self, file)
    }
}

/// The pipelines of one bake, and which claims which sources.
#[derive(Clone, Default)]
pub struct Registry {
    pipelines: Vec<Arc<dyn DynPipeline>>,
    /// (lowercased suffix, is folder, pipeline index)
    claims: Vec<(String, bool, usize)>,
    /// Per last byte of a suffix (lowercase), the claims ending with it; the empty suffix
    /// (`*`) under every byte. [`Registry::classify`] runs per file and per folder walked: it
    /// looks only at these, not at every claim.
    by_last_byte: Vec<Vec<usize>>,
    /// (asset-file table name, pipeline index)
    tables: Vec<(String, usize)>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.pipelines.iter().map(|p| p.name()))
            .finish()
    }
}

impl Registry {
    /// A registry with no pipeline: every source would be unclaimed.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Adds a pipeline. Fails when its name is taken, a claim is malformed, or another
    /// pipeline already claims one of its patterns or [asset-file tables](Pipeline::asset_tables).
    pub fn register<P: Pipeline>(&mut self, pipeline: P) -> Result<(), BakeError> {
        self.register_dyn(Arc::new(pipeline))
    }

    /// [`register`](Self::register) for a pipeline already erased (the asset-file router).
    pub(crate) fn register_dyn(&mut self, pipeline: Arc<dyn DynPipeline>) -> Result<(), BakeError> {
        let name = pipeline.name();
        let error = |message: String| BakeError::Pipeline {
            pipeline: name.to_owned(),
            message,
        };
        if name.is_empty() {
            return Err(error("a pipeline needs a name".into()));
        }
        if self.pipelines.iter().any(|p| p.name() == name) {
            return Err(error(
                "a pipeline of this name is already registered".into(),
            ));
        }
        let index = self.pipelines.len();
        let owner_name = |owner: usize| self.pipelines.get(owner).map_or(name, |p| p.name());
        let mut claims = Vec::new();
        for claim in pipeline.claims() {
            let suffix = claim.suffix().map_err(&error)?;
            let taken = self
                .claims
                .iter()
                .chain(&claims)
                .find(|(s, folder, _)| *s == suffix && *folder == claim.folder);
            if let Some((_, _, owner)) = taken {
                return Err(error(format!(
                    "{} {:?} is already claimed by pipeline `{}`",
                    if claim.folder {
                        "folder pattern"
                    } else {
                        "pattern"
                    },
                    claim.pattern,
                    owner_name(*owner)
                )));
            }
            claims.push((suffix, claim.folder, index));
        }
        let mut tables: Vec<(String, usize)> = Vec::new();
        for table in pipeline.asset_tables() {
            if table.is_empty() || table.contains(['.', '[', ']', '"', '\'', ' ']) {
                return Err(error(format!(
                    "asset-file table {table:?} is not a plain name"
                )));
            }
            let taken = self.tables.iter().chain(&tables).find(|(t, _)| t == table);
            if let Some((_, owner)) = taken {
                return Err(error(format!(
                    "asset-file table `[{table}]` is already claimed by pipeline `{}`",
                    owner_name(*owner)
                )));
            }
            tables.push(((*table).to_owned(), index));
        }
        self.claims.extend(claims);
        self.tables.extend(tables);
        self.pipelines.push(pipeline);
        self.by_last_byte = (0..=255u8)
            .map(|byte| {
                let byte = byte.to_ascii_lowercase();
                (0..self.claims.len())
                    .filter(|&i| {
                        self.claims[i]
                            .0
                            .as_bytes()
                            .last()
                            .is_none_or(|&b| b == byte)
                    })
                    .collect()
            })
            .collect();
        Ok(())
    }

    /// The names of the registered pipelines, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.pipelines.iter().map(|p| p.name())
    }

    pub(crate) fn get(&self, index: usize) -> &dyn DynPipeline {
        &*self.pipelines[index]
    }

    pub(crate) fn all(&self) -> impl Iterator<Item = &dyn DynPipeline> {
        self.pipelines.iter().map(|p| &**p)
    }

    /// The pipeline claiming a file or folder by its name: the longest matching suffix.
    pub(crate) fn classify(&self, name: &str, folder: bool) -> Option<usize> {
        // Suffixes are stored lowercase: compared without regard to ASCII case, in place
        // (a lowercased copy of every name was an allocation per file and per component).
        let name = name.as_bytes();
        let ends_with = |suffix: &str| {
            name.len() >= suffix.len()
                && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
        };
        let last = name.last().copied().unwrap_or(0).to_ascii_lowercase();
        self.by_last_byte
            .get(last as usize)?
            .iter()
            .map(|&i| &self.claims[i])
            .filter(|(suffix, f, _)| *f == folder && ends_with(suffix))
            .max_by_key(|(suffix, _, _)| suffix.len())
            .map(|(_, _, index)| *index)
    }

    /// The asset-file tables the pipelines claim (`scene`, `mesh`, …), in registration order.
    pub fn asset_tables(&self) -> impl Iterator<Item = &str> {
        self.tables.iter().map(|(table, _)| table.as_str())
    }

    /// The pipeline that claims the asset-file table `table`.
    pub(crate) fn table_owner(&self, table: &str) -> Option<&dyn DynPipeline> {
        self.tables
            .iter()
            .find(|(t, _)| t == table)
            .map(|(_, index)| &*self.pipelines[*index])
    }

    /// The pipeline name of the file at `rel` (the source-relative path), for tools.
    pub fn pipeline_for(&self, rel: &str) -> Option<&str> {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        self.classify(name, false).map(|i| self.pipelines[i].name())
    }
}

/// Checks an emitted path: relative, `/`-separated, no empty, `.` or `..` components, no
/// hidden components (the baker's own files start with `.`), not the manifest.
pub(crate) fn check_output_path(path: &str) -> Result<(), String> {
    match output_path_problem(path) {
        Some(why) => Err(format!("output path {path:?} {why}")),
        None => Ok(()),
    }
}

/// Why `path` cannot name something hearth writes inside an output folder, if it cannot: the
/// one rule for emitted paths and preset output folders.
pub(crate) fn output_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.bytes().any(|b| matches!(b, b'\\' | 0 | b'\n' | b'\r')) {
        return Some("must be relative and `/`-separated");
    }
    // One pass over the components (every cached output path is checked at each bake).
    let (mut outside, mut hidden) = (false, false);
    for part in path.split('/') {
        outside |= part.is_empty() || part == "." || part == "..";
        hidden |= part.starts_with('.');
    }
    if outside {
        return Some("is outside the runtime tree (an empty, `.` or `..` component)");
    }
    if hidden {
        return Some(
            "is hidden (a component starts with `.`; hearth's own files, such as the \
             `.hearth-txn` transaction folder, are named so)",
        );
    }
    if path == MANIFEST_PATH {
        return Some("is reserved for the manifest");
    }
    if path == crate::format::hnames::NAMES_PATH {
        return Some("is reserved for the name table");
    }
    if path.len() > u16::MAX as usize {
        return Some("is longer than 65535 bytes");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Claims(&'static str, Vec<Claim>);
    impl Pipeline for Claims {
        type Settings = ();
        fn name(&self) -> &str {
            self.0
        }
        fn version(&self) -> u32 {
            1
        }
        fn claims(&self) -> Vec<Claim> {
            self.1.clone()
        }
        fn bake(
            &self,
            _: &Source<'_>,
            _: &(),
            _: &mut BakeContext<'_>,
        ) -> Result<(), PipelineError> {
            Ok(())
        }
    }

    #[test]
    fn the_most_specific_claim_wins() {
        let registry = Registry::with_builtins();
        assert_eq!(registry.pipeline_for("a/b.LUT.cube"), Some("lut"));
        assert_eq!(registry.pipeline_for("a/b.cube"), Some("blob"));
        assert_eq!(registry.pipeline_for("x.n.png"), Some("image"));
        assert_eq!(registry.pipeline_for("m/chair.GLB"), Some("model"));
        assert_eq!(registry.pipeline_for("README"), Some("blob"));
        let folder = registry
            .classify("sky.env", true)
            .map(|i| registry.get(i).name());
        assert_eq!(folder, Some("cubemap"));
        assert_eq!(
            registry
                .classify("sky.env", false)
                .map(|i| registry.get(i).name()),
            Some("blob")
        );

        let mut registry = Registry::with_builtins();
        registry
            .register(Claims("level", vec![Claim::file("*.level.toml")]))
            .unwrap();
        assert_eq!(registry.pipeline_for("one.level.toml"), Some("level"));
        // Other TOML files go to pak's asset files, which keep non-assets as blobs.
        assert_eq!(registry.pipeline_for("Cargo.toml"), Some("asset-file"));
    }

    #[test]
    fn conflicting_or_malformed_claims_fail_at_registration() {
        let mut registry = Registry::with_builtins();
        let err = registry
            .register(Claims("mine", vec![Claim::file("*.GLB")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`mine`") && err.contains("`model`"), "{err}");
        let err = registry
            .register(Claims("image", vec![Claim::file("*.xyz")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("already registered"), "{err}");
        for bad in ["glb", "*.g*b", "*/x", "models/*.glb"] {
            assert!(registry
                .register(Claims("bad", vec![Claim::file(bad)]))
                .is_err());
        }
        // A folder claim and a file claim of one suffix are different claims.
        registry
            .register(Claims("folder", vec![Claim::folder("*.glb/")]))
            .unwrap();
        assert!(registry.pipeline_for("x.glb") == Some("model"));
    }

    #[test]
    fn output_paths_stay_inside_the_tree() {
        assert!(check_output_path("a/b.bin").is_ok());
        for bad in [
            "",
            "/abs",
            "../up",
            "a/../b",
            "a//b",
            "a/./b",
            ".hearth-cache",
            "a\\b",
            "assets.hman",
        ] {
            assert!(check_output_path(bad).is_err(), "{bad:?}");
        }
    }
}
