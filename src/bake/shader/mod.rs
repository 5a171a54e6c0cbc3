//! Shader pipelines: SPIR-V files and assetc's `*.shader/` stage folders, checked structurally
//! ([`crate::format::spirv`]); WGSL files, validated with naga (and, with
//! `shader = { spirv = true }`, also translated to SPIR-V). Every output is a shader entry
//! (manifest kind 4).

use crate::bake::pipeline::{BakeContext, Claim, Output, Pipeline, PipelineError, Source};
use crate::format::hman::AssetKind;
use crate::format::spirv::{self, Stage};

/// `shader = { … }` in any layer of the manifest.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShaderSettings {
    /// WGSL only: also write `<name>.spv`, the module naga translates (every entry point).
    pub spirv: bool,
}

/// `*.spv`: one SPIR-V module, checked and stored as it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spirv;

impl Pipeline for Spirv {
    type Settings = ShaderSettings;

    fn name(&self) -> &str {
        "spirv"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.spv")]
    }
    fn settings_table(&self) -> &str {
        "shader"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &ShaderSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        spirv::check(source.bytes())?;
        cx.emit(Output::new(
            source.rel(),
            AssetKind::SHADER,
            source.bytes().to_vec(),
        ));
        Ok(())
    }
}

/// `*.shader/`: a folder of stage modules (`vertex.spv`, `fragment.spv`, `compute.spv`, …,
/// see [`Stage::from_file_stem`]), each checked, and its entry point checked to be that
/// stage. Outputs keep the folder's layout: `shaders/sprite.shader/vertex.spv`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShaderFolder;

impl Pipeline for ShaderFolder {
    type Settings = ShaderSettings;

    fn name(&self) -> &str {
        "shader-folder"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::folder("*.shader")]
    }
    fn settings_table(&self) -> &str {
        "shader"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &ShaderSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let mut stages = 0;
        for file in source.files() {
            let name = file.name();
            let Some(stem) = name.strip_suffix(".spv") else {
                cx.warn_about(&file.path, "not a SPIR-V stage (`<stage>.spv`): left out");
                continue;
            };
            let stage = Stage::from_file_stem(stem).ok_or_else(|| {
                format!(
                    "{name}: `{stem}` is not a stage name (vertex, fragment, compute, geometry, \
                     tess_control, tess_eval, task, mesh, or vert, frag, comp, geom, tesc, tese)"
                )
            })?;
            let info = spirv::check(&file.bytes)
                .map_err(|error| format!("{name} ({} stage): {error}", stage.name()))?;
            if !info.entry_points.iter().any(|e| e.stage == stage) {
                let found: Vec<&str> = info.entry_points.iter().map(|e| e.stage.name()).collect();
                return Err(format!(
                    "{name}: no {} entry point (the module's entry points are {})",
                    stage.name(),
                    found.join(", ")
                )
                .into());
            }
            cx.emit(Output::new(
                format!("{}/{name}", source.rel()),
                AssetKind::SHADER,
                file.bytes.clone(),
            ));
            stages += 1;
        }
        if stages == 0 {
            return Err("the folder holds no stage module (vertex.spv, fragment.spv, …)".into());
        }
        Ok(())
    }
}

/// `*.wgsl`: parsed and validated with naga, stored as it is; `spirv = true` adds the SPIR-V.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wgsl;

impl Pipeline for Wgsl {
    type Settings = ShaderSettings;

    fn name(&self) -> &str {
        "wgsl"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.wgsl")]
    }
    fn settings_table(&self) -> &str {
        "shader"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &ShaderSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let text = std::str::from_utf8(source.bytes())
            .map_err(|e| format!("{}: not UTF-8 text: {e}", source.rel()))?;
        let (module, info) = validate_wgsl(source.rel(), text)?;
        cx.emit(Output::new(
            source.rel(),
            AssetKind::SHADER,
            source.bytes().to_vec(),
        ));
        if settings.spirv {
            let words = naga::back::spv::write_vec(
                &module,
                &info,
                &naga::back::spv::Options::default(),
                None,
            )
            .map_err(|e| format!("{}: SPIR-V translation failed: {e}", source.rel()))?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            cx.emit(Output::new(
                format!("{}.spv", source.stem()),
                AssetKind::SHADER,
                bytes,
            ));
        }
        Ok(())
    }
}

/// Parses and validates WGSL; errors read `file:line:column: message`.
pub fn validate_wgsl(
    file: &str,
    text: &str,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(text).map_err(|error| {
        let at = error
            .location(text)
            .map(|l| format!("{}:{}", l.line_number, l.line_position))
            .unwrap_or_else(|| "1:1".to_owned());
        format!("{file}:{at}: {}", error.message())
    })?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|error| {
        let at = error
            .location(text)
            .map(|l| format!("{}:{}", l.line_number, l.line_position))
            .unwrap_or_else(|| "1:1".to_owned());
        let mut message = error.as_inner().to_string();
        let mut cause = std::error::Error::source(error.as_inner());
        while let Some(inner) = cause {
            message.push_str(": ");
            message.push_str(&inner.to_string());
            cause = inner.source();
        }
        format!("{file}:{at}: {message}")
    })?;
    Ok((module, info))
}
