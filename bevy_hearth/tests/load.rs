//! Baked corpus models loaded through a headless Bevy app (no GPU, no window) and checked
//! against hearth's own `Model::load` on the same pack.

use bevy::asset::{AssetPlugin, AssetServer, Assets, Handle, LoadState};
use bevy::image::{CompressedImageFormats, Image, ImageLoader};
use bevy::mesh::{Mesh, Mesh3d};
use bevy::pbr::{MeshMaterial3d, StandardMaterial};
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;
use bevy_hearth::{HearthModel, HearthPlugin};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[cfg(feature = "compare")]
#[path = "load/compare.rs"]
mod compare;

/// The root crate's test corpus.
fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/gltf")
        .join(path)
}

/// Copies a corpus folder's files into `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Bakes AlphaBlendModeTest (six materials: opaque, mask, blend; textured), BoxTextured,
/// BoxVertexColors, MorphPrimitivesTest (a red and a green material) and CesiumMan (skinned)
/// into a pack; returns
/// the folder and the pack's path.
fn bake() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_folder(&corpus("AlphaBlendModeTest"), &src.join("m"));
    copy_folder(&corpus("BoxTextured"), &src.join("m/BoxTextured"));
    copy_folder(&corpus("BoxVertexColors"), &src.join("m/BoxVertexColors"));
    copy_folder(&corpus("MorphPrimitivesTest"), &src.join("m/Morph"));
    copy_folder(&corpus("CesiumMan"), &src.join("m/CesiumMan"));
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\n\
         assets = [\"m/**/*.glb\", \"m/**/*.gltf\"]\n[default]\n\
         texture = { quality = \"fastest\", max_size = 64, mips = false }\n",
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    (dir, report.pack_path)
}

/// A headless app serving `pack` as `hearth://`, with Bevy's image loader as the render
/// plugin would register it on a desktop GPU (BCn sampled).
fn app(pack: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        HearthPlugin::open(pack).unwrap(),
        AssetPlugin::default(),
    ));
    app.register_asset_loader(ImageLoader::new(CompressedImageFormats::BC));
    app.finish();
    app.cleanup();
    app
}

