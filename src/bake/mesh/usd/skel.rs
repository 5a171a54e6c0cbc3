//! UsdSkel: the first skeleton a mesh binds becomes the model's SKEL (joints, rest pose,
//! inverse binds), its bound meshes get four influences per vertex, and the skeleton's
//! SkelAnimation becomes a `.hanim` clip.
//!
//! USD skins in the skeleton's space: `p = W · J · B⁻¹ · G · p₀` (skeleton world `W`, joint
//! `J` in skeleton space, bind transform `B`, the mesh's `geomBindTransform` `G`). hearth
//! skins with joint hierarchies and inverse binds alone, so with the import's space `S` the
//! vertices are `S · G · p₀`, the inverse binds `(S · B)⁻¹`, and `S · W` is folded into the
//! root joints' rest pose and keys.

use super::geometry::Part;
use super::values;
use crate::bake::mesh::gltf::ancestors::{check_joint_parents, AncestorFold};
use crate::bake::mesh::gltf::{MorphDeltas, Scene};
use crate::format::hanim::{Channel, ChannelPath, Clip, Interpolation};
use crate::format::hmesh::GpuJoint;
use glam::DMat4;
use openusd::sdf::{Path, Value};
use openusd::usd::{Stage, TimeCode};
use std::collections::HashMap;

/// The most joints a skeleton may have (SKEL indexes joints with u16).
const MAX_JOINTS: usize = u16::MAX as usize;

/// The most time samples read from one animation attribute.
const MAX_SAMPLES: usize = 100_000;

/// The skeleton the model uses, once the first bound mesh names it.
struct Skeleton {
    path: Path,
    /// Joint paths (`skel:joints` tokens), SKEL order.
    joints: Vec<String>,
    parents: Vec<Option<usize>>,
    /// Bind transforms (skeleton space by USD's convention).
    bind: Vec<DMat4>,
    /// Rest transforms, local to the parent joint.
    rest: Vec<DMat4>,
    /// The skeleton prim's world transform.
    world: DMat4,
}

/// How one mesh binds the skeleton.
pub struct Binding {
    /// The mesh's `primvars:skel:geomBindTransform`.
    pub geom_bind: DMat4,
    /// Per point (or one for all, `constant`), the joints and weights, `element_size` each.
    indices: Vec<i64>,
    weights: Vec<f32>,
    element_size: usize,
    constant: bool,
    /// The mesh's `skel:joints` mapped to skeleton joints, when it names its own order.
    joint_map: Option<Vec<Option<usize>>>,
}

/// The import's skeleton state.
pub struct Skins<'a> {
    stage: &'a Stage,
    enabled: bool,
    skeleton: Option<Skeleton>,
    other_skeletons: usize,
    /// Per mesh with blend shapes: its first morph target and its `skel:blendShapes` names,
    /// for the animation's weight channels.
    morphs: Vec<(u32, Vec<String>)>,
}

impl<'a> Skins<'a> {
    /// Skins read only when `enabled` (the settings' `ignore_skin` off).
    pub fn new(stage: &'a Stage, enabled: bool) -> Self {
        Self {
            stage,
            enabled,
            skeleton: None,
            other_skeletons: 0,
            morphs: Vec::new(),
        }
    }

