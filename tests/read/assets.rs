//! One read API over packs and runtime trees: the same bake read from its pack and from its
//! tree gives identical entries, bytes, hashes and manifest rows; `hearth get` reads both.

use crate::common;

use hearth::bake::Baker;
use hearth::{hash_runtime_path, Assets, PakReader};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The bundled example content (a textured model, textures, a LUT, a shader, text, levels)
/// baked with its fast `debug` preset.
fn bake_example(out: &Path) -> hearth::bake::Report {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/content/hearth.toml");
    Baker::new(manifest, out).preset("debug").run().unwrap()
}

fn assert_same(pack: &Assets, tree: &Assets) {
    let entries = pack.entries().unwrap();
    assert_eq!(
        entries,
        tree.entries().unwrap(),
        "same entries, kinds and sizes"
    );
    assert!(entries.len() > 10, "{} entries", entries.len());
    for entry in &entries {
        let bytes = pack.get(&entry.path).unwrap().unwrap();
        assert_eq!(
            bytes,
            tree.get(&entry.path).unwrap().unwrap(),
            "{}",
            entry.path
        );
        assert_eq!(bytes.len() as u64, entry.size, "{}", entry.path);
        assert_eq!(entry.hash, hash_runtime_path(&entry.path));
        assert_eq!(pack.get_by_hash(entry.hash).unwrap().unwrap(), bytes);
        assert_eq!(tree.get_by_hash(entry.hash).unwrap().unwrap(), bytes);
        assert_eq!(
            pack.resolve(entry.hash).unwrap(),
            tree.resolve(entry.hash).unwrap(),
            "{}",
            entry.path
        );
        if pack.resolve(entry.hash).unwrap().is_some() {
            assert_eq!(pack.get_by_hash(entry.hash).unwrap().unwrap(), bytes);
            assert_eq!(tree.get_by_hash(entry.hash).unwrap().unwrap(), bytes);
        }
    }
    assert_eq!(pack.manifest().unwrap(), tree.manifest().unwrap());
    for missing in [
        "nope.txt",
        "../hearth.toml",
        "/etc/passwd",
        ".hearth-cache",
        "",
    ] {
        assert!(pack.get(missing).unwrap().is_none(), "{missing:?}");
        assert!(tree.get(missing).unwrap().is_none(), "{missing:?}");
    }
    assert!(tree.get_by_hash(0x1234).unwrap().is_none());
}

#[test]
fn a_pack_and_its_tree_read_back_identically() {
    let out = tempfile::tempdir().unwrap();
    let report = bake_example(out.path());
    let pack = Assets::open(&report.pack_path).unwrap();
    let tree = Assets::open(out.path()).unwrap();
    assert!(matches!(pack, Assets::Pack(_)) && matches!(tree, Assets::Tree(_)));
    assert_same(&pack, &tree);
    // An embedded (owned-bytes) pack is the same again.
    let bytes = std::fs::read(&report.pack_path).unwrap();
    let owned = Assets::from(PakReader::from_bytes(bytes).unwrap());
    assert_same(&owned, &tree);
}

