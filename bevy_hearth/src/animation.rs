//! `.hanim` → Bevy [`AnimationClip`]s, targeting the entities the model's `#Scene` spawns.
//!
//! Targets are named as the scene names its entities: the root is the model's file stem, each
//! joint `joint{i}` (its SKEL index); a joint's [`AnimationTargetId`] hashes the names from the
//! root down to it, as Bevy's glTF loader does with node names. A `.hanim` and its `.hmesh`
//! share a stem, so a clip finds its model's entities.

use crate::joints::{check_joint_tree, joint_target_ids, root_target_id};
use crate::HearthLoadError;
use bevy::animation::animation_curves::{
    AnimatableCurve, AnimatableKeyframeCurve, AnimatedField, WeightsCurve,
};
use bevy::animation::gltf_curves::{
    SteppedKeyframeCurve, WideLinearKeyframeCurve, WideSteppedKeyframeCurve,
};
use bevy::animation::{animated_field, AnimationClip, AnimationTargetId};
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext};
use bevy::math::curve::{ConstantCurve, Interval};
use bevy::math::{Quat, Vec3};
use bevy::prelude::Transform;
use bevy::reflect::TypePath;
use hearth::format::hanim::{Channel, ChannelPath, Clip, Interpolation};
use hearth::LoadAsset;
use std::collections::BTreeMap;

/// A loaded `.hanim`: its clips (labels `Animation{i}`), also by name.
#[derive(Asset, TypePath, Debug)]
pub struct HearthAnimations {
    /// The clips, in the file's order.
    pub clips: Vec<Handle<AnimationClip>>,
    /// The named clips by name (an unnamed clip is only in `clips`; of clips sharing a name,
    /// the first).
    pub named: BTreeMap<String, Handle<AnimationClip>>,
}

/// The label of clip `i` in a `.hanim`.
pub fn animation_label(i: usize) -> String {
    format!("Animation{i}")
}

/// Loads `.hanim` files as [`HearthAnimations`], reading the `.hmesh` beside each for its
/// skeleton and morph targets.
#[derive(Default, TypePath)]
pub struct HearthAnimationLoader;

impl AssetLoader for HearthAnimationLoader {
    type Asset = HearthAnimations;
    type Settings = ();
    type Error = HearthLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<HearthAnimations, HearthLoadError> {
        let path = load_context.path().clone();
        let animations: hearth::Animations = crate::read_asset(reader, &path).await?;
        let targets = model_targets(load_context).await?;
        animations
            .check_against(
                targets.joints.len() as u32,
                targets.default_weights.len() as u32,
            )
            .map_err(|e| HearthLoadError::new(&path, e))?;
        let mut clips = Vec::new();
        let mut named = BTreeMap::new();
        for (i, clip) in animations.clips().clips.iter().enumerate() {
            let bevy_clip = animation_clip(clip, &targets).map_err(|e| {
                HearthLoadError::new(&path, format!("clip {i} ({:?}): {e}", clip.name))
            })?;
            let handle = load_context.add_labeled_asset(animation_label(i), bevy_clip);
            if !clip.name.is_empty() {
                named
                    .entry(clip.name.clone())
                    .or_insert_with(|| handle.clone());
            }
            clips.push(handle);
        }
        Ok(HearthAnimations { clips, named })
    }

    fn extensions(&self) -> &[&str] {
        hearth::AssetKind::ANIMATION.extensions()
    }
}

/// What a model's clips animate: its root, its joints, and its morph targets' default weights
/// (which a weight channel over some of the targets leaves to the others).
struct Targets {
    root: AnimationTargetId,
    joints: Vec<AnimationTargetId>,
    default_weights: Vec<f32>,
}

