//! The tools refuse special files (FIFOs, devices, links out of the folder) where they read
//! a file, naming it, rather than hang on it or read through it.

use super::hearth;
use crate::common;
use std::path::Path;
use std::process::Command;

/// `hearth ARGS` in `dir` that fails the test, rather than hangs it, when it runs 60 s.
#[cfg(unix)]
fn hearth_unhung(args: &[&str], dir: &Path) -> (i32, String, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(child.wait_with_output());
    });
    match receive.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(output) => {
            let output = output.unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (
                output.status.code().unwrap_or(-1),
                text(&output.stdout),
                text(&output.stderr),
            )
        }
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("hearth {args:?} hung: still running after 60 s");
        }
    }
}

/// Bakes the sample content into `out` (tree and pack), lets `plant` replace one of its
/// files, then runs `check`, `info`, `info --json` and `report` on it: each must refuse the
/// folder, naming `rel` and saying `why`, never hang, read without bound or read through.
#[cfg(unix)]
fn odd_file_is_refused_by_the_tools(rel: &str, why: &str, plant: impl Fn(&Path, &Path)) {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    let (code, out, err) = hearth(&["bake", "hearth.toml", "-o", "out", "-q"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    let path = dir.path().join("out").join(rel);
    std::fs::remove_file(&path).unwrap();
    plant(&path, dir.path());
    for args in [
        &["check", "out"][..],
        &["info", "out"],
        &["info", "--json", "out"],
        &["report", "out", "-o", "report.html"],
    ] {
        let (code, out, err) = hearth_unhung(args, dir.path());
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains(rel) && err.contains(why), "{args:?}: {err}");
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path, _: &Path) {
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.unwrap().success(), "mkfifo");
}

#[cfg(unix)]
#[test]
fn tools_refuse_a_fifo_at_a_listed_path() {
    odd_file_is_refused_by_the_tools("shaders/mesh.spv", "not a regular file", mkfifo);
}

#[cfg(unix)]
#[test]
fn tools_refuse_a_fifo_at_the_manifest() {
    odd_file_is_refused_by_the_tools("assets.hman", "not a regular file", mkfifo);
}

#[cfg(unix)]
#[test]
fn tools_refuse_a_link_to_dev_zero() {
    odd_file_is_refused_by_the_tools("shaders/mesh.spv", "symbolic link", |path, _| {
        std::os::unix::fs::symlink("/dev/zero", path).unwrap();
    });
}

#[cfg(unix)]
#[test]
fn tools_refuse_a_link_out_of_the_folder() {
    odd_file_is_refused_by_the_tools("shaders/mesh.spv", "symbolic link", |path, dir| {
        // The very bytes the bake wrote, so only the link itself is wrong.
        let outside = dir.join("outside.spv");
        std::fs::write(
            &outside,
            include_bytes!("../../fixtures/shaders/vertex.spv"),
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, path).unwrap();
    });
}

/// `hearth info FILE` on a FIFO or a device refuses it instead of waiting on it or reading
/// it without end.
#[cfg(unix)]
#[test]
fn info_of_one_special_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.spv");
    mkfifo(&fifo, dir.path());
    let zero = dir.path().join("zero.spv");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for file in ["pipe.spv", "zero.spv"] {
        for args in [&["info", file][..], &["info", "--json", file]] {
            let (code, out, err) = hearth_unhung(args, dir.path());
            assert_eq!(code, 1, "{args:?}: {out}{err}");
            let all = format!("{out}{err}");
            assert!(all.contains("not a regular file"), "{args:?}: {all}");
        }
    }
}

/// The other files the tools read because a user named them, a pack (`hearth pack info`) and
/// a `--timings` file (`hearth report`), are refused as FIFOs too, not waited on.
#[cfg(unix)]
#[test]
fn named_packs_and_timings_files_that_are_fifos_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    common::sample_content(dir.path(), "");
    let (code, out, err) = hearth(&["bake", "hearth.toml", "-o", "out", "-q"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    mkfifo(&dir.path().join("pipe.hpack"), dir.path());
    mkfifo(&dir.path().join("pipe.json"), dir.path());
    for args in [
        &["pack", "info", "pipe.hpack"][..],
        &["report", "out", "--timings", "pipe.json", "-o", "r.html"],
    ] {
        let (code, out, err) = hearth_unhung(args, dir.path());
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(
            err.contains("pipe.") && err.contains("not a regular file"),
            "{args:?}: {err}"
        );
    }
}
