//! The `hearth` binary: exit codes and what it prints.
#![cfg(feature = "cli")]

mod common;

use std::process::Command;

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
        out.contains("baked 5 assets (0 from cache)") && out.contains("verify: 6 files"),
        "{out}"
    );
    let (code, out, _) = hearth(&["bake", "-o", "out"], dir.path());
    assert_eq!(code, 0);
    assert!(
        out.contains("(5 from cache)") && out.contains("files written: 0"),
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
    let (code, out, _) = hearth(&["pack", "info", "out/game.hpack"], dir.path());
    assert_eq!(code, 0);
    assert!(
        out.contains("hpack v4, 6 entries")
            && out.contains("padding")
            && out.contains("zstd")
            && out.contains("font"),
        "{out}"
    );
    let (code, out, _) = hearth(&["presets"], dir.path());
    assert_eq!(code, 0);
    assert!(out.contains("small"), "{out}");

    // A damaged tree fails the check.
    std::fs::write(dir.path().join("out/sounds/hit.ogg"), b"changed").unwrap();
    let (code, _, err) = hearth(&["check", "out"], dir.path());
    assert_eq!(code, 1);
    assert!(
        err.contains("sounds/hit.ogg") && err.contains("differs"),
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
