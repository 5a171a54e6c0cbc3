//! `.hmat` on the read side: [`MaterialTable`], validated, borrowed from the bytes when
//! aligned, and [`Materials`], its owned form. The byte layout and the writer are in
//! [`crate::format::hmat`]; `hearth check`'s checks in `read::inspect::material` (feature
//! `inspect`).

use crate::format::hmat::{self, GpuMaterial, MaterialProperty};
use crate::read::error::ReadError;
use crate::read::mesh::typed;
use std::borrow::Cow;

/// A validated `.hmat` table (v1, or v2 with properties).
///
/// Row `i` is the material of the mesh's slot `i` ([`SubMesh::material_slot`]); texture refs
/// are asset hashes, resolved through the pack's `assets.hman`.
///
/// [`SubMesh::material_slot`]: crate::format::hmesh::SubMesh::material_slot
///
/// ```no_run
/// use hearth::{AlphaMode, MaterialTable, PakReader, Texture};
/// use hearth::format::hmat::property;
/// let pak = PakReader::open("assets.hpack")?;
/// let bytes = pak.get("models/chair.hmat")?.expect("baked");
/// let materials = MaterialTable::parse(&bytes)?;
/// for (row, material) in materials.rows.iter().enumerate() {
///     let (color, blend) = (material.base_color_factor, material.alpha() == AlphaMode::Blend);
///     println!("material {row}: base color {color:?}, blended {blend}");
///     if material.base_color_tex != 0 {
///         let texture: Texture = pak.load_by_hash(material.base_color_tex)?;
///         println!("  base color texture {}x{}", texture.view().width(), texture.view().height());
///     }
///     // v2 tables carry what a row has no field for: here, an extension's index of refraction.
///     if let Some(ior) = materials.property(row as u32, property::IOR) {
///         println!("  ior {}", ior.value[0]);
///     }
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MaterialTable<'a> {
    /// Rows in slot order.
    pub rows: Cow<'a, [GpuMaterial]>,
    /// v2's properties, sorted by (row, id); empty for v1.
    pub properties: Cow<'a, [MaterialProperty]>,
}

impl<'a> MaterialTable<'a> {
    /// Parses and validates a material table.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        let layout = hmat::validate_layout(bytes)?;
        let rows_end = hmat::HEADER_SIZE + layout.rows * hmat::ROW_SIZE;
        Ok(Self {
            rows: typed(
                &bytes[hmat::HEADER_SIZE..rows_end],
                layout.rows,
                ".hmat size",
            )?,
            properties: typed(
                &bytes[layout.properties_at..],
                layout.properties,
                ".hmat property table size",
            )?,
        })
    }

    /// Number of rows (material slots).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `slot` (a [`SubMesh::material_slot`](crate::SubMesh::material_slot)).
    pub fn get(&self, slot: usize) -> Option<&GpuMaterial> {
        self.rows.get(slot)
    }

    /// Row `row`'s property `id` ([`hmat::property`]), when it has one: a binary search.
    pub fn property(&self, row: u32, id: u32) -> Option<&MaterialProperty> {
        self.properties
            .binary_search_by_key(&(row, id), |p| (p.row, p.id))
            .ok()
            .map(|i| &self.properties[i])
    }

    /// Every texture ref of the table: the rows' five slots and the properties' textures,
    /// zeros left out.
    pub fn texture_refs(&self) -> impl Iterator<Item = u64> + '_ {
        self.rows
            .iter()
            .flat_map(|r| r.texture_refs())
            .chain(self.properties.iter().map(|p| p.texture))
            .filter(|hash| *hash != 0)
    }
}

