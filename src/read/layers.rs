//! Layered mounting: a base pack with patch and DLC packs over it ([`LayeredPak`]).
//!
//! **The lookup rule.** Layers are searched from the last mounted down: the first layer that
//! has the path, or deletes it, decides. A patch's deletion records hide every lower layer's
//! entry of that path; its own entries are visible. The same rule holds by path, by asset hash
//! and by name. A patch (a pack with `assets.hpatch`, written by `hearth diff`) must apply to
//! what is mounted: its base identity must be the current version of the base or of a DLC
//! below it (the pack's own identity, or the result of the last patch applied to it), so a
//! patch for another version, or one mounted twice, is refused. A pack without
//! `assets.hpatch` (a DLC) just adds entries and starts a version line of its own. Two layers
//! that give one path different kinds are refused at mount, never mixed, with one exception:
//! **a kind change is a delete plus an add.** When NEW gives a path another kind than OLD
//! (`grade.lut.cube` replaced by `grade.lut.png`, both `grade.lut.ktx2`; or `assets.hnames`,
//! a blob in a v3 pack, a name table in v4), `hearth diff` lists the path in the patch's
//! deletion records and stores NEW's entry; the kind check skips the paths the mounting patch
//! itself deletes, since nothing below shows through them. A kind conflict with any other
//! layer's path (a DLC's, say) stays refused.
//!
//! Bookkeeping files follow the version lines: a patch that has (or deletes) `assets.hnames`
//! or `assets.hman` replaces the ones of the packs it patches; a patch without them (NEW's
//! are OLD's, as after a content-only fix) leaves them in force; a DLC's are consulted in
//! addition to the base's. Through the mount every read, the [`AssetSource`] methods
//! included, gives what NEW alone would.

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{AssetKind, MANIFEST_PATH};
use crate::format::hnames::NAMES_PATH;
use crate::format::hpatch::{self, PackIdentity, PatchRecord, PATCH_PATH};
use crate::read::asset::{AssetBytes, AssetSource};
use crate::read::error::ReadError;
use crate::read::names::{named, NameRecord};
use crate::read::pak::{find_record, Entry, ManifestRecord, PakReader};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A base pack with any number of patch and DLC packs mounted over it, read as one.
///
/// The last mounted layer wins; a patch's deletion records hide lower layers (see the
/// [module documentation](self) for the whole rule). Lookups hash the path once and probe
/// one in-memory table of the upper layers' paths before the layer that has the entry, so a
/// two-layer read costs about what a single pack's does (`benches/RESULTS.md`).
///
/// ```no_run
/// let mut game = hearth::LayeredPak::open("assets.hpack")?;
/// game.mount_file("patches/1.1.hpack")?; // made by `hearth diff` from 1.0 to 1.1
/// game.mount_file("dlc/forest.hpack")?;
/// let level = game.get("levels/forest.json")?;
/// let model = hearth::Model::load(&game, "models/spot/spot.hmesh")?;
/// # Ok::<(), hearth::ReadError>(())
/// ```
pub struct LayeredPak {
    layers: Vec<Layer>,
    /// Every path of the layers above the base, entries and deletions, by path hash.
    overlay: HashMap<u64, Vec<OverlayItem>, BuildHasherDefault<PathHashHasher>>,
    /// The base and each DLC with the patches applied to it.
    lines: Vec<VersionLine>,
    /// With verification on, every layer must be signed by this key.
    #[cfg(feature = "verify")]
    key: Option<crate::read::signed::PublicKey>,
}

struct Layer {
    pak: PakReader,
    file: Arc<str>,
    /// Whether this layer's `assets.hnames` is consulted: it has one, and no later patch of
    /// its version line has or deletes its own.
    names_live: bool,
    /// The same for `assets.hman`.
    manifest_live: bool,
    /// The version line the layer belongs to.
    line: usize,
    /// The paths its patch record deletes (sorted; empty for a base or DLC).
    deleted: Box<[Box<str>]>,
}

