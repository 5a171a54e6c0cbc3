//! `cargo run --features tools --bin bake-watch [MANIFEST OUT]`: bakes the game's content,
//! then re-bakes on every change, with the game's own level pipeline, the preset build.rs
//! used, and by default into the very folder build.rs baked into (`HEARTH_OUT`), so a running
//! `hearth-example-game --watch` reloads what changed. Set `HEARTH_OUT_DIR` (the example's
//! `.cargo/config.toml` does) so every feature set and profile shares that folder.

#[path = "../level.rs"]
mod level;
#[path = "../level_pipeline.rs"]
mod level_pipeline;

use hearth::bake::watch::{Watch, WatchEvent};
use hearth::bake::Baker;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn main() -> std::process::ExitCode {
    let mut args = std::env::args_os().skip(1);
    let manifest = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../content/hearth.toml"
        ))
    });
    let out = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("HEARTH_OUT")));
    let mut baker = Baker::new(&manifest, &out);
    let preset = env!("HEARTH_BAKED_PRESET");
    if !preset.is_empty() {
        baker.preset(preset);
    }
    baker.pipeline(level_pipeline::LevelPipeline);
    println!("watching {} into {}", manifest.display(), out.display());
    let stop = Arc::new(AtomicBool::new(false));
    let result = Watch::new(baker, &manifest, &out).run(stop, |event| match event {
        WatchEvent::Baked { report, .. } => {
            println!(
                "baked {} assets ({} from cache) in {:.0?}",
                report.assets, report.cache_hits, report.elapsed
            );
            for (file, error) in &report.failed {
                eprintln!("  {file}: {error}");
            }
        }
        WatchEvent::Failed { error, .. } => eprintln!("bake failed: {error}"),
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bake-watch: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
