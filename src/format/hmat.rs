//! `.hmat` v1: a flat table of 96-byte GPU material rows, in the dense slot order of the
//! companion `.hmesh`'s MTRL chunk (row `i` is `SubMesh::material_slot == i`).
//!
//! ```text
//! MatFileHeader (16 B): magic "HMAT" | version u32 = 1 | count u32 | flags u32 = 0
//! GpuMaterial[count] (96 B each); the file is exactly 16 + 96 * count bytes.
//! ```
//!
//! `.hmat` v2 (hearth's extension, written only when a material has a property v1 has no
//! field for; v1 files read as before) appends a property table after the same rows:
//!
//! ```text
//! MatFileHeader (16 B): magic "HMAT" | version u32 = 2 | count u32 | flags u32 = 0
//! GpuMaterial[count] (96 B each)
//! propertyCount u32 | reserved u32 = 0
//! MaterialProperty[propertyCount] (32 B each), sorted by (row, id), each pair once:
//!     row u32 | id u32 | value f32x4 | texture u64 (asset hash, 0 = none)
//! ```
//!
//! Property ids are listed in [`property`]; a reader skips ids it does not know, so new ids
//! do not need a new version.

use crate::format::error::{ReadBytes, ReadError};
use bytemuck::{Pod, Zeroable};

/// Magic bytes.
pub const MAGIC: [u8; 4] = *b"HMAT";
/// Version of a table without properties (assetc's).
pub const VERSION: u32 = 1;
/// Version of a table with a property table.
pub const VERSION_PROPERTIES: u32 = 2;
/// Property record size.
pub const PROPERTY_SIZE: usize = 32;
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
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let table: hearth::Materials = pak.load("models/chair.hmat")?;
/// let row: &hearth::GpuMaterial = table.view().get(0).expect("slot 0");
/// print!("base colour {:?}, {:?}", row.base_color_factor, row.alpha());
/// // Textures are asset hashes (0: none), resolved through `assets.hman`.
/// if let Some(texture) = pak.resolve(row.base_color_tex)? {
///     print!(", base colour texture {}", texture.path);
/// }
/// println!();
/// # Ok::<(), hearth::ReadError>(())
/// ```
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

/// Material property ids (`MaterialProperty::id`).
pub mod property {
    /// Height map for parallax or displacement (pak's `height`, `displacement`): `value[0]`
    /// scales it; `texture` a one-channel linear map (R), or none for a constant height.
    pub const HEIGHT: u32 = 1;
    /// Transmission (as `KHR_materials_transmission`): `value[0]` the factor; `texture` its
    /// linear map (R), multiplied in.
    pub const TRANSMISSION: u32 = 2;
    /// A texture slot's UV transform (`KHR_texture_transform`), one id per slot in row order
    /// (base color, metallic-roughness, normal, occlusion, emissive): `value` = offset u, v,
    /// scale u, v; `texture` the slot's texture. Written only for a material whose textures
    /// use different transforms (one shared transform is baked into the mesh's UVs instead).
    /// With the slot's rotation `r` ([`UV_ROTATION`], 0 when absent) the slot samples at
    /// `u' = offset.u + cos r · scale.u · u + sin r · scale.v · v`,
    /// `v' = offset.v − sin r · scale.u · u + cos r · scale.v · v`.
    pub const UV_TRANSFORM: [u32; 5] = [3, 4, 5, 6, 7];
    /// A texture slot's UV rotation in radians (`value[0]`; counter-clockwise in UV space, as
    /// `KHR_texture_transform`), one id per slot as [`UV_TRANSFORM`]; written only when not 0.
    pub const UV_ROTATION: [u32; 5] = [8, 9, 10, 11, 12];
    /// `KHR_materials_clearcoat`: `value` = clearcoat factor, clearcoat roughness factor;
    /// `texture` the clearcoat map (R).
    pub const CLEARCOAT: u32 = 13;
    /// `KHR_materials_clearcoat`'s roughness map (G): `texture` only.
    pub const CLEARCOAT_ROUGHNESS: u32 = 14;
    /// `KHR_materials_clearcoat`'s normal map: `value[0]` its scale; `texture` the map.
    pub const CLEARCOAT_NORMAL: u32 = 15;
    /// `KHR_materials_sheen`: `value` = sheen color (linear RGB), sheen roughness factor;
    /// `texture` the sheen color map (sRGB).
    pub const SHEEN: u32 = 16;
    /// `KHR_materials_sheen`'s roughness map (A; encoded as color like the sheen color map it
    /// often shares, alpha staying linear): `texture` only.
    pub const SHEEN_ROUGHNESS: u32 = 17;
    /// `KHR_materials_ior`: `value[0]` the index of refraction.
    pub const IOR: u32 = 18;
    /// `KHR_materials_specular`: `value[0]` the specular factor; `texture` its map (A; encoded
    /// as color like the specular color map it often shares).
    pub const SPECULAR: u32 = 19;
    /// `KHR_materials_specular`'s color: `value` = specular color factor (linear RGB);
    /// `texture` the specular color map (sRGB).
    pub const SPECULAR_COLOR: u32 = 20;
    /// `KHR_materials_volume`: `value` = thickness factor, attenuation distance (0 for the
    /// extension's default, infinite); `texture` the thickness map (G).
    pub const VOLUME: u32 = 21;
    /// `KHR_materials_volume`'s attenuation color: `value` = linear RGB.
    pub const VOLUME_ATTENUATION: u32 = 22;
    /// `KHR_materials_unlit`: present = the material is unlit (base color only); no value.
    pub const UNLIT: u32 = 23;
    /// A texture slot samples the mesh's second UV set (`.hmesh` `UVS1`) instead of the
    /// first: one id per slot in row order as [`UV_TRANSFORM`]; `value[0]` = 1; `texture` the
    /// slot's.
    pub const UV_SET: [u32; 5] = [24, 25, 26, 27, 28];
}

