//! `.hmat` → one Bevy [`StandardMaterial`] per row, textures resolved through the source's
//! `assets.hman` and loaded by Bevy's own image loader.

use crate::uv::{uv_mapping, UvMapping, SLOT_NAMES};
use crate::HearthLoadError;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext};
use bevy::color::{Color, LinearRgba};
use bevy::image::{
    Image, ImageAddressMode, ImageLoaderSettings, ImageSampler, ImageSamplerDescriptor,
};
use bevy::pbr::StandardMaterial;
use bevy::reflect::TypePath;
use bevy::render::render_resource::TextureFormat;
use hearth::format::hman;
use hearth::format::hmat::property;
use hearth::read::transcode::TranscodeTarget;
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
        let normal_maps = normal_maps(load_context, view, &textures).await;
        let mut materials = Vec::with_capacity(view.rows.len());
        for (slot, row) in view.rows.iter().enumerate() {
            let mut texture = |hash: u64| -> Option<Handle<Image>> {
                if let Some(handle) = normal_maps.get(&hash) {
                    return Some(handle.clone());
                }
                let path = textures.get(&hash)?;
                Some(
                    load_context
                        .load_builder()
                        .with_settings(|settings: &mut ImageLoaderSettings| {
                            settings.sampler = repeat_sampler();
                        })
                        .load(path.clone()),
                )
            };
            let uvs = uv_mapping(view, slot as u32);
            if !uvs.lost.is_empty() {
                let lost: Vec<_> = uvs.lost.iter().map(|&s| SLOT_NAMES[s]).collect();
                tracing::warn!(
                    "{path}: material {slot}: the {} texture's UV set and transform are a \
                     third pair, which Bevy's StandardMaterial cannot hold: drawn with another \
                     slot's",
                    lost.join(" and ")
                );
            }
            let material = standard_material(view, slot as u32, row, &uvs, &mut texture);
            materials.push(load_context.add_labeled_asset(material_label(slot), material));
        }
        Ok(HearthMaterials { materials })
    }

    fn extensions(&self) -> &[&str] {
        hearth::AssetKind::MATERIAL.extensions()
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

/// glTF's default sampler, which hearth's textures keep (a bake stores no sampler): linear,
/// repeating (UVs outside 0..1 are common, e.g. BoxTextured's).
fn repeat_sampler() -> ImageSampler {
    ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::Repeat,
        ..ImageSamplerDescriptor::linear()
    })
}

/// The normal maps of `table` as two-channel images (labels `NormalMap{hash}`): hearth bakes
/// them `rg01` (X in R, Y in G, Z rebuilt in the shader), and Bevy rebuilds Z only for a
/// two-channel format. Each level is decoded to RGBA8 (UASTC transcoded by hearth, split
/// across threads: Bevy 0.19's own UASTC-to-RGBA8 path slices the input wrongly and panics)
/// and narrowed to `Rg8Unorm`. A normal map hearth cannot decode here (a GPU-format bake) is
/// left to the `.ktx2` loader ([`HearthKtx2Loader`](crate::HearthKtx2Loader)).
async fn normal_maps(
    load_context: &mut LoadContext<'_>,
    table: &MaterialTable<'_>,
    textures: &HashMap<u64, AssetPath<'static>>,
) -> HashMap<u64, Handle<Image>> {
    let mut maps = HashMap::new();
    for row in table.rows.iter().filter(|row| row.normal_tex != 0) {
        let hash = row.normal_tex;
        let Some(path) = textures.get(&hash).filter(|_| !maps.contains_key(&hash)) else {
            continue;
        };
        let Ok(bytes) = load_context.read_asset_bytes(path.clone()).await else {
            continue;
        };
        let Some(image) = rg8_image(&bytes) else {
            continue;
        };
        let label = format!("NormalMap{hash:016x}");
        maps.insert(hash, load_context.add_labeled_asset(label, image));
    }
    maps
}

/// A KTX2 file's levels as one `Rg8Unorm` image (red and green of each texel), with the
/// repeating sampler; `None` when hearth cannot decode it to RGBA8 or it is not a plain 2D
/// texture.
fn rg8_image(bytes: &[u8]) -> Option<Image> {
    let ktx = hearth::Ktx2::parse(bytes).ok()?;
    if !crate::texture::is_plain_2d(&ktx) {
        return None;
    }
    let (width, height, _) = ktx.level_dimensions(0);
    let data = if ktx.is_uastc() {
        crate::texture::transcode_levels(&ktx, TranscodeTarget::Rgba8, 2).ok()?
    } else {
        let mut data = Vec::new();
        for level in 0..ktx.level_count() {
            let rgba = hearth::read::transcode::rgba8_image(&ktx, level).ok()?;
            data.extend(crate::texture::keep_channels(rgba, 2));
        }
        data
    };
    let mut image = Image {
        data: Some(data),
        sampler: repeat_sampler(),
        ..Image::default()
    };
    image.texture_descriptor.size = bevy::render::render_resource::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    image.texture_descriptor.format = TextureFormat::Rg8Unorm;
    image.texture_descriptor.mip_level_count = ktx.level_count();
    Some(image)
}

/// Row `slot` of `table` as a Bevy material, its slots' UVs mapped as `uvs` says; `texture`
/// gives the image of a texture hash (`None` for 0).
fn standard_material(
    table: &MaterialTable<'_>,
    slot: u32,
    row: &GpuMaterial,
    uvs: &UvMapping,
    texture: &mut impl FnMut(u64) -> Option<Handle<Image>>,
) -> StandardMaterial {
    let [r, g, b, a] = row.base_color_factor;
    let [er, eg, eb] = row.emissive_factor;
    let value = |id: u32| table.property(slot, id).map(|p| p.value);
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
        // In `.hmat` slot order.
        base_color_channel: uvs.channels[0].clone(),
        metallic_roughness_channel: uvs.channels[1].clone(),
        normal_map_channel: uvs.channels[2].clone(),
        occlusion_channel: uvs.channels[3].clone(),
        emissive_channel: uvs.channels[4].clone(),
        uv_transform: uvs.transform,
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
