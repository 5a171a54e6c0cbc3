//! One UsdGeomMesh as triangle primitives: faces triangulated (ears, so concave faces do not
//! fold), primvars expanded by their interpolation and indices, GeomSubsets of the
//! `materialBind` family split into their own primitives, everything moved into the import's
//! space by one matrix.

use super::shading::{bound_material, Shading, Uv};
use super::{resolver::ConfinedResolver, values};
use crate::bake::mesh::gltf::Primitive;
use glam::{DMat3, DMat4, DVec2, DVec3};
use openusd::sdf::{Path, Value};
use openusd::usd::Stage;
use std::collections::HashMap;

/// The most vertices a face may have and still be ear-clipped; larger faces are fanned.
const MAX_EAR_CLIP: usize = 64;

/// How a primvar's elements map to a mesh's faces, points and corners.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Interpolation {
    Constant,
    Uniform,
    Vertex,
    FaceVarying,
}

/// A primvar's values, the indices into them (when indexed) and how they are spread.
struct Primvar<T> {
    values: Vec<T>,
    indices: Option<Vec<i64>>,
    interpolation: Interpolation,
}

impl<T: Copy> Primvar<T> {
    /// The value at a corner (`face`, the corner's `point`, the corner's running index).
    fn at(&self, face: usize, point: usize, corner: usize) -> Option<T> {
        let element = match self.interpolation {
            Interpolation::Constant => 0,
            Interpolation::Uniform => face,
            Interpolation::Vertex => point,
            Interpolation::FaceVarying => corner,
        };
        let element = match &self.indices {
            Some(indices) => usize::try_from(*indices.get(element)?).ok()?,
            None => element,
        };
        self.values.get(element).copied()
    }
}

/// Reads `name` (an attribute, e.g. `primvars:st` or `normals`) with its `interpolation`
/// metadata and `:indices`; `Ok(None)` when unauthored, `Err` when of another type.
fn primvar<T>(
    stage: &Stage,
    prim: &Path,
    name: &str,
    fallback: Interpolation,
    convert: fn(&Value) -> Option<Vec<T>>,
) -> Result<Option<Primvar<T>>, String> {
    let Ok(path) = prim.append_property(name) else {
        return Ok(None);
    };
    let attr = stage.attribute(path);
    let Some(value) = values::rest_value(&attr) else {
        return Ok(None);
    };
    let values = convert(&value).ok_or_else(|| format!("{name} is of an unexpected type"))?;
    let interpolation = match attr
        .get_metadata::<Value>("interpolation")
        .ok()
        .flatten()
        .and_then(|v| values::text(&v))
        .as_deref()
    {
        Some("constant") => Interpolation::Constant,
        Some("uniform") => Interpolation::Uniform,
        Some("vertex") | Some("varying") => Interpolation::Vertex,
        Some("faceVarying") => Interpolation::FaceVarying,
        _ => fallback,
    };
    let indices =
        values::prim_value(stage, prim, &format!("{name}:indices")).and_then(|v| values::ints(&v));
    Ok(Some(Primvar {
        values,
        indices,
        interpolation,
    }))
}

/// The faces of a mesh: each face's first corner and vertex count.
struct Topology {
    points: Vec<[f32; 3]>,
    counts: Vec<usize>,
    starts: Vec<usize>,
    indices: Vec<usize>,
    left_handed: bool,
}

