//! The mesh pipeline: glTF/GLB, OBJ and USD -> `.hmesh` (geometry), `.hmat` (materials) and
//! `<stem>/tex_<i>.ktx2` (the images its materials use), as assetc specifies.

mod asset_file;
mod chunks;
pub mod gltf;
pub mod gltf_check;
pub mod obj;
mod overdraw;
pub mod pipeline;
pub mod process;
pub mod settings;
mod simplify;
pub mod usd;
mod vertex;

use crate::bake::pipeline::{BakeContext, Output, PipelineError, Source};
use crate::bake::texture::{self, pixels::DecodedImage, TextureMode, TextureShape};
use crate::bake::{mesh::settings::MeshSettings, texture::settings::TextureSettings};
use crate::format::hash::hash_asset_ref;
use crate::format::hman::AssetKind;
use crate::format::hmat::{
    self, property, GpuMaterial, MaterialProperty, ALPHA_MODE_SHIFT, FLAG_DOUBLE_SIDED,
};
use crate::format::hmesh::NO_MATERIAL;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// The canonical source ref: the source path without its extension, lowercased.
pub fn source_ref(rel: &str) -> String {
    rel.rsplit_once('.')
        .map(|(stem, _)| stem)
        .unwrap_or(rel)
        .to_ascii_lowercase()
}

/// Material leaf names: the lowercased name when non-empty and unique (ASCII
/// case-insensitively) in the source's material array, else `material_<index>` (stable
/// whatever the submeshes reference).
pub fn material_leaves(names: &[String]) -> Vec<String> {
    // One count per case-folded name: a linear pass, not a scan of every name per name.
    let folded: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
    let mut counts: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for name in &folded {
        *counts.entry(name).or_default() += 1;
    }
    names
        .iter()
        .zip(&folded)
        .enumerate()
        .map(|(i, (name, folded))| {
            if !name.is_empty() && counts[folded.as_str()] == 1 {
                name.to_lowercase()
            } else {
                format!("material_{i}")
            }
        })
        .collect()
}

/// The transform the mesh settings ask for: flips, then scale, then rotation, then offset.
pub fn settings_transform(
    mesh: &crate::bake::mesh::settings::MeshSettings,
) -> Result<gltf::Mat4, String> {
    let flip = |on: bool| if on { -1.0 } else { 1.0 };
    let s = [
        mesh.scale[0] * flip(mesh.flip_x),
        mesh.scale[1] * flip(mesh.flip_y),
        mesh.scale[2] * flip(mesh.flip_z),
    ];
    if s.iter().any(|v| !v.is_finite() || *v == 0.0) || mesh.offset.iter().any(|v| !v.is_finite()) {
        return Err(format!(
            "mesh.scale {:?} / mesh.offset {:?}: must be finite and non-zero",
            mesh.scale, mesh.offset
        ));
    }
    let rotation: [f32; 4] = match mesh.rotation.as_slice() {
        [] => [0.0, 0.0, 0.0, 1.0],
        [x, y, z] => {
            // Euler degrees about the fixed axes, in `euler` order.
            let order = crate::bake::mesh::settings::euler_axes(&mesh.euler)
                .ok_or_else(|| format!("mesh.euler = {:?}: not an order of x, y, z", mesh.euler))?;
            crate::bake::mesh::settings::euler_quaternion([*x, *y, *z], order)
        }
        [x, y, z, w] => {
            // Summed left to right, not by glam's `Quat::length` (pairwise): the same bits.
            let len = (x * x + y * y + z * z + w * w).sqrt();
            if len == 0.0 || !len.is_finite() {
                return Err("mesh.rotation: the quaternion has zero length".into());
            }
            [x / len, y / len, z / len, w / len]
        }
        other => {
            return Err(format!(
            "mesh.rotation has {} values: give 3 Euler angles (degrees) or a quaternion x, y, z, w",
            other.len()
        ))
        }
    };
    // Rotation columns scaled by their axis' scale, the offset last. glam doubles as
    // `y * (y + y)` where this once wrote `2.0 * (y * y)`: both exact, the same bits.
    Ok(gltf::Mat4::from_scale_rotation_translation(
        glam::Vec3::from(s),
        glam::Quat::from_array(rotation),
        glam::Vec3::from(mesh.offset),
    ))
}

