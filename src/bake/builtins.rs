//! hearth's own pipelines, registered in one place (so `pipeline.rs` depends on none of them).

use crate::bake::pipeline::Registry;
use crate::bake::{asset_file, blob, font, mesh, scene, shader, texture};
use std::sync::Arc;

impl Registry {
    /// hearth's own pipelines: image, cubemap, array, LUT, model, SPIR-V, shader folder, WGSL,
    /// bitmap font, pak's asset files (routed by table to the pipeline that claims it: material,
    /// scene and the others above) and the blob fallback.
    pub fn with_builtins() -> Self {
        let mut registry = Self::empty();
        let builtins = [
            registry.register(texture::pipelines::Image),
            registry.register(texture::pipelines::Cubemap),
            registry.register(texture::pipelines::Array),
            registry.register(texture::pipelines::Lut),
            registry.register(mesh::pipeline::Model),
            registry.register(shader::Spirv),
            registry.register(shader::ShaderFolder),
            registry.register(shader::Wgsl),
            registry.register(font::BitmapFont),
            registry.register_dyn(Arc::new(asset_file::AssetFile)),
            registry.register(asset_file::StandaloneMaterial),
            registry.register(scene::Scene),
            registry.register(blob::Blob),
        ];
        for result in builtins {
            result.expect("the built-in pipelines claim distinct patterns");
        }
        registry
    }
}
