//! A window over a baked pack (or runtime tree): every model in it, through `HearthPlugin`,
//! one at a time, with its animation clips.
//!
//! ```text
//! cargo run -p bevy_hearth --release --features viewer --example viewer -- out/assets.hpack
//! ```
//!
//! Keys: Right / Left (or N / P) step through the models, Space plays the next clip (then the
//! rest pose again), drag with the left mouse button to orbit, scroll (or W / S) to zoom,
//! Escape quits. The window's title says which model and clip are showing.
//!
//! `--model PATH` starts at one model (its runtime path, e.g. `models/fox.hmesh`).
//! `--tour DIR` shows every model in turn without input, playing its first clip: a screenshot of
//! each (`DIR/<index>.png`) once it has drawn a few frames, then it exits. Tests run it on a
//! virtual X server; it is also a quick look at a whole pack.

use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle, AnimationNodeIndex};
use bevy::animation::AnimationPlayer;
use bevy::camera::primitives::Aabb;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::light::DirectionalLight;
use bevy::mesh::skinning::SkinnedMesh;
use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};
use bevy::render::RenderPlugin;
use bevy::window::PrimaryWindow;
use bevy::world_serialization::WorldAssetRoot;
use bevy_hearth::{HearthAnimations, HearthPlugin};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: viewer PACK_OR_TREE [--model MESH_PATH] [--tour DIR]";

/// Frames a model draws, once its scene is in, before the tour takes its screenshot (it is
/// framed at the third).
const TOUR_SETTLE_FRAMES: u32 = 10;

/// Frames the tour waits for one model's scene before it gives up on it.
const TOUR_GIVE_UP_FRAMES: u32 = 2000;

/// The command line.
struct Args {
    pack: PathBuf,
    model: Option<String>,
    tour: Option<PathBuf>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut pack, mut model, mut tour) = (None, None, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--model" => model = Some(value()?),
            "--tour" => tour = Some(PathBuf::from(value()?)),
            flag if flag.starts_with("--") => return Err(format!("unknown argument {flag}")),
            _ if pack.is_none() => pack = Some(PathBuf::from(arg)),
            _ => return Err(format!("a second pack {arg}")),
        }
    }
    Ok(Args {
        pack: pack.ok_or("the pack (or runtime tree) is missing")?,
        model,
        tour,
    })
}

/// One model of the pack: its `.hmesh`, the `.hanim` beside it, and where it stands.
struct Model {
    mesh: String,
    animations: Option<String>,
    center: Vec3,
    radius: f32,
}

/// Every model of the pack, in path order, and which one shows.
#[derive(Resource)]
struct Catalog {
    models: Vec<Model>,
    current: usize,
}

/// Lists the pack's models with their bounds (the mesh's own box, in its bind pose).
fn catalog(assets: &hearth::Assets) -> Result<Vec<Model>, String> {
    let mut models = Vec::new();
    let entries = assets.entries().map_err(|e| e.to_string())?;
    for info in &entries {
        let Some(stem) = info.path.strip_suffix(".hmesh") else {
            continue;
        };
        let mesh: hearth::Mesh = assets
            .load(&info.path)
            .map_err(|e| format!("{}: {e}", info.path))?;
        let bounds = mesh.view().bounds;
        let (lo, hi) = (Vec3::from(bounds.aabb_min), Vec3::from(bounds.aabb_max));
        let animations = format!("{stem}.hanim");
        let has_animations = entries.iter().any(|other| other.path == animations);
        models.push(Model {
            mesh: info.path.clone(),
            animations: has_animations.then_some(animations),
            center: (lo + hi) * 0.5,
            radius: ((hi - lo).length() * 0.5).max(1e-3),
        });
    }
    models.sort_by(|a, b| a.mesh.cmp(&b.mesh));
    Ok(models)
}

/// What the window shows now: the spawned scene, its clips, and the one playing.
#[derive(Resource, Default)]
struct Showing {
    root: Option<Entity>,
    animations: Option<Handle<HearthAnimations>>,
    /// The clips as an animation graph, once the player and the clips are both in.
    graph: Option<Vec<AnimationNodeIndex>>,
    player: Option<Entity>,
    /// The clip playing (`None`: the rest pose).
    clip: Option<usize>,
    /// Frames since the scene was spawned, and since it was ready.
    frames: u32,
    ready_frames: Option<u32>,
}

