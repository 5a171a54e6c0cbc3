//! Skins: which meshes the exported skin binds, their joints and weights, and the skeleton.

use super::Scene;
use crate::format::hmesh::GpuJoint;
use std::collections::{HashMap, HashSet};

/// The skin exported when `skins` is on: only the first (as assetc does); meshes bound to
/// others stay static.
pub(super) fn exported_skin<'a>(
    document: &'a gltf::Document,
    skins: bool,
    scene: &mut Scene,
) -> Option<gltf::Skin<'a>> {
    let skin = document.skins().next().filter(|_| skins);
    if skins && document.skins().len() > 1 {
        scene.warnings.push(format!(
            "{} skins: only the first is exported",
            document.skins().len()
        ));
    }
    skin
}

/// The meshes that `skin` binds (a set: it is looked up once per mesh and per primitive).
pub(super) fn skinned_meshes(
    document: &gltf::Document,
    skin: Option<&gltf::Skin<'_>>,
) -> HashSet<usize> {
    match skin {
        Some(skin) => document
            .nodes()
            .filter(|n| n.skin().is_some_and(|s| s.index() == skin.index()))
            .filter_map(|n| n.mesh().map(|m| m.index()))
            .collect(),
        None => Default::default(),
    }
}

/// One vertex's four joints and their weights.
type JointWeights = ([u16; 4], [f32; 4]);

/// A skinned primitive's JOINTS_0 and WEIGHTS_0 (`count` vertices), weights renormalized;
/// `None` when it lacks either.
pub(super) fn read_skin_weights<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    count: usize,
    mesh_index: usize,
) -> Result<Option<Vec<JointWeights>>, String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    match (reader.read_joints(0), reader.read_weights(0)) {
        (Some(joints), Some(weights)) => {
            let joints: Vec<[u16; 4]> = joints.into_u16().collect();
            let weights: Vec<[f32; 4]> = weights.into_f32().collect();
            if joints.len() != count || weights.len() != count {
                return Err(format!(
                    "mesh {mesh_index}: JOINTS_0/WEIGHTS_0 do not match POSITION"
                ));
            }
            Ok(Some(
                joints
                    .into_iter()
                    .zip(weights)
                    .map(|(j, w)| normalize_weights(j, w))
                    .collect(),
            ))
        }
        _ => Ok(None),
    }
}

/// Weights renormalized to sum 1; a weightless vertex binds rigidly to joint 0.
fn normalize_weights(joints: [u16; 4], weights: [f32; 4]) -> ([u16; 4], [f32; 4]) {
    let weights = weights.map(|w| if w.is_finite() && w > 0.0 { w } else { 0.0 });
    let sum: f32 = weights.iter().sum();
    if sum > 0.0 {
        (joints, weights.map(|w| w / sum))
    } else {
        ([0; 4], [1.0, 0.0, 0.0, 0.0])
    }
}

/// The skin's joints (SKEL) and the animation channels that target them (.hanim).
pub(super) fn read_skeleton(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    skin: &gltf::Skin<'_>,
    scene: &mut Scene,
) -> Result<HashMap<usize, usize>, String> {
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d.0[..]);
    let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    // Node -> joint, looked up per joint (its parent) and per animation channel. The first
    // occurrence wins, as a search of `joint_nodes` would find it.
    let mut joint_of: HashMap<usize, usize> = HashMap::with_capacity(joint_nodes.len());
    for (joint, node) in joint_nodes.iter().enumerate() {
        joint_of.entry(*node).or_insert(joint);
    }
    let mut parent_of = vec![None; document.nodes().len()];
    for node in document.nodes() {
        for child in node.children() {
            parent_of[child.index()] = Some(node.index());
        }
    }
    let inverse_binds: Vec<[[f32; 4]; 4]> = match skin.reader(data).read_inverse_bind_matrices() {
        Some(matrices) => matrices.collect(),
        None => vec![
            [
                [1., 0., 0., 0.],
                [0., 1., 0., 0.],
                [0., 0., 1., 0.],
                [0., 0., 0., 1.]
            ];
            joint_nodes.len()
        ],
    };
    if inverse_binds.len() != joint_nodes.len() {
        return Err(format!(
            "skin {}: {} inverse bind matrices for {} joints",
            skin.index(),
            inverse_binds.len(),
            joint_nodes.len()
        ));
    }
    let joints = skin
        .joints()
        .zip(&inverse_binds)
        .map(|(node, inverse_bind)| {
            let (t, r, s) = node.transform().decomposed();
            let parent = parent_of[node.index()]
                .and_then(|p| joint_of.get(&p).copied())
                .map(|p| p as i32)
                .unwrap_or(-1);
            GpuJoint {
                inverse_bind: std::array::from_fn(|i| inverse_bind[i / 4][i % 4]),
                bind_t: t,
                bind_r: r,
                bind_s: s,
                parent,
                pad: 0,
            }
        })
        .collect();
    scene.skeleton = Some(joints);
    scene.joint_names = skin
        .joints()
        .map(|node| node.name().unwrap_or("").to_owned())
        .collect();

    Ok(joint_of)
}
