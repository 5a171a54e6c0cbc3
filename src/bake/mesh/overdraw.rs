//! meshoptimizer's overdraw optimizer (`meshopt_optimizeOverdraw`, meshoptimizer 1.3 as
//! vendored by the `meshopt` 0.7 crate), ported line for line with one difference: the mesh
//! centroid it sorts clusters against is a parameter.
//!
//! meshoptimizer computes that centroid over *every* vertex of the buffer it is given, and
//! sizes its cache timestamps by the buffer's vertex count. Called once per submesh on the
//! whole mesh's vertex buffer, as hearth did, that is O(vertices) per submesh: quadratic in
//! the number of submeshes. Here the vertex-indexed work runs on the submesh's own vertices
//! while the centroid stays the whole mesh's, so the output is byte for byte what the
//! per-submesh call on the whole buffer gave (the unit tests compare the two), in time linear
//! in the submesh.
//!
//! The float arithmetic follows the C++ source operation by operation (same order, f32
//! throughout, no fused multiply-add), which is what makes the results identical.

/// The cache size meshoptimizer's overdraw optimizer simulates.
const CACHE_SIZE: u32 = 16;

/// The whole mesh's centroid as `meshopt_optimizeOverdraw` computes it: the f32 sum of every
/// position in buffer order, divided by the vertex count.
pub fn mesh_centroid(positions: impl Iterator<Item = [f32; 3]>) -> [f32; 3] {
    let mut sum = [0f32; 3];
    let mut count = 0usize;
    for p in positions {
        sum[0] += p[0];
        sum[1] += p[1];
        sum[2] += p[2];
        count += 1;
    }
    let n = count as f32;
    [sum[0] / n, sum[1] / n, sum[2] / n]
}

/// Reorders the triangles of `indices` (which must come out of the vertex cache optimizer)
/// to reduce overdraw, degrading the vertex cache efficiency by at most `threshold`, sorting
/// clusters against `centroid`. `indices` reference `positions` (the submesh's own vertices).
pub fn optimize_overdraw(
    indices: &mut [u32],
    positions: &[[f32; 3]],
    centroid: [f32; 3],
    threshold: f32,
) {
    debug_assert!(indices.len().is_multiple_of(3));
    if indices.is_empty() || positions.is_empty() {
        return;
    }
    let input = indices.to_vec();
    let mut timestamps = vec![0u32; positions.len()];
    let hard = hard_boundaries(&input, &mut timestamps);
    let clusters = soft_boundaries(&input, &hard, threshold, &mut timestamps);
    let sort_data = sort_data(&input, positions, centroid, &clusters);
    let order = sort_order_radix(&sort_data);
    let mut offset = 0;
    for cluster in order {
        let begin = clusters[cluster] as usize * 3;
        let end = clusters
            .get(cluster + 1)
            .map(|c| *c as usize * 3)
            .unwrap_or(input.len());
        indices[offset..offset + end - begin].copy_from_slice(&input[begin..end]);
        offset += end - begin;
    }
    debug_assert_eq!(offset, input.len());
}

/// `updateCache`: a FIFO cache simulated by timestamps; returns the misses of the triangle.
fn update_cache(triangle: &[u32], timestamps: &mut [u32], timestamp: &mut u32) -> u32 {
    let mut misses = 0;
    for &v in triangle {
        let v = v as usize;
        if timestamp.wrapping_sub(timestamps[v]) > CACHE_SIZE {
            timestamps[v] = *timestamp;
            *timestamp = timestamp.wrapping_add(1);
            misses += 1;
        }
    }
    misses
}

/// `generateHardBoundaries`: a cluster starts at the first triangle and at every triangle
/// with three cache misses.
fn hard_boundaries(indices: &[u32], timestamps: &mut [u32]) -> Vec<u32> {
    timestamps.fill(0);
    let mut timestamp = CACHE_SIZE + 1;
    let mut out = Vec::new();
    for (i, triangle) in indices.chunks_exact(3).enumerate() {
        let misses = update_cache(triangle, timestamps, &mut timestamp);
        if i == 0 || misses == 3 {
            out.push(i as u32);
        }
    }
    out
}

