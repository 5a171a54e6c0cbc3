//! A mount reads as NEW alone: every read of `LayeredPak` and of its `AssetSource` impl,
//! compared with NEW's, for patches with and without each bookkeeping table (unchanged,
//! changed, deleted), for entries whose kind changes, and for a seeded run of generated
//! base/patch chains (the deterministic twin of the `layered_mount` fuzz target).

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
pub(crate) fn assert_reads_as_new(
    mount: &LayeredPak,
    new: &PakReader,
    probes: &[String],
    what: &str,
) {
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
type File = (String, AssetKind, Vec<u8>);

/// A pack at `version` (3 or 4) of `files` plus the bookkeeping tables given, as the baker
/// writes them (v4: kinds `NAMES` and `MANIFEST`; v3: kinds from the paths).
fn pack_with_tables(
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

/// Diffs OLD and NEW, mounts the patch over OLD and asserts the mount reads as NEW.
fn assert_patch_reads_as_new(old: &[u8], new: &[u8], what: &str) {
    let mut mount = LayeredPak::new(PakReader::from_bytes(old).unwrap(), "old.hpack").unwrap();
    let (old, new) = (
        PakReader::from_bytes(old).unwrap(),
        PakReader::from_bytes(new).unwrap(),
    );
    let patch = diff(&old, "old.hpack", &new, "new.hpack", None).unwrap();
    mount
        .mount(PakReader::from_bytes(&patch.bytes).unwrap(), "patch.hpack")
        .unwrap_or_else(|e| panic!("{what}: the patch diff wrote does not mount: {e}"));
    let probes: Vec<String> = old
        .entries()
        .map(|e| e.unwrap().path().into_owned())
        .collect();
    assert_reads_as_new(&mount, &new, &probes, what);
}

fn file(path: &str, kind: AssetKind, bytes: &[u8]) -> File {
    (path.into(), kind, bytes.to_vec())
}

/// A content-only fix (one texture changes): NEW's `assets.hnames` and `assets.hman` are
/// OLD's byte for byte, so the patch holds neither; the mount must still name and resolve
/// everything. Then every other combination: each table unchanged, changed, deleted, added,
/// absent from both.
#[test]
fn a_mount_reads_as_new_with_and_without_each_bookkeeping_table() {
    let old_files = vec![
        file("models/rock.ktx2", AssetKind::TEXTURE, b"rock texture"),
        file("levels/one.json", AssetKind::BLOB, b"{\"level\": 1}"),
        file("text/credits.txt", AssetKind::BLOB, b"credits"),
    ];
    let mut texture_fix = old_files.clone();
    texture_fix[0].2 = b"rock texture, fixed".to_vec();
    let mut renamed = texture_fix.clone();
    renamed.pop();
    let names_old = vec![
        ("Rock".to_string(), "models/rock.ktx2".to_string()),
        ("LevelOne".to_string(), "levels/one.json".to_string()),
        ("Credits".to_string(), "text/credits.txt".to_string()),
    ];
    let names_new = names_old[..2].to_vec();
    // (OLD names?, NEW names?, OLD manifest?, NEW manifest?, NEW's files)
    type Table<'a> = Option<&'a [(String, String)]>;
    let cases: [(&str, Table<'_>, Table<'_>, bool, bool, &[File]); 8] = [
        (
            "content only, tables unchanged",
            Some(&names_old),
            Some(&names_old),
            true,
            true,
            &texture_fix,
        ),
        (
            "names and manifest changed",
            Some(&names_old),
            Some(&names_new),
            true,
            true,
            &renamed,
        ),
        (
            "names deleted, manifest unchanged",
            Some(&names_old),
            None,
            true,
            true,
            &texture_fix,
        ),
        (
            "names unchanged, manifest deleted",
            Some(&names_old),
            Some(&names_old),
            true,
            false,
            &texture_fix,
        ),
        (
            "both deleted",
            Some(&names_old),
            None,
            true,
            false,
            &renamed,
        ),
        (
            "both added",
            None,
            Some(&names_old),
            false,
            true,
            &texture_fix,
        ),
        ("neither table", None, None, false, false, &renamed),
        (
            "names changed only",
            Some(&names_old),
            Some(&names_new),
            false,
            false,
            &texture_fix,
        ),
    ];
    for (what, old_names, new_names, old_manifest, new_manifest, new_files) in cases {
        for version in [3, 4] {
            let old = pack_with_tables(version, &old_files, old_names, old_manifest);
            let new = pack_with_tables(version, new_files, new_names, new_manifest);
            assert_patch_reads_as_new(&old, &new, &format!("{what} (v{version})"));
        }
    }
}

/// A kind change is a delete plus an add: `diff` records the path as deleted and stores
/// NEW's entry, and the patch mounts and reads as NEW.
#[test]
fn a_patch_whose_entry_changes_kind_mounts_and_reads_as_new() {
    // `grade.lut.cube` replaced by `grade.lut.png`: both bake to `grade.lut.ktx2`, a 3D LUT
    // before and a texture after.
    let names = vec![("Grade".to_string(), "grade.lut.ktx2".to_string())];
    let lut = [file("grade.lut.ktx2", AssetKind::LUT, b"cube lut")];
    let png = [file("grade.lut.ktx2", AssetKind::TEXTURE, b"png lut")];
    let old = pack_with_tables(4, &lut, Some(&names), true);
    let new = pack_with_tables(4, &png, Some(&names), true);
    assert_patch_reads_as_new(&old, &new, "LUT to texture");
    let (old_pak, new_pak) = (
        PakReader::from_bytes(&old).unwrap(),
        PakReader::from_bytes(&new).unwrap(),
    );
    let patch = diff(&old_pak, "old", &new_pak, "new", None).unwrap();
    assert!(
        patch
            .record
            .deleted
            .iter()
            .any(|p| &**p == "grade.lut.ktx2"),
        "{:?}",
        patch.record.deleted
    );

    // OLD baked at pack_version 3 (its `assets.hnames` a blob), NEW at 4 (a name table).
    let files = [file("levels/one.json", AssetKind::BLOB, b"{}")];
    let names = vec![("LevelOne".to_string(), "levels/one.json".to_string())];
    let old = pack_with_tables(3, &files, Some(&names), true);
    let new = pack_with_tables(4, &files, Some(&names), true);
    let kind_of_names = |bytes: &[u8]| {
        PakReader::from_bytes(bytes)
            .unwrap()
            .find(NAMES_PATH)
            .unwrap()
            .unwrap()
            .kind()
    };
    assert_eq!(kind_of_names(&old), AssetKind::BLOB);
    assert_eq!(kind_of_names(&new), AssetKind::NAMES);
    assert_patch_reads_as_new(&old, &new, "v3 to v4");
}

/// xorshift64*: a small deterministic PRNG, so the chains are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const PATHS: [&str; 6] = [
    "a.txt",
    "b.bin",
    "dir/c.dat",
    "grade.lut.ktx2",
    "models/rock.ktx2",
    "z",
];
const KINDS: [AssetKind; 3] = [AssetKind::BLOB, AssetKind::TEXTURE, AssetKind::LUT];

/// One generated pack: each path present or not, of one of a few kinds and contents (so
/// entries stay, change bytes, change kind, appear and go), with or without each table.
fn generated_pack(rng: &mut Rng) -> Vec<u8> {
    let mut files: Vec<File> = Vec::new();
    for path in PATHS {
        if rng.below(3) == 0 {
            continue;
        }
        let kind = KINDS[rng.below(2) as usize + usize::from(path.contains("lut"))];
        let bytes = format!("{path} v{}", rng.below(3)).repeat(1 + rng.below(3) as usize);
        files.push((path.to_string(), kind, bytes.into_bytes()));
    }
    let mut names: Vec<(String, String)> = Vec::new();
    for (path, _, _) in &files {
        if rng.below(4) != 0 {
            let name = format!("{}{}", path.replace(['/', '.'], "_"), rng.below(2));
            names.push((name, path.clone()));
        }
    }
    let names = (rng.below(3) != 0).then_some(&names[..]);
    let manifest = rng.below(3) != 0;
    pack_with_tables(3 + rng.below(2) as u32, &files, names, manifest)
}

/// 200 seeded chains of 1 to 4 patches over a generated base: after each patch the mount
/// reads as that patch's NEW alone.
#[test]
fn generated_patch_chains_read_as_new() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for chain in 0..200 {
        let base = generated_pack(&mut rng);
        let mut mount = LayeredPak::new(PakReader::from_bytes(&base).unwrap(), "base").unwrap();
        let mut old = base;
        let mut probes: BTreeSet<String> = PATHS.iter().map(|p| p.to_string()).collect();
        probes.extend([NAMES_PATH.to_string(), MANIFEST_PATH.to_string()]);
        let probes: Vec<String> = probes.into_iter().collect();
        for step in 0..1 + rng.below(4) {
            let new = generated_pack(&mut rng);
            let (old_pak, new_pak) = (
                PakReader::from_bytes(&old).unwrap(),
                PakReader::from_bytes(&new).unwrap(),
            );
            let patch = diff(&old_pak, "old", &new_pak, "new", None).unwrap();
            let what = format!("chain {chain}, patch {step}");
            mount
                .mount(PakReader::from_bytes(&patch.bytes).unwrap(), &what)
                .unwrap_or_else(|e| panic!("{what}: does not mount: {e}"));
            assert_reads_as_new(&mount, &new_pak, &probes, &what);
            old = new;
        }
    }
}
