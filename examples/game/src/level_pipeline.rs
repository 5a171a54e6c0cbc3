//! The game's own asset kind: `*.level.toml` -> `<name>.level`, baked through hearth's pipeline
//! contract. Shared by build.rs and the `bake-watch` tool, so both bake the same bytes.

use crate::level;
use hearth::bake::{BakeContext, Claim, Output, Pipeline, PipelineError, Source};
use hearth::AssetKind;

/// `*.level.toml` -> `<name>.level`.
pub struct LevelPipeline;

/// The level source as designers write it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelSource {
    name: String,
    ground: String,
    spawn: [f32; 3],
    #[serde(default)]
    props: Vec<PropSource>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PropSource {
    mesh: String,
    position: [f32; 3],
    #[serde(default = "one")]
    scale: f32,
}

fn one() -> f32 {
    1.0
}

/// `level = { … }` in any layer of the manifest.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
pub struct LevelSettings {
    /// Multiplies every position (a level authored in centimetres: 0.01).
    unit_scale: Option<f32>,
}

impl Pipeline for LevelPipeline {
    type Settings = LevelSettings;

    fn name(&self) -> &str {
        "level"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.level.toml")]
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &LevelSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let text = std::str::from_utf8(source.bytes())?;
        let parsed: LevelSource = toml::from_str(text)?;
        let unit = settings.unit_scale.unwrap_or(1.0);
        let scaled = |v: [f32; 3]| v.map(|c| c * unit);
        let level = level::Level {
            name: parsed.name,
            spawn: scaled(parsed.spawn),
            // A reference the baker checks: a missing texture fails the bake, naming both.
            ground: cx.reference(&parsed.ground),
            props: parsed
                .props
                .iter()
                .map(|p| level::Prop {
                    mesh: cx.reference(&p.mesh),
                    position: scaled(p.position),
                    scale: p.scale,
                })
                .collect(),
        };
        let kind = AssetKind::game(level::KIND).ok_or("level kind must be 128..=255")?;
        let path = format!("{}.level", source.stem().trim_end_matches(".level"));
        cx.emit(Output::new(path, kind, level::encode(&level)));
        Ok(())
    }
}
