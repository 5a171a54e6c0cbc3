//! Shader pipelines: SPIR-V files and `*.shader/` stage folders (checked structurally, on
//! modules glslang compiled), WGSL validated with naga (errors as `file:line:column`), and
//! `shader = { spirv = true }` translating WGSL to SPIR-V.
#![cfg(feature = "bake")]

use crate::common;

use hearth::bake::{BakeError, Baker, Report};
use hearth::format::spirv::{self, Stage};
use hearth::{AssetKind, PakReader};
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shaders");
const SPRITE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/content/shaders/sprite.wgsl"
);

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(FIXTURES).join(name))
        .unwrap_or_else(|e| panic!("missing test data {FIXTURES}/{name}: {e}"))
}

fn bake(files: &[(&str, &[u8])], settings: &str) -> (tempfile::TempDir, Result<Report, BakeError>) {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(&dir.path().join("src"), files);
    let manifest = dir.path().join("src/hearth.toml");
    std::fs::write(
        &manifest,
        format!("[content]\nname = \"game\"\n[[content.group]]\nassets = [\"shaders/**/*\"]\n{settings}"),
    )
    .unwrap();
    let report = Baker::new(manifest.as_path(), dir.path().join("out")).run();
    (dir, report)
}

fn bake_error(files: &[(&str, &[u8])]) -> String {
    match bake(files, "").1 {
        Ok(_) => panic!(
            "the bake of {:?} succeeded",
            files.iter().map(|f| f.0).collect::<Vec<_>>()
        ),
        Err(error) => error.to_string(),
    }
}

#[test]
fn stage_folders_spirv_and_wgsl_bake_as_shader_entries() {
    let vertex = fixture("vertex.spv");
    let fragment = fixture("fragment.spv");
    let sprite = std::fs::read(SPRITE).unwrap();
    let (dir, report) = bake(
        &[
            ("shaders/lit.shader/vertex.spv", &vertex),
            ("shaders/lit.shader/fragment.spv", &fragment),
            ("shaders/lit.shader/lit.frag", &fixture("lit.frag")),
            ("shaders/post.spv", &fragment),
            ("shaders/sprite.wgsl", &sprite),
        ],
        "[[default.rules]]\nmatch = \"shaders/sprite.wgsl\"\nshader = { spirv = true }\n",
    );
    let report = report.unwrap();
    assert_eq!(report.assets, 3, "one folder, one .spv, one .wgsl");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("lit.frag") && w.contains("left out")),
        "{:?}",
        report.warnings
    );
    let pack = PakReader::open(dir.path().join("out/game.hpack")).unwrap();
    for (path, bytes) in [
        ("shaders/lit.shader/vertex.spv", &vertex),
        ("shaders/lit.shader/fragment.spv", &fragment),
        ("shaders/post.spv", &fragment),
        ("shaders/sprite.wgsl", &sprite),
    ] {
        let entry = pack
            .find(path)
            .unwrap()
            .unwrap_or_else(|| panic!("{path} missing"));
        assert_eq!(entry.kind(), AssetKind::SHADER, "{path}");
        assert_eq!(
            &*entry.bytes().unwrap(),
            &bytes[..],
            "{path} stored as it is"
        );
    }
    assert!(pack.find("shaders/lit.shader/lit.frag").unwrap().is_none());
    let record = pack
        .resolve(hearth::hash_asset_ref("shaders/lit.shader/vertex.spv"))
        .unwrap()
        .unwrap();
    assert_eq!(record.kind, AssetKind::SHADER);

    // The WGSL's SPIR-V translation: a well-formed module with both entry points.
    let translated = pack
        .get("shaders/sprite.spv")
        .unwrap()
        .expect("spirv = true");
    let info = spirv::check(&translated).unwrap();
    let mut stages: Vec<(Stage, &str)> = info
        .entry_points
        .iter()
        .map(|e| (e.stage, e.name.as_str()))
        .collect();
    stages.sort();
    assert_eq!(
        stages,
        [(Stage::Vertex, "vs_main"), (Stage::Fragment, "fs_main")]
    );

    // The glslang modules, read by the structural check.
    let info = spirv::check(&vertex).unwrap();
    assert_eq!(info.entry_points[0].stage, Stage::Vertex);
    assert_eq!(info.entry_points[0].name, "main");
    assert!(info.instructions > 20);
}

