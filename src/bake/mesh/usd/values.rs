//! Typed reads of composed USD values: whatever precision a layer authored (half, float,
//! double), as the f32/f64 the importer works in. openusd hands values over as one
//! `sdf::Value` enum; these helpers are the importer's only place that matches on it.

use openusd::sdf::Value;
use openusd::usd::{Attribute, Stage, TimeCode};

/// An attribute's value for a static import: its default, else its earliest time sample (a
/// mesh animated by samples alone is imported at its first frame, as usd-core's
/// `EarliestTime` reads it). `None` when unauthored or blocked.
pub fn rest_value(attr: &Attribute) -> Option<Value> {
    if let Ok(Some(value)) = attr.get::<Value>() {
        return Some(value);
    }
    let samples = attr.time_samples().ok().flatten()?;
    let first = samples.iter().map(|(t, _)| *t).reduce(f64::min)?;
    attr.get_at::<Value>(TimeCode::new(first)).ok().flatten()
}

/// The value of `prim_path.name` at rest (see [`rest_value`]).
pub fn prim_value(stage: &Stage, prim: &openusd::sdf::Path, name: &str) -> Option<Value> {
    let path = prim.append_property(name).ok()?;
    rest_value(&stage.attribute(path))
}

/// A token or string value as text.
pub fn text(value: &Value) -> Option<String> {
    match value {
        Value::Token(t) => Some(t.as_str().to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Token-array (or string-array) elements.
pub fn texts(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::TokenVec(v) => Some(v.iter().map(|t| t.as_str().to_string()).collect()),
        Value::StringVec(v) => Some(v.clone()),
        _ => None,
    }
}

/// A scalar as f64.
pub fn scalar(value: &Value) -> Option<f64> {
    Some(match value {
        Value::Float(v) => *v as f64,
        Value::Double(v) => *v,
        Value::Half(v) => v.to_f64(),
        Value::Int(v) => *v as f64,
        Value::Uint(v) => *v as f64,
        Value::Int64(v) => *v as f64,
        Value::Bool(v) => *v as u8 as f64,
        _ => return None,
    })
}

/// An integer array (USD's `int[]`, which openusd reads as `IntVec`, or any other integer
/// array type a layer authored).
pub fn ints(value: &Value) -> Option<Vec<i64>> {
    Some(match value {
        Value::IntVec(v) => v.iter().map(|&i| i as i64).collect(),
        Value::UintVec(v) => v.iter().map(|&i| i as i64).collect(),
        Value::Int64Vec(v) => v.clone(),
        Value::Uint64Vec(v) => v.iter().map(|&i| i.min(i64::MAX as u64) as i64).collect(),
        Value::UcharVec(v) => v.iter().map(|&i| i as i64).collect(),
        _ => return None,
    })
}

/// A float array.
pub fn floats(value: &Value) -> Option<Vec<f32>> {
    Some(match value {
        Value::FloatVec(v) => v.clone(),
        Value::DoubleVec(v) => v.iter().map(|&f| f as f32).collect(),
        Value::HalfVec(v) => v.iter().map(|f| f.to_f32()).collect(),
        _ => return None,
    })
}

/// A 2-vector.
pub fn vec2(value: &Value) -> Option<[f64; 2]> {
    Some(match value {
        Value::Vec2f(v) => [v.x as f64, v.y as f64],
        Value::Vec2d(v) => [v.x, v.y],
        Value::Vec2h(v) => [v.x.to_f64(), v.y.to_f64()],
        _ => return None,
    })
}

/// A 3-vector (a scalar `s` reads as `(s, s, s)`, as a uniform scale op may be authored).
pub fn vec3(value: &Value) -> Option<[f64; 3]> {
    Some(match value {
        Value::Vec3f(v) => [v.x as f64, v.y as f64, v.z as f64],
        Value::Vec3d(v) => [v.x, v.y, v.z],
        Value::Vec3h(v) => [v.x.to_f64(), v.y.to_f64(), v.z.to_f64()],
        other => {
            let s = scalar(other)?;
            [s, s, s]
        }
    })
}

/// A 4-vector.
pub fn vec4(value: &Value) -> Option<[f64; 4]> {
    Some(match value {
        Value::Vec4f(v) => [v.x as f64, v.y as f64, v.z as f64, v.w as f64],
        Value::Vec4d(v) => [v.x, v.y, v.z, v.w],
        Value::Vec4h(v) => [v.x.to_f64(), v.y.to_f64(), v.z.to_f64(), v.w.to_f64()],
        _ => return None,
    })
}

/// A quaternion as `[x, y, z, w]`.
pub fn quat(value: &Value) -> Option<[f64; 4]> {
    Some(match value {
        Value::Quatf(q) => [q.x as f64, q.y as f64, q.z as f64, q.w as f64],
        Value::Quatd(q) => [q.x, q.y, q.z, q.w],
        Value::Quath(q) => [q.x.to_f64(), q.y.to_f64(), q.z.to_f64(), q.w.to_f64()],
        _ => return None,
    })
}

/// A 4x4 matrix as glam's column-major form. USD stores matrices row-major for row vectors
/// (`p' = p * M`, translation in the last row), which is the same sixteen numbers as a
/// column-major matrix for column vectors.
pub fn matrix(value: &Value) -> Option<glam::DMat4> {
    match value {
        Value::Matrix4d(m) => Some(glam::DMat4::from_cols_array(&m.0)),
        _ => None,
    }
}

/// A matrix array (`matrix4d[]`: skeleton bind and rest transforms).
pub fn matrices(value: &Value) -> Option<Vec<glam::DMat4>> {
    match value {
        Value::Matrix4dVec(v) => Some(
            v.iter()
                .map(|m| glam::DMat4::from_cols_array(&m.0))
                .collect(),
        ),
        _ => None,
    }
}

/// A 2-vector array.
pub fn vec2s(value: &Value) -> Option<Vec<[f32; 2]>> {
    Some(match value {
        Value::Vec2fVec(v) => v.iter().map(|v| [v.x, v.y]).collect(),
        Value::Vec2dVec(v) => v.iter().map(|v| [v.x as f32, v.y as f32]).collect(),
        Value::Vec2hVec(v) => v.iter().map(|v| [v.x.to_f32(), v.y.to_f32()]).collect(),
        _ => return None,
    })
}

/// A 3-vector array.
pub fn vec3s(value: &Value) -> Option<Vec<[f32; 3]>> {
    Some(match value {
        Value::Vec3fVec(v) => v.iter().map(|v| [v.x, v.y, v.z]).collect(),
        Value::Vec3dVec(v) => v
            .iter()
            .map(|v| [v.x as f32, v.y as f32, v.z as f32])
            .collect(),
        Value::Vec3hVec(v) => v
            .iter()
            .map(|v| [v.x.to_f32(), v.y.to_f32(), v.z.to_f32()])
            .collect(),
        _ => return None,
    })
}

/// A quaternion array, each `[x, y, z, w]`.
pub fn quats(value: &Value) -> Option<Vec<[f32; 4]>> {
    Some(match value {
        Value::QuatfVec(v) => v.iter().map(|q| [q.x, q.y, q.z, q.w]).collect(),
        Value::QuatdVec(v) => v
            .iter()
            .map(|q| [q.x as f32, q.y as f32, q.z as f32, q.w as f32])
            .collect(),
        Value::QuathVec(v) => v
            .iter()
            .map(|q| [q.x.to_f32(), q.y.to_f32(), q.z.to_f32(), q.w.to_f32()])
            .collect(),
        _ => return None,
    })
}

/// An asset path's resolved identifier (what the resolver gave value resolution), else its
/// authored path.
pub fn asset(value: &Value) -> Option<(String, Option<String>)> {
    match value {
        Value::AssetPath(a) => Some((
            a.asset_path().to_string(),
            a.resolved_path().map(str::to_string),
        )),
        Value::String(s) => Some((s.clone(), None)),
        _ => None,
    }
}