/// The camera's place around the model.
#[derive(Resource)]
struct Orbit {
    center: Vec3,
    distance: f32,
    yaw: f32,
    pitch: f32,
}

/// The tour (`--tour`): where screenshots go, and whether the current one is taken.
#[derive(Resource)]
struct Tour {
    dir: PathBuf,
    shot_taken: bool,
    shot_saved: std::sync::Arc<std::sync::atomic::AtomicBool>,
    failures: Vec<String>,
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("viewer: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<ExitCode, String> {
    let assets =
        hearth::Assets::open(&args.pack).map_err(|e| format!("{}: {e}", args.pack.display()))?;
    let models = catalog(&assets)?;
    if models.is_empty() {
        return Err(format!("{}: no .hmesh in it", args.pack.display()));
    }
    let current = match &args.model {
        Some(wanted) => models
            .iter()
            .position(|m| &m.mesh == wanted)
            .ok_or_else(|| format!("{wanted}: no such model in {}", args.pack.display()))?,
        None => 0,
    };
    let mut app = App::new();
    app.add_plugins(HearthPlugin::new(assets))
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "hearth viewer".into(),
                        resolution: (800, 600).into(),
                        ..Window::default()
                    }),
                    ..WindowPlugin::default()
                })
                .set(RenderPlugin {
                    // A tour's screenshots show each model drawn, not a frame whose pipelines
                    // are still compiling.
                    synchronous_pipeline_compilation: args.tour.is_some(),
                    ..RenderPlugin::default()
                }),
        )
        .insert_resource(Catalog { models, current })
        .init_resource::<Showing>()
        .insert_resource(Orbit {
            center: Vec3::ZERO,
            distance: 3.0,
            yaw: 0.6,
            pitch: -0.35,
        })
        .add_systems(Startup, spawn_rig)
        .add_systems(
            Update,
            (
                step_models,
                show_model,
                attach_clips,
                frame_when_ready,
                cycle_clips,
                orbit,
                place_camera,
                name_window,
            )
                .chain(),
        );
    if let Some(dir) = args.tour {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        app.insert_resource(Tour {
            dir,
            shot_taken: false,
            shot_saved: Default::default(),
            failures: Vec::new(),
        })
        .add_systems(Update, tour.after(show_model));
    }
    let exit = app.run();
    Ok(match exit {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(_) => ExitCode::FAILURE,
    })
}

/// The camera and two lights, as `bevy_hearth::compare` draws.
fn spawn_rig(mut commands: Commands) {
    commands.spawn((
        Camera3d::default(),
        // Tony McMapface, Bevy's default, needs the `tonemapping_luts` feature.
        Tonemapping::AcesFitted,
        Transform::default(),
    ));
    for (from, illuminance) in [
        (Vec3::new(0.6, 0.9, 0.8), 6000.0),
        (Vec3::new(-0.8, 0.3, -0.6), 2000.0),
    ] {
        commands.spawn((
            DirectionalLight {
                illuminance,
                ..DirectionalLight::default()
            },
            Transform::from_translation(from).looking_at(Vec3::ZERO, Vec3::Y),
        ));
    }
}

/// Right / Left (N / P) step through the models; Escape quits.
fn step_models(
    keys: Res<ButtonInput<KeyCode>>,
    mut catalog: ResMut<Catalog>,
    mut exit: MessageWriter<AppExit>,
) {
    let count = catalog.models.len();
    if keys.any_just_pressed([KeyCode::ArrowRight, KeyCode::KeyN]) {
        catalog.current = (catalog.current + 1) % count;
    }
    if keys.any_just_pressed([KeyCode::ArrowLeft, KeyCode::KeyP]) {
        catalog.current = (catalog.current + count - 1) % count;
    }
    if keys.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
}

/// When the current model changes (and at start): the old scene goes, the new one's `#Scene`
/// and `.hanim` load, and the camera frames its bounds.
fn show_model(
    catalog: Res<Catalog>,
    server: Res<AssetServer>,
    mut showing: ResMut<Showing>,
    mut orbit: ResMut<Orbit>,
    mut commands: Commands,
) {
    if !catalog.is_changed() {
        return;
    }
    if let Some(root) = showing.root.take() {
        commands.entity(root).despawn();
    }
    let model = &catalog.models[catalog.current];
    let scene = server.load(format!("hearth://{}#Scene", model.mesh));
    *showing = Showing {
        root: Some(commands.spawn(WorldAssetRoot(scene)).id()),
        animations: model
            .animations
            .as_ref()
            .map(|path| server.load(format!("hearth://{path}"))),
        ..Showing::default()
    };
    orbit.center = model.center;
    orbit.distance = model.radius * 2.6;
}

