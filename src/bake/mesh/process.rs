//! Geometry processing with meshoptimizer: per-corner attributes deduplicated into vertices,
//! vertex-cache, overdraw and vertex-fetch optimization, meshlets with bounds and cones, LODs
//! by simplification, bounds — then the `.hmesh` chunks.

use super::chunks::{morph_chunk, shadow_chunk};
use super::settings::MeshSettings;
use super::simplify::SimplifyScope;
use super::vertex::{intern_extras, skin_vertex, Corner, Extra};
use crate::bake::mesh::gltf::Primitive;
use crate::bake::mesh::overdraw;
use crate::bake::timings;
use crate::format::hmesh::{
    self, chunk, oct_encode, oct_encode_tangent, GpuVertex, LodTableHeader, MeshBounds, MeshDesc,
    MeshLod, Meshlet, MeshletBounds, SubMesh, FLAG_HAS_TANGENTS,
};
use crate::format::hmesh::{GpuJoint, GpuSkinVertex};
use meshopt::VertexDataAdapter;
use rayon::prelude::*;
use std::ops::Range;

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

/// A submesh's deduplicated vertices, its indices into them, and whether it has tangents.
type BuiltVertices = (Vec<Corner>, Vec<u32>, bool);

/// One submesh's deduplicated vertices and its indices into them, whether it has tangents,
/// and its [`Extra`] table when it has a second UV set or colors.
fn submesh_vertices(
    input: &SubmeshInput<'_>,
    settings: &MeshSettings,
) -> (BuiltVertices, Option<Vec<Extra>>) {
    let p = input.primitive;
    let generates_normals = settings.normals && p.normals.is_none();
    let generates_tangents =
        settings.tangents && p.tangents.is_none() && input.wants_tangents && p.uvs.is_some();
    let extras = intern_extras(p);
    let ids = extras.as_ref().map(|(ids, _)| &ids[..]);
    let built = if generates_normals || generates_tangents {
        vertices_from_corners(input, settings, ids)
    } else {
        vertices_from_source(p, settings, ids)
    };
    (built, extras.map(|(_, table)| table))
}

/// [`submesh_vertices`] when every attribute is the source vertex's: each vertex is built
/// once and the remap, which numbers vertices by first use through the indices just as it
/// numbers expanded corners, merges identical ones: the same buffers as
/// [`vertices_from_corners`], from a third to a sixth of the vertices.
fn vertices_from_source(
    p: &Primitive,
    settings: &MeshSettings,
    extra_ids: Option<&[u32]>,
) -> BuiltVertices {
    let source: Vec<Corner> = (0..p.positions.len())
        .map(|v| Corner {
            vertex: GpuVertex {
                position: p.positions[v],
                normal: oct_encode(match &p.normals {
                    Some(n) if settings.normals => n[v],
                    _ => [0.0, 0.0, 1.0],
                }),
                tangent: match &p.tangents {
                    Some(t) if settings.tangents => {
                        oct_encode_tangent([t[v][0], t[v][1], t[v][2]], t[v][3])
                    }
                    _ => [0, 0],
                },
                uv: p.uvs.as_ref().map_or([0.0; 2], |uv| uv[v]),
            },
            joints: p.skin.as_ref().map_or([0; 4], |skin| skin[v].0),
            weights: p
                .skin
                .as_ref()
                .map_or([1.0, 0.0, 0.0, 0.0], |skin| skin[v].1),
            extra: extra_ids.map_or(0, |ids| ids[v]),
        })
        .collect();
    let (unique, remap) = meshopt::generate_vertex_remap(&source, Some(&p.indices));
    let local_vertices = meshopt::remap_vertex_buffer(&source, unique, &remap);
    let local_indices = meshopt::remap_index_buffer(Some(&p.indices), source.len(), &remap);
    (
        local_vertices,
        local_indices,
        settings.tangents && p.tangents.is_some(),
    )
}

