//! Bakes ../content/hearth.toml with hearth's built-in pipelines plus the game's own level
//! pipeline (see "Writing a pipeline" in hearth's README).

#[path = "src/level.rs"]
mod level;
#[path = "src/level_pipeline.rs"]
mod level_pipeline;

use hearth::bake::cargo::CargoBake;

fn main() {
    // Bakes into $OUT_DIR/hearth, tells cargo which files to watch (side files included) and
    // sets HEARTH_PACK to the pack's path. Debug builds use the manifest's `debug` preset.
    CargoBake::new("../content/hearth.toml")
        .pipeline(level_pipeline::LevelPipeline)
        .run_or_exit();
}