/// Once the scene's animation player and the model's clips are both in: the clips become an
/// animation graph on the player.
fn attach_clips(
    mut showing: ResMut<Showing>,
    players: Query<Entity, With<AnimationPlayer>>,
    children: Query<&Children>,
    animations: Res<Assets<HearthAnimations>>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mut commands: Commands,
) {
    showing.frames += 1;
    let Some(root) = showing.root else { return };
    if showing.ready_frames.is_none() && children.get(root).is_ok_and(|c| !c.is_empty()) {
        showing.ready_frames = Some(0);
    }
    if let Some(frames) = showing.ready_frames.as_mut() {
        *frames += 1;
    }
    if showing.graph.is_some() {
        return;
    }
    let Some(clips) = showing.animations.as_ref().and_then(|h| animations.get(h)) else {
        return;
    };
    let Some(player) = children
        .iter_descendants(root)
        .find(|&entity| players.contains(entity))
    else {
        return;
    };
    let (graph, nodes) = AnimationGraph::from_clips(clips.clips.iter().cloned());
    commands
        .entity(player)
        .insert(AnimationGraphHandle(graphs.add(graph)));
    showing.graph = Some(nodes);
    showing.player = Some(player);
}

/// The scene's frame after it is spawned and its transforms are in: the bounds of its
/// unskinned meshes, placed, and of its joints (a skinned mesh's rest pose may stand apart
/// from its vertices' own box).
fn frame_when_ready(
    showing: Res<Showing>,
    children: Query<&Children>,
    parts: Query<(&GlobalTransform, Option<&Aabb>, Option<&SkinnedMesh>)>,
    mut orbit: ResMut<Orbit>,
) {
    let Some(root) = showing.root.filter(|_| showing.ready_frames == Some(3)) else {
        return;
    };
    let mut points = Vec::new();
    for entity in children.iter_descendants(root) {
        let Ok((place, aabb, skin)) = parts.get(entity) else {
            continue;
        };
        match (aabb, skin) {
            (Some(aabb), None) => {
                let (center, half) = (Vec3::from(aabb.center), Vec3::from(aabb.half_extents));
                for corner in 0..8 {
                    let sign = Vec3::new(
                        if corner & 1 == 0 { -1.0 } else { 1.0 },
                        if corner & 2 == 0 { -1.0 } else { 1.0 },
                        if corner & 4 == 0 { -1.0 } else { 1.0 },
                    );
                    points.push(place.transform_point(center + half * sign));
                }
            }
            (_, Some(skin)) => points.extend(
                skin.joints
                    .iter()
                    .filter_map(|&joint| parts.get(joint).ok())
                    .map(|(joint, _, _)| joint.translation()),
            ),
            (None, None) => {}
        }
    }
    let Some(&first) = points.first() else { return };
    let (lo, hi) = points
        .iter()
        .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    // Joints sit inside the skin: a little room around them.
    let radius = ((hi - lo).length() * 0.5 * 1.3).max(1e-3);
    orbit.center = (lo + hi) * 0.5;
    orbit.distance = radius * 2.6;
}

/// Space plays the next clip, looping; after the last, the rest pose again.
fn cycle_clips(
    keys: Res<ButtonInput<KeyCode>>,
    mut showing: ResMut<Showing>,
    mut players: Query<&mut AnimationPlayer>,
) {
    if keys.just_pressed(KeyCode::Space) {
        let count = showing.graph.as_ref().map_or(0, Vec::len);
        let next = match showing.clip {
            None if count > 0 => Some(0),
            Some(i) if i + 1 < count => Some(i + 1),
            _ => None,
        };
        play(&mut showing, &mut players, next);
    }
}

/// Plays clip `clip` of the showing model (`None`: stops, back to the rest pose).
fn play(showing: &mut Showing, players: &mut Query<&mut AnimationPlayer>, clip: Option<usize>) {
    let (Some(nodes), Some(player)) = (&showing.graph, showing.player) else {
        return;
    };
    let Ok(mut player) = players.get_mut(player) else {
        return;
    };
    player.stop_all();
    if let Some(node) = clip.and_then(|i| nodes.get(i)) {
        player.play(*node).repeat();
    }
    showing.clip = clip;
}

