//! The edit-and-see loop end to end: `bake-watch` re-bakes a copy of the content on every
//! edit, and the running game (`--watch`) reloads what changed, without a restart.
#![cfg(all(unix, feature = "tools"))]

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

/// A child process whose stdout lines arrive on a channel; killed when dropped.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(command: &mut Command) -> Self {
        let mut child = command
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
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a line containing `text`; returns it.
    fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!("no line with {text:?}; saw:\n{}", self.seen.join("\n")),
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn the_running_game_reloads_what_bake_watch_rebakes() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../content"),
        &content,
    );
    let manifest = content.join("hearth.toml");
    let out = dir.path().join("out");
    let mut baker = Running::start(
        Command::new(env!("CARGO_BIN_EXE_bake-watch"))
            .arg(&manifest)
            .arg(&out),
    );
    baker.expect("baked ");
    // The preset build.rs used (debug in a test build) puts the pack at the tree's root.
    let pack = out.join("example.hpack");
    let mut game = Running::start(
        Command::new(env!("CARGO_BIN_EXE_hearth-example-game"))
            .arg("--watch")
            .arg(&pack),
    );
    game.expect("text/hello.txt says: Hello from hearth!");
    game.expect("watching");

    std::fs::write(content.join("text/hello.txt"), "Hello again, hot!\n").unwrap();
    baker.expect("from cache");
    let reload = game.expect("reload 1:");
    assert!(
        reload.contains("changed [text/hello.txt]") && reload.contains("added []"),
        "{reload}"
    );
    game.expect("text/hello.txt now says: Hello again, hot!");

    // The game's own kind: a level edit reloads the level, nothing else.
    let level = content.join("levels/meadow.level.toml");
    let text = std::fs::read_to_string(&level).unwrap();
    std::fs::write(&level, text.replace("Meadow", "Meadow at dusk")).unwrap();
    let reload = game.expect("reload 2:");
    assert!(reload.contains("changed [levels/meadow.level]"), "{reload}");

    // A broken level keeps the last good one: no reload, the game keeps running.
    std::fs::write(&level, "this is not = [valid").unwrap();
    std::fs::write(content.join("text/credits.txt"), "new credits\n").unwrap();
    let reload = game.expect("reload 3:");
    assert!(reload.contains("changed [text/credits.txt]"), "{reload}");
}