fn topology(stage: &Stage, prim: &Path) -> Result<Option<Topology>, String> {
    let read = |name: &str| values::prim_value(stage, prim, name);
    let Some(points) = read("points").and_then(|v| values::vec3s(&v)) else {
        return Ok(None);
    };
    let counts = read("faceVertexCounts")
        .and_then(|v| values::ints(&v))
        .unwrap_or_default();
    let indices = read("faceVertexIndices")
        .and_then(|v| values::ints(&v))
        .unwrap_or_default();
    let mut starts = Vec::with_capacity(counts.len());
    let mut total = 0usize;
    let mut sizes = Vec::with_capacity(counts.len());
    for &c in &counts {
        let c = usize::try_from(c).map_err(|_| "a negative faceVertexCount".to_string())?;
        starts.push(total);
        sizes.push(c);
        total = total.checked_add(c).ok_or("faceVertexCounts overflow")?;
    }
    if total != indices.len() {
        return Err(format!(
            "faceVertexCounts add up to {total} but faceVertexIndices has {}",
            indices.len()
        ));
    }
    let indices = indices
        .iter()
        .map(|&i| usize::try_from(i).ok().filter(|&i| i < points.len()))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| format!("a faceVertexIndex outside the {} points", points.len()))?;
    let left_handed = read("orientation")
        .and_then(|v| values::text(&v))
        .as_deref()
        == Some("leftHanded");
    Ok(Some(Topology {
        points,
        counts: sizes,
        starts,
        indices,
        left_handed,
    }))
}

/// Triangles of a face as corner offsets (0..count) in the face's own winding.
fn triangulate(points: &[DVec3]) -> Vec<[usize; 3]> {
    let n = points.len();
    if n < 3 {
        return Vec::new();
    }
    if n == 3 {
        return vec![[0, 1, 2]];
    }
    let fan = || (1..n - 1).map(|i| [0, i, i + 1]).collect();
    if n > MAX_EAR_CLIP {
        return fan();
    }
    // Newell's normal, then the face in its own plane.
    let mut normal = DVec3::ZERO;
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        normal += DVec3::new(
            (a.y - b.y) * (a.z + b.z),
            (a.z - b.z) * (a.x + b.x),
            (a.x - b.x) * (a.y + b.y),
        );
    }
    if normal.length_squared() == 0.0 || !normal.is_finite() {
        return fan();
    }
    let normal = normal.normalize();
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    let flat: Vec<DVec2> = points
        .iter()
        .map(|p| DVec2::new(p.dot(u), p.dot(v)))
        .collect();
    ear_clip(&flat).unwrap_or_else(fan)
}

/// Ear clipping of a counter-clockwise polygon; `None` when it finds no ear (a degenerate or
/// self-intersecting face, which is then fanned).
fn ear_clip(flat: &[DVec2]) -> Option<Vec<[usize; 3]>> {
    let cross = |a: DVec2, b: DVec2, c: DVec2| (b - a).perp_dot(c - a);
    let mut remaining: Vec<usize> = (0..flat.len()).collect();
    let mut triangles = Vec::with_capacity(flat.len() - 2);
    while remaining.len() > 3 {
        let m = remaining.len();
        let ear = (0..m).find(|&i| {
            let (a, b, c) = (
                remaining[(i + m - 1) % m],
                remaining[i],
                remaining[(i + 1) % m],
            );
            if cross(flat[a], flat[b], flat[c]) <= 0.0 {
                return false;
            }
            remaining.iter().all(|&p| {
                p == a || p == b || p == c || {
                    let q = flat[p];
                    !(cross(flat[a], flat[b], q) >= 0.0
                        && cross(flat[b], flat[c], q) >= 0.0
                        && cross(flat[c], flat[a], q) >= 0.0)
                }
            })
        })?;
        let (a, b, c) = (
            remaining[(ear + m - 1) % m],
            remaining[ear],
            remaining[(ear + 1) % m],
        );
        triangles.push([a, b, c]);
        remaining.remove(ear);
    }
    triangles.push([remaining[0], remaining[1], remaining[2]]);
    Some(triangles)
}

/// One vertex's attributes, by bits, for welding identical corners.
type CornerKey = (usize, [u32; 3], [u32; 2], [u32; 4]);

/// Builds one primitive from corners.
#[derive(Default)]
struct Builder {
    primitive: Primitive,
    points: Vec<usize>,
    welded: HashMap<CornerKey, u32>,
}

/// One primitive of a mesh, and the USD point each of its vertices came from (what skin
/// weights and blend shapes are indexed by).
pub struct Part {
    /// The primitive.
    pub primitive: Primitive,
    /// Per vertex, its point.
    pub points: Vec<usize>,
}

