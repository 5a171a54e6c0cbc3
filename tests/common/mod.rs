//! Shared helpers for the integration tests.
#![allow(dead_code)]

mod corpus;
pub mod models;

#[allow(unused_imports)] // not every test binary reads the corpus
pub use corpus::corpus;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Writes `files` (path -> bytes) under `root`, creating folders.
pub fn write_files(root: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// A small content folder with a manifest: text (compressible), an .ogg (already
/// compressed), a shader, a font, nested folders, a hidden file and a wip file to exclude.
pub fn sample_content(root: &Path, manifest_extra: &str) -> PathBuf {
    let text = "the quick brown fox jumps over the lazy dog\n".repeat(50);
    write_files(
        root,
        &[
            ("data/levels/level1.txt", text.as_bytes()),
            ("data/levels/level2.txt", b"short level"),
            ("data/wip/secret.txt", b"not shipped"),
            ("data/.hidden", b"dotfile"),
            (
                "sounds/hit.ogg",
                b"OggS\0\x02fake ogg payload that should stay stored as it is",
            ),
            // A real SPIR-V module (glslang's; the shader pipeline checks it).
            (
                "shaders/mesh.spv",
                include_bytes!("../fixtures/shaders/vertex.spv"),
            ),
            ("fonts/ui.ttf", &[0, 1, 0, 0, 9, 9, 9]),
        ],
    );
    let manifest = root.join("hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"[content]
name = "game"
compression = "zstd"
[[content.group]]
assets = ["data/**/*", "sounds/*.ogg"]
exclude = ["**/wip/**"]
[[content.group]]
assets = ["shaders/*.spv", "fonts/*", "data/levels/*.txt"]
{manifest_extra}"#
        ),
    )
    .unwrap();
    manifest
}

/// Every file under `dir` (relative path -> mtime), recursively.
pub fn mtimes(dir: &Path) -> BTreeMap<PathBuf, SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                out.insert(
                    entry.path().strip_prefix(dir).unwrap().to_path_buf(),
                    meta.modified().unwrap(),
                );
            }
        }
    }
    out
}

/// Every file under `dir` (relative path -> bytes).
pub fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    mtimes(dir)
        .into_keys()
        .map(|rel| (rel.clone(), std::fs::read(dir.join(rel)).unwrap()))
        .collect()
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Asserts that `error` has a line naming each file with the expected words.
pub fn assert_errors_name(error: &str, expect: &[(&str, &str)]) {
    for (file, what) in expect {
        let line = error
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not named:\n{error}"));
        assert!(line.contains(what), "{file}: expected `{what}` in `{line}`");
    }
}

/// Bakes `manifest` into `out` from scratch (cache off) with `jobs` threads and returns the
/// output folder's files, less the cache (which records source mtimes).
#[cfg(feature = "bake")]
pub fn bake_cold(manifest: &Path, out: &Path, jobs: usize) -> BTreeMap<PathBuf, Vec<u8>> {
    hearth::bake::Baker::new(manifest, out)
        .jobs(jobs)
        .cache(false)
        .run()
        .unwrap();
    let mut tree = contents(out);
    tree.remove(Path::new(".hearth-cache"));
    tree
}

/// `hearth info --json OUT`'s files, by path (the command must succeed).
#[cfg(feature = "cli")]
pub fn info_files(out: &Path) -> BTreeMap<String, serde_json::Value> {
    let (ok, json) = hearth_on(&["info", "--json"], out);
    assert!(ok, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f.clone()))
        .collect()
}

/// Runs the `hearth` binary with `args` and then `target` (a folder or file); returns
/// whether it succeeded and its stdout followed by its stderr.
#[cfg(feature = "cli")]
pub fn hearth_on(args: &[&str], target: &Path) -> (bool, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .arg(target)
        .output()
        .expect("the hearth binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// Runs the independent reader `tools/spec_check.py` on `out`: whether it passed, and its
/// output.
pub fn spec_check(out: &Path) -> (bool, String) {
    let output = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/spec_check.py"))
        .arg(out)
        .output()
        .expect("python3 runs tools/spec_check.py");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}
