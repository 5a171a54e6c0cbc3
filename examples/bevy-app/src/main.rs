use bevy::prelude::*;
use bevy_hearth::HearthPlugin;

fn main() {
    App::new()
        // Before DefaultPlugins: Bevy builds its asset sources when AssetPlugin is added.
        .add_plugins(HearthPlugin::open("assets.hpack").unwrap()) // or a bake's output folder
        .add_plugins(DefaultPlugins)
        .add_systems(Startup, setup)
        .run();
}

fn setup(mut commands: Commands, server: Res<AssetServer>) {
    let scene = server.load("hearth://models/fox.hmesh#Scene");
    commands.spawn(bevy::world_serialization::WorldAssetRoot(scene));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, 1.5, 4.0).looking_at(Vec3::Y * 0.5, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight::default(),
        Transform::from_xyz(2.0, 4.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}
