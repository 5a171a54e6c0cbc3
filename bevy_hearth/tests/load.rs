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
#[path = "load/gpu_formats.rs"]
mod gpu_formats;
#[cfg(feature = "compare")]
#[path = "load/loadtime.rs"]
mod loadtime;
#[path = "load/names.rs"]
mod names;
#[path = "load/reload.rs"]
mod reload;
#[path = "load/scenes.rs"]
mod scenes;
#[path = "load/signed.rs"]
mod signed;
#[path = "load/textures.rs"]
mod textures;
#[path = "load/transforms.rs"]
mod transforms;
#[cfg(feature = "viewer")]
#[path = "load/viewer.rs"]
mod viewer;
#[cfg(feature = "viewer")]
#[path = "../../tests/common/xvfb.rs"]
mod xvfb;

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
/// BoxVertexColors, MorphPrimitivesTest (a red and a green material; one morph target, default
/// weight 0.5), CesiumMan (skinned, one clip), two USD models (AnimatedCube.usdz, textured;
/// RiggedFigure.usdz, skinned) and MorphAnim (generated: two morph targets and a
/// clip of their weights) into a pack; returns the folder and the pack's path.
fn bake() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_folder(&corpus("AlphaBlendModeTest"), &src.join("m"));
    copy_folder(&corpus("BoxTextured"), &src.join("m/BoxTextured"));
    copy_folder(&corpus("BoxVertexColors"), &src.join("m/BoxVertexColors"));
    copy_folder(&corpus("MorphPrimitivesTest"), &src.join("m/Morph"));
    copy_folder(&corpus("CesiumMan"), &src.join("m/CesiumMan"));
    write_morph_animation(&src.join("m/MorphAnim"));
    // USD-sourced models (a textured usdz, a skinned and animated one) load as glTF ones do.
    let usd = corpus("../usd");
    copy_folder(&usd.join("animated_cube"), &src.join("u/animated_cube"));
    copy_folder(&usd.join("rigged_figure"), &src.join("u/rigged_figure"));
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\n\
         assets = [\"m/**/*.glb\", \"m/**/*.gltf\", \"u/**/*.usdz\"]\n[default]\n\
         texture = { quality = \"fastest\", max_size = 64, mips = false }\n",
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    (dir, report.pack_path)
}

/// The morph weights MorphAnim's clip "Wave" keys: at 0, 1 and 2 s, two targets each.
const WAVE_WEIGHTS: [f32; 6] = [0.0, 0.0, 1.0, 0.5, 0.0, 1.0];

/// Writes `MorphAnim.gltf` and `.bin` into `folder`: a triangle with two position morph
/// targets (default weights 0.25 and 0), and a clip "Wave" animating their weights linearly.
fn write_morph_animation(folder: &Path) {
    std::fs::create_dir_all(folder).unwrap();
    let floats: Vec<f32> = [
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], // base triangle
        [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], // target 0: +z
        [0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 0.0, 0.0], // target 1: +x / 2
    ]
    .into_iter()
    .flatten()
    .chain([0.0, 1.0, 2.0])
    .chain(WAVE_WEIGHTS)
    .collect();
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(folder.join("MorphAnim.bin"), &bytes).unwrap();
    let gltf = r#"{
  "asset": {"version": "2.0"},
  "buffers": [{"uri": "MorphAnim.bin", "byteLength": 144}],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 36},
    {"buffer": 0, "byteOffset": 36, "byteLength": 36},
    {"buffer": 0, "byteOffset": 72, "byteLength": 36},
    {"buffer": 0, "byteOffset": 108, "byteLength": 12},
    {"buffer": 0, "byteOffset": 120, "byteLength": 24}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
    {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 1], "max": [0, 0, 1]},
    {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.5, 0, 0], "max": [0.5, 0, 0]},
    {"bufferView": 3, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0], "max": [2]},
    {"bufferView": 4, "componentType": 5126, "count": 6, "type": "SCALAR"}
  ],
  "meshes": [{"name": "MorphAnim", "weights": [0.25, 0.0], "primitives": [
    {"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}, {"POSITION": 2}]}
  ]}],
  "nodes": [{"name": "MorphAnim", "mesh": 0}],
  "scenes": [{"nodes": [0]}],
  "scene": 0,
  "animations": [{"name": "Wave",
    "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
    "samplers": [{"input": 3, "output": 4, "interpolation": "LINEAR"}]}]
}"#;
    std::fs::write(folder.join("MorphAnim.gltf"), gltf).unwrap();
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
    let (_, images) = check_model(&mut app, &pak, "u/animated_cube/AnimatedCube.hmesh");
    assert_eq!(
        images, 1,
        "the usdz's base colour texture, compared with hearth's"
    );
    check_skinned(&mut app, &pak, "u/rigged_figure/RiggedFigure.hmesh");
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