    /// How `mesh` binds the model's skeleton; `None` when it is not skinned (or binds a second
    /// skeleton, which is drawn unskinned with one warning at the end).
    pub fn binding(
        &mut self,
        mesh: &Path,
        world: &mut impl FnMut(&Path) -> DMat4,
        warnings: &mut Vec<String>,
    ) -> Option<Binding> {
        if !self.enabled {
            return None;
        }
        let skeleton = inherited_target(self.stage, mesh, "skel:skeleton")?;
        match &self.skeleton {
            Some(s) if s.path != skeleton => {
                self.other_skeletons += 1;
                return None;
            }
            Some(_) => {}
            None => match read_skeleton(self.stage, &skeleton, world(&skeleton)) {
                Ok(s) => self.skeleton = Some(s),
                Err(why) => {
                    warnings.push(format!(
                        "skeleton {skeleton}: {why}; its meshes are drawn unskinned"
                    ));
                    self.enabled = false;
                    return None;
                }
            },
        }
        let read = |name: &str| values::prim_value(self.stage, mesh, name);
        let attr = |name: &str| {
            mesh.append_property(name)
                .ok()
                .map(|p| self.stage.attribute(p))
        };
        let indices = read("primvars:skel:jointIndices").and_then(|v| values::ints(&v))?;
        let weights = read("primvars:skel:jointWeights").and_then(|v| values::floats(&v))?;
        let element_size = attr("primvars:skel:jointIndices")
            .and_then(|a| a.get_metadata::<Value>("elementSize").ok().flatten())
            .and_then(|v| values::scalar(&v))
            .map_or(1, |n| n.clamp(1.0, 256.0) as usize);
        let constant = attr("primvars:skel:jointIndices")
            .and_then(|a| a.get_metadata::<Value>("interpolation").ok().flatten())
            .and_then(|v| values::text(&v))
            .is_some_and(|i| i == "constant");
        let geom_bind = read("primvars:skel:geomBindTransform")
            .and_then(|v| values::matrix(&v))
            .unwrap_or(DMat4::IDENTITY);
        let skeleton_joints = &self.skeleton.as_ref()?.joints;
        let joint_map = read("skel:joints")
            .and_then(|v| values::texts(&v))
            .map(|names| {
                names
                    .iter()
                    .map(|n| skeleton_joints.iter().position(|j| j == n))
                    .collect()
            });
        Some(Binding {
            geom_bind,
            indices,
            weights,
            element_size,
            constant,
            joint_map,
        })
    }

    /// Gives `parts` their four strongest influences per vertex.
    pub fn skin(&self, binding: &Binding, mesh: &Path, parts: &mut [Part]) -> Result<(), String> {
        let n = binding.element_size;
        if binding.indices.len() != binding.weights.len() {
            return Err(format!(
                "{mesh}: skel:jointIndices and skel:jointWeights differ in length"
            ));
        }
        for part in parts {
            let mut skin = Vec::with_capacity(part.points.len());
            for &point in &part.points {
                let element = if binding.constant { 0 } else { point };
                let range = element * n..element * n + n;
                let (Some(joints), Some(weights)) = (
                    binding.indices.get(range.clone()),
                    binding.weights.get(range),
                ) else {
                    return Err(format!("{mesh}: point {point} has no joint influences"));
                };
                skin.push(strongest_four(
                    joints,
                    weights,
                    binding.joint_map.as_deref(),
                ));
            }
            part.primitive.skin = Some(skin);
        }
        Ok(())
    }

    /// The mesh's BlendShapes (`skel:blendShapeTargets`, in `skel:blendShapes` order) as morph
    /// targets of `parts`: offsets (and normal offsets) moved by `matrix`'s linear part,
    /// sparse ones (`pointIndices`) spread over the points they name. Their default weights
    /// (0) join the scene's.
    pub fn blend_shapes(
        &mut self,
        mesh: &Path,
        matrix: &DMat4,
        parts: &mut [Part],
        scene: &mut Scene,
    ) -> Result<(), String> {
        if !self.enabled {
            return Ok(());
        }
        let names = values::prim_value(self.stage, mesh, "skel:blendShapes")
            .and_then(|v| values::texts(&v))
            .unwrap_or_default();
        let targets = mesh
            .append_property("skel:blendShapeTargets")
            .ok()
            .and_then(|r| self.stage.relationship(r).targets().ok())
            .unwrap_or_default();
        if targets.is_empty() {
            return Ok(());
        }
        if targets.len() != names.len() || targets.len() > u8::MAX as usize {
            return Err(format!(
                "{mesh}: {} skel:blendShapes for {} skel:blendShapeTargets (at most 255)",
                names.len(),
                targets.len()
            ));
        }
        let linear = glam::DMat3::from_mat4(*matrix);
        let normal_linear = linear.inverse().transpose();
        let first_target = scene.morph_weights.len() as u32;
        let points = parts
            .iter()
            .flat_map(|p| &p.points)
            .copied()
            .max()
            .map_or(0, |m| m + 1);
        let mut shapes = Vec::with_capacity(targets.len());
        for target in &targets {
            let read = |name: &str| values::prim_value(self.stage, target, name);
            let spread =
                |offsets: Vec<[f32; 3]>, by: &glam::DMat3| -> Result<Vec<[f32; 3]>, String> {
                    let mut dense = vec![[0.0f32; 3]; points];
                    let indices = read("pointIndices").and_then(|v| values::ints(&v));
                    for (k, offset) in offsets.iter().enumerate() {
                        let point = match &indices {
                            Some(indices) => indices.get(k).and_then(|&i| usize::try_from(i).ok()),
                            None => Some(k),
                        };
                        let Some(slot) = point.and_then(|p| dense.get_mut(p)) else {
                            continue;
                        };
                        *slot = (*by * glam::DVec3::from(offset.map(f64::from)))
                            .as_vec3()
                            .to_array();
                    }
                    if dense.iter().flatten().any(|c| !c.is_finite()) {
                        return Err(format!("{target}: offsets that are not finite"));
                    }
                    Ok(dense)
                };
            let offsets = read("offsets")
                .and_then(|v| values::vec3s(&v))
                .ok_or_else(|| format!("{target}: no offsets"))?;
            let normals = read("normalOffsets").and_then(|v| values::vec3s(&v));
            shapes.push((
                spread(offsets, &linear)?,
                normals.map(|n| spread(n, &normal_linear)).transpose()?,
            ));
        }
        for part in parts.iter_mut() {
            let per_vertex =
                |dense: &Vec<[f32; 3]>| part.points.iter().map(|&p| dense[p]).collect::<Vec<_>>();
            let positions = shapes.iter().map(|(p, _)| per_vertex(p)).collect();
            let has_normals =
                part.primitive.normals.is_some() && shapes.iter().all(|(_, n)| n.is_some());
            let normals = has_normals.then(|| {
                shapes
                    .iter()
                    .filter_map(|(_, n)| n.as_ref().map(per_vertex))
                    .collect()
            });
            part.primitive.morph = Some(MorphDeltas {
                first_target,
                positions,
                normals,
                tangents: None,
            });
        }
        scene
            .morph_weights
            .extend(std::iter::repeat_n(0.0, targets.len()));
        self.morphs.push((first_target, names));
        Ok(())
    }

