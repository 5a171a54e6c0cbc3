//! Non-joint ancestors of skin joints. glTF skins a mesh with each joint's *world* transform,
//! every ancestor included; SKEL stores a joint's TRS relative to its nearest *joint*
//! ancestor (or to the model, for a root). The nodes in between that are not joints (an
//! `Armature` or `Z_UP` node above the skeleton root, a helper node between two bones) are
//! folded into the joint: its rest TRS and its animation keys become `A * local`, with `A`
//! the product of those nodes' (rest) transforms.
//!
//! A TRS holds `A * T * R * S` exactly when `A` scales uniformly (any sign) without shear:
//! `T' = A(T)` (as a point), `R' = rot(A) * R`, `S' = scale(A) * S`. Each piece depends on one
//! of T, R or S alone, so a channel that animates only one of them folds on its own, and the
//! fold commutes with linear and spherical interpolation between keys. When `A` scales
//! non-uniformly or shears, no TRS can hold it: the same pieces are used (`scale(A)` per axis,
//! `rot(A)` from its normalized axes), exact for `T` and for rotations that keep `A`'s axes,
//! approximate otherwise, and the import warns.

use crate::format::hanim::ChannelPath;
use glam::{DMat3, DMat4, DQuat, DVec3, Mat4};
use std::collections::HashMap;

/// Relative tolerance under which `A`'s axes count as equally long and perpendicular.
const UNIFORM_TOLERANCE: f64 = 1e-4;

/// A joint's place in the skeleton: its nearest joint ancestor and, when non-joint nodes lie
/// between (or above a root joint), their transform to fold in.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct JointAncestry {
    /// The nearest ancestor that is a joint of the skin (a joint index), if any.
    pub parent: Option<usize>,
    /// The non-joint nodes' transform, `None` when there are none (or they compose to the
    /// identity): the joint is then stored exactly as the source has it.
    pub fold: Option<AncestorFold>,
}

/// The node hierarchy, read once per skin: each node's parent and rest matrix.
pub(super) struct Hierarchy {
    /// Each node's parent (`None` for roots). A node listed as the child of several (invalid
    /// glTF) gets the last of them.
    parents: Vec<Option<usize>>,
    /// Each node's rest transform, in double precision (the fold composes several nodes).
    matrices: Vec<DMat4>,
}

impl Hierarchy {
    /// Reads `document`'s nodes.
    pub fn new(document: &gltf::Document) -> Self {
        let mut parents = vec![None; document.nodes().len()];
        for node in document.nodes() {
            for child in node.children() {
                parents[child.index()] = Some(node.index());
            }
        }
        let matrices = document
            .nodes()
            .map(|node| Mat4::from_cols_array_2d(&node.transform().matrix()).as_dmat4())
            .collect();
        Self { parents, matrices }
    }

    /// Walks up from `joint_node` to its nearest joint ancestor (`joint_of`: node -> joint),
    /// composing the non-joint nodes on the way. At most one step per node: a longer walk
    /// means the hierarchy has a cycle, an error.
    pub fn joint_ancestry(
        &self,
        joint_of: &HashMap<usize, usize>,
        joint_node: usize,
    ) -> Result<JointAncestry, String> {
        let mut above = DMat4::IDENTITY;
        let mut parent = None;
        let mut next = self.parents.get(joint_node).copied().flatten();
        let mut steps = 0usize;
        while let Some(node) = next {
            if let Some(&joint) = joint_of.get(&node) {
                parent = Some(joint);
                break;
            }
            steps += 1;
            let matrix = match self.matrices.get(node) {
                Some(matrix) if steps <= self.matrices.len() => matrix,
                _ => {
                    return Err(format!(
                        "node {joint_node} (a skin joint): its ancestors form a cycle"
                    ))
                }
            };
            above = *matrix * above;
            next = self.parents[node];
        }
        let fold = (above != DMat4::IDENTITY)
            .then(|| AncestorFold::new(&above))
            .transpose()
            .map_err(|e| {
                format!("node {joint_node} (a skin joint): its non-joint ancestors {e}")
            })?;
        Ok(JointAncestry { parent, fold })
    }
}

