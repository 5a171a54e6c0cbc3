//! The `hearth` binary: exit codes and what it prints.
#![cfg(feature = "cli")]

use crate::common;

use hearth::{AssetKind, PakReader};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

mod special_files;

fn hearth(args: &[&str], dir: &std::path::Path) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

#[test]
fn bake_info_check_and_pack_info() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "[presets.small]\ncompression = \"brotli\"\n");
    let (code, out, err) = hearth(
        &["bake", "hearth.toml", "-o", "out", "-j", "2", "--verify"],
        dir.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("baked 5 assets of hearth.toml")
            && out.contains("(0 from the cache, 5 baked)"),
        "{out}"
    );
    assert!(out.contains("verify: 7 files"), "{out}");
    // The summary says what was made by kind, where, the pack's codecs, the warnings, and
    // where to look next.
    assert!(
        out.contains("  made:     ") && out.contains(" blob ("),
        "{out}"
    );
    assert!(
        out.contains("  pack:     ") && out.contains("codec "),
        "{out}"
    );
    assert!(out.contains("  warnings: "), "{out}");
    assert!(
        out.contains("hearth info ")
            && out.contains("hearth report ")
            && out.contains("hearth pack info "),
        "{out}"
    );
    let (code, out, _) = hearth(&["bake", "-o", "out"], dir.path());
    assert_eq!(code, 0);
    assert!(
        out.contains("(5 from the cache, 0 baked)") && out.contains("files:    0 written"),
        "{out}"
    );

    let (code, out, _) = hearth(&["info", "out"], dir.path());
    assert_eq!(code, 0);
    assert!(
        out.contains("sounds/hit.ogg") && out.contains("total"),
        "{out}"
    );
    let (code, out, _) = hearth(&["check", "out"], dir.path());
    assert_eq!(code, 0, "{out}");
    // A pack file is read as the tree it packs, as `get` and `names` read it.
    let (code, out, err) = hearth(&["info", "out/game.hpack"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("sounds/hit.ogg") && out.contains("total"),
        "{out}"
    );
    let (code, out, err) = hearth(&["check", "out/game.hpack"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok:"), "{out}");
    let (code, out, _) = hearth(&["pack", "info", "out/game.hpack"], dir.path());
    assert_eq!(code, 0);
    assert!(
        out.contains("hpack v4, 7 entries")
            && out.contains("padding")
            && out.contains("zstd")
            && out.contains("font"),
        "{out}"
    );
    let (code, out, _) = hearth(&["presets"], dir.path());
    assert_eq!(code, 0);
    assert!(out.contains("small"), "{out}");
    // Scripts read `presets` and `check` as JSON.
    let (code, json, err) = hearth_json(&["presets", "--json"], dir.path());
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = json["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"small"), "{json}");
    let (code, json, err) = hearth_json(&["report", "out", "-o", "r.html", "--json"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["report"], "r.html");
    assert!(
        json["bytes"].as_u64().unwrap() > 1000 && json["timeline"] == false,
        "{json}"
    );
    let (code, json, err) = hearth_json(&["check", "--json", "out"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["ok"], true);
    assert!(json["files"].as_u64().unwrap() > 0 && json["problems"].as_array().unwrap().is_empty());

    // A damaged tree fails the check.
    std::fs::write(dir.path().join("out/sounds/hit.ogg"), b"changed").unwrap();
    let (code, json, _) = hearth_json(&["check", "--json", "out"], dir.path());
    assert_eq!(code, 1);
    assert_eq!(json["ok"], false);
    assert!(
        json["problems"].to_string().contains("sounds/hit.ogg"),
        "{json}"
    );
    let (code, _, err) = hearth(&["check", "out"], dir.path());
    assert_eq!(code, 1);
    assert!(
        err.contains("sounds/hit.ogg") && err.contains("differs"),
        "{err}"
    );
}

#[test]
fn bake_pack_only_verifies_and_checks_through_the_pack() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    let (code, out, err) = hearth(
        &[
            "bake",
            "hearth.toml",
            "-o",
            "out",
            "--pack-only",
            "--verify",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("pack only, no runtime tree"), "{out}");
    assert!(out.contains("verify: 7 files"), "{out}");
    let files: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    assert_eq!(files, ["game.hpack"]);
    let (code, out, err) = hearth(&["check", "out"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    // The inspecting commands read the folder through its pack.
    let (code, out, err) = hearth(&["info", "out"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("sounds/hit.ogg") && out.contains("shaders/mesh.spv"),
        "{out}"
    );
    let (code, info, err) = hearth_json(&["info", "--json", "out"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(info["totals"]["files"], 7, "{info}");
    let (code, out, err) = hearth(&["names", "out"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("data/levels/level1.txt"), "{out}");
    let (code, out, err) = hearth(&["report", "out", "-o", "report.html"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        html.contains("sounds/hit.ogg") && html.contains("game.hpack"),
        "the report lists the pack's files and the pack"
    );
    // A pack-only folder holding a pack of another bake's (its manifest names a file the pack
    // lacks) fails the check, naming it.
    let pack = dir.path().join("out/game.hpack");
    let pak = PakReader::open(&pack).unwrap();
    let entries: Vec<(String, AssetKind, Vec<u8>)> = pak
        .entries()
        .map(|e| e.unwrap())
        .filter(|e| e.path() != "sounds/hit.ogg")
        .map(|e| {
            (
                e.path().into_owned(),
                e.kind(),
                e.bytes().unwrap().into_owned(),
            )
        })
        .collect();
    drop(pak);
    let files: Vec<hearth::bake::pack::PackFile<'_>> = entries
        .iter()
        .map(|(path, kind, bytes)| hearth::bake::pack::PackFile {
            path,
            kind: *kind,
            bytes,
            codec: hearth::Codec::None,
            level: None,
        })
        .collect();
    std::fs::write(&pack, hearth::bake::pack::build(4, &files)).unwrap();
    let (code, _, err) = hearth(&["check", "out"], dir.path());
    assert_eq!(code, 1);
    assert!(
        err.contains("sounds/hit.ogg") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn exit_codes_for_failures_and_usage() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = hearth(&["bake", "missing.toml"], dir.path());
    assert_eq!(code, 1);
    assert!(err.contains("missing.toml"), "{err}");
    let (code, _, _) = hearth(&["bake", "--no-such-flag"], dir.path());
    assert_eq!(code, 2);
    common::sample_content(dir.path(), "");
    let (code, _, err) = hearth(&["bake", "--preset", "nope"], dir.path());
    assert_eq!(code, 1);
    assert!(err.contains("unknown preset `nope`"), "{err}");
}

#[test]
fn thread_counts_and_settings_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    for jobs in ["100000", "0", "257", "many"] {
        let (code, _, err) = hearth(&["bake", "-j", jobs, "-o", "out"], dir.path());
        assert_eq!(code, 2, "-j {jobs}: {err}");
        assert!(err.contains("1 to 256"), "-j {jobs}: {err}");
    }
    let (code, _, err) = hearth(&["bake", "-j", "256", "-o", "out", "-q"], dir.path());
    assert_eq!(code, 0, "{err}");
    let manifest = std::fs::read_to_string(dir.path().join("hearth.toml")).unwrap();
    std::fs::write(
        dir.path().join("hearth.toml"),
        format!("{manifest}\n[presets.nan]\ntexture = {{ rdo = nan }}\n"),
    )
    .unwrap();
    let (code, _, err) = hearth(&["bake", "-o", "out", "--preset", "nan"], dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("hearth.toml") && err.contains("`presets.nan.texture.rdo` = NaN"),
        "{err}"
    );
}

#[test]
fn init_writes_a_starter_that_bakes_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, _) = hearth(&["init"], dir.path());
    assert_eq!(code, 0);
    let (code, _, err) = hearth(&["init"], dir.path());
    assert_eq!(code, 1);
    assert!(err.contains("never overwrites"), "{err}");
    common::write_files(
        dir.path(),
        &[("ui/button.txt", b"ok"), ("levels/one.txt", b"level")],
    );
    let (code, out, err) = hearth(&["bake", "-o", "runtime"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("baked 2 assets") && out.contains("preset `release`"),
        "{out}"
    );
    assert!(err.is_empty(), "the starter manifest warns: {err}");
}

/// Runs `hearth ARGS` and parses its whole stdout as one JSON document.
fn hearth_json(args: &[&str], dir: &Path) -> (i32, Value, String) {
    let (code, out, err) = hearth(args, dir);
    let value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("stdout of {args:?} is not one JSON document ({e}):\n{out}"));
    (code, value, err)
}

/// A small bake with one texture (raw RGBA8, 16x8, mips), one OBJ mesh and a text file.
fn bake_texture_and_mesh(dir: &Path) {
    let mut png = Vec::new();
    image::RgbaImage::from_fn(16, 8, |x, y| {
        image::Rgba([(x * 16) as u8, (y * 32) as u8, 7, 255])
    })
    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
    .unwrap();
    let obj = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n";
    common::write_files(
        dir,
        &[
            ("tex/wall.png", &png),
            ("models/quad.obj", obj),
            ("notes/readme.txt", b"hello"),
        ],
    );
    std::fs::write(
        dir.join("hearth.toml"),
        "[[content.group]]\nassets = [\"**/*.png\", \"**/*.obj\", \"**/*.txt\"]\n\
         [default]\ntexture = { compress = false }\n",
    )
    .unwrap();
    let (code, out, err) = hearth(&["bake", "-o", "out", "-q"], dir);
    assert_eq!(code, 0, "{out}{err}");
}

/// Runs one command line through `sh` in `dir`, with `hearth`'s folder first on PATH.
fn shell(line: &str, dir: &Path) -> (bool, String) {
    let exe = Path::new(env!("CARGO_BIN_EXE_hearth"));
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let path = std::iter::once(exe.parent().unwrap().to_path_buf())
        .chain(std::env::split_paths(&inherited));
    let output = Command::new("sh")
        .args(["-c", line])
        .env("PATH", std::env::join_paths(path).unwrap())
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// The command lines a bake summary's `next:` block prints.
fn next_lines(summary: &str) -> Vec<String> {
    let (_, next) = summary
        .split_once("next:\n")
        .unwrap_or_else(|| panic!("no `next:` lines: {summary}"));
    next.lines()
        .take_while(|line| line.starts_with("  "))
        .map(|line| line.trim().to_owned())
        .collect()
}

/// The bake summary's `next:` lines run as printed from where the bake ran (issue 42, item
/// 2): `cargo run` puts no `hearth` on PATH, so a binary run by its path says that path, and
/// one the shell found on PATH says `hearth`; an output folder with a space is quoted.
#[test]
fn the_bake_summarys_next_lines_run_as_printed() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    let exe = env!("CARGO_BIN_EXE_hearth");
    for (program, shown) in [(exe, exe), ("hearth", "hearth")] {
        let (ok, summary) = shell(&format!("{program} bake -o 'my out'"), dir.path());
        assert!(ok, "{summary}");
        let lines = next_lines(&summary);
        assert_eq!(lines.len(), 3, "{summary}");
        for line in lines {
            assert!(
                line.starts_with(&format!("{shown} ")) && line.contains(" 'my out"),
                "{line}"
            );
            let (ok, text) = shell(&line, dir.path());
            assert!(ok, "`{line}` failed:\n{text}");
        }
        assert!(dir.path().join("report.html").is_file());
        std::fs::remove_file(dir.path().join("report.html")).unwrap();
    }
}

/// The README's `cargo run --features cli -- …` commands, run in order (with this test's
/// binary for `cargo run --features cli --`) in a copy of the example content, succeed, and
/// so do the `next:` lines their bake prints (issue 42, item 2).
#[test]
fn the_readmes_cli_commands_and_their_next_lines_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let prefix = "cargo run --features cli -- ";
    // Code: the lines of fenced blocks and the spans between backticks.
    let mut code: Vec<&str> = Vec::new();
    let mut fenced = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            code.push(line);
        } else {
            code.extend(line.split('`').skip(1).step_by(2));
        }
    }
    let commands: Vec<&str> = code
        .iter()
        .filter_map(|code| code.strip_prefix(prefix))
        .map(|command| command.split(" #").next().unwrap().trim())
        .collect();
    assert!(
        commands.len() >= 2 && commands[0].starts_with("bake "),
        "the README's first command bakes, and another one looks: {commands:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(
        &root.join("examples/content"),
        &dir.path().join("examples/content"),
    );
    let exe = env!("CARGO_BIN_EXE_hearth");
    for command in commands {
        let (ok, text) = shell(&format!("{exe} {command}"), dir.path());
        assert!(ok, "`{prefix}{command}` failed:\n{text}");
        if command.starts_with("bake ") {
            for line in next_lines(&text) {
                let (ok, text) = shell(&line, dir.path());
                assert!(ok, "`{line}` failed:\n{text}");
            }
        }
    }
}

/// `hearth get --json` prints the entry's metadata as one object, not its bytes (issue 42,
/// item 10): from the tree and the pack, by path, hash and name; a pack entry has its codec,
/// an entry read through a patch its layer.
#[test]
fn get_json_prints_the_entry_metadata() {
    let dir = tempfile::tempdir().unwrap();
    bake_texture_and_mesh(dir.path());
    let hash = format!("0x{:016x}", hearth::hash_runtime_path("tex/wall.ktx2"));
    let size = std::fs::metadata(dir.path().join("out/tex/wall.ktx2"))
        .unwrap()
        .len();
    let pack = "out/assets.hpack";
    for source in ["out", pack] {
        for entry in [&["tex/wall.ktx2"][..], &[&hash], &["--name", "wall"]] {
            let args = [&["get", source], entry, &["--json"]].concat();
            let (code, json, err) = hearth_json(&args, dir.path());
            assert_eq!(code, 0, "{args:?}: {err}");
            assert_eq!(json["source"], source);
            assert_eq!(json["path"], "tex/wall.ktx2");
            assert_eq!(json["hash"].as_str(), Some(&hash[2..]));
            assert_eq!(json["kind"], "texture");
            assert_eq!(json["size"].as_u64(), Some(size));
            assert_eq!(
                (json["width"].as_u64(), json["height"].as_u64()),
                (Some(16), Some(8)),
                "{json}"
            );
            assert_eq!(json["names"][0]["name"], "wall", "{json}");
            let in_pack = source.ends_with(".hpack");
            assert_eq!(json["codec"].is_string(), in_pack, "{json}");
            assert_eq!(json["stored_size"].is_u64(), in_pack, "{json}");
        }
    }
    let (code, json, err) = hearth_json(&["get", "out", "models/quad.hmesh", "--json"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["kind"], "mesh");
    assert_eq!(json["indices"].as_u64(), Some(6), "{json}");
    // Through a patch: the entry and the file it came from.
    let (code, out, err) = hearth(&["get", "out", "nope.txt", "--json"], dir.path());
    assert!(
        code == 1 && out.is_empty() && err.contains("no entry `nope.txt`"),
        "{err}"
    );
    std::fs::copy(dir.path().join(pack), dir.path().join("old.hpack")).unwrap();
    std::fs::write(dir.path().join("notes/readme.txt"), b"hello, patched").unwrap();
    let (code, out, err) = hearth(&["bake", "-o", "out", "-q"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = hearth(
        &["diff", "old.hpack", pack, "-o", "patch.hpack"],
        dir.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    let args = [
        "get",
        "old.hpack",
        "notes/readme.txt",
        "--over",
        "patch.hpack",
        "--json",
    ];
    let (code, json, err) = hearth_json(&args, dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["size"].as_u64(), Some(14), "{json}");
    assert_eq!(json["layer"], "patch.hpack", "{json}");
    // Bytes and metadata are one or the other.
    let (code, _, err) = hearth(
        &["get", "out", "tex/wall.ktx2", "--json", "-o", "x"],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
}

#[test]
fn pack_info_json_lists_every_entry_with_numeric_kinds() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    let (code, out, err) = hearth(&["bake", "-o", "out", "-q"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    let (code, json, err) = hearth_json(&["pack", "info", "--json", "out/game.hpack"], dir.path());
    assert_eq!(code, 0, "{err}");
    let pak = PakReader::open(dir.path().join("out/game.hpack")).unwrap();
    assert_eq!(json["version"], 4);
    assert_eq!(json["size"].as_u64(), Some(pak.bytes().len() as u64));
    let entries = json["entries"].as_array().unwrap();
    assert_eq!(entries.len(), pak.len());
    assert_eq!(json["entry_count"].as_u64(), Some(pak.len() as u64));
    for (row, entry) in entries.iter().zip(pak.entries()) {
        let entry = entry.unwrap();
        assert_eq!(row["path"], *entry.path());
        assert!(row["kind"].is_u64(), "{row}");
        assert_eq!(row["kind"].as_u64(), Some(entry.kind().0.into()));
        assert_eq!(row["kind_name"].as_str(), entry.kind().name());
        assert_eq!(row["size"].as_u64(), Some(entry.size()));
        assert_eq!(row["stored_size"].as_u64(), Some(entry.stored_size()));
        assert_eq!(row["offset"].as_u64(), Some(entry.offset()));
        assert_eq!(row["codec"], entry.codec().name());
    }
    let font = entries
        .iter()
        .find(|e| e["path"] == "fonts/ui.ttf")
        .unwrap();
    assert_eq!(
        (font["kind"].as_u64(), font["kind_name"].as_str()),
        (Some(7), Some("font"))
    );
    // The layout adds up to the file, as the text output's breakdown does.
    let layout = &json["layout"];
    let parts: u64 = ["header", "tables", "strings", "payload", "padding"]
        .iter()
        .map(|k| layout[k].as_u64().unwrap())
        .sum();
    assert_eq!(parts, pak.bytes().len() as u64);
    let per_kind: u64 = json["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["entries"].as_u64().unwrap())
        .sum();
    assert_eq!(per_kind, pak.len() as u64);
}

#[test]
fn pack_info_shows_game_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let level = "level ".repeat(30);
    let files: Vec<hearth::bake::pack::PackFile<'_>> = [
        ("a.txt", AssetKind::BLOB, &b"text"[..]),
        (
            "game/level.lvl",
            AssetKind::game(130).unwrap(),
            level.as_bytes(),
        ),
        ("game/save.sav", AssetKind::game(255).unwrap(), &b"save"[..]),
    ]
    .into_iter()
    .map(|(path, kind, bytes)| hearth::bake::pack::PackFile {
        path,
        kind,
        bytes,
        codec: hearth::Codec::Zstd,
        level: None,
    })
    .collect();
    std::fs::write(
        dir.path().join("game.hpack"),
        hearth::bake::pack::build(4, &files),
    )
    .unwrap();
    let (code, out, err) = hearth(&["pack", "info", "game.hpack"], dir.path());
    assert_eq!(code, 0, "{err}");
    for line in ["game/level.lvl", "game/save.sav"] {
        let line = out.lines().find(|l| l.ends_with(line)).unwrap();
        assert!(
            line.trim_start().starts_with("game(1") || line.trim_start().starts_with("game(2"),
            "{line}"
        );
    }
    assert!(
        out.contains("game(130)") && out.contains("game(255)"),
        "{out}"
    );
    let (code, json, _) = hearth_json(&["pack", "info", "--json", "game.hpack"], dir.path());
    assert_eq!(code, 0);
    let kinds: Vec<(Value, Value)> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["kind"].clone(), e["kind_name"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Value::from(5), Value::from("blob")),
            (Value::from(130), Value::Null),
            (Value::from(255), Value::Null),
        ]
    );
}

#[test]
fn info_json_reports_each_files_real_counts() {
    let dir = tempfile::tempdir().unwrap();
    bake_texture_and_mesh(dir.path());
    let out = dir.path().join("out");
    let (code, json, err) = hearth_json(&["info", "--json", "out"], dir.path());
    assert_eq!(code, 0, "{err}");
    let files = json["files"].as_array().unwrap();
    let file = |path: &str| {
        files
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("{path} not listed: {json}"))
    };
    let names: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "assets.hman",
            "assets.hnames",
            "models/quad.hmat",
            "models/quad.hmesh",
            "notes/readme.txt",
            "tex/wall.ktx2"
        ]
    );

    let texture = file("tex/wall.ktx2");
    let ktx_bytes = std::fs::read(out.join("tex/wall.ktx2")).unwrap();
    let ktx = hearth::Ktx2::parse(&ktx_bytes).unwrap();
    assert_eq!(texture["kind"], "texture");
    assert_eq!(
        (texture["width"].as_u64(), texture["height"].as_u64()),
        (Some(16), Some(8))
    );
    assert_eq!(texture["levels"].as_u64(), Some(5));
    assert_eq!(texture["levels"].as_u64(), Some(ktx.level_count().into()));
    assert_eq!(texture["vk_format"].as_u64(), Some(ktx.vk_format().into()));
    assert_eq!(texture["size"].as_u64(), Some(ktx_bytes.len() as u64));

    let mesh = file("models/quad.hmesh");
    let mesh_bytes = std::fs::read(out.join("models/quad.hmesh")).unwrap();
    let view = hearth::MeshView::parse(&mesh_bytes).unwrap();
    assert_eq!(mesh["kind"], "mesh");
    let vertices = mesh["vertices"].as_u64().unwrap();
    assert!(vertices > 0);
    assert_eq!(vertices, u64::from(view.desc.vertex_count));
    assert_eq!(mesh["indices"].as_u64(), Some(6));
    assert_eq!(
        mesh["submeshes"].as_u64(),
        Some(view.submeshes.len() as u64)
    );
    assert_eq!(mesh["meshlets"].as_u64(), Some(view.meshlets.len() as u64));
    assert_eq!(mesh["joints"].as_u64(), Some(0));

    let hmat = std::fs::read(out.join("models/quad.hmat")).unwrap();
    let table = hearth::MaterialTable::parse(&hmat).unwrap();
    let material = file("models/quad.hmat");
    assert_eq!(material["kind"], "material");
    assert_eq!(
        material["materials"].as_u64(),
        Some(table.rows.len() as u64)
    );
    assert_eq!(file("assets.hman")["kind"], "manifest");
    assert_eq!(file("assets.hman")["entries"].as_u64(), Some(4));
    assert_eq!(file("notes/readme.txt")["kind"], "blob");
    assert_eq!(file("notes/readme.txt")["size"].as_u64(), Some(5));
    assert_eq!(json["totals"]["files"].as_u64(), Some(6));
    assert_eq!(file("assets.hnames")["kind"], "names");
    assert_eq!(json["totals"]["invalid"].as_u64(), Some(0));
    assert_eq!(json["kinds"]["texture"]["files"].as_u64(), Some(1));

    // One file: the object itself.
    let (code, one, _) = hearth_json(&["info", "--json", "out/tex/wall.ktx2"], dir.path());
    assert_eq!(code, 0);
    assert_eq!(
        (one["kind"].as_str(), one["width"].as_u64()),
        (Some("texture"), Some(16))
    );
    // The text output takes one file too.
    let (code, text, _) = hearth(&["info", "out/models/quad.hmesh"], dir.path());
    assert_eq!(code, 0);
    assert!(
        text.contains("models/quad.hmesh") && text.contains(&format!("{vertices} verts")),
        "{text}"
    );
}

#[test]
fn info_json_marks_invalid_files_and_still_prints_everything() {
    let dir = tempfile::tempdir().unwrap();
    bake_texture_and_mesh(dir.path());
    std::fs::write(dir.path().join("out/models/quad.hmesh"), b"not a mesh").unwrap();
    let (code, json, err) = hearth_json(&["info", "--json", "out"], dir.path());
    assert_eq!(code, 1, "an invalid file fails the command");
    assert!(err.contains("1 invalid"), "{err}");
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 6);
    let broken = files
        .iter()
        .find(|f| f["path"] == "models/quad.hmesh")
        .unwrap();
    assert!(
        broken["error"].as_str().unwrap().contains("hmesh"),
        "{broken}"
    );
    assert!(broken.get("vertices").is_none());
    assert_eq!(json["totals"]["invalid"].as_u64(), Some(1));
    let texture = files.iter().find(|f| f["path"] == "tex/wall.ktx2").unwrap();
    assert_eq!(texture["width"].as_u64(), Some(16));
    let (code, one, _) = hearth_json(&["info", "--json", "out/models/quad.hmesh"], dir.path());
    assert_eq!(code, 1);
    assert!(one["error"].is_string(), "{one}");
}

#[test]
fn info_takes_kinds_from_the_manifest_rows() {
    // A hand-made output folder whose assets.hman names a game kind and a shader.
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        ("data/level.lvl", AssetKind::game(140).unwrap()),
        ("shaders/a.wgsl", AssetKind::SHADER),
        ("tex/not-a-texture.ktx2", AssetKind::BLOB),
    ];
    let mut entries: Vec<hearth::format::hman::ManifestEntry<'_>> = rows
        .iter()
        .map(|(path, kind)| hearth::format::hman::ManifestEntry {
            hash: hearth::hash_runtime_path(path),
            kind: *kind,
            color_space: hearth::ColorSpace::Linear,
            path,
        })
        .collect();
    entries.sort_by_key(|e| e.hash);
    common::write_files(
        dir.path(),
        &[
            ("assets.hman", &hearth::format::hman::write(&entries)),
            ("data/level.lvl", b"level"),
            ("shaders/a.wgsl", b"fn main() {}"),
            ("tex/not-a-texture.ktx2", b"blob bytes"),
            ("unlisted.glsl", b"void main() {}"),
        ],
    );
    let (code, json, err) = hearth_json(&["info", "--json", "."], dir.path());
    assert_eq!(code, 0, "{err}");
    let kinds: Vec<(&str, &str)> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("assets.hman", "manifest"),
            ("data/level.lvl", "game(140)"),
            ("shaders/a.wgsl", "shader"),
            ("tex/not-a-texture.ktx2", "blob"),
            ("unlisted.glsl", "shader"),
        ]
    );
    // One file finds the manifest of the folder above it.
    let (code, one, _) = hearth_json(&["info", "--json", "data/level.lvl"], dir.path());
    assert_eq!(code, 0);
    assert_eq!(one["kind"], "game(140)");
    let (_, text, _) = hearth(&["info", "."], dir.path());
    assert!(text.contains("game(140)"), "{text}");
}

#[test]
fn check_catches_a_v4_pack_whose_kinds_disagree_with_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    let (code, out, err) = hearth(&["bake", "-o", "out", "-q"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    let pack_path = dir.path().join("out/game.hpack");
    let pak = PakReader::from_bytes(std::fs::read(&pack_path).unwrap()).unwrap();
    // The same pack, valid and checksummed, but the font's entry says blob.
    let entries: Vec<hearth::Entry<'_>> = pak.entries().map(Result::unwrap).collect();
    let paths: Vec<String> = entries.iter().map(|e| e.path().into_owned()).collect();
    let inputs: Vec<hearth::format::hpack::PackInput<'_>> = entries
        .iter()
        .zip(&paths)
        .map(|(entry, path)| hearth::format::hpack::PackInput {
            path,
            kind: if path == "fonts/ui.ttf" {
                AssetKind::BLOB
            } else {
                entry.kind()
            },
            codec: entry.codec(),
            stored: entry.stored_bytes(),
            size: entry.size(),
        })
        .collect();
    let relabeled = hearth::format::hpack::write_v4(&inputs);
    std::fs::write(&pack_path, relabeled).unwrap();
    PakReader::open_verified(&pack_path).expect("still a valid pack");
    let (code, _, err) = hearth(&["check", "out"], dir.path());
    assert_eq!(code, 1);
    assert!(
        err.contains("`fonts/ui.ttf` has kind blob, but assets.hman says font"),
        "{err}"
    );
}

/// `hearth keygen KEY` with a dangling `KEY.pub` link: both names are checked first, so
/// nothing is written (it used to write the secret key, then fail on the public one), and
/// nothing is created where the link points.
#[cfg(unix)]
#[test]
fn keygen_with_a_dangling_pub_link_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.pub");
    std::os::unix::fs::symlink(&target, dir.path().join("release.key.pub")).unwrap();
    let (code, _, stderr) = hearth(&["keygen", "--out", "release.key"], dir.path());
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("release.key.pub") && stderr.contains("already exists"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("release.key").exists(),
        "secret key written"
    );
    assert!(!target.exists(), "written through the link");
    // The same for a dangling secret-key link.
    std::fs::remove_file(dir.path().join("release.key.pub")).unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("release.key")).unwrap();
    let (code, _, stderr) = hearth(&["keygen", "--out", "release.key"], dir.path());
    assert_eq!(code, 1, "{stderr}");
    assert!(!dir.path().join("release.key.pub").exists());
    assert!(!target.exists(), "written through the link");
}

/// `hearth bake --timings`: a texture large enough to be cut into row slices bakes to the
/// same bytes at every `-j`, with timings or without; the JSON lists each slice as a task of
/// the texture's asset with the documented fields; `hearth report --timings` draws them.
#[test]
fn bake_timings_list_a_large_textures_slices_and_outputs_match_at_any_j() {
    let dir = tempfile::tempdir().unwrap();
    let mut png = Vec::new();
    // 1024x768: over the 256K-pixel task size, so level 0 is cut into 3 slices of 256 rows.
    image::RgbaImage::from_fn(1024, 768, |x, y| {
        image::Rgba([(x * 7 + y) as u8, (x ^ y) as u8, (y * 3) as u8, 255])
    })
    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
    .unwrap();
    let obj = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n";
    common::write_files(
        dir.path(),
        &[("tex/big.png", &png), ("models/tri.obj", obj)],
    );
    std::fs::write(
        dir.path().join("hearth.toml"),
        "[[content.group]]\nassets = [\"**/*.png\", \"**/*.obj\"]\n",
    )
    .unwrap();
    let mut trees = Vec::new();
    for (jobs, timings) in [("1", true), ("3", true), ("2", false)] {
        let out = format!("out{jobs}");
        let file = format!("timings{jobs}.json");
        let mut args = vec!["bake", "-q", "--no-cache", "-j", jobs, "-o", &out];
        if timings {
            args.extend(["--timings", &file]);
        }
        let (code, stdout, err) = hearth(&args, dir.path());
        assert_eq!(code, 0, "{stdout}{err}");
        let mut tree = common::contents(&dir.path().join(&out));
        tree.remove(Path::new(".hearth-cache"));
        trees.push(tree);
    }
    assert!(trees[0].len() > 3);
    assert_eq!(trees[0], trees[1], "-j 1 and -j 3 differ");
    assert_eq!(trees[0], trees[2], "with timings and without differ");

    for (jobs, threads) in [("1", 1), ("3", 3)] {
        let text = std::fs::read_to_string(dir.path().join(format!("timings{jobs}.json"))).unwrap();
        let timings: Value = serde_json::from_str(&text).unwrap();
        let wall = timings["wall_seconds"].as_f64().unwrap();
        let cpu = timings["cpu_seconds"].as_f64().unwrap();
        assert!(wall > 0.0 && cpu > 0.0, "{text}");
        let tasks = timings["tasks"].as_array().unwrap();
        for task in tasks {
            assert!(task["seconds"].as_f64().unwrap() >= 0.0, "{task}");
            assert!(task["start"].as_f64().unwrap() >= 0.0, "{task}");
            assert!(task["thread"].as_u64().unwrap() < threads, "{task}");
            let (name, asset) = (
                task["name"].as_str().unwrap(),
                task["asset"].as_str().unwrap(),
            );
            assert!(name.starts_with(asset), "{task}");
        }
        let names: Vec<&str> = tasks.iter().map(|t| t["name"].as_str().unwrap()).collect();
        for slice in ["rows 0-255", "rows 256-511", "rows 512-767"] {
            let name = format!("tex/big.png#level0/{slice}");
            assert!(names.contains(&name.as_str()), "{name} not in {names:?}");
        }
        assert!(names.contains(&"tex/big.png#levels 1-10"), "{names:?}");
        assert!(names.contains(&"models/tri.obj"), "{names:?}");
        let sum: f64 = tasks.iter().map(|t| t["seconds"].as_f64().unwrap()).sum();
        assert!((sum - cpu).abs() < 1e-6, "cpu_seconds is the tasks' sum");
    }

    let (code, out, err) = hearth(
        &[
            "report",
            "out3",
            "--timings",
            "timings3.json",
            "-o",
            "report.html",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("<h2>Timeline ("), "no timeline");
    assert!(
        html.contains("tex/big.png#level0/rows 256-511: "),
        "no slice bar"
    );
    // A broken timings file is an error naming it.
    std::fs::write(dir.path().join("bad.json"), "{\"tasks\": 3}").unwrap();
    let (code, _, err) = hearth(
        &[
            "report",
            "out3",
            "--timings",
            "bad.json",
            "-o",
            "report.html",
        ],
        dir.path(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.json"), "{err}");
}

/// `hearth completions SHELL` prints clap's script for every shell it names, and `hearth man`
/// a manual page with every command.
#[test]
fn completions_and_the_manual_page_cover_every_command() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "complete -F _hearth"),
        ("zsh", "#compdef hearth"),
        ("fish", "complete -c hearth"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let (code, out, err) = hearth(&["completions", shell], dir.path());
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(marker) && out.contains("export"), "{shell}");
    }
    let (code, out, err) = hearth(&["man"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(".ie") || out.contains(".TH hearth"),
        "{}",
        &out[..200.min(out.len())]
    );
    for command in ["bake", "watch", "export", "completions", "info"] {
        assert!(out.contains(command), "the manual names `{command}`");
    }
    let (code, _, err) = hearth(&["completions", "tcsh"], dir.path());
    assert_ne!(code, 0);
    assert!(err.contains("tcsh"), "{err}");
}