/// One path of an upper layer: an entry, or a deletion record.
struct OverlayItem {
    layer: u32,
    deleted: bool,
    path: Box<str>,
}

/// Which bookkeeping tables a layer has.
#[derive(Clone, Copy)]
struct Tables {
    names: bool,
    manifest: bool,
}

/// A base or DLC pack and the patches applied to it.
struct VersionLine {
    /// The line's first layer (the base or the DLC itself).
    root: usize,
    /// The identity the line reads as now: `None` while it is the root pack's own, not yet
    /// computed (it is computed when a patch asks).
    current: Option<PackIdentity>,
    /// The line's last layer.
    top: usize,
}

/// The overlay's keys are FNV-1a path hashes already: a multiply-xor spreads them over the
/// table's bits instead of hashing them again.
#[derive(Default)]
struct PathHashHasher(u64);

impl Hasher for PathHashHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, value: u64) {
        let mixed = value ^ (value >> 32);
        self.0 = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (mixed >> 17);
    }
}

impl std::fmt::Debug for LayeredPak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayeredPak")
            .field(
                "layers",
                &self.layers.iter().map(|l| &*l.file).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// An upper layer's patch record, if it has one: its tables and the record's bytes checked
/// against their checksums first (O(tables + record), no other payload read), so a damaged
/// or truncated patch is refused at mount.
fn read_patch_record(pak: &PakReader) -> Result<Option<PatchRecord>, ReadError> {
    pak.verify_tables()?;
    let Some(entry) = pak.find(PATCH_PATH)? else {
        return Ok(None);
    };
    entry.verify()?;
    PatchRecord::parse(&entry.bytes()?).map(Some)
}

/// Wraps an error of the layer `file` so that it names the file.
fn in_layer(file: &Arc<str>) -> impl Fn(ReadError) -> ReadError + '_ {
    move |error| match error {
        already @ ReadError::Layer { .. } => already,
        error => ReadError::Layer {
            file: Arc::clone(file),
            error: Arc::new(error),
        },
    }
}

fn file_name(path: &Path) -> Arc<str> {
    path.display().to_string().into()
}

/// The pack file `path` names: `path` itself, or the one `.hpack` of a folder (a bake's
/// output folder, taken as [`Assets::open`](crate::Assets::open) takes a pack-only one). A
/// folder without exactly one `.hpack` is an error naming it and saying a pack is expected.
pub fn pack_file(path: &Path) -> Result<PathBuf, ReadError> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let in_folder = in_layer_named(file_name(path));
    match crate::read::assets::only_pack(path).map_err(&in_folder)? {
        Some(pack) => Ok(pack),
        None => Err(in_folder(ReadError::Invalid {
            what: "pack: a folder without exactly one `.hpack` file (a `.hpack` is expected)",
        })),
    }
}

/// [`in_layer`] for an owned file name.
fn in_layer_named(file: Arc<str>) -> impl Fn(ReadError) -> ReadError {
    move |error| in_layer(&file)(error)
}

impl LayeredPak {
    /// A mount of `base` alone; `file` names it in errors. A patch pack cannot be a base.
    pub fn new(base: PakReader, file: &str) -> Result<Self, ReadError> {
        let mut mount = Self {
            layers: Vec::new(),
            overlay: HashMap::default(),
            lines: Vec::new(),
            #[cfg(feature = "verify")]
            key: None,
        };
        let file: Arc<str> = file.into();
        if base.find(PATCH_PATH).map_err(in_layer(&file))?.is_some() {
            return Err(ReadError::Layer {
                file,
                error: Arc::new(ReadError::Invalid {
                    what: "base pack (it is a patch: mount it over the pack it patches)",
                }),
            });
        }
        let tables = Tables {
            names: base.find(NAMES_PATH).map_err(in_layer(&file))?.is_some(),
            manifest: base.find(MANIFEST_PATH).map_err(in_layer(&file))?.is_some(),
        };
        mount.push_layer(base, file, None, Box::default(), tables);
        Ok(mount)
    }