/// [`submesh_vertices`] through per-corner streams, so generated normals and tangents can
/// differ per face; meshoptimizer's remap then merges identical corners back into shared
/// vertices.
fn vertices_from_corners(
    input: &SubmeshInput<'_>,
    settings: &MeshSettings,
    extra_ids: Option<&[u32]>,
) -> BuiltVertices {
    let p = input.primitive;
    let normals: Vec<[f32; 3]> = match (&p.normals, settings.normals) {
        (Some(n), true) => p.indices.iter().map(|i| n[*i as usize]).collect(),
        (_, true) => {
            let positions: &[[f32; 3]] = &p.positions;
            let adapter =
                VertexDataAdapter::new(bytemuck::cast_slice(positions), 12, 0).expect("positions");
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
            // MikkTSpace takes V up, glTF's V (and OBJ's, flipped on import) points down: run it
            // on V-negated UVs, as glTF viewers and Bevy do, or every bitangent sign (w) comes
            // out inverted. The tangent (along U) is the same either way.
            let v_up: Vec<[f32; 2]> = uvs.iter().map(|&[u, v]| [u, -v]).collect();
            Some(meshopt::generate_tangents(
                None,
                &corner_positions,
                &normals,
                &v_up,
                meshopt::TangentOptions::Compatible,
            ))
        }
        _ => None,
    };
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
                extra: extra_ids.map_or(0, |ids| ids[p.indices[k] as usize]),
            }
        })
        .collect();
    let (unique, remap) = meshopt::generate_vertex_remap(&corners, None);
    let local_vertices = meshopt::remap_vertex_buffer(&corners, unique, &remap);
    let local_indices = meshopt::remap_index_buffer(None, corners.len(), &remap);
    (local_vertices, local_indices, tangents.is_some())
}

/// One submesh's meshlets (offsets into its own meshlet vertices and triangles; vertex
/// indices into the whole buffer), its LOD index lists (empty for a level that made no
/// progress), and its bounds.
struct SubmeshDetail {
    meshlets: Vec<Meshlet>,
    meshlet_vertices: Vec<u32>,
    meshlet_triangles: Vec<u8>,
    meshlet_bounds: Vec<MeshletBounds>,
    lods: Vec<Vec<u32>>,
    bounds: MeshBounds,
}

/// Meshlets, LODs and bounds of the submesh with indices `sub` into `vertices`, which name only
/// the submesh's own `vertex_range`.
fn submesh_detail(
    sub: &[u32],
    vertices: &[Corner],
    vertex_range: Range<usize>,
    scope: Option<&SimplifyScope>,
    lod_targets: &[f32],
    settings: &MeshSettings,
) -> SubmeshDetail {
    let own = &vertices[vertex_range.clone()];
    let base = vertex_range.start as u32;
    debug_assert!(sub.iter().all(|i| vertex_range.contains(&(*i as usize))));
    let mut detail = SubmeshDetail {
        meshlets: Vec::new(),
        meshlet_vertices: Vec::new(),
        meshlet_triangles: Vec::new(),
        meshlet_bounds: Vec::new(),
        lods: Vec::with_capacity(lod_targets.len()),
        bounds: bounds_of(sub.iter().map(|i| vertices[*i as usize].vertex.position)),
    };
    if !sub.is_empty() {
        // meshoptimizer's clusterizer only looks at the vertices the indices name: its
        // meshlets over the submesh's own vertices are the ones over the whole buffer, less
        // `base`.
        let local: Vec<u32> = sub.iter().map(|i| i - base).collect();
        let built = meshopt::build_meshlets(
            &local,
            &adapter(own),
            MESHLET_MAX_VERTICES,
            MESHLET_MAX_TRIANGLES,
            MESHLET_CONE_WEIGHT,
        );
        for m in built.iter() {
            let b = meshopt::compute_meshlet_bounds(m, &adapter(own));
            detail.meshlets.push(Meshlet {
                vertex_offset: detail.meshlet_vertices.len() as u32,
                vertex_count: m.vertices.len() as u32,
                triangle_offset: (detail.meshlet_triangles.len() / 3) as u32,
                triangle_count: (m.triangles.len() / 3) as u32,
            });
            detail
                .meshlet_vertices
                .extend(m.vertices.iter().map(|v| v + base));
            detail.meshlet_triangles.extend_from_slice(m.triangles);
            detail.meshlet_bounds.push(MeshletBounds {
                center: b.center,
                radius: b.radius,
                cone_axis: b.cone_axis,
                cone_cutoff: b.cone_cutoff,
            });
        }
    }
    let simplify_input = match scope {
        Some(scope) if !sub.is_empty() => Some(scope.input(vertices, vertex_range, sub)),
        _ => None,
    };
    let len = sub.len();
    let mut previous = len;
    for target in lod_targets {
        // meshoptimizer's simplify takes a target *index* count. Never below
        // `lod.min_triangles`, and never above the source (meshoptimizer asserts on a target
        // larger than its input).
        let target_indices = ((len as f32 * target) as usize / 3 * 3)
            .max(settings.lod.min_triangles as usize * 3)
            .min(len);
        let options = if settings.lod.lock_border {
            meshopt::SimplifyOptions::LockBorder
        } else {
            meshopt::SimplifyOptions::empty()
        };
        let simplified = match &simplify_input {
            Some(input) if target_indices < previous => {
                input.simplify(target_indices, settings.lod.target_error, options)
            }
            _ => Vec::new(),
        };
        if simplified.is_empty() || simplified.len() >= previous {
            detail.lods.push(Vec::new()); // stalled
        } else {
            previous = simplified.len();
            detail.lods.push(simplified);
        }
    }
    detail
}

