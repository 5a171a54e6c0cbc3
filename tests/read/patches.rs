//! Patch packs (`hearth diff`) and layered mounting (`LayeredPak`, `hearth get --over`):
//! a patch over its base reads as the new pack by path, hash and name; deletions hide; a
//! wrong base, a damaged patch, a kind disagreement and an unsigned patch over a signed base
//! are refused with errors naming the files.

use crate::common;
use hearth::bake::pack::{self, PackFile};
use hearth::bake::patch::diff;
use hearth::bake::signing::SigningKey;
use hearth::bake::Baker;
use hearth::format::hpatch::PATCH_PATH;
use hearth::{AssetBytes, AssetKind, Codec, LayeredPak, PakReader, ReadError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The example content baked (debug preset), then updated as a game's fix would be: one
/// texture re-encoded, one level file edited, the credits deleted, and baked again. Returns
/// the packs before and after.
fn example_update(dir: &Path) -> (PathBuf, PathBuf) {
    let content = dir.join("content");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/content");
    common::copy_dir(&examples, &content);
    let manifest = content.join("hearth.toml");
    let out = dir.join("out");
    Baker::new(&manifest, &out).preset("debug").run().unwrap();
    let old = dir.join("old.hpack");
    std::fs::copy(out.join("example.hpack"), &old).unwrap();

    let bricks = content.join("textures/bricks.png");
    let mut image = image::open(&bricks).unwrap().to_rgba8();
    image.get_pixel_mut(0, 0).0[0] ^= 0x40;
    image.save(&bricks).unwrap();
    let level = content.join("data/levels/level1.json");
    let text = std::fs::read_to_string(&level).unwrap();
    std::fs::write(&level, text.replace("\"Level 1\"", "\"Level One\"")).unwrap();
    std::fs::remove_file(content.join("text/credits.txt")).unwrap();
    Baker::new(&manifest, &out).preset("debug").run().unwrap();
    (old, out.join("example.hpack"))
}

/// Paths whose entry differs between the packs (bytes as stored, codec or kind), or that
/// only `new` has, with NEW's stored sizes.
fn changed_entries(old: &PakReader, new: &PakReader) -> Vec<(String, u64)> {
    new.entries()
        .map(Result::unwrap)
        .filter(|e| {
            old.find(&e.path()).unwrap().is_none_or(|o| {
                o.stored_bytes() != e.stored_bytes()
                    || o.codec() != e.codec()
                    || o.kind() != e.kind()
            })
        })
        .map(|e| (e.path().into_owned(), e.stored_size()))
        .collect()
}

#[test]
fn a_patch_over_its_base_reads_as_the_new_pack_and_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let (old_file, new_file) = example_update(dir.path());
    let (old, new) = (
        PakReader::open(&old_file).unwrap(),
        PakReader::open(&new_file).unwrap(),
    );
    let patch = diff(&old, s(&old_file), &new, s(&new_file), None).unwrap();
    let patch_file = dir.path().join("patch.hpack");
    std::fs::write(&patch_file, &patch.bytes).unwrap();

    // Only what changed, byte for byte as NEW stores it, and the deletion record.
    let changed = changed_entries(&old, &new);
    let paths: Vec<&str> = changed.iter().map(|(p, _)| p.as_str()).collect();
    for expected in ["textures/bricks.ktx2", "data/levels/level1.json"] {
        assert!(paths.contains(&expected), "{expected} not in {paths:?}");
    }
    let patch_pak = PakReader::open(&patch_file).unwrap();
    patch_pak.verify().unwrap();
    let mut in_patch: Vec<String> = patch_pak
        .entries()
        .map(|e| e.unwrap().path().into_owned())
        .collect();
    in_patch.retain(|p| p != PATCH_PATH);
    assert_eq!(
        in_patch, paths,
        "the patch holds exactly the changed entries"
    );
    for entry in patch_pak.entries().map(Result::unwrap) {
        if let Some(theirs) = new.find(&entry.path()).unwrap() {
            assert_eq!(
                entry.stored_bytes(),
                theirs.stored_bytes(),
                "{}",
                entry.path()
            );
            assert_eq!(entry.codec(), theirs.codec());
        }
    }
    assert_eq!(&*patch.record.deleted, &["text/credits.txt".into()]);
    assert_eq!(patch.stats.deleted, 1);
    assert_eq!(patch.stats.added + patch.stats.changed, changed.len());

    // Size: at most 1.05x the changed entries as stored, plus the patch's tables.
    let changed_bytes: u64 = changed.iter().map(|(_, size)| size).sum();
    let record = patch_pak.find(PATCH_PATH).unwrap().unwrap().stored_size();
    let tables = patch_pak.v3_header().unwrap().data_offset;
    let bound = ((changed_bytes + record) as f64 * 1.05) as u64 + tables;
    eprintln!(
        "patch: {} B for {} changed entries of {changed_bytes} B stored (+{record} B record, \
         {tables} B tables); new pack {} B",
        patch.bytes.len(),
        changed.len(),
        new.bytes().len()
    );
    assert!(
        patch.bytes.len() as u64 <= bound,
        "{} > {bound}",
        patch.bytes.len()
    );

    // Mounted over OLD, every path, hash and name reads as NEW.
    let mut mount = LayeredPak::open(&old_file).unwrap();
    mount.mount_file(&patch_file).unwrap();
    let shown: Vec<String> = mount
        .entries()
        .unwrap()
        .iter()
        .map(|e| e.path().into_owned())
        .collect();
    let expected: Vec<String> = new
        .entries()
        .map(|e| e.unwrap().path().into_owned())
        .collect();
    assert_eq!(shown, expected);
    for entry in new.entries().map(Result::unwrap) {
        let path = entry.path();
        let bytes = entry.bytes().unwrap();
        assert_eq!(mount.get(&path).unwrap().unwrap(), bytes, "{path}");
        let by_hash = mount.find_by_hash(entry.hash()).unwrap().unwrap();
        assert_eq!(by_hash.path(), path);
        assert_eq!(by_hash.kind(), entry.kind(), "{path}");
        assert_eq!(mount.get_by_hash(entry.hash()).unwrap().unwrap(), bytes);
        let loaded: AssetBytes = mount.load(&path).unwrap();
        assert_eq!(&*loaded, &*bytes);
    }
    let names = new.names().unwrap();
    assert!(names.len() > 5, "{} names", names.len());
    for row in names.iter() {
        assert_eq!(
            mount.lookup_name(row.name).unwrap(),
            new.lookup_name(row.name).unwrap(),
            "{}",
            row.name
        );
        let through_mount: AssetBytes = mount.load_by_name(row.name).unwrap();
        let from_new: AssetBytes = new.load_by_name(row.name).unwrap();
        assert_eq!(&*through_mount, &*from_new, "{}", row.name);
    }
    for row in new.manifest().unwrap() {
        assert_eq!(mount.resolve(row.hash).unwrap(), Some(row));
    }
    let model = hearth::Model::load(&mount, "models/spot/spot.hmesh").unwrap();
    assert!(!model.submeshes.is_empty());

    // The deleted blob is gone by path, hash and name; the mount hides its bookkeeping.
    let credits = hearth::hash_runtime_path("text/credits.txt");
    assert!(old.find("text/credits.txt").unwrap().is_some());
    assert!(mount.get("text/credits.txt").unwrap().is_none());
    assert!(mount.find_by_hash(credits).unwrap().is_none());
    assert!(mount.resolve(credits).unwrap().is_none());
    let credits_name = old
        .names()
        .unwrap()
        .iter()
        .find(|row| row.path == "text/credits.txt")
        .map(|row| row.name.to_owned())
        .expect("the credits have a name");
    assert!(mount.lookup_name(&credits_name).unwrap().is_none());
    assert!(mount.get(PATCH_PATH).unwrap().is_none());

    // The same patch over the new pack (another base), or twice: refused, naming both files.
    let mut wrong = LayeredPak::open(&new_file).unwrap();
    let error = wrong.mount_file(&patch_file).unwrap_err().to_string();
    assert!(
        error.contains(s(&patch_file)) && error.contains(s(&new_file)),
        "{error}"
    );
    assert!(error.contains("another pack"), "{error}");
    let error = mount.mount_file(&patch_file).unwrap_err().to_string();
    assert!(
        error.contains(s(&patch_file)) && error.contains("another pack"),
        "{error}"
    );
    assert_eq!(mount.layers().len(), 2, "a refused mount changes nothing");
    // A patch is not a base, and a diff wants full packs.
    assert!(LayeredPak::open(&patch_file).is_err());
    let error = diff(&patch_pak, s(&patch_file), &new, s(&new_file), None).unwrap_err();
    assert!(error.to_string().contains(s(&patch_file)), "{error}");
}

