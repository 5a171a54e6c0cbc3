//! The mesh pipeline: glTF/GLB -> `.hmesh` (geometry), `.hmat` (materials) and
//! `<stem>/tex_<i>.ktx2` (the images its materials use), as assetc specifies.

pub mod gltf;
pub mod obj;
pub mod process;

use crate::bake::pipeline::{BakedAsset, BakedFile, ManifestRow};
use crate::bake::settings::Settings;
use crate::bake::texture::{self, pixels::Pixels, TextureMode, TextureShape};
use crate::format::hash::{hash_asset_ref, hash_runtime_path};
use crate::format::hman::AssetKind;
use crate::format::hmat::{self, GpuMaterial, ALPHA_MODE_SHIFT, FLAG_DOUBLE_SIDED};
use crate::format::hmesh::NO_MATERIAL;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The files a `.gltf` refers to by relative URI (buffers and images), to watch and hash.
pub fn external_files(bytes: &[u8], base: &Path) -> Vec<PathBuf> {
    let Ok(gltf) = ::gltf::Gltf::from_slice_without_validation(bytes) else {
        return Vec::new();
    };
    let buffers = gltf.document.buffers().filter_map(|b| match b.source() {
        ::gltf::buffer::Source::Uri(uri) => Some(uri.to_owned()),
        ::gltf::buffer::Source::Bin => None,
    });
    let images = gltf.document.images().filter_map(|i| match i.source() {
        ::gltf::image::Source::Uri { uri, .. } => Some(uri.to_owned()),
        ::gltf::image::Source::View { .. } => None,
    });
    let mut files: Vec<PathBuf> = buffers
        .chain(images)
        .filter(|uri| !uri.starts_with("data:") && !uri.contains("://"))
        .map(|uri| base.join(gltf::percent_decode(&uri)))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The canonical source ref: the source path without its extension, lowercased.
pub fn source_ref(rel: &str) -> String {
    rel.rsplit_once('.')
        .map(|(stem, _)| stem)
        .unwrap_or(rel)
        .to_ascii_lowercase()
}

/// Material leaf names: the lowercased name when non-empty and unique in the source's
/// material array, else `material_<index>` (stable whatever the submeshes reference).
pub fn material_leaves(names: &[String]) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let unique = names
                .iter()
                .filter(|n| n.eq_ignore_ascii_case(name))
                .count()
                == 1;
            if !name.is_empty() && unique {
                name.to_lowercase()
            } else {
                format!("material_{i}")
            }
        })
        .collect()
}

