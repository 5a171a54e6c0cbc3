//! Primitives: their attributes and indices, as triangle lists, and moving them.

use super::{morphs, skins, Mat4, Primitive, Scene};
use glam::{Mat3, Vec3};
use gltf::mesh::Mode;

/// One primitive of mesh `mesh_index` as a triangle list in its own space, checked: finite
/// positions, indices in range, attributes as long as POSITION. `None` (with a warning) for
/// points and lines. `skinned`: read its joints and weights; `morph`: its first target among
/// the scene's, when its mesh has targets.
pub(super) fn read_primitive(
    primitive: &gltf::Primitive<'_>,
    mesh_index: usize,
    buffers: &[gltf::buffer::Data],
    skinned: bool,
    morph: Option<u32>,
    scene: &mut Scene,
) -> Result<Option<Primitive>, String> {
    let mode = primitive.mode();
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        scene.warnings.push(format!(
            "mesh {mesh_index}: {mode:?} primitive skipped (only triangles are baked)"
        ));
        return Ok(None);
    }
    // .hmesh keeps two UV sets and one color set: say what is left behind.
    for (semantic, name) in [
        (gltf::Semantic::Colors(1), "COLOR_1"),
        (gltf::Semantic::TexCoords(2), "TEXCOORD_2"),
    ] {
        if primitive.get(&semantic).is_some() {
            scene.warnings.push(format!("mesh {mesh_index}: {name} (and any later set) is not kept (.hmesh keeps TEXCOORD_0, TEXCOORD_1 and COLOR_0)"));
        }
    }
    let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(|d| &d.0[..]));
    let positions: Vec<[f32; 3]> = reader
        .read_positions()
        .ok_or("a primitive has no POSITION")?
        .collect();
    if let Some(bad) = positions.iter().find(|p| p.iter().any(|c| !c.is_finite())) {
        return Err(format!("mesh {mesh_index}: non-finite position {bad:?}"));
    }
    let count = positions.len();
    let indices = triangle_indices(&reader, mode, count, mesh_index)?;
    let normals = reader.read_normals().map(|n| n.collect::<Vec<_>>());
    let tangents = reader.read_tangents().map(|t| t.collect::<Vec<_>>());
    let uvs = reader
        .read_tex_coords(0)
        .map(|t| t.into_f32().collect::<Vec<_>>());
    let uvs1 = reader
        .read_tex_coords(1)
        .map(|t| t.into_f32().collect::<Vec<_>>());
    let colors = reader
        .read_colors(0)
        .map(|c| c.into_rgba_f32().collect::<Vec<_>>());
    for (name, len) in [
        ("NORMAL", normals.as_ref().map(|v| v.len())),
        ("TANGENT", tangents.as_ref().map(|v| v.len())),
        ("TEXCOORD_0", uvs.as_ref().map(|v| v.len())),
        ("TEXCOORD_1", uvs1.as_ref().map(|v| v.len())),
        ("COLOR_0", colors.as_ref().map(|v| v.len())),
    ] {
        if len.is_some_and(|len| len != count) {
            return Err(format!(
                "mesh {mesh_index}: {name} has {} values for {count} positions",
                len.unwrap_or(0)
            ));
        }
    }
    let skin = if skinned {
        skins::read_skin_weights(&reader, count, mesh_index)?
    } else {
        None
    };
    let morph = match morph {
        Some(first_target) => Some(
            morphs::read_morph_targets(
                &reader,
                count,
                first_target,
                normals.is_some(),
                tangents.is_some(),
            )
            .map_err(|e| format!("mesh {mesh_index}: {e}"))?,
        ),
        None => None,
    };
    Ok(Some(Primitive {
        positions,
        normals,
        tangents,
        uvs,
        uvs1,
        colors,
        indices,
        material: primitive.material().index(),
        skin,
        morph,
    }))
}

