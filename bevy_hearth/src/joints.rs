//! A model's skeleton in Bevy: each joint entity's name and animation target, shared by the
//! mesh loader (which spawns the joints) and the animation loader (whose curves target them).

use bevy::animation::AnimationTargetId;
use hearth::format::hmesh::GpuJoint;

/// The name of joint `i`'s entity in a model's scene.
pub(crate) fn joint_name(i: usize) -> String {
    format!("joint{i}")
}

/// The target of a model's root entity (its [`AnimationPlayer`](bevy::animation::AnimationPlayer)
/// and [`MorphWeights`](bevy::mesh::morph::MorphWeights)).
pub fn root_target_id(model_name: &str) -> AnimationTargetId {
    AnimationTargetId::from_iter([model_name])
}

/// Each joint's target: the names from the model's root down to the joint. A parent index
/// outside the skeleton makes a root joint, as the scene parents it; chains are bounded by the
/// joint count (the mesh loader rejects cycles).
pub fn joint_target_ids(model_name: &str, joints: &[GpuJoint]) -> Vec<AnimationTargetId> {
    (0..joints.len())
        .map(|i| {
            let mut chain = vec![i];
            let mut joint = i;
            while let Some(parent) = usize::try_from(joints[joint].parent)
                .ok()
                .filter(|&p| p < joints.len() && chain.len() <= joints.len())
            {
                chain.push(parent);
                joint = parent;
            }
            let names = chain.iter().rev().map(|&j| joint_name(j));
            AnimationTargetId::from_iter(std::iter::once(model_name.to_owned()).chain(names))
        })
        .collect()
}

/// Every joint's parent chain reaches a root (hearth checks each parent is another joint;
/// this rules out cycles, which Bevy's hierarchy cannot hold).
pub(crate) fn check_joint_tree(joints: &[GpuJoint]) -> Result<(), String> {
    for start in 0..joints.len() {
        let mut joint = start;
        let mut steps = 0;
        while let Ok(parent) = usize::try_from(joints[joint].parent) {
            steps += 1;
            if steps > joints.len() || parent >= joints.len() {
                return Err(format!("joint {start}'s parents form a cycle"));
            }
            joint = parent;
        }
    }
    Ok(())
}
