//! Where a cold hearth bake spends its time: times the phases of `Baker::run` from its
//! progress events, for the 2000-file content of `benches/bake.rs`, jobs 1 and 2, 3 rounds.
//!
//! `CARGO_TARGET_DIR=../../target/compare cargo run --release -j 1 --example bake_phases -- /tmp zstd`
//! (first argument: the folder the output goes in, e.g. `/tmp` for disk or `/dev/shm` for tmpfs;
//! second: the codec).
#[path = "../../data/mod.rs"]
mod data;
use hearth::bake::{Baker, Progress};
use std::sync::{Arc, Mutex};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let parent = std::path::PathBuf::from(&args[1]);
    let codec = &args[2];
    let content = tempfile::tempdir().unwrap();
    let files = data::mixed_files(44, usize::MAX, 2000, 256, 16 << 10);
    data::write_tree(content.path(), &files);
    let manifest = content.path().join("hearth.toml");
    std::fs::write(&manifest, format!("[content]\nname = \"bench\"\ncompression = \"{codec}\"\n\n[[content.group]]\nassets = [\"data/**/*\"]\n")).unwrap();
    for round in 0..3 {
        for jobs in [1usize, 2] {
            let out = tempfile::tempdir_in(&parent).unwrap();
            let t0 = Instant::now();
            let marks: Arc<Mutex<Vec<(String, f64)>>> = Arc::new(Mutex::new(Vec::new()));
            let m = marks.clone();
            let last_asset = Arc::new(Mutex::new(0.0f64));
            let la = last_asset.clone();
            let report = Baker::new(manifest.as_path(), out.path())
                .jobs(jobs)
                .cache(false)
                .on_progress(move |p| {
                    let t = t0.elapsed().as_secs_f64() * 1e3;
                    match p {
                        Progress::Planned { .. } => m.lock().unwrap().push(("planned".into(), t)),
                        Progress::Asset { .. } => *la.lock().unwrap() = t,
                        Progress::Packing { .. } => m.lock().unwrap().push(("packing".into(), t)),
                        _ => {}
                    }
                })
                .run()
                .unwrap();
            let total = t0.elapsed().as_secs_f64() * 1e3;
            let marks = marks.lock().unwrap();
            let planned = marks.iter().find(|m| m.0 == "planned").unwrap().1;
            let packing = marks
                .iter()
                .find(|m| m.0 == "packing")
                .map(|m| m.1)
                .unwrap_or(f64::NAN);
            let assets_done = *last_asset.lock().unwrap();
            println!("round {round} jobs {jobs}: plan {planned:.1} ms | assets (parallel) {:.1} ms | tree+manifest writes (serial) {:.1} ms | pack build+write+cache {:.1} ms | total {total:.1} ms ({} bytes)",
                assets_done - planned, packing - assets_done, total - packing, report.pack_bytes);
            drop(out);
        }
    }
}