/// The transform the mesh settings ask for: flips, then scale, then rotation, then offset.
pub fn settings_transform(
    mesh: &crate::bake::settings::MeshSettings,
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
    let q: [f32; 4] = match mesh.rotation.as_slice() {
        [] => [0.0, 0.0, 0.0, 1.0],
        [x, y, z] => {
            // Euler degrees, applied x then y then z: q = qz * qy * qx.
            let half = |deg: f32| (deg.to_radians() * 0.5).sin_cos();
            let ((sx, cx), (sy, cy), (sz, cz)) = (half(*x), half(*y), half(*z));
            [
                sx * cy * cz - cx * sy * sz,
                cx * sy * cz + sx * cy * sz,
                cx * cy * sz - sx * sy * cz,
                cx * cy * cz + sx * sy * sz,
            ]
        }
        [x, y, z, w] => {
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
    let [x, y, z, w] = q;
    // Rotation matrix columns, each scaled by its axis' scale; translation in the last column.
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let column = |c: usize| [r[c][0] * s[c], r[c][1] * s[c], r[c][2] * s[c], 0.0];
    Ok([
        column(0),
        column(1),
        column(2),
        [mesh.offset[0], mesh.offset[1], mesh.offset[2], 1.0],
    ])
}

/// Bakes a glTF, GLB or OBJ file.
pub fn bake_model(
    rel: &str,
    source: &Path,
    bytes: &[u8],
    settings: &Settings,
) -> Result<BakedAsset, String> {
    let base = source.parent().unwrap_or(Path::new("."));
    let user = settings_transform(&settings.mesh)?;
    if rel.to_ascii_lowercase().ends_with(".obj") {
        let mut scene = obj::import(bytes, base)?;
        // OBJ has no node graph: only the settings' transform applies.
        for p in &mut scene.primitives {
            gltf::transform_primitive(p, &user);
        }
        return bake_scene(rel, source, scene, settings);
    }
    let scene = gltf::import(
        bytes,
        base,
        settings.mesh.merge,
        !settings.mesh.ignore_skin,
        &user,
    )?;
    bake_scene(rel, source, scene, settings)
}

/// Turns an imported scene into `.hmesh`, `.hmat`, `tex_<i>.ktx2` and `.hanim`.
fn bake_scene(
    rel: &str,
    source: &Path,
    scene: gltf::Scene,
    settings: &Settings,
) -> Result<BakedAsset, String> {
    let mut warnings: Vec<String> = scene
        .warnings
        .iter()
        .map(|w| format!("{}: {w}", source.display()))
        .collect();
    let stem = rel.rsplit_once('.').map(|(s, _)| s).unwrap_or(rel);
    let source_ref = source_ref(rel);

    // Dense material slots in first-use order.
    let mut slots: Vec<usize> = Vec::new();
    for primitive in &scene.primitives {
        if let Some(m) = primitive.material {
            if !slots.contains(&m) {
                slots.push(m);
            }
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

    // Each image once, in the mode of the slot that uses it first.
    let mut image_modes: BTreeMap<usize, TextureMode> = BTreeMap::new();
    let mut image_order: Vec<usize> = Vec::new();
    for &m in &slots {
        let material = &scene.materials[m];
        let uses = [
            (material.base_color_tex, TextureMode::Color),
            (material.metallic_roughness_tex, TextureMode::LinearColor),
            (material.normal_tex, TextureMode::Normal),
            (material.occlusion_tex, TextureMode::LinearColor),
            (material.emissive_tex, TextureMode::Color),
        ];
        for (texture, mode) in uses {
            let Some(texture) = texture else { continue };
            match image_modes.get(&texture.image) {
                None => {
                    image_modes.insert(texture.image, mode);
                    image_order.push(texture.image);
                }
                Some(first) if *first != mode => warnings.push(format!(
                    "{}: image {} is used as {first:?} and as {mode:?}; the first use wins",
                    source.display(),
                    texture.image
                )),
                Some(_) => {}
            }
        }
    }
    let tex_ref = |image: usize| hash_asset_ref(&format!("{source_ref}/tex_{image}"));
    let mut files = Vec::new();
    for image in image_order {
        let mode = image_modes[&image];
        let Some(Some(bytes)) = scene.images.get(image) else {
            return Err(format!(
                "image {image} is referenced by a material but could not be loaded"
            ));
        };
        let (pixels, _) = Pixels::decode(bytes, "").map_err(|e| format!("image {image}: {e}"))?;
        let encoded = texture::encode(&[pixels], TextureShape::Single, mode, &settings.texture)
            .map_err(|e| format!("image {image}: {e}"))?;
        let path = format!("{stem}/tex_{image}.ktx2");
        let row = ManifestRow {
            hash: hash_runtime_path(&path),
            kind: AssetKind::TEXTURE,
            color_space: encoded.color_space,
        };
        debug_assert_eq!(row.hash, tex_ref(image));
        files.push(BakedFile {
            path,
            bytes: encoded.ktx2,
            manifest: Some(row),
        });
    }

    let rows: Vec<GpuMaterial> = slots
        .iter()
        .map(|&m| {
            let s = &scene.materials[m];
            let reference = |t: Option<gltf::TextureRef>| t.map(|t| tex_ref(t.image)).unwrap_or(0);
            GpuMaterial {
                base_color_factor: s.base_color,
                emissive_factor: s.emissive,
                metallic_factor: s.metallic,
                roughness_factor: s.roughness,
                normal_scale: s.normal_scale,
                occlusion_strength: s.occlusion_strength,
                alpha_cutoff: s.alpha_cutoff,
                flags: (s.double_sided as u32 * FLAG_DOUBLE_SIDED)
                    | (s.alpha_mode << ALPHA_MODE_SHIFT),
                pad: 0,
                base_color_tex: reference(s.base_color_tex),
                metallic_roughness_tex: reference(s.metallic_roughness_tex),
                normal_tex: reference(s.normal_tex),
                occlusion_tex: reference(s.occlusion_tex),
                emissive_tex: reference(s.emissive_tex),
            }
        })
        .collect();

    let inputs: Vec<process::SubmeshInput<'_>> = scene
        .primitives
        .iter()
        .map(|p| {
            let slot = p.material.and_then(|m| slots.iter().position(|s| *s == m));
            process::SubmeshInput {
                primitive: p,
                material_slot: slot.map(|s| s as u32).unwrap_or(NO_MATERIAL),
                wants_tangents: p
                    .material
                    .is_some_and(|m| scene.materials[m].normal_tex.is_some()),
            }
        })
        .collect();
    if inputs.is_empty() {
        warnings.push(format!("{}: no triangle geometry", source.display()));
    }
    let mesh = process::build(
        &inputs,
        &material_refs,
        scene.skeleton.as_deref(),
        &settings.mesh,
    )?;
    let mesh_path = format!("{stem}.hmesh");
    let mat_path = format!("{stem}.hmat");
    files.push(BakedFile {
        manifest: Some(ManifestRow {
            hash: hash_runtime_path(&mesh_path),
            kind: AssetKind::MESH,
            color_space: crate::ColorSpace::Linear,
        }),
        path: mesh_path,
        bytes: mesh,
    });
    files.push(BakedFile {
        manifest: Some(ManifestRow {
            hash: hash_runtime_path(&mat_path),
            kind: AssetKind::MATERIAL,
            color_space: crate::ColorSpace::Linear,
        }),
        path: mat_path,
        bytes: hmat::write(&rows),
    });
    if scene.skeleton.is_some() && !scene.clips.is_empty() {
        let anim_path = format!("{stem}.hanim");
        files.push(BakedFile {
            manifest: Some(ManifestRow {
                hash: hash_runtime_path(&anim_path),
                kind: AssetKind::ANIMATION,
                color_space: crate::ColorSpace::Linear,
            }),
            path: anim_path,
            bytes: crate::format::hanim::write(&scene.clips),
        });
    }
    Ok(BakedAsset { files, warnings })
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
