//! Hot reload: a rebaked pack and a rewritten runtime-tree file reload their models with
//! asset events.

use super::*;

#[test]
fn a_rebaked_pack_reloads_its_changed_models_with_asset_events() {
    use bevy::ecs::message::Messages;
    let dir = tempfile::tempdir().unwrap();
    let pack = bake_thing(dir.path(), "BoxVertexColors/BoxVertexColors.glb");
    let mut app = watching_app(HearthPlugin::hot(&pack).unwrap());
    let handle: Handle<HearthModel> = load(&mut app, "m/Thing.hmesh");
    let submeshes = |app: &App| {
        let models = app.world().resource::<Assets<HearthModel>>();
        models.get(&handle).unwrap().submeshes.len()
    };
    assert_eq!(submeshes(&app), 1);
    app.world_mut()
        .resource_mut::<Messages<AssetEvent<HearthModel>>>()
        .clear();

    // A new bake (two submeshes now) replaces the pack: Bevy reloads the model and says so.
    let rebaked = bake_thing(dir.path(), "MorphPrimitivesTest/MorphPrimitivesTest.glb");
    assert_eq!(rebaked, pack);
    update_until(&mut app, "no reload", |app| {
        let modified = app
            .world_mut()
            .resource_mut::<Messages<AssetEvent<HearthModel>>>()
            .drain()
            .any(|event| event.is_modified(&handle));
        modified && submeshes(app) == 2
    });
    // The names and reads follow the new generation too.
    let names = app.world().resource::<bevy_hearth::HearthNames>();
    assert_eq!(
        names.path::<HearthModel>("Thing").unwrap().to_string(),
        "hearth://m/Thing.hmesh"
    );
}

/// A headless app with `hearth` and Bevy's asset watching on.
fn watching_app(hearth: HearthPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        hearth,
        AssetPlugin {
            watch_for_changes_override: Some(true),
            ..default()
        },
    ));
    app.finish();
    app.cleanup();
    app
}

/// Updates `app` until `done` holds; panics naming `what` after 30 s.
fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    loop {
        app.update();
        if done(app) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what} after 30 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_rewritten_mesh_in_a_runtime_tree_reloads_with_an_asset_event() {
    use bevy::ecs::message::Messages;
    let dir = tempfile::tempdir().unwrap();
    bake_thing(dir.path(), "BoxVertexColors/BoxVertexColors.glb");
    let tree = dir.path().join("out");
    let mut app = watching_app(HearthPlugin::open(&tree).unwrap());
    let handle: Handle<HearthModel> = load(&mut app, "m/Thing.hmesh");
    let submeshes = |app: &App| {
        let models = app.world().resource::<Assets<HearthModel>>();
        models.get(&handle).unwrap().submeshes.len()
    };
    assert_eq!(submeshes(&app), 1);
    // Loads read the tree's files; reads are no change (no reload follows them).
    let quiet_until = Instant::now() + Duration::from_millis(500);
    let mut events = Vec::new();
    while Instant::now() < quiet_until {
        app.update();
        let mut messages = app
            .world_mut()
            .resource_mut::<Messages<AssetEvent<HearthModel>>>();
        events.extend(messages.drain().filter(|e| e.is_modified(&handle)));
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(events.is_empty(), "{events:?}");

    // The tree's mesh is rewritten (another model's bytes, two submeshes): Bevy reloads it and
    // says so.
    let other = bake_thing(
        &dir.path().join("other"),
        "MorphPrimitivesTest/MorphPrimitivesTest.glb",
    );
    let other_mesh = other.parent().unwrap().join("m/Thing.hmesh");
    let staged = tree.join("m/Thing.hmesh.new");
    std::fs::copy(&other_mesh, &staged).unwrap();
    std::fs::rename(&staged, tree.join("m/Thing.hmesh")).unwrap();
    let mut modified = false;
    update_until(&mut app, "no reload", |app| {
        modified |= app
            .world_mut()
            .resource_mut::<Messages<AssetEvent<HearthModel>>>()
            .drain()
            .any(|event| event.is_modified(&handle));
        modified && submeshes(app) == 2
    });
    let model = app
        .world()
        .resource::<Assets<HearthModel>>()
        .get(&handle)
        .unwrap();
    let meshes = app.world().resource::<Assets<Mesh>>();
    let pak = hearth::PakReader::open(&other).unwrap();
    let mesh: hearth::Mesh = pak.load("m/Thing.hmesh").unwrap();
    for (submesh, handle) in mesh.view().submeshes.iter().zip(&model.submeshes) {
        let loaded = meshes.get(handle).expect("the new submesh loaded");
        assert_eq!(
            loaded.indices().unwrap().len(),
            submesh.index_count as usize
        );
    }

    // A new bake into the tree, of a model with a material: its `.hmat` is a file the tree did
    // not list, served once the changed manifest reopens the tree.
    let pack = bake_thing(dir.path(), "RiggedSimple/RiggedSimple.glb");
    update_until(&mut app, "no reload with the material", |app| {
        let world = app.world();
        let model = world
            .resource::<Assets<HearthModel>>()
            .get(&handle)
            .unwrap();
        let material = model.materials.first().cloned().flatten();
        let loaded = material.is_some_and(|material| {
            world
                .resource::<Assets<StandardMaterial>>()
                .get(&material)
                .is_some()
        });
        model.submeshes.len() == 1 && loaded
    });
    let names = app.world().resource::<bevy_hearth::HearthNames>();
    let pak = hearth::PakReader::open(&pack).unwrap();
    let table = pak.names().unwrap();
    let material_row = table
        .iter()
        .find(|row| row.kind == hearth::AssetKind::MATERIAL && row.sub.is_some())
        .expect("a named material row");
    assert_eq!(
        names
            .path::<StandardMaterial>(material_row.name)
            .unwrap()
            .to_string(),
        "hearth://m/Thing.hmat#Material0"
    );
}
