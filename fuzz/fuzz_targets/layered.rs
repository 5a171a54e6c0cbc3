//! Shared by the `layered_mount` fuzz target and `tests/read/mount_parity.rs` (which
//! includes it with `#[path]`, so it is built and run in CI): a mount of a generated base and
//! a generated chain of patches (each made by `hearth::bake::patch::diff`) must read as the
//! chain's last NEW alone, by every read `LayeredPak` and its `AssetSource` impl offer; a
//! damaged patch layer may be refused or read with errors, never panic.
#![allow(dead_code)]

use hearth::bake::pack::{self, PackFile};
use hearth::bake::patch::diff;
use hearth::format::hman::{self, ManifestEntry, MANIFEST_PATH};
use hearth::format::hnames::{self, NameRow, NAMES_PATH};
use hearth::{
    hash_runtime_path, AssetBytes, AssetKind, AssetSource, Codec, ColorSpace, LayeredPak, PakReader,
};
use std::collections::BTreeSet;

/// The bytes `source` hands out for the file `name` names, through the trait alone (what
/// `Loader::load_by_name` and `Model::load_by_name` do).
fn bytes_by_name_through_trait(source: &impl AssetSource, name: &str) -> Option<Vec<u8>> {
    let table = source.names().unwrap();
    let path = table.lookup(name)?.path.to_owned();
    source.asset_bytes(&path).unwrap().map(|b| b.to_vec())
}

fn entries_of(entries: Vec<hearth::Entry<'_>>) -> Vec<(String, AssetKind, Vec<u8>)> {
    entries
        .into_iter()
        .map(|e| {
            (
                e.path().into_owned(),
                e.kind(),
                e.bytes().unwrap().into_owned(),
            )
        })
        .collect()
}

/// Asserts that `mount` reads as `new` for every path in `probes` (and their hashes), every
/// name either names, and every method of `AssetSource`; `what` names the case.
pub fn assert_reads_as_new(mount: &LayeredPak, new: &PakReader, probes: &[String], what: &str) {
    let new_entries: Vec<_> = new.entries().map(Result::unwrap).collect();
    assert_eq!(
        entries_of(mount.entries().unwrap()),
        entries_of(new_entries),
        "{what}: entries"
    );
    let mut paths: BTreeSet<String> = probes.iter().cloned().collect();
    paths.extend(new.entries().map(|e| e.unwrap().path().into_owned()));
    for path in &paths {
        let kind = |e: Option<hearth::Entry<'_>>| e.map(|e| e.kind());
        assert_eq!(
            kind(mount.find(path).unwrap()),
            kind(new.find(path).unwrap()),
            "{what}: kind of {path}"
        );
        assert_eq!(
            mount.get(path).unwrap(),
            new.get(path).unwrap(),
            "{what}: {path}"
        );
        let trait_bytes = |s: &dyn Fn(&str) -> Option<AssetBytes>| s(path).map(|b| b.to_vec());
        assert_eq!(
            trait_bytes(&|p| mount.asset_bytes(p).unwrap()),
            trait_bytes(&|p| new.asset_bytes(p).unwrap()),
            "{what}: asset_bytes({path})"
        );
        let loaded = |r: Result<AssetBytes, hearth::ReadError>| r.ok().map(|b| b.to_vec());
        assert_eq!(
            loaded(mount.load(path)),
            loaded(new.load(path)),
            "{what}: load {path}"
        );
        let hash = hash_runtime_path(path);
        let found = |e: Option<hearth::Entry<'_>>| e.map(|e| (e.path().into_owned(), e.kind()));
        assert_eq!(
            found(mount.find_by_hash(hash).unwrap()),
            found(new.find_by_hash(hash).unwrap()),
            "{what}: find_by_hash of {path}"
        );
        assert_eq!(
            mount.path_of_hash(hash).unwrap(),
            new.path_of_hash(hash).unwrap(),
            "{what}: path_of_hash of {path}"
        );
        assert_eq!(
            loaded(mount.load_by_hash(hash)),
            loaded(new.load_by_hash(hash)),
            "{what}: load_by_hash of {path}"
        );
        assert_eq!(
            mount.resolve(hash).unwrap(),
            new.resolve(hash).unwrap(),
            "{what}: resolve of {path}"
        );
    }
    let new_rows: Vec<NameRow<'_>> = new.names().unwrap().iter().collect();
    let mount_table = AssetSource::names(mount).unwrap();
    let mount_rows: Vec<NameRow<'_>> = mount_table.iter().collect();
    assert_eq!(mount_rows, new_rows, "{what}: AssetSource::names");
    for row in &new_rows {
        let name = row.name;
        assert_eq!(
            mount.lookup_name(name).unwrap(),
            new.lookup_name(name).unwrap(),
            "{what}: lookup_name {name}"
        );
        let by_name = |r: Result<AssetBytes, hearth::ReadError>| r.ok().map(|b| b.to_vec());
        assert_eq!(
            by_name(mount.load_by_name(name)),
            by_name(new.load_by_name(name)),
            "{what}: load_by_name {name}"
        );
        assert_eq!(
            bytes_by_name_through_trait(mount, name),
            bytes_by_name_through_trait(new, name),
            "{what}: by name through AssetSource {name}"
        );
    }
}