/// Everything one mesh's corners read.
struct Streams {
    normals: Option<Primvar<[f32; 3]>>,
    uvs: Option<Primvar<[f32; 2]>>,
    colors: Option<Primvar<[f32; 3]>>,
    opacity: Option<Primvar<f32>>,
}

/// What [`read_mesh`] needs besides the mesh.
pub struct MeshContext<'a> {
    pub stage: &'a Stage,
    pub resolver: &'a ConfinedResolver,
    pub shading: &'a mut Shading,
    pub warnings: &'a mut Vec<String>,
    /// Meshes whose normals were generated (counted for one warning).
    pub generated_normals: &'a mut usize,
}

/// The triangles of the mesh at `prim`, moved by `world`, one primitive per material.
pub fn read_mesh(
    cx: &mut MeshContext<'_>,
    prim: &Path,
    world: &DMat4,
) -> Result<Vec<Part>, String> {
    let Some(topology) = topology(cx.stage, prim)? else {
        return Ok(Vec::new());
    };
    let face_count = topology.counts.len();
    // Faces by material: GeomSubsets of the materialBind family first, the rest the mesh's.
    let mesh_material =
        bound_material(cx.stage, prim).map(|m| cx.shading.material(cx.stage, &m, cx.resolver));
    let mut face_group = vec![usize::MAX; face_count];
    let mut groups: Vec<Option<usize>> = Vec::new();
    for (subset, faces) in material_subsets(cx.stage, prim) {
        let material = bound_material(cx.stage, &subset)
            .map(|m| cx.shading.material(cx.stage, &m, cx.resolver))
            .or(mesh_material);
        groups.push(material);
        for face in faces {
            if let Some(slot) = usize::try_from(face)
                .ok()
                .and_then(|f| face_group.get_mut(f))
            {
                *slot = groups.len() - 1;
            }
        }
    }
    let rest = groups.len();
    groups.push(mesh_material);
    let streams = streams(cx, prim, &groups)?;
    let flip = topology.left_handed ^ (world.determinant() < 0.0);
    let normal_matrix = DMat3::from_mat4(*world).inverse().transpose();
    let mut builders: Vec<Builder> = groups.iter().map(|_| Builder::default()).collect();
    let corner_points: Vec<DVec3> = topology
        .indices
        .iter()
        .map(|&p| DVec3::from(topology.points[p].map(f64::from)))
        .collect();
    for (face, &group) in face_group.iter().enumerate() {
        let (start, count) = (topology.starts[face], topology.counts[face]);
        let group = if group == usize::MAX { rest } else { group };
        let uv = groups[group]
            .and_then(|m| cx.shading.uvs.get(m))
            .cloned()
            .unwrap_or_default();
        for mut tri in triangulate(&corner_points[start..start + count]) {
            if flip {
                tri.swap(1, 2);
            }
            for local in tri {
                let corner = start + local;
                let point = topology.indices[corner];
                let vertex = corner_vertex(
                    &topology,
                    &streams,
                    &uv,
                    face,
                    point,
                    corner,
                    world,
                    &normal_matrix,
                );
                push_corner(&mut builders[group], point, vertex);
            }
        }
    }
    Ok(builders
        .into_iter()
        .zip(groups)
        .filter(|(b, _)| !b.primitive.indices.is_empty())
        .map(|(b, material)| Part {
            primitive: Primitive {
                material,
                ..b.primitive
            },
            points: b.points,
        })
        .collect())
}

/// A corner's position, normal, UV and colour in the import's space.
struct Vertex {
    position: [f32; 3],
    normal: Option<[f32; 3]>,
    uv: Option<[f32; 2]>,
    color: Option<[f32; 4]>,
}