/// A model file to bake and where its outputs go.
#[derive(Debug, Clone, Copy)]
pub struct ModelSource<'a> {
    /// The file's bytes.
    pub bytes: &'a [u8],
    /// The file's name or path (its extension tells OBJ from glTF).
    pub file_name: &'a str,
    /// The folder its side files (buffers, images, `.mtl`) resolve in, relative to the
    /// context's base: `""`, or a path ending in `/`.
    pub side_dir: &'a str,
    /// The output path without extension: `<stem>.hmesh`, `<stem>/tex_<i>.ktx2` …
    pub stem: &'a str,
    /// Only this scene (by name), rather than the default one.
    pub scene_name: Option<&'a str>,
    /// Only the mesh nodes (or meshes) of this name.
    pub mesh_name: Option<&'a str>,
}

/// Bakes a glTF, GLB or OBJ file; its buffers, images and material libraries are read
/// through `cx`, so they are recorded as the model's inputs.
pub fn bake_model(
    source: &Source<'_>,
    mesh: &MeshSettings,
    texture: &TextureSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let model = ModelSource {
        bytes: source.bytes(),
        file_name: source.rel(),
        side_dir: "",
        stem: source.stem(),
        scene_name: None,
        mesh_name: None,
    };
    let scene = import_model(&model, mesh, cx)?;
    bake_scene(&model, scene, mesh, texture, cx)
}

/// Bakes a model an asset file names (pak's `[mesh]`): as [`bake_model`], with the
/// outputs at `model.stem` and side files read from `model.side_dir`.
pub fn bake_named_model(
    model: &ModelSource<'_>,
    mesh: &MeshSettings,
    texture: &TextureSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let scene = import_model(model, mesh, cx)?;
    bake_scene(model, scene, mesh, texture, cx)
}

/// Imports a model's geometry, materials, skeleton and clips through `cx`.
pub fn import_model(
    model: &ModelSource<'_>,
    mesh: &MeshSettings,
    cx: &mut BakeContext<'_>,
) -> Result<gltf::Scene, PipelineError> {
    let user = settings_transform(mesh)?;
    let mut read = |path: &str| {
        cx.read(&format!("{}{path}", model.side_dir))
            .map_err(|e| e.to_string())
    };
    if usd::is_usd(model.file_name) {
        if model.scene_name.is_some() || model.mesh_name.is_some() {
            return Err("picking a scene or a mesh by name is not supported for USD layers".into());
        }
        let options = usd::UsdOptions {
            user,
            skins: !mesh.ignore_skin,
        };
        return usd::import(model.bytes, model.file_name, model.side_dir, &options, cx);
    }
    if model.file_name.to_ascii_lowercase().ends_with(".obj") {
        if model.scene_name.is_some() || model.mesh_name.is_some() {
            return Err("an OBJ file has no scenes or named meshes to pick from".into());
        }
        let mut scene = obj::import(model.bytes, &mut read)?;
        // OBJ has no node graph: only the settings' transform applies.
        for p in &mut scene.primitives {
            gltf::transform_primitive(p, &user);
        }
        Ok(scene)
    } else {
        let options = gltf::ImportOptions {
            merge: mesh.merge,
            skins: !mesh.ignore_skin,
            user,
            scene_name: model.scene_name,
            mesh_name: model.mesh_name,
        };
        Ok(gltf::import(model.bytes, &mut read, &options)?)
    }
}

/// The modes of a material's five texture slots, in `.hmat` order (base colour,
/// metallic-roughness, normal, occlusion, emissive).
const SLOT_MODES: [TextureMode; 5] = [
    TextureMode::Color,
    TextureMode::LinearColor,
    TextureMode::Normal,
    TextureMode::LinearColor,
    TextureMode::Color,
];

