//! Fonts and scenes by hearth name.

use super::{bake_files, corpus, load, wait_for};
use bevy::asset::{AssetPath, Assets, Handle};
use bevy::image::Image;
use bevy::world_serialization::WorldAsset;
use bevy_hearth::{HearthFont, HearthModel, HearthNames, HearthScene};
use std::path::Path;

#[test]
fn fonts_and_scenes_resolve_by_name_to_their_files_and_labels() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let read = |path: &str| std::fs::read(fixtures.join(path)).unwrap();
    let scene = "[scene]\n[[scene.ref]]\nid = 'cube'\nmesh = 'cube.toml'\n";
    let files = [
        ("fonts/ui.fnt", read("fonts/dejavu.txt.fnt")),
        ("fonts/dejavu.png", read("fonts/dejavu.png")),
        ("levels/Level.toml", scene.as_bytes().to_vec()),
        ("levels/cube.toml", b"[mesh]\nsrc = 'cube.glb'\n".to_vec()),
        ("levels/cube.glb", read("pak/scene/cube.glb")),
        // A model of the scene's name: a name of two kinds.
        (
            "models/Level.glb",
            std::fs::read(corpus("BoxVertexColors/BoxVertexColors.glb")).unwrap(),
        ),
    ];
    let (_dir, pack) = bake_files(
        &files,
        "\"fonts/*.fnt\", \"levels/Level.toml\", \"models/*.glb\"",
    );
    let mut app = super::app(&pack);
    let names = app.world().resource::<HearthNames>().clone();
    let path = |p: Result<AssetPath<'static>, _>| p.unwrap().to_string();

    assert_eq!(
        path(names.path::<HearthFont>("ui")),
        "hearth://fonts/ui.hfont"
    );
    // A font's page is a texture of its own name.
    assert_eq!(
        path(names.path::<Image>("ui#page_0")),
        "hearth://fonts/ui/page_0.ktx2"
    );
    assert_eq!(
        path(names.path::<HearthScene>("Level")),
        "hearth://levels/Level.hscene"
    );
    // A model and a scene of one name: the model's scene, as hearth's lookup picks the lower
    // kind; a scene's name alone is its scene's.
    assert_eq!(
        path(names.path::<WorldAsset>("Level")),
        "hearth://models/Level.hmesh#Scene"
    );
    assert_eq!(
        path(names.path::<HearthModel>("Level")),
        "hearth://models/Level.hmesh"
    );
    assert_eq!(
        path(names.path::<WorldAsset>("cube")),
        "hearth://levels/cube.hmesh#Scene"
    );
    // Wrong kinds and sub-assets: errors naming the name.
    for (name, error) in [
        ("ui", names.path::<HearthScene>("ui").unwrap_err()),
        ("ui", names.path::<WorldAsset>("ui").unwrap_err()),
        (
            "ui#page_0",
            names.path::<HearthFont>("ui#page_0").unwrap_err(),
        ),
        ("Level", names.path::<HearthFont>("Level").unwrap_err()),
    ] {
        let text = error.to_string();
        assert!(text.starts_with(name), "{text}");
    }
    let text = names.path::<WorldAsset>("ui").unwrap_err().to_string();
    assert!(text.contains("mesh or scene"), "{text}");

    // Loaded by name: the same assets as by path.
    let server = app.world().resource::<bevy::asset::AssetServer>().clone();
    let font = names.load::<HearthFont>(&server, "ui").unwrap();
    wait_for(&mut app, &font);
    let by_path: Handle<HearthFont> = load(&mut app, "fonts/ui.hfont");
    assert_eq!(font, by_path);
    let fonts = app.world().resource::<Assets<HearthFont>>();
    assert_eq!(fonts.get(&font).unwrap().glyphs.len(), 14);
    let scene = names.load::<HearthScene>(&server, "Level").unwrap();
    wait_for(&mut app, &scene);
    let scenes = app.world().resource::<Assets<HearthScene>>();
    let world_asset = scenes.get(&scene).unwrap().scene.clone();
    assert_eq!(
        world_asset.path().unwrap().to_string(),
        "hearth://levels/Level.hscene#Scene"
    );
    assert!(app
        .world()
        .resource::<Assets<WorldAsset>>()
        .get(&world_asset)
        .is_some());
}
