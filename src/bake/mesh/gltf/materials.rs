//! Materials: core PBR fields, texture slots, `KHR_texture_transform` and the PBR extensions.

use super::{Material, MaterialExtension, Scene, TextureRef, TextureUse, UvTransform};
use crate::format::hmat::property;
use gltf::json::Value;
use std::collections::HashMap;
use TextureUse::{Color, Linear, Normal};

/// The document's materials, into `scene.materials`; a `KHR_texture_transform` shared by all
/// of a material's textures goes into its primitives' UVs (so read the primitives first).
pub(super) fn read_materials(document: &gltf::Document, scene: &mut Scene) {
    let mut uv_transforms: HashMap<usize, UvTransform> = Default::default();
    for material in document.materials() {
        scene.materials.push(read_material(&material, document));
        let baked = scene.materials.len() - 1;
        if let Some(shared) = texture_transforms(&material, scene) {
            uv_transforms.insert(baked, shared);
        }
    }
    // One transform shared by all of a material's textures goes into its primitives' UVs
    // (each primitive has vertices of its own, so no other material's UVs move).
    for primitive in &mut scene.primitives {
        let shared = primitive.material.and_then(|m| uv_transforms.get(&m));
        if let (Some(shared), Some(uvs)) = (shared, &mut primitive.uvs) {
            uvs.iter_mut().for_each(|uv| *uv = shared.apply(*uv));
        }
    }
}

/// A material's core fields, texture slots and PBR extensions (texture transforms and UV
/// sets are filled in by [`texture_transforms`]).
fn read_material(material: &gltf::Material<'_>, document: &gltf::Document) -> Material {
    let pbr = material.pbr_metallic_roughness();
    let texture = |info: Option<gltf::texture::Info<'_>>| {
        info.map(|i| TextureRef {
            image: i.texture().source().index(),
        })
    };
    let emissive_strength = material.emissive_strength().unwrap_or(1.0);
    let alpha_mode = match material.alpha_mode() {
        gltf::material::AlphaMode::Opaque => 0,
        gltf::material::AlphaMode::Mask => 1,
        gltf::material::AlphaMode::Blend => 2,
    };
    Material {
        name: material.name().unwrap_or("").to_owned(),
        base_color: pbr.base_color_factor(),
        emissive: material.emissive_factor().map(|c| c * emissive_strength),
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
        normal_scale: material.normal_texture().map(|n| n.scale()).unwrap_or(1.0),
        occlusion_strength: material
            .occlusion_texture()
            .map(|o| o.strength())
            .unwrap_or(1.0),
        alpha_cutoff: material.alpha_cutoff().unwrap_or(0.5),
        alpha_mode,
        double_sided: material.double_sided(),
        base_color_tex: texture(pbr.base_color_texture()),
        metallic_roughness_tex: texture(pbr.metallic_roughness_texture()),
        normal_tex: material.normal_texture().map(|n| TextureRef {
            image: n.texture().source().index(),
        }),
        occlusion_tex: material.occlusion_texture().map(|o| TextureRef {
            image: o.texture().source().index(),
        }),
        emissive_tex: texture(material.emissive_texture()),
        texture_transforms: [None; 5],
        second_uv_set: [false; 5],
        extensions: material_extensions(material, document),
    }
}

