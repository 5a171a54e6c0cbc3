//! Wavefront OBJ + MTL import (through `tobj`), into the same [`Scene`] glTF import yields.
//!
//! MTL mapping to `.hmat` rows: `Kd` -> base color RGB, `d` -> base color alpha (below 1:
//! BLEND), `map_Kd` -> base color texture, `map_Bump` / `bump` / `norm` -> normal texture,
//! `Ke` -> emissive, `map_Ke` -> emissive texture, `Pm` / `Pr` (the PBR extension) ->
//! metallic / roughness (defaults: metallic 0, roughness 1, as an OBJ is not metal).
//! Textures get indices in the order they first appear across the materials.

use crate::bake::mesh::gltf::{Material, Primitive, ReadSide, Scene, TextureRef};
use std::collections::BTreeMap;

/// MTL files written on Windows use backslashes.
fn normalize(path: &str) -> String {
    path.replace('\\', "/")
}

/// Imports an OBJ; `read` loads its material libraries and their maps.
pub fn import(bytes: &[u8], read: &mut ReadSide<'_>) -> Result<Scene, String> {
    let options = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
    };
    let mut reader = std::io::BufReader::new(bytes);
    // tobj indexes its arrays with the file's indices; a broken face must be an error, not a
    // crash of the build.
    // tobj wants a `Fn` material loader; the reader records what it reads, so it is `FnMut`.
    let reader_cell = std::cell::RefCell::new(&mut *read);
    let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tobj::load_obj_buf(&mut reader, &options, |p| {
            (reader_cell.borrow_mut())(&normalize(&p.to_string_lossy()))
                .map_err(|_| tobj::LoadError::OpenFileFailed)
                .and_then(|bytes| tobj::load_mtl_buf(&mut std::io::BufReader::new(&bytes[..])))
        })
    }))
    .map_err(|_| "malformed OBJ: a face refers to a vertex that does not exist".to_owned())?;
    let (models, materials) = loaded.map_err(|e| format!("invalid OBJ: {e}"))?;
    let mut scene = Scene::default();
    let materials = materials.unwrap_or_else(|e| {
        scene.warnings.push(format!(
            "material library not loaded ({e}); baking without materials"
        ));
        Vec::new()
    });

    for model in &models {
        scene.primitives.push(primitive(model, materials.len())?);
    }

    let mut images: BTreeMap<String, usize> = BTreeMap::new();
    let mut image_of = |path: &Option<String>, scene: &mut Scene| -> Option<TextureRef> {
        let path = normalize(path.as_ref()?.split_whitespace().last()?);
        let next = images.len();
        let index = *images.entry(path.clone()).or_insert(next);
        if index == next {
            let bytes = read(&path).ok();
            if bytes.is_none() {
                scene
                    .warnings
                    .push(format!("texture {path} could not be read"));
            }
            scene.images.push(bytes);
        }
        Some(TextureRef { image: index })
    };
    for m in &materials {
        let material = material(m, |path| image_of(path, &mut scene));
        scene.materials.push(material);
    }
    Ok(scene)
}

/// One OBJ object as a primitive: finite positions, face indices in range, normals, UVs
/// (flipped to a top-left origin) and vertex colors when the file has them for every vertex.
fn primitive(model: &tobj::Model, material_count: usize) -> Result<Primitive, String> {
    let mesh = &model.mesh;
    let count = mesh.positions.len() / 3;
    let positions: Vec<[f32; 3]> = mesh
        .positions
        .chunks_exact(3)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    if positions.iter().flatten().any(|c| !c.is_finite()) {
        return Err(format!("object {:?}: non-finite position", model.name));
    }
    if let Some(bad) = mesh.indices.iter().find(|i| **i as usize >= count) {
        return Err(format!(
            "object {:?}: face index {bad} out of range ({count} vertices)",
            model.name
        ));
    }
    let normals = (mesh.normals.len() == count * 3).then(|| {
        mesh.normals
            .chunks_exact(3)
            .map(|n| [n[0], n[1], n[2]])
            .collect()
    });
    // OBJ's V runs up; hearth's UVs have a top-left origin.
    let uvs = (mesh.texcoords.len() == count * 2).then(|| {
        mesh.texcoords
            .chunks_exact(2)
            .map(|t| [t[0], 1.0 - t[1]])
            .collect()
    });
    let material = mesh.material_id.filter(|m| *m < material_count);
    Ok(Primitive {
        positions,
        normals,
        tangents: None,
        uvs,
        uvs1: None,
        // OBJ's per-vertex colors (the `v x y z r g b` extension).
        colors: (mesh.vertex_color.len() == count * 3).then(|| {
            mesh.vertex_color
                .chunks_exact(3)
                .map(|c| [c[0], c[1], c[2], 1.0])
                .collect()
        }),
        indices: mesh.indices.clone(),
        material,
        skin: None,
        morph: None,
    })
}

/// One MTL material as a `.hmat` row (see the module docs for the mapping); `image_of` gives
/// a map's texture index.
fn material(
    m: &tobj::Material,
    mut image_of: impl FnMut(&Option<String>) -> Option<TextureRef>,
) -> Material {
    let param = |key: &str| {
        m.unknown_param
            .get(key)
            .and_then(|v| v.trim().parse::<f32>().ok())
    };
    let diffuse = m.diffuse.unwrap_or([1.0; 3]);
    let alpha = m.dissolve.unwrap_or(1.0);
    // tobj reads `map_Bump` and `bump` into `normal_texture` and leaves the PBR extension's
    // `norm` (the normal map proper, so it wins) among the unknown keys.
    let bump = m
        .unknown_param
        .get("norm")
        .cloned()
        .or_else(|| m.normal_texture.clone());
    let emissive_map = m.unknown_param.get("map_Ke").cloned();
    Material {
        name: m.name.clone(),
        base_color: [diffuse[0], diffuse[1], diffuse[2], alpha],
        emissive: m
            .emissive
            .or_else(|| {
                let v: Vec<f32> = m
                    .unknown_param
                    .get("Ke")?
                    .split_whitespace()
                    .filter_map(|s| s.parse().ok())
                    .collect();
                (v.len() == 3).then(|| [v[0], v[1], v[2]])
            })
            .unwrap_or([0.0; 3]),
        metallic: param("Pm").unwrap_or(0.0),
        roughness: param("Pr").unwrap_or(1.0),
        normal_scale: 1.0,
        occlusion_strength: 1.0,
        alpha_cutoff: 0.5,
        alpha_mode: if alpha < 1.0 { 2 } else { 0 },
        double_sided: false,
        base_color_tex: image_of(&m.diffuse_texture),
        metallic_roughness_tex: None,
        normal_tex: image_of(&bump),
        occlusion_tex: None,
        emissive_tex: image_of(&emissive_map),
        texture_transforms: [None; 5],
        second_uv_set: [false; 5],
        extensions: Vec::new(),
    }
}