#[allow(clippy::too_many_arguments)]
fn corner_vertex(
    topology: &Topology,
    streams: &Streams,
    uv: &Uv,
    face: usize,
    point: usize,
    corner: usize,
    world: &DMat4,
    normal_matrix: &DMat3,
) -> Vertex {
    let p = world.transform_point3(DVec3::from(topology.points[point].map(f64::from)));
    let normal = streams
        .normals
        .as_ref()
        .and_then(|n| n.at(face, point, corner))
        .map(|n| {
            let n = (*normal_matrix * DVec3::from(n.map(f64::from))).normalize_or_zero();
            n.as_vec3().to_array()
        });
    let uv = streams
        .uvs
        .as_ref()
        .and_then(|s| s.at(face, point, corner))
        .map(|st| {
            let st = match &uv.transform {
                Some(t) => t.apply(st),
                None => st,
            };
            // USD's t runs up the image, glTF's v down it.
            [st[0], 1.0 - st[1]]
        });
    let color = streams
        .colors
        .as_ref()
        .and_then(|c| c.at(face, point, corner))
        .map(|c| {
            let alpha = streams
                .opacity
                .as_ref()
                .and_then(|o| o.at(face, point, corner))
                .unwrap_or(1.0);
            [c[0], c[1], c[2], alpha]
        });
    Vertex {
        position: p.as_vec3().to_array(),
        normal,
        uv,
        color,
    }
}

fn push_corner(builder: &mut Builder, point: usize, v: Vertex) {
    let bits3 = |a: Option<[f32; 3]>| a.map_or([0; 3], |a| a.map(f32::to_bits));
    let key = (
        point,
        bits3(v.normal),
        v.uv.map_or([0; 2], |a| a.map(f32::to_bits)),
        v.color.map_or([0; 4], |a| a.map(f32::to_bits)),
    );
    let p = &mut builder.primitive;
    let points = &mut builder.points;
    let index = *builder.welded.entry(key).or_insert_with(|| {
        points.push(point);
        p.positions.push(v.position);
        if let Some(n) = v.normal {
            p.normals.get_or_insert_with(Vec::new).push(n);
        }
        if let Some(uv) = v.uv {
            p.uvs.get_or_insert_with(Vec::new).push(uv);
        }
        if let Some(c) = v.color {
            p.colors.get_or_insert_with(Vec::new).push(c);
        }
        p.positions.len() as u32 - 1
    });
    p.indices.push(index);
}

/// Normals, the UV set the materials read, and display colours where a material asks for
/// them (or there is none), checked for length against the mesh.
fn streams(
    cx: &mut MeshContext<'_>,
    prim: &Path,
    groups: &[Option<usize>],
) -> Result<Streams, String> {
    let stage = cx.stage;
    let normals = match primvar(
        stage,
        prim,
        "primvars:normals",
        Interpolation::Vertex,
        values::vec3s,
    ) {
        Ok(Some(n)) => Ok(Some(n)),
        Ok(None) => primvar(stage, prim, "normals", Interpolation::Vertex, values::vec3s),
        Err(e) => Err(e),
    };
    let normals = normals.unwrap_or_else(|why| {
        cx.warnings
            .push(format!("{prim}: {why}; normals are generated"));
        None
    });
    if normals.is_none() {
        *cx.generated_normals += 1;
    }
    let uv_set = groups
        .iter()
        .flatten()
        .filter_map(|&m| cx.shading.uvs.get(m))
        .map(|uv| uv.set.clone())
        .next()
        .unwrap_or_else(|| "st".into());
    let name = uv_primvar(stage, prim, &uv_set);
    let uvs = primvar(
        stage,
        prim,
        &name,
        Interpolation::FaceVarying,
        values::vec2s,
    )
    .unwrap_or_else(|why| {
        cx.warnings.push(format!("{prim}: {why}; no UVs"));
        None
    });
    let wants_colors = groups.iter().any(|m| {
        m.is_none_or(|m| {
            cx.shading
                .uses_display_color
                .get(m)
                .copied()
                .unwrap_or(false)
        })
    });
    let (colors, opacity) = if wants_colors {
        (
            primvar(
                stage,
                prim,
                "primvars:displayColor",
                Interpolation::Constant,
                values::vec3s,
            )
            .ok()
            .flatten(),
            primvar(
                stage,
                prim,
                "primvars:displayOpacity",
                Interpolation::Constant,
                values::floats,
            )
            .ok()
            .flatten(),
        )
    } else {
        (None, None)
    };
    Ok(Streams {
        normals,
        uvs,
        colors,
        opacity,
    })
}