/// The `KHR_texture_transform` of each textured slot of `material` (the last one pushed to
/// `scene.materials`): one transform shared by every textured slot is returned, to be baked
/// into the UVs; different ones are kept in the material's `texture_transforms`. A slot that
/// asks for another UV set than the first is warned about (.hmesh keeps one).
fn texture_transforms(material: &gltf::Material<'_>, scene: &mut Scene) -> Option<UvTransform> {
    let typed = |info: Option<gltf::texture::Info<'_>>| {
        info.map(|info| {
            let Some(t) = info.texture_transform() else {
                return (
                    None,
                    (info.tex_coord() != 0).then_some(info.tex_coord() as u64),
                );
            };
            let transform = UvTransform {
                offset: t.offset(),
                rotation: t.rotation(),
                scale: t.scale(),
            };
            let tex_coord = t.tex_coord().unwrap_or(info.tex_coord());
            (
                transform.is_kept().then_some(transform),
                (tex_coord != 0).then_some(tex_coord as u64),
            )
        })
    };
    let raw = |value: Option<&gltf::json::Value>, tex_coord: u32| match value {
        Some(value) => {
            let (transform, set) = UvTransform::from_json(value);
            (
                transform,
                set.or((tex_coord != 0).then_some(tex_coord as u64)),
            )
        }
        None => (None, (tex_coord != 0).then_some(tex_coord as u64)),
    };
    let pbr = material.pbr_metallic_roughness();
    let slots: [Option<(Option<UvTransform>, Option<u64>)>; 5] = [
        typed(pbr.base_color_texture()),
        typed(pbr.metallic_roughness_texture()),
        material
            .normal_texture()
            .map(|n| raw(n.extension_value("KHR_texture_transform"), n.tex_coord())),
        material
            .occlusion_texture()
            .map(|o| raw(o.extension_value("KHR_texture_transform"), o.tex_coord())),
        typed(material.emissive_texture()),
    ];
    let name = material.name().unwrap_or("");
    // TEXCOORD_1 is kept (the slot says so in the material); later sets are not.
    let mut second_set = [false; 5];
    for (slot, (_, set)) in slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s.as_ref()?)))
    {
        match set {
            Some(1) => second_set[slot] = true,
            Some(set) => scene.warnings.push(format!(
                "material {name:?}: a texture samples TEXCOORD_{set}, which is not kept (.hmesh keeps two UV sets); it samples TEXCOORD_0"
            )),
            None => {}
        }
    }
    if let Some(baked) = scene.materials.last_mut() {
        baked.second_uv_set = second_set;
    }
    let extensions = scene
        .materials
        .last()
        .map(|m| m.extensions.clone())
        .unwrap_or_default();
    let extension_transforms = extensions
        .iter()
        .filter(|e| e.texture.is_some())
        .map(|e| e.transform);
    let used: Vec<Option<UvTransform>> = slots
        .iter()
        .flatten()
        .map(|(t, _)| *t)
        .chain(extension_transforms)
        .collect();
    let first = *used.first()?;
    // A transform goes into TEXCOORD_0 only when every texture samples that set.
    if used.iter().all(|t| *t == first) && !second_set.contains(&true) {
        return first;
    }
    for extension in extensions.iter().filter(|e| e.transform.is_some()) {
        scene.warnings.push(format!(
            "material {name:?}: the KHR_texture_transform of extension texture (property {}) differs from the material's other textures' and is not kept",
            extension.id
        ));
    }
    let kept = slots.map(|slot| slot.and_then(|(t, _)| t));
    if let Some(baked) = scene.materials.last_mut() {
        baked.texture_transforms = kept;
    }
    None
}

/// A number member of an extension's JSON, or `default`.
fn number(v: &Value, key: &str, default: f32) -> f32 {
    v.get(key)
        .and_then(Value::as_f64)
        .map_or(default, |n| n as f32)
}

/// An RGB member of an extension's JSON, or `default`.
fn rgb(v: &Value, key: &str, default: [f32; 3]) -> [f32; 3] {
    v.get(key)
        .and_then(Value::as_array)
        .and_then(|a| {
            Some([
                a.first()?.as_f64()? as f32,
                a.get(1)?.as_f64()? as f32,
                a.get(2)?.as_f64()? as f32,
            ])
        })
        .unwrap_or(default)
}

/// An extension's texture: its image and encoding, and its own `KHR_texture_transform`.
type FoundTexture = ((TextureRef, TextureUse), Option<UvTransform>);

/// The extensions' records as they are read, in property id order.
struct Extensions<'d> {
    document: &'d gltf::Document,
    out: Vec<MaterialExtension>,
}

