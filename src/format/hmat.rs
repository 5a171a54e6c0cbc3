//! `.hmat` v1: a flat table of 96-byte GPU material rows, in the dense slot order of the
//! companion `.hmesh`'s MTRL chunk (row `i` is `SubMesh::material_slot == i`).
//!
//! ```text
//! MatFileHeader (16 B): magic "HMAT" | version u32 = 1 | count u32 | flags u32 = 0
//! GpuMaterial[count] (96 B each); the file is exactly 16 + 96 * count bytes.
//! ```

use crate::format::error::{ReadBytes, ReadError};
use bytemuck::{Pod, Zeroable};

/// Magic bytes.
pub const MAGIC: [u8; 4] = *b"HMAT";
/// Version.
pub const VERSION: u32 = 1;
/// Header size.
pub const HEADER_SIZE: usize = 16;
/// Row size.
pub const ROW_SIZE: usize = 96;

/// `flags` bit 0: double-sided.
pub const FLAG_DOUBLE_SIDED: u32 = 1;
/// `flags` bits 1-2: alpha mode.
pub const ALPHA_MODE_SHIFT: u32 = 1;
/// Alpha mode OPAQUE.
pub const ALPHA_OPAQUE: u32 = 0;
/// Alpha mode MASK.
pub const ALPHA_MASK: u32 = 1;
/// Alpha mode BLEND.
pub const ALPHA_BLEND: u32 = 2;

/// One material row (96 B).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct GpuMaterial {
    /// Linear RGBA multiplier.
    pub base_color_factor: [f32; 4],
    /// Linear RGB.
    pub emissive_factor: [f32; 3],
    /// Metallic factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// glTF `normalTexture.scale`.
    pub normal_scale: f32,
    /// glTF `occlusionTexture.strength`.
    pub occlusion_strength: f32,
    /// Used when the alpha mode is MASK.
    pub alpha_cutoff: f32,
    /// Bit 0 double-sided; bits 1-2 alpha mode.
    pub flags: u32,
    /// Aligns the refs to 8 bytes; 0.
    pub pad: u32,
    /// FNV-1a 64 ref of the base color texture, 0 = none.
    pub base_color_tex: u64,
    /// Metallic-roughness (ORM: occlusion R, roughness G, metallic B).
    pub metallic_roughness_tex: u64,
    /// Normal map.
    pub normal_tex: u64,
    /// Occlusion (equals the MR ref when packed as ORM).
    pub occlusion_tex: u64,
    /// Emissive.
    pub emissive_tex: u64,
}
const _: () = assert!(std::mem::size_of::<GpuMaterial>() == ROW_SIZE);

impl Default for GpuMaterial {
    /// glTF's defaults: base color 1, metallic and roughness 1, emissive 0, scales 1, cutoff
    /// 0.5, OPAQUE, single-sided, no textures.
    fn default() -> Self {
        Self {
            base_color_factor: [1.0; 4],
            emissive_factor: [0.0; 3],
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_cutoff: 0.5,
            flags: 0,
            pad: 0,
            base_color_tex: 0,
            metallic_roughness_tex: 0,
            normal_tex: 0,
            occlusion_tex: 0,
            emissive_tex: 0,
        }
    }
}

impl GpuMaterial {
    /// The alpha mode (0 opaque, 1 mask, 2 blend).
    pub fn alpha_mode(&self) -> u32 {
        (self.flags >> ALPHA_MODE_SHIFT) & 3
    }
    /// Whether the material is double-sided.
    pub fn double_sided(&self) -> bool {
        self.flags & FLAG_DOUBLE_SIDED != 0
    }
    /// The five texture refs, in field order.
    pub fn texture_refs(&self) -> [u64; 5] {
        [
            self.base_color_tex,
            self.metallic_roughness_tex,
            self.normal_tex,
            self.occlusion_tex,
            self.emissive_tex,
        ]
    }
}

/// Serializes a material table.
pub fn write(rows: &[GpuMaterial]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SIZE + ROW_SIZE * rows.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(bytemuck::cast_slice(rows));
    out
}

/// Validates a material table and returns its row count: magic, version, exact size, known
/// alpha modes, zero padding.
pub fn validate(bytes: &[u8]) -> Result<usize, ReadError> {
    if bytes.slice_at(0, HEADER_SIZE, ".hmat header")?[..4] != MAGIC {
        return Err(ReadError::BadMagic { format: ".hmat" });
    }
    let version = bytes.u32_at(4, ".hmat header")?;
    if version != VERSION {
        return Err(ReadError::UnsupportedVersion {
            format: ".hmat",
            version,
        });
    }
    let count = bytes.u32_at(8, ".hmat header")? as usize;
    if (bytes.len() - HEADER_SIZE) / ROW_SIZE != count
        || !(bytes.len() - HEADER_SIZE).is_multiple_of(ROW_SIZE)
    {
        return Err(ReadError::Invalid {
            what: ".hmat size (must be 16 + 96 * count)",
        });
    }
    for row in bytes[HEADER_SIZE..].chunks_exact(ROW_SIZE) {
        let row: GpuMaterial = bytemuck::pod_read_unaligned(row);
        if row.alpha_mode() > ALPHA_BLEND || row.flags >> 3 != 0 || row.pad != 0 {
            return Err(ReadError::Invalid {
                what: ".hmat row flags",
            });
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_96_bytes_with_the_spec_offsets() {
        let row = GpuMaterial {
            flags: FLAG_DOUBLE_SIDED | (ALPHA_MASK << ALPHA_MODE_SHIFT),
            base_color_tex: 7,
            ..Default::default()
        };
        let bytes = write(&[row, GpuMaterial::default()]);
        assert_eq!(bytes.len(), 16 + 2 * 96);
        assert_eq!(validate(&bytes).unwrap(), 2);
        let r = &bytes[16..];
        assert_eq!(
            f32::from_le_bytes(r[28..32].try_into().unwrap()),
            1.0,
            "metallic at 28"
        );
        assert_eq!(
            f32::from_le_bytes(r[44..48].try_into().unwrap()),
            0.5,
            "alphaCutoff at 44"
        );
        assert_eq!(
            u32::from_le_bytes(r[48..52].try_into().unwrap()),
            3,
            "flags at 48"
        );
        assert_eq!(
            u64::from_le_bytes(r[56..64].try_into().unwrap()),
            7,
            "baseColorTex at 56"
        );
        assert_eq!((row.alpha_mode(), row.double_sided()), (ALPHA_MASK, true));
        for len in 0..bytes.len() {
            assert!(validate(&bytes[..len]).is_err());
        }
    }
}
