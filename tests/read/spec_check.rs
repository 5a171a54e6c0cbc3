//! Bakes the glTF + OBJ corpus and validates the output with `tools/spec_check.py`, an
//! independent reader written from the format specs only (assetc's spec and the README's
//! "Formats" section): with the default `.hpack` v4, then re-packed as v3 (the cache keeps the
//! assets), and once with `pack_version = 2`.
#![cfg(feature = "bake")]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use hearth::bake::Baker;

use crate::common;
use crate::common::corpus;

/// Folders of `corpus/gltf` that hearth rejects on purpose (Draco, meshopt compression).
const REJECTED: &[&str] = &["Box_draco", "BoxMeshopt"];

const MANIFEST: &str = "[[content.group]]\n\
assets = [\"**/*.gltf\", \"**/*.glb\", \"**/*.obj\"]\n\
[default]\n\
texture = { quality = \"fastest\", max_size = 64, mips = false }\n";

const V2: &str = "[content]\npack_version = 2\ncompression = \"none\"\n";
const V3: &str = "[content]\npack_version = 3\n";

fn require_python() {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(
        ok,
        "spec_check needs python3 on PATH (the independent reader is Python)"
    );
}

fn copy_dir(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(&name), &[]);
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// Copies the corpus into `content`, with a generated quad whose clips animate morph weights
/// (no corpus model does; `.hanim` v2).
fn copy_corpus(content: &Path) {
    copy_dir(&corpus("gltf"), &content.join("gltf"), REJECTED);
    copy_dir(&corpus("obj"), &content.join("obj"), &[]);
    common::write_files(
        &content.join("morph"),
        &[("morph_quad.gltf", common::morph_quad::gltf().as_bytes())],
    );
}

/// Writes the content's manifest (`extra` first) and bakes it into `out` (with the cache).
fn bake(content: &Path, out: &Path, extra: &str) {
    let manifest = content.join("hearth.toml");
    std::fs::write(&manifest, format!("{extra}{MANIFEST}")).unwrap();
    let started = Instant::now();
    let report = Baker::new(manifest.as_path(), out)
        .run()
        .unwrap_or_else(|e| panic!("bake failed: {e}"));
    println!(
        "baked {} assets into {} in {:.1?}",
        report.assets,
        out.display(),
        started.elapsed()
    );
}

/// Runs the checker; `Err` carries its output when it reports problems.
fn spec_check(out: &Path) -> Result<(), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/spec_check.py");
    let started = Instant::now();
    let output = Command::new("python3")
        .arg(&script)
        .arg(out)
        .output()
        .expect("running python3 tools/spec_check.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!(
        "{stdout}{stderr}spec_check ran in {:.1?}",
        started.elapsed()
    );
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("({}):\n{stdout}{stderr}", output.status))
    }
}

/// Bakes the corpus with each manifest `extra` in turn into one output folder, and checks the
/// output (a pack of `version`) after each bake.
fn run(extras: &[(&str, u32)]) {
    require_python();
    let tmp = tempfile::tempdir().unwrap();
    let content = tmp.path().join("content");
    let out = tmp.path().join("out");
    copy_corpus(&content);
    for (extra, version) in extras {
        bake(&content, &out, extra);
        let pak = hearth::PakReader::open(out.join("assets.hpack")).unwrap();
        assert_eq!(pak.version(), *version, "{extra:?}");
        if let Err(problems) = spec_check(&out) {
            // Keep the baked tree for a look at the files named.
            let kept = tmp.keep();
            panic!(
                "tools/spec_check.py {} ({extra:?}) failed {problems}\n(output kept in {})",
                out.display(),
                kept.display()
            );
        }
    }
}

#[test]
fn corpus_output_matches_the_spec_with_pack_v4_then_v3() {
    run(&[("", 4), (V3, 3)]);
}

#[test]
fn corpus_output_matches_the_spec_with_pack_v2() {
    run(&[(V2, 2)]);
}
