//! Asset names (`assets.hnames`): baked from content with a collision, a model and a set
//! name, then read from the pack and the tree, and through `hearth names` / `get --name`.

use crate::common;
use hearth::{AssetKind, Assets, PakReader};
use std::path::Path;

/// A `size`x`size` RGBA PNG of one shade.
fn png(size: u32, shade: u8) -> Vec<u8> {
    let image = image::RgbaImage::from_pixel(size, size, image::Rgba([shade, 40, 90, 255]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).unwrap();
    bytes.into_inner()
}

/// Two `Rock.png` in different folders (a collision), a skinned model with a clip `Survey`,
/// and a logo renamed by `[content.names]`.
fn content(root: &Path, names: &str) -> std::path::PathBuf {
    common::write_files(
        root,
        &[
            ("props/a/Rock.png", &png(4, 10)),
            ("props/b/Rock.png", &png(8, 200)),
            ("ui/logo_v3.png", &png(4, 99)),
            (
                "models/Fox.gltf",
                common::animated_gltf("Survey").as_bytes(),
            ),
        ],
    );
    let manifest = root.join("hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"props/**/*.png\", \
             \"ui/*.png\", \"models/*.gltf\"]\n[content.names]\n{names}\n"
        ),
    )
    .unwrap();
    manifest
}

#[test]
fn names_are_baked_into_tree_and_pack_and_looked_up() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "\"ui/logo_v3.png\" = \"Logo\"");
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    assert!(out.join("assets.hnames").is_file());

    let pack = PakReader::open(out.join("game.hpack")).unwrap();
    let tree = Assets::open(&out).unwrap();
    for assets in [
        Assets::from(PakReader::open(out.join("game.hpack")).unwrap()),
        tree,
    ] {
        // The no-winner rule: neither rock keeps the bare name.
        assert_eq!(assets.lookup_name("Rock").unwrap(), None);
        let a = assets.lookup_name("Rock^a").unwrap().unwrap();
        assert_eq!(
            (&*a.path, a.kind, a.sub),
            ("props/a/Rock.ktx2", AssetKind::TEXTURE, None)
        );
        assert_eq!(a.hash, hearth::hash_runtime_path("props/a/Rock.ktx2"));
        let b = assets.get_by_name("Rock^b").unwrap().unwrap();
        assert_eq!(*b, *assets.get("props/b/Rock.ktx2").unwrap().unwrap());
        // A set name; the model and its clip in its namespace.
        assert_eq!(
            &*assets.lookup_name("Logo").unwrap().unwrap().path,
            "ui/logo_v3.ktx2"
        );
        assert!(assets.lookup_name("logo_v3").unwrap().is_none());
        let fox = assets.lookup_name("Fox").unwrap().unwrap();
        assert_eq!(
            (&*fox.path, fox.kind),
            ("models/Fox.hmesh", AssetKind::MESH)
        );
        let names = assets.names().unwrap();
        let fox_anim = names.lookup_kind("Fox", AssetKind::ANIMATION).unwrap();
        assert_eq!(fox_anim.path, "models/Fox.hanim");
        let clip = assets.lookup_name("Fox#Survey").unwrap().unwrap();
        assert_eq!((&*clip.path, clip.sub), ("models/Fox.hanim", Some(0)));
        assert_eq!(
            names.lookup_all("Fox").count(),
            3,
            "mesh, material table, clips"
        );
    }
    // The manifest rows and the names agree on every hash.
    let manifest_rows = pack.manifest().unwrap();
    for row in pack.names().unwrap().iter() {
        let listed = manifest_rows.iter().find(|m| m.hash == row.hash).unwrap();
        assert_eq!(&*listed.path, row.path);
    }
}

#[test]
fn a_pack_without_names_reads_as_an_empty_table() {
    // A pack baked before names existed (tiny.hpack as it was then).
    let pack = PakReader::open(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny-before-names.hpack"),
    )
    .unwrap();
    assert!(pack.names().unwrap().is_empty());
    assert_eq!(pack.lookup_name("anything").unwrap(), None);
    assert!(pack.get_by_name("anything").unwrap().is_none());
}

