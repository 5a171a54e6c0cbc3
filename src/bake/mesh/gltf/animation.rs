//! Animation clips: channels on skin joints and on morph weights.

use super::skins::JointTargets;
use super::Scene;
use crate::format::hanim::{Channel, ChannelPath, Clip, Interpolation};
use std::collections::HashMap;

/// Animation clips: channels on the skeleton's joints (`joints`: node -> joint, and each
/// joint's non-joint ancestors, folded into its keys as into its rest pose) and
/// morph-weight channels on mesh instances with targets (`morph_of_node`: node -> first
/// target and count). Channels on other nodes, non-joint ancestors of joints included, are
/// skipped with a warning: the fold takes those ancestors' rest transforms.
pub(super) fn read_clips(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    joints: &JointTargets,
    morph_of_node: &HashMap<usize, (u32, u8)>,
    scene: &mut Scene,
) -> Result<(), String> {
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d.0[..]);
    for animation in document.animations() {
        let name = animation.name().unwrap_or("").to_owned();
        if name.len() > u16::MAX as usize {
            // `.hanim` stores a clip name's length in 16 bits.
            return Err(format!(
                "animation {}: name is {} bytes long; .hanim clip names are at most 65535 bytes",
                animation.index(),
                name.len()
            ));
        }
        let mut clip = Clip {
            name: name.clone(),
            duration: 0.0,
            channels: Vec::new(),
        };
        let (mut skipped_nodes, mut cubic) = (0, false);
        for channel in animation.channels() {
            let node = channel.target().node().index();
            let is_weights =
                channel.target().property() == gltf::animation::Property::MorphTargetWeights;
            // (target index, morph target count: 0 for joint channels)
            let target = if is_weights {
                morph_of_node
                    .get(&node)
                    .map(|&(first, count)| (first, count))
            } else {
                joints.joint_of.get(&node).map(|&joint| (joint as u32, 0))
            };
            let Some((target, morph_targets)) = target else {
                skipped_nodes += 1;
                continue;
            };
            let reader = channel.reader(data);
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or("animation channel without input")?
                .collect();
            use gltf::animation::util::ReadOutputs;
            let (path, values): (ChannelPath, Vec<f32>) = match reader
                .read_outputs()
                .ok_or("animation channel without output")?
            {
                ReadOutputs::Translations(v) => (ChannelPath::Translation, v.flatten().collect()),
                ReadOutputs::Rotations(v) => {
                    (ChannelPath::Rotation, v.into_f32().flatten().collect())
                }
                ReadOutputs::Scales(v) => (ChannelPath::Scale, v.flatten().collect()),
                ReadOutputs::MorphTargetWeights(v) => {
                    (ChannelPath::Weights, v.into_f32().collect())
                }
            };
            let n = path.joint_components().unwrap_or(morph_targets as usize);
            let (interpolation, mut values) = match channel.sampler().interpolation() {
                gltf::animation::Interpolation::Step => (Interpolation::Step, values),
                gltf::animation::Interpolation::Linear => (Interpolation::Linear, values),
                gltf::animation::Interpolation::CubicSpline => {
                    // Keep the value of each (in-tangent, value, out-tangent) triple.
                    cubic = true;
                    let kept = values
                        .chunks_exact(3 * n)
                        .flat_map(|triple| triple[n..2 * n].to_vec())
                        .collect();
                    (Interpolation::Linear, kept)
                }
            };
            if values.len() != times.len() * n
                || times.iter().any(|t| !t.is_finite())
                || times.windows(2).any(|w| w[0] > w[1])
            {
                return Err(format!("animation {name:?}: channel keys are inconsistent"));
            }
            if let Some(Some(fold)) = joints.folds.get(target as usize).filter(|_| !is_weights) {
                fold.fold_keys(path, &mut values);
            }
            clip.duration = clip.duration.max(times.last().copied().unwrap_or(0.0));
            clip.channels.push(Channel {
                joint: target,
                path,
                interpolation,
                times,
                values,
                morph_targets,
            });
        }
        if skipped_nodes > 0 {
            scene.warnings.push(format!(
                "animation {name:?}: {skipped_nodes} channels on nodes that are neither joints \
                 of the skin nor meshes with morph targets skipped"
            ));
        }
        if cubic {
            scene.warnings.push(format!(
                "animation {name:?}: CUBICSPLINE degraded to LINEAR"
            ));
        }
        if !clip.channels.is_empty() {
            scene.clips.push(clip);
        }
    }
    Ok(())
}
