//! Skins: which meshes the exported skin binds, their joints and weights, and the skeleton.

use super::ancestors::{self, AncestorFold, Hierarchy, JointAncestry};
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

/// What the animation import needs to know of the skeleton.
#[derive(Debug, Default)]
pub(super) struct JointTargets {
    /// Node -> joint (the first occurrence, for a node listed twice).
    pub joint_of: HashMap<usize, usize>,
    /// Per joint, the non-joint ancestors folded into it (and so into its keys).
    pub folds: Vec<Option<AncestorFold>>,
}

/// The skin's joints (SKEL): each joint's rest TRS relative to its nearest joint ancestor,
/// the non-joint nodes between folded in (see [`super::ancestors`]); and what the animation
/// channels that target them need (.hanim).
pub(super) fn read_skeleton(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    skin: &gltf::Skin<'_>,
    scene: &mut Scene,
) -> Result<JointTargets, String> {
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d.0[..]);
    let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    // Node -> joint, looked up per joint (its parent) and per animation channel. The first
    // occurrence wins, as a search of `joint_nodes` would find it.
    let mut joint_of: HashMap<usize, usize> = HashMap::with_capacity(joint_nodes.len());
    for (joint, node) in joint_nodes.iter().enumerate() {
        joint_of.entry(*node).or_insert(joint);
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
    let hierarchy = Hierarchy::new(document);
    let ancestries = joint_nodes
        .iter()
        .map(|&node| hierarchy.joint_ancestry(&joint_of, node))
        .collect::<Result<Vec<_>, _>>()?;
    ancestors::check_joint_parents(&ancestries.iter().map(|a| a.parent).collect::<Vec<_>>())?;
    let joints = skin
        .joints()
        .zip(&inverse_binds)
        .zip(&ancestries)
        .map(|((node, inverse_bind), ancestry)| {
            let (mut t, mut r, mut s) = node.transform().decomposed();
            if let Some(fold) = &ancestry.fold {
                (t, r, s) = (fold.translation(t), fold.rotation(r), fold.scale(s));
            }
            GpuJoint {
                inverse_bind: std::array::from_fn(|i| inverse_bind[i / 4][i % 4]),
                bind_t: t,
                bind_r: r,
                bind_s: s,
                parent: ancestry.parent.map_or(-1, |p| p as i32),
                pad: 0,
            }
        })
        .collect();
    scene.skeleton = Some(joints);
    scene.joint_names = skin
        .joints()
        .map(|node| node.name().unwrap_or("").to_owned())
        .collect();
    warn_inexact_folds(&ancestries, &scene.joint_names, &mut scene.warnings);
    Ok(JointTargets {
        joint_of,
        folds: ancestries.into_iter().map(|a| a.fold).collect(),
    })
}

/// One warning for the joints whose non-joint ancestors scale non-uniformly or shear, which
/// their TRS only approximates.
fn warn_inexact_folds(ancestries: &[JointAncestry], names: &[String], warnings: &mut Vec<String>) {
    let inexact: Vec<String> = ancestries
        .iter()
        .zip(names)
        .enumerate()
        .filter(|(_, (a, _))| a.fold.as_ref().is_some_and(|f| !f.is_exact()))
        .map(|(i, (_, name))| {
            if name.is_empty() {
                format!("#{i}")
            } else {
                format!("{name:?}")
            }
        })
        .collect();
    if let Some(first) = inexact.first() {
        warnings.push(format!(
            "{} skin joints (the first: {first}) sit under non-joint nodes that scale \
             non-uniformly or shear: their rest pose and keys only approximate that",
            inexact.len()
        ));
    }
}