#[test]
fn a_second_bake_is_byte_identical() {
    let files: &[(&str, &[u8])] = &[
        ("shaders/lit.shader/vertex.spv", &fixture("vertex.spv")),
        ("shaders/lit.shader/fragment.spv", &fixture("fragment.spv")),
        ("shaders/sprite.wgsl", &std::fs::read(SPRITE).unwrap()),
    ];
    let settings = "[default]\nshader = { spirv = true }\n";
    let (a, report) = bake(files, settings);
    report.unwrap();
    let (b, report) = bake(files, settings);
    report.unwrap();
    let pack = |dir: &tempfile::TempDir| std::fs::read(dir.path().join("out/game.hpack")).unwrap();
    assert_eq!(pack(&a), pack(&b));
}

#[test]
fn bad_shaders_are_errors_naming_file_stage_and_place() {
    let vertex = fixture("vertex.spv");
    let fragment = fixture("fragment.spv");
    // (files, what the error must say)
    type Case<'a> = (Vec<(&'a str, Vec<u8>)>, Vec<&'a str>);
    let cases: Vec<Case<'_>> = vec![
        // A truncated stage module.
        (
            vec![
                ("shaders/lit.shader/vertex.spv", vertex[..vertex.len() - 8].to_vec()),
                ("shaders/lit.shader/fragment.spv", fragment.clone()),
            ],
            vec!["lit.shader", "vertex.spv (vertex stage)", "truncated"],
        ),
        // A fragment module saved as the vertex stage.
        (
            vec![("shaders/lit.shader/vertex.spv", fragment.clone())],
            vec!["lit.shader", "vertex.spv: no vertex entry point", "fragment"],
        ),
        // A stage name the folder convention does not know.
        (
            vec![("shaders/lit.shader/pixel.spv", fragment.clone())],
            vec!["lit.shader", "`pixel` is not a stage name"],
        ),
        // A folder without any stage.
        (
            vec![("shaders/empty.shader/notes.txt", b"todo".to_vec())],
            vec!["empty.shader", "no stage module"],
        ),
        // Not SPIR-V at all.
        (
            vec![("shaders/post.spv", b"#version 450\nvoid main() {}\n".to_vec())],
            vec!["post.spv", "not SPIR-V"],
        ),
        // WGSL that does not parse: the place is line:column.
        (
            vec![("shaders/bad.wgsl", b"@vertex\nfn main() -> @builtin(position) vec4<f32> {\n    return vec4<f32>(1.0, 2.0)\n}\n".to_vec())],
            vec!["shaders/bad.wgsl:4:1: "],
        ),
        // WGSL that parses but does not validate (a type mismatch).
        (
            vec![("shaders/typed.wgsl", b"@compute @workgroup_size(1)\nfn main() {\n    let a: u32 = 1u;\n    let b: f32 = 2.0;\n    let c = a + b;\n}\n".to_vec())],
            vec!["shaders/typed.wgsl:5:"],
        ),
    ];
    for (files, expect) in cases {
        let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (*p, b.as_slice())).collect();
        let error = bake_error(&refs);
        for part in &expect {
            assert!(error.contains(part), "{part:?} not in {error:?}");
        }
    }
}

