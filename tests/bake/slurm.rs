//! The guide's scaling-out examples, run (issue 39): the Slurm one literally, on a real
//! one-node Slurm cluster on loopback that `tests/slurm/cluster.sh` starts (Debian's
//! `slurmctld slurmd slurm-client munge`, which `.ci/run` installs) and stops by its PID
//! files; the others parsed as YAML. A machine without Slurm fails these tests, naming the
//! packages: they never skip.
#![cfg(all(feature = "cli", feature = "remote-cache"))]

use crate::shards::{checkout, summary, tree, CLEARED};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The guide page the examples come from.
fn guide() -> String {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scaling-out.md");
    std::fs::read_to_string(page).unwrap()
}

/// The fenced block after `<!-- {marker}: {name} -->` in the guide.
fn example(guide: &str, marker: &str, name: &str) -> String {
    let tag = format!("<!-- {marker}: {name} -->");
    let after = guide
        .split(&tag)
        .nth(1)
        .unwrap_or_else(|| panic!("the guide has no {tag}"));
    let body = after.split("```").nth(1).unwrap();
    // Less the fence's language word.
    body.split_once('\n').unwrap().1.to_owned()
}

/// The cluster of one test, stopped (exactly its daemons, by PID file) however the test ends.
struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slurm/cluster.sh")
    }

    fn start(dir: &Path) -> Cluster {
        let output = Command::new("bash")
            .arg(Self::script())
            .args(["start", dir.to_str().unwrap()])
            .output()
            .expect("bash runs tests/slurm/cluster.sh");
        let cluster = Cluster {
            dir: dir.to_path_buf(),
        };
        assert!(
            output.status.success(),
            "the Slurm test cluster did not start (Debian: `apt-get install \
             --no-install-recommends slurmctld slurmd slurm-client munge`; .ci/run does it):\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        cluster
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(Self::script())
            .args(["stop", self.dir.to_str().unwrap()])
            .status();
    }
}

#[test]
fn the_guide_s_slurm_array_bakes_shards_and_assembles_a_one_machine_bake() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let manifest = checkout(&work);
    std::fs::rename(work.join("content"), work.join("assets")).unwrap();
    let manifest = work.join("assets").join(manifest.file_name().unwrap());
    // A one-machine bake to compare with.
    let reference = dir.path().join("reference");
    let status = crate::shards::hearth(
        dir.path(),
        &["bake", manifest.to_str().unwrap(), "-q", "-o"],
        &[("HEARTH_CACHE_MODE", "off".to_owned())],
    )
    .arg(&reference)
    .status()
    .unwrap();
    assert!(status.success());

    let guide = guide();
    for name in ["shards.sbatch", "assemble.sbatch", "submit.sh"] {
        std::fs::write(work.join(name), example(&guide, "tested", name)).unwrap();
    }
    let cluster = Cluster::start(&dir.path().join("slurm"));
    let bin = Path::new(env!("CARGO_BIN_EXE_hearth")).parent().unwrap();
    let path = format!(
        "{}:{}:/usr/sbin:/usr/bin:/bin",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut submit = Command::new("bash");
    submit.arg("submit.sh").current_dir(&work);
    for name in CLEARED {
        submit.env_remove(name);
    }
    let output = submit
        .env("PATH", path)
        .env("SLURM_CONF", cluster.conf())
        .env("HEARTH_CACHE_DIR", dir.path().join("shared-cache"))
        .env("XDG_CACHE_HOME", dir.path().join("user-cache"))
        .output()
        .unwrap();
    let log = |name: &str| std::fs::read_to_string(work.join(name)).unwrap_or_default();
    let logs = (1..=4)
        .map(|k| log(&format!("hearth-shard-{k}.log")))
        .collect::<Vec<_>>();
    assert!(
        output.status.success(),
        "submit.sh: {}{}\nshards:\n{}\nassemble:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        logs.join("\n"),
        log("hearth-assemble.log")
    );
    let mut assets = 0;
    for (k, shard_log) in logs.iter().enumerate() {
        let json = summary(shard_log);
        assert_eq!(json["shard"], format!("{}/4", k + 1), "{shard_log}");
        assert_eq!(json["baked"], json["stored"], "{shard_log}");
        assets += json["assets"].as_u64().unwrap();
    }
    let assembled = summary(&log("hearth-assemble.log"));
    assert_eq!(assembled["baked"], 0, "{assembled}");
    assert_eq!(assembled["assets"].as_u64(), Some(assets));
    assert_eq!(tree(&work.join("baked")), tree(&reference));
    drop(cluster);
    // Stopped: no daemon of ours is left (their PID files are gone with them).
    for daemon in ["slurmd", "slurmctld", "munged"] {
        assert!(!dir.path().join(format!("slurm/{daemon}.pid")).exists());
    }
}

#[test]
fn the_guide_s_kubernetes_github_and_gitlab_examples_are_yaml() {
    let guide = guide();
    for name in ["kubernetes.yaml", "github.yaml", "gitlab.yaml"] {
        let text = example(&guide, "parsed", name);
        let output = Command::new("python3")
            .args([
                "-c",
                "import sys, yaml\n\
                 docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]\n\
                 assert docs and all(isinstance(d, dict) for d in docs), docs\n\
                 print(len(docs))",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(text.as_bytes())?;
                child.wait_with_output()
            })
            .expect("python3 parses the YAML (PyYAML comes with moto's server, .ci/run)");
        assert!(
            output.status.success(),
            "{name} is not YAML (python3 with PyYAML parses it):\n{}\n{text}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // The GitLab job's index and the Kubernetes one's are what `--shard auto` reads.
    assert!(example(&guide, "parsed", "kubernetes.yaml").contains("completionMode: Indexed"));
    assert!(example(&guide, "parsed", "gitlab.yaml").contains("parallel: 8"));
}
