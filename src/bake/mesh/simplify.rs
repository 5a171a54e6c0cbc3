//! LODs by meshoptimizer's simplifier, one submesh at a time with exactly the result of
//! simplifying it within the whole vertex buffer.

use super::vertex::Corner;
use meshopt::VertexDataAdapter;
use std::collections::HashMap;
use std::ops::Range;

/// What meshoptimizer's simplifier sees of the whole vertex buffer beyond a submesh's own
/// vertices, so that each submesh is simplified on its own vertices plus a few others, with
/// exactly the result of passing it the whole buffer (which costs O(whole buffer) per call,
/// hence O(vertices x submeshes) per mesh).
///
/// Two steps of `meshopt_simplify` (meshoptimizer 1.3) look past the vertices the indices
/// name:
/// - `rescalePositions` normalizes positions by the extent of *every* vertex, which sets what
///   `lod.target_error` means (relative to the whole mesh) and how every quadric rounds: the
///   vertices its scan takes the per-axis minimum and maximum from are brought along, so the
///   scale and offset are bit for bit the same;
/// - `buildPositionRemap` welds vertices by exact position across the buffer: a submesh vertex
///   whose position a vertex of another submesh shares gets a wedge the submesh never
///   references, which makes it locked (so the seams between submeshes stay closed in every
///   LOD), and its representative is the lowest-index vertex at that position. For each such
///   position the representative is brought along, or, when the representative is the
///   submesh's own, the highest-index vertex there: the same representative, and still locked.
///
/// The extra vertices keep their order relative to the submesh's (the simplifier compares
/// representatives by index), and the indices it returns are mapped back.
pub(super) struct SimplifyScope {
    /// Per vertex: the lowest and highest index of the vertices at its exact position (empty
    /// when the mesh is a single submesh, whose vertices are the whole buffer).
    pub(super) span: Vec<(u32, u32)>,
    /// The vertices `rescalePositions` takes its per-axis minimum and maximum from.
    pub(super) extremes: Vec<u32>,
}

/// A position as meshoptimizer's position hash compares it: -0 equals 0, NaN equals nothing.
fn position_key(p: [f32; 3]) -> Option<[u32; 3]> {
    (!p.iter().any(|c| c.is_nan())).then(|| p.map(|c| if c == 0.0 { 0 } else { c.to_bits() }))
}

impl SimplifyScope {
    pub(super) fn new(vertices: &[Corner], single_submesh: bool) -> Self {
        let mut span = Vec::new();
        if !single_submesh {
            // One pass: each vertex joins its position's group (first and last index so far).
            let mut group_of: HashMap<[u32; 3], u32> = HashMap::with_capacity(vertices.len());
            let mut groups: Vec<(u32, u32)> = Vec::with_capacity(vertices.len());
            let mut member: Vec<u32> = Vec::with_capacity(vertices.len());
            for (i, c) in vertices.iter().enumerate() {
                let i = i as u32;
                let group = match position_key(c.vertex.position) {
                    Some(key) => *group_of.entry(key).or_insert_with(|| {
                        groups.push((i, i));
                        groups.len() as u32 - 1
                    }),
                    None => {
                        groups.push((i, i));
                        groups.len() as u32 - 1
                    }
                };
                groups[group as usize].1 = i;
                member.push(group);
            }
            span = member.into_iter().map(|g| groups[g as usize]).collect();
        }
        // rescalePositions' scan: `min = min > v ? v : min`, in buffer order.
        let mut min = [f32::MAX; 3];
        let mut max = [-f32::MAX; 3];
        let mut extremes = [None; 6];
        for (i, c) in vertices.iter().enumerate() {
            let v = c.vertex.position;
            for axis in 0..3 {
                if min[axis] > v[axis] {
                    min[axis] = v[axis];
                    extremes[axis] = Some(i as u32);
                }
                if max[axis] < v[axis] {
                    max[axis] = v[axis];
                    extremes[3 + axis] = Some(i as u32);
                }
            }
        }
        SimplifyScope {
            span,
            extremes: extremes.into_iter().flatten().collect(),
        }
    }

    /// The simplifier's input for the submesh with vertices `own` and indices `sub`.
    pub(super) fn input(
        &self,
        vertices: &[Corner],
        own: Range<usize>,
        sub: &[u32],
    ) -> SimplifyInput {
        let (lo, hi) = (own.start as u32, own.end as u32);
        let mut extra: Vec<u32> = self
            .extremes
            .iter()
            .copied()
            .filter(|v| !(lo..hi).contains(v))
            .collect();
        if !self.span.is_empty() {
            for &(first, last) in &self.span[own.clone()] {
                if first < lo {
                    extra.push(first);
                } else if last >= hi {
                    extra.push(last);
                }
            }
        }
        extra.sort_unstable();
        extra.dedup();
        let below = extra.partition_point(|v| *v < lo);
        let positions = extra[..below]
            .iter()
            .copied()
            .chain(lo..hi)
            .chain(extra[below..].iter().copied())
            .map(|v| vertices[v as usize].vertex.position)
            .collect();
        let shift = below as u32;
        SimplifyInput {
            positions,
            indices: sub.iter().map(|i| i - lo + shift).collect(),
            lo,
            below: shift,
            own: hi - lo,
            extra,
        }
    }
}

/// One submesh's simplifier input (see [`SimplifyScope`]): its local positions are `extra`
/// below `lo`, then the submesh's `own` vertices from `lo`, then `extra` above.
pub(super) struct SimplifyInput {
    positions: Vec<[f32; 3]>,
    indices: Vec<u32>,
    lo: u32,
    below: u32,
    own: u32,
    extra: Vec<u32>,
}

impl SimplifyInput {
    /// `meshopt::simplify`, returning indices into the whole vertex buffer.
    pub(super) fn simplify(
        &self,
        target_indices: usize,
        target_error: f32,
        options: meshopt::SimplifyOptions,
    ) -> Vec<u32> {
        let adapter = VertexDataAdapter::new(bytemuck::cast_slice(&self.positions), 12, 0)
            .expect("positions");
        let mut out = meshopt::simplify(
            &self.indices,
            &adapter,
            target_indices,
            target_error,
            options,
            None,
        );
        for v in &mut out {
            *v = if *v < self.below {
                self.extra[*v as usize]
            } else if *v < self.below + self.own {
                self.lo + *v - self.below
            } else {
                self.extra[(*v - self.own) as usize]
            };
        }
        out
    }
}
