//! Morph targets: per mesh instance, its default weights; per primitive, its deltas.

use super::nodes::MeshInstance;
use super::{MorphDeltas, Scene};
use std::collections::HashMap;

/// An instance's morph targets: its first target among the scene's and their count (0 when
/// it has none). Its default weights join `scene.morph_weights`, and the nodes that animate
/// it map to (first target, count) in `morph_of_node`, for weight channels.
pub(super) fn instance_targets(
    document: &gltf::Document,
    instance: &MeshInstance<'_>,
    scene: &mut Scene,
    morph_of_node: &mut HashMap<usize, (u32, u8)>,
) -> Result<(u32, usize), String> {
    let mesh = &instance.mesh;
    let targets = mesh
        .primitives()
        .map(|p| p.morph_targets().len())
        .max()
        .unwrap_or(0);
    let first_target = scene.morph_weights.len() as u32;
    if targets == 0 {
        return Ok((first_target, 0));
    }
    if targets > u8::MAX as usize {
        return Err(format!(
            "mesh {}: {targets} morph targets; .hanim weight channels hold at most 255",
            mesh.index()
        ));
    }
    if mesh
        .primitives()
        .any(|p| p.morph_targets().len() != targets)
    {
        return Err(format!(
            "mesh {}: its primitives have different numbers of morph targets",
            mesh.index()
        ));
    }
    let weights: Vec<f32> = instance
        .node
        .as_ref()
        .and_then(|n| n.weights())
        .or(mesh.weights())
        .map(<[f32]>::to_vec)
        .unwrap_or_else(|| vec![0.0; targets]);
    if weights.len() != targets || weights.iter().any(|w| !w.is_finite()) {
        return Err(format!(
            "mesh {}: {} default morph weights for {targets} targets",
            mesh.index(),
            weights.len()
        ));
    }
    scene.morph_weights.extend(weights);
    let entry = (first_target, targets as u8);
    match &instance.node {
        Some(node) => {
            morph_of_node.insert(node.index(), entry);
        }
        // Each mesh once: every node showing it is animated through this instance.
        None => {
            for n in document.nodes() {
                if n.mesh().is_some_and(|m| m.index() == mesh.index()) {
                    morph_of_node.entry(n.index()).or_insert(entry);
                }
            }
        }
    }
    Ok((first_target, targets))
}

/// A primitive's morph targets (`count` vertices each), checked: every attribute a target
/// has matches the vertex count and is finite; targets without an attribute get zero deltas.
/// Normal (tangent) deltas are kept when the primitive has normals (tangents) and a target
/// moves them.
pub(super) fn read_morph_targets<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    count: usize,
    first_target: u32,
    has_normals: bool,
    has_tangents: bool,
) -> Result<MorphDeltas, String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    type Deltas = Vec<Vec<[f32; 3]>>;
    let (mut positions, mut normals, mut tangents): (Deltas, Deltas, Deltas) = Default::default();
    let (mut any_normals, mut any_tangents) = (false, false);
    for (t, (p, n, tg)) in reader.read_morph_targets().enumerate() {
        let take = |what: &str, values: Option<Vec<[f32; 3]>>, any: &mut bool| match values {
            Some(values) if values.len() != count => Err(format!(
                "morph target {t}: {what} has {} values for {count} positions",
                values.len()
            )),
            Some(values) if values.iter().flatten().any(|c| !c.is_finite()) => {
                Err(format!("morph target {t}: non-finite {what} delta"))
            }
            Some(values) => {
                *any = true;
                Ok(values)
            }
            None => Ok(vec![[0.0; 3]; count]),
        };
        let mut unused = false;
        positions.push(take("POSITION", p.map(Iterator::collect), &mut unused)?);
        normals.push(take("NORMAL", n.map(Iterator::collect), &mut any_normals)?);
        tangents.push(take(
            "TANGENT",
            tg.map(Iterator::collect),
            &mut any_tangents,
        )?);
    }
    Ok(MorphDeltas {
        first_target,
        positions,
        normals: (any_normals && has_normals).then_some(normals),
        tangents: (any_tangents && has_tangents).then_some(tangents),
    })
}