/// The primitive's indices (or 0..count when it has none), checked against `count`, as a
/// triangle list: strips and fans unrolled, a trailing partial triangle dropped.
fn triangle_indices<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    mode: Mode,
    count: usize,
    mesh_index: usize,
) -> Result<Vec<u32>, String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let list: Vec<u32> = match reader.read_indices() {
        Some(indices) => indices.into_u32().collect(),
        None => (0..count as u32).collect(),
    };
    if let Some(bad) = list.iter().find(|i| **i as usize >= count) {
        return Err(format!(
            "mesh {mesh_index}: index {bad} out of range ({count} vertices)"
        ));
    }
    Ok(match mode {
        Mode::Triangles => list[..list.len() / 3 * 3].to_vec(),
        Mode::TriangleStrip => (2..list.len())
            .flat_map(|i| {
                if i % 2 == 0 {
                    [list[i - 2], list[i - 1], list[i]]
                } else {
                    [list[i - 1], list[i - 2], list[i]]
                }
            })
            .collect(),
        _ /* fan */ => (2..list.len())
            .flat_map(|i| [list[0], list[i - 1], list[i]])
            .collect(),
    })
}

/// Moves a primitive by `m`: positions by `m`, normals by its inverse transpose, tangents by
/// `m`; a mirroring `m` (negative determinant) flips the triangle winding and the tangents'
/// handedness so surfaces keep facing their normals.
pub fn transform_primitive(p: &mut Primitive, m: &Mat4) {
    let (normal_m, det) = normal_matrix(m);
    let normal_transform = |n: [f32; 3]| normal_m * Vec3::from(n);
    let vector_transform = |v: [f32; 3]| m.transform_vector3(Vec3::from(v));
    // Morph deltas move with the vectors they change: positions by `m`'s linear part; normal
    // and tangent deltas as their base vectors, scaled by the same factor the base vector's
    // renormalization applies (so base + delta, renormalized, is the moved morphed vector).
    if let Some(morph) = &mut p.morph {
        for target in &mut morph.positions {
            target
                .iter_mut()
                .for_each(|d| *d = vector_transform(*d).to_array());
        }
        if let (Some(targets), Some(normals)) = (&mut morph.normals, &p.normals) {
            let scales: Vec<f32> = normals
                .iter()
                .map(|n| 1.0 / normal_transform(*n).length().max(1e-20))
                .collect();
            for target in targets {
                for (d, scale) in target.iter_mut().zip(&scales) {
                    *d = (normal_transform(*d) * *scale).to_array();
                }
            }
        }
        if let (Some(targets), Some(tangents)) = (&mut morph.tangents, &p.tangents) {
            let scales: Vec<f32> = tangents
                .iter()
                .map(|t| 1.0 / vector_transform([t[0], t[1], t[2]]).length().max(1e-20))
                .collect();
            for target in targets {
                for (d, scale) in target.iter_mut().zip(&scales) {
                    *d = (vector_transform(*d) * *scale).to_array();
                }
            }
        }
    }
    for position in &mut p.positions {
        *position = m.transform_point3(Vec3::from(*position)).to_array();
    }
    if let Some(normals) = &mut p.normals {
        for n in normals.iter_mut() {
            *n = normalize(normal_transform(*n)).to_array();
        }
    }
    if let Some(tangents) = &mut p.tangents {
        for t in tangents.iter_mut() {
            let v = normalize(vector_transform([t[0], t[1], t[2]]));
            *t = [v.x, v.y, v.z, if det < 0.0 { -t[3] } else { t[3] }];
        }
    }
    if det < 0.0 {
        p.indices.chunks_exact_mut(3).for_each(|t| t.swap(1, 2));
    }
}

/// `v` at unit length, or `v` when it has none. Divided by the length, not multiplied by its
/// reciprocal as glam's `normalize` is: the baked bits stay those of the division.
fn normalize(v: Vec3) -> Vec3 {
    let length = v.length();
    if length > 0.0 {
        v / length
    } else {
        v
    }
}

/// The inverse transpose of `m`'s upper 3x3 (for normals) up to a positive factor, and the
/// determinant.
fn normal_matrix(m: &Mat4) -> (Mat3, f32) {
    let linear = Mat3::from_mat4(*m);
    // The cofactor matrix is the inverse transpose times the determinant.
    let cofactors = Mat3::from_cols(
        linear.y_axis.cross(linear.z_axis),
        linear.z_axis.cross(linear.x_axis),
        linear.x_axis.cross(linear.y_axis),
    );
    // Expanded along the first row (glam's `determinant` sums in another order): only the
    // sign is used, but a determinant within rounding of 0 must keep the sign it had.
    let det = linear.row(0).dot(cofactors.row(0));
    // The factor does not matter after normalizing, but its sign does.
    let sign = if det < 0.0 { -1.0 } else { 1.0 };
    (cofactors * sign, det)
}
