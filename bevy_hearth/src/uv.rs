//! A `.hmat` row's per-slot UV sets and transforms, mapped onto what Bevy's
//! [`StandardMaterial`](bevy::pbr::StandardMaterial) can say: one `uv_transform` for the whole
//! material (applied to both UV sets) and a UV channel per texture slot.
//!
//! - Every textured slot under one transform (on either set): that transform is the
//!   material's `uv_transform`, each slot reads its own set. Exact.
//! - Two (set, transform) pairs: the submesh drawn with the material gets a copy whose UV0 is
//!   the first pair's set through its transform and whose UV1 is the second's
//!   (`Submesh{i}MaterialUvs`); the material reads them untransformed. Exact.
//! - More pairs: the two of the most visible slots (base colour, normal, emissive,
//!   metallic-roughness, occlusion, in that order) are kept as above; each other slot reads
//!   the kept pair on its own UV set (else the first) and a warning names the material.

use bevy::math::{Affine2, Vec2};
use bevy::mesh::{Mesh, UvChannel, VertexAttributeValues};
use hearth::{GpuMaterial, MaterialTable, TextureUv};

/// Texture slots, in `.hmat` property order: base colour, metallic-roughness, normal,
/// occlusion, emissive.
pub(crate) const SLOTS: usize = 5;

/// The slots' names, in `.hmat` slot order.
pub(crate) const SLOT_NAMES: [&str; SLOTS] = [
    "base colour",
    "metallic-roughness",
    "normal",
    "occlusion",
    "emissive",
];

/// The slots by how much a wrong transform shows: base colour, normal, emissive,
/// metallic-roughness, occlusion.
const PRIORITY: [usize; SLOTS] = [0, 2, 4, 1, 3];

/// How a row's texture slots are drawn by Bevy.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UvMapping {
    /// The material's `uv_transform`.
    pub transform: Affine2,
    /// Each slot's UV channel, in `.hmat` slot order.
    pub channels: [UvChannel; SLOTS],
    /// When the row needs two pairs: the (set, transform) the mesh's UV0 and UV1 are rewritten
    /// to (the material's transform is then the identity).
    pub rewrite: Option<[TextureUv; 2]>,
    /// Slots whose own (set, transform) Bevy cannot draw: they read another slot's.
    pub lost: Vec<usize>,
}

/// `matrix` (rows of a 2×3 affine map, [`TextureUv`]'s) as Bevy's [`Affine2`].
fn affine(matrix: [[f32; 3]; 2]) -> Affine2 {
    let [u, v] = matrix;
    Affine2::from_cols(
        Vec2::new(u[0], v[0]),
        Vec2::new(u[1], v[1]),
        Vec2::new(u[2], v[2]),
    )
}

fn channel(set: u8) -> UvChannel {
    if set == 1 {
        UvChannel::Uv1
    } else {
        UvChannel::Uv0
    }
}

/// Row `row` of `table` mapped onto Bevy's material (see the module's rules).
pub(crate) fn uv_mapping(table: &MaterialTable<'_>, row: u32) -> UvMapping {
    let textures = table
        .rows
        .get(row as usize)
        .map_or([0; SLOTS], GpuMaterial::texture_refs);
    let uvs: [TextureUv; SLOTS] = std::array::from_fn(|slot| table.texture_uv(row, slot));
    let mut pairs: Vec<TextureUv> = Vec::new();
    for slot in PRIORITY.into_iter().filter(|&slot| textures[slot] != 0) {
        if !pairs.contains(&uvs[slot]) {
            pairs.push(uvs[slot]);
        }
    }
    let shared = pairs
        .first()
        .map_or(TextureUv::IDENTITY.matrix, |p| p.matrix);
    if pairs.iter().all(|pair| pair.matrix == shared) {
        return UvMapping {
            transform: affine(shared),
            channels: uvs.map(|uv| channel(uv.set)),
            rewrite: None,
            lost: Vec::new(),
        };
    }
    let kept = [pairs[0], pairs[1]];
    let mut lost = Vec::new();
    let channels = std::array::from_fn(|slot| {
        let uv = uvs[slot];
        if uv == kept[0] || textures[slot] == 0 {
            UvChannel::Uv0
        } else if uv == kept[1] {
            UvChannel::Uv1
        } else {
            lost.push(slot);
            // The kept pair on the slot's own set, else the first.
            channel(u8::from(kept[0].set != uv.set && kept[1].set == uv.set))
        }
    });
    UvMapping {
        transform: Affine2::IDENTITY,
        channels,
        rewrite: Some(kept),
        lost,
    }
}