/// A pack of `files` (path, kind, bytes), zstd where it pays, v4 or signed v5.
fn small_pack(files: &[(&str, AssetKind, &[u8])], key: Option<&SigningKey>) -> Vec<u8> {
    let files: Vec<PackFile<'_>> = files
        .iter()
        .map(|(path, kind, bytes)| PackFile {
            path,
            kind: *kind,
            bytes,
            codec: Codec::Zstd,
            level: None,
        })
        .collect();
    match key {
        Some(key) => pack::build_signed(&files, key),
        None => pack::build(4, &files),
    }
}

const BLOB: AssetKind = AssetKind::BLOB;

/// OLD, NEW and the patch between them (written into `dir`), each signed by `key` if given.
fn small_update(dir: &Path, key: Option<&SigningKey>) -> [PathBuf; 3] {
    let long = "a level that compresses well\n".repeat(40);
    let old = small_pack(
        &[
            ("a.txt", BLOB, b"alpha"),
            ("gone.txt", BLOB, b"to be deleted"),
            ("levels/one.txt", BLOB, long.as_bytes()),
        ],
        key,
    );
    let edited = long.replace("level", "LEVEL");
    let new = small_pack(
        &[
            ("a.txt", BLOB, b"alpha"),
            ("b.txt", BLOB, b"bravo, added"),
            ("levels/one.txt", BLOB, edited.as_bytes()),
        ],
        key,
    );
    let files = ["old.hpack", "new.hpack", "patch.hpack"].map(|f| dir.join(f));
    std::fs::write(&files[0], old).unwrap();
    std::fs::write(&files[1], new).unwrap();
    let (old, new) = (
        PakReader::open(&files[0]).unwrap(),
        PakReader::open(&files[1]).unwrap(),
    );
    let patch = diff(&old, "old.hpack", &new, "new.hpack", key).unwrap();
    assert_eq!(
        (patch.stats.added, patch.stats.changed, patch.stats.deleted),
        (1, 1, 1)
    );
    std::fs::write(&files[2], &patch.bytes).unwrap();
    files
}

