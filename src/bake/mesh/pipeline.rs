//! The model pipeline's contract: glTF, GLB, OBJ and USD files, `mesh = { … }` settings, and the
//! `texture = { … }` table for the images their materials use.

use crate::bake::pipeline::{AssetTable, BakeContext, Claim, Pipeline, PipelineError, Source};
use crate::bake::{mesh::settings::MeshSettings, texture::settings::TextureSettings};

/// A `.gltf`, `.glb`, `.obj` or USD (`.usd`, `.usda`, `.usdc`, `.usdz`) model -> `.hmesh`, `.hmat`, `<stem>/tex_<i>.ktx2` (and
/// `.hanim` when skinned and animated).
#[derive(Debug, Clone, Copy, Default)]
pub struct Model;

impl Pipeline for Model {
    type Settings = MeshSettings;

    fn name(&self) -> &str {
        "model"
    }
    fn version(&self) -> u32 {
        // 2: KHR_texture_transform applied (in the UVs, or as .hmat property records).
        // 3: morph targets (MRPH) and morph-weight clips (.hanim v2) kept.
        // 4: an image used in two colour spaces baked once per space (`tex_<i>.<mode>`);
        //    generated tangents' bitangent sign as glTF means it.
        // 5: skin joints' non-joint ancestors folded into their rest pose, parent and keys.
        // 6: USD layers.
        6
    }
    fn claims(&self) -> Vec<Claim> {
        [
            "*.gltf", "*.glb", "*.obj", "*.usd", "*.usda", "*.usdc", "*.usdz",
        ]
        .map(Claim::file)
        .to_vec()
    }
    fn settings_table(&self) -> &str {
        "mesh"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &MeshSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let texture: TextureSettings = cx.settings("texture")?;
        super::bake_model(source, settings, &texture, cx)
    }
    fn asset_tables(&self) -> &[&str] {
        &["mesh", "animation"]
    }
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        settings: &MeshSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        match file.table() {
            "animation" => super::asset_file::bake_animation(file, settings, cx),
            _ => super::asset_file::bake_mesh(file, settings, cx),
        }
    }
}
