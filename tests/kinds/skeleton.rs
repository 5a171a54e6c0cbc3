//! Baked skeletons against their glTF sources: each joint's world transform, composed along
//! the baked parents from the baked rest TRS (and from the baked keys, at every key time),
//! equals the source joint node's world transform, all of its ancestors included; the source
//! is read with the `gltf` crate and composed here, independently of the bake.
#![cfg(feature = "bake")]

use crate::common::{copy_dir, corpus};
use hearth::format::hanim::{ChannelPath, Clip, Interpolation};
use hearth::{AnimClips, MeshView};
use std::path::Path;

/// A column-major 4x4 matrix.
type Mat = [[f64; 4]; 4];

/// How far a baked world transform may be from the source's (per matrix element).
const TOLERANCE: f64 = 1e-4;

/// A translation, rotation (xyzw) and scale, as glTF composes them.
#[derive(Debug, Clone, Copy)]
struct Trs {
    t: [f32; 3],
    r: [f32; 4],
    s: [f32; 3],
}

impl Trs {
    fn matrix(&self) -> Mat {
        let [x, y, z, w] = self.r.map(f64::from);
        let rotation = [
            [
                1. - 2. * (y * y + z * z),
                2. * (x * y + z * w),
                2. * (x * z - y * w),
            ],
            [
                2. * (x * y - z * w),
                1. - 2. * (x * x + z * z),
                2. * (y * z + x * w),
            ],
            [
                2. * (x * z + y * w),
                2. * (y * z - x * w),
                1. - 2. * (x * x + y * y),
            ],
        ];
        let mut m = [[0.0; 4]; 4];
        for c in 0..3 {
            for r in 0..3 {
                m[c][r] = rotation[c][r] * self.s[c] as f64;
            }
            m[3][c] = self.t[c] as f64;
        }
        m[3][3] = 1.0;
        m
    }

    /// This pose with one path replaced by a sampled value.
    fn with(mut self, path: ChannelPath, value: &[f32]) -> Self {
        match path {
            ChannelPath::Translation => self.t.copy_from_slice(value),
            ChannelPath::Rotation => self.r.copy_from_slice(value),
            ChannelPath::Scale => self.s.copy_from_slice(value),
            ChannelPath::Weights => {}
        }
        self
    }
}

fn mul(a: &Mat, b: &Mat) -> Mat {
    std::array::from_fn(|c| std::array::from_fn(|r| (0..4).map(|k| a[k][r] * b[c][k]).sum()))
}

fn max_difference(a: &Mat, b: &Mat) -> f64 {
    (0..16)
        .map(|i| (a[i / 4][i % 4] - b[i / 4][i % 4]).abs())
        .fold(0.0, f64::max)
}

/// Each node's world matrix from its local one, following `parents` (bounded: a test file
/// has no cycles, but a bug must fail, not hang).
fn worlds(parents: &[Option<usize>], locals: &[Mat]) -> Vec<Mat> {
    (0..locals.len())
        .map(|node| {
            let mut world = locals[node];
            let mut next = parents[node];
            for _ in 0..=locals.len() {
                let Some(parent) = next else { return world };
                world = mul(&locals[parent], &world);
                next = parents[parent];
            }
            panic!("node {node}: the parents form a cycle");
        })
        .collect()
}

/// One animation channel, from either side: the property, its keys and how to step between.
struct Keys {
    path: ChannelPath,
    step: bool,
    times: Vec<f32>,
    values: Vec<f32>,
}

impl Keys {
    /// The value at `time`: held before the first key and after the last; linear between
    /// keys (normalized for rotations, the shorter way round), or the previous key for STEP.
    fn sample(&self, time: f32) -> Vec<f32> {
        let n = self.values.len() / self.times.len();
        let key = |i: usize| &self.values[i * n..(i + 1) * n];
        let after = self.times.partition_point(|&t| t <= time);
        if after == 0 {
            return key(0).to_vec();
        }
        if after == self.times.len() || self.step {
            return key(after - 1).to_vec();
        }
        let (t0, t1) = (self.times[after - 1], self.times[after]);
        let f = if t1 > t0 {
            (time - t0) / (t1 - t0)
        } else {
            0.0
        };
        let (a, b) = (key(after - 1), key(after));
        if self.path != ChannelPath::Rotation {
            return a.iter().zip(b).map(|(a, b)| a + (b - a) * f).collect();
        }
        let dot: f32 = a.iter().zip(b).map(|(a, b)| a * b).sum();
        let sign = if dot < 0.0 { -1.0 } else { 1.0 };
        let q: Vec<f32> = a
            .iter()
            .zip(b)
            .map(|(a, b)| a + (sign * b - a) * f)
            .collect();
        let length = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        q.iter().map(|v| v / length).collect()
    }
}

/// A glTF file read with the `gltf` crate: every node's parent and rest pose, the first
/// skin's joint nodes, and each animation's channels (node, keys).
struct Source {
    parents: Vec<Option<usize>>,
    rest: Vec<Trs>,
    joints: Vec<usize>,
    animations: Vec<(String, Vec<(usize, Keys)>)>,
}