#[test]
fn a_damaged_name_table_is_an_error_naming_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "");
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    let names = out.join("assets.hnames");
    let mut bytes = std::fs::read(&names).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&names, &bytes).unwrap();
    // A tree reads its table when a name is first needed: the lookup's error names the file
    // and the name; reads by path do not depend on it.
    let tree = Assets::open(&out).unwrap();
    let error = tree.lookup_name("Rock^a").unwrap_err().to_string();
    assert!(
        error.contains("name table") && error.contains(&names.display().to_string()),
        "{error}"
    );
    assert!(error.contains("`Rock^a`"), "{error}");
    // In a pack, the lookup's error names the name asked for.
    let mut packed = hearth::format::hnames::write(&[]);
    packed[4] = 9; // version 9
    let files = [hearth::bake::pack::PackFile {
        path: "assets.hnames",
        kind: AssetKind::NAMES,
        bytes: &packed,
        codec: hearth::Codec::None,
        level: None,
    }];
    let pack = PakReader::from_bytes(hearth::bake::pack::build(4, &files)).unwrap();
    let error = pack.lookup_name("Rock^a").unwrap_err();
    assert!(
        matches!(error, hearth::ReadError::Named { ref name, .. } if &**name == "Rock^a"),
        "{error:?}"
    );
    assert!(error.to_string().contains("`Rock^a`"), "{error}");
}

#[test]
fn a_collision_no_folder_separates_fails_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "");
    // Two blobs of one stem in one folder: the same (name, kind), no folder to tell them apart.
    common::write_files(
        dir.path(),
        &[("sfx/hit.ogg", b"OggS"), ("sfx/hit.wav", b"RIFF")],
    );
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("\"ui/*.png\"", "\"ui/*.png\", \"sfx/*\"");
    std::fs::write(&manifest, text).unwrap();
    let error = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`sfx/hit.ogg`")
            && error.contains("`sfx/hit.wav`")
            && error.contains("no parent folder tells them apart"),
        "{error}"
    );
    assert!(!dir.path().join("out/assets.hnames").exists());
    // A set name resolves it; a set name that collides is an error naming both.
    let with = |names: &str| {
        let text = std::fs::read_to_string(&manifest).unwrap();
        let head = text.split("[content.names]").next().unwrap().to_owned();
        std::fs::write(&manifest, format!("{head}[content.names]\n{names}\n")).unwrap();
        hearth::bake::Baker::new(&manifest, dir.path().join("out")).run()
    };
    with("\"sfx/hit.wav\" = \"HitWav\"").unwrap();
    // `Fox` is the model's too, but of other kinds: no contest.
    with("\"sfx/hit.wav\" = \"Fox\"").unwrap();
    let error = with("\"sfx/hit.wav\" = \"hit\"").unwrap_err().to_string();
    assert!(
        error.contains("`sfx/hit.ogg`") && error.contains("`sfx/hit.wav`"),
        "{error}"
    );
}

#[test]
fn names_survive_a_cached_rebake_and_follow_a_set_name_edit() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "\"ui/logo_v3.png\" = \"Logo\"");
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    let first = std::fs::read(out.join("assets.hnames")).unwrap();
    // A no-op re-bake writes nothing.
    let report = hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    assert_eq!(report.files_written, 0);
    assert_eq!(std::fs::read(out.join("assets.hnames")).unwrap(), first);
    // Only the set name changes: every asset is cached, the table and the pack follow.
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("\"Logo\"", "\"Brand\"");
    std::fs::write(&manifest, text).unwrap();
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    let pack = PakReader::open(out.join("game.hpack")).unwrap();
    assert!(pack.lookup_name("Brand").unwrap().is_some());
    assert!(pack.lookup_name("Logo").unwrap().is_none());
    assert!(Assets::open(&out)
        .unwrap()
        .lookup_name("Brand")
        .unwrap()
        .is_some());
}

#[cfg(feature = "cli")]
#[test]
fn cli_names_json_and_get_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "");
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    for target in [out.clone(), out.join("game.hpack")] {
        let (ok, json) = common::hearth_on(&["names", "--json"], &target);
        assert!(ok, "{json}");
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        let rock = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "Rock^b")
            .unwrap();
        assert_eq!(rock["kind"], "texture");
        assert_eq!(rock["path"], "props/b/Rock.ktx2");
        let hash = hearth::hash_runtime_path("props/b/Rock.ktx2");
        assert_eq!(rock["hash"], format!("{hash:016x}"));
        assert!(rock["sub"].is_null());
        let clip = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "Fox#Survey")
            .unwrap();
        assert_eq!(clip["sub"], 0);

        let file = dir.path().join("rock.ktx2");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(["get"])
            .arg(&target)
            .args(["--name", "Rock^b", "-o"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        assert_eq!(
            std::fs::read(&file).unwrap(),
            std::fs::read(out.join("props/b/Rock.ktx2")).unwrap()
        );
        let (ok, text) = common::hearth_on(&["get", "--name", "Rock"], &target);
        assert!(!ok && text.contains("no asset named `Rock`"), "{text}");
    }
    let (ok, text) = common::hearth_on(&["check"], &out);
    assert!(ok, "{text}");
}

