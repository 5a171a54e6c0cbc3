//! build.rs mode without cargo: inputs injected through `CargoBake`'s setters.
#![cfg(feature = "bake")]

use crate::common;

use hearth::bake::cargo::CargoBake;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A `Write` that tests can read back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines(&self) -> Vec<String> {
        String::from_utf8(self.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }
}

fn run(
    src: &std::path::Path,
    out: &std::path::Path,
    profile: &str,
    rust_version: &str,
) -> (hearth::bake::Report, Vec<String>) {
    let captured = Captured::default();
    let report = CargoBake::new("hearth.toml")
        .manifest_dir(src)
        .out_dir(out)
        .profile(profile)
        .rust_version(rust_version)
        .jobs(2)
        .output(captured.clone())
        .run()
        .unwrap();
    (report, captured.lines())
}

#[test]
fn emits_only_cargo_directives_and_watches_every_input() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    common::sample_content(
        src.path(),
        "[[content.group]]\nassets = [\"missing/*.png\"]\n",
    );
    let (report, lines) = run(src.path(), out.path(), "release", "1.80");
    assert!(lines.iter().all(|l| l.starts_with("cargo::")), "{lines:#?}");
    let has = |line: String| assert!(lines.contains(&line), "missing {line}\n{lines:#?}");
    has(format!(
        "cargo::rerun-if-changed={}",
        src.path().join("hearth.toml").display()
    ));
    for input in ["data/levels/level1.txt", "sounds/hit.ogg", "fonts/ui.ttf"] {
        has(format!(
            "cargo::rerun-if-changed={}",
            src.path().join(input).display()
        ));
    }
    // The folders the globs walk, so a new file re-runs the build script.
    for dir in ["data", "sounds", "shaders", "fonts"] {
        has(format!(
            "cargo::rerun-if-changed={}",
            src.path().join(dir).display()
        ));
    }
    has(format!(
        "cargo::rustc-env=HEARTH_PACK={}",
        out.path().join("hearth/game.hpack").display()
    ));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("cargo::warning=") && l.contains("missing/*.png")),
        "{lines:#?}"
    );
    assert_eq!(report.pack_path, out.path().join("hearth/game.hpack"));
    hearth::PakReader::open_verified(&report.pack_path).unwrap();

    // Quiet by default; `verbose` (HEARTH_VERBOSE=1) adds one summary line naming what baked.
    assert!(!lines.iter().any(|l| l.contains("hearth: ")), "{lines:#?}");
    std::fs::write(src.path().join("sounds/hit.ogg"), b"louder").unwrap();
    let captured = Captured::default();
    CargoBake::new("hearth.toml")
        .manifest_dir(src.path())
        .out_dir(out.path())
        .profile("release")
        .rust_version("1.80")
        .verbose(true)
        .output(captured.clone())
        .run()
        .unwrap();
    let summary: Vec<String> = captured
        .lines()
        .into_iter()
        .filter(|l| l.starts_with("cargo::warning=hearth: "))
        .collect();
    assert_eq!(summary.len(), 1, "{summary:#?}");
    assert!(
        summary[0].contains("1 baked: sounds/hit.ogg"),
        "{summary:#?}"
    );

    // Crates whose rust-version predates cargo 1.77 get the single-colon form.
    let (_, old) = run(src.path(), out.path(), "release", "1.70");
    assert!(
        old.iter()
            .all(|l| l.starts_with("cargo:") && !l.starts_with("cargo::")),
        "{old:#?}"
    );
}

#[test]
fn second_build_with_nothing_changed_rewrites_no_file() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    common::sample_content(src.path(), "");
    run(src.path(), out.path(), "debug", "1.89");
    let before = common::mtimes(out.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (report, _) = run(src.path(), out.path(), "debug", "1.89");
    assert_eq!(report.cache_hits, report.assets);
    assert_eq!(common::mtimes(out.path()), before);
    for (path, mtime) in &before {
        println!("{:>40}  {:?}", path.display(), mtime);
    }
}

#[test]
fn a_shared_output_folder_replaces_out_dir_and_reaches_the_game() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    common::sample_content(src.path(), "[presets.debug]\ncompression = \"none\"\n");
    let captured = Captured::default();
    let report = CargoBake::new("hearth.toml")
        .manifest_dir(src.path())
        .out_dir(out.path())
        .shared_out_dir("target/assets")
        .profile("debug")
        .rust_version("1.89")
        .output(captured.clone())
        .run()
        .unwrap();
    let shared = src.path().join("target/assets");
    assert_eq!(report.pack_path, shared.join("game.hpack"));
    assert!(
        !out.path().join("hearth").exists(),
        "nothing baked into OUT_DIR"
    );
    let lines = captured.lines();
    for line in [
        "cargo::rerun-if-env-changed=HEARTH_OUT_DIR".to_owned(),
        format!(
            "cargo::rustc-env=HEARTH_PACK={}",
            shared.join("game.hpack").display()
        ),
        format!("cargo::rustc-env=HEARTH_OUT={}", shared.display()),
        "cargo::rustc-env=HEARTH_BAKED_PRESET=debug".to_owned(),
    ] {
        assert!(lines.contains(&line), "missing {line}\n{lines:#?}");
    }
}

#[test]
fn the_profile_picks_a_preset_of_the_same_name() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    common::sample_content(
        src.path(),
        "[presets.debug]\ncompression = \"none\"\noutput = \"dbg\"\n",
    );
    let (debug, _) = run(src.path(), out.path(), "debug", "1.89");
    assert_eq!(debug.preset.as_deref(), Some("debug"));
    assert!(debug.pack_path.ends_with("dbg/game.hpack"));
    let (release, _) = run(src.path(), out.path(), "release", "1.89");
    assert_eq!(
        release.preset, None,
        "no `release` preset and no manifest default"
    );
    assert!(release.pack_bytes < debug.pack_bytes);
}

#[test]
fn a_broken_manifest_is_an_error_that_still_watches_the_manifest() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("hearth.toml"), "[content\n").unwrap();
    let captured = Captured::default();
    let error = CargoBake::new("hearth.toml")
        .manifest_dir(src.path())
        .out_dir(out.path())
        .output(captured.clone())
        .run()
        .unwrap_err()
        .to_string();
    assert!(error.contains("hearth.toml"), "{error}");
    assert!(captured
        .lines()
        .iter()
        .any(|l| l.contains("rerun-if-changed") && l.ends_with("hearth.toml")));
}