/// Whether material `m` samples image `image` in any slot.
fn material_uses(m: &gltf::Material, image: usize) -> bool {
    [
        m.base_color_tex,
        m.metallic_roughness_tex,
        m.normal_tex,
        m.occlusion_tex,
        m.emissive_tex,
    ]
    .into_iter()
    .chain(m.extensions.iter().map(|e| e.texture.map(|(t, _)| t)))
    .flatten()
    .any(|t| t.image == image)
}

/// The mode an extension's texture is baked in.
fn usage_mode(usage: gltf::TextureUse) -> TextureMode {
    match usage {
        gltf::TextureUse::Color => TextureMode::Color,
        gltf::TextureUse::Linear => TextureMode::LinearColor,
        gltf::TextureUse::Normal => TextureMode::Normal,
    }
}

/// The textures a model's materials use: each (image, mode) pair baked once. An image's first
/// mode (in slot order) is `<stem>/tex_<i>.ktx2`; another mode of the same image, e.g. an image
/// serving as base colour and as metallic-roughness, is a sibling `tex_<i>.<mode>.ktx2`
/// (`srgb`, `linear`, `normal`), so each use reads in its own colour space.
struct ModelTextures {
    first_mode: BTreeMap<usize, TextureMode>,
    /// (image, mode) in first-use order: the order textures are emitted in.
    order: Vec<(usize, TextureMode)>,
}

impl ModelTextures {
    /// The uses of the materials in `slots`, in slot order.
    fn collect(scene: &gltf::Scene, slots: &[usize]) -> Self {
        let mut first_mode = BTreeMap::new();
        let mut order = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for &m in slots {
            let material = &scene.materials[m];
            let uses = [
                material.base_color_tex,
                material.metallic_roughness_tex,
                material.normal_tex,
                material.occlusion_tex,
                material.emissive_tex,
            ]
            .into_iter()
            .zip(SLOT_MODES);
            let extension_uses = material
                .extensions
                .iter()
                .filter_map(|e| e.texture.map(|(t, usage)| (Some(t), usage_mode(usage))));
            for (texture, mode) in uses.chain(extension_uses) {
                let Some(texture) = texture else { continue };
                first_mode.entry(texture.image).or_insert(mode);
                if seen.insert((texture.image, mode)) {
                    order.push((texture.image, mode));
                }
            }
        }
        Self { first_mode, order }
    }

    /// The output path (without `.ktx2`) of `image` baked in `mode`.
    fn name(&self, stem: &str, image: usize, mode: TextureMode) -> String {
        if self.first_mode.get(&image) == Some(&mode) {
            return format!("{stem}/tex_{image}");
        }
        let suffix = match mode {
            TextureMode::Color => "srgb",
            TextureMode::LinearColor => "linear",
            TextureMode::Normal => "normal",
            TextureMode::Grayscale => "gray",
        };
        format!("{stem}/tex_{image}.{suffix}")
    }

    /// Encodes every (image, mode) in parallel on the bake's own pool (nested in the asset's
    /// job, so one large model keeps every worker busy) and emits them in use order, so the
    /// bake stays byte-identical for any thread count.
    fn encode(
        &self,
        scene: &gltf::Scene,
        stem: &str,
        texture_settings: &TextureSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        // Each image is a task of the bake's timings, nested in the model's.
        let parent = crate::bake::timings::current();
        let encode_one = |&(image, mode): &(usize, TextureMode)| {
            let Some(Some(bytes)) = scene.images.get(image) else {
                let why = scene.image_errors.get(image).cloned().flatten();
                let material = scene
                    .materials
                    .iter()
                    .find(|m| material_uses(m, image))
                    .map_or(String::new(), |m| format!(" {:?}", m.name));
                return Err(format!(
                    "image {image} is referenced by material{material} but could not be loaded{}",
                    why.map_or(String::new(), |why| format!(": {why}"))
                ));
            };
            let decoded = DecodedImage::decode(bytes, "", texture_settings.max_pixels)
                .map_err(|e| format!("image {image}: {e}"))?;
            texture::encode_decoded(vec![decoded], TextureShape::Single, mode, texture_settings)
                .map_err(|e| format!("image {image}: {e}"))
        };
        let encoded: Vec<Result<texture::EncodedTexture, String>> =
            crate::bake::timings::fork(|| {
                self.order
                    .par_iter()
                    .map(|item| {
                        let label = format!("image{}", item.0);
                        crate::bake::timings::slice(parent.as_ref(), &label, || encode_one(item))
                    })
                    .collect()
            });
        for (&(image, mode), result) in self.order.iter().zip(encoded) {
            let encoded = result?;
            cx.emit(
                Output::new(
                    AssetKind::TEXTURE.file_name(&self.name(stem, image, mode)),
                    AssetKind::TEXTURE,
                    encoded.ktx2,
                )
                .color_space(encoded.color_space),
            );
        }
        Ok(())
    }
}