    /// Maps the pack at `path` (or a folder's one pack, see [`pack_file`]) as the base of a
    /// mount.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ReadError> {
        let file = file_name(path.as_ref());
        let base = PakReader::open(pack_file(path.as_ref())?).map_err(in_layer(&file))?;
        Self::new(base, &file)
    }

    /// A verifying mount (feature `verify`): `base` and every layer mounted later must be
    /// signed by `key` (their signatures are checked as
    /// [`PakReader::open_signed`](crate::PakReader::open_signed) does, and every entry's
    /// bytes against their signed digest before they are handed out). An unsigned or
    /// foreign-signed layer is refused with an error naming its file.
    #[cfg(feature = "verify")]
    #[cfg_attr(docsrs, doc(cfg(feature = "verify")))]
    pub fn new_signed(
        base: PakReader,
        file: &str,
        key: &crate::read::signed::PublicKey,
    ) -> Result<Self, ReadError> {
        let name: Arc<str> = file.into();
        let base = base.require_signature(key).map_err(in_layer(&name))?;
        let mut mount = Self::new(base, file)?;
        mount.key = Some(*key);
        Ok(mount)
    }

    /// [`new_signed`](Self::new_signed) over the pack mapped from `path`.
    #[cfg(feature = "verify")]
    #[cfg_attr(docsrs, doc(cfg(feature = "verify")))]
    pub fn open_signed(
        path: impl AsRef<Path>,
        key: &crate::read::signed::PublicKey,
    ) -> Result<Self, ReadError> {
        let file = file_name(path.as_ref());
        let base = PakReader::open(pack_file(path.as_ref())?).map_err(in_layer(&file))?;
        Self::new_signed(base, &file, key)
    }

    /// Maps the pack at `path` (or a folder's one pack, see [`pack_file`]) and mounts it over
    /// the others (see [`mount`](Self::mount)).
    pub fn mount_file(&mut self, path: impl AsRef<Path>) -> Result<(), ReadError> {
        let file = file_name(path.as_ref());
        let pak = PakReader::open(pack_file(path.as_ref())?).map_err(in_layer(&file))?;
        self.mount(pak, &file)
    }

    /// Mounts `pak` over the layers there are; `file` names it in errors. A patch must apply
    /// to the current version of the base or of a DLC below; no entry may change kind; with
    /// a verifying mount, `pak` must be signed by the mount's key. On error the mount is
    /// unchanged.
    pub fn mount(&mut self, pak: PakReader, file: &str) -> Result<(), ReadError> {
        let file: Arc<str> = file.into();
        // Listed from the tables before a signed open would check every payload's digest on
        // the way (the signature, checked next, covers the tables).
        let listing = pak.paths_and_kinds().map_err(in_layer(&file))?;
        #[cfg(feature = "verify")]
        let pak = match &self.key {
            Some(key) => pak.require_signature(key).map_err(in_layer(&file))?,
            None => pak,
        };
        let patch = read_patch_record(&pak).map_err(in_layer(&file))?;
        let line = match &patch {
            Some(patch) => Some(self.line_for(patch, &file)?),
            None => None,
        };
        let deleted: Box<[Box<str>]> = patch
            .as_ref()
            .map_or(Box::default(), |p| p.deleted.clone().into());
        self.check_kinds(&listing, &deleted, &file)?;
        let layer = self.layers.len();
        // Every fallible step before the first change: a failed mount changes nothing.
        // Deletions first: the layer's own entries win over its own deletion records.
        let mut items: Vec<OverlayItem> = deleted
            .iter()
            .map(|path| OverlayItem {
                layer: layer as u32,
                deleted: true,
                path: path.clone(),
            })
            .collect();
        // Only the tables a layer has are consulted: a patch without them (NEW's are OLD's)
        // leaves its version line's in place.
        let has = |table: &str| listing.iter().any(|(path, _)| &**path == table);
        let tables = Tables {
            names: has(NAMES_PATH),
            manifest: has(MANIFEST_PATH),
        };
        for (path, _) in listing {
            if &*path != PATCH_PATH {
                items.push(OverlayItem {
                    layer: layer as u32,
                    deleted: false,
                    path,
                });
            }
        }
        if let (Some(patch), Some(line)) = (&patch, line) {
            let replaces = |path: &str| items.iter().any(|item| *item.path == *path);
            let (names, manifest) = (replaces(NAMES_PATH), replaces(MANIFEST_PATH));
            for below in self.layers.iter_mut().filter(|l| l.line == line) {
                below.names_live &= !names;
                below.manifest_live &= !manifest;
            }
            self.lines[line].current = Some(patch.result);
            self.lines[line].top = layer;
        }
        for item in items {
            self.overlay
                .entry(hash_runtime_path(&item.path))
                .or_default()
                .push(item);
        }
        self.push_layer(pak, file, line, deleted, tables);
        Ok(())
    }

    /// Adds a layer: to version line `line` (a patch), or as the root of a new one.
    fn push_layer(
        &mut self,
        pak: PakReader,
        file: Arc<str>,
        line: Option<usize>,
        deleted: Box<[Box<str>]>,
        tables: Tables,
    ) {
        let layer = self.layers.len();
        let line = line.unwrap_or_else(|| {
            self.lines.push(VersionLine {
                root: layer,
                current: None,
                top: layer,
            });
            self.lines.len() - 1
        });
        self.layers.push(Layer {
            pak,
            file,
            names_live: tables.names,
            manifest_live: tables.manifest,
            line,
            deleted,
        });
    }

    /// The version line `patch` applies to (the topmost whose current identity is its base),
    /// or an error naming the patch and the layer below.
    fn line_for(&mut self, patch: &PatchRecord, file: &Arc<str>) -> Result<usize, ReadError> {
        let mut versions = Vec::with_capacity(self.lines.len());
        for index in (0..self.lines.len()).rev() {
            let line = &self.lines[index];
            let current = match line.current {
                Some(identity) => identity,
                None => {
                    let root = &self.layers[line.root];
                    let identity =
                        hpatch::pack_identity(root.pak.bytes()).map_err(in_layer(&root.file))?;
                    self.lines[index].current = Some(identity);
                    identity
                }
            };
            if current == patch.base {
                return Ok(index);
            }
            let top = &self.layers[self.lines[index].top].file;
            versions.push(format!("{top} reads as {}", hpatch::identity_hex(&current)));
        }
        let below = &self.layers[self.layers.len() - 1].file;
        Err(ReadError::LayerConflict {
            files: Arc::new([(**file).into(), (**below).into()]),
            what: format!(
                "the patch was made for another pack (base identity {}), and no layer below \
                 is that version ({}); mount the patches in the order they were made, each once",
                hpatch::identity_hex(&patch.base),
                versions.join(", ")
            )
            .into(),
        })
    }

    /// Refuses `pak` when one of its paths has another kind in the mount below, unless `pak`
    /// itself deletes that path (`deleted`, sorted): a kind change is a delete plus an add.
    fn check_kinds(
        &self,
        listing: &[(Box<str>, AssetKind)],
        deleted: &[Box<str>],
        file: &Arc<str>,
    ) -> Result<(), ReadError> {
        for (path, kind) in listing {
            if &**path == PATCH_PATH || deleted.binary_search(path).is_ok() {
                continue;
            }
            if let Some(below) = self.find(path)? {
                if below.kind() != *kind {
                    let lower = &self.layers[self.layer_of(&below)].file;
                    return Err(ReadError::LayerConflict {
                        files: Arc::new([(**file).into(), (**lower).into()]),
                        what: format!(
                            "`{path}` is a {} there but a {} here (layers must agree on kinds)",
                            below.kind(),
                            kind
                        )
                        .into(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The index of the layer an entry came from.
    fn layer_of(&self, entry: &Entry<'_>) -> usize {
        self.layers
            .iter()
            .position(|l| std::ptr::eq(&l.pak, entry.pack()))
            .unwrap_or(0)
    }

    /// The layers, base first: each one's file name and reader.
    pub fn layers(&self) -> impl ExactSizeIterator<Item = (&str, &PakReader)> + '_ {
        self.layers.iter().map(|l| (&*l.file, &l.pak))
    }

    /// The file of the layer `entry` came from (as it was named at mount).
    pub fn file_of(&self, entry: &Entry<'_>) -> &str {
        &self.layers[self.layer_of(entry)].file
    }

    /// `path` in layer `layer`, errors naming the layer's file.
    fn layer_find(
        &self,
        layer: u32,
        path: &str,
        hash: u64,
    ) -> Result<Option<Entry<'_>>, ReadError> {
        let layer = &self.layers[layer as usize];
        layer
            .pak
            .find_hashed(path, hash)
            .map_err(in_layer(&layer.file))
    }

    /// The entry at runtime path `path`, from the topmost layer that has it (`None` when a
    /// layer above deletes it). `assets.hpatch`, a layer's own bookkeeping, is not an entry
    /// of the mount.
    pub fn find(&self, path: &str) -> Result<Option<Entry<'_>>, ReadError> {
        let hash = hash_runtime_path(path);
        if let Some(items) = self.overlay.get(&hash) {
            if let Some(item) = items.iter().rev().find(|item| *item.path == *path) {
                return match item.deleted {
                    true => Ok(None),
                    false => self.layer_find(item.layer, path, hash),
                };
            }
        }
        if path == PATCH_PATH {
            return Ok(None);
        }
        self.layer_find(0, path, hash)
    }

    /// The entry whose asset hash is `hash`, by the same rule: the topmost layer's entry of
    /// that hash that no layer above it deletes.
    pub fn find_by_hash(&self, hash: u64) -> Result<Option<Entry<'_>>, ReadError> {
        let items = self.overlay.get(&hash).map_or(&[][..], Vec::as_slice);
        for (at, item) in items.iter().enumerate().rev() {
            // The topmost item of each path decides it; lower ones of the same path are moot.
            let decided_above = items[at + 1..].iter().any(|i| i.path == item.path);
            if !item.deleted && !decided_above {
                return self.layer_find(item.layer, &item.path, hash);
            }
        }
        let hidden = |entry: &Entry<'_>| {
            let path = entry.path();
            path == PATCH_PATH || items.iter().any(|i| *i.path == *path)
        };
        let base = &self.layers[0];
        match base.pak.find_by_hash(hash).map_err(in_layer(&base.file))? {
            Some(entry) if !hidden(&entry) => Ok(Some(entry)),
            None => Ok(None),
            // Its first entry of that hash is hidden; another path may share the hash.
            Some(_) => Ok(base
                .pak
                .find_all_by_hash(hash)
                .map_err(in_layer(&base.file))?
                .into_iter()
                .find(|entry| !hidden(entry))),
        }
    }

    /// The bytes at `path` through the layers: borrowed when stored, decompressed otherwise.
    pub fn get(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        self.find(path)?.map(|entry| entry.bytes()).transpose()
    }

    /// The bytes of the asset whose hash is `hash`.
    pub fn get_by_hash(&self, hash: u64) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        self.find_by_hash(hash)?
            .map(|entry| entry.bytes())
            .transpose()
    }

    crate::read::asset::typed_loads!();

    /// The name table row named `name`: from the topmost layer whose live `assets.hnames`
    /// has it and whose file is visible through the mount. An error names `name`.
    pub fn lookup_name(&self, name: &str) -> Result<Option<NameRecord>, ReadError> {
        self.lookup_in_layers(name, None)
    }

    /// [`lookup_name`](Self::lookup_name) of one kind (`None`: any, the lowest first).
    fn lookup_in_layers(
        &self,
        name: &str,
        kind: Option<AssetKind>,
    ) -> Result<Option<NameRecord>, ReadError> {
        for layer in self.layers.iter().rev().filter(|l| l.names_live) {
            let table = layer
                .pak
                .names()
                .map_err(in_layer(&layer.file))
                .map_err(named(name))?;
            for row in table.lookup_all(name) {
                if kind.is_some_and(|kind| kind != row.kind) {
                    continue;
                }
                if self.find(row.path).map_err(named(name))?.is_some() {
                    return Ok(Some(NameRecord::from(row)));
                }
            }
        }
        Ok(None)
    }

    /// The bytes of the file `name` names. An error names `name`.
    pub fn get_by_name(&self, name: &str) -> Result<Option<Cow<'_, [u8]>>, ReadError> {
        match self.lookup_name(name)? {
            Some(row) => self.get(&row.path).map_err(named(name)),
            None => Ok(None),
        }
    }

    /// The `assets.hman` row of `hash`: from the topmost layer whose live manifest has it
    /// and whose path is visible through the mount.
    pub fn resolve(&self, hash: u64) -> Result<Option<&ManifestRecord>, ReadError> {
        for layer in self.layers.iter().rev().filter(|l| l.manifest_live) {
            let manifest = layer.pak.manifest().map_err(in_layer(&layer.file))?;
            if let Some(record) = find_record(manifest, hash) {
                if self.find(&record.path)?.is_some() {
                    return Ok(Some(record));
                }
            }
        }
        Ok(None)
    }

    /// Every entry the mount shows, in path order (each from its topmost layer; deleted paths
    /// and `assets.hpatch` left out). O(entries of all layers).
    pub fn entries(&self) -> Result<Vec<Entry<'_>>, ReadError> {
        let mut decided: HashSet<Cow<'_, str>> = HashSet::new();
        let mut shown = Vec::new();
        for layer in self.layers.iter().rev() {
            for entry in layer.pak.entries() {
                let entry = entry.map_err(in_layer(&layer.file))?;
                let path = entry.path();
                if path != PATCH_PATH && decided.insert(path) {
                    shown.push(entry);
                }
            }
            // This layer's deletions hide the layers below.
            for path in layer.deleted.iter() {
                decided.insert(Cow::Borrowed(&**path));
            }
        }
        shown.sort_by(|a, b| a.path().cmp(&b.path()));
        Ok(shown)
    }
}