    /// Writes the skeleton (SKEL), its joint names and its animation into `scene`.
    pub fn finish(
        self,
        scene: &mut Scene,
        space: &DMat4,
        warnings: &mut Vec<String>,
    ) -> Result<(), String> {
        let Some(skeleton) = self.skeleton else {
            return Ok(());
        };
        if self.other_skeletons > 0 {
            warnings.push(format!(
                "{} meshes bind other skeletons than {}; only one skeleton is exported, they are drawn unskinned",
                self.other_skeletons, skeleton.path
            ));
        }
        let root_fold = AncestorFold::new(&(*space * skeleton.world))
            .map_err(|e| format!("skeleton {}: {e}", skeleton.path))?;
        let mut joints = Vec::with_capacity(skeleton.joints.len());
        for (j, rest) in skeleton.rest.iter().enumerate() {
            let (s, r, t) = rest.to_scale_rotation_translation();
            let (mut t, mut r, mut s) = (
                t.as_vec3().to_array(),
                r.as_quat().to_array(),
                s.as_vec3().to_array(),
            );
            if skeleton.parents[j].is_none() {
                (t, r, s) = (
                    root_fold.translation(t),
                    root_fold.rotation(r),
                    root_fold.scale(s),
                );
            }
            let inverse_bind = (*space * skeleton.bind[j])
                .inverse()
                .as_mat4()
                .to_cols_array();
            joints.push(GpuJoint {
                inverse_bind,
                bind_t: t,
                bind_r: r,
                bind_s: s,
                parent: skeleton.parents[j].map_or(-1, |p| p as i32),
                pad: 0,
            });
        }
        scene.joint_names = skeleton
            .joints
            .iter()
            .map(|j| j.rsplit('/').next().unwrap_or(j).to_string())
            .collect();
        scene.skeleton = Some(joints);
        if let Some(anim) = inherited_target(self.stage, &skeleton.path, "skel:animationSource") {
            match read_animation(self.stage, &anim, &skeleton, &root_fold, &self.morphs) {
                Ok(Some(clip)) => scene.clips.push(clip),
                Ok(None) => {}
                Err(why) => warnings.push(format!("animation {anim}: {why}; not imported")),
            }
        }
        Ok(())
    }
}

/// The first target of relationship `name` on `prim` or its nearest ancestor that has one
/// (UsdSkel's bindings are inherited down the namespace).
fn inherited_target(stage: &Stage, prim: &Path, name: &str) -> Option<Path> {
    let mut cursor = Some(prim.clone());
    while let Some(path) = cursor {
        if path.as_str() == "/" {
            break;
        }
        let targets = path
            .append_property(name)
            .ok()
            .and_then(|r| stage.relationship(r).targets().ok());
        if let Some(target) = targets.and_then(|t| t.into_iter().next()) {
            return Some(target);
        }
        cursor = path.parent();
    }
    None
}