/// A copy of `mesh` whose UV0 and UV1 are `rewrite`'s pairs: each pair's set (the mesh's UV0
/// when it has no UV1) through its transform. `None` for a mesh without UVs.
pub(crate) fn rewritten_uvs(mesh: &Mesh, rewrite: &[TextureUv; 2]) -> Option<Mesh> {
    let set = |attribute| match mesh.attribute(attribute) {
        Some(VertexAttributeValues::Float32x2(uvs)) => Some(uvs.clone()),
        _ => None,
    };
    let uv0 = set(Mesh::ATTRIBUTE_UV_0)?;
    let uv1 = set(Mesh::ATTRIBUTE_UV_1);
    let mut copy = mesh.clone();
    for (pair, attribute) in rewrite
        .iter()
        .zip([Mesh::ATTRIBUTE_UV_0, Mesh::ATTRIBUTE_UV_1])
    {
        let from = match (pair.set, &uv1) {
            (1, Some(uv1)) => uv1,
            _ => &uv0,
        };
        let uvs: Vec<[f32; 2]> = from.iter().map(|&uv| pair.apply(uv)).collect();
        copy.insert_attribute(attribute, uvs);
    }
    Some(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth::format::hmat::{property, write_with_properties, MaterialProperty};

    /// A row with every slot textured; `uvs[slot]` = (set, offset) of a slot (scale 1).
    fn table_bytes(uvs: [(u8, f32); SLOTS]) -> Vec<u8> {
        let row = GpuMaterial {
            base_color_tex: 1,
            metallic_roughness_tex: 2,
            normal_tex: 3,
            occlusion_tex: 4,
            emissive_tex: 5,
            ..GpuMaterial::default()
        };
        let property = |id, value| MaterialProperty {
            id,
            value,
            ..MaterialProperty::default()
        };
        let mut properties = Vec::new();
        for (slot, (set, offset)) in uvs.into_iter().enumerate() {
            if set == 1 {
                properties.push(property(property::UV_SET[slot], [1.0, 0.0, 0.0, 0.0]));
            }
            if offset != 0.0 {
                properties.push(property(
                    property::UV_TRANSFORM[slot],
                    [offset, 0.0, 1.0, 1.0],
                ));
            }
        }
        write_with_properties(&[row], &properties)
    }

    fn mapping(uvs: [(u8, f32); SLOTS]) -> UvMapping {
        let bytes = table_bytes(uvs);
        let table = MaterialTable::parse(&bytes).unwrap();
        uv_mapping(&table, 0)
    }

    #[test]
    fn one_transform_on_both_sets_is_the_materials_transform() {
        let map = mapping([(0, 0.5), (1, 0.5), (0, 0.5), (0, 0.5), (1, 0.5)]);
        assert_eq!(map.rewrite, None);
        assert_eq!(map.transform.translation, Vec2::new(0.5, 0.0));
        assert_eq!(map.channels[1], UvChannel::Uv1);
        assert_eq!(map.channels[4], UvChannel::Uv1);
        assert_eq!(map.channels[0], UvChannel::Uv0);
        assert!(map.lost.is_empty());
    }

    #[test]
    fn two_pairs_rewrite_the_mesh_and_three_lose_the_least_visible() {
        // Base, normal, occlusion on (0, 0.5); metal-rough, emissive on (1, 0.25).
        let map = mapping([(0, 0.5), (1, 0.25), (0, 0.5), (0, 0.5), (1, 0.25)]);
        let [first, second] = map.rewrite.unwrap();
        assert_eq!((first.set, first.matrix[0][2]), (0, 0.5));
        assert_eq!((second.set, second.matrix[0][2]), (1, 0.25));
        assert_eq!(map.transform, Affine2::IDENTITY);
        assert_eq!(
            map.channels,
            [
                UvChannel::Uv0,
                UvChannel::Uv1,
                UvChannel::Uv0,
                UvChannel::Uv0,
                UvChannel::Uv1
            ]
        );
        assert!(map.lost.is_empty());

        // A third pair on occlusion (the least visible) is the one lost; it reads the kept
        // pair on its own set (UV1).
        let map = mapping([(0, 0.5), (1, 0.25), (0, 0.5), (1, 0.75), (1, 0.25)]);
        assert_eq!(map.lost, vec![3]);
        assert_eq!(map.channels[3], UvChannel::Uv1);
        // Normal outranks emissive: base's and normal's pairs are kept.
        let map = mapping([(0, 0.5), (0, 0.0), (1, 0.25), (0, 0.0), (0, 0.75)]);
        let [first, second] = map.rewrite.unwrap();
        assert_eq!((first.matrix[0][2], second.matrix[0][2]), (0.5, 0.25));
        assert_eq!(map.lost, vec![1, 3, 4]);
    }

    #[test]
    fn a_rewrite_applies_each_pair_to_its_set() {
        let mut mesh = Mesh::new(
            bevy::mesh::PrimitiveTopology::TriangleList,
            bevy::asset::RenderAssetUsages::default(),
        );
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, vec![[0.0f32, 0.0], [1.0, 1.0]]);
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_1, vec![[2.0f32, 2.0], [3.0, 3.0]]);
        let a = TextureUv::from_parts(1, [0.5, 0.0], 0.0, [1.0, 1.0]);
        let b = TextureUv::from_parts(0, [0.0, 0.0], 0.0, [2.0, 2.0]);
        let copy = rewritten_uvs(&mesh, &[a, b]).unwrap();
        let uvs = |attribute| match copy.attribute(attribute) {
            Some(VertexAttributeValues::Float32x2(uvs)) => uvs.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(uvs(Mesh::ATTRIBUTE_UV_0), vec![[2.5, 2.0], [3.5, 3.0]]);
        assert_eq!(uvs(Mesh::ATTRIBUTE_UV_1), vec![[0.0, 0.0], [2.0, 2.0]]);
    }
}
