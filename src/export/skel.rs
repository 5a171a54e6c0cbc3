//! A skinned model's skeleton and clips as UsdSkel: a `Skeleton` (joints, bind and rest
//! transforms), the mesh bound to it (`SkelBindingAPI`, four influences per vertex), and one
//! `SkelAnimation` per clip, sampled at the union of the clip's key times.
//!
//! USD matrices are row-major with row vectors; hearth's (glTF's) are column-major with
//! column vectors, so the same 16 numbers in the same order are the same transform.

use crate::export::layer::{identifier, token, unique_name, Attribute, Prim, Value};
use crate::format::hanim::{Channel, ChannelPath, Clip, Interpolation};
use crate::format::hmesh::{GpuJoint, GpuSkinVertex};
use crate::read::model::Model;
use std::collections::HashSet;

/// Time codes per second of the exported clips.
pub(crate) const TIME_CODES_PER_SECOND: f64 = 24.0;
/// The most samples (times × joints) one clip may expand to.
const MAX_SAMPLES: usize = 1 << 26;

/// The joints in an order where each parent precedes its children (UsdSkel requires it),
/// as old indices; a parent index out of range, or a cycle, makes a joint a root.
fn parents_first(joints: &[GpuJoint]) -> Vec<usize> {
    let parent = |j: usize| {
        let p = joints[j].parent;
        (p >= 0 && (p as usize) < joints.len() && p as usize != j).then_some(p as usize)
    };
    let depth: Vec<usize> = (0..joints.len())
        .map(|j| {
            let (mut at, mut d) = (j, 0);
            // At most one step per joint: a longer walk is a cycle.
            while let Some(p) = parent(at).filter(|_| d < joints.len()) {
                at = p;
                d += 1;
            }
            d
        })
        .collect();
    let mut order: Vec<usize> = (0..joints.len()).collect();
    order.sort_by_key(|&j| depth[j]);
    order
}

