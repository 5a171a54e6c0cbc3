//! Pack-only bakes (`tree = false`, `Baker::tree(false)`): the pack alone, the same pack as a
//! tree bake's, and a cache that finds unchanged assets' outputs in the previous pack.
#![cfg(feature = "bake")]

use crate::common::*;
use hearth::bake::Baker;
use hearth::read::inspect::check_output;
use hearth::{Assets, PakReader};
use std::path::{Path, PathBuf};

/// The sample content plus a model (an OBJ with its material library: a mesh, a material
/// table), so that one asset has several outputs.
fn content(root: &Path, manifest_extra: &str) -> PathBuf {
    let manifest = sample_content(root, manifest_extra);
    for file in ["cornell_box.obj", "cornell_box.mtl"] {
        let from = corpus(&format!("obj/cornell_box/{file}"));
        std::fs::create_dir_all(root.join("models")).unwrap();
        std::fs::copy(from, root.join("models").join(file)).unwrap();
    }
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        "assets = [\"shaders/*.spv\"",
        "assets = [\"models/*.obj\", \"shaders/*.spv\"",
    );
    std::fs::write(&manifest, text).unwrap();
    manifest
}

/// The folder's files that are not hearth's bookkeeping (no dot-leading name).
fn visible_files(dir: &Path) -> Vec<PathBuf> {
    mtimes(dir)
        .into_keys()
        .filter(|rel| {
            !rel.components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        })
        .collect()
}

/// A cold pack-only bake of `manifest` in a fresh folder: the pack's bytes.
fn cold_pack(manifest: &Path) -> Vec<u8> {
    let out = tempfile::tempdir().unwrap();
    let report = Baker::new(manifest, out.path())
        .tree(false)
        .cache(false)
        .run()
        .unwrap();
    std::fs::read(report.pack_path).unwrap()
}

#[test]
fn a_pack_only_bake_writes_the_pack_alone_and_the_same_pack_as_a_tree_bake() {
    let src = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    let (tree_out, pack_out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let tree = Baker::bake(manifest.as_path(), tree_out.path()).unwrap();
    assert!(tree.tree);
    let packed = Baker::new(manifest.as_path(), pack_out.path())
        .tree(false)
        .run()
        .unwrap();
    assert!(!packed.tree);
    assert_eq!(packed.assets, 6);
    assert_eq!(
        visible_files(pack_out.path()),
        [PathBuf::from("game.hpack")]
    );
    assert_eq!(
        std::fs::read(&packed.pack_path).unwrap(),
        std::fs::read(&tree.pack_path).unwrap(),
        "the same pack as the tree bake's"
    );
    let pak = PakReader::open(&packed.pack_path).unwrap();
    assert!(pak.get("models/cornell_box.hmesh").unwrap().is_some());
    assert!(pak.get("models/cornell_box.hmat").unwrap().is_some());
    let (problems, checked) = check_output(pack_out.path());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(checked, pak.len());
    // The game reads the folder as it reads a tree bake's.
    let (tree_assets, packed_assets) = (
        Assets::open(tree_out.path()).unwrap(),
        Assets::open(pack_out.path()).unwrap(),
    );
    assert!(matches!(packed_assets, Assets::Pack(_)));
    assert!(matches!(tree_assets, Assets::Tree(_)));
    for path in ["models/cornell_box.hmesh", "data/levels/level1.txt"] {
        assert_eq!(
            packed_assets.get(path).unwrap().unwrap(),
            tree_assets.get(path).unwrap().unwrap(),
            "{path}"
        );
    }
}

#[test]
fn a_pack_only_rebake_takes_unchanged_assets_from_the_previous_pack() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    let bake = || {
        Baker::new(manifest.as_path(), out.path())
            .tree(false)
            .run()
            .unwrap()
    };
    let first = bake();
    let before = mtimes(out.path());
    std::thread::sleep(std::time::Duration::from_millis(20));

    // Nothing changed: every asset from the cache, nothing written.
    let again = bake();
    assert_eq!(again.cache_hits, again.assets);
    assert_eq!(again.files_written, 0);
    assert_eq!(mtimes(out.path()), before, "a no-op re-bake touched files");

    // One source changed: the others' outputs (the model's mesh and material table, the
    // compressed text) come out of the previous pack into the new one, byte for byte what a
    // cold bake makes.
    std::fs::write(src.path().join("data/levels/level2.txt"), b"edited level").unwrap();
    let edited = bake();
    assert_eq!(edited.cache_hits, first.assets - 1);
    assert_eq!(edited.files_written, 1, "the pack alone");
    assert_eq!(
        std::fs::read(&edited.pack_path).unwrap(),
        cold_pack(&manifest)
    );
    assert_eq!(visible_files(out.path()), [PathBuf::from("game.hpack")]);
}