/// Turns an imported scene into `.hmesh`, `.hmat`, `tex_<i>.ktx2` and `.hanim`.
fn bake_scene(
    model: &ModelSource<'_>,
    scene: gltf::Scene,
    mesh_settings: &MeshSettings,
    texture_settings: &TextureSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    for warning in &scene.warnings {
        cx.warn(warning);
    }
    let stem = model.stem;
    let source_ref = stem.to_ascii_lowercase();

    // Dense material slots in first-use order; `slot_of` maps a source material to its slot.
    let mut slots: Vec<usize> = Vec::new();
    let mut slot_of: HashMap<usize, u32> = HashMap::new();
    for primitive in &scene.primitives {
        if let Some(m) = primitive.material {
            slot_of.entry(m).or_insert_with(|| {
                slots.push(m);
                slots.len() as u32 - 1
            });
        }
    }
    let leaves = material_leaves(
        &scene
            .materials
            .iter()
            .map(|m| m.name.clone())
            .collect::<Vec<_>>(),
    );
    let material_refs: Vec<u64> = slots
        .iter()
        .map(|m| hash_asset_ref(&format!("{source_ref}/{}", leaves[*m])))
        .collect();

    let textures = ModelTextures::collect(&scene, &slots);
    textures.encode(&scene, stem, texture_settings, cx)?;
    // Texture refs go through the context: recorded, and checked to exist at the end.
    let mut texture_ref = |t: Option<gltf::TextureRef>, mode: TextureMode| {
        t.map(|t| cx.reference(&textures.name(stem, t.image, mode)))
            .unwrap_or(0)
    };
    let mut rows = Vec::with_capacity(slots.len());
    let mut properties = Vec::new();
    for (row, &m) in slots.iter().enumerate() {
        let material = &scene.materials[m];
        rows.push(material_row(
            material,
            row as u32,
            &mut texture_ref,
            &mut properties,
        ));
    }

    let inputs: Vec<process::SubmeshInput<'_>> = scene
        .primitives
        .iter()
        .map(|p| {
            let slot = p.material.and_then(|m| slot_of.get(&m).copied());
            process::SubmeshInput {
                primitive: p,
                material_slot: slot.unwrap_or(NO_MATERIAL),
                wants_tangents: p
                    .material
                    .is_some_and(|m| scene.materials[m].normal_tex.is_some()),
            }
        })
        .collect();
    if inputs.is_empty() {
        cx.warn("no triangle geometry");
    }
    let mesh = process::build(
        &inputs,
        &material_refs,
        scene.skeleton.as_deref(),
        &scene.morph_weights,
        mesh_settings,
    )?;
    cx.emit(Output::new(
        AssetKind::MESH.file_name(stem),
        AssetKind::MESH,
        mesh,
    ));
    let material_names = slots.iter().map(|&m| scene.materials[m].name.clone());
    cx.emit(
        Output::new(
            AssetKind::MATERIAL.file_name(stem),
            AssetKind::MATERIAL,
            hmat::write_with_properties(&rows, &properties),
        )
        .sub_assets(material_names.collect()),
    );
    if !scene.clips.is_empty() {
        cx.emit(
            Output::new(
                AssetKind::ANIMATION.file_name(stem),
                AssetKind::ANIMATION,
                crate::format::hanim::write(&scene.clips),
            )
            .sub_assets(scene.clips.iter().map(|c| c.name.clone()).collect()),
        );
    }
    Ok(())
}