#[test]
fn corpus_models_read_back_identically_from_pack_and_tree() {
    let content = tempfile::tempdir().unwrap();
    for model in ["BoxTextured", "CesiumMan", "RiggedSimple", "MultiUVTest"] {
        common::copy_dir(
            &common::corpus(&format!("gltf/{model}")),
            &content.path().join(model),
        );
    }
    std::fs::write(
        content.path().join("hearth.toml"),
        "[[content.group]]\nassets = [\"**/*.gltf\", \"**/*.glb\"]\n\
         [default]\ntexture = { quality = \"fastest\" }\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = Baker::new(content.path().join("hearth.toml"), out.path())
        .run()
        .unwrap();
    assert_same(
        &Assets::open(&report.pack_path).unwrap(),
        &Assets::open(out.path()).unwrap(),
    );
}

fn hearth_get(args: &[&str]) -> (bool, Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("get")
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
fn hearth_get_writes_one_entry_from_a_pack_or_a_tree() {
    let out = tempfile::tempdir().unwrap();
    let report = bake_example(out.path());
    let pack = PakReader::open(&report.pack_path).unwrap();
    let expected = pack.get("text/hello.txt").unwrap().unwrap().into_owned();
    let hash = format!("{:#018x}", hash_runtime_path("text/hello.txt"));
    let sources: [PathBuf; 2] = [report.pack_path.clone(), out.path().to_path_buf()];
    for source in &sources {
        let source = source.to_str().unwrap();
        for entry in ["text/hello.txt", hash.as_str()] {
            let (ok, stdout, stderr) = hearth_get(&[source, entry]);
            assert!(ok, "{stderr}");
            assert_eq!(stdout, expected, "{source} {entry}");
        }
        let file = out.path().join("got.bin");
        let (ok, _, stderr) = hearth_get(&[source, "text/hello.txt", "-o", file.to_str().unwrap()]);
        assert!(ok, "{stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), expected);
        std::fs::remove_file(&file).unwrap();
        let (ok, _, stderr) = hearth_get(&[source, "text/missing.txt"]);
        assert!(!ok);
        assert!(stderr.contains("no entry `text/missing.txt`"), "{stderr}");
    }
}

/// `hearth get --level N` writes one mip level, inflated: the same bytes the independent
/// `ktx2` crate finds in the whole file, from a pack and from a tree, for UASTC and raw RGBA8.
#[test]
fn hearth_get_level_writes_one_mip_level_as_the_ktx2_crate_reads_it() {
    let out = tempfile::tempdir().unwrap();
    let report = bake_example(out.path());
    let pack = PakReader::open(&report.pack_path).unwrap();
    let sources: [PathBuf; 2] = [report.pack_path.clone(), out.path().to_path_buf()];
    for texture in ["textures/bricks.ktx2", "ui/heart.ktx2"] {
        let file = pack.get(texture).unwrap().unwrap();
        let reader = ktx2::Reader::new(&file[..]).unwrap();
        let zstd = reader.header().supercompression_scheme.is_some();
        assert!(zstd, "hearth supercompresses every texture it bakes");
        let levels: Vec<Vec<u8>> = reader
            .levels()
            .map(|level| {
                zstd::bulk::decompress(level.data, level.uncompressed_byte_length as usize).unwrap()
            })
            .collect();
        assert!(levels.len() >= 5, "{texture}: {} levels", levels.len());
        for source in &sources {
            let source = source.to_str().unwrap();
            for (n, expected) in levels.iter().enumerate() {
                let (ok, stdout, stderr) =
                    hearth_get(&[source, texture, "--level", &n.to_string()]);
                assert!(ok, "{stderr}");
                assert!(stdout == *expected, "{source} {texture} level {n}");
            }
            let (ok, _, stderr) = hearth_get(&[source, texture, "--level", "99"]);
            assert!(!ok);
            assert!(
                stderr.contains(&format!(
                    "{texture}: no level 99: the texture has {} levels",
                    levels.len()
                )),
                "{stderr}"
            );
        }
    }
    let file = out.path().join("level.bin");
    let (ok, _, stderr) = hearth_get(&[
        out.path().to_str().unwrap(),
        "textures/bricks.ktx2",
        "--level",
        "1",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let level_1 = hearth::TextureStream::open(&pack, "textures/bricks.ktx2")
        .unwrap()
        .unwrap()
        .level(1)
        .unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), *level_1.bytes);
    let (ok, stdout, stderr) = hearth_get(&[
        report.pack_path.to_str().unwrap(),
        "text/hello.txt",
        "--level",
        "0",
    ]);
    assert!(!ok && stdout.is_empty());
    assert!(
        stderr.contains("text/hello.txt: not a KTX2 texture"),
        "{stderr}"
    );
}

/// A tree serves what its `assets.hman` lists and nothing else, and never follows a link out:
/// a stray file and a link to a file outside are absent (the library and `hearth get`), a
/// listed file replaced by a link, or reached through a linked folder, is an error naming it.
#[cfg(unix)]
#[test]
fn a_tree_serves_only_its_listed_files_and_follows_no_link() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "outside the tree").unwrap();
    std::fs::create_dir(outside.path().join("text")).unwrap();
    std::fs::write(outside.path().join("text/hello.txt"), "outside the tree").unwrap();

    let out = tempfile::tempdir().unwrap();
    bake_example(out.path());
    std::fs::write(out.path().join("stray.txt"), "not baked").unwrap();
    symlink(&secret, out.path().join("link.txt")).unwrap();
    let tree = Assets::open(out.path()).unwrap();
    for unlisted in ["stray.txt", "link.txt"] {
        assert!(tree.get(unlisted).unwrap().is_none(), "{unlisted}");
        assert!(tree
            .get_by_hash(hash_runtime_path(unlisted))
            .unwrap()
            .is_none());
        assert!(!tree.entries().unwrap().iter().any(|e| e.path == unlisted));
        let (ok, stdout, stderr) = hearth_get(&[out.path().to_str().unwrap(), unlisted]);
        assert!(!ok && stdout.is_empty(), "{unlisted}: {stderr}");
        assert!(
            stderr.contains(&format!("no entry `{unlisted}`")),
            "{stderr}"
        );
    }

    // A listed file swapped for a link after open, then its folder swapped for a link.
    let hello = out.path().join("text/hello.txt");
    std::fs::remove_file(&hello).unwrap();
    symlink(&secret, &hello).unwrap();
    let err = tree.get("text/hello.txt").unwrap_err().to_string();
    assert!(
        err.contains("text/hello.txt") && err.contains("symbolic link"),
        "{err}"
    );
    let (ok, stdout, stderr) = hearth_get(&[out.path().to_str().unwrap(), "text/hello.txt"]);
    assert!(!ok && stdout.is_empty(), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");

    std::fs::rename(out.path().join("text"), out.path().join("text.moved")).unwrap();
    symlink(outside.path().join("text"), out.path().join("text")).unwrap();
    let err = tree.get("text/hello.txt").unwrap_err().to_string();
    assert!(err.contains("symbolic link"), "{err}");
    let err = Assets::open(out.path()).unwrap_err().to_string();
    assert!(err.contains("symbolic link"), "{err}");
}

#[test]
fn a_damaged_name_table_breaks_only_name_lookups_in_a_tree() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let names = out.path().join("assets.hnames");
    let bytes = std::fs::read(&names).unwrap();
    // Cut short after its header: the rows it declares run past the end.
    std::fs::write(&names, &bytes[..bytes.len().min(12)]).unwrap();

    let path = "data/levels/level2.txt";
    let tree = hearth::TreeReader::open(out.path()).unwrap();
    assert_eq!(&*tree.get(path).unwrap().unwrap(), b"short level");
    let err = hearth::AssetSource::names(&tree).unwrap_err().to_string();
    assert!(err.contains(&names.display().to_string()), "{err}");

    let assets = Assets::open(out.path()).unwrap();
    assert_eq!(&*assets.get(path).unwrap().unwrap(), b"short level");
    let by_hash = assets.get_by_hash(hash_runtime_path(path)).unwrap();
    assert_eq!(&*by_hash.unwrap(), b"short level");
    let err = assets.lookup_name("level2").unwrap_err().to_string();
    assert!(
        err.contains("assets.hnames") && err.contains("level2"),
        "{err}"
    );
}

#[test]
fn a_damaged_manifest_in_a_tree_is_an_error_naming_it() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let hman = out.path().join("assets.hman");
    let bytes = std::fs::read(&hman).unwrap();
    std::fs::write(&hman, &bytes[..bytes.len().min(12)]).unwrap();
    let err = Assets::open(out.path()).unwrap_err().to_string();
    assert!(err.contains(&hman.display().to_string()), "{err}");
}