/// The primvar a mesh's UVs come from: `primvars:<set>` when the mesh has it; else, for a
/// texture whose `st` no reader names (USD would sample one texel), the mesh's first
/// texture-coordinate primvar (`texCoord2f[]`, or `float2[]`), as DCC importers do.
fn uv_primvar(stage: &Stage, prim: &Path, set: &str) -> String {
    let named = format!("primvars:{set}");
    let has = |name: &str| {
        prim.append_property(name)
            .ok()
            .and_then(|p| values::rest_value(&stage.attribute(p)))
            .is_some()
    };
    if has(&named) {
        return named;
    }
    let properties = stage
        .prim(prim.clone())
        .property_names()
        .unwrap_or_default();
    let is_uv = |name: &str| {
        let attr = prim.append_property(name).ok().map(|p| stage.attribute(p));
        let type_name = attr.and_then(|a| a.type_name().ok().flatten());
        type_name.is_some_and(|t| t.as_str() == "texCoord2f[]" || t.as_str() == "float2[]")
    };
    properties
        .iter()
        .map(|p| p.as_str())
        .filter(|p| {
            p.starts_with("primvars:") && !p.ends_with(":indices") && p.matches(':').count() == 1
        })
        .find(|p| is_uv(p) && has(p))
        .map_or(named, str::to_string)
}

/// The mesh's GeomSubsets of the `materialBind` family: (subset path, face indices).
fn material_subsets(stage: &Stage, mesh: &Path) -> Vec<(Path, Vec<i64>)> {
    let Ok(children) = stage.prim(mesh.clone()).children() else {
        return Vec::new();
    };
    children
        .iter()
        .filter(|child| {
            child
                .type_name()
                .ok()
                .flatten()
                .is_some_and(|t| t.as_str() == "GeomSubset")
        })
        .filter_map(|child| {
            let path = child.path();
            let read = |name: &str| values::prim_value(stage, path, name);
            let family = read("familyName").and_then(|v| values::text(&v));
            let element = read("elementType")
                .and_then(|v| values::text(&v))
                .unwrap_or_else(|| "face".into());
            if family.as_deref() != Some("materialBind") || element != "face" {
                return None;
            }
            Some((
                path.clone(),
                read("indices")
                    .and_then(|v| values::ints(&v))
                    .unwrap_or_default(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_concave_quad_is_split_at_its_reflex_corner() {
        // A dart: corner 2 is reflex, so a fan from corner 1 or 3 would cover area outside.
        let points = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(2.0, 1.0, 0.0),
            DVec3::new(0.5, 1.0, 0.0),
            DVec3::new(0.0, 2.0, 0.0),
        ];
        let tris = triangulate(&points);
        assert_eq!(tris.len(), 2);
        let area = |t: &[usize; 3]| {
            let (a, b, c) = (points[t[0]], points[t[1]], points[t[2]]);
            (b - a).cross(c - a).z / 2.0
        };
        let total: f64 = tris.iter().map(area).sum();
        // The polygon's own (shoelace) area: every triangle inside, none flipped.
        assert!(tris.iter().all(|t| area(t) > 0.0), "{tris:?}");
        assert!((total - 1.25).abs() < 1e-12, "{total}");
    }

    #[test]
    fn n_gons_give_count_minus_two_triangles() {
        for n in 3..12 {
            let points: Vec<DVec3> = (0..n)
                .map(|i| {
                    let a = i as f64 / n as f64 * std::f64::consts::TAU;
                    DVec3::new(a.cos(), a.sin(), 0.0)
                })
                .collect();
            assert_eq!(triangulate(&points).len(), n - 2);
        }
    }
}
