//! `hearth watch` through the CLI: start, edit, break, fix, delete, manifest edit, an
//! editor's atomic save, a burst of 1000 files, a renamed folder, a removed content root, and
//! Ctrl-C; the output stays valid throughout.

#![cfg(unix)]

use crate::common;

use hearth::PakReader;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

struct Watching {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    root: PathBuf,
    out: PathBuf,
    _dir: tempfile::TempDir,
}

impl Watching {
    /// Text files and a textured glTF under a content root, watched into `root/out` (an
    /// output folder inside the content root, whose own writes must not trigger re-bakes).
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("content");
        for i in 0..3 {
            common::write_files(
                &root,
                &[(&format!("data/f{i}.txt"), format!("file {i}\n").as_bytes())],
            );
        }
        common::copy_dir(
            &common::corpus("gltf/BoxTextured"),
            &root.join("models/box"),
        );
        std::fs::write(
            root.join("hearth.toml"),
            "[[content.group]]\nassets = [\"data/**/*.txt\", \"models/**/*.gltf\"]\n\
             [default]\ntexture = { quality = \"fastest\" }\n",
        )
        .unwrap();
        let out = root.join("out");
        let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(["watch", "hearth.toml", "-o", "out", "-j", "2"])
            .current_dir(&root)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut watching = Self {
            child,
            lines,
            seen: Vec::new(),
            root,
            out,
            _dir: dir,
        };
        watching.expect_line(|l| l.starts_with("baked 4 assets"));
        watching
    }

    /// Waits for a line matching `want`; returns it.
    fn expect_line(&mut self, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if want(&line) {
                        return line;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("no expected line; watch printed:\n{}", self.seen.join("\n"));
    }

    fn write(&self, rel: &str, bytes: &[u8]) {
        common::write_files(&self.root, &[(rel, bytes)]);
    }

    fn pack(&self) -> PakReader {
        PakReader::open(self.out.join("assets.hpack")).unwrap()
    }

    fn get(&self, path: &str) -> Option<Vec<u8>> {
        self.pack().get(path).unwrap().map(|b| b.into_owned())
    }

    fn check(&self) {
        let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .arg("check")
            .arg(&self.out)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Ctrl-C: exits promptly with status 130, the output valid.
    fn interrupt(mut self) {
        self.ctrl_c();
        self.check();
    }

    /// Sends SIGINT and waits for the exit: promptly, with status 130.
    fn ctrl_c(&mut self) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no exit after Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(130), "{status:?}");
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_rebakes_edits_keeps_the_last_good_output_and_stops_on_ctrl_c() {
    let mut w = Watching::start();
    assert_eq!(w.get("data/f0.txt").unwrap(), b"file 0\n");
    let mesh = w.get("models/box/BoxTextured.hmesh").expect("model baked");

    // An edit re-bakes that file only.
    w.write("data/f0.txt", b"edited\n");
    w.expect_line(|l| l.starts_with("re-baked 1 of 4 assets") && l.contains("data/f0.txt"));
    assert_eq!(w.get("data/f0.txt").unwrap(), b"edited\n");

    // A broken model: its error is shown, naming the file; its last good output stays, and
    // the other edits of the same batch still land.
    w.write("models/box/BoxTextured.gltf", b"{ not json");
    w.write("data/f1.txt", b"also edited\n");
    w.expect_line(|l| l.starts_with("error:") && l.contains("models/box/BoxTextured.gltf"));
    assert_eq!(w.get("models/box/BoxTextured.hmesh").unwrap(), mesh);
    assert_eq!(w.get("data/f1.txt").unwrap(), b"also edited\n");
    w.check();

    // Fixed with other content: re-baked, no error any more.
    let original = common::corpus("gltf/BoxTextured/BoxTextured.gltf");
    let original = std::fs::read_to_string(original).unwrap();
    let renamed = original.replacen("\"asset\"", "\"extras\": {\"edit\": 1},\n    \"asset\"", 1);
    assert_ne!(renamed, original);
    w.write("models/box/BoxTextured.gltf", renamed.as_bytes());
    let line = w.expect_line(|l| !l.starts_with("error:"));
    assert!(
        line.starts_with("re-baked 1 of 4") && line.contains("BoxTextured.gltf"),
        "{line}"
    );
    assert_eq!(w.get("models/box/BoxTextured.hmesh").unwrap(), mesh);
    // Back to the original bytes: the kept outputs are those bytes' outputs (a cache hit).
    w.write("models/box/BoxTextured.gltf", original.as_bytes());
    let line = w.expect_line(|l| !l.starts_with("error:"));
    assert!(
        line.contains("BoxTextured.gltf") || line.starts_with("nothing"),
        "{line}"
    );

    // An editor's atomic save: write a temp file, rename it over the source.
    let temp = w.root.join("data/.f2.txt.swp");
    std::fs::write(&temp, b"saved atomically\n").unwrap();
    std::fs::rename(&temp, w.root.join("data/f2.txt")).unwrap();
    w.expect_line(|l| l.contains("data/f2.txt"));
    assert_eq!(w.get("data/f2.txt").unwrap(), b"saved atomically\n");

    // A deleted source: its output goes from the tree and the pack.
    std::fs::remove_file(w.root.join("data/f1.txt")).unwrap();
    w.expect_line(|l| l.starts_with("removed 1 stale outputs"));
    assert!(w.get("data/f1.txt").is_none());
    assert!(!w.out.join("data/f1.txt").exists());

    // A manifest edit re-plans: a new group's files appear.
    w.write("notes/readme.md", b"# notes\n");
    w.expect_line(|l| l.starts_with("nothing to re-bake")); // not matched by any group yet
    let manifest = std::fs::read_to_string(w.root.join("hearth.toml")).unwrap();
    let with_notes = manifest.replace(
        "\"models/**/*.gltf\"]",
        "\"models/**/*.gltf\", \"notes/*.md\"]",
    );
    w.write("hearth.toml", with_notes.as_bytes());
    w.expect_line(|l| l.contains("notes/readme.md"));
    assert_eq!(w.get("notes/readme.md").unwrap(), b"# notes\n");

    // A manifest made invalid: the error is shown, the output kept, watching goes on.
    w.write("hearth.toml", b"[[content.group]\nbroken");
    w.expect_line(|l| l.starts_with("error:") && l.contains("hearth.toml"));
    assert_eq!(w.get("notes/readme.md").unwrap(), b"# notes\n");
    w.write("hearth.toml", with_notes.as_bytes());
    w.expect_line(|l| l.starts_with("nothing to re-bake") || l.starts_with("re-baked"));
    w.check();
    w.interrupt();
}

#[test]
fn a_burst_of_a_thousand_new_files_is_one_or_two_rebakes() {
    let mut w = Watching::start();
    let before = w.seen.len();
    for i in 0..1000 {
        w.write(
            &format!("data/burst/b{i:04}.txt"),
            format!("burst {i}\n").as_bytes(),
        );
    }
    let deadline = Instant::now() + WAIT;
    while w.pack().len() < 4 + 1000 + 1 {
        assert!(
            Instant::now() < deadline,
            "burst never fully baked: {:?}",
            &w.seen[before..]
        );
        if let Ok(line) = w.lines.recv_timeout(Duration::from_millis(200)) {
            w.seen.push(line);
        }
    }
    let bakes = w.seen[before..]
        .iter()
        .filter(|l| l.starts_with("re-baked"))
        .count();
    // The debounce batches the burst; its cap (1 s) may split a slow one in two or three.
    assert!(
        bakes <= 3,
        "{bakes} re-bakes for one burst: {:?}",
        &w.seen[before..]
    );
    assert_eq!(w.get("data/burst/b0999.txt").unwrap(), b"burst 999\n");
    // A removed folder: its outputs go, nothing breaks.
    // (A loaded machine may see the removal as two batches: their counts add up.)
    std::fs::remove_dir_all(w.root.join("data/burst")).unwrap();
    let mut removed = 0;
    while removed < 1000 {
        let line = w.expect_line(|l| l.starts_with("removed "));
        removed += line
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
    }
    assert_eq!(removed, 1000, "{:?}", &w.seen[before..]);
    w.check();
    w.interrupt();
}

#[test]
fn a_renamed_folder_moves_its_outputs_and_a_removed_content_root_is_an_error_not_a_crash() {
    let mut w = Watching::start();
    // A renamed folder: the old paths' outputs go, the new paths' come (one or two bakes,
    // as the rename's two events may fall in one batch or two).
    let mesh = w.get("models/box/BoxTextured.hmesh").expect("model baked");
    std::fs::rename(w.root.join("models/box"), w.root.join("models/crate")).unwrap();
    let deadline = Instant::now() + WAIT;
    while w.get("models/crate/BoxTextured.hmesh").is_none()
        || w.get("models/box/BoxTextured.hmesh").is_some()
    {
        assert!(
            Instant::now() < deadline,
            "rename not followed: {:?}",
            w.seen
        );
        if let Ok(line) = w.lines.recv_timeout(Duration::from_millis(200)) {
            w.seen.push(line);
        }
    }
    // The same mesh (its material reference is the new path's hash, so only the size matches).
    assert_eq!(
        w.get("models/crate/BoxTextured.hmesh").unwrap().len(),
        mesh.len()
    );
    assert!(!w.out.join("models/box").exists());
    w.check();

    // The whole content root goes (with the output folder inside it): the error is shown,
    // naming the manifest, watching goes on without a crash, and Ctrl-C still exits 130.
    std::fs::remove_dir_all(&w.root).unwrap();
    w.expect_line(|l| l.starts_with("error:") && l.contains("hearth.toml"));
    std::thread::sleep(Duration::from_millis(200));
    assert!(w.child.try_wait().unwrap().is_none(), "watch exited");
    w.ctrl_c();
}