/// One `.hmat` v2 property record (32 B): a value and texture of a row that the 96-byte row
/// has no field for.
///
/// ```no_run
/// use hearth::format::hmat::property;
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let table: hearth::Materials = pak.load("models/car.hmat")?;
/// if let Some(clearcoat) = table.view().property(0, property::CLEARCOAT) {
///     println!("clearcoat {} (texture {:#x})", clearcoat.value[0], clearcoat.texture);
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Default)]
pub struct MaterialProperty {
    /// The row it belongs to.
    pub row: u32,
    /// What it is ([`property`]).
    pub id: u32,
    /// Up to four numbers; the meaning is the id's.
    pub value: [f32; 4],
    /// Asset hash of its texture, 0 = none.
    pub texture: u64,
}
const _: () = assert!(std::mem::size_of::<MaterialProperty>() == PROPERTY_SIZE);

/// How a material's alpha is used (glTF's `alphaMode`).
///
/// ```no_run
/// use hearth::AlphaMode;
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let model = hearth::Model::load(&pak, "models/fox.hmesh")?;
/// for material in &model.material_slots {
///     match material.alpha_mode {
///         AlphaMode::Opaque => {}
///         AlphaMode::Mask => println!("{}: alpha test at {}", material.name, material.alpha_cutoff),
///         AlphaMode::Blend => println!("{}: sorted and blended", material.name),
///         _ => {} // (non-exhaustive: glTF may add modes)
///     }
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AlphaMode {
    /// Alpha ignored.
    Opaque,
    /// Alpha tested against [`GpuMaterial::alpha_cutoff`].
    Mask,
    /// Alpha blended.
    Blend,
}

impl AlphaMode {
    /// glTF's spelling, lowercased: `opaque`, `mask`, `blend`.
    pub fn name(self) -> &'static str {
        match self {
            AlphaMode::Opaque => "opaque",
            AlphaMode::Mask => "mask",
            AlphaMode::Blend => "blend",
        }
    }
}