fn read_skeleton(stage: &Stage, path: &Path, world: DMat4) -> Result<Skeleton, String> {
    let read = |name: &str| values::prim_value(stage, path, name);
    let joints = read("joints")
        .and_then(|v| values::texts(&v))
        .ok_or("no joints")?;
    if joints.is_empty() || joints.len() > MAX_JOINTS {
        return Err(format!(
            "{} joints (1 to {MAX_JOINTS} are supported)",
            joints.len()
        ));
    }
    let index: HashMap<&str, usize> = joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.as_str(), i))
        .collect();
    let parents: Vec<Option<usize>> = joints
        .iter()
        .map(|j| {
            j.rsplit_once('/')
                .and_then(|(parent, _)| index.get(parent).copied())
        })
        .collect();
    check_joint_parents(&parents)?;
    let bind = read("bindTransforms")
        .and_then(|v| values::matrices(&v))
        .unwrap_or_default();
    if bind.len() != joints.len() {
        return Err(format!(
            "{} bindTransforms for {} joints",
            bind.len(),
            joints.len()
        ));
    }
    let rest = match read("restTransforms").and_then(|v| values::matrices(&v)) {
        Some(rest) if rest.len() == joints.len() => rest,
        // Without rest transforms, the bind pose is the rest pose.
        _ => (0..joints.len())
            .map(|j| match parents[j] {
                Some(p) => bind[p].inverse() * bind[j],
                None => bind[j],
            })
            .collect(),
    };
    Ok(Skeleton {
        path: path.clone(),
        joints,
        parents,
        bind,
        rest,
        world,
    })
}

/// The four strongest (joint, weight) pairs, renormalized; a weightless vertex binds rigidly
/// to joint 0.
fn strongest_four(
    joints: &[i64],
    weights: &[f32],
    map: Option<&[Option<usize>]>,
) -> ([u16; 4], [f32; 4]) {
    let mut pairs: Vec<(u16, f32)> = joints
        .iter()
        .zip(weights)
        .filter_map(|(&j, &w)| {
            let j = usize::try_from(j).ok()?;
            let j = match map {
                Some(map) => (*map.get(j)?)?,
                None => j,
            };
            (w.is_finite() && w > 0.0).then_some((u16::try_from(j).ok()?, w))
        })
        .collect();
    // Strongest first; ties by joint, so the choice does not depend on authored order.
    pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    pairs.truncate(4);
    let sum: f32 = pairs.iter().map(|p| p.1).sum();
    if sum <= 0.0 {
        return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
    }
    let mut out = ([0u16; 4], [0f32; 4]);
    for (i, (j, w)) in pairs.into_iter().enumerate() {
        out.0[i] = j;
        out.1[i] = w / sum;
    }
    out
}

/// The animation's `blendShapeWeights` samples: (times, weights per sample).
type WeightSamples = (Vec<f64>, Vec<Vec<f32>>);

fn blend_shape_weights(stage: &Stage, anim: &Path) -> Result<Option<WeightSamples>, String> {
    let Ok(path) = anim.append_property("blendShapeWeights") else {
        return Ok(None);
    };
    let attr = stage.attribute(path);
    let times = attr.time_sample_times().map_err(|e| e.to_string())?;
    if times.is_empty() || times.len() > MAX_SAMPLES {
        return Ok(None);
    }
    let samples = times
        .iter()
        .map(|&t| {
            attr.get_at::<Value>(TimeCode::new(t))
                .ok()
                .flatten()
                .and_then(|v| values::floats(&v))
                .unwrap_or_default()
        })
        .collect();
    Ok(Some((times, samples)))
}

