//! Prim transforms: each prim's `xformOpOrder` composed into a local matrix, and local
//! matrices composed up the namespace into world space (openusd 0.6 has no xform cache).
//!
//! USD writes ops for row vectors, first op outermost: `[translate, rotateXYZ, scale]` moves a
//! point by scale, then rotation, then translation. For glam's column vectors the local matrix
//! is the ops' product in authored order.

use super::values;
use glam::{DMat4, DQuat, DVec3, EulerRot};
use openusd::sdf::Path;
use openusd::usd::Stage;
use std::collections::HashMap;

/// The most ops one prim's `xformOpOrder` may list.
const MAX_OPS: usize = 256;

/// World transforms, memoised by prim path.
#[derive(Default)]
pub struct XformCache {
    world: HashMap<String, DMat4>,
}

impl XformCache {
    /// The transform from `prim`'s space to the stage's (before units and up axis).
    pub fn world(&mut self, stage: &Stage, prim: &Path, warnings: &mut Vec<String>) -> DMat4 {
        // Iterative over the ancestors (no recursion), nearest cached ancestor first.
        let mut chain = Vec::new();
        let mut cursor = Some(prim.clone());
        let mut base = DMat4::IDENTITY;
        while let Some(path) = cursor {
            if path.as_str() == "/" || path.as_str().is_empty() {
                break;
            }
            if let Some(world) = self.world.get(path.as_str()) {
                base = *world;
                break;
            }
            cursor = path.parent();
            chain.push(path);
        }
        for path in chain.into_iter().rev() {
            let (local, resets) = local_transform(stage, &path, warnings);
            base = if resets { local } else { base * local };
            self.world.insert(path.as_str().to_string(), base);
        }
        base
    }
}

/// A prim's local transform, and whether it resets the parent's (`!resetXformStack!`).
pub fn local_transform(stage: &Stage, prim: &Path, warnings: &mut Vec<String>) -> (DMat4, bool) {
    let Some(order) =
        values::prim_value(stage, prim, "xformOpOrder").and_then(|v| values::texts(&v))
    else {
        return (DMat4::IDENTITY, false);
    };
    let mut matrix = DMat4::IDENTITY;
    let mut resets = false;
    for op in order.iter().take(MAX_OPS) {
        if op == "!resetXformStack!" {
            // Ops before it are ignored too, as USD does.
            matrix = DMat4::IDENTITY;
            resets = true;
            continue;
        }
        let (inverted, name) = match op.strip_prefix("!invert!") {
            Some(name) => (true, name),
            None => (false, op.as_str()),
        };
        match op_matrix(stage, prim, name) {
            Ok(Some(m)) => matrix *= if inverted { m.inverse() } else { m },
            Ok(None) => {}
            Err(why) => warnings.push(format!("{prim}: {name}: {why}; the op is ignored")),
        }
    }
    if !matrix.is_finite() {
        warnings.push(format!("{prim}: a transform that is not finite; ignored"));
        return (DMat4::IDENTITY, resets);
    }
    (matrix, resets)
}

/// One op's matrix; `None` when its attribute has no value (USD treats that as identity).
fn op_matrix(stage: &Stage, prim: &Path, name: &str) -> Result<Option<DMat4>, String> {
    let Some(value) = values::prim_value(stage, prim, name) else {
        return Ok(None);
    };
    // `xformOp:<kind>[:suffix]`
    let kind = name
        .strip_prefix("xformOp:")
        .map(|rest| rest.split(':').next().unwrap_or(rest))
        .ok_or("not an xformOp")?;
    let vector = || {
        values::vec3(&value)
            .map(DVec3::from)
            .ok_or("not a 3-vector")
    };
    let angle = || {
        values::scalar(&value)
            .map(f64::to_radians)
            .ok_or("not a number")
    };
    let m = match kind {
        "translate" => DMat4::from_translation(vector()?),
        "scale" => DMat4::from_scale(vector()?),
        "rotateX" => DMat4::from_rotation_x(angle()?),
        "rotateY" => DMat4::from_rotation_y(angle()?),
        "rotateZ" => DMat4::from_rotation_z(angle()?),
        "orient" => {
            let [x, y, z, w] = values::quat(&value).ok_or("not a quaternion")?;
            DMat4::from_quat(DQuat::from_xyzw(x, y, z, w).normalize())
        }
        "transform" => values::matrix(&value).ok_or("not a matrix4d")?,
        rotate if rotate.starts_with("rotate") && rotate.len() == 9 => {
            let v = vector()?.to_array().map(f64::to_radians);
            DMat4::from_quat(euler(&rotate[6..], v).ok_or("an unknown rotation order")?)
        }
        other => return Err(format!("unknown op kind {other:?}")),
    };
    Ok(Some(m))
}

/// USD's `rotateABC`: about A first, then B, then C, each angle its own axis'.
fn euler(order: &str, [x, y, z]: [f64; 3]) -> Option<DQuat> {
    // glam's intrinsic orders apply the last axis first: `ZYX` = Rz * Ry * Rx, i.e. X first.
    let (rot, a, b, c) = match order {
        "XYZ" => (EulerRot::ZYX, z, y, x),
        "XZY" => (EulerRot::YZX, y, z, x),
        "YXZ" => (EulerRot::ZXY, z, x, y),
        "YZX" => (EulerRot::XZY, x, z, y),
        "ZXY" => (EulerRot::YXZ, y, x, z),
        "ZYX" => (EulerRot::XYZ, x, y, z),
        _ => return None,
    };
    Some(DQuat::from_euler(rot, a, b, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_xyz_applies_x_first() {
        let q = euler("XYZ", [90f64.to_radians(), 0.0, 90f64.to_radians()]).unwrap();
        // X by 90 takes +Y to +Z; Z by 90 then leaves +Z alone.
        let p = q * DVec3::Y;
        assert!((p - DVec3::Z).length() < 1e-12, "{p}");
        // And +X: X leaves it, Z takes it to +Y.
        let p = q * DVec3::X;
        assert!((p - DVec3::Y).length() < 1e-12, "{p}");
    }

    #[test]
    fn every_order_matches_its_axis_product() {
        let angles = [0.3, -0.7, 1.1];
        let axis = |c: char, a: f64| match c {
            'X' => DQuat::from_rotation_x(a),
            'Y' => DQuat::from_rotation_y(a),
            _ => DQuat::from_rotation_z(a),
        };
        for order in ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"] {
            let chars: Vec<char> = order.chars().collect();
            let angle_of = |c: char| angles["XYZ".find(c).unwrap()];
            // First axis innermost.
            let expected = axis(chars[2], angle_of(chars[2]))
                * axis(chars[1], angle_of(chars[1]))
                * axis(chars[0], angle_of(chars[0]));
            let got = euler(order, angles).unwrap();
            assert!(got.dot(expected).abs() > 1.0 - 1e-12, "{order}");
        }
    }
}