fn read_source(path: &Path) -> Source {
    let (document, buffers, _) = gltf::import(path).unwrap();
    let mut parents = vec![None; document.nodes().len()];
    for node in document.nodes() {
        for child in node.children() {
            parents[child.index()] = Some(node.index());
        }
    }
    let rest = document
        .nodes()
        .map(|node| {
            let (t, r, s) = node.transform().decomposed();
            Trs { t, r, s }
        })
        .collect();
    let skin = document.skins().next().expect("a skin");
    let animations = document
        .animations()
        .map(|animation| {
            let channels = animation
                .channels()
                .map(|channel| {
                    (
                        channel.target().node().index(),
                        source_keys(&channel, &buffers),
                    )
                })
                .collect();
            (animation.name().unwrap_or("").to_owned(), channels)
        })
        .collect();
    Source {
        parents,
        rest,
        joints: skin.joints().map(|n| n.index()).collect(),
        animations,
    }
}

fn source_keys(channel: &gltf::animation::Channel<'_>, buffers: &[gltf::buffer::Data]) -> Keys {
    use gltf::animation::util::ReadOutputs;
    let reader = channel.reader(|b| Some(&buffers[b.index()].0[..]));
    let times: Vec<f32> = reader.read_inputs().unwrap().collect();
    let (path, values): (ChannelPath, Vec<f32>) = match reader.read_outputs().unwrap() {
        ReadOutputs::Translations(v) => (ChannelPath::Translation, v.flatten().collect()),
        ReadOutputs::Rotations(v) => (ChannelPath::Rotation, v.into_f32().flatten().collect()),
        ReadOutputs::Scales(v) => (ChannelPath::Scale, v.flatten().collect()),
        ReadOutputs::MorphTargetWeights(v) => (ChannelPath::Weights, v.into_f32().collect()),
    };
    use gltf::animation::Interpolation as Source;
    let interpolation = channel.sampler().interpolation();
    assert_ne!(
        interpolation,
        Source::CubicSpline,
        "the corpus models key linearly"
    );
    Keys {
        path,
        step: interpolation == Source::Step,
        times,
        values,
    }
}

/// The source joints' world transforms with `animation`'s channels (none: the rest pose)
/// sampled at `time`, on every node they target (joints or not).
fn source_joint_worlds(source: &Source, animation: Option<usize>, time: f32) -> Vec<Mat> {
    let mut poses = source.rest.clone();
    for (node, keys) in animation.iter().flat_map(|&a| &source.animations[a].1) {
        poses[*node] = poses[*node].with(keys.path, &keys.sample(time));
    }
    let locals: Vec<Mat> = poses.iter().map(Trs::matrix).collect();
    let worlds = worlds(&source.parents, &locals);
    source.joints.iter().map(|&node| worlds[node]).collect()
}

/// The baked joints' world transforms with `clip`'s channels (none: the rest pose) sampled at
/// `time`.
fn baked_joint_worlds(
    skeleton: &[hearth::format::hmesh::GpuJoint],
    clip: Option<&Clip>,
    time: f32,
) -> Vec<Mat> {
    let mut poses: Vec<Trs> = skeleton
        .iter()
        .map(|j| Trs {
            t: j.bind_t,
            r: j.bind_r,
            s: j.bind_s,
        })
        .collect();
    for channel in clip.iter().flat_map(|c| &c.channels) {
        let keys = Keys {
            path: channel.path,
            step: channel.interpolation == Interpolation::Step,
            times: channel.times.clone(),
            values: channel.values.clone(),
        };
        let joint = channel.joint as usize;
        poses[joint] = poses[joint].with(channel.path, &keys.sample(time));
    }
    let parents: Vec<Option<usize>> = skeleton
        .iter()
        .map(|j| usize::try_from(j.parent).ok())
        .collect();
    let locals: Vec<Mat> = poses.iter().map(Trs::matrix).collect();
    worlds(&parents, &locals)
}

fn assert_same_worlds(baked: &[Mat], source: &[Mat], what: &str) {
    assert_eq!(baked.len(), source.len(), "{what}: joint count");
    for (joint, (b, s)) in baked.iter().zip(source).enumerate() {
        let difference = max_difference(b, s);
        assert!(
            difference < TOLERANCE,
            "{what}, joint {joint}: the baked world transform is off by {difference}\n\
             baked  {b:?}\nsource {s:?}"
        );
    }
}

/// Bakes `dir/<file>` (the folder's only model) and returns the report's warnings, the
/// `.hmesh` and the `.hanim` bytes.
fn bake(dir: &Path, file: &str) -> (Vec<String>, Vec<u8>, Vec<u8>) {
    let out = tempfile::tempdir().unwrap();
    let manifest = dir.join("hearth-test.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[content.group]]\nassets = [\"{file}\"]\n[default]\n\
             texture = {{ quality = \"fastest\", max_size = 64, mips = false }}\n"
        ),
    )
    .unwrap();
    let report = hearth::bake::Baker::new(manifest.as_path(), out.path())
        .run()
        .unwrap();
    let stem = Path::new(file).with_extension("");
    let read = |ext: &str| std::fs::read(out.path().join(stem.with_extension(ext))).unwrap();
    (report.warnings, read("hmesh"), read("hanim"))
}