/// Runs the `hearth` binary with `args`: whether it succeeded, stdout, stderr.
#[cfg(feature = "cli")]
fn run_hearth(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .output()
        .expect("the hearth binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        output.status.success(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// `hearth names` shows a name's control characters as markers (a tab in a file stem, an
/// escape sequence), so no row is forged and no column shifts; `[content.names]` refuses
/// them (issue 36, defect 11).
#[cfg(all(feature = "cli", unix))]
#[test]
fn names_lines_escape_control_characters_and_set_names_refuse_them() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "");
    std::fs::write(dir.path().join("ui/tab\there\u{1b}[2J.png"), png(4, 7)).unwrap();
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    let (ok, text, err) = run_hearth(&["names".as_ref(), out.as_os_str()]);
    assert!(ok, "{err}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    // name, kind, path, hash (16 hex digits) and a sub-asset's `#index`.
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        assert!(matches!(fields.len(), 4 | 5), "{line:?}");
        assert_eq!(fields[3].len(), 16, "{line:?}");
    }
    assert!(
        text.contains("tab[U+0009]here[U+001B][2J\ttexture\t"),
        "{text}"
    );

    for bad in [
        "\"Logo\\nforged\\ttexture\"",
        "\"Logo\\t2\"",
        "\"\\u001b[31mLogo\"",
    ] {
        let manifest = content(dir.path(), &format!("\"ui/logo_v3.png\" = {bad}"));
        let error = hearth::bake::Baker::new(&manifest, &out).run().unwrap_err();
        assert!(
            error.to_string().contains("no control character"),
            "{bad}: {error}"
        );
    }
}

/// `hearth get PACK ENTRY -o PACK` is refused and leaves the pack whole (it truncated it to
/// 0 bytes); an output over an existing file replaces it (issue 36, defect 9).
#[cfg(feature = "cli")]
#[test]
fn get_refuses_to_write_over_its_input_and_replaces_other_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = content(dir.path(), "");
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    let pack = out.join("game.hpack");
    let before = std::fs::read(&pack).unwrap();
    for source in [pack.as_os_str(), out.as_os_str()] {
        let (ok, _, err) = run_hearth(&[
            "get".as_ref(),
            source,
            "props/b/Rock.ktx2".as_ref(),
            "-o".as_ref(),
            pack.as_os_str(),
        ]);
        assert!(!ok && err.contains("is an input"), "{err}");
        assert_eq!(std::fs::read(&pack).unwrap(), before);
    }
    let file = dir.path().join("rock.ktx2");
    std::fs::write(
        &file,
        b"an older, longer file than the entry itself, to be replaced whole",
    )
    .unwrap();
    let (ok, _, err) = run_hearth(&[
        "get".as_ref(),
        pack.as_os_str(),
        "ui/logo_v3.ktx2".as_ref(),
        "-o".as_ref(),
        file.as_os_str(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(out.join("ui/logo_v3.ktx2")).unwrap()
    );
}

/// Only `0x` and exactly 16 hex digits are a hash: a file named `0xbeef` is found by its
/// path (issue 36, defect 12).
#[cfg(feature = "cli")]
#[test]
fn get_takes_a_short_0x_name_as_a_path() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(dir.path(), &[("0xbeef", b"cafe")]);
    std::fs::write(
        dir.path().join("hearth.toml"),
        "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"0x*\"]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    hearth::bake::Baker::new(dir.path().join("hearth.toml"), &out)
        .run()
        .unwrap();
    for source in [out.join("game.hpack"), out.clone()] {
        let (ok, text, err) = run_hearth(&["get".as_ref(), source.as_os_str(), "0xbeef".as_ref()]);
        assert!(ok && text == "cafe", "{text} {err}");
        let hash = format!("0x{:016x}", hearth::hash_runtime_path("0xbeef"));
        let (ok, text, err) = run_hearth(&["get".as_ref(), source.as_os_str(), hash.as_ref()]);
        assert!(ok && text == "cafe", "{text} {err}");
    }
}
