//! The vertex a mesh is processed as: a corner's vertex with its skinning and its extra
//! attributes (second UV set, color, morph source), interned per submesh.

use crate::bake::mesh::gltf::Primitive;
use crate::format::hmesh::{GpuSkinVertex, GpuVertex};
use bytemuck::{Pod, Zeroable};
use std::collections::HashMap;

/// A vertex with its skinning, processed as one unit so SKIN stays parallel to VTXS through
/// deduplication and reordering.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Pod, Zeroable)]
pub(super) struct Corner {
    pub(super) vertex: GpuVertex,
    pub(super) joints: [u16; 4],
    pub(super) weights: [f32; 4],
    /// The vertex's second UV set and color: an index into its submesh's [`Extra`] table
    /// (0 without them), so that deduplication tells apart vertices that differ only there.
    pub(super) extra: u32,
}

/// A vertex's second UV set and linear RGBA color (`u16` unorm), interned per submesh, and
/// where its morph deltas are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Extra {
    pub(super) uv1: [f32; 2],
    pub(super) color: [u16; 4],
    /// For a vertex of a morphed primitive: its source vertex, whose deltas it takes (the
    /// submesh is known from the vertex's range). Such vertices are never interned together:
    /// two source vertices with different deltas must stay two vertices.
    pub(super) morph_source: Option<u32>,
}

impl Extra {
    /// What a vertex without them has: UV (0, 0), white, no morph deltas.
    pub(super) const DEFAULT: Self = Self {
        uv1: [0.0; 2],
        color: [u16::MAX; 4],
        morph_source: None,
    };
}

/// Each source vertex's interned [`Extra`] and the table, in first-use order; `None` when
/// the primitive has no second UV set, colors or morph targets.
pub(super) fn intern_extras(p: &Primitive) -> Option<(Vec<u32>, Vec<Extra>)> {
    if p.uvs1.is_none() && p.colors.is_none() && p.morph.is_none() {
        return None;
    }
    let unorm16 = |c: f32| (c.clamp(0.0, 1.0) * 65535.0).round() as u16;
    let mut table = Vec::new();
    let mut ids: HashMap<([u32; 2], [u16; 4]), u32> = HashMap::new();
    let per_vertex = (0..p.positions.len())
        .map(|v| {
            let extra = Extra {
                uv1: p.uvs1.as_ref().map_or([0.0; 2], |uv| uv[v]),
                color: p
                    .colors
                    .as_ref()
                    .map_or([u16::MAX; 4], |c| c[v].map(unorm16)),
                morph_source: p.morph.as_ref().map(|_| v as u32),
            };
            if p.morph.is_some() {
                table.push(extra);
                return table.len() as u32 - 1;
            }
            *ids.entry((extra.uv1.map(f32::to_bits), extra.color))
                .or_insert_with(|| {
                    table.push(extra);
                    table.len() as u32 - 1
                })
        })
        .collect();
    Some((per_vertex, table))
}

/// A vertex's joints and weights, as SKIN stores them.
pub(super) fn skin_vertex(c: &Corner) -> GpuSkinVertex {
    GpuSkinVertex {
        joints: c.joints,
        weights: c.weights,
    }
}
