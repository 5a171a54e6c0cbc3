//! The model pipeline's settings (the `mesh = { … }` table, its `lod` table) and the Euler
//! math its `rotation` and pak's scenes use.

use crate::bake::settings_decl::{invalid, settings};
use glam::Quat;
use serde::Deserialize;

/// Most `mesh.lod.levels` (each halves the triangles of the one before; 32 halvings leave
/// nothing of any mesh).
pub const MAX_LOD_LEVELS: u32 = 32;

settings! {
    /// Mesh settings: the `mesh = { … }` table.
    MeshSettings {
        /// Bake glTF node transforms into one world-space mesh (skinned meshes never are).
        merge: bool = true,
        /// Import (or generate, when missing) normals; `false` writes flat +Z normals.
        normals: bool = true,
        /// Import tangents, or generate them where a material has a normal map.
        tangents: bool = true,
        /// Vertex-cache, overdraw and vertex-fetch optimization.
        optimize: bool = true,
        /// How much vertex-cache efficiency overdraw optimization may trade (1.05 = 5 %).
        overdraw_threshold: f32 = 1.05,
        /// Leave out skinning (SKIN, SKEL) and animation (.hanim).
        ignore_skin: bool = false,
        /// Scale applied to static geometry (x, y, z).
        scale: [f32; 3] = [1.0; 3],
        /// Rotation applied to static geometry after the scale: Euler angles in degrees
        /// (about the fixed axes, in the order `euler` names) or a quaternion (x, y, z, w);
        /// empty = none.
        rotation: Vec<f32> = Vec::new(),
        /// The order Euler angles apply in, about the fixed axes: `"xyz"` turns about x
        /// first, then y, then z (any order of the three letters).
        euler: String = "xyz".to_owned(),
        /// Translation applied to static geometry last.
        offset: [f32; 3] = [0.0; 3],
        /// Mirror X before everything else.
        flip_x: bool = false,
        /// Mirror Y before everything else.
        flip_y: bool = false,
        /// Mirror Z before everything else.
        flip_z: bool = false,
        /// Levels of detail (`lod = { … }`).
        lod: LodSettings = LodSettings::default(),
        /// Also write position-only geometry for shadow and depth passes (the `SHDW` chunk).
        shadow: bool = false,
    }
}

settings! {
    /// Level-of-detail settings: the `lod = { … }` table inside `mesh`.
    LodSettings {
        /// Reduced levels, each targeting half the triangles of the one before.
        levels: u32 = 2,
        /// meshoptimizer's target error, relative to the mesh's extent.
        target_error: f32 = 0.05,
        /// Keep border vertices in place while simplifying.
        lock_border: bool = false,
        /// Never simplify a submesh below this many triangles.
        min_triangles: u32 = 0,
    }
}

impl MeshSettings {
    /// Checks every value's range; the error names the key (`` `scale` = [1.0, NaN, 1.0]: … ``).
    /// The nested `lod` table is checked by [`LodSettings::validate`] when it is read.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.overdraw_threshold.is_finite() && self.overdraw_threshold >= 1.0) {
            return Err(invalid(
                "overdraw_threshold",
                self.overdraw_threshold,
                "must be a finite number, at least 1",
            ));
        }
        if self.scale.iter().any(|v| !v.is_finite() || *v == 0.0) {
            return Err(invalid("scale", self.scale, "must be finite and non-zero"));
        }
        if self.offset.iter().any(|v| !v.is_finite()) {
            return Err(invalid("offset", self.offset, "must be finite"));
        }
        let rotation = &self.rotation;
        if !matches!(rotation.len(), 0 | 3 | 4) {
            return Err(invalid(
                "rotation",
                rotation,
                "give 3 Euler angles (degrees) or a quaternion x, y, z, w",
            ));
        }
        if euler_axes(&self.euler).is_none() {
            return Err(invalid(
                "euler",
                &self.euler,
                "give the three axes x, y and z once each, in the order they apply",
            ));
        }
        if rotation.iter().any(|v| !v.is_finite()) {
            return Err(invalid("rotation", rotation, "must be finite"));
        }
        if rotation.len() == 4 && rotation.iter().all(|v| *v == 0.0) {
            return Err(invalid(
                "rotation",
                rotation,
                "the quaternion has zero length",
            ));
        }
        Ok(())
    }
}

/// The axes (0 x, 1 y, 2 z) an Euler order names, when it names each once (`"zyx"`, any case).
pub fn euler_axes(order: &str) -> Option<[usize; 3]> {
    let mut axes = [0usize; 3];
    let mut seen = [false; 3];
    let bytes = order.as_bytes();
    if bytes.len() != 3 {
        return None;
    }
    for (slot, letter) in axes.iter_mut().zip(bytes) {
        let axis = match letter.to_ascii_lowercase() {
            b'x' => 0,
            b'y' => 1,
            b'z' => 2,
            _ => return None,
        };
        if std::mem::replace(&mut seen[axis], true) {
            return None;
        }
        *slot = axis;
    }
    Some(axes)
}

/// The quaternion (x, y, z, w) of Euler angles in degrees (x, y, z), turned about the fixed
/// axes in `order` ([`euler_axes`]): for x, y, z, q = qz · qy · qx.
pub fn euler_quaternion(degrees: [f32; 3], order: [usize; 3]) -> [f32; 4] {
    order
        .iter()
        .fold(Quat::IDENTITY, |q, &axis| {
            // std's sin_cos, not glam's `from_rotation_*`, whose backend a glam feature (`libm`)
            // elsewhere in a build could switch.
            let (sin, cos) = (degrees[axis].to_radians() * 0.5).sin_cos();
            let mut turn = [0.0, 0.0, 0.0, cos];
            turn[axis] = sin;
            // A turn has two non-zero components, so glam's pairwise sums in the product round
            // as a left-to-right sum would: the same bits as the hand-written product gave.
            Quat::from_array(turn) * q
        })
        .to_array()
}

/// pak's Euler order (intrinsic, as glam's `EulerRot`: `"xyz"` is Rx · Ry · Rz) as the
/// fixed-axes order [`euler_quaternion`] takes: the same axes reversed.
pub fn pak_euler_axes(order: &str) -> Option<[usize; 3]> {
    euler_axes(order).map(|[a, b, c]| [c, b, a])
}

impl LodSettings {
    /// Checks every value's range; the error names the key (`` `lod.target_error` = … ``).
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.target_error) {
            return Err(invalid(
                "lod.target_error",
                self.target_error,
                "must be a finite number from 0 to 1",
            ));
        }
        if self.levels > MAX_LOD_LEVELS {
            return Err(invalid(
                "lod.levels",
                self.levels,
                &format!("must be at most {MAX_LOD_LEVELS}"),
            ));
        }
        Ok(())
    }
}