#[test]
fn switching_between_tree_and_pack_only_leaves_one_bake_in_the_folder() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    let tree = Baker::bake(manifest.as_path(), out.path()).unwrap();
    let tree_files = contents(out.path());
    let visible = visible_files(out.path()).len();
    assert!(visible > 5);

    // Tree -> pack only: the tree's files go, the assets come from the cache (their outputs
    // are in the pack too), and the pack stays as it was.
    let packed = Baker::new(manifest.as_path(), out.path())
        .tree(false)
        .run()
        .unwrap();
    assert_eq!(packed.cache_hits, packed.assets);
    assert_eq!(packed.files_removed, visible - 1, "all but the pack");
    assert_eq!(
        packed.files_removed,
        tree.manifest_entries + 2,
        "outputs, manifest, names"
    );
    assert_eq!(visible_files(out.path()), [PathBuf::from("game.hpack")]);
    assert_eq!(
        std::fs::read(&packed.pack_path).unwrap(),
        tree_files[Path::new("game.hpack")]
    );
    assert!(!out.path().join("data").exists(), "emptied folders pruned");

    // Pack only -> tree: the tree is made again, as it was.
    let back = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert!(back.tree);
    let mut again = contents(out.path());
    let mut before = tree_files;
    for files in [&mut again, &mut before] {
        files.remove(Path::new(".hearth-cache"));
    }
    assert_eq!(again, before);
}

#[test]
fn a_replaced_or_linked_previous_pack_is_not_trusted() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    let bake = || {
        let warnings = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = warnings.clone();
        let report = Baker::new(manifest.as_path(), out.path())
            .tree(false)
            .on_warning(move |w| sink.lock().unwrap().push(w.to_owned()))
            .run()
            .unwrap();
        let warnings = warnings.lock().unwrap().clone();
        (report, warnings)
    };
    let (first, _) = bake();
    let pack = first.pack_path.clone();
    let good = std::fs::read(&pack).unwrap();
    std::fs::write(src.path().join("data/levels/level2.txt"), b"edited level").unwrap();

    // Another pack of another size in its place: every asset is baked again, with a warning.
    std::fs::write(&pack, &good[..good.len() / 2]).unwrap();
    let (report, warnings) = bake();
    assert_eq!(report.cache_hits, 0);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("previous pack is unusable")
                && w.contains("game.hpack")
                && w.contains("cache recorded")),
        "{warnings:?}"
    );
    assert_eq!(std::fs::read(&pack).unwrap(), cold_pack(&manifest));

    // A link where the pack was (to a copy of the right size): not followed.
    #[cfg(unix)]
    {
        let elsewhere = tempfile::tempdir().unwrap();
        let copy = elsewhere.path().join("copy.hpack");
        std::fs::copy(&pack, &copy).unwrap();
        let copied = std::fs::read(&copy).unwrap();
        std::fs::remove_file(&pack).unwrap();
        std::os::unix::fs::symlink(&copy, &pack).unwrap();
        std::fs::write(src.path().join("data/levels/level2.txt"), b"edited again").unwrap();
        let (report, warnings) = bake();
        assert_eq!(report.cache_hits, 0, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("previous pack is unusable")),
            "{warnings:?}"
        );
        assert!(!pack.is_symlink(), "the link is replaced by the new pack");
        assert_eq!(
            std::fs::read(&copy).unwrap(),
            copied,
            "the link's target is untouched"
        );
    }

    // A missing pack: baked again, quietly (nothing to warn about).
    std::fs::remove_file(&pack).unwrap();
    let (report, warnings) = bake();
    assert_eq!(report.cache_hits, 0);
    assert!(
        !warnings.iter().any(|w| w.contains("previous pack")),
        "{warnings:?}"
    );
    assert!(check_output(out.path()).0.is_empty());
}

#[test]
fn the_manifest_and_its_presets_choose_pack_only_and_the_baker_overrides_them() {
    let src = tempfile::tempdir().unwrap();
    let manifest = content(
        src.path(),
        "[presets.ship]\noutput = \"ship\"\ntree = false\n[presets.dev]\noutput = \"dev\"\n\
         [[content.group]]\nassets = []\ntree = false\n",
    );
    let out = tempfile::tempdir().unwrap();
    let forced = Baker::new(manifest.as_path(), out.path())
        .preset("ship")
        .tree(true)
        .run()
        .unwrap();
    assert!(forced.tree);
    assert!(out.path().join("ship/assets.hman").is_file());
    let dev = Baker::new(manifest.as_path(), out.path())
        .preset("dev")
        .run()
        .unwrap();
    assert!(dev.tree);
    let warnings = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = warnings.clone();
    let ship = Baker::new(manifest.as_path(), out.path())
        .preset("ship")
        .on_warning(move |w| sink.lock().unwrap().push(w.to_owned()))
        .run()
        .unwrap();
    assert!(!ship.tree);
    assert_eq!(
        visible_files(&out.path().join("ship")),
        [PathBuf::from("game.hpack")]
    );
    let warnings = warnings.lock().unwrap().clone();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("`content.group[2].tree` is not valid there")),
        "{warnings:?}"
    );
    // `hearth check` of the folder of presets: the pack-only one is checked through its pack.
    let (problems, checked) = check_output(out.path());
    assert!(problems.is_empty(), "{problems:?}");
    assert!(checked > PakReader::open(&ship.pack_path).unwrap().len());

    // `[content] tree = false` for every preset that does not say otherwise.
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("[content]\n", "[content]\ntree = false\n");
    std::fs::write(&manifest, text).unwrap();
    let plain = tempfile::tempdir().unwrap();
    assert!(!Baker::bake(manifest.as_path(), plain.path()).unwrap().tree);
    assert_eq!(visible_files(plain.path()), [PathBuf::from("game.hpack")]);
}

