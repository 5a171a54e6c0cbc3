//! Geometry processing with meshoptimizer: per-corner attributes deduplicated into vertices,
//! vertex-cache, overdraw and vertex-fetch optimization, meshlets with bounds and cones, LODs
//! by simplification, bounds — then the `.hmesh` chunks.

use crate::bake::mesh::gltf::Primitive;
use crate::bake::settings::MeshSettings;
use crate::format::hmesh::{
    self, chunk, oct_encode, oct_encode_tangent, GpuVertex, LodTableHeader, MeshBounds, MeshDesc,
    MeshLod, Meshlet, MeshletBounds, SubMesh, FLAG_HAS_TANGENTS,
};
use crate::format::hmesh::{GpuJoint, GpuSkinVertex};
use bytemuck::{Pod, Zeroable};
use meshopt::VertexDataAdapter;

/// A vertex with its skinning, processed as one unit so SKIN stays parallel to VTXS through
/// deduplication and reordering.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
struct Corner {
    vertex: GpuVertex,
    joints: [u16; 4],
    weights: [f32; 4],
}

/// Meshlet limits (the reference implementation's): vertices.
pub const MESHLET_MAX_VERTICES: usize = 64;
/// Meshlet limits: triangles (meshoptimizer wants a multiple of 4).
pub const MESHLET_MAX_TRIANGLES: usize = 124;
/// Meshlet cone weight.
pub const MESHLET_CONE_WEIGHT: f32 = 0.25;

/// One submesh's input: a primitive and its dense material slot.
pub struct SubmeshInput<'a> {
    /// The geometry.
    pub primitive: &'a Primitive,
    /// Dense material slot, or [`NO_MATERIAL`](crate::format::hmesh::NO_MATERIAL).
    pub material_slot: u32,
    /// Whether the material has a normal map (tangents are generated when missing).
    pub wants_tangents: bool,
}

fn adapter(vertices: &[Corner]) -> VertexDataAdapter<'_> {
    // The position is the first field of `Corner`.
    VertexDataAdapter::new(
        bytemuck::cast_slice(vertices),
        std::mem::size_of::<Corner>(),
        0,
    )
    .expect("valid vertex layout")
}

fn bounds_of(positions: impl Iterator<Item = [f32; 3]> + Clone) -> MeshBounds {
    let mut min = [f32::MAX; 3];
    let mut max = [f32::MIN; 3];
    let mut any = false;
    for p in positions.clone() {
        any = true;
        for c in 0..3 {
            min[c] = min[c].min(p[c]);
            max[c] = max[c].max(p[c]);
        }
    }
    if !any {
        return MeshBounds::default();
    }
    let center: [f32; 3] = std::array::from_fn(|c| (min[c] + max[c]) * 0.5);
    let radius = positions
        .map(|p| {
            ((p[0] - center[0]).powi(2) + (p[1] - center[1]).powi(2) + (p[2] - center[2]).powi(2))
                .sqrt()
        })
        .fold(0.0f32, f32::max);
    MeshBounds {
        aabb_min: min,
        aabb_max: max,
        sphere_center: center,
        sphere_radius: radius,
    }
}

