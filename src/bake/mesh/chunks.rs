//! The `.hmesh` chunks built from the final vertices besides the main geometry: morph
//! targets (`MRPH`) and the depth-only shadow geometry (`SHDW`).

use super::settings::MeshSettings;
use super::vertex::{Corner, Extra};
use crate::bake::mesh::gltf::MorphDeltas;
use crate::format::hmesh::{self, GpuSkinVertex, MeshLod, SubMesh};
use bytemuck::{Pod, Zeroable};
use std::ops::Range;

/// The `MRPH` chunk when a submesh has morph targets: every target's delta for every final
/// vertex (zero for vertices of submeshes without targets, or outside a target's mesh).
/// Normal deltas are kept when normals are; tangent deltas when the mesh has real tangents.
pub(super) fn morph_chunk<'m>(
    morphs: impl Iterator<Item = Option<&'m MorphDeltas>>,
    vertices: &[Corner],
    vertex_ranges: &[Range<usize>],
    extras: &[Extra],
    morph_weights: &[f32],
    settings: &MeshSettings,
    has_tangents: bool,
) -> Option<Vec<u8>> {
    let morphs: Vec<Option<&MorphDeltas>> = morphs.collect();
    if morphs.iter().all(Option::is_none) || morph_weights.is_empty() {
        return None;
    }
    let (targets, count) = (morph_weights.len(), vertices.len());
    let zeros = || vec![vec![[0.0f32; 3]; count]; targets];
    let with_normals = settings.normals && morphs.iter().flatten().any(|m| m.normals.is_some());
    let with_tangents = has_tangents && morphs.iter().flatten().any(|m| m.tangents.is_some());
    let mut data = hmesh::MorphTargetData {
        weights: morph_weights.to_vec(),
        positions: zeros(),
        normals: with_normals.then(zeros),
        tangents: with_tangents.then(zeros),
    };
    for (submesh, range) in vertex_ranges.iter().enumerate() {
        let Some(morph) = morphs[submesh] else {
            continue;
        };
        let first = morph.first_target as usize;
        for v in range.clone() {
            let Some(source) = extras[vertices[v].extra as usize].morph_source else {
                continue;
            };
            let source = source as usize;
            for (local, deltas) in morph.positions.iter().enumerate() {
                data.positions[first + local][v] = deltas[source];
            }
            if let (Some(out), Some(deltas)) = (&mut data.normals, &morph.normals) {
                for (local, deltas) in deltas.iter().enumerate() {
                    out[first + local][v] = deltas[source];
                }
            }
            if let (Some(out), Some(deltas)) = (&mut data.tangents, &morph.tangents) {
                for (local, deltas) in deltas.iter().enumerate() {
                    out[first + local][v] = deltas[source];
                }
            }
        }
    }
    Some(hmesh::write_morph(&data, count))
}

/// What a shadow vertex keeps: its position, and its skinning when the mesh is skinned.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
struct ShadowVertex {
    position: [f32; 3],
    joints: [u16; 4],
    weights: [f32; 4],
}

/// The `SHDW` chunk: the final vertices welded down to what a depth pass reads (corners that
/// differ only in normal, tangent or UV become one vertex), each submesh's triangles kept as
/// a range, then vertex-cache and vertex-fetch optimized like the main geometry.
pub(super) fn shadow_chunk(
    vertices: &[Corner],
    indices: &[u32],
    submeshes: &[SubMesh],
    skinned: bool,
    optimize: bool,
) -> Vec<u8> {
    let keys: Vec<ShadowVertex> = vertices
        .iter()
        .map(|c| ShadowVertex {
            position: c.vertex.position,
            joints: if skinned { c.joints } else { [0; 4] },
            weights: if skinned { c.weights } else { [0.0; 4] },
        })
        .collect();
    let (unique, remap) = meshopt::generate_vertex_remap(&keys, None);
    let mut welded = meshopt::remap_vertex_buffer(&keys, unique, &remap);
    let mut shadow_indices = meshopt::remap_index_buffer(Some(indices), keys.len(), &remap);
    let ranges: Vec<MeshLod> = submeshes
        .iter()
        .map(|s| MeshLod {
            first_index: s.first_index,
            index_count: s.index_count,
        })
        .collect();
    if optimize {
        for s in submeshes {
            let range = &mut shadow_indices
                [s.first_index as usize..(s.first_index + s.index_count) as usize];
            meshopt::optimize_vertex_cache_in_place(range, welded.len());
        }
        welded = meshopt::optimize_vertex_fetch(&mut shadow_indices, &welded);
    }
    let positions: Vec<[f32; 3]> = welded.iter().map(|v| v.position).collect();
    let skin: Option<Vec<GpuSkinVertex>> = skinned.then(|| {
        welded
            .iter()
            .map(|v| GpuSkinVertex {
                joints: v.joints,
                weights: v.weights,
            })
            .collect()
    });
    hmesh::write_shadow(&ranges, &positions, skin.as_deref(), &shadow_indices)
}