/// The targets of the model beside the `.hanim` being loaded (`<stem>.hmesh`).
async fn model_targets(load_context: &mut LoadContext<'_>) -> Result<Targets, HearthLoadError> {
    let path = load_context.path().clone();
    let file = path.path().to_string_lossy().replace('\\', "/");
    let stem = file.strip_suffix(".hanim").unwrap_or(&file);
    let mesh_path = AssetPath::from(format!("{stem}.hmesh"))
        .with_source(path.source().clone_owned())
        .into_owned();
    let bytes = load_context
        .read_asset_bytes(mesh_path.clone())
        .await
        .map_err(|e| HearthLoadError::new(&path, format!("its model {mesh_path}: {e}")))?;
    let mesh =
        hearth::Mesh::from_asset(&mesh_path.to_string(), hearth::AssetBytes::from_vec(bytes))
            .map_err(|e| HearthLoadError::new(&mesh_path, e))?;
    let view = mesh.view();
    let joints = view.skeleton.as_deref().unwrap_or(&[]);
    check_joint_tree(joints).map_err(|e| HearthLoadError::new(&mesh_path, e))?;
    let model_name = path
        .path()
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    Ok(Targets {
        root: root_target_id(&model_name),
        joints: joint_target_ids(&model_name, joints),
        default_weights: view
            .morph_targets
            .as_ref()
            .map(|m| m.weights.to_vec())
            .unwrap_or_default(),
    })
}

/// One clip: a curve per joint channel, and the weight channels as one curve over all the
/// model's morph targets on its root.
fn animation_clip(clip: &Clip, targets: &Targets) -> Result<AnimationClip, String> {
    let mut out = AnimationClip::default();
    let mut weights = Vec::new();
    for channel in clip.channels.iter().filter(|c| !c.times.is_empty()) {
        if channel.path == ChannelPath::Weights {
            weights.push(channel);
            continue;
        }
        let target = *targets
            .joints
            .get(channel.joint as usize)
            .ok_or_else(|| format!("joint {} past the skeleton", channel.joint))?;
        add_joint_curve(&mut out, target, channel)?;
    }
    if !weights.is_empty() {
        add_weights_curve(&mut out, targets.root, &weights, &targets.default_weights)?;
    }
    if clip.duration.is_finite() && clip.duration > out.duration() {
        out.set_duration(clip.duration);
    }
    Ok(out)
}

/// Adds the curve of `$samples` (`(time, value)`, at least one) on `$field`: constant for one
/// key, stepped or linear (slerp for rotations) otherwise.
macro_rules! add_keyframes {
    ($clip:expr, $target:expr, $field:expr, $interpolation:expr, $samples:expr) => {{
        let samples = $samples;
        match (samples.len(), $interpolation) {
            (1, _) => $clip.add_curve_to_target(
                $target,
                AnimatableCurve::new(
                    $field,
                    ConstantCurve::new(Interval::EVERYWHERE, samples[0].1),
                ),
            ),
            (_, Interpolation::Step) => $clip.add_curve_to_target(
                $target,
                AnimatableCurve::new(
                    $field,
                    SteppedKeyframeCurve::new(samples).map_err(|e| e.to_string())?,
                ),
            ),
            (_, Interpolation::Linear) => $clip.add_curve_to_target(
                $target,
                AnimatableCurve::new(
                    $field,
                    AnimatableKeyframeCurve::new(samples).map_err(|e| e.to_string())?,
                ),
            ),
        }
    }};
}

/// A joint channel as a curve on the joint's [`Transform`].
fn add_joint_curve(
    clip: &mut AnimationClip,
    target: AnimationTargetId,
    channel: &Channel,
) -> Result<(), String> {
    let components = channel.components();
    let keys = channel
        .times
        .iter()
        .copied()
        .zip(channel.values.chunks_exact(components.max(1)));
    let interpolation = channel.interpolation;
    match channel.path {
        ChannelPath::Translation => {
            let samples: Vec<(f32, Vec3)> = keys.map(|(t, v)| (t, Vec3::from_slice(v))).collect();
            add_keyframes!(
                clip,
                target,
                animated_field!(Transform::translation),
                interpolation,
                samples
            )
        }
        ChannelPath::Rotation => {
            let samples: Vec<(f32, Quat)> = keys.map(|(t, v)| (t, Quat::from_slice(v))).collect();
            add_keyframes!(
                clip,
                target,
                animated_field!(Transform::rotation),
                interpolation,
                samples
            )
        }
        ChannelPath::Scale => {
            let samples: Vec<(f32, Vec3)> = keys.map(|(t, v)| (t, Vec3::from_slice(v))).collect();
            add_keyframes!(
                clip,
                target,
                animated_field!(Transform::scale),
                interpolation,
                samples
            )
        }
        ChannelPath::Weights => return Err("a weight channel among the joint channels".into()),
    }
    Ok(())
}