/// A translation, rotation (xyzw) and scale as a USD matrix.
fn trs(t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> [f64; 16] {
    let [x, y, z, w] = r.map(f64::from);
    let [sx, sy, sz] = s.map(f64::from);
    [
        (1.0 - 2.0 * (y * y + z * z)) * sx,
        2.0 * (x * y + z * w) * sx,
        2.0 * (x * z - y * w) * sx,
        0.0,
        2.0 * (x * y - z * w) * sy,
        (1.0 - 2.0 * (x * x + z * z)) * sy,
        2.0 * (y * z + x * w) * sy,
        0.0,
        2.0 * (x * z + y * w) * sz,
        2.0 * (y * z - x * w) * sz,
        (1.0 - 2.0 * (x * x + y * y)) * sz,
        0.0,
        t[0] as f64,
        t[1] as f64,
        t[2] as f64,
        1.0,
    ]
}

/// The inverse of `m` (Gauss-Jordan with partial pivoting), `None` when singular.
fn inverse(m: [f64; 16]) -> Option<[f64; 16]> {
    let mut a = m;
    let mut inv = [0.0; 16];
    for i in 0..4 {
        inv[i * 5] = 1.0;
    }
    for col in 0..4 {
        let pivot =
            (col..4).max_by(|&p, &q| a[p * 4 + col].abs().total_cmp(&a[q * 4 + col].abs()))?;
        if a[pivot * 4 + col].abs() < 1e-12 {
            return None;
        }
        for k in 0..4 {
            a.swap(col * 4 + k, pivot * 4 + k);
            inv.swap(col * 4 + k, pivot * 4 + k);
        }
        let d = a[col * 4 + col];
        for k in 0..4 {
            a[col * 4 + k] /= d;
            inv[col * 4 + k] /= d;
        }
        for row in (0..4).filter(|&r| r != col) {
            let f = a[row * 4 + col];
            for k in 0..4 {
                a[row * 4 + k] -= f * a[col * 4 + k];
                inv[row * 4 + k] -= f * inv[col * 4 + k];
            }
        }
    }
    Some(inv)
}

/// The joints' paths (`joint<i>` under its parent's path), indexed by joint.
fn joint_paths(joints: &[GpuJoint], order: &[usize]) -> Vec<String> {
    let mut paths = vec![String::new(); joints.len()];
    for &old in order {
        let name = format!("joint{old}");
        let parent = usize::try_from(joints[old].parent)
            .ok()
            .filter(|&p| p < joints.len() && p != old);
        paths[old] = match parent {
            Some(p) if !paths[p].is_empty() => format!("{}/{name}", paths[p]),
            _ => name,
        };
    }
    paths
}

/// The `Skeleton` prim: joints (parents first), bind transforms (the inverse bind matrices
/// inverted) and rest transforms (the bind pose).
fn skeleton_prim(joints: &[GpuJoint], order: &[usize], joint_tokens: &[String]) -> Prim {
    let identity = trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let bind: Vec<[f64; 16]> = order
        .iter()
        // A singular inverse bind matrix has no bind pose; identity keeps the file valid.
        .map(|&j| inverse(joints[j].inverse_bind.map(f64::from)).unwrap_or(identity))
        .collect();
    let rest: Vec<[f64; 16]> = order
        .iter()
        .map(|&j| trs(joints[j].bind_t, joints[j].bind_r, joints[j].bind_s))
        .collect();
    let mut skeleton = Prim::def("Skeleton", "Skeleton");
    skeleton.api_schemas.push("SkelBindingAPI".into());
    skeleton
        .set_uniform("bindTransforms", "matrix4d[]", Value::Matrix4dArray(bind))
        .set_uniform(
            "joints",
            "token[]",
            Value::TokenArray(joint_tokens.to_vec()),
        )
        .set_uniform("restTransforms", "matrix4d[]", Value::Matrix4dArray(rest));
    skeleton
}

/// Binds `mesh` to the skeleton at `skeleton_path`: four joint indices (renumbered by
/// `new_of`) and weights per vertex, and an identity geometry bind transform (hearth's
/// vertices are in the space the inverse bind matrices expect).
fn bind_mesh(mesh: &mut Prim, skin: &[GpuSkinVertex], new_of: &[usize], skeleton_path: String) {
    let indices: Vec<i32> = skin
        .iter()
        .flat_map(|v| {
            v.joints
                .map(|j| new_of.get(j as usize).copied().unwrap_or(0) as i32)
        })
        .collect();
    let weights: Vec<f32> = skin.iter().flat_map(|v| v.weights).collect();
    let four = |a: Attribute| {
        a.with("elementSize", Value::Int(4))
            .with("interpolation", token("vertex"))
    };
    let identity = trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    mesh.api_schemas.push("SkelBindingAPI".into());
    if skin.is_empty() {
        mesh.rel("skel:skeleton", vec![skeleton_path]);
        return;
    }
    mesh.set(
        "primvars:skel:geomBindTransform",
        "matrix4d",
        Value::Matrix4d(identity),
    )
    .attr(four(Attribute::new(
        "primvars:skel:jointIndices",
        "int[]",
        Value::IntArray(indices),
    )))
    .attr(four(Attribute::new(
        "primvars:skel:jointWeights",
        "float[]",
        Value::FloatArray(weights),
    )))
    .rel("skel:skeleton", vec![skeleton_path]);
}

/// Adds the skeleton (without joints for a mesh that only has blend shapes), the mesh's
/// binding, its blend shapes and the clips under `root` (a `SkelRoot` at `root_path`);
/// returns the layer's time metadata when there are clips.
pub(crate) fn add_skeleton(
    model: &Model,
    root: &mut Prim,
    mesh: &mut Prim,
    root_path: &str,
) -> Vec<(String, Value)> {
    let view = model.mesh.view();
    let (joints, skin) = match (view.skeleton.as_deref(), view.skin()) {
        (Some(joints), Some(skin)) => (joints, skin),
        _ => (&[][..], &[][..]),
    };
    let order = parents_first(joints);
    let mut new_of = vec![0usize; joints.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    let paths = joint_paths(joints, &order);
    let joint_tokens: Vec<String> = order.iter().map(|&j| paths[j].clone()).collect();
    let mut skeleton = skeleton_prim(joints, &order, &joint_tokens);
    bind_mesh(mesh, skin, &new_of, format!("{root_path}/Skeleton"));
    let (shapes, weights) = add_blend_shapes(model, mesh, &format!("{root_path}/Mesh"));
    let targets = Targets {
        joints,
        order: &order,
        new_of: &new_of,
        joint_tokens: &joint_tokens,
        shapes: &shapes,
        weights: &weights,
    };
    let clips = model
        .animations
        .as_ref()
        .map(|a| a.clips().clips.as_slice())
        .unwrap_or_default();
    let mut animations = Prim::def("Animations", "Scope");
    let mut taken = HashSet::new();
    let mut end = 0.0f64;
    for (i, clip) in clips.iter().enumerate() {
        let base = match clip.name.as_str() {
            "" => format!("Clip_{i}"),
            name => identifier(name),
        };
        let name = unique_name(&base, &mut taken);
        if let Some(prim) = animation(clip, &name, &targets) {
            end = end.max(clip.duration as f64 * TIME_CODES_PER_SECOND);
            animations.children.push(prim);
        }
    }
    let mut metadata = Vec::new();
    if animations.children.is_empty() && !shapes.is_empty() {
        // Blend shapes take their weights from an animation: one holding the defaults.
        let mut rest = animation_prim("Weights", &targets);
        rest.set(
            "blendShapeWeights",
            "float[]",
            Value::FloatArray(weights.clone()),
        );
        animations.children.push(rest);
    } else if !animations.children.is_empty() {
        metadata = vec![
            (
                "timeCodesPerSecond".into(),
                Value::Double(TIME_CODES_PER_SECOND),
            ),
            ("startTimeCode".into(), Value::Double(0.0)),
            ("endTimeCode".into(), Value::Double(end)),
        ];
    }
    if let Some(first) = animations.children.first() {
        let source = format!("{root_path}/Animations/{}", first.name);
        skeleton.rel("skel:animationSource", vec![source]);
    }
    root.children.push(skeleton);
    if !animations.children.is_empty() {
        root.children.push(animations);
    }
    metadata
}

/// A channel's value at `time` (`components` floats), holding the ends and slerping
/// rotations.
fn sample(channel: &Channel, time: f32, components: usize) -> Option<Vec<f32>> {
    let times = &channel.times;
    let key = |i: usize| channel.values.get(i * components..(i + 1) * components);
    let after = times.partition_point(|&t| t <= time);
    if after == 0 {
        return key(0).map(<[f32]>::to_vec);
    }
    let before = after - 1;
    if after >= times.len() || channel.interpolation == Interpolation::Step {
        return key(before).map(<[f32]>::to_vec);
    }
    let (a, b) = (key(before)?, key(after)?);
    let span = times[after] - times[before];
    let f = if span > 0.0 {
        (time - times[before]) / span
    } else {
        0.0
    };
    if channel.path == ChannelPath::Rotation {
        return Some(slerp(a, b, f));
    }
    Some(a.iter().zip(b).map(|(x, y)| x + (y - x) * f).collect())
}

/// Spherical interpolation of two unit quaternions (xyzw), the short way round.
fn slerp(a: &[f32], b: &[f32], f: f32) -> Vec<f32> {
    let mut dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    dot *= sign;
    let (wa, wb) = if dot > 0.9995 {
        (1.0 - f, f)
    } else {
        let theta = dot.clamp(-1.0, 1.0).acos();
        let s = theta.sin();
        (((1.0 - f) * theta).sin() / s, (f * theta).sin() / s)
    };
    let q: Vec<f32> = a
        .iter()
        .zip(b)
        .map(|(x, y)| wa * x + wb * sign * y)
        .collect();
    let len = q
        .iter()
        .map(|v| v * v)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    q.iter().map(|v| v / len).collect()
}

/// What a clip animates: the skeleton's joints (old indices in parents-first `order`, and
/// each old index's new one) and the mesh's blend shapes (names, default weights).
struct Targets<'a> {
    joints: &'a [GpuJoint],
    order: &'a [usize],
    new_of: &'a [usize],
    joint_tokens: &'a [String],
    shapes: &'a [String],
    weights: &'a [f32],
}

/// Every joint's translations, rotations and scales, in the new order.
type Pose = (Vec<[f32; 3]>, Vec<[f32; 4]>, Vec<[f32; 3]>);

/// Every joint's translation, rotation and scale at `time` (rest pose where no channel
/// keys it), in the new order.
fn pose(t: &Targets<'_>, channels: &[&Channel], time: f32) -> Pose {
    let mut tr: Vec<[f32; 3]> = t.order.iter().map(|&j| t.joints[j].bind_t).collect();
    let mut ro: Vec<[f32; 4]> = t.order.iter().map(|&j| t.joints[j].bind_r).collect();
    let mut sc: Vec<[f32; 3]> = t.order.iter().map(|&j| t.joints[j].bind_s).collect();
    for channel in channels.iter().filter(|c| c.path != ChannelPath::Weights) {
        let new = t.new_of[channel.joint as usize];
        let Some(v) = sample(channel, time, channel.components()) else {
            continue;
        };
        match channel.path {
            ChannelPath::Translation => tr[new] = [v[0], v[1], v[2]],
            ChannelPath::Rotation => ro[new] = [v[0], v[1], v[2], v[3]],
            ChannelPath::Scale => sc[new] = [v[0], v[1], v[2]],
            ChannelPath::Weights => {}
        }
    }
    (tr, ro, sc)
}

/// The blend shape weights at `time`: the defaults, overridden where a weights channel keys.
fn weights_at(t: &Targets<'_>, channels: &[&Channel], time: f32) -> Vec<f32> {
    let mut weights = t.weights.to_vec();
    for channel in channels.iter().filter(|c| c.path == ChannelPath::Weights) {
        let Some(v) = sample(channel, time, channel.components()) else {
            continue;
        };
        for (k, w) in v.into_iter().enumerate() {
            if let Some(slot) = weights.get_mut(channel.joint as usize + k) {
                *slot = w;
            }
        }
    }
    weights
}

/// One clip as a `SkelAnimation`: every joint's transform and every blend shape's weight at
/// each key time of the clip. `None` for a clip that keys nothing exported, or one too large
/// to expand.
fn animation(clip: &Clip, name: &str, t: &Targets<'_>) -> Option<Prim> {
    let channels: Vec<&Channel> = clip
        .channels
        .iter()
        .filter(|c| match c.path {
            ChannelPath::Weights => !t.shapes.is_empty(),
            _ => (c.joint as usize) < t.joints.len(),
        })
        .collect();
    let mut times: Vec<f32> = channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let per_time = t.joints.len() + t.shapes.len();
    if times.is_empty() || times.len().saturating_mul(per_time) > MAX_SAMPLES {
        return None;
    }
    let mut samples: [Vec<(f64, Value)>; 4] = Default::default();
    for &time in &times {
        let code = time as f64 * TIME_CODES_PER_SECOND;
        if !t.joints.is_empty() {
            let (tr, ro, sc) = pose(t, &channels, time);
            samples[0].push((code, Value::QuatfArray(ro)));
            samples[1].push((code, Value::Half3Array(sc)));
            samples[2].push((code, Value::Float3Array(tr)));
        }
        if !t.shapes.is_empty() {
            samples[3].push((code, Value::FloatArray(weights_at(t, &channels, time))));
        }
    }
    let mut prim = animation_prim(name, t);
    let names = [
        ("rotations", "quatf[]"),
        ("scales", "half3[]"),
        ("translations", "float3[]"),
        ("blendShapeWeights", "float[]"),
    ];
    for ((attr, type_name), samples) in names.into_iter().zip(samples) {
        if !samples.is_empty() {
            let mut a = Attribute::declared(attr, type_name);
            a.samples = samples;
            prim.attr(a);
        }
    }
    Some(prim)
}

/// A `SkelAnimation` naming the joints and blend shapes it animates.
fn animation_prim(name: &str, t: &Targets<'_>) -> Prim {
    let mut prim = Prim::def(name, "SkelAnimation");
    if !t.shapes.is_empty() {
        prim.set_uniform(
            "blendShapes",
            "token[]",
            Value::TokenArray(t.shapes.to_vec()),
        );
    }
    if !t.joints.is_empty() {
        prim.set_uniform(
            "joints",
            "token[]",
            Value::TokenArray(t.joint_tokens.to_vec()),
        );
    }
    prim
}

/// The mesh's morph targets as `BlendShape` children (position and normal offsets for every
/// point), named on the mesh (`skel:blendShapes`, `skel:blendShapeTargets`); returns the
/// names and the default weights.
fn add_blend_shapes(model: &Model, mesh: &mut Prim, mesh_path: &str) -> (Vec<String>, Vec<f32>) {
    let view = model.mesh.view();
    let Some(morphs) = view
        .morph_targets
        .as_ref()
        .filter(|m| !m.targets.is_empty())
    else {
        return (Vec::new(), Vec::new());
    };
    let mut names = Vec::with_capacity(morphs.targets.len());
    for (i, target) in morphs.targets.iter().enumerate() {
        let name = format!("Shape_{i}");
        let mut shape = Prim::def(&name, "BlendShape");
        shape.set_uniform(
            "offsets",
            "vector3f[]",
            Value::Float3Array(target.positions.to_vec()),
        );
        if target.normals.is_some() {
            let normals = (0..target.positions.len())
                .map(|v| target.normal(v))
                .collect();
            shape.set_uniform("normalOffsets", "vector3f[]", Value::Float3Array(normals));
        }
        mesh.children.push(shape);
        names.push(name);
    }
    let targets = names.iter().map(|n| format!("{mesh_path}/{n}")).collect();
    mesh.set_uniform(
        "skel:blendShapes",
        "token[]",
        Value::TokenArray(names.clone()),
    )
    .rel("skel:blendShapeTargets", targets);
    (names, morphs.weights.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trs_inverts() {
        let m = trs(
            [1.0, 2.0, 3.0],
            [
                0.0,
                0.0,
                std::f32::consts::FRAC_1_SQRT_2,
                std::f32::consts::FRAC_1_SQRT_2,
            ],
            [2.0; 3],
        );
        let back = inverse(inverse(m).unwrap()).unwrap();
        for (a, b) in m.iter().zip(back) {
            assert!((a - b).abs() < 1e-9);
        }
        // A rotation of 90° about Z takes X to Y: row 0 is the image of X.
        assert!((m[1] - 2.0).abs() < 1e-6 && m[0].abs() < 1e-6);
    }
}