/// Checks that following joints' parents always ends at a root: a joint that is its own
/// ancestor (a node hierarchy with a cycle through joints) is an error.
pub(crate) fn check_joint_parents(parents: &[Option<usize>]) -> Result<(), String> {
    for start in 0..parents.len() {
        let (mut joint, mut steps) = (start, 0usize);
        while let Some(parent) = parents[joint] {
            steps += 1;
            if steps > parents.len() || parent >= parents.len() {
                return Err(format!(
                    "skin joint {start}: its joint ancestors form a cycle"
                ));
            }
            joint = parent;
        }
    }
    Ok(())
}

/// A fixed transform `A` split into the pieces that fold a TRS (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AncestorFold {
    /// `A`'s upper 3x3.
    linear: DMat3,
    /// `A`'s translation.
    offset: DVec3,
    /// `rot(A)`, a unit quaternion.
    rotation: DQuat,
    /// `scale(A)` per axis; all three negative when `A` mirrors.
    scale: DVec3,
    /// Whether a TRS holds `A * TRS` exactly (uniform scale, no shear).
    exact: bool,
}

impl AncestorFold {
    /// Splits `matrix` (column-major, affine); an error when it is not finite.
    pub fn new(matrix: &DMat4) -> Result<Self, String> {
        if !matrix.is_finite() {
            return Err("have a non-finite transform".into());
        }
        let linear = DMat3::from_mat4(*matrix);
        let offset = matrix.w_axis.truncate();
        let lengths = DVec3::new(
            linear.x_axis.length(),
            linear.y_axis.length(),
            linear.z_axis.length(),
        );
        // x · (y × z), not glam's `determinant` (z · (x × y)): a sign within rounding of 0
        // stays the one it was.
        let det = linear.x_axis.dot(linear.y_axis.cross(linear.z_axis));
        // A mirror is a negative uniform scale: -1 commutes with every rotation, so the
        // rotation left over (A / scale) is proper.
        let sign = if det < 0.0 { -1.0 } else { 1.0 };
        let longest = lengths.max_element();
        let tolerance = UNIFORM_TOLERANCE * longest;
        let uniform = lengths
            .to_array()
            .iter()
            .all(|l| (l - longest).abs() <= tolerance);
        let perpendicular = (0..3).all(|i| {
            let j = (i + 1) % 3;
            linear.col(i).dot(linear.col(j)).abs() <= UNIFORM_TOLERANCE * lengths[i] * lengths[j]
        });
        let scale = if uniform {
            DVec3::splat(sign * (lengths.element_sum() / 3.0))
        } else {
            lengths * sign
        };
        let degenerate = lengths
            .to_array()
            .iter()
            .any(|&l| l <= f64::EPSILON * longest.max(1.0));
        let rotation = if degenerate {
            // A collapsed axis has no direction to keep; the scale of 0 carries the collapse.
            DQuat::IDENTITY
        } else {
            quaternion_from_axes(&DMat3::from_cols(
                linear.x_axis / scale.x,
                linear.y_axis / scale.y,
                linear.z_axis / scale.z,
            ))
        };
        Ok(Self {
            linear,
            offset,
            rotation,
            scale,
            exact: (uniform && perpendicular) || longest == 0.0,
        })
    }

    /// Whether TRS holds the fold exactly (see the module docs for when it does not).
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// `A(t)`: a translation moved as a point.
    pub fn translation(&self, t: [f32; 3]) -> [f32; 3] {
        (self.linear * DVec3::from(t.map(f64::from)) + self.offset)
            .as_vec3()
            .to_array()
    }

    /// `rot(A) * q` (xyzw); `q`'s length is kept, as the source gave it.
    pub fn rotation(&self, q: [f32; 4]) -> [f32; 4] {
        (self.rotation * DQuat::from_array(q.map(f64::from)))
            .as_quat()
            .to_array()
    }

    /// `scale(A) * s`, per axis.
    pub fn scale(&self, s: [f32; 3]) -> [f32; 3] {
        (self.scale * DVec3::from(s.map(f64::from)))
            .as_vec3()
            .to_array()
    }