/// How one texture slot of a material reads its texture coordinates: which of the mesh's UV
/// sets, through which affine transform (`KHR_texture_transform`; the identity when the
/// transform was baked into the mesh's UVs or there is none). Every reader applies it the same
/// way: `uv' = matrix · (u, v, 1)` on the set's UVs, before sampling.
///
/// ```
/// use hearth::TextureUv;
/// let uv = TextureUv::from_parts(1, [0.5, 0.0], 0.0, [0.5, 0.5]);
/// assert_eq!(uv.set, 1);
/// assert_eq!(uv.apply([1.0, 1.0]), [1.0, 0.5]);
/// assert!(TextureUv::IDENTITY.is_identity());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureUv {
    /// 0: the mesh's first UV set (`.hmesh` TEXCOORD_0); 1: its second (`UVS1`).
    pub set: u8,
    /// Rows of the 2×3 affine matrix: `u' = m[0]·(u, v, 1)`, `v' = m[1]·(u, v, 1)`.
    pub matrix: [[f32; 3]; 2],
}

impl TextureUv {
    /// The first UV set, untransformed.
    pub const IDENTITY: Self = Self {
        set: 0,
        matrix: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
    };

    /// From `KHR_texture_transform`'s parts: `offset + R(rotation) · (scale ⊙ uv)`, its
    /// rotation turning UVs counter-clockwise (see [`hmat::property::UV_TRANSFORM`]).
    pub fn from_parts(set: u8, offset: [f32; 2], rotation: f32, scale: [f32; 2]) -> Self {
        let (sin, cos) = rotation.sin_cos();
        Self {
            set,
            matrix: [
                [cos * scale[0], sin * scale[1], offset[0]],
                [-sin * scale[0], cos * scale[1], offset[1]],
            ],
        }
    }

    /// `uv` transformed.
    pub fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        let [a, b] = self.matrix;
        [
            a[0] * uv[0] + a[1] * uv[1] + a[2],
            b[0] * uv[0] + b[1] * uv[1] + b[2],
        ]
    }

    /// Whether the matrix is the identity (the set may still be the second).
    pub fn is_identity(&self) -> bool {
        self.matrix == Self::IDENTITY.matrix
    }
}

impl MaterialTable<'_> {
    /// How row `row`'s texture slot `slot` (0 base colour, 1 metallic-roughness, 2 normal,
    /// 3 occlusion, 4 emissive) reads its UVs: from its `UV_SET`, `UV_TRANSFORM` and
    /// `UV_ROTATION` properties ([`hmat::property`]), the identity on the first set without
    /// them (and for a slot past 4).
    ///
    /// ```no_run
    /// let pak = hearth::PakReader::open("assets.hpack")?;
    /// let table: hearth::Materials = pak.load("models/chair.hmat")?;
    /// let emissive = table.view().texture_uv(0, 4);
    /// println!("emission samples UV set {} through {:?}", emissive.set, emissive.matrix);
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    pub fn texture_uv(&self, row: u32, slot: usize) -> TextureUv {
        use hmat::property::{UV_ROTATION, UV_SET, UV_TRANSFORM};
        if slot >= UV_SET.len() {
            return TextureUv::IDENTITY;
        }
        let set = u8::from(self.property(row, UV_SET[slot]).is_some());
        let rotation = self
            .property(row, UV_ROTATION[slot])
            .map_or(0.0, |p| p.value[0]);
        match self.property(row, UV_TRANSFORM[slot]) {
            Some(p) => {
                let [offset_u, offset_v, scale_u, scale_v] = p.value;
                TextureUv::from_parts(set, [offset_u, offset_v], rotation, [scale_u, scale_v])
            }
            None => TextureUv {
                set,
                ..TextureUv::IDENTITY
            },
        }
    }
}

crate::read::asset::owned_view!(
    /// An owned `.hmat` material table: [`view`](Self::view) gives its [`MaterialTable`].
    /// A model's table is the `.hmat` beside its `.hmesh`; [`Model`](crate::Model) pairs
    /// them.
    ///
    /// ```no_run
    /// let pak = hearth::PakReader::open("game.hpack")?;
    /// let table: hearth::Materials = pak.load("models/chair.hmat")?;
    /// for (slot, row) in table.view().rows.iter().enumerate() {
    ///     println!("slot {slot}: {:?}, base colour {:?}", row.alpha(), row.base_color_factor);
    /// }
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    Materials,
    MaterialsHeld,
    MaterialTable,
    MaterialTable::parse,
    crate::AssetKind::MATERIAL
);