/// A model's scene's root entity: the one named after the model.
fn scene_root(world: &World, model_name: &str) -> Entity {
    let roots: Vec<Entity> = world
        .iter_entities()
        .filter(|e| e.get::<Name>().is_some_and(|n| n.as_str() == model_name))
        .map(|e| e.id())
        .collect();
    assert_eq!(roots.len(), 1, "one root");
    roots[0]
}

/// Loads `hearth://{path}` as `A` and waits for it.
fn load<A: Asset>(app: &mut App, path: &str) -> Handle<A> {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load(format!("hearth://{path}"));
    wait_for(app, &handle);
    handle
}

#[test]
fn morph_targets_and_default_weights_come_through() {
    use bevy::mesh::morph::{MeshMorphWeights, MorphWeights};
    let (_dir, pack) = bake();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let mut app = app(&pack);
    let path = "m/Morph/MorphPrimitivesTest.hmesh";
    let handle: Handle<HearthModel> = load(&mut app, path);
    let expected = hearth::Model::load(&pak, path).unwrap();
    let view = expected.mesh.view();
    let morphs = view
        .morph_targets
        .as_ref()
        .expect("the source has morph targets");
    assert_eq!(&*morphs.weights, &[0.5]);
    let world = app.world();
    let model = world
        .resource::<Assets<HearthModel>>()
        .get(&handle)
        .unwrap();
    let mut moved = 0;
    for (i, part) in expected.submeshes.iter().enumerate() {
        let mesh = world
            .resource::<Assets<Mesh>>()
            .get(&model.submeshes[i])
            .unwrap();
        let targets = mesh.morph_targets().expect("morph targets on the mesh");
        assert_eq!(targets.len(), morphs.targets.len() * mesh.count_vertices());
        // The submesh's first index: its vertex's delta is the mesh's.
        let global = view.indices.get(part.submesh.first_index as usize).unwrap() as usize;
        let local = mesh.indices().unwrap().iter().next().unwrap();
        let delta = morphs.targets[0].positions[global];
        assert_eq!(targets[local].position.to_array(), delta, "submesh {i}");
        assert_eq!(
            targets[local].normal.to_array(),
            morphs.targets[0].normal(global)
        );
        moved += targets.iter().filter(|t| t.position != Vec3::ZERO).count();
    }
    assert!(moved > 0, "some vertex moves");
    let scene = world
        .resource::<Assets<WorldAsset>>()
        .get(&model.scene)
        .unwrap();
    let root = scene_root(&scene.world, "MorphPrimitivesTest");
    let weights = scene
        .world
        .get::<MorphWeights>(root)
        .expect("weights on the root");
    assert_eq!(weights.weights(), &[0.5]);
    let references: Vec<_> = scene
        .world
        .iter_entities()
        .filter_map(|e| e.get::<MeshMorphWeights>())
        .collect();
    assert_eq!(references.len(), expected.submeshes.len());
    for reference in references {
        assert!(matches!(reference, MeshMorphWeights::Reference(e) if *e == root));
    }
}

