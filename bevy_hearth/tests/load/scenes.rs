//! `.hscene` references and their materials: the model placed under a reference draws with
//! the reference's materials in place of its own slots.

use super::{bake_files, corpus, load, named};
use bevy::asset::Assets;
use bevy::mesh::Mesh3d;
use bevy::pbr::{MeshMaterial3d, StandardMaterial};
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;
use bevy_hearth::{HearthModel, HearthScene, HearthSceneNode};

/// The submesh index of a `…hmesh#Submesh{i}` handle.
fn submesh_index(mesh: &Handle<Mesh>) -> usize {
    let path = mesh.path().expect("a path handle");
    let label = path.label().expect("a labeled submesh");
    label.strip_prefix("Submesh").unwrap().parse().unwrap()
}

/// Each mesh entity under the entity named `placed` (its model's root's children), as
/// (submesh index, material), sorted by submesh.
fn placed_parts(world: &World, placed: &str) -> Vec<(usize, Handle<StandardMaterial>)> {
    let placed = named(world, placed);
    let children = placed
        .get::<Children>()
        .expect("the model under the reference");
    assert_eq!(children.len(), 1, "one model root");
    let model_root = world.entity(children[0]);
    let mut parts: Vec<_> = model_root
        .get::<Children>()
        .expect("the model's parts")
        .iter()
        .filter_map(|child| {
            let entity = world.entity(child);
            let mesh = entity.get::<Mesh3d>()?;
            let material = entity
                .get::<MeshMaterial3d<StandardMaterial>>()
                .expect("a mesh entity has a material");
            Some((submesh_index(&mesh.0), material.0.clone()))
        })
        .collect();
    parts.sort_by_key(|(i, _)| *i);
    parts
}

#[test]
fn a_scene_reference_draws_its_model_with_its_own_materials() {
    let blue = "[material]\ncolor = '#0000ff'\n";
    let scene = "[scene]\n\
        [[scene.ref]]\nid = 'blue'\nmesh = 'm/Morph/MorphPrimitivesTest.glb'\n\
        materials = ['blue.toml']\ntranslation = [1.0, 0.0, 0.0]\n\
        [[scene.ref]]\nid = 'own'\nmesh = 'm/Morph/MorphPrimitivesTest.glb'\n";
    let files = [
        ("scene.toml", scene.as_bytes().to_vec()),
        ("blue.toml", blue.as_bytes().to_vec()),
        (
            "m/Morph/MorphPrimitivesTest.glb",
            std::fs::read(corpus("MorphPrimitivesTest/MorphPrimitivesTest.glb")).unwrap(),
        ),
    ];
    let (_dir, pack) = bake_files(&files, "\"scene.toml\"");
    let pak = hearth::PakReader::open(&pack).unwrap();
    let mesh_path = "m/Morph/MorphPrimitivesTest.hmesh";
    let hearth_model = hearth::Model::load(&pak, mesh_path).unwrap();
    let mesh: hearth::Mesh = pak.load(mesh_path).unwrap();
    let slots: Vec<u32> = mesh
        .view()
        .submeshes
        .iter()
        .map(|s| s.material_slot)
        .collect();
    assert!(slots.contains(&0) && slots.contains(&1), "{slots:?}");

    let mut app = super::app(&pack);
    let handle: Handle<HearthScene> = load(&mut app, "scene.hscene");
    let model: Handle<HearthModel> = load(&mut app, mesh_path);
    let world = app.world();
    let loaded = world
        .resource::<Assets<HearthScene>>()
        .get(&handle)
        .unwrap();
    let own_materials = &world
        .resource::<Assets<HearthModel>>()
        .get(&model)
        .unwrap()
        .materials;
    let scene_world = &world
        .resource::<Assets<WorldAsset>>()
        .get(&loaded.scene)
        .unwrap()
        .world;
    let materials = world.resource::<Assets<StandardMaterial>>();
    let node = named(scene_world, "blue")
        .get::<HearthSceneNode>()
        .unwrap()
        .clone();
    assert_eq!(node.materials.len(), 1);
    let blue_color = materials.get(&node.materials[0]).unwrap().base_color;
    assert_eq!(blue_color.to_linear(), LinearRgba::BLUE);

    // Slot 0 takes the reference's material; slot 1, past the reference's, keeps its own.
    let parts = placed_parts(scene_world, "blue");
    assert_eq!(parts.len(), slots.len());
    for (submesh, material) in &parts {
        let slot = slots[*submesh] as usize;
        let color = materials.get(material).unwrap().base_color.to_linear();
        if slot == 0 {
            assert_eq!(material, &node.materials[0], "submesh {submesh}");
            assert_eq!(color, LinearRgba::BLUE);
        } else {
            assert_eq!(Some(material), own_materials[*submesh].as_ref());
            let own = hearth_model.material_slots[slot].base_color_factor;
            assert_eq!(color.to_f32_array(), own, "submesh {submesh}");
        }
    }
    // Without materials, the reference's model draws with its own.
    let own_parts = placed_parts(scene_world, "own");
    assert_eq!(own_parts.len(), slots.len());
    for (submesh, material) in &own_parts {
        assert_eq!(Some(material), own_materials[*submesh].as_ref());
    }

    // Spawned into the app, the mesh entities carry the reference's material.
    let scene_asset = loaded.scene.clone();
    app.world_mut()
        .resource_scope(|world, worlds: Mut<Assets<WorldAsset>>| {
            let registry = world.resource::<AppTypeRegistry>().clone();
            let mut map = Default::default();
            worlds
                .get(&scene_asset)
                .unwrap()
                .write_to_world_with(world, &mut map, &registry)
        })
        .unwrap();
    let spawned = placed_parts(app.world(), "blue");
    assert_eq!(spawned, parts);
    assert!(spawned.iter().any(|(_, m)| m == &node.materials[0]));
}