#[test]
fn a_truncated_or_tampered_patch_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let [old, _, patch] = small_update(dir.path(), None);
    let bytes = std::fs::read(&patch).unwrap();
    let damaged = dir.path().join("damaged.hpack");
    let mount_damaged = |bytes: &[u8]| {
        std::fs::write(&damaged, bytes).unwrap();
        let mut mount = LayeredPak::open(&old).unwrap();
        mount.mount_file(&damaged).map(|()| mount)
    };
    mount_damaged(&bytes).expect("the intact patch mounts");
    for len in (0..bytes.len()).step_by(7) {
        let error = mount_damaged(&bytes[..len]).expect_err("a cut patch is refused");
        assert!(error.to_string().contains(s(&damaged)), "{error}");
    }
    // Every byte of the tables and the patch record, flipped: refused at mount.
    let patch_pak = PakReader::from_bytes(&bytes).unwrap();
    let record = patch_pak.find(PATCH_PATH).unwrap().unwrap();
    let record_range = record.offset() as usize..(record.offset() + record.stored_size()) as usize;
    let tables = 0..patch_pak.v3_header().unwrap().data_offset as usize;
    for at in tables.chain(record_range) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        let error = mount_damaged(&flipped).err();
        let error = error.unwrap_or_else(|| panic!("byte {at} flipped, mounted"));
        assert!(error.to_string().contains(s(&damaged)), "{error}");
    }
}