#[test]
fn clips_load_as_animation_clips_targeting_the_scene() {
    use bevy::animation::{AnimatedBy, AnimationClip, AnimationPlayer, AnimationTargetId};
    use bevy_hearth::HearthAnimations;
    let (_dir, pack) = bake();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let mut app = app(&pack);

    // CesiumMan: joint curves, on the joints the scene spawns.
    let model: Handle<HearthModel> = load(&mut app, "m/CesiumMan/CesiumMan.hmesh");
    let clips: Handle<HearthAnimations> = load(&mut app, "m/CesiumMan/CesiumMan.hanim");
    let expected = hearth::Model::load(&pak, "m/CesiumMan/CesiumMan.hmesh").unwrap();
    let expected_clips = &expected.animations.as_ref().unwrap().clips().clips;
    let world = app.world();
    let animations = world
        .resource::<Assets<HearthAnimations>>()
        .get(&clips)
        .unwrap();
    assert_eq!(animations.clips.len(), expected_clips.len());
    let scene = world
        .resource::<Assets<WorldAsset>>()
        .get(
            &world
                .resource::<Assets<HearthModel>>()
                .get(&model)
                .unwrap()
                .scene,
        )
        .unwrap();
    let root = scene_root(&scene.world, "CesiumMan");
    assert!(scene.world.get::<AnimationPlayer>(root).is_some());
    let scene_targets: Vec<AnimationTargetId> = scene
        .world
        .iter_entities()
        .filter(|e| e.get::<AnimatedBy>().is_some_and(|by| by.0 == root))
        .filter_map(|e| e.get::<AnimationTargetId>().copied())
        .collect();
    let joint_count = expected.mesh.view().skeleton.as_ref().unwrap().len();
    assert_eq!(
        scene_targets.len(),
        joint_count + 1,
        "every joint and the root"
    );
    for (clip, source) in animations.clips.iter().zip(expected_clips) {
        let clip = world.resource::<Assets<AnimationClip>>().get(clip).unwrap();
        assert_eq!(clip.duration(), source.duration);
        let mut curves = 0;
        for (target, list) in clip.curves() {
            assert!(scene_targets.contains(target), "a curve on no scene entity");
            curves += list.len();
        }
        assert_eq!(curves, source.channels.len());
        assert!(source.duration > 0.0);
    }
    if let Some(first) = expected_clips.first().filter(|c| !c.name.is_empty()) {
        assert_eq!(animations.named[&first.name], animations.clips[0]);
    }

    // MorphAnim: one weights curve on the root, over both targets; default weights on it.
    let model: Handle<HearthModel> = load(&mut app, "m/MorphAnim/MorphAnim.hmesh");
    let clips: Handle<HearthAnimations> = load(&mut app, "m/MorphAnim/MorphAnim.hanim");
    let world = app.world();
    let animations = world
        .resource::<Assets<HearthAnimations>>()
        .get(&clips)
        .unwrap();
    assert_eq!(animations.clips.len(), 1);
    let wave = world
        .resource::<Assets<AnimationClip>>()
        .get(&animations.named["Wave"])
        .unwrap();
    assert_eq!(wave.duration(), 2.0);
    let curves = wave
        .curves_for_target(bevy_hearth::root_target_id("MorphAnim"))
        .expect("a weights curve on the root");
    assert_eq!(curves.len(), 1);
    assert_eq!(curves[0].0.domain().end(), 2.0);
    let scene = world
        .resource::<Assets<WorldAsset>>()
        .get(
            &world
                .resource::<Assets<HearthModel>>()
                .get(&model)
                .unwrap()
                .scene,
        )
        .unwrap();
    let root = scene_root(&scene.world, "MorphAnim");
    assert_eq!(
        scene.world.get::<AnimationTargetId>(root),
        Some(&bevy_hearth::root_target_id("MorphAnim"))
    );
    let weights = scene
        .world
        .get::<bevy::mesh::morph::MorphWeights>(root)
        .unwrap();
    assert_eq!(weights.weights(), &[0.25, 0.0]);
}

