//! A no-op re-bake of 10k files against `find` over the same tree, timed in one process, for
//! profiling (`perf record`) the fast path without criterion.
//!
//! `cargo run -p hearth-compare --release --example noop_profile -- [ROUNDS] [DIR]`
#[path = "../../data/mod.rs"]
mod data;
use hearth::bake::Baker;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let parent = args
        .get(2)
        .map(std::path::PathBuf::from)
        .unwrap_or(std::env::temp_dir());
    // With `KEEP=1` the content and output stay in `DIR/noop-profile` for the next run, so a
    // profile of a second run sees only the re-bakes.
    let keep = std::env::var_os("KEEP").is_some();
    let (content, out) = match keep {
        true => {
            let base = parent.join("noop-profile");
            (base.join("content"), base.join("out"))
        }
        false => (
            tempfile::tempdir_in(&parent).unwrap().keep(),
            tempfile::tempdir_in(&parent).unwrap().keep(),
        ),
    };
    let manifest = content.join("hearth.toml");
    if !manifest.exists() {
        let files = data::mixed_files(45, usize::MAX, 10_000, 64, 2 << 10);
        data::write_tree(&content, &files);
        std::fs::write(
            &manifest,
            "[content]\nname = \"bench\"\n\n[[content.group]]\nassets = [\"data/**/*\"]\n",
        )
        .unwrap();
        Baker::new(manifest.as_path(), &out).run().unwrap();
    }
    let data_dir = content.join("data");
    let (mut hearth, mut find, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        let c = cpu_ms();
        let report = Baker::new(manifest.as_path(), &out).jobs(2).run().unwrap();
        hearth.push(t.elapsed().as_secs_f64() * 1e3);
        cpu.push(cpu_ms() - c);
        assert_eq!(report.files_written, 0);
        if std::env::var_os("NOFIND").is_some() {
            continue; // for `perf stat`: only hearth's work in the process
        }
        let t = Instant::now();
        let output = std::process::Command::new("find")
            .arg(&data_dir)
            .args(["-type", "f", "-printf", "%s %T@\\n"])
            .output()
            .unwrap();
        assert!(output.status.success());
        find.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    // CPU time in 10 ms ticks: the mean over all rounds, not a median of ticks.
    let c = cpu.iter().sum::<f64>() / rounds as f64;
    find.push(f64::NAN);
    let (h, f) = (med(&mut hearth), med(&mut find));
    if !keep {
        let _ = std::fs::remove_dir_all(&content);
        let _ = std::fs::remove_dir_all(&out);
    }
    println!(
        "noop 10k: hearth {h:.1} ms (cpu {c:.1} ms), find {f:.1} ms, ratio {:.2}",
        h / f
    );
}

/// This process's user + system CPU time so far, in ms (every thread).
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks * 10.0
}