/// The weight channels of a clip as one curve over all the model's morph targets (Bevy
/// animates a `MorphWeights` whole; see [`merged_weights`]). Stepped when every channel is;
/// otherwise linear (a stepped channel mixed with linear ones then blends between its keys).
fn add_weights_curve(
    clip: &mut AnimationClip,
    target: AnimationTargetId,
    channels: &[&Channel],
    defaults: &[f32],
) -> Result<(), String> {
    let (times, values) = merged_weights(channels, defaults)?;
    let stepped = channels
        .iter()
        .all(|c| c.interpolation == Interpolation::Step);
    let error = |e: bevy::animation::gltf_curves::WideKeyframeCurveError| e.to_string();
    match (times.len(), stepped) {
        (1, _) => clip.add_curve_to_target(
            target,
            WeightsCurve(ConstantCurve::new(Interval::EVERYWHERE, values)),
        ),
        (_, true) => clip.add_curve_to_target(
            target,
            WeightsCurve(WideSteppedKeyframeCurve::new(times, values).map_err(error)?),
        ),
        (_, false) => clip.add_curve_to_target(
            target,
            WeightsCurve(WideLinearKeyframeCurve::new(times, values).map_err(error)?),
        ),
    }
    Ok(())
}

/// Weight channels (each over some targets, with keys) merged into keys over all
/// `defaults.len()` targets: a key at every channel's key times, each channel sampled into its
/// targets, the targets no channel covers at their default weights. Returns the times and
/// `times.len() * defaults.len()` weights; bounded by the channels' keys.
fn merged_weights(channels: &[&Channel], defaults: &[f32]) -> Result<(Vec<f32>, Vec<f32>), String> {
    let mut times: Vec<f32> = channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mut values = Vec::with_capacity(times.len() * defaults.len());
    for &time in &times {
        let row_start = values.len();
        values.extend_from_slice(defaults);
        for channel in channels {
            let first = row_start + channel.joint as usize;
            let row = values
                .get_mut(first..first + channel.morph_targets as usize)
                .ok_or("a weight channel past the mesh's morph targets")?;
            sample_weights(channel, time, row);
        }
    }
    Ok((times, values))
}

/// `channel`'s weights at `time` into `row` (one per target it covers): clamped to its first
/// and last keys, held (step) or interpolated (linear) between them. The channel has keys, and
/// values for each (`hanim::parse` checks).
fn sample_weights(channel: &Channel, time: f32, row: &mut [f32]) {
    let width = row.len();
    let key = |k: usize| &channel.values[k * width..(k + 1) * width];
    let next = channel.times.partition_point(|&t| t <= time);
    if next == 0 {
        row.copy_from_slice(key(0));
    } else if next == channel.times.len() || channel.interpolation == Interpolation::Step {
        row.copy_from_slice(key(next - 1));
    } else {
        let (start, end) = (channel.times[next - 1], channel.times[next]);
        let s = (time - start) / (end - start);
        for ((out, a), b) in row.iter_mut().zip(key(next - 1)).zip(key(next)) {
            *out = a + (b - a) * s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(first: u32, targets: u8, times: &[f32], values: &[f32], step: bool) -> Channel {
        Channel {
            joint: first,
            path: ChannelPath::Weights,
            interpolation: if step {
                Interpolation::Step
            } else {
                Interpolation::Linear
            },
            times: times.to_vec(),
            values: values.to_vec(),
            morph_targets: targets,
        }
    }

    #[test]
    fn weight_channels_merge_over_all_targets_with_defaults_between() {
        // Two glTF meshes merged: targets 0..2 and 2..3; a fourth target no clip channel keys.
        let a = weights(0, 2, &[0.0, 2.0], &[0.0, 1.0, 1.0, 0.0], false);
        let b = weights(2, 1, &[1.0, 3.0], &[0.5, 0.7], true);
        let (times, values) = merged_weights(&[&a, &b], &[0.1, 0.2, 0.3, 0.9]).unwrap();
        assert_eq!(times, [0.0, 1.0, 2.0, 3.0]);
        #[rustfmt::skip]
        assert_eq!(values, [
            0.0, 1.0, 0.5, 0.9, // b before its first key: clamped to it
            0.5, 0.5, 0.5, 0.9, // a halfway
            1.0, 0.0, 0.5, 0.9, // b held (step)
            1.0, 0.0, 0.7, 0.9, // a after its last key: clamped
        ]);
        let past = weights(3, 2, &[0.0], &[1.0, 1.0], false);
        assert!(merged_weights(&[&past], &[0.0; 4]).is_err());
    }
}
