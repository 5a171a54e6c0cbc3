//! TextureTransformBoard (tests/corpus/gltf: a row per texture slot; columns TEXCOORD_0 with a
//! transform, TEXCOORD_1 with a transform, neither; a "mixed" row whose material uses two
//! transforms on two UV sets) through the plugin: every slot samples what the glTF means.

use super::{app, copy_folder, corpus, load, scene_parts};
use bevy::asset::Assets;
use bevy::math::{Affine2, Vec2};
use bevy::mesh::{Mesh, UvChannel, VertexAttributeValues};
use bevy::pbr::StandardMaterial;
use bevy::world_serialization::WorldAsset;
use bevy_hearth::HearthModel;
use std::path::PathBuf;

/// The board's runtime path in the pack.
const BOARD: &str = "board/TextureTransformBoard.hmesh";

/// Bakes the board (textures up to 512 pixels, no mips: as the comparison's bake); returns
/// the folder (content in `src`) and the pack's path.
pub(crate) fn bake_board() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_folder(&corpus("TextureTransformBoard"), &src.join("board"));
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"**/*.gltf\"]\n[default]\n\
         texture = { quality = \"fastest\", max_size = 512, mips = false }\n",
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
    (dir, report.pack_path)
}

/// A mesh's UV attribute (`None`: absent).
fn uvs(mesh: &Mesh, channel: &UvChannel) -> Option<Vec<[f32; 2]>> {
    let attribute = match channel {
        UvChannel::Uv0 => Mesh::ATTRIBUTE_UV_0,
        UvChannel::Uv1 => Mesh::ATTRIBUTE_UV_1,
    };
    match mesh.attribute(attribute)? {
        VertexAttributeValues::Float32x2(uvs) => Some(uvs.clone()),
        other => panic!("UVs as {other:?}"),
    }
}

/// Where Bevy's shader samples a slot of `material` whose UV channel holds `uv`.
fn bevy_sample(material: &StandardMaterial, uv: [f32; 2]) -> [f32; 2] {
    let transform: Affine2 = material.uv_transform;
    transform.transform_point2(Vec2::from(uv)).to_array()
}

/// Every textured slot of every submesh, as Bevy draws the model's `#Scene` (mesh, material's
/// channel and `uv_transform`), samples where `Model::load`'s material says (the slot's UV set
/// through its transform), vertex by vertex; the mixed row's material needed its own UVs.
#[test]
fn every_slot_of_the_board_samples_its_own_uv_set_through_its_own_transform() {
    let (_dir, pack) = bake_board();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let expected = hearth::Model::load(&pak, BOARD).unwrap();
    let view = expected.mesh.view();
    let uv1 = view.uvs1().map(<[_]>::to_vec);
    let uv0: Vec<[f32; 2]> = view.uvs().collect();
    let mut app = app(&pack);
    let handle = load::<HearthModel>(&mut app, BOARD);
    let world = app.world();
    let model = world
        .resource::<Assets<HearthModel>>()
        .get(&handle)
        .unwrap();
    let scene = world
        .resource::<Assets<WorldAsset>>()
        .get(&model.scene)
        .unwrap();
    let parts = scene_parts(&scene.world);
    let (meshes, materials) = (
        world.resource::<Assets<Mesh>>(),
        world.resource::<Assets<StandardMaterial>>(),
    );
    let (mut checked, mut rewritten) = (0, 0);
    for (i, part) in expected.submeshes.iter().enumerate() {
        let Some(own_material) = &part.material else {
            continue;
        };
        let row = part.submesh.material_slot;
        // The scene's part of submesh i: the submesh itself or its material's copy.
        let own = &model.submeshes[i];
        let (mesh_handle, material) = parts
            .iter()
            .find(|(mesh, _)| {
                mesh == own
                    || mesh
                        .path()
                        .is_some_and(|p| p.label() == Some(&format!("Submesh{i}MaterialUvs")))
            })
            .unwrap_or_else(|| panic!("submesh {i} is not in the scene"));
        rewritten += usize::from(mesh_handle != own);
        let mesh = meshes.get(mesh_handle).unwrap();
        let material = materials.get(material.as_ref().unwrap()).unwrap();
        // The submesh keeps its vertices in stored order.
        let range = part.submesh.first_index..part.submesh.first_index + part.submesh.index_count;
        let mut vertices: Vec<usize> = range
            .map(|k| view.indices.get(k as usize).unwrap() as usize)
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        let table = expected.materials.as_ref().unwrap().view();
        let row_textures = table.rows[row as usize].texture_refs();
        let channels = [
            &material.base_color_channel,
            &material.metallic_roughness_channel,
            &material.normal_map_channel,
            &material.occlusion_channel,
            &material.emissive_channel,
        ];
        for (slot, channel) in channels.into_iter().enumerate() {
            if row_textures[slot] == 0 {
                continue;
            }
            let wanted = own_material.uvs[slot];
            let drawn_uvs = uvs(mesh, channel)
                .or_else(|| uvs(mesh, &UvChannel::Uv0))
                .unwrap();
            for (local, &vertex) in vertices.iter().enumerate() {
                let source = match (&uv1, wanted.set) {
                    (Some(uv1), 1) => uv1[vertex],
                    _ => uv0[vertex],
                };
                let want = wanted.apply(source);
                let got = bevy_sample(material, drawn_uvs[local]);
                assert!(
                    (want[0] - got[0]).abs() < 1e-5 && (want[1] - got[1]).abs() < 1e-5,
                    "submesh {i} (row {row}), slot {slot}, vertex {vertex}: Bevy samples \
                     {got:?}, the material means {want:?}"
                );
                checked += 1;
            }
        }
    }
    // 5 rows × 3 columns of one slot, the mixed material's 5 slots twice: 4 vertices each.
    assert_eq!(checked, (15 + 10) * 4);
    // The mixed row's two materials with transforms: only the transformed one needs a copy.
    assert_eq!(rewritten, 1);
}