/// The skeleton's SkelAnimation as one clip (time codes to seconds, from its first sample).
fn read_animation(
    stage: &Stage,
    anim: &Path,
    skeleton: &Skeleton,
    root_fold: &AncestorFold,
    morphs: &[(u32, Vec<String>)],
) -> Result<Option<Clip>, String> {
    let joints = values::prim_value(stage, anim, "joints")
        .and_then(|v| values::texts(&v))
        .unwrap_or_default();
    let targets: Vec<Option<usize>> = joints
        .iter()
        .map(|j| skeleton.joints.iter().position(|s| s == j))
        .collect();
    let per_second = stage.time_codes_per_second();
    let per_second = if per_second.is_finite() && per_second > 0.0 {
        per_second
    } else {
        24.0
    };
    let mut channels = Vec::new();
    let mut start = f64::INFINITY;
    let mut tracks = Vec::new();
    for (name, path_kind) in [
        ("translations", ChannelPath::Translation),
        ("rotations", ChannelPath::Rotation),
        ("scales", ChannelPath::Scale),
    ] {
        let Ok(attr_path) = anim.append_property(name) else {
            continue;
        };
        let attr = stage.attribute(attr_path);
        let mut times = attr.time_sample_times().map_err(|e| e.to_string())?;
        if times.len() > MAX_SAMPLES {
            return Err(format!("{name}: more than {MAX_SAMPLES} time samples"));
        }
        if times.is_empty() {
            // A default value alone is one key.
            if values::rest_value(&attr).is_none() {
                continue;
            }
            times.push(stage.start_time_code());
        }
        let mut samples = Vec::with_capacity(times.len());
        for &t in &times {
            let value = attr
                .get_at::<Value>(TimeCode::new(t))
                .ok()
                .flatten()
                .or_else(|| values::rest_value(&attr));
            let flat: Vec<f32> = match (path_kind, value) {
                (ChannelPath::Rotation, Some(v)) => values::quats(&v).unwrap_or_default().concat(),
                (_, Some(v)) => values::vec3s(&v).unwrap_or_default().concat(),
                _ => Vec::new(),
            };
            samples.push(flat);
        }
        start = start.min(times[0]);
        tracks.push((path_kind, times, samples));
    }
    let weights = blend_shape_weights(stage, anim)?;
    if let Some((times, _)) = &weights {
        start = start.min(times[0]);
    }
    if tracks.is_empty() && weights.is_none() {
        return Ok(None);
    }
    for (path_kind, times, samples) in tracks {
        let width = path_kind.joint_components().unwrap_or(3);
        for (a, target) in targets.iter().enumerate() {
            let Some(joint) = *target else { continue };
            let mut values = Vec::with_capacity(times.len() * width);
            for sample in &samples {
                let Some(key) = sample.get(a * width..a * width + width) else {
                    return Err(format!(
                        "a sample has fewer values than the animation's {} joints",
                        targets.len()
                    ));
                };
                values.extend_from_slice(key);
            }
            if skeleton.parents[joint].is_none() {
                root_fold.fold_keys(path_kind, &mut values);
            }
            channels.push(Channel {
                joint: joint as u32,
                path: path_kind,
                interpolation: Interpolation::Linear,
                times: times
                    .iter()
                    .map(|t| ((t - start) / per_second) as f32)
                    .collect(),
                values,
                morph_targets: 0,
            });
        }
    }
    if let Some((times, samples)) = weights {
        weight_channels(
            stage,
            anim,
            morphs,
            &times,
            &samples,
            start,
            per_second,
            &mut channels,
        );
    }
    let duration = channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0, f32::max);
    let name = anim.name().unwrap_or_default().to_string();
    Ok(Some(Clip {
        name,
        duration,
        channels,
    }))
}

/// The animation's blend-shape weights as one weight channel per morphed mesh, in the mesh's
/// `skel:blendShapes` order (shapes the animation does not name stay at 0).
#[allow(clippy::too_many_arguments)]
fn weight_channels(
    stage: &Stage,
    anim: &Path,
    morphs: &[(u32, Vec<String>)],
    times: &[f64],
    samples: &[Vec<f32>],
    start: f64,
    per_second: f64,
    channels: &mut Vec<Channel>,
) {
    let shapes = values::prim_value(stage, anim, "blendShapes")
        .and_then(|v| values::texts(&v))
        .unwrap_or_default();
    for (first_target, names) in morphs {
        let columns: Vec<Option<usize>> = names
            .iter()
            .map(|n| shapes.iter().position(|s| s == n))
            .collect();
        if columns.iter().all(Option::is_none) {
            continue;
        }
        let values = samples
            .iter()
            .flat_map(|sample| {
                columns
                    .iter()
                    .map(|c| c.and_then(|c| sample.get(c).copied()).unwrap_or(0.0))
            })
            .collect();
        channels.push(Channel {
            joint: *first_target,
            path: ChannelPath::Weights,
            interpolation: Interpolation::Linear,
            times: times
                .iter()
                .map(|t| ((t - start) / per_second) as f32)
                .collect(),
            values,
            morph_targets: names.len() as u8,
        });
    }
}