/// Runs `app` until `handle` and everything it depends on is loaded; panics with Bevy's
/// error when a load fails, or after 60 s.
fn wait_for<A: Asset>(app: &mut App, handle: &Handle<A>) {
    let start = Instant::now();
    loop {
        app.update();
        let server = app.world().resource::<AssetServer>();
        if server.is_loaded_with_dependencies(handle) {
            return;
        }
        if let Some(LoadState::Failed(error)) = server.get_load_state(handle) {
            panic!("{error}");
        }
        if let Some(bevy::asset::RecursiveDependencyLoadState::Failed(error)) =
            server.get_recursive_dependency_load_state(handle)
        {
            panic!("a dependency failed: {error}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "still loading after 60 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Unique vertices a submesh's index range uses.
fn used_vertices(view: &hearth::MeshView<'_>, submesh: &hearth::SubMesh) -> usize {
    let range = submesh.first_index as usize..(submesh.first_index + submesh.index_count) as usize;
    let mut used: Vec<u32> = range.map(|i| view.indices.get(i).unwrap()).collect();
    used.sort_unstable();
    used.dedup();
    used.len()
}

/// Checks the Bevy model loaded from `mesh_path` against `Model::load`: per submesh, vertex
/// and index counts, first position, alpha mode, base colour, base colour image size; and its
/// scene's entities. Returns the Bevy alpha modes and how many base colour images it compared.
fn check_model(app: &mut App, pak: &hearth::PakReader, mesh_path: &str) -> (Vec<AlphaMode>, usize) {
    let handle: Handle<HearthModel> = app
        .world()
        .resource::<AssetServer>()
        .load(format!("hearth://{mesh_path}"));
    wait_for(app, &handle);
    let expected = hearth::Model::load(pak, mesh_path).unwrap();
    let view = expected.mesh.view();
    let world = app.world();
    let model = world
        .resource::<Assets<HearthModel>>()
        .get(&handle)
        .unwrap();
    let (meshes, materials, images) = (
        world.resource::<Assets<Mesh>>(),
        world.resource::<Assets<StandardMaterial>>(),
        world.resource::<Assets<Image>>(),
    );
    assert_eq!(model.submeshes.len(), expected.submeshes.len());
    let mut modes = Vec::new();
    let mut images_compared = 0;
    for (i, part) in expected.submeshes.iter().enumerate() {
        let mesh = meshes.get(&model.submeshes[i]).unwrap();
        let what = format!("{mesh_path} submesh {i}");
        assert_eq!(
            mesh.indices().unwrap().len(),
            part.submesh.index_count as usize,
            "{what}"
        );
        assert_eq!(
            mesh.count_vertices(),
            used_vertices(view, &part.submesh),
            "{what}"
        );
        let first_index = view.indices.get(part.submesh.first_index as usize).unwrap();
        let first_local = mesh.indices().unwrap().iter().next().unwrap();
        let positions = mesh
            .attribute(Mesh::ATTRIBUTE_POSITION)
            .unwrap()
            .as_float3()
            .unwrap();
        let first_position = view.positions().nth(first_index as usize).unwrap();
        assert_eq!(positions[first_local], first_position, "{what}");
        let (source, material) = match (&part.material, &model.materials[i]) {
            (Some(source), Some(handle)) => (source, materials.get(handle).unwrap()),
            (None, None) => continue,
            (source, bevy) => panic!("{what}: material {source:?} vs {bevy:?}"),
        };
        let expected_mode = match source.alpha_mode {
            hearth::AlphaMode::Opaque => AlphaMode::Opaque,
            hearth::AlphaMode::Mask => AlphaMode::Mask(source.alpha_cutoff),
            hearth::AlphaMode::Blend => AlphaMode::Blend,
            other => panic!("{what}: an alpha mode this test does not know: {other:?}"),
        };
        assert_eq!(material.alpha_mode, expected_mode, "{what}");
        assert_eq!(
            material.base_color.to_linear().to_f32_array(),
            source.base_color_factor,
            "{what}"
        );
        assert_eq!(material.double_sided, source.double_sided, "{what}");
        match (&source.base_color, &material.base_color_texture) {
            (Some(texture), Some(image)) => {
                let image = images.get(image).expect("the base colour image is loaded");
                let view = texture.texture.view();
                assert_eq!(
                    (image.width(), image.height()),
                    (view.width(), view.height()),
                    "{what}"
                );
                images_compared += 1;
            }
            (None, None) => {}
            (source, bevy) => panic!("{what}: base colour texture {source:?} vs {bevy:?}"),
        }
        modes.push(material.alpha_mode);
    }
    let scene = world
        .resource::<Assets<WorldAsset>>()
        .get(&model.scene)
        .unwrap();
    let parts = scene_parts(&scene.world);
    assert_eq!(
        parts.len(),
        expected.submeshes.len(),
        "{mesh_path}: scene entities"
    );
    for (mesh, material) in parts {
        assert!(model.submeshes.contains(&mesh));
        // A submesh without a material draws with glTF's default one.
        assert!(model.materials.contains(&material) || model.materials.contains(&None));
    }
    (modes, images_compared)
}

/// The scene's (mesh, material) pairs, one per submesh entity.
fn scene_parts(world: &World) -> Vec<(Handle<Mesh>, Option<Handle<StandardMaterial>>)> {
    world
        .iter_entities()
        .filter_map(|entity| {
            let mesh = entity.get::<Mesh3d>()?;
            let material = entity.get::<MeshMaterial3d<StandardMaterial>>();
            Some((mesh.0.clone(), material.map(|m| m.0.clone())))
        })
        .collect()
}

#[test]
fn baked_models_load_into_bevy_as_hearth_reads_them() {
    let (_dir, pack) = bake();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let mut app = app(&pack);

    let (modes, images) = check_model(&mut app, &pak, "m/AlphaBlendModeTest.hmesh");
    assert!(images > 0);
    assert!(modes.contains(&AlphaMode::Opaque), "{modes:?}");
    assert!(modes.contains(&AlphaMode::Blend), "{modes:?}");
    assert!(
        modes.iter().any(|m| matches!(m, AlphaMode::Mask(_))),
        "{modes:?}"
    );
    let (_, images) = check_model(&mut app, &pak, "m/BoxTextured/BoxTextured.hmesh");
    assert_eq!(images, 1);
    check_model(&mut app, &pak, "m/BoxVertexColors/BoxVertexColors.hmesh");
    check_model(&mut app, &pak, "m/Morph/MorphPrimitivesTest.hmesh");
    let morph = hearth::Model::load(&pak, "m/Morph/MorphPrimitivesTest.hmesh").unwrap();
    let factors: Vec<[f32; 4]> = morph
        .material_slots
        .iter()
        .map(|m| m.base_color_factor)
        .collect();
    assert!(factors.contains(&[1.0, 0.0, 0.0, 1.0]), "{factors:?}");
    check_skinned(&mut app, &pak, "m/CesiumMan/CesiumMan.hmesh");
    // Vertex colours come through as Bevy's colour attribute.
    let server = app.world().resource::<AssetServer>();
    let colored: Handle<Mesh> =
        server.load("hearth://m/BoxVertexColors/BoxVertexColors.hmesh#Submesh0");
    wait_for(&mut app, &colored);
    let mesh = app
        .world()
        .resource::<Assets<Mesh>>()
        .get(&colored)
        .unwrap();
    assert!(mesh.attribute(Mesh::ATTRIBUTE_COLOR).is_some());
}

#[test]
fn a_runtime_tree_loads_the_same_and_a_corrupt_mesh_fails_naming_it() {
    let (dir, pack) = bake();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let tree = dir.path().join("out");
    let mut app = app(&tree);
    let (_, images) = check_model(&mut app, &pak, "m/BoxTextured/BoxTextured.hmesh");
    assert_eq!(images, 1);

    // A truncated mesh in the tree: the load fails, its error names the file; no panic.
    let box_mesh = tree.join("m/BoxVertexColors/BoxVertexColors.hmesh");
    let bytes = std::fs::read(&box_mesh).unwrap();
    std::fs::write(&box_mesh, &bytes[..bytes.len() / 2]).unwrap();
    let handle: Handle<HearthModel> = app
        .world()
        .resource::<AssetServer>()
        .load("hearth://m/BoxVertexColors/BoxVertexColors.hmesh");
    let start = Instant::now();
    let error = loop {
        app.update();
        let server = app.world().resource::<AssetServer>();
        match server.get_load_state(&handle) {
            Some(LoadState::Failed(error)) => break error.to_string(),
            Some(LoadState::Loaded) => panic!("a truncated mesh loaded"),
            _ => assert!(start.elapsed() < Duration::from_secs(60), "still loading"),
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(
        error.contains("m/BoxVertexColors/BoxVertexColors.hmesh"),
        "{error}"
    );
}

/// A skinned model: joints and weights on its meshes, and in its scene one entity per joint
/// and a `SkinnedMesh` on each part with the skeleton's inverse binds.
fn check_skinned(app: &mut App, pak: &hearth::PakReader, mesh_path: &str) {
    check_model(app, pak, mesh_path);
    let expected = hearth::Model::load(pak, mesh_path).unwrap();
    let joint_count = expected.mesh.view().skeleton.as_ref().unwrap().len();
    let handle: Handle<HearthModel> = app
        .world()
        .resource::<AssetServer>()
        .load(format!("hearth://{mesh_path}"));
    wait_for(app, &handle);
    let world = app.world();
    let model = world
        .resource::<Assets<HearthModel>>()
        .get(&handle)
        .unwrap();
    for submesh in &model.submeshes {
        let mesh = world.resource::<Assets<Mesh>>().get(submesh).unwrap();
        assert!(mesh.attribute(Mesh::ATTRIBUTE_JOINT_INDEX).is_some());
        assert!(mesh.attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT).is_some());
    }
    let scene = world
        .resource::<Assets<WorldAsset>>()
        .get(&model.scene)
        .unwrap();
    let skins: Vec<&bevy::mesh::skinning::SkinnedMesh> = scene
        .world
        .iter_entities()
        .filter_map(|entity| entity.get::<bevy::mesh::skinning::SkinnedMesh>())
        .collect();
    assert_eq!(skins.len(), model.submeshes.len());
    let binds = world
        .resource::<Assets<bevy::mesh::skinning::SkinnedMeshInverseBindposes>>()
        .get(&skins[0].inverse_bindposes)
        .unwrap();
    assert_eq!(binds.len(), joint_count);
    for skin in skins {
        assert_eq!(skin.joints.len(), joint_count);
        for &joint in &skin.joints {
            assert!(
                scene.world.get::<ChildOf>(joint).is_some(),
                "every joint is parented"
            );
        }
    }
}