#[test]
fn check_finds_a_damaged_entry_in_a_pack_only_bake() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "[presets.raw]\ncompression = \"none\"\n");
    let report = Baker::new(manifest.as_path(), out.path())
        .tree(false)
        .preset("raw")
        .run()
        .unwrap();
    let pack = std::fs::read(&report.pack_path).unwrap();
    let pak = PakReader::from_bytes(&pack).unwrap();
    // Flip a byte of the stored mesh: the pack's checksum catches it.
    let mesh = pak.find("models/cornell_box.hmesh").unwrap().unwrap();
    let offset = pack
        .windows(16)
        .position(|w| w == &mesh.bytes().unwrap()[..16])
        .unwrap();
    let mut damaged = pack.clone();
    damaged[offset + 8] ^= 0xff;
    std::fs::write(&report.pack_path, &damaged).unwrap();
    let (problems, _) = check_output(out.path());
    assert!(
        problems.iter().any(|p| p.contains("game.hpack")),
        "{problems:?}"
    );
}

/// Renames the pack: `content.name` of `manifest` becomes `name`.
fn rename_pack(manifest: &Path, name: &str) {
    let text = std::fs::read_to_string(manifest).unwrap();
    let renamed = text.replace("name = \"game\"", &format!("name = \"{name}\""));
    assert_ne!(text, renamed, "the manifest names its pack `game`");
    std::fs::write(manifest, renamed).unwrap();
}

#[test]
fn renaming_the_pack_of_a_pack_only_bake_removes_the_previous_pack() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    let bake = || {
        Baker::new(manifest.as_path(), out.path())
            .tree(false)
            .run()
            .unwrap()
    };
    bake();
    rename_pack(&manifest, "renamed");
    let renamed = bake();
    assert_eq!(renamed.files_removed, 1, "the previous pack");
    assert_eq!(visible_files(out.path()), [PathBuf::from("renamed.hpack")]);
    let (problems, _) = check_output(out.path());
    assert!(problems.is_empty(), "{problems:?}");
    let assets = Assets::open(out.path()).unwrap();
    assert!(assets.get("data/levels/level2.txt").unwrap().is_some());
}

#[test]
fn renaming_the_pack_of_a_tree_bake_removes_the_previous_pack() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    rename_pack(&manifest, "renamed");
    // The assets are unchanged: the previous pack goes all the same.
    let renamed = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(renamed.files_removed, 1, "the previous pack");
    assert!(!out.path().join("game.hpack").exists());
    assert!(out.path().join("renamed.hpack").is_file());
    let (problems, _) = check_output(out.path());
    assert!(problems.is_empty(), "{problems:?}");
    // A later change leaves a consistent folder too (a stale pack no longer matched it).
    std::fs::write(src.path().join("data/levels/level2.txt"), b"edited level").unwrap();
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let (problems, _) = check_output(out.path());
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_folder_with_two_packs_and_no_tree_is_an_error_naming_both() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    let report = Baker::new(manifest.as_path(), out.path())
        .tree(false)
        .run()
        .unwrap();
    std::fs::copy(&report.pack_path, out.path().join("other.hpack")).unwrap();
    let names_both =
        |message: &str| message.contains("game.hpack") && message.contains("other.hpack");
    let err = Assets::open(out.path()).unwrap_err().to_string();
    assert!(names_both(&err) && err.contains("two packs"), "{err}");
    let (problems, _) = check_output(out.path());
    assert!(problems.iter().any(|p| names_both(p)), "{problems:?}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args([
            "get",
            out.path().to_str().unwrap(),
            "data/levels/level2.txt",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && names_both(&stderr), "{stderr}");
}

#[test]
fn a_pack_only_folder_whose_commit_is_pending_is_refused_until_check_finishes_it() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = content(src.path(), "");
    Baker::new(manifest.as_path(), out.path())
        .tree(false)
        .run()
        .unwrap();
    // A journal left by a bake killed after its commit point (this one fails its checksum,
    // so finishing it discards it).
    std::fs::create_dir(out.path().join(".hearth-txn")).unwrap();
    std::fs::write(
        out.path().join(".hearth-txn/commit"),
        b"hearth-transaction 1\n",
    )
    .unwrap();
    let err = Assets::open(out.path()).unwrap_err().to_string();
    assert!(
        err.contains(".hearth-txn/commit") && err.contains("hearth check"),
        "{err}"
    );
    hearth::bake::transaction::recover_all(out.path()).unwrap();
    assert!(Assets::open(out.path()).is_ok());
}