/// Builds an `.hmesh` from submeshes and the material refs (MTRL, in slot order).
pub fn build(
    submeshes: &[SubmeshInput<'_>],
    material_refs: &[u64],
    skeleton: Option<&[GpuJoint]>,
    settings: &MeshSettings,
) -> Result<Vec<u8>, String> {
    let mut vertices: Vec<Corner> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut ranges = Vec::with_capacity(submeshes.len());
    let mut has_tangents = false;
    for input in submeshes {
        let p = input.primitive;
        // Per-corner streams, so generated normals and tangents can differ per face, then
        // meshoptimizer's remap merges identical corners back into shared vertices.
        let normals: Vec<[f32; 3]> = match (&p.normals, settings.normals) {
            (Some(n), true) => p.indices.iter().map(|i| n[*i as usize]).collect(),
            (_, true) => {
                let positions: &[[f32; 3]] = &p.positions;
                let adapter = VertexDataAdapter::new(bytemuck::cast_slice(positions), 12, 0)
                    .expect("positions");
                // Smooth across edges below 60 degrees, as glTF viewers do for flat-shaded
                // sources without normals (which meshoptimizer's crease angle preserves).
                meshopt::generate_normals(Some(&p.indices), &adapter, 60f32.to_radians(), 0.0)
            }
            (_, false) => vec![[0.0, 0.0, 1.0]; p.indices.len()],
        };
        let uvs: Vec<[f32; 2]> = match &p.uvs {
            Some(uv) => p.indices.iter().map(|i| uv[*i as usize]).collect(),
            None => vec![[0.0; 2]; p.indices.len()],
        };
        let corner_positions: Vec<[f32; 3]> =
            p.indices.iter().map(|i| p.positions[*i as usize]).collect();
        let tangents: Option<Vec<[f32; 4]>> = match (&p.tangents, settings.tangents) {
            (Some(t), true) => Some(p.indices.iter().map(|i| t[*i as usize]).collect()),
            (None, true) if input.wants_tangents && p.uvs.is_some() => {
                // MikkTSpace-compatible: glTF normal maps are baked against MikkTSpace tangents.
                Some(meshopt::generate_tangents(
                    None,
                    &corner_positions,
                    &normals,
                    &uvs,
                    meshopt::TangentOptions::Compatible,
                ))
            }
            _ => None,
        };
        has_tangents |= tangents.is_some();
        let corners: Vec<Corner> = (0..p.indices.len())
            .map(|k| {
                let (joints, weights) = match &p.skin {
                    Some(skin) => skin[p.indices[k] as usize],
                    None => ([0; 4], [1.0, 0.0, 0.0, 0.0]),
                };
                let vertex = GpuVertex {
                    position: corner_positions[k],
                    normal: oct_encode(normals[k]),
                    tangent: tangents
                        .as_ref()
                        .map(|t| oct_encode_tangent([t[k][0], t[k][1], t[k][2]], t[k][3]))
                        .unwrap_or([0, 0]),
                    uv: uvs[k],
                };
                Corner {
                    vertex,
                    joints,
                    weights,
                }
            })
            .collect();
        let (unique, remap) = meshopt::generate_vertex_remap(&corners, None);
        let local_vertices = meshopt::remap_vertex_buffer(&corners, unique, &remap);
        let base = vertices.len() as u32;
        let first = indices.len();
        indices.extend(
            meshopt::remap_index_buffer(None, corners.len(), &remap)
                .into_iter()
                .map(|i| i + base),
        );
        vertices.extend(local_vertices);
        ranges.push((first, indices.len() - first));
    }
    let vertex_count = vertices.len();
    if settings.optimize {
        for &(first, len) in &ranges {
            let range = &mut indices[first..first + len];
            meshopt::optimize_vertex_cache_in_place(range, vertex_count);
            meshopt::optimize_overdraw_in_place(
                range,
                &adapter(&vertices),
                settings.overdraw_threshold,
            );
        }
        vertices = meshopt::optimize_vertex_fetch(&mut indices, &vertices);
    }

    // Meshlets, LODs and bounds per submesh, over the final vertex order.
    let lod_targets: Vec<f32> = (1..=settings.lod.levels)
        .map(|l| 0.5f32.powi(l as i32))
        .collect();
    let mut meshlets = Vec::new();
    let mut meshlet_vertices = Vec::new();
    let mut meshlet_triangles: Vec<u8> = Vec::new();
    let mut meshlet_bounds = Vec::new();
    let mut subm = Vec::with_capacity(submeshes.len());
    let mut lod_indices: Vec<u32> = Vec::new();
    let mut lod_table = Vec::new();
    for (input, &(first, len)) in submeshes.iter().zip(&ranges) {
        let sub = &indices[first..first + len];
        let first_meshlet = meshlets.len() as u32;
        if !sub.is_empty() {
            let built = meshopt::build_meshlets(
                sub,
                &adapter(&vertices),
                MESHLET_MAX_VERTICES,
                MESHLET_MAX_TRIANGLES,
                MESHLET_CONE_WEIGHT,
            );
            for m in built.iter() {
                let b = meshopt::compute_meshlet_bounds(m, &adapter(&vertices));
                meshlets.push(Meshlet {
                    vertex_offset: meshlet_vertices.len() as u32,
                    vertex_count: m.vertices.len() as u32,
                    triangle_offset: (meshlet_triangles.len() / 3) as u32,
                    triangle_count: (m.triangles.len() / 3) as u32,
                });
                meshlet_vertices.extend_from_slice(m.vertices);
                meshlet_triangles.extend_from_slice(m.triangles);
                meshlet_bounds.push(MeshletBounds {
                    center: b.center,
                    radius: b.radius,
                    cone_axis: b.cone_axis,
                    cone_cutoff: b.cone_cutoff,
                });
            }
        }
        let mut previous = len;
        for target in &lod_targets {
            // meshoptimizer's simplify takes a target *index* count.
            // Never below `lod.min_triangles`, and never above the source (meshoptimizer
            // asserts on a target larger than its input).
            let target_indices = ((len as f32 * target) as usize / 3 * 3)
                .max(settings.lod.min_triangles as usize * 3)
                .min(len);
            let options = if settings.lod.lock_border {
                meshopt::SimplifyOptions::LockBorder
            } else {
                meshopt::SimplifyOptions::empty()
            };
            let simplified = if sub.is_empty() || target_indices >= previous {
                Vec::new()
            } else {
                meshopt::simplify(
                    sub,
                    &adapter(&vertices),
                    target_indices,
                    settings.lod.target_error,
                    options,
                    None,
                )
            };
            // A level that made no progress over the previous one is written as stalled (0).
            let stalled = simplified.is_empty() || simplified.len() >= previous;
            let row = if stalled {
                MeshLod {
                    first_index: lod_indices.len() as u32,
                    index_count: 0,
                }
            } else {
                previous = simplified.len();
                MeshLod {
                    first_index: lod_indices.len() as u32,
                    index_count: simplified.len() as u32,
                }
            };
            if !stalled {
                lod_indices.extend_from_slice(&simplified);
            }
            lod_table.push(row);
        }
        subm.push(SubMesh {
            first_index: first as u32,
            index_count: len as u32,
            first_meshlet,
            meshlet_count: meshlets.len() as u32 - first_meshlet,
            material_slot: input.material_slot,
            base_vertex: 0,
            bounds: bounds_of(sub.iter().map(|i| vertices[*i as usize].vertex.position)),
        });
    }

    // DESC stores counts as u32: a mesh beyond that cannot be written (it would need a
    // 16 GiB index buffer, far past what a glTF buffer can address anyway).
    if indices.len() > u32::MAX as usize
        || vertex_count > u32::MAX as usize
        || lod_indices.len() > u32::MAX as usize
    {
        return Err(format!(
            "{} indices / {} vertices: more than .hmesh's 32-bit counts hold",
            indices.len(),
            vertex_count
        ));
    }
    let index_width: u8 = if vertex_count <= u16::MAX as usize + 1 {
        2
    } else {
        4
    };
    let desc = MeshDesc {
        vertex_count: vertex_count as u32,
        index_count: indices.len() as u32,
        meshlet_count: meshlets.len() as u32,
        submesh_count: subm.len() as u32,
        material_count: material_refs.len() as u32,
        vertex_stride: std::mem::size_of::<GpuVertex>() as u16,
        index_width,
        flags: if has_tangents { FLAG_HAS_TANGENTS } else { 0 },
        meshlet_max_verts: MESHLET_MAX_VERTICES as u32,
        meshlet_max_tris: MESHLET_MAX_TRIANGLES as u32,
    };
    let bounds = bounds_of(vertices.iter().map(|v| v.vertex.position));
    let index_bytes: Vec<u8> = match index_width {
        2 => indices
            .iter()
            .flat_map(|i| (*i as u16).to_le_bytes())
            .collect(),
        _ => bytemuck::cast_slice(&indices).to_vec(),
    };
    let mut lodt = bytemuck::bytes_of(&LodTableHeader {
        lod_count: lod_targets.len() as u32,
        submesh_count: subm.len() as u32,
    })
    .to_vec();
    lodt.extend_from_slice(bytemuck::cast_slice(&lod_table));
    let gpu_vertices: Vec<GpuVertex> = vertices.iter().map(|c| c.vertex).collect();
    let skin: Vec<GpuSkinVertex> = vertices
        .iter()
        .map(|c| GpuSkinVertex {
            joints: c.joints,
            weights: c.weights,
        })
        .collect();
    let mut chunks: Vec<(u32, &[u8])> = vec![
        (chunk::DESC, bytemuck::bytes_of(&desc)),
        (chunk::BNDS, bytemuck::bytes_of(&bounds)),
        (chunk::VTXS, bytemuck::cast_slice(&gpu_vertices)),
        (chunk::IDXS, &index_bytes),
        (chunk::MLET, bytemuck::cast_slice(&meshlets)),
        (chunk::MLVR, bytemuck::cast_slice(&meshlet_vertices)),
        (chunk::MLTR, &meshlet_triangles),
        (chunk::MLBN, bytemuck::cast_slice(&meshlet_bounds)),
        (chunk::MTRL, bytemuck::cast_slice(material_refs)),
        (chunk::SUBM, bytemuck::cast_slice(&subm)),
    ];
    let skinned = skeleton.is_some() && submeshes.iter().any(|s| s.primitive.skin.is_some());
    if let (true, Some(skeleton)) = (skinned, skeleton) {
        if let Some(bad) = skin
            .iter()
            .flat_map(|s| s.joints)
            .find(|j| *j as usize >= skeleton.len())
        {
            return Err(format!(
                "joint index {bad} outside the skin's {} joints",
                skeleton.len()
            ));
        }
        chunks.push((chunk::SKIN, bytemuck::cast_slice(&skin)));
        chunks.push((chunk::SKEL, bytemuck::cast_slice(skeleton)));
    }
    if !lod_targets.is_empty() {
        chunks.push((chunk::LODI, bytemuck::cast_slice(&lod_indices)));
        chunks.push((chunk::LODT, &lodt));
    }
    Ok(hmesh::write(&chunks))
}