impl AssetSource for LayeredPak {
    /// Through every layer's live table (a DLC's table lacks the base's rows).
    fn lookup_name_of_kind(
        &self,
        name: &str,
        kind: Option<AssetKind>,
    ) -> Result<Option<NameRecord>, ReadError> {
        self.lookup_in_layers(name, kind)
    }

    fn asset_bytes(&self, path: &str) -> Result<Option<AssetBytes>, ReadError> {
        self.find(path)?.map(|e| e.to_asset_bytes()).transpose()
    }

    fn path_of_hash(&self, hash: u64) -> Result<Option<String>, ReadError> {
        Ok(self.find_by_hash(hash)?.map(|e| e.path().into_owned()))
    }

    /// The topmost live name table (a patch's replaces its base's only when the patch has or
    /// deletes one: a patch without one left NEW's table as OLD's). A DLC's table lacks the
    /// base's rows, so through a DLC mount [`Model`](crate::Model) names a base model's
    /// materials `<stem>#<slot>`; [`lookup_name`](LayeredPak::lookup_name) walks every layer.
    fn names(&self) -> Result<crate::read::names::NameTable<'_>, ReadError> {
        match self.layers.iter().rev().find(|l| l.names_live) {
            Some(layer) => layer.pak.names().map_err(in_layer(&layer.file)),
            None => Ok(crate::read::names::NameTable::empty()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hpack::{write_v4, Codec, PackInput};

    fn pack(files: &[(&str, &[u8])]) -> Vec<u8> {
        let inputs: Vec<PackInput<'_>> = files
            .iter()
            .map(|(path, stored)| PackInput {
                path,
                kind: AssetKind::BLOB,
                codec: Codec::None,
                stored,
                size: stored.len() as u64,
            })
            .collect();
        write_v4(&inputs)
    }

    /// A patch pack over `base`: `files` plus a record deleting `deleted`.
    fn patch(base: &[u8], files: &[(&str, &[u8])], deleted: &[&str]) -> Vec<u8> {
        let record = PatchRecord {
            base: hpatch::pack_identity(base).unwrap(),
            result: [7; 16],
            deleted: deleted.iter().map(|p| Box::from(*p)).collect(),
        }
        .to_bytes();
        let mut files = files.to_vec();
        files.push((PATCH_PATH, &record));
        files.sort_by_key(|(path, _)| *path);
        pack(&files)
    }

    fn get(mount: &LayeredPak, path: &str) -> Option<Vec<u8>> {
        mount.get(path).unwrap().map(Cow::into_owned)
    }

    #[test]
    fn deletions_hide_lower_layers_and_a_layers_own_entries_win() {
        let base = pack(&[("a.txt", b"a"), ("b.txt", b"b"), ("c.txt", b"c")]);
        let over = patch(
            &base,
            &[("b.txt", b"B"), ("c.txt", b"C")],
            &["a.txt", "c.txt"],
        );
        let mut mount = LayeredPak::new(PakReader::from_bytes(&base).unwrap(), "base").unwrap();
        mount
            .mount(PakReader::from_bytes(&over).unwrap(), "patch")
            .unwrap();
        assert_eq!(get(&mount, "a.txt"), None);
        assert_eq!(get(&mount, "b.txt").as_deref(), Some(&b"B"[..]));
        assert_eq!(
            get(&mount, "c.txt").as_deref(),
            Some(&b"C"[..]),
            "own entry wins"
        );
        assert_eq!(get(&mount, PATCH_PATH), None, "bookkeeping stays out");
        let a = hash_runtime_path("a.txt");
        assert!(mount.find_by_hash(a).unwrap().is_none());
        let paths: Vec<String> = mount
            .entries()
            .unwrap()
            .iter()
            .map(|e| e.path().into_owned())
            .collect();
        assert_eq!(paths, ["b.txt", "c.txt"]);
    }

    #[test]
    fn a_hidden_entry_does_not_hide_another_path_of_its_hash() {
        // ASCII case folds in the asset hash: the two paths share one.
        let base = pack(&[("A.txt", b"upper"), ("a.txt", b"lower")]);
        let hash = hash_runtime_path("a.txt");
        assert_eq!(hash, hash_runtime_path("A.txt"));
        let over = patch(&base, &[], &["A.txt"]);
        let mut mount = LayeredPak::new(PakReader::from_bytes(&base).unwrap(), "base").unwrap();
        mount
            .mount(PakReader::from_bytes(&over).unwrap(), "patch")
            .unwrap();
        let found = mount.find_by_hash(hash).unwrap().unwrap();
        assert_eq!(found.path(), "a.txt");
    }

    #[test]
    fn a_patch_is_not_a_base_and_a_failed_mount_changes_nothing() {
        let base = pack(&[("a.txt", b"a")]);
        let over = patch(&base, &[("a.txt", b"A")], &[]);
        let error = LayeredPak::new(PakReader::from_bytes(&over).unwrap(), "over.hpack");
        assert!(error.unwrap_err().to_string().contains("over.hpack"));
        let other = pack(&[("a.txt", b"other")]);
        let mut mount = LayeredPak::new(PakReader::from_bytes(&other).unwrap(), "other").unwrap();
        let error = mount
            .mount(PakReader::from_bytes(&over).unwrap(), "over.hpack")
            .unwrap_err();
        assert!(matches!(error, ReadError::LayerConflict { .. }), "{error}");
        assert_eq!(mount.layers().len(), 1);
        assert_eq!(get(&mount, "a.txt").as_deref(), Some(&b"other"[..]));
    }
}