/// Bakes `dir/<file>` and checks every joint's world transform against the source: at rest,
/// and for every clip at each of its key times and halfway between.
fn check_model(dir: &Path, file: &str) -> Vec<String> {
    let source = read_source(&dir.join(file));
    let (warnings, mesh, anim) = bake(dir, file);
    let mesh = MeshView::parse(&mesh).unwrap();
    let skeleton = mesh.skeleton.as_deref().expect("SKEL");
    assert_same_worlds(
        &baked_joint_worlds(skeleton, None, 0.0),
        &source_joint_worlds(&source, None, 0.0),
        &format!("{file} at rest"),
    );
    let clips = AnimClips::parse(&anim, skeleton.len() as u32, 0)
        .unwrap()
        .clips;
    assert_eq!(
        clips.len(),
        source.animations.len(),
        "{file}: a clip per animation"
    );
    for (index, clip) in clips.iter().enumerate() {
        assert_eq!(clip.name, source.animations[index].0);
        let mut times: Vec<f32> = clip
            .channels
            .iter()
            .flat_map(|c| c.times.iter().copied())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let halfway: Vec<f32> = times.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
        assert!(times.len() > 1, "{file}: clip {index} has keys");
        for time in times.iter().chain(&halfway) {
            assert_same_worlds(
                &baked_joint_worlds(skeleton, Some(clip), *time),
                &source_joint_worlds(&source, Some(index), *time),
                &format!("{file}, clip {index} at {time} s"),
            );
        }
    }
    warnings
}

#[test]
fn cesium_man_joints_match_the_source_at_rest_and_animated() {
    // Its skeleton root sits under two non-joint nodes (Z_UP, Armature) that turn it.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/CesiumMan"), dir.path());
    let warnings = check_model(dir.path(), "CesiumMan.gltf");
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn rigged_simple_joints_match_the_source_at_rest_and_animated() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/RiggedSimple"), dir.path());
    let warnings = check_model(dir.path(), "RiggedSimple.glb");
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// CesiumMan with a non-joint node (transform `helper`) inserted between two of its joints
/// (`Skeleton_torso_joint_2` and `torso_joint_3`), written as `CesiumMan.gltf` in `dir`.
fn cesium_man_with_a_node_between_joints(dir: &Path, helper: serde_json::Value) {
    copy_dir(&corpus("gltf/CesiumMan"), dir);
    let path = dir.join("CesiumMan.gltf");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let nodes = json["nodes"].as_array_mut().unwrap();
    let (upper, lower) = (12, 13);
    assert_eq!(nodes[upper]["name"], "Skeleton_torso_joint_2");
    assert_eq!(nodes[lower]["name"], "torso_joint_3");
    let inserted = nodes.len();
    let mut helper = helper;
    helper["name"] = "helper".into();
    helper["children"] = serde_json::json!([lower]);
    nodes.push(helper);
    for child in nodes[upper]["children"].as_array_mut().unwrap() {
        if *child == lower {
            *child = inserted.into();
        }
    }
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
}

#[test]
fn a_non_joint_node_between_joints_is_folded_into_the_lower_joint_and_its_keys() {
    // Turned, moved, mirrored and scaled uniformly: a TRS holds it exactly.
    let dir = tempfile::tempdir().unwrap();
    cesium_man_with_a_node_between_joints(
        dir.path(),
        serde_json::json!({
            "translation": [0.1, -0.2, 0.05],
            "rotation": [0.2, 0.3, -0.1, 0.9273618],
            "scale": [-1.5, -1.5, -1.5],
        }),
    );
    let warnings = check_model(dir.path(), "CesiumMan.gltf");
    assert!(warnings.is_empty(), "{warnings:?}");
    // The lower joint's parent is the upper joint, through the helper.
    let (_, mesh, _) = bake(dir.path(), "CesiumMan.gltf");
    let skeleton = MeshView::parse(&mesh)
        .unwrap()
        .skeleton
        .unwrap()
        .into_owned();
    // Skin joints 1 and 2 are nodes 12 and 13.
    assert_eq!(skeleton[2].parent, 1);
}

#[test]
fn a_non_uniformly_scaled_node_between_joints_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    cesium_man_with_a_node_between_joints(dir.path(), serde_json::json!({"scale": [1, 2, 1]}));
    let (warnings, ..) = bake(dir.path(), "CesiumMan.gltf");
    assert!(
        warnings.iter().any(|w| w.contains("CesiumMan.gltf")
            && w.contains("non-uniformly")
            && w.contains("torso_joint_3")),
        "{warnings:?}"
    );
}