/// `hearth info` names each stage; `hearth check` re-checks every `.spv` of a tree.
#[cfg(feature = "cli")]
#[test]
fn info_describes_stages_and_check_rechecks_spirv() {
    let (dir, report) = bake(
        &[
            ("shaders/lit.shader/vertex.spv", &fixture("vertex.spv")),
            ("shaders/lit.shader/fragment.spv", &fixture("fragment.spv")),
            ("shaders/sprite.wgsl", &std::fs::read(SPRITE).unwrap()),
        ],
        "[default]\nshader = { spirv = true }\n",
    );
    report.unwrap();
    let out = dir.path().join("out");
    let hearth = |args: &[&str]| common::hearth_on(args, &out);
    let (ok, text) = hearth(&["info"]);
    assert!(ok, "{text}");
    let line = |path: &str| {
        text.lines()
            .find(|l| l.starts_with(path))
            .unwrap_or_else(|| panic!("{path} not listed:\n{text}"))
            .to_owned()
    };
    assert!(line("shaders/lit.shader/vertex.spv").contains("SPIR-V 1.0: vertex main"));
    assert!(line("shaders/sprite.spv").contains("vertex vs_main, fragment fs_main"));
    assert!(line("shaders/sprite.wgsl").contains("text shader"));

    let files = common::info_files(&out);
    let file = |path: &str| &files[path];
    assert_eq!(file("shaders/lit.shader/fragment.spv")["stages"], 1);
    assert_eq!(file("shaders/sprite.spv")["stages"], 2);
    assert_eq!(file("shaders/sprite.spv")["entry_points"], 2);

    let (ok, text) = hearth(&["check"]);
    assert!(ok, "{text}");
    // A damaged module in the tree: check names it.
    let vertex = out.join("shaders/lit.shader/vertex.spv");
    let bytes = std::fs::read(&vertex).unwrap();
    std::fs::write(&vertex, &bytes[..bytes.len() - 8]).unwrap();
    let (ok, text) = hearth(&["check"]);
    assert!(!ok);
    assert!(text.contains("shaders/lit.shader/vertex.spv"), "{text}");
}

/// A deep WGSL expression (a 5,000-term sum, a 5,000-deep parenthesis nest) is an error naming
/// the file and place, never a stack overflow that aborts the process (issue 22). Baked with
/// `spirv = true` so the SPIR-V writer sees what the validator accepted.
#[test]
fn deep_wgsl_expressions_are_errors_not_aborts() {
    let sum = format!(
        "fn f(a: f32) -> f32 {{\n    return a{};\n}}\n",
        " + a".repeat(4_999)
    );
    let nest = format!(
        "fn f(a: f32) -> f32 {{\n    return {}a{};\n}}\n",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    let calls = format!(
        "fn f(a: f32) -> f32 {{\n    return {}a{};\n}}\n",
        "abs(".repeat(5_000),
        ")".repeat(5_000)
    );
    // Runs of prefix operators: each character is a level of naga's recursion (issue 36).
    let nots = format!(
        "fn f() {{\n    var b: bool = {}true;\n}}\n",
        "!".repeat(150_000)
    );
    let derefs = format!(
        "fn f() {{\n    var b: bool = {}true;\n}}\n",
        "*&".repeat(100_000)
    );
    for (name, text) in [
        ("sum", &sum),
        ("nest", &nest),
        ("calls", &calls),
        ("nots", &nots),
        ("derefs", &derefs),
    ] {
        assert!(text.len() >= 10_000, "{name}: {} bytes", text.len());
        let file = format!("shaders/{name}.wgsl");
        let (_dir, report) = bake(
            &[(file.as_str(), text.as_bytes())],
            "[default]\nshader = { spirv = true }\n",
        );
        let error = report.expect_err(name).to_string();
        assert!(
            error.contains(&format!("{file}:2:")) && error.contains("deeper than"),
            "{error}"
        );
    }
    // A shallow shader of the same size still bakes.
    let flat = format!(
        "fn f(a: f32) -> f32 {{\n{}    return a;\n}}\n",
        "    _ = a + a;\n".repeat(2_000)
    );
    bake(&[("shaders/flat.wgsl", flat.as_bytes())], "")
        .1
        .unwrap();
}