impl GpuMaterial {
    /// The alpha mode as stored (0 opaque, 1 mask, 2 blend); [`alpha`](Self::alpha) names it.
    pub fn alpha_mode(&self) -> u32 {
        (self.flags >> ALPHA_MODE_SHIFT) & 3
    }
    /// The alpha mode. A validated table holds only the three modes; the unused value 3
    /// reads as [`AlphaMode::Blend`].
    pub fn alpha(&self) -> AlphaMode {
        match self.alpha_mode() {
            ALPHA_OPAQUE => AlphaMode::Opaque,
            ALPHA_MASK => AlphaMode::Mask,
            _ => AlphaMode::Blend,
        }
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

/// Serializes a material table (v1).
pub fn write(rows: &[GpuMaterial]) -> Vec<u8> {
    write_with_properties(rows, &[])
}

/// Serializes a material table with its properties: v1 when there are none, else v2 with
/// the properties sorted by (row, id).
///
/// # Panics
/// When a property names a row past `rows` or a (row, id) pair twice (caller bugs).
pub fn write_with_properties(rows: &[GpuMaterial], properties: &[MaterialProperty]) -> Vec<u8> {
    let mut sorted = properties.to_vec();
    sorted.sort_by_key(|p| (p.row, p.id));
    assert!(
        sorted.iter().all(|p| (p.row as usize) < rows.len())
            && sorted
                .windows(2)
                .all(|w| (w[0].row, w[0].id) != (w[1].row, w[1].id)),
        "material properties: rows in range, each (row, id) once"
    );
    let version = if sorted.is_empty() {
        VERSION
    } else {
        VERSION_PROPERTIES
    };
    let mut out = Vec::with_capacity(HEADER_SIZE + ROW_SIZE * rows.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(bytemuck::cast_slice(rows));
    if !sorted.is_empty() {
        out.extend_from_slice(&(sorted.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(bytemuck::cast_slice(&sorted));
    }
    out
}

/// What [`validate`] found: the row count, and where the property records start and how many
/// there are (none for v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLayout {
    /// Rows.
    pub rows: usize,
    /// Byte offset of the first property record.
    pub properties_at: usize,
    /// Property records.
    pub properties: usize,
}

/// Validates a material table and returns its row count: magic, version, exact size, known
/// alpha modes, zero padding; for v2, the property table too.
pub fn validate(bytes: &[u8]) -> Result<usize, ReadError> {
    validate_layout(bytes).map(|layout| layout.rows)
}

/// [`validate`], returning where everything is: v2's properties must fill the file exactly,
/// be sorted by (row, id) with each pair once, name existing rows and carry finite values.
pub fn validate_layout(bytes: &[u8]) -> Result<TableLayout, ReadError> {
    if bytes.slice_at(0, HEADER_SIZE, ".hmat header")?[..4] != MAGIC {
        return Err(ReadError::BadMagic { format: ".hmat" });
    }
    let version = bytes.u32_at(4, ".hmat header")?;
    if version != VERSION && version != VERSION_PROPERTIES {
        return Err(ReadError::UnsupportedVersion {
            format: ".hmat",
            version,
        });
    }
    let count = bytes.u32_at(8, ".hmat header")? as usize;
    let rows_end = count
        .checked_mul(ROW_SIZE)
        .and_then(|n| n.checked_add(HEADER_SIZE))
        .filter(|end| *end <= bytes.len())
        .ok_or(ReadError::Invalid {
            what: ".hmat size (must be 16 + 96 * count)",
        })?;
    let mut layout = TableLayout {
        rows: count,
        properties_at: rows_end,
        properties: 0,
    };
    if version == VERSION {
        if bytes.len() != rows_end {
            return Err(ReadError::Invalid {
                what: ".hmat size (must be 16 + 96 * count)",
            });
        }
    } else {
        let properties = bytes.u32_at(rows_end, ".hmat property table header")? as usize;
        if bytes.u32_at(rows_end + 4, ".hmat property table header")? != 0 {
            return Err(ReadError::Invalid {
                what: ".hmat property table reserved field",
            });
        }
        layout.properties_at = rows_end + 8;
        layout.properties = properties;
        if (bytes.len() - layout.properties_at) as u64 != properties as u64 * PROPERTY_SIZE as u64 {
            return Err(ReadError::Invalid {
                what: ".hmat v2 size (rows, then 8 + 32 * propertyCount)",
            });
        }
        let mut previous: Option<(u32, u32)> = None;
        for record in bytes[layout.properties_at..].chunks_exact(PROPERTY_SIZE) {
            let p: MaterialProperty = bytemuck::pod_read_unaligned(record);
            if p.row as usize >= count || previous.is_some_and(|prev| prev >= (p.row, p.id)) {
                return Err(ReadError::Invalid {
                    what: ".hmat property (row out of range, or not sorted by row and id)",
                });
            }
            if p.value.iter().any(|v| !v.is_finite()) {
                return Err(ReadError::Invalid {
                    what: ".hmat property value (not finite)",
                });
            }
            previous = Some((p.row, p.id));
        }
    }
    for row in bytes[HEADER_SIZE..rows_end].chunks_exact(ROW_SIZE) {
        let row: GpuMaterial = bytemuck::pod_read_unaligned(row);
        if row.alpha_mode() > ALPHA_BLEND || row.flags >> 3 != 0 || row.pad != 0 {
            return Err(ReadError::Invalid {
                what: ".hmat row flags",
            });
        }
    }
    Ok(layout)
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

    #[test]
    fn properties_make_a_v2_table_and_v1_stays_v1() {
        let rows = [GpuMaterial::default(), GpuMaterial::default()];
        assert_eq!(write_with_properties(&rows, &[]), write(&rows));
        assert_eq!(
            u32::from_le_bytes(write(&rows)[4..8].try_into().unwrap()),
            1
        );
        let height = MaterialProperty {
            row: 1,
            id: property::HEIGHT,
            value: [0.05, 0.0, 0.0, 0.0],
            texture: 9,
        };
        let transmission = MaterialProperty {
            row: 0,
            id: property::TRANSMISSION,
            value: [0.5, 0.0, 0.0, 0.0],
            texture: 0,
        };
        let bytes = write_with_properties(&rows, &[height, transmission]);
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
        assert_eq!(bytes.len(), 16 + 2 * 96 + 8 + 2 * 32);
        let layout = validate_layout(&bytes).unwrap();
        assert_eq!((layout.rows, layout.properties), (2, 2));
        // Sorted by row: the transmission of row 0 first.
        let first: MaterialProperty =
            bytemuck::pod_read_unaligned(&bytes[layout.properties_at..][..32]);
        assert_eq!(first, transmission);
        for len in 0..bytes.len() {
            assert!(validate(&bytes[..len]).is_err(), "{len}");
        }
        // Out of order, a row past the table, a NaN: each an error.
        let at = layout.properties_at;
        let mut swapped = bytes.clone();
        swapped[at..at + 64].rotate_left(32);
        assert!(validate(&swapped).is_err());
        let mut far = bytes.clone();
        far[at + 32..at + 36].copy_from_slice(&7u32.to_le_bytes());
        assert!(validate(&far).is_err());
        let mut nan = bytes.clone();
        nan[at + 8..at + 12].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(validate(&nan).is_err());
    }
}