/// Builds an `.hmesh` from submeshes and the material refs (MTRL, in slot order).
pub fn build(
    submeshes: &[SubmeshInput<'_>],
    material_refs: &[u64],
    skeleton: Option<&[GpuJoint]>,
    morph_weights: &[f32],
    settings: &MeshSettings,
) -> Result<Vec<u8>, String> {
    let Gathered {
        mut vertices,
        mut indices,
        ranges,
        vertex_ranges,
        has_tangents,
        extras,
    } = gather_submeshes(submeshes, settings);
    let vertex_count = vertices.len();
    if settings.optimize {
        vertices = optimize(vertices, &mut indices, &ranges, &vertex_ranges, settings);
    }

    // Meshlets, LODs and bounds per submesh, over the final vertex order; each on the
    // submesh's own vertices (see `SimplifyScope` for the LODs).
    let lod_targets: Vec<f32> = (1..=settings.lod.levels)
        .map(|l| 0.5f32.powi(l as i32))
        .collect();
    let details = submesh_details(
        &indices,
        &vertices,
        (&ranges, &vertex_ranges),
        &lod_targets,
        settings,
    );
    let Laid {
        meshlets,
        meshlet_vertices,
        meshlet_triangles,
        meshlet_bounds,
        subm,
        lod_indices,
        lod_table,
    } = lay_out_details(submeshes, &ranges, details);

    let (desc, index_bytes) = desc_and_indices(
        &indices,
        vertex_count,
        lod_indices.len(),
        [meshlets.len(), subm.len(), material_refs.len()],
        has_tangents,
    )?;
    let bounds = bounds_of(vertices.iter().map(|v| v.vertex.position));
    let mut lodt = bytemuck::bytes_of(&LodTableHeader {
        lod_count: lod_targets.len() as u32,
        submesh_count: subm.len() as u32,
    })
    .to_vec();
    lodt.extend_from_slice(bytemuck::cast_slice(&lod_table));
    let gpu_vertices: Vec<GpuVertex> = vertices.iter().map(|c| c.vertex).collect();
    let skin: Vec<GpuSkinVertex> = vertices.iter().map(skin_vertex).collect();
    let skinned = skeleton.is_some() && submeshes.iter().any(|s| s.primitive.skin.is_some());
    let shadow = settings
        .shadow
        .then(|| shadow_chunk(&vertices, &indices, &subm, skinned, settings.optimize));
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
    if let (true, Some(skeleton)) = (skinned, skeleton) {
        check_joints(&skin, skeleton)?;
        chunks.push((chunk::SKIN, bytemuck::cast_slice(&skin)));
        chunks.push((chunk::SKEL, bytemuck::cast_slice(skeleton)));
    }
    if !lod_targets.is_empty() {
        chunks.push((chunk::LODI, bytemuck::cast_slice(&lod_indices)));
        chunks.push((chunk::LODT, &lodt));
    }
    if let Some(shadow) = &shadow {
        chunks.push((chunk::SHDW, shadow));
    }
    // Built only when a submesh has the attribute.
    let uvs1: Vec<[f32; 2]> = if submeshes.iter().any(|s| s.primitive.uvs1.is_some()) {
        extra_column(&vertices, &extras, |e| e.uv1)
    } else {
        Vec::new()
    };
    if !uvs1.is_empty() {
        chunks.push((chunk::UVS1, bytemuck::cast_slice(&uvs1)));
    }
    let colors: Vec<[u16; 4]> = if submeshes.iter().any(|s| s.primitive.colors.is_some()) {
        extra_column(&vertices, &extras, |e| e.color)
    } else {
        Vec::new()
    };
    if !colors.is_empty() {
        chunks.push((chunk::COLR, bytemuck::cast_slice(&colors)));
    }
    let morph = morph_chunk(
        submeshes.iter().map(|s| s.primitive.morph.as_ref()),
        &vertices,
        &vertex_ranges,
        &extras,
        morph_weights,
        settings,
        has_tangents,
    );
    if let Some(morph) = &morph {
        chunks.push((chunk::MRPH, morph));
    }
    Ok(hmesh::write(&chunks))
}

/// Each submesh's meshlets, LODs and bounds (`ranges`: its index range and vertex range),
/// built in parallel on the bake's pool, in submesh order.
fn submesh_details(
    indices: &[u32],
    vertices: &[Corner],
    (ranges, vertex_ranges): (&[(usize, usize)], &[Range<usize>]),
    lod_targets: &[f32],
    settings: &MeshSettings,
) -> Vec<SubmeshDetail> {
    let scope = (!lod_targets.is_empty()).then(|| SimplifyScope::new(vertices, ranges.len() <= 1));
    // Each submesh's meshlets and LODs are built in parallel on the bake's pool, then
    // appended in submesh order.
    let parent = timings::current();
    timings::fork(|| {
        ranges
            .par_iter()
            .zip(vertex_ranges)
            .enumerate()
            .map(|(index, (&(first, len), vertex_range))| {
                timings::slice(parent.as_ref(), &format!("submesh{index}/lods"), || {
                    submesh_detail(
                        &indices[first..first + len],
                        vertices,
                        vertex_range.clone(),
                        scope.as_ref(),
                        lod_targets,
                        settings,
                    )
                })
            })
            .collect()
    })
}

/// An error when a vertex names a joint the skeleton does not have.
fn check_joints(skin: &[GpuSkinVertex], skeleton: &[GpuJoint]) -> Result<(), String> {
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
    Ok(())
}

/// The DESC record and the index buffer at its width (16 bits when every vertex fits); an
/// error when a count outgrows DESC's 32 bits. `counts`: meshlets, submeshes, materials.
fn desc_and_indices(
    indices: &[u32],
    vertex_count: usize,
    lod_index_count: usize,
    counts: [usize; 3],
    has_tangents: bool,
) -> Result<(MeshDesc, Vec<u8>), String> {
    let [meshlet_count, submesh_count, material_count] = counts;
    // DESC stores counts as u32: a mesh beyond that cannot be written (it would need a
    // 16 GiB index buffer, far past what a glTF buffer can address anyway).
    if indices.len() > u32::MAX as usize
        || vertex_count > u32::MAX as usize
        || lod_index_count > u32::MAX as usize
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
        meshlet_count: meshlet_count as u32,
        submesh_count: submesh_count as u32,
        material_count: material_count as u32,
        vertex_stride: std::mem::size_of::<GpuVertex>() as u16,
        index_width,
        flags: if has_tangents { FLAG_HAS_TANGENTS } else { 0 },
        meshlet_max_verts: MESHLET_MAX_VERTICES as u32,
        meshlet_max_tris: MESHLET_MAX_TRIANGLES as u32,
    };
    let index_bytes: Vec<u8> = match index_width {
        2 => indices
            .iter()
            .flat_map(|i| (*i as u16).to_le_bytes())
            .collect(),
        _ => bytemuck::cast_slice(indices).to_vec(),
    };
    Ok((desc, index_bytes))
}