#[test]
fn names_resolve_to_their_files_and_labels() {
    use bevy::animation::AnimationClip;
    use bevy_hearth::{HearthAnimations, HearthNames};
    let (_dir, pack) = bake();
    let mut app = app(&pack);
    let names = app.world().resource::<HearthNames>().clone();
    let path = |p: Result<bevy::asset::AssetPath<'static>, _>| p.unwrap().to_string();
    assert_eq!(
        path(names.path::<HearthModel>("CesiumMan")),
        "hearth://m/CesiumMan/CesiumMan.hmesh"
    );
    assert_eq!(
        path(names.path::<WorldAsset>("CesiumMan")),
        "hearth://m/CesiumMan/CesiumMan.hmesh#Scene"
    );
    assert_eq!(
        path(names.path::<HearthAnimations>("CesiumMan")),
        "hearth://m/CesiumMan/CesiumMan.hanim"
    );
    assert_eq!(
        path(names.path::<AnimationClip>("MorphAnim#Wave")),
        "hearth://m/MorphAnim/MorphAnim.hanim#Animation0"
    );
    // A name of another kind, a sub-asset as a whole file, and no such name: errors naming it.
    for error in [
        names.path::<StandardMaterial>("CesiumMan").unwrap_err(),
        names
            .path::<HearthAnimations>("MorphAnim#Wave")
            .unwrap_err(),
        names.path::<HearthModel>("NoSuchModel").unwrap_err(),
    ] {
        let text = error.to_string();
        assert!(
            ["CesiumMan", "MorphAnim#Wave", "NoSuchModel"]
                .iter()
                .any(|n| text.starts_with(n)),
            "{text}"
        );
    }
    // Loading by name gives the same asset as by path.
    let server = app.world().resource::<AssetServer>().clone();
    let scene = names.load::<WorldAsset>(&server, "CesiumMan").unwrap();
    wait_for(&mut app, &scene);
    let by_path: Handle<HearthModel> = load(&mut app, "m/CesiumMan/CesiumMan.hmesh");
    let model = app
        .world()
        .resource::<Assets<HearthModel>>()
        .get(&by_path)
        .unwrap();
    assert_eq!(model.scene, scene);
    let wave = names
        .load::<AnimationClip>(&server, "MorphAnim#Wave")
        .unwrap();
    wait_for(&mut app, &wave);
    assert_eq!(
        app.world()
            .resource::<Assets<AnimationClip>>()
            .get(&wave)
            .unwrap()
            .duration(),
        2.0
    );
}

/// Bakes `glb` (a corpus file) as `m/Thing.glb` into `dir/out` (a new bake replaces the
/// pack there); returns the pack's path.
fn bake_thing(dir: &Path, glb: &str) -> PathBuf {
    bake_thing_with(dir, glb, |_| {})
}

/// [`bake_thing`] with the baker set up by `configure` (signed, say).
fn bake_thing_with(
    dir: &Path,
    glb: &str,
    configure: impl FnOnce(&mut hearth::bake::Baker),
) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("m")).unwrap();
    std::fs::copy(corpus(glb), src.join("m/Thing.glb")).unwrap();
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"m/*.glb\"]\n",
    )
    .unwrap();
    let mut baker = hearth::bake::Baker::new(&manifest, dir.join("out"));
    configure(&mut baker);
    baker.run().unwrap().pack_path
}