/// `generateSoftBoundaries`: splits each hard cluster where the running ACMR reaches the
/// cluster's ACMR times `threshold`.
fn soft_boundaries(
    indices: &[u32],
    clusters: &[u32],
    threshold: f32,
    timestamps: &mut [u32],
) -> Vec<u32> {
    timestamps.fill(0);
    let faces = indices.len() / 3;
    let triangle = |i: usize| &indices[i * 3..i * 3 + 3];
    let mut timestamp = 0u32;
    let mut out: Vec<u32> = Vec::new();
    for (it, &start) in clusters.iter().enumerate() {
        let start = start as usize;
        let end = clusters.get(it + 1).map(|c| *c as usize).unwrap_or(faces);
        timestamp = timestamp.wrapping_add(CACHE_SIZE + 1);
        let mut cluster_misses = 0u32;
        for i in start..end {
            cluster_misses += update_cache(triangle(i), timestamps, &mut timestamp);
        }
        let cluster_threshold = threshold * (cluster_misses as f32 / (end - start) as f32);
        out.push(start as u32);
        timestamp = timestamp.wrapping_add(CACHE_SIZE + 1);
        let (mut running_misses, mut running_faces) = (0u32, 0u32);
        for i in start..end {
            running_misses += update_cache(triangle(i), timestamps, &mut timestamp);
            running_faces += 1;
            if running_misses as f32 / running_faces as f32 <= cluster_threshold {
                out.push((i + 1) as u32);
                timestamp = timestamp.wrapping_add(CACHE_SIZE + 1);
                running_misses = 0;
                running_faces = 0;
            }
        }
        // The last boundary merges the last, incomplete cluster into the one before.
        if out.last() != Some(&(start as u32)) {
            out.pop();
        }
    }
    out
}

/// `calculateSortData`: per cluster, the dot product of its area-weighted normal direction
/// with the vector from the mesh centroid to its area-weighted centroid.
fn sort_data(
    indices: &[u32],
    positions: &[[f32; 3]],
    centroid: [f32; 3],
    clusters: &[u32],
) -> Vec<f32> {
    let mut out = Vec::with_capacity(clusters.len());
    for (cluster, &begin) in clusters.iter().enumerate() {
        let begin = begin as usize * 3;
        let end = clusters
            .get(cluster + 1)
            .map(|c| *c as usize * 3)
            .unwrap_or(indices.len());
        let mut area_sum = 0f32;
        let mut c = [0f32; 3];
        let mut n = [0f32; 3];
        for t in indices[begin..end].chunks_exact(3) {
            let (p0, p1, p2) = (
                positions[t[0] as usize],
                positions[t[1] as usize],
                positions[t[2] as usize],
            );
            let p10 = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
            let p20 = [p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]];
            let nx = p10[1] * p20[2] - p10[2] * p20[1];
            let ny = p10[2] * p20[0] - p10[0] * p20[2];
            let nz = p10[0] * p20[1] - p10[1] * p20[0];
            let area = (nx * nx + ny * ny + nz * nz).sqrt();
            c[0] += (p0[0] + p1[0] + p2[0]) * (area / 3.0);
            c[1] += (p0[1] + p1[1] + p2[1]) * (area / 3.0);
            c[2] += (p0[2] + p1[2] + p2[2]) * (area / 3.0);
            n[0] += nx;
            n[1] += ny;
            n[2] += nz;
            area_sum += area;
        }
        let inv_area = if area_sum == 0.0 { 0.0 } else { 1.0 / area_sum };
        c = c.map(|v| v * inv_area);
        let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let inv_length = if length == 0.0 { 0.0 } else { 1.0 / length };
        n = n.map(|v| v * inv_length);
        let v = [c[0] - centroid[0], c[1] - centroid[1], c[2] - centroid[2]];
        out.push(v[0] * n[0] + v[1] * n[1] + v[2] * n[2]);
    }
    out
}

