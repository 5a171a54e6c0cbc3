//! A virtual X server for the tests that open windows (Debian: xvfb; `.ci/run` installs it),
//! on a display number nobody uses; stopped when dropped.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running Xvfb.
pub struct Xvfb {
    child: Child,
    /// The `DISPLAY` value that reaches it (`:N`).
    pub display: String,
}

impl Xvfb {
    /// Starts one with a 1024x768 screen and waits (up to 20 s) for its socket.
    pub fn start() -> Xvfb {
        // The X lock files say which display numbers are taken.
        let number = (90..200)
            .find(|n| !Path::new(&format!("/tmp/.X{n}-lock")).exists())
            .expect("a free X display number");
        let display = format!(":{number}");
        let child = Command::new("Xvfb")
            .args([&display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb runs (Debian: xvfb; .ci/run installs it)");
        let socket = format!("/tmp/.X11-unix/X{number}");
        let started = Instant::now();
        while !Path::new(&socket).exists() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "Xvfb {display} made no socket in 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Xvfb { child, display }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