/// Loads `path` as a [`HearthModel`] and returns Bevy's error (panics if it loads).
fn load_error(app: &mut App, path: &str) -> String {
    let handle: Handle<HearthModel> = app.world().resource::<AssetServer>().load(path.to_owned());
    let start = Instant::now();
    loop {
        app.update();
        let server = app.world().resource::<AssetServer>();
        match server.get_load_state(&handle) {
            Some(LoadState::Failed(error)) => return error.to_string(),
            Some(LoadState::Loaded) => panic!("{path} loaded"),
            _ => assert!(start.elapsed() < Duration::from_secs(60), "still loading"),
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Bakes `files` (path in the content folder, bytes) with a manifest listing `assets`;
/// returns the folder and the pack's path.
fn bake_files(files: &[(&str, Vec<u8>)], assets: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for (path, bytes) in files {
        let to = src.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        format!("[content]\nname = \"game\"\n[[content.group]]\nassets = [{assets}]\n"),
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    (dir, report.pack_path)
}

/// The scene entity named `name`.
fn named<'w>(world: &'w World, name: &str) -> bevy::ecs::world::EntityRef<'w> {
    world
        .iter_entities()
        .find(|e| e.get::<Name>().is_some_and(|n| n.as_str() == name))
        .unwrap_or_else(|| panic!("no entity {name}"))
}

/// The pak fixture's cube placed under `placed` in `scene`: a model root with one submesh
/// entity, its mesh loaded, drawn with `material`.
fn check_placed_cube(
    world: &World,
    scene: &World,
    placed: bevy::ecs::world::EntityRef<'_>,
    material: &Handle<StandardMaterial>,
) {
    let model_root = scene.entity(placed.get::<Children>().expect("the model")[0]);
    assert!(model_root.get::<Name>().is_some());
    let parts: Vec<_> = model_root
        .get::<Children>()
        .unwrap()
        .iter()
        .map(|part| scene.entity(part))
        .collect();
    assert_eq!(parts.len(), 1);
    for part in parts {
        let mesh = part.get::<Mesh3d>().expect("a mesh");
        let mesh_path = mesh.0.path().unwrap().to_string();
        assert!(mesh_path.ends_with(".hmesh#Submesh0"), "{mesh_path}");
        assert!(world.resource::<Assets<Mesh>>().get(&mesh.0).is_some());
        let drawn = part.get::<MeshMaterial3d<StandardMaterial>>().unwrap();
        assert_eq!(&drawn.0, material);
    }
}

#[test]
fn a_pak_scene_loads_as_a_world_asset_with_its_models_materials_data_and_geometry() {
    use bevy_hearth::{HearthScene, HearthSceneNode, SceneValue};
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/pak/scene");
    let files: Vec<(&str, Vec<u8>)> = [
        "scene.toml",
        "mesh_01.toml",
        "material_01.toml",
        "cube.glb",
        "material_01.png",
        "material_02.png",
    ]
    .into_iter()
    .map(|file| (file, std::fs::read(fixture.join(file)).unwrap()))
    .collect();
    let (_dir, pack) = bake_files(&files, "\"scene.toml\"");
    let mut app = app(&pack);
    let handle: Handle<HearthScene> = load(&mut app, "scene.hscene");
    let world = app.world();
    let loaded = world
        .resource::<Assets<HearthScene>>()
        .get(&handle)
        .unwrap();
    let scene = &world
        .resource::<Assets<WorldAsset>>()
        .get(&loaded.scene)
        .unwrap()
        .world;
    let node = |name: &str| named(scene, name).get::<HearthSceneNode>().unwrap().clone();
    assert_eq!(
        scene
            .iter_entities()
            .filter(|e| e.contains::<HearthSceneNode>())
            .count(),
        9,
        "8 refs and 1 geometry record"
    );

    // A placed model: its transform, its mesh's parts under it, drawn with its material (the
    // cube has no material slot: its submesh takes the reference's first).
    let one = named(scene, "mesh-with-one-material");
    assert_eq!(
        one.get::<Transform>().unwrap().translation,
        Vec3::new(1.0, 2.0, 3.0)
    );
    let placed_material = node("mesh-with-one-material").materials;
    assert_eq!(placed_material.len(), 1);
    check_placed_cube(world, scene, one, &placed_material[0]);
    let materials = world.resource::<Assets<StandardMaterial>>();
    let images = world.resource::<Assets<Image>>();
    // `material_01.toml`: its colour texture, `alpha-test`.
    let material = materials.get(&placed_material[0]).unwrap();
    assert!(material.base_color_texture.is_some());
    assert!(matches!(material.alpha_mode, AlphaMode::Mask(_)));
    assert!(node("mesh-with-zero-materials").materials.is_empty());
    // A texture as a material: its image is the base colour.
    let two = node("mesh-with-two-materials-different").materials;
    assert_eq!(two.len(), 2);
    let textured = materials.get(&two[1]).unwrap();
    let image = textured.base_color_texture.as_ref().expect("a base colour");
    assert!(images.get(image).is_some());

    // Data and tags, typed.
    let data = node("just data").data.unwrap();
    let SceneValue::Table(members) = data else {
        panic!("{data:?}")
    };
    let member = |key: &str| members.iter().find(|(k, _)| k == key).unwrap().1.clone();
    assert_eq!(member("my-value"), SceneValue::Float(42.0));
    assert_eq!(member("another-value"), SceneValue::String("foo".into()));
    let SceneValue::Array(bar) = member("bar") else {
        panic!("bar")
    };
    assert_eq!(bar[3], SceneValue::String("banana".into()));
    assert_eq!(node("tags last").tags, ["down"]);

    // Geometry: a labeled mesh, not rendered.
    let collider = node("my-special-2d-collider");
    assert_eq!(collider.tags, ["quad"]);
    let mesh = world
        .resource::<Assets<Mesh>>()
        .get(collider.geometry.as_ref().unwrap())
        .unwrap();
    assert_eq!(mesh.count_vertices(), 4);
    assert_eq!(mesh.indices().unwrap().len(), 6);
    assert!(!named(scene, "my-special-2d-collider").contains::<Mesh3d>());

    // It spawns: every component is registered for the copy (the transform and visibility
    // types are, in an app with `DefaultPlugins`).
    let scene_asset = loaded.scene.clone();
    app.register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<bevy::transform::components::TransformTreeChanged>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>();
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
    let world = app.world();
    assert!(named(world, "just data").contains::<HearthSceneNode>());
}

#[test]
fn a_bitmap_font_loads_with_its_atlas_and_metrics() {
    use bevy_hearth::HearthFont;
    let fonts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fonts");
    let files = [
        (
            "fonts/ui.fnt",
            std::fs::read(fonts.join("dejavu.txt.fnt")).unwrap(),
        ),
        (
            "fonts/dejavu.png",
            std::fs::read(fonts.join("dejavu.png")).unwrap(),
        ),
    ];
    let (_dir, pack) = bake_files(&files, "\"fonts/*.fnt\"");
    let mut app = app(&pack);
    let handle: Handle<HearthFont> = load(&mut app, "fonts/ui.hfont");
    let world = app.world();
    let font = world.resource::<Assets<HearthFont>>().get(&handle).unwrap();
    assert_eq!((font.line_height, font.base), (24, 19));
    assert_eq!(font.page_size, UVec2::new(128, 64));
    assert_eq!(font.glyphs.len(), 14);
    // char id=65 x=11 y=1 width=14 height=15 xoffset=0 yoffset=4 xadvance=14 page=0
    let a = font.glyphs[&65];
    assert_eq!(a.rect, URect::new(11, 1, 25, 16));
    assert_eq!((a.bearing, a.advance, a.page), (IVec2::new(0, 4), 14, 0));
    assert_eq!(font.kerning(65, 65), 1);
    assert_eq!(font.kerning(32, 32), 0);
    // The atlas: a labeled image of the page's size.
    assert_eq!(font.pages.len(), 1);
    let label = font.pages[0].path().unwrap().label().map(str::to_owned);
    assert_eq!(label.as_deref(), Some("Page0"));
    let page = world
        .resource::<Assets<Image>>()
        .get(&font.pages[0])
        .unwrap();
    assert_eq!((page.width(), page.height()), (128, 64));
}