/// Dragging with the left button turns the camera around the model; scrolling (or W / S)
/// moves it closer or farther.
fn orbit(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    mut orbit: ResMut<Orbit>,
) {
    if buttons.pressed(MouseButton::Left) {
        orbit.yaw -= motion.delta.x * 0.008;
        orbit.pitch = (orbit.pitch - motion.delta.y * 0.008).clamp(-1.5, 1.5);
    }
    let lines = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
    };
    let keyed = f32::from(keys.pressed(KeyCode::KeyS)) - f32::from(keys.pressed(KeyCode::KeyW));
    let zoom = (1.0 - lines * 0.1) * (1.0 + keyed * 0.03);
    orbit.distance = (orbit.distance * zoom.clamp(0.2, 5.0)).max(1e-3);
}

/// The camera where the orbit says, its near and far planes hugging the model.
fn place_camera(orbit: Res<Orbit>, mut camera: Query<(&mut Transform, &mut Projection)>) {
    if !orbit.is_changed() {
        return;
    }
    let Ok((mut transform, mut projection)) = camera.single_mut() else {
        return;
    };
    let direction = Quat::from_euler(EulerRot::YXZ, orbit.yaw, orbit.pitch, 0.0) * Vec3::Z;
    *transform = Transform::from_translation(orbit.center + direction * orbit.distance)
        .looking_at(orbit.center, Vec3::Y);
    if let Projection::Perspective(perspective) = projection.as_mut() {
        perspective.near = orbit.distance * 1e-3;
        perspective.far = orbit.distance * 100.0;
    }
}

/// The window's title: which model, which clip, and the keys.
fn name_window(
    catalog: Res<Catalog>,
    showing: Res<Showing>,
    mut window: Query<&mut Window, With<PrimaryWindow>>,
) {
    if !catalog.is_changed() && !showing.is_changed() {
        return;
    }
    let Ok(mut window) = window.single_mut() else {
        return;
    };
    let model = &catalog.models[catalog.current];
    let clips = showing.graph.as_ref().map_or(0, Vec::len);
    let clip = match showing.clip {
        Some(i) => format!("clip {}/{clips}", i + 1),
        None if clips > 0 => format!("rest pose, {clips} clips (Space)"),
        None => "no clips".to_owned(),
    };
    let title = format!(
        "hearth viewer: {} ({}/{}), {clip}; Left/Right: models",
        model.mesh,
        catalog.current + 1,
        catalog.models.len()
    );
    if window.title != title {
        window.title = title;
    }
}

/// `--tour`: each model plays its first clip, draws a few frames, is screenshot, and the next
/// one comes; after the last, the app exits (with an error when a model never showed).
fn tour(
    mut tour: ResMut<Tour>,
    mut catalog: ResMut<Catalog>,
    mut showing: ResMut<Showing>,
    mut players: Query<&mut AnimationPlayer>,
    mut exit: MessageWriter<AppExit>,
    mut commands: Commands,
) {
    if showing.graph.is_some() && showing.clip.is_none() {
        play(&mut showing, &mut players, Some(0));
    }
    let model = &catalog.models[catalog.current];
    let settled = showing
        .ready_frames
        .is_some_and(|f| f >= TOUR_SETTLE_FRAMES)
        && (model.animations.is_none() || showing.graph.is_some());
    if settled && !tour.shot_taken {
        let path = tour.dir.join(format!("{}.png", catalog.current));
        let saved = tour.shot_saved.clone();
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path))
            .observe(move |_: On<ScreenshotCaptured>| {
                saved.store(true, std::sync::atomic::Ordering::Release);
            });
        tour.shot_taken = true;
    }
    let gave_up = showing.frames >= TOUR_GIVE_UP_FRAMES;
    if gave_up {
        let failure = format!("{}: not drawn in {TOUR_GIVE_UP_FRAMES} frames", model.mesh);
        tour.failures.push(failure);
    }
    if !gave_up && !tour.shot_saved.load(std::sync::atomic::Ordering::Acquire) {
        return;
    }
    println!("viewer: showed {} ({})", model.mesh, catalog.current);
    tour.shot_taken = false;
    tour.shot_saved
        .store(false, std::sync::atomic::Ordering::Release);
    if catalog.current + 1 < catalog.models.len() {
        catalog.current += 1;
    } else if tour.failures.is_empty() {
        exit.write(AppExit::Success);
    } else {
        eprintln!("viewer: {}", tour.failures.join("; "));
        exit.write(AppExit::error());
    }
}