impl Extensions<'_> {
    /// The texture info member `key` of an extension's JSON, encoded as `usage`.
    fn texture(&self, v: &Value, key: &str, usage: TextureUse) -> Option<FoundTexture> {
        let info = v.get(key)?;
        let texture = self
            .document
            .textures()
            .nth(info.get("index")?.as_u64()? as usize)?;
        let transform = info
            .get("extensions")
            .and_then(|e| e.get("KHR_texture_transform"))
            .and_then(|t| UvTransform::from_json(t).0);
        Some((
            (
                TextureRef {
                    image: texture.source().index(),
                },
                usage,
            ),
            transform,
        ))
    }

    fn push(&mut self, id: u32, value: [f32; 4], found: Option<FoundTexture>) {
        self.out.push(MaterialExtension {
            id,
            // JSON numbers past f32's range would not be finite.
            value: value.map(|x| if x.is_finite() { x } else { 0.0 }),
            texture: found.map(|(t, _)| t),
            transform: found.and_then(|(_, transform)| transform),
        })
    }

    fn clearcoat(&mut self, v: &Value) {
        let value = [
            number(v, "clearcoatFactor", 0.0),
            number(v, "clearcoatRoughnessFactor", 0.0),
            0.0,
            0.0,
        ];
        let found = self.texture(v, "clearcoatTexture", Linear);
        self.push(property::CLEARCOAT, value, found);
        if let Some(found) = self.texture(v, "clearcoatRoughnessTexture", Linear) {
            self.push(property::CLEARCOAT_ROUGHNESS, [0.0; 4], Some(found));
        }
        if let Some(found) = self.texture(v, "clearcoatNormalTexture", Normal) {
            let scale = v
                .get("clearcoatNormalTexture")
                .map_or(1.0, |t| number(t, "scale", 1.0));
            self.push(
                property::CLEARCOAT_NORMAL,
                [scale, 0.0, 0.0, 0.0],
                Some(found),
            );
        }
    }

    fn sheen(&mut self, v: &Value) {
        let [r, g, b] = rgb(v, "sheenColorFactor", [0.0; 3]);
        let roughness = number(v, "sheenRoughnessFactor", 0.0);
        let found = self.texture(v, "sheenColorTexture", Color);
        self.push(property::SHEEN, [r, g, b, roughness], found);
        // Its alpha channel: linear in sRGB textures too, so it shares the color map's
        // encoding (the two are often one image).
        if let Some(found) = self.texture(v, "sheenRoughnessTexture", Color) {
            self.push(property::SHEEN_ROUGHNESS, [0.0; 4], Some(found));
        }
    }

    fn specular(&mut self, v: &Value) {
        let factor = number(v, "specularFactor", 1.0);
        // Alpha again: shares the specular color map's encoding.
        let found = self.texture(v, "specularTexture", Color);
        self.push(property::SPECULAR, [factor, 0.0, 0.0, 0.0], found);
        let [r, g, b] = rgb(v, "specularColorFactor", [1.0; 3]);
        let found = self.texture(v, "specularColorTexture", Color);
        self.push(property::SPECULAR_COLOR, [r, g, b, 0.0], found);
    }

    fn volume(&mut self, v: &Value) {
        let distance = number(v, "attenuationDistance", 0.0);
        let value = [
            number(v, "thicknessFactor", 0.0),
            if distance.is_finite() { distance } else { 0.0 },
            0.0,
            0.0,
        ];
        let found = self.texture(v, "thicknessTexture", Linear);
        self.push(property::VOLUME, value, found);
        let [r, g, b] = rgb(v, "attenuationColor", [1.0; 3]);
        self.push(property::VOLUME_ATTENUATION, [r, g, b, 0.0], None);
    }
}

/// The PBR extensions of `material` hearth keeps, read from their JSON (absent members take
/// the extensions' defaults), in property id order.
fn material_extensions(
    material: &gltf::Material<'_>,
    document: &gltf::Document,
) -> Vec<MaterialExtension> {
    let mut read = Extensions {
        document,
        out: Vec::new(),
    };
    // The material's extensions as JSON, serialized back from the parsed document rather than
    // through `extension_value`: a build that turns on gltf's typed extension features (Bevy's
    // glTF loader does, and cargo unifies features) moves those extensions out of the untyped
    // map that `extension_value` reads, and the bake would silently lose them.
    let json = material
        .index()
        .and_then(|i| document.as_json().materials.get(i))
        .and_then(|m| m.extensions.as_ref())
        .and_then(|e| gltf::json::serialize::to_value(e).ok());
    let extension = |name: &str| json.as_ref().and_then(|v| v.get(name));
    if let Some(v) = extension("KHR_materials_transmission") {
        let factor = number(v, "transmissionFactor", 0.0);
        let found = read.texture(v, "transmissionTexture", Linear);
        read.push(property::TRANSMISSION, [factor, 0.0, 0.0, 0.0], found);
    }
    if let Some(v) = extension("KHR_materials_clearcoat") {
        read.clearcoat(v);
    }
    if let Some(v) = extension("KHR_materials_sheen") {
        read.sheen(v);
    }
    if let Some(v) = extension("KHR_materials_ior") {
        read.push(property::IOR, [number(v, "ior", 1.5), 0.0, 0.0, 0.0], None);
    }
    if let Some(v) = extension("KHR_materials_specular") {
        read.specular(v);
    }
    if let Some(v) = extension("KHR_materials_volume") {
        read.volume(v);
    }
    if extension("KHR_materials_unlit").is_some() {
        read.push(property::UNLIT, [0.0; 4], None);
    }
    read.out
}