/// One file of a generated pack: path, kind, bytes.
pub type File = (String, AssetKind, Vec<u8>);

/// A pack at `version` (3 or 4) of `files` plus the bookkeeping tables given, as the baker
/// writes them (v4: kinds `NAMES` and `MANIFEST`; v3: kinds from the paths).
pub fn pack_with_tables(
    version: u32,
    files: &[File],
    names: Option<&[(String, String)]>,
    manifest: bool,
) -> Vec<u8> {
    let kind_of = |path: &str| files.iter().find(|f| f.0 == path).map(|f| f.1).unwrap();
    let names_bytes = names.map(|rows| {
        let rows: Vec<NameRow<'_>> = rows
            .iter()
            .map(|(name, path)| NameRow {
                name,
                kind: kind_of(path),
                hash: hash_runtime_path(path),
                path,
                sub: None,
            })
            .collect();
        hnames::write(&rows)
    });
    let manifest_bytes = manifest.then(|| {
        let mut rows: Vec<ManifestEntry<'_>> = files
            .iter()
            .map(|(path, kind, _)| ManifestEntry {
                hash: hash_runtime_path(path),
                kind: *kind,
                color_space: ColorSpace::Linear,
                path,
            })
            .collect();
        rows.sort_by_key(|row| row.hash);
        hman::write(&rows)
    });
    let mut all: Vec<PackFile<'_>> = files
        .iter()
        .map(|(path, kind, bytes)| PackFile {
            path,
            kind: *kind,
            bytes,
            codec: Codec::Zstd,
            level: None,
        })
        .collect();
    if let Some(bytes) = &names_bytes {
        all.push(PackFile {
            path: NAMES_PATH,
            kind: AssetKind::NAMES,
            bytes,
            codec: Codec::None,
            level: None,
        });
    }
    if let Some(bytes) = &manifest_bytes {
        all.push(PackFile {
            path: MANIFEST_PATH,
            kind: AssetKind::MANIFEST,
            bytes,
            codec: Codec::None,
            level: None,
        });
    }
    all.sort_by(|a, b| a.path.cmp(b.path));
    pack::build(version, &all)
}

/// The input's bytes as a source of choices (zeros once they run out), so every input is a
/// valid chain and the fuzzer steers what changes.
pub struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Choices<'a> {
    /// Choices read from `data`, first byte first.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, at: 0 }
    }

    /// A number below `n` (at least 1).
    pub fn below(&mut self, n: u8) -> u8 {
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte % n
    }

    /// The bytes not used yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.at..).unwrap_or(&[])
    }
}

/// The paths generated packs hold, and kinds that let the same path change kind.
pub const PATHS: [&str; 6] = [
    "a.txt",
    "b.bin",
    "dir/c.dat",
    "grade.lut.ktx2",
    "models/rock.ktx2",
    "z",
];
const KINDS: [AssetKind; 3] = [AssetKind::BLOB, AssetKind::TEXTURE, AssetKind::LUT];

/// One generated pack (v3 or v4): each path present or not, of one of a few kinds and
/// contents (so entries stay, change bytes, change kind, appear and go), with or without a
/// name table and a manifest.
pub fn generated_pack(choices: &mut Choices<'_>) -> Vec<u8> {
    let mut files: Vec<File> = Vec::new();
    for path in PATHS {
        if choices.below(3) == 0 {
            continue;
        }
        let kind = KINDS[usize::from(choices.below(2)) + usize::from(path.contains("lut"))];
        let bytes = format!("{path} v{}", choices.below(3)).repeat(1 + choices.below(3) as usize);
        files.push((path.to_string(), kind, bytes.into_bytes()));
    }
    let mut names: Vec<(String, String)> = Vec::new();
    for (path, _, _) in &files {
        if choices.below(4) != 0 {
            let name = format!("{}{}", path.replace(['/', '.'], "_"), choices.below(2));
            names.push((name, path.clone()));
        }
    }
    let names = (choices.below(3) != 0).then_some(&names[..]);
    let manifest = choices.below(3) != 0;
    pack_with_tables(3 + u32::from(choices.below(2)), &files, names, manifest)
}