#[test]
fn layers_that_disagree_on_a_kind_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.hpack");
    let dlc = dir.path().join("dlc.hpack");
    std::fs::write(
        &base,
        small_pack(&[("rock.ktx2", AssetKind::TEXTURE, b"ktx")], None),
    )
    .unwrap();
    std::fs::write(
        &dlc,
        small_pack(&[("rock.ktx2", BLOB, b"not a texture")], None),
    )
    .unwrap();
    let mut mount = LayeredPak::open(&base).unwrap();
    let error = mount.mount_file(&dlc).unwrap_err();
    assert!(
        matches!(error, ReadError::LayerConflict { .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("base.hpack") && text.contains("dlc.hpack"),
        "{text}"
    );
    assert!(
        text.contains("rock.ktx2") && text.contains("texture"),
        "{text}"
    );
    assert_eq!(mount.get("rock.ktx2").unwrap().unwrap(), &b"ktx"[..]);
}

#[test]
fn a_dlc_adds_entries_and_the_last_mounted_wins() {
    let dir = tempfile::tempdir().unwrap();
    let [old, new, patch] = small_update(dir.path(), None);
    let dlc = dir.path().join("dlc.hpack");
    std::fs::write(
        &dlc,
        small_pack(
            &[
                ("b.txt", BLOB, b"bravo from the DLC"),
                ("dlc/forest.txt", BLOB, b"trees"),
            ],
            None,
        ),
    )
    .unwrap();
    let mut mount = LayeredPak::open(&old).unwrap();
    mount.mount_file(&dlc).unwrap();
    // The patch applies to the base's version line under the DLC.
    mount.mount_file(&patch).unwrap();
    let new = PakReader::open(&new).unwrap();
    // The patch was mounted last: its b.txt wins over the DLC's.
    assert_eq!(mount.get("b.txt").unwrap(), new.get("b.txt").unwrap());
    assert_eq!(mount.get("dlc/forest.txt").unwrap().unwrap(), &b"trees"[..]);
    assert!(mount.get("gone.txt").unwrap().is_none());
    let by_hash = mount
        .find_by_hash(hearth::hash_runtime_path("b.txt"))
        .unwrap();
    assert_eq!(mount.file_of(&by_hash.unwrap()), s(&patch));
}

#[test]
fn a_signed_base_refuses_an_unsigned_or_foreign_signed_patch() {
    let key = SigningKey::generate().unwrap();
    let other = SigningKey::generate().unwrap();
    let public = key.public_key();
    for (name, patch_key, accepted) in [
        ("unsigned", None, false),
        ("foreign", Some(&other), false),
        ("signed", Some(&key), true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let [old, new, _] = small_update(dir.path(), Some(&key));
        let (old_pak, new_pak) = (
            PakReader::open(&old).unwrap(),
            PakReader::open(&new).unwrap(),
        );
        let patch = diff(&old_pak, "old", &new_pak, "new", patch_key).unwrap();
        let patch_file = dir.path().join(format!("{name}.hpack"));
        std::fs::write(&patch_file, &patch.bytes).unwrap();
        let mut mount = LayeredPak::open_signed(&old, &public).unwrap();
        let result = mount.mount_file(&patch_file);
        assert_eq!(result.is_ok(), accepted, "{name}: {result:?}");
        if let Err(error) = result {
            assert!(matches!(error, ReadError::Layer { .. }), "{error:?}");
            assert!(error.to_string().contains(s(&patch_file)), "{error}");
            assert!(error.to_string().contains("signature"), "{error}");
        } else {
            assert_eq!(mount.get("b.txt").unwrap(), new_pak.get("b.txt").unwrap());
        }
        // Without verification, the unsigned patch mounts over the signed base.
        let mut plain = LayeredPak::open(&old).unwrap();
        plain.mount_file(&patch_file).unwrap();
    }
    // A verifying mount refuses an unsigned base too.
    let dir = tempfile::tempdir().unwrap();
    let [old, _, _] = small_update(dir.path(), None);
    let error = LayeredPak::open_signed(&old, &public).unwrap_err();
    assert!(error.to_string().contains(s(&old)), "{error}");
}

fn hearth(args: &[&str]) -> (bool, Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.success(),
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn cli_diff_and_get_over() {
    let dir = tempfile::tempdir().unwrap();
    let [old, new, _] = small_update(dir.path(), None);
    let patch = dir.path().join("cli-patch.hpack");
    let (ok, stdout, stderr) = hearth(&["diff", s(&old), s(&new), "-o", s(&patch), "--json"]);
    assert!(ok, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(report["added"], 1);
    assert_eq!(report["changed"], 1);
    assert_eq!(report["deleted"], 1);
    assert_eq!(report["unchanged"], 1);
    assert_eq!(report["bytes"], std::fs::metadata(&patch).unwrap().len());
    assert_eq!(report["signed"], false);
    let library = std::fs::read(dir.path().join("patch.hpack")).unwrap();
    assert_eq!(std::fs::read(&patch).unwrap(), library, "deterministic");

    let new = PakReader::open(&new).unwrap();
    for path in ["a.txt", "b.txt", "levels/one.txt"] {
        let (ok, stdout, stderr) = hearth(&["get", s(&old), path, "--over", s(&patch)]);
        assert!(ok, "{path}: {stderr}");
        assert_eq!(stdout, &*new.get(path).unwrap().unwrap(), "{path}");
    }
    let hash = format!("0x{:016x}", hearth::hash_runtime_path("b.txt"));
    let (ok, stdout, _) = hearth(&["get", s(&old), &hash, "--over", s(&patch)]);
    assert!(ok && stdout == b"bravo, added");
    let (ok, _, stderr) = hearth(&["get", s(&old), "gone.txt", "--over", s(&patch)]);
    assert!(!ok && stderr.contains("no entry `gone.txt`"), "{stderr}");
    // Over the wrong base: refused, naming both files.
    let (ok, _, stderr) = hearth(&[
        "get",
        s(&dir.path().join("new.hpack")),
        "a.txt",
        "--over",
        s(&patch),
    ]);
    assert!(
        !ok && stderr.contains("new.hpack") && stderr.contains("cli-patch.hpack"),
        "{stderr}"
    );
}

/// `diff` and `get --over` given an output folder take its one pack, as `Assets::open` does;
/// a folder without exactly one `.hpack` is an error naming it and saying a `.hpack` is
/// expected (it was "No such device (os error 19)").
#[test]
fn cli_diff_and_get_over_take_an_output_folders_one_pack() {
    let dir = tempfile::tempdir().unwrap();
    let [old, new, _] = small_update(dir.path(), None);
    let folder_of = |pack: &Path, name: &str| {
        let folder = dir.path().join(name);
        std::fs::create_dir(&folder).unwrap();
        std::fs::copy(pack, folder.join("game.hpack")).unwrap();
        folder
    };
    let (old_out, new_out) = (folder_of(&old, "out-old"), folder_of(&new, "out-new"));
    let patch = dir.path().join("folder-patch.hpack");
    let (ok, _, stderr) = hearth(&["diff", s(&old_out), s(&new_out), "-o", s(&patch)]);
    assert!(ok, "{stderr}");
    let patch_out = folder_of(&patch, "out-patch");
    let (ok, stdout, stderr) = hearth(&["get", s(&old_out), "b.txt", "--over", s(&patch_out)]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout, b"bravo, added");

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let two = folder_of(&old, "two");
    std::fs::copy(&new, two.join("other.hpack")).unwrap();
    for folder in [&empty, &two] {
        let runs = [
            vec!["diff", s(folder), s(&new), "-o", s(&patch)],
            vec!["diff", s(&old), s(folder), "-o", s(&patch)],
            vec!["get", s(&old), "a.txt", "--over", s(folder)],
        ];
        for args in runs {
            let (ok, _, stderr) = hearth(&args);
            assert!(!ok, "{args:?}");
            assert!(
                stderr.contains(s(folder)) && stderr.contains(".hpack"),
                "{args:?}: {stderr}"
            );
            assert!(!stderr.contains("os error"), "{args:?}: {stderr}");
        }
    }
    // The library says the same when a folder is opened as a pack.
    let error = PakReader::open(&empty).unwrap_err().to_string();
    assert!(
        error.contains(".hpack") && !error.contains("os error"),
        "{error}"
    );
}

/// A content-only fix (one level file edited): NEW's name table and manifest are OLD's byte
/// for byte, so the patch holds neither. Through the mount, the trait's name table, models'
/// material names, `Model::load_by_name` and `Loader::load_by_name` read as NEW (the mount's
/// `names()` was the patch's missing table: empty).
#[test]
fn a_content_only_patch_keeps_names_for_models_and_loaders() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/content");
    common::copy_dir(&examples, &content);
    let out = dir.path().join("out");
    Baker::new(content.join("hearth.toml"), &out)
        .preset("debug")
        .run()
        .unwrap();
    let old_file = out.join("example.hpack");
    let old = PakReader::open(&old_file).unwrap();
    // NEW: OLD's entries as stored, the level's bytes edited.
    let level = "data/levels/level1.json";
    let edited = b"{\"name\": \"Level One\"}".to_vec();
    let entries: Vec<_> = old.entries().map(Result::unwrap).collect();
    let paths: Vec<String> = entries.iter().map(|e| e.path().into_owned()).collect();
    let inputs: Vec<hearth::format::hpack::PackInput<'_>> = entries
        .iter()
        .zip(&paths)
        .map(|(entry, path)| match path == level {
            true => hearth::format::hpack::PackInput {
                path,
                kind: entry.kind(),
                codec: Codec::None,
                stored: &edited,
                size: edited.len() as u64,
            },
            false => hearth::format::hpack::PackInput {
                path,
                kind: entry.kind(),
                codec: entry.codec(),
                stored: entry.stored_bytes(),
                size: entry.size(),
            },
        })
        .collect();
    let new_bytes = pack::build_encoded(&inputs, None);
    let new = PakReader::from_bytes(&new_bytes).unwrap();
    let patch = diff(&old, s(&old_file), &new, "new.hpack", None).unwrap();
    let patch_pak = PakReader::from_bytes(&patch.bytes).unwrap();
    assert!(patch_pak
        .find(hearth::format::hnames::NAMES_PATH)
        .unwrap()
        .is_none());
    assert_eq!((patch.stats.changed, patch.stats.added), (1, 0));

    let mut mount = LayeredPak::open(&old_file).unwrap();
    mount.mount(patch_pak, "patch.hpack").unwrap();
    let rows = |table: hearth::NameTable<'_>| table.iter().map(|r| format!("{r:?}")).count();
    let new_rows = rows(new.names().unwrap());
    assert!(new_rows > 5, "{new_rows} names");
    assert_eq!(rows(hearth::AssetSource::names(&mount).unwrap()), new_rows);

    let spot = "models/spot/spot.hmesh";
    let material_names = |model: hearth::Model| -> Vec<String> {
        model
            .material_slots
            .iter()
            .map(|m| m.name.to_string())
            .collect()
    };
    let through_mount = material_names(hearth::Model::load(&mount, spot).unwrap());
    assert_eq!(
        through_mount,
        material_names(hearth::Model::load(&new, spot).unwrap())
    );
    let name = new
        .names()
        .unwrap()
        .iter()
        .find(|row| row.path == spot && row.kind == AssetKind::MESH)
        .map(|row| row.name.to_owned())
        .expect("the model has a name");
    let model = hearth::Model::load_by_name(&mount, &name).unwrap();
    assert_eq!(model.mesh.path(), spot);
    let loader = hearth::read::loader::Loader::new(mount, 1);
    let loaded: AssetBytes = loader.load_by_name(&name).wait().unwrap();
    assert_eq!(&*loaded, &*new.get(spot).unwrap().unwrap());
}