/// A per-vertex column of the extras table (one value per final vertex).
fn extra_column<T>(vertices: &[Corner], extras: &[Extra], column: impl Fn(&Extra) -> T) -> Vec<T> {
    vertices
        .iter()
        .map(|c| column(&extras[c.extra as usize]))
        .collect()
}

/// The submeshes' vertices and indices, appended in submesh order.
struct Gathered {
    vertices: Vec<Corner>,
    indices: Vec<u32>,
    /// Per submesh: its index range (first, count).
    ranges: Vec<(usize, usize)>,
    /// Per submesh: its vertex range.
    vertex_ranges: Vec<Range<usize>>,
    has_tangents: bool,
    /// Every submesh's extras in one table; entry 0 is the default of submeshes without.
    extras: Vec<Extra>,
}

/// Builds every submesh's vertices and indices and appends them in submesh order.
fn gather_submeshes(submeshes: &[SubmeshInput<'_>], settings: &MeshSettings) -> Gathered {
    let mut vertices: Vec<Corner> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    // Per submesh: its index range and its vertex range. Each submesh's vertices are its own
    // and appended in submesh order, and `optimize_vertex_fetch` numbers vertices by first
    // use, so the vertex ranges stay the same through it.
    let mut ranges = Vec::with_capacity(submeshes.len());
    let mut vertex_ranges: Vec<std::ops::Range<usize>> = Vec::with_capacity(submeshes.len());
    // Each submesh's vertices and indices are built on their own, in parallel on the bake's
    // pool, then appended in submesh order: the same buffers as building them one by one.
    let parent = timings::current();
    let built: Vec<_> = timings::fork(|| {
        submeshes
            .par_iter()
            .enumerate()
            .map(|(index, input)| {
                timings::slice(parent.as_ref(), &format!("submesh{index}/vertices"), || {
                    submesh_vertices(input, settings)
                })
            })
            .collect()
    });
    let mut has_tangents = false;
    // Every submesh's extras in one table; entry 0 is the default of submeshes without.
    let mut extras = vec![Extra::DEFAULT];
    for ((mut local_vertices, local_indices, tangents), local_extras) in built {
        has_tangents |= tangents;
        if let Some(table) = local_extras {
            let base = extras.len() as u32;
            local_vertices.iter_mut().for_each(|c| c.extra += base);
            extras.extend(table);
        }
        let base = vertices.len() as u32;
        let first = indices.len();
        indices.extend(local_indices.into_iter().map(|i| i + base));
        vertices.extend(local_vertices);
        ranges.push((first, indices.len() - first));
        vertex_ranges.push(base as usize..vertices.len());
    }
    Gathered {
        vertices,
        indices,
        ranges,
        vertex_ranges,
        has_tangents,
        extras,
    }
}

/// Optimizes each submesh's triangle order (vertex cache, then overdraw), then the vertex
/// order for fetch; returns the reordered vertices.
fn optimize(
    mut vertices: Vec<Corner>,
    indices: &mut Vec<u32>,
    ranges: &[(usize, usize)],
    vertex_ranges: &[Range<usize>],
    settings: &MeshSettings,
) -> Vec<Corner> {
    // Each submesh is optimized on its own vertices (meshoptimizer's cost is linear in the
    // vertex count it is given), with exactly the result of giving it the whole buffer: the
    // vertex cache optimizer only looks at the vertices the indices name, and the overdraw
    // optimizer also needs the whole mesh's centroid, which its port takes as a parameter.
    let centroid = overdraw::mesh_centroid(vertices.iter().map(|c| c.vertex.position));
    // The submeshes' index ranges follow each other: one mutable slice each, optimized
    // in parallel.
    let mut parts: Vec<(&mut [u32], Range<usize>)> = Vec::with_capacity(ranges.len());
    let mut rest: &mut [u32] = indices;
    for (&(_, len), vertex_range) in ranges.iter().zip(vertex_ranges) {
        let (range, tail) = std::mem::take(&mut rest).split_at_mut(len);
        parts.push((range, vertex_range.clone()));
        rest = tail;
    }
    let vertices_ref = &vertices;
    let parent = timings::current();
    timings::fork(|| {
        parts
            .into_par_iter()
            .enumerate()
            .for_each(|(index, (range, vertex_range))| {
                timings::slice(parent.as_ref(), &format!("submesh{index}/order"), || {
                    let base = vertex_range.start as u32;
                    range.iter_mut().for_each(|i| *i -= base);
                    meshopt::optimize_vertex_cache_in_place(range, vertex_range.len());
                    let positions: Vec<[f32; 3]> = vertices_ref[vertex_range]
                        .iter()
                        .map(|c| c.vertex.position)
                        .collect();
                    let threshold = settings.overdraw_threshold;
                    overdraw::optimize_overdraw(range, &positions, centroid, threshold);
                    range.iter_mut().for_each(|i| *i += base);
                })
            })
    });
    vertices = meshopt::optimize_vertex_fetch(indices, &vertices);
    vertices
}

/// The submeshes' meshlets, LODs and SUBM records, appended in submesh order.
struct Laid {
    meshlets: Vec<Meshlet>,
    meshlet_vertices: Vec<u32>,
    meshlet_triangles: Vec<u8>,
    meshlet_bounds: Vec<MeshletBounds>,
    subm: Vec<SubMesh>,
    lod_indices: Vec<u32>,
    lod_table: Vec<MeshLod>,
}

/// Appends each submesh's meshlets and LOD levels (offsets rebased) and writes its SUBM record.
fn lay_out_details(
    submeshes: &[SubmeshInput<'_>],
    ranges: &[(usize, usize)],
    details: Vec<SubmeshDetail>,
) -> Laid {
    let mut meshlets = Vec::new();
    let mut meshlet_vertices = Vec::new();
    let mut meshlet_triangles: Vec<u8> = Vec::new();
    let mut meshlet_bounds = Vec::new();
    let mut subm = Vec::with_capacity(submeshes.len());
    let mut lod_indices: Vec<u32> = Vec::new();
    let mut lod_table = Vec::new();
    for ((input, &(first, len)), detail) in submeshes.iter().zip(ranges).zip(details) {
        let first_meshlet = meshlets.len() as u32;
        let (vertex_offset, triangle_offset) = (
            meshlet_vertices.len() as u32,
            (meshlet_triangles.len() / 3) as u32,
        );
        meshlets.extend(detail.meshlets.iter().map(|m| Meshlet {
            vertex_offset: m.vertex_offset + vertex_offset,
            triangle_offset: m.triangle_offset + triangle_offset,
            ..*m
        }));
        meshlet_vertices.extend(detail.meshlet_vertices);
        meshlet_triangles.extend(detail.meshlet_triangles);
        meshlet_bounds.extend(detail.meshlet_bounds);
        for level in detail.lods {
            // A level that made no progress over the previous one is written as stalled (0).
            lod_table.push(MeshLod {
                first_index: lod_indices.len() as u32,
                index_count: level.len() as u32,
            });
            lod_indices.extend(level);
        }
        subm.push(SubMesh {
            first_index: first as u32,
            index_count: len as u32,
            first_meshlet,
            meshlet_count: meshlets.len() as u32 - first_meshlet,
            material_slot: input.material_slot,
            base_vertex: 0,
            bounds: detail.bounds,
        });
    }
    Laid {
        meshlets,
        meshlet_vertices,
        meshlet_triangles,
        meshlet_bounds,
        subm,
        lod_indices,
        lod_table,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytemuck::Zeroable;

    /// The per-vertex path builds exactly the buffers the per-corner path builds, on a
    /// primitive with source normals, tangents, UVs and skin, two vertices with identical
    /// attributes (merged), a vertex no triangle names (dropped), and indices that reach
    /// vertices out of order.
    #[test]
    fn source_vertices_and_corners_build_the_same_buffers() {
        let mut positions: Vec<[f32; 3]> = (0..10)
            .map(|i| [(i % 3) as f32, (i / 3) as f32, (i * i) as f32 * 0.1])
            .collect();
        let mut normals = vec![[0.6, 0.0, 0.8]; 10];
        normals[2] = [0.0, 0.6, 0.8];
        let tangents = vec![[1.0, 0.0, 0.0, -1.0]; 10];
        let mut uvs: Vec<[f32; 2]> = (0..10).map(|i| [i as f32 / 10.0, 0.5]).collect();
        let mut skin: Vec<([u16; 4], [f32; 4])> = (0..10)
            .map(|i| ([i as u16 % 2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]))
            .collect();
        // A second UV set and colors.
        let mut uvs1: Vec<[f32; 2]> = (0..10).map(|i| [0.5, i as f32]).collect();
        let mut colors = vec![[1.0, 0.5, 0.25, 1.0]; 10];
        colors[3] = [0.0, 0.0, 0.0, 1.0];
        // Vertex 7 duplicates vertex 4 in every attribute; vertex 3 duplicates vertex 0 in all
        // but its color; no triangle names vertex 9.
        positions[7] = positions[4];
        uvs[7] = uvs[4];
        uvs1[7] = uvs1[4];
        skin[7] = skin[4];
        positions[3] = positions[0];
        uvs[3] = uvs[0];
        uvs1[3] = uvs1[0];
        skin[3] = skin[0];
        let primitive = Primitive {
            positions,
            normals: Some(normals),
            tangents: Some(tangents),
            uvs: Some(uvs),
            uvs1: Some(uvs1),
            colors: Some(colors),
            indices: vec![4, 0, 1, 8, 7, 5, 2, 7, 6, 0, 4, 3],
            material: None,
            skin: Some(skin),
            morph: None,
        };
        let input = SubmeshInput {
            primitive: &primitive,
            material_slot: 0,
            wants_tangents: true,
        };
        for (normals, tangents) in [(true, true), (false, true), (true, false)] {
            let settings = MeshSettings {
                normals,
                tangents,
                ..MeshSettings::default()
            };
            let extras = intern_extras(&primitive).unwrap();
            let ids = Some(&extras.0[..]);
            let from_source = vertices_from_source(&primitive, &settings, ids);
            let from_corners = vertices_from_corners(&input, &settings, ids);
            assert_eq!(
                from_source, from_corners,
                "normals {normals}, tangents {tangents}"
            );
            assert_eq!(
                from_source.0.len(),
                8,
                "7 merged into 4, 3 kept apart from 0 by its color, 9 dropped"
            );
        }
    }

    /// A vertex at `position` (the rest zeroed: only positions matter to the simplifier).
    fn corner(position: [f32; 3]) -> Corner {
        let mut c = Corner::zeroed();
        c.vertex.position = position;
        c
    }

    /// Submeshes that share positions the way separate primitives of one model do: a bumpy
    /// sheet cut into bands, each band with its own copy of the rows it shares with its
    /// neighbours (one copy written with -0.0 where the other has 0.0), one band with a UV
    /// seam (two vertices at one position within the band), a stitch strip whose vertices sit
    /// on a seam two bands already share (three submeshes at one position), and a large
    /// submesh far away that holds the whole mesh's extremes. Returns the vertex buffer and
    /// each submesh's vertex range and indices (into the whole buffer).
    #[allow(clippy::type_complexity)]
    fn shared_seams() -> (Vec<Corner>, Vec<(Range<usize>, Vec<u32>)>) {
        let mut noise = 0x9e37_79b9u32;
        let mut next = move || {
            noise ^= noise << 13;
            noise ^= noise >> 17;
            noise ^= noise << 5;
            (noise >> 8) as f32 / (1u32 << 24) as f32
        };
        let height = |x: usize, y: usize| ((x as f32 * 0.7).sin() * (y as f32 * 0.5).cos()) * 0.3;
        let (columns, band_rows) = (24usize, 6usize);
        let mut vertices: Vec<Corner> = Vec::new();
        let mut submeshes = Vec::new();
        for band in 0..4 {
            let base = vertices.len();
            let rows = band * band_rows..=(band + 1) * band_rows;
            for y in rows.clone() {
                for x in 0..=columns {
                    let bump = if y % band_rows == 0 {
                        0.0
                    } else {
                        next() * 0.05
                    };
                    let mut p = [x as f32, y as f32, height(x, y) + bump];
                    if band % 2 == 1 && y == *rows.start() && x == 0 {
                        p[0] = -0.0; // the same position as band - 1's (0.0, y)
                    }
                    vertices.push(corner(p));
                }
            }
            let row = |r: usize| (base + r * (columns + 1)) as u32;
            let mut indices = Vec::new();
            for r in 0..band_rows {
                for x in 0..columns as u32 {
                    let (a, b) = (row(r) + x, row(r + 1) + x);
                    indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
                }
            }
            if band == 2 {
                // A UV seam down the middle column: the right half uses copies.
                let seam = columns as u32 / 2;
                let first_copy = vertices.len() as u32;
                for r in 0..=band_rows {
                    vertices.push(vertices[(row(r) + seam) as usize]);
                }
                for t in indices.chunks_exact_mut(3) {
                    let right = t
                        .iter()
                        .any(|i| (i - base as u32) % (columns as u32 + 1) > seam);
                    for i in t.iter_mut().filter(|_| right) {
                        let local = *i - base as u32;
                        if local % (columns as u32 + 1) == seam {
                            *i = first_copy + local / (columns as u32 + 1);
                        }
                    }
                }
            }
            submeshes.push((base..vertices.len(), indices));
        }
        // The stitch: a strip of thin triangles along the seam of bands 0 and 1 (y = 6).
        let base = vertices.len();
        let y = band_rows as f32;
        for x in 0..=columns {
            vertices.push(corner([x as f32, y, height(x, band_rows)]));
            vertices.push(corner([x as f32 + 0.5, y + 0.25, 0.1]));
        }
        let indices = (0..columns as u32)
            .flat_map(|x| {
                let a = base as u32 + 2 * x;
                [a, a + 2, a + 1, a + 1, a + 2, a + 3]
            })
            .collect();
        submeshes.push((base..vertices.len(), indices));
        // Far away and larger: the whole mesh's extent comes from here.
        let base = vertices.len();
        for y in 0..=10 {
            for x in 0..=10 {
                vertices.push(corner([
                    100.0 + x as f32 * 9.0,
                    -50.0 + y as f32 * 7.0,
                    -20.0 + next() * 40.0,
                ]));
            }
        }
        let indices = (0..10u32)
            .flat_map(|y| (0..10u32).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                let a = base as u32 + y * 11 + x;
                [a, a + 11, a + 1, a + 1, a + 11, a + 12]
            })
            .collect();
        submeshes.push((base..vertices.len(), indices));
        (vertices, submeshes)
    }

    #[test]
    fn a_submesh_simplified_in_its_scope_matches_the_whole_buffer() {
        let (vertices, submeshes) = shared_seams();
        let scope = SimplifyScope::new(&vertices, false);
        let positions: Vec<[f32; 3]> = vertices.iter().map(|c| c.vertex.position).collect();
        let whole = VertexDataAdapter::new(bytemuck::cast_slice(&positions), 12, 0).unwrap();
        // The same without the welds across submeshes: only the extent brought along.
        let extent_only = SimplifyScope {
            span: Vec::new(),
            extremes: scope.extremes.clone(),
        };
        let (mut compared, mut progressed, mut scope_mattered, mut seams_mattered) = (0, 0, 0, 0);
        for (s, (own, sub)) in submeshes.iter().enumerate() {
            let input = scope.input(&vertices, own.clone(), sub);
            let unwelded = extent_only.input(&vertices, own.clone(), sub);
            let alone: Vec<[f32; 3]> = positions[own.clone()].to_vec();
            let alone = VertexDataAdapter::new(bytemuck::cast_slice(&alone), 12, 0).unwrap();
            let local: Vec<u32> = sub.iter().map(|i| i - own.start as u32).collect();
            for options in [
                meshopt::SimplifyOptions::empty(),
                meshopt::SimplifyOptions::LockBorder,
            ] {
                for (target, error) in [(0.5, 0.05), (0.25, 0.05), (0.1, 0.5), (0.5, 0.002)] {
                    let target = (sub.len() as f32 * target) as usize / 3 * 3;
                    let expected = meshopt::simplify(sub, &whole, target, error, options, None);
                    let ours = input.simplify(target, error, options);
                    assert_eq!(
                        ours, expected,
                        "submesh {s}, {options:?}, {target}, {error}"
                    );
                    progressed += usize::from(expected.len() < sub.len());
                    // The submesh's vertices alone (what a naive local call sees) give a
                    // different answer where the seams or the extent matter.
                    let naive: Vec<u32> =
                        meshopt::simplify(&local, &alone, target, error, options, None)
                            .into_iter()
                            .map(|i| i + own.start as u32)
                            .collect();
                    scope_mattered += usize::from(naive != expected);
                    seams_mattered +=
                        usize::from(unwelded.simplify(target, error, options) != expected);
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 6 * 2 * 4);
        println!(
            "{progressed} simplified; {scope_mattered} differ from a call on the submesh's \
             vertices alone, {seams_mattered} from one without the welds"
        );
        assert!(progressed >= 24, "{progressed} of {compared} simplified");
        assert!(scope_mattered >= 10, "{scope_mattered} of {compared}");
        assert!(seams_mattered >= 4, "{seams_mattered} of {compared}");
    }

    #[test]
    fn cache_order_and_meshlets_on_a_submeshs_own_vertices_match_the_whole_buffer() {
        let (vertices, submeshes) = shared_seams();
        let whole = adapter(&vertices);
        for (s, (own, sub)) in submeshes.iter().enumerate() {
            let base = own.start as u32;
            let mut expected = sub.clone();
            meshopt::optimize_vertex_cache_in_place(&mut expected, vertices.len());
            let mut ours: Vec<u32> = sub.iter().map(|i| i - base).collect();
            meshopt::optimize_vertex_cache_in_place(&mut ours, own.len());
            let ours: Vec<u32> = ours.iter().map(|i| i + base).collect();
            assert_eq!(ours, expected, "submesh {s}: vertex cache order");

            let limits = (
                MESHLET_MAX_VERTICES,
                MESHLET_MAX_TRIANGLES,
                MESHLET_CONE_WEIGHT,
            );
            let expected = meshopt::build_meshlets(&expected, &whole, limits.0, limits.1, limits.2);
            let local: Vec<u32> = ours.iter().map(|i| i - base).collect();
            let own_adapter = adapter(&vertices[own.clone()]);
            let built = meshopt::build_meshlets(&local, &own_adapter, limits.0, limits.1, limits.2);
            assert_eq!(built.len(), expected.len(), "submesh {s}: meshlets");
            for (m, e) in built.iter().zip(expected.iter()) {
                let shifted: Vec<u32> = m.vertices.iter().map(|v| v + base).collect();
                assert_eq!((&shifted[..], m.triangles), (e.vertices, e.triangles));
                let (a, b) = (
                    meshopt::compute_meshlet_bounds(m, &own_adapter),
                    meshopt::compute_meshlet_bounds(e, &whole),
                );
                assert_eq!(
                    (a.center, a.radius, a.cone_axis, a.cone_cutoff),
                    (b.center, b.radius, b.cone_axis, b.cone_cutoff)
                );
            }
        }
    }
}