/// Every path a generated chain may hold, the bookkeeping tables included.
fn probes() -> Vec<String> {
    let mut probes: Vec<String> = PATHS.iter().map(|p| p.to_string()).collect();
    probes.extend([NAMES_PATH.to_string(), MANIFEST_PATH.to_string()]);
    probes
}

/// A generated base and a chain of 1 to 4 generated NEW packs from `data`: each patch, made
/// by `diff`, must mount, and the mount must then read as that NEW alone.
pub fn check_chain(data: &[u8]) {
    let mut choices = Choices::new(data);
    let base = generated_pack(&mut choices);
    let mut mount = LayeredPak::new(PakReader::from_bytes(&base).unwrap(), "base").unwrap();
    let mut old = base;
    let probes = probes();
    for step in 0..1 + choices.below(4) {
        let new = generated_pack(&mut choices);
        let old_pak = PakReader::from_bytes(&old).unwrap();
        let new_pak = PakReader::from_bytes(&new).unwrap();
        let patch = diff(&old_pak, "old", &new_pak, "new", None).unwrap();
        let what = format!("patch {step}");
        mount
            .mount(PakReader::from_bytes(&patch.bytes).unwrap(), &what)
            .unwrap_or_else(|e| panic!("{what}: the patch diff wrote does not mount: {e}"));
        assert_reads_as_new(&mount, &new_pak, &probes, &what);
        old = new;
    }
}

/// A generated base, and over it a damaged layer: first choice even, the patch `diff` made
/// to a generated NEW with 0 to 3 bytes flipped where the input says (each 3 bytes: a
/// position and a mask); odd, the input's remaining bytes as they are. A mount may refuse
/// it and reads may fail; nothing may panic.
pub fn mount_damaged(data: &[u8]) {
    let mut choices = Choices::new(data);
    let raw = choices.below(2) == 1;
    let base = generated_pack(&mut choices);
    let layer = if raw {
        choices.rest().to_vec()
    } else {
        let new = generated_pack(&mut choices);
        let old_pak = PakReader::from_bytes(&base).unwrap();
        let new_pak = PakReader::from_bytes(&new).unwrap();
        let mut bytes = diff(&old_pak, "old", &new_pak, "new", None).unwrap().bytes;
        // Few flips (0 to 3: an intact patch too), so that some still mount and are read.
        let flips = usize::from(choices.below(4));
        for flip in choices.rest().chunks_exact(3).take(flips) {
            let at = usize::from(u16::from_le_bytes([flip[0], flip[1]])) % bytes.len();
            bytes[at] ^= flip[2];
        }
        bytes
    };
    let mut mount = LayeredPak::new(PakReader::from_bytes(&base).unwrap(), "base").unwrap();
    let Ok(pak) = PakReader::from_bytes(&layer) else {
        return;
    };
    if mount.mount(pak, "damaged").is_err() {
        return;
    }
    read_everything(&mount);
}

/// Every read of a mount, results ignored: the damaged-layer variant's workload.
fn read_everything(mount: &LayeredPak) {
    let mut paths: BTreeSet<String> = probes().into_iter().collect();
    if let Ok(entries) = mount.entries() {
        paths.extend(entries.iter().map(|e| e.path().into_owned()));
        for entry in &entries {
            let _ = (entry.kind(), entry.verify(), entry.bytes());
        }
    }
    for path in &paths {
        let hash = hash_runtime_path(path);
        let _ = mount.get(path);
        let _ = mount.asset_bytes(path);
        let _ = mount.load::<AssetBytes>(path);
        let _ = mount
            .find_by_hash(hash)
            .map(|e| e.map(|e| e.bytes().map(|b| b.len())));
        let _ = mount.path_of_hash(hash);
        let _ = mount.load_by_hash::<AssetBytes>(hash);
        let _ = mount.resolve(hash);
    }
    let names: Vec<String> = match AssetSource::names(mount) {
        Ok(table) => table.iter().map(|row| row.name.to_owned()).collect(),
        Err(_) => Vec::new(),
    };
    for name in names.iter().map(String::as_str).chain(["a_txt0", "Rock"]) {
        let _ = mount.lookup_name(name);
        let _ = mount.get_by_name(name);
        let _ = mount.load_by_name::<AssetBytes>(name);
    }
}