    /// Folds one channel's keys (`path`'s components per key) in place; weight channels are
    /// left as they are.
    pub fn fold_keys(&self, path: ChannelPath, values: &mut [f32]) {
        match path {
            ChannelPath::Translation => values.chunks_exact_mut(3).for_each(|key| {
                key.copy_from_slice(&self.translation([key[0], key[1], key[2]]));
            }),
            ChannelPath::Rotation => values.chunks_exact_mut(4).for_each(|key| {
                key.copy_from_slice(&self.rotation([key[0], key[1], key[2], key[3]]));
            }),
            ChannelPath::Scale => values.chunks_exact_mut(3).for_each(|key| {
                key.copy_from_slice(&self.scale([key[0], key[1], key[2]]));
            }),
            ChannelPath::Weights => {}
        }
    }
}

/// The unit quaternion (xyzw, w >= 0) nearest the rotation whose columns are `axes`
/// (Shepperd's method: divide by the largest of the four, so no precision is lost near 180°),
/// normalized so that slightly non-orthonormal axes still give a rotation. Not glam's
/// `DQuat::from_mat3`: it expects orthonormal axes, and branches and rounds otherwise (the
/// folded keys' bits would move).
fn quaternion_from_axes(axes: &DMat3) -> DQuat {
    let m = |r: usize, c: usize| axes.col(c)[r];
    let trace = m(0, 0) + m(1, 1) + m(2, 2);
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [
            (m(2, 1) - m(1, 2)) / s,
            (m(0, 2) - m(2, 0)) / s,
            (m(1, 0) - m(0, 1)) / s,
            0.25 * s,
        ]
    } else if m(0, 0) > m(1, 1) && m(0, 0) > m(2, 2) {
        let s = (1.0 + m(0, 0) - m(1, 1) - m(2, 2)).sqrt() * 2.0;
        [
            0.25 * s,
            (m(0, 1) + m(1, 0)) / s,
            (m(0, 2) + m(2, 0)) / s,
            (m(2, 1) - m(1, 2)) / s,
        ]
    } else if m(1, 1) > m(2, 2) {
        let s = (1.0 + m(1, 1) - m(0, 0) - m(2, 2)).sqrt() * 2.0;
        [
            (m(0, 1) + m(1, 0)) / s,
            0.25 * s,
            (m(1, 2) + m(2, 1)) / s,
            (m(0, 2) - m(2, 0)) / s,
        ]
    } else {
        let s = (1.0 + m(2, 2) - m(0, 0) - m(1, 1)).sqrt() * 2.0;
        [
            (m(0, 2) + m(2, 0)) / s,
            (m(1, 2) + m(2, 1)) / s,
            0.25 * s,
            (m(1, 0) - m(0, 1)) / s,
        ]
    };
    let q = DQuat::from_array(q);
    let length = q.length();
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    if length > 0.0 && length.is_finite() {
        // Divided, not multiplied by the reciprocal as glam's `normalize` is: the same bits.
        q * sign / length
    } else {
        DQuat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The matrix of a TRS.
    fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> DMat4 {
        DMat4::from_scale_rotation_translation(s.into(), DQuat::from_array(q), t.into())
    }

    fn unit(q: [f64; 4]) -> [f64; 4] {
        let length = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        q.map(|v| v / length)
    }

    fn f32s<const N: usize>(v: [f64; N]) -> [f32; N] {
        v.map(|c| c as f32)
    }

    fn f64s<const N: usize>(v: [f32; N]) -> [f64; N] {
        v.map(f64::from)
    }

    fn assert_near(a: &DMat4, b: &DMat4, what: &str) {
        let error = (*a - *b)
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f64::max);
        assert!(error < 1e-5, "{what}: off by {error}\n{a:?}\n{b:?}");
    }

    /// A few joint rest poses, scaled non-uniformly themselves (the joint's own scale is
    /// always held).
    fn locals() -> Vec<([f64; 3], [f64; 4], [f64; 3])> {
        vec![
            ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            (
                [0.3, -1.2, 2.0],
                unit([0.2, -0.5, 0.1, 0.8]),
                [1.0, 2.0, 0.5],
            ),
            (
                [-4.0, 0.5, 0.25],
                unit([-0.7, 0.1, 0.6, -0.2]),
                [0.1, 0.1, 3.0],
            ),
        ]
    }

    #[test]
    fn a_uniform_fold_is_exact_for_every_rest_pose() {
        let ancestors = [
            trs([1.0, 2.0, 3.0], unit([0.3, 0.4, -0.2, 0.9]), [2.5; 3]),
            // CesiumMan's Z_UP * Armature: two quarter turns.
            trs([0.0; 3], unit([-1.0, 0.0, 0.0, 1.0]), [1.0; 3])
                * trs([0.0; 3], unit([0.0, 0.0, 1.0, 1.0]), [1.0; 3]),
            // A mirror: a negative uniform scale.
            trs([0.0, -3.0, 0.5], unit([0.1, 0.9, 0.0, 0.3]), [-0.01; 3]),
            // A half turn (w = 0: the quaternion's largest component is not w).
            trs([0.0; 3], [0.0, 1.0, 0.0, 0.0], [1.0; 3]),
        ];
        for (k, a) in ancestors.iter().enumerate() {
            let fold = AncestorFold::new(a).unwrap();
            assert!(fold.is_exact(), "ancestors {k}");
            for (t, q, s) in locals() {
                let folded = trs(
                    f64s(fold.translation(f32s(t))),
                    f64s(fold.rotation(f32s(q))),
                    f64s(fold.scale(f32s(s))),
                );
                assert_near(&folded, &(*a * trs(t, q, s)), &format!("ancestors {k}"));
            }
        }
    }

    #[test]
    fn keys_fold_one_path_at_a_time_as_the_rest_pose_does() {
        let fold = AncestorFold::new(&trs([1.0, 0.0, -2.0], unit([0.5, 0.5, 0.5, 0.5]), [3.0; 3]))
            .unwrap();
        let (t, q, s) = locals()[1];
        let mut translations = [f32s(t), [0.0; 3]].concat();
        let mut rotations = [f32s(q), [0.0, 0.0, 0.0, 1.0]].concat();
        let mut scales = [f32s(s), [1.0; 3]].concat();
        let mut weights = vec![0.25, 0.75];
        fold.fold_keys(ChannelPath::Translation, &mut translations);
        fold.fold_keys(ChannelPath::Rotation, &mut rotations);
        fold.fold_keys(ChannelPath::Scale, &mut scales);
        fold.fold_keys(ChannelPath::Weights, &mut weights);
        assert_eq!(translations[..3], fold.translation(f32s(t)));
        assert_eq!(translations[3..], fold.translation([0.0; 3]));
        assert_eq!(rotations[..4], fold.rotation(f32s(q)));
        assert_eq!(rotations[4..], fold.rotation([0.0, 0.0, 0.0, 1.0]));
        assert_eq!(scales[..3], fold.scale(f32s(s)));
        assert_eq!(weights, [0.25, 0.75], "weights are not a joint's");
        // The ancestors' origin moved by their translation; an unrotated key takes rot(A).
        assert_eq!(translations[3..], [1.0, 0.0, -2.0]);
        let turned = fold
            .rotation([0.0, 0.0, 0.0, 1.0])
            .map(|v| (v * 2.0).round() / 2.0);
        assert_eq!(turned, [0.5, 0.5, 0.5, 0.5]);
    }

    #[test]
    fn non_uniform_or_sheared_ancestors_are_approximate_but_keep_translations() {
        let stretched = trs(
            [1.0, 2.0, 3.0],
            unit([0.3, 0.4, -0.2, 0.9]),
            [1.0, 2.0, 1.0],
        );
        let sheared = trs([0.0; 3], unit([0.0, 0.0, 0.4, 0.9]), [1.0; 3])
            * trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0, 3.0, 1.0])
            * trs([0.0; 3], unit([0.0, 0.0, 0.4, 0.9]), [1.0; 3]);
        for (a, what) in [(stretched, "stretched"), (sheared, "sheared")] {
            let fold = AncestorFold::new(&a).unwrap();
            assert!(!fold.is_exact(), "{what}");
            let (t, ..) = locals()[1];
            let moved = fold.translation(f32s(t));
            let expected = (a * trs(t, [0.0, 0.0, 0.0, 1.0], [1.0; 3])).w_axis;
            assert!(
                (0..3).all(|i| (moved[i] as f64 - expected[i]).abs() < 1e-5),
                "{what}"
            );
        }
        // A stretch along the joint's own (unrotated) axes is still held exactly.
        let fold = AncestorFold::new(&stretched).unwrap();
        let local = trs([0.5; 3], [0.0, 0.0, 0.0, 1.0], [2.0; 3]);
        let folded = trs(
            f64s(fold.translation([0.5; 3])),
            f64s(fold.rotation([0.0, 0.0, 0.0, 1.0])),
            f64s(fold.scale([2.0; 3])),
        );
        assert_near(&folded, &(stretched * local), "stretched, unrotated joint");
    }

    #[test]
    fn non_finite_ancestors_are_an_error() {
        let mut a = DMat4::IDENTITY;
        a.x_axis.x = f64::INFINITY;
        assert!(AncestorFold::new(&a).unwrap_err().contains("non-finite"));
        // A collapsed (zero) scale is a valid, exact fold: everything below collapses.
        let zero = AncestorFold::new(&trs([1.0; 3], [0.0, 0.0, 0.0, 1.0], [0.0; 3])).unwrap();
        assert!(zero.is_exact());
        assert_eq!(zero.scale([2.0; 3]), [0.0; 3]);
    }

    fn document(json: &str) -> gltf::Document {
        gltf::Gltf::from_slice_without_validation(json.as_bytes())
            .unwrap()
            .document
    }

    #[test]
    fn each_joint_finds_its_nearest_joint_ancestor_and_the_nodes_between() {
        // root (non-joint) -> j0 -> helper (non-joint) -> plain (identity, non-joint) -> j1,
        // and j2 directly under j0.
        let document = document(
            r#"{"asset":{"version":"2.0"},"nodes":[
                {"name":"root","children":[1],"rotation":[0,0,0.7071068,0.7071068],"scale":[2,2,2]},
                {"name":"j0","children":[2,5],"translation":[0,1,0]},
                {"name":"helper","children":[3],"translation":[0,0,3]},
                {"name":"plain","children":[4]},
                {"name":"j1","translation":[1,0,0]},
                {"name":"j2"}],
               "skins":[{"joints":[1,4,5]}]}"#,
        );
        let hierarchy = Hierarchy::new(&document);
        let joint_of = HashMap::from([(1, 0), (4, 1), (5, 2)]);
        let j0 = hierarchy.joint_ancestry(&joint_of, 1).unwrap();
        assert_eq!(j0.parent, None);
        let root = j0.fold.expect("the root node is folded into j0");
        assert!(root.is_exact());
        assert!(root.scale([1.0; 3]).iter().all(|s| (s - 2.0).abs() < 1e-6));
        let j1 = hierarchy.joint_ancestry(&joint_of, 4).unwrap();
        assert_eq!(j1.parent, Some(0));
        assert_eq!(
            j1.fold.expect("helper").translation([1.0, 0.0, 0.0]),
            [1.0, 0.0, 3.0]
        );
        let j2 = hierarchy.joint_ancestry(&joint_of, 5).unwrap();
        assert_eq!(
            (j2.parent, j2.fold),
            (Some(0), None),
            "no node between: kept as is"
        );
    }

    #[test]
    fn cycles_are_errors_not_hangs() {
        // Two non-joint nodes that are each other's child, above a joint.
        let document = document(
            r#"{"asset":{"version":"2.0"},"nodes":[
                {"children":[1,2]},{"children":[0]},{"name":"joint"}],
               "skins":[{"joints":[2]}]}"#,
        );
        let error = Hierarchy::new(&document)
            .joint_ancestry(&HashMap::from([(2, 0)]), 2)
            .unwrap_err();
        assert!(error.contains("cycle"), "{error}");
        // Joints that are each other's ancestors.
        let error = check_joint_parents(&[Some(1), Some(0), None]).unwrap_err();
        assert!(error.contains("cycle"), "{error}");
        check_joint_parents(&[None, Some(0), Some(1)]).unwrap();
    }
}
