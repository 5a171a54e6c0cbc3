//! `.hmat` → one Bevy [`StandardMaterial`] per row, textures resolved through the source's
//! `assets.hman` and loaded by Bevy's own image loader.

use crate::HearthLoadError;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext};
use bevy::color::{Color, LinearRgba};
use bevy::image::Image;
use bevy::math::{Affine2, Vec2};
use bevy::mesh::UvChannel;
use bevy::pbr::StandardMaterial;
use bevy::reflect::TypePath;
use hearth::format::hman;
use hearth::format::hmat::property;
use hearth::{AlphaMode, GpuMaterial, MaterialTable};
use std::collections::HashMap;

/// A loaded `.hmat`: one material per row (labels `Material{i}`), row `i` being the mesh's
/// material slot `i`.
#[derive(Asset, TypePath, Debug)]
pub struct HearthMaterials {
    /// The rows' materials, in slot order.
    pub materials: Vec<Handle<StandardMaterial>>,
}

/// The label of row `slot`'s material in a `.hmat`.
pub(crate) fn material_label(slot: usize) -> String {
    format!("Material{slot}")
}

/// Loads `.hmat` files as [`HearthMaterials`].
#[derive(Default, TypePath)]
pub struct HearthMaterialLoader;

impl AssetLoader for HearthMaterialLoader {
    type Asset = HearthMaterials;
    type Settings = ();
    type Error = HearthLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<HearthMaterials, HearthLoadError> {
        let path = load_context.path().clone();
        let table: hearth::Materials = crate::read_asset(reader, &path).await?;
        let view = table.view();
        let textures = texture_paths(load_context, view).await?;
        let mut materials = Vec::with_capacity(view.rows.len());
        for (slot, row) in view.rows.iter().enumerate() {
            let mut texture = |hash: u64| -> Option<Handle<Image>> {
                let path = textures.get(&hash)?;
                Some(load_context.load(path.clone()))
            };
            let material = standard_material(view, slot as u32, row, &mut texture);
            materials.push(load_context.add_labeled_asset(material_label(slot), material));
        }
        Ok(HearthMaterials { materials })
    }

    fn extensions(&self) -> &[&str] {
        &["hmat"]
    }
}

/// Every texture hash of `table`, resolved to its asset path through the `assets.hman` at the
/// root of the table's source: a hash it lacks is an error naming the `.hmat`.
async fn texture_paths(
    load_context: &mut LoadContext<'_>,
    table: &MaterialTable<'_>,
) -> Result<HashMap<u64, AssetPath<'static>>, HearthLoadError> {
    let path = load_context.path().clone();
    let mut paths = HashMap::new();
    if table.texture_refs().next().is_none() {
        return Ok(paths);
    }
    let source = path.source().clone_owned();
    let manifest_path = AssetPath::from(hman::MANIFEST_PATH).with_source(source.clone());
    let manifest = load_context
        .read_asset_bytes(manifest_path)
        .await
        .map_err(|e| {
            HearthLoadError::new(&path, format!("its textures' {}: {e}", hman::MANIFEST_PATH))
        })?;
    let rows = hman::parse(&manifest)
        .map_err(|e| HearthLoadError::new(&path, format!("{}: {e}", hman::MANIFEST_PATH)))?;
    for hash in table.texture_refs() {
        let row = hman::find(&rows, hash).ok_or_else(|| {
            HearthLoadError::new(
                &path,
                format!("texture {hash:016x} is not in {}", hman::MANIFEST_PATH),
            )
        })?;
        let texture = AssetPath::from(row.path.to_owned()).with_source(source.clone());
        paths.insert(hash, texture.into_owned());
    }
    Ok(paths)
}

/// Row `slot` of `table` as a Bevy material; `texture` gives the image of a texture hash
/// (`None` for 0).
fn standard_material(
    table: &MaterialTable<'_>,
    slot: u32,
    row: &GpuMaterial,
    texture: &mut impl FnMut(u64) -> Option<Handle<Image>>,
) -> StandardMaterial {
    let [r, g, b, a] = row.base_color_factor;
    let [er, eg, eb] = row.emissive_factor;
    let value = |id: u32| table.property(slot, id).map(|p| p.value);
    let channel = |texture_slot: usize| {
        if value(property::UV_SET[texture_slot]).is_some() {
            UvChannel::Uv1
        } else {
            UvChannel::Uv0
        }
    };
    let mut material = StandardMaterial {
        base_color: Color::linear_rgba(r, g, b, a),
        emissive: LinearRgba::rgb(er, eg, eb),
        metallic: row.metallic_factor,
        perceptual_roughness: row.roughness_factor,
        base_color_texture: texture(row.base_color_tex),
        metallic_roughness_texture: texture(row.metallic_roughness_tex),
        normal_map_texture: texture(row.normal_tex),
        occlusion_texture: texture(row.occlusion_tex),
        emissive_texture: texture(row.emissive_tex),
        base_color_channel: channel(0),
        metallic_roughness_channel: channel(1),
        normal_map_channel: channel(2),
        occlusion_channel: channel(3),
        emissive_channel: channel(4),
        alpha_mode: match row.alpha() {
            AlphaMode::Mask => bevy::prelude::AlphaMode::Mask(row.alpha_cutoff),
            AlphaMode::Blend => bevy::prelude::AlphaMode::Blend,
            // Opaque, and glTF's default for a mode this version does not know.
            _ => bevy::prelude::AlphaMode::Opaque,
        },
        double_sided: row.double_sided(),
        unlit: value(property::UNLIT).is_some(),
        ..StandardMaterial::default()
    };
    if row.double_sided() {
        material.cull_mode = None;
    }
    // Bevy has one UV transform per material: the base colour slot's, as Bevy's glTF loader
    // does (hearth writes per-slot transforms only when the slots' differ).
    if let Some([offset_u, offset_v, scale_u, scale_v]) = value(property::UV_TRANSFORM[0]) {
        let rotation = value(property::UV_ROTATION[0]).map_or(0.0, |v| v[0]);
        let (sin, cos) = rotation.sin_cos();
        material.uv_transform = Affine2::from_cols(
            Vec2::new(cos * scale_u, -sin * scale_u),
            Vec2::new(sin * scale_v, cos * scale_v),
            Vec2::new(offset_u, offset_v),
        );
    }
    if let Some([ior, ..]) = value(property::IOR) {
        material.ior = ior;
    }
    if let Some([factor, ..]) = value(property::TRANSMISSION) {
        material.specular_transmission = factor;
    }
    if let Some([thickness, distance, ..]) = value(property::VOLUME) {
        material.thickness = thickness;
        if distance > 0.0 {
            material.attenuation_distance = distance;
        }
    }
    if let Some([r, g, b, _]) = value(property::VOLUME_ATTENUATION) {
        material.attenuation_color = Color::linear_rgb(r, g, b);
    }
    if let Some([factor, roughness, ..]) = value(property::CLEARCOAT) {
        material.clearcoat = factor;
        material.clearcoat_perceptual_roughness = roughness;
    }
    material
}