/// `calculateSortOrderRadix`: clusters by decreasing sort data, quantized to 11 bits, stable.
fn sort_order_radix(sort_data: &[f32]) -> Vec<usize> {
    const BITS: u32 = 11;
    let max = sort_data
        .iter()
        .fold(1e-3f32, |m, d| if m < d.abs() { d.abs() } else { m });
    let keys: Vec<usize> = sort_data
        .iter()
        .map(|d| {
            // meshopt_quantizeUnorm(0.5 - 0.5 * (d / max), 11); high dot products first.
            let v = 0.5f32 - 0.5f32 * (d / max);
            let v = if v >= 0.0 { v } else { 0.0 };
            let v = if v <= 1.0 { v } else { 1.0 };
            ((v * ((1u32 << BITS) - 1) as f32 + 0.5) as i32 as usize) & ((1 << BITS) - 1)
        })
        .collect();
    let mut histogram = vec![0usize; 1 << BITS];
    for &k in &keys {
        histogram[k] += 1;
    }
    let mut sum = 0;
    for h in histogram.iter_mut() {
        let count = *h;
        *h = sum;
        sum += count;
    }
    let mut order = vec![0; keys.len()];
    for (i, &k) in keys.iter().enumerate() {
        order[histogram[k]] = i;
        histogram[k] += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random generator (xorshift32), for test geometry.
    fn rng(seed: u32) -> impl FnMut() -> f32 {
        let mut s = seed;
        move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / (1u32 << 24) as f32
        }
    }

    /// A bumpy closed-ish surface: a sphere of `rings` x `segments` with noise on the radius.
    fn bumpy_sphere(rings: u32, segments: u32, seed: u32) -> (Vec<[f32; 3]>, Vec<u32>) {
        let mut next = rng(seed);
        let mut positions = Vec::new();
        for r in 0..=rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segments {
                let phi = 2.0 * std::f32::consts::PI * s as f32 / segments as f32;
                let radius = 1.0 + 0.2 * next();
                positions.push([
                    radius * theta.sin() * phi.cos() + 0.3,
                    radius * theta.cos() - 0.1,
                    radius * theta.sin() * phi.sin(),
                ]);
            }
        }
        let mut indices = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let a = r * segments + s;
                let b = r * segments + (s + 1) % segments;
                let (c, d) = (a + segments, b + segments);
                indices.extend_from_slice(&[a, c, b, b, c, d]);
            }
        }
        (positions, indices)
    }

    /// Random triangles over random points: many clusters, degenerate ones too.
    fn soup(vertices: usize, triangles: usize, seed: u32) -> (Vec<[f32; 3]>, Vec<u32>) {
        let mut next = rng(seed);
        let positions = (0..vertices)
            .map(|_| [next() * 4.0 - 2.0, next(), next() * 0.5])
            .collect();
        let indices = (0..triangles * 3)
            .map(|_| (next() * vertices as f32) as u32 % vertices as u32)
            .collect();
        (positions, indices)
    }

    fn meshopt_reference(indices: &[u32], positions: &[[f32; 3]], threshold: f32) -> Vec<u32> {
        let mut out = indices.to_vec();
        let adapter =
            meshopt::VertexDataAdapter::new(bytemuck::cast_slice(positions), 12, 0).unwrap();
        meshopt::optimize_overdraw_in_place(&mut out, &adapter, threshold);
        out
    }

    #[test]
    fn the_port_matches_meshoptimizer_on_whole_meshes() {
        let meshes = [
            bumpy_sphere(40, 64, 1),
            bumpy_sphere(7, 9, 2),
            soup(500, 3000, 3),
            soup(3, 1, 4),
        ];
        let mut reordered = 0;
        for (m, (positions, indices)) in meshes.iter().enumerate() {
            let mut cached = indices.clone();
            meshopt::optimize_vertex_cache_in_place(&mut cached, positions.len());
            for threshold in [1.0, 1.05, 1.5, 3.0] {
                let expected = meshopt_reference(&cached, positions, threshold);
                let mut ours = cached.clone();
                optimize_overdraw(
                    &mut ours,
                    positions,
                    mesh_centroid(positions.iter().copied()),
                    threshold,
                );
                assert_eq!(ours, expected, "mesh {m}, threshold {threshold}");
                reordered += usize::from(ours != cached);
            }
        }
        // The comparison means something only if the optimizer moved triangles.
        assert!(reordered >= 8, "{reordered} reorderings");
    }

    #[test]
    fn a_submesh_with_the_whole_meshs_centroid_matches_meshoptimizer_on_the_whole_buffer() {
        // Two submeshes in one buffer: meshoptimizer called on submesh 1's range with the
        // whole buffer, against the port on submesh 1's own vertices.
        let (p0, _) = bumpy_sphere(12, 16, 5);
        let (p1, i1) = bumpy_sphere(20, 24, 6);
        let p1: Vec<[f32; 3]> = p1.iter().map(|p| [p[0] + 3.0, p[1], p[2] - 1.0]).collect();
        let base = p0.len() as u32;
        let all: Vec<[f32; 3]> = p0.iter().chain(&p1).copied().collect();
        let mut local = i1.clone();
        meshopt::optimize_vertex_cache_in_place(&mut local, p1.len());
        let global: Vec<u32> = local.iter().map(|i| i + base).collect();
        let expected = meshopt_reference(&global, &all, 1.05);
        optimize_overdraw(&mut local, &p1, mesh_centroid(all.iter().copied()), 1.05);
        let ours: Vec<u32> = local.iter().map(|i| i + base).collect();
        assert_eq!(ours, expected);
        // And the centroid matters: submesh 1's own would sort differently here.
        let mut own = global.iter().map(|i| i - base).collect::<Vec<_>>();
        optimize_overdraw(&mut own, &p1, mesh_centroid(p1.iter().copied()), 1.05);
        assert_ne!(own.iter().map(|i| i + base).collect::<Vec<_>>(), expected);
    }
}