/// Material `s` as `.hmat` row `row`: its factors and slot textures, and its property records
/// (per-slot UV transforms and sets, PBR extensions) pushed onto `properties`. `texture_ref`
/// gives (and records) a texture's reference for the mode a slot samples it in.
fn material_row(
    s: &gltf::Material,
    row: u32,
    texture_ref: &mut impl FnMut(Option<gltf::TextureRef>, TextureMode) -> u64,
    properties: &mut Vec<MaterialProperty>,
) -> GpuMaterial {
    // Textures of one material with different UV transforms: each slot's transform as a
    // property record (a shared one is already in the UVs).
    let textures = [
        s.base_color_tex,
        s.metallic_roughness_tex,
        s.normal_tex,
        s.occlusion_tex,
        s.emissive_tex,
    ];
    for (slot, (transform, texture)) in s.texture_transforms.iter().zip(textures).enumerate() {
        let (Some(t), Some(texture)) = (transform, texture) else {
            continue;
        };
        let texture = texture_ref(Some(texture), SLOT_MODES[slot]);
        properties.push(MaterialProperty {
            row,
            id: property::UV_TRANSFORM[slot],
            value: [t.offset[0], t.offset[1], t.scale[0], t.scale[1]],
            texture,
        });
        if t.rotation != 0.0 {
            properties.push(MaterialProperty {
                row,
                id: property::UV_ROTATION[slot],
                value: [t.rotation, 0.0, 0.0, 0.0],
                texture,
            });
        }
    }
    for (slot, texture) in textures.iter().enumerate() {
        if let (true, Some(texture)) = (s.second_uv_set[slot], texture) {
            properties.push(MaterialProperty {
                row,
                id: property::UV_SET[slot],
                value: [1.0, 0.0, 0.0, 0.0],
                texture: texture_ref(Some(*texture), SLOT_MODES[slot]),
            });
        }
    }
    for extension in &s.extensions {
        properties.push(MaterialProperty {
            row,
            id: extension.id,
            value: extension.value,
            texture: extension
                .texture
                .map(|(t, usage)| texture_ref(Some(t), usage_mode(usage)))
                .unwrap_or(0),
        });
    }
    GpuMaterial {
        base_color_factor: s.base_color,
        emissive_factor: s.emissive,
        metallic_factor: s.metallic,
        roughness_factor: s.roughness,
        normal_scale: s.normal_scale,
        occlusion_strength: s.occlusion_strength,
        alpha_cutoff: s.alpha_cutoff,
        flags: (s.double_sided as u32 * FLAG_DOUBLE_SIDED) | (s.alpha_mode << ALPHA_MODE_SHIFT),
        pad: 0,
        base_color_tex: texture_ref(s.base_color_tex, SLOT_MODES[0]),
        metallic_roughness_tex: texture_ref(s.metallic_roughness_tex, SLOT_MODES[1]),
        normal_tex: texture_ref(s.normal_tex, SLOT_MODES[2]),
        occlusion_tex: texture_ref(s.occlusion_tex, SLOT_MODES[3]),
        emissive_tex: texture_ref(s.emissive_tex, SLOT_MODES[4]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specs_worked_example_of_material_refs() {
        // chair.glb with materials ["Wood", "", "Leather", "Wood"], submeshes using 2 then 0.
        let names: Vec<String> = ["Wood", "", "Leather", "Wood"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let leaves = material_leaves(&names);
        assert_eq!(
            leaves,
            ["material_0", "material_1", "leather", "material_3"]
        );
        let source = source_ref("models/chair.glb");
        let mtrl: Vec<u64> = [2usize, 0]
            .iter()
            .map(|m| hash_asset_ref(&format!("{source}/{}", leaves[*m])))
            .collect();
        assert_eq!(
            mtrl,
            [
                hash_asset_ref("models/chair/leather"),
                hash_asset_ref("models/chair/material_0")
            ]
        );
    }
}
