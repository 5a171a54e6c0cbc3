//! A baked model and its source drawn offscreen by Bevy with the same camera, lights and tone
//! mapping: the baked one through [`HearthPlugin`]'s `#Scene`, the source
//! through Bevy's own glTF loader (feature `compare`). The `compare` example writes the two
//! images; the tests hold them to a PSNR floor.
//!
//! ```no_run
//! use bevy_hearth::compare::{CompareSettings, Comparer};
//! use std::path::Path;
//!
//! let assets = hearth::Assets::open("out/assets.hpack").unwrap();
//! let settings = CompareSettings::default();
//! let mut comparer = Comparer::new(assets, Path::new("content"), &settings).unwrap();
//! let renders = comparer.compare("models/fox.hmesh", "models/fox.gltf").unwrap();
//! println!("{:.2} dB", renders.baked.psnr(&renders.source).unwrap());
//! renders.baked.save_png(Path::new("baked.png")).unwrap();
//! ```

use crate::HearthPlugin;
use bevy::app::{App, PluginsState, TerminalCtrlCHandlerPlugin};
use bevy::asset::{
    AssetPlugin, AssetServer, Assets, Handle, LoadState, RecursiveDependencyLoadState,
};
use bevy::camera::{
    Camera, Camera3d, ClearColorConfig, PerspectiveProjection, Projection, RenderTarget,
};
use bevy::color::Color;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::ecs::entity::Entity;
use bevy::ecs::observer::On;
use bevy::gltf::{Gltf, GltfLoaderSettings};
use bevy::image::Image;
use bevy::light::DirectionalLight;
use bevy::math::Vec3;
use bevy::mesh::{Mesh, Mesh3d, VertexAttributeValues};
use bevy::prelude::{DefaultPlugins, PluginGroup, Transform};
use bevy::render::gpu_readback::{Readback, ReadbackComplete};
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::render::settings::{Backends, RenderCreation, WgpuSettings};
use bevy::render::RenderPlugin;
use bevy::window::{ExitCondition, WindowPlugin};
use bevy::world_serialization::{WorldAsset, WorldAssetRoot};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The vertical field of view, in degrees (hearth's own preview renderer's).
const FOV_Y: f32 = 35.0;
/// Where the camera looks from, relative to the model's center: front right, above.
const VIEW_DIRECTION: Vec3 = Vec3::new(0.55, 0.42, 1.0);
/// The background, linear RGB.
const CLEAR: Color = Color::linear_rgb(0.035, 0.04, 0.05);
/// How long a model may take to load and settle before the comparison gives up.
const TIMEOUT: Duration = Duration::from_secs(600);
/// Identical frames in a row that make a drawing settled.
const SETTLED_FRAMES: usize = 3;
/// Frames drawn after a model appears before its drawing may count as settled.
const WARMUP_FRAMES: usize = 4;

/// How [`Comparer`] draws.
#[derive(Clone, Debug)]
pub struct CompareSettings {
    /// Width and height of the images, in pixels.
    pub size: u32,
    /// The graphics APIs wgpu may use (`None`: wgpu's default, or `WGPU_BACKEND`).
    pub backends: Option<Backends>,
    /// Draw only on an adapter whose name contains this (case-insensitive; `"llvmpipe"` is
    /// Mesa's lavapipe): an error when there is none, rather than another adapter.
    pub adapter: Option<String>,
    /// The brightness of the camera's ambient light (Bevy's `AmbientLight`, cd/m²; `None`:
    /// Bevy's global default, 80). Ambient occlusion maps darken only this light.
    pub ambient: Option<f32>,
    #[doc(hidden)]
    /// A deliberate fault in the baked model's drawing, to show a comparison notices it.
    pub fault: Fault,
}

impl Default for CompareSettings {
    fn default() -> Self {
        Self {
            size: 512,
            backends: None,
            adapter: None,
            ambient: None,
            fault: Fault::None,
        }
    }
}

#[doc(hidden)]
/// A fault put into the baked model's meshes or materials before it is drawn (tests only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Drawn as loaded.
    None,
    /// Every normal negated.
    NegateNormals,
}

/// Why a comparison could not draw.
#[derive(Debug)]
pub struct CompareError(String);

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CompareError {}

/// A [`CompareError`] saying `message`.
fn error(message: impl std::fmt::Display) -> CompareError {
    CompareError(message.to_string())
}

/// An 8-bit sRGB RGBA image, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba8 {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl Rgba8 {
    /// The peak signal-to-noise ratio against `other` over RGB, in dB (infinite when equal);
    /// `None` when the sizes differ.
    pub fn psnr(&self, other: &Rgba8) -> Option<f64> {
        if (self.width, self.height) != (other.width, other.height)
            || self.pixels.len() != other.pixels.len()
        {
            return None;
        }
        let (mut sum, mut count) = (0.0f64, 0u64);
        for (a, b) in self
            .pixels
            .chunks_exact(4)
            .zip(other.pixels.chunks_exact(4))
        {
            for c in 0..3 {
                let d = f64::from(a[c]) - f64::from(b[c]);
                sum += d * d;
                count += 1;
            }
        }
        if count == 0 || sum == 0.0 {
            return Some(f64::INFINITY);
        }
        let mse = sum / count as f64;
        Some(10.0 * (255.0 * 255.0 / mse).log10())
    }

    /// The share of pixels that differ from the top-left one (the background): 0 for a blank
    /// image.
    pub fn coverage(&self) -> f64 {
        let Some(background) = self.pixels.get(..4) else {
            return 0.0;
        };
        let pixels = self.pixels.len() / 4;
        let covered = self
            .pixels
            .chunks_exact(4)
            .filter(|p| p[..3] != background[..3])
            .count();
        covered as f64 / pixels.max(1) as f64
    }

    /// Writes it as a PNG file.
    pub fn save_png(&self, path: &Path) -> Result<(), CompareError> {
        let image = Image::new(
            bevy::render::render_resource::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
            bevy::render::render_resource::TextureDimension::D2,
            self.pixels.clone(),
            TextureFormat::Rgba8UnormSrgb,
            bevy::asset::RenderAssetUsages::default(),
        );
        let image = image
            .try_into_dynamic()
            .map_err(|e| error(format!("{}: {e}", path.display())))?;
        image
            .save(path)
            .map_err(|e| error(format!("{}: {e}", path.display())))
    }
}

/// The two drawings of one model.
#[derive(Clone, Debug)]
pub struct Renders {
    /// The baked model, through the plugin.
    pub baked: Rgba8,
    /// The source file, through Bevy's glTF loader.
    pub source: Rgba8,
}

/// Where the camera of a drawing stands (up is +Y), for [`Comparer::render_baked_from`].
///
/// ```
/// use bevy::math::Vec3;
/// use bevy_hearth::compare::CameraView;
///
/// // A unit sphere at the origin, seen from the front (+Z).
/// let view = CameraView::framing((Vec3::ZERO, 1.0), Vec3::Z);
/// let [x, y] = view.project(Vec3::ZERO, 512).unwrap();
/// assert!((x - 256.0).abs() < 1e-3 && (y - 256.0).abs() < 1e-3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraView {
    /// The camera's position.
    pub eye: Vec3,
    /// The point at the image's center.
    pub target: Vec3,
    /// The vertical field of view, in degrees (the image is square).
    pub fov_y: f32,
    /// The near clipping plane's distance.
    pub near: f32,
    /// The far clipping plane's distance.
    pub far: f32,
}

impl CameraView {
    /// Looking at a sphere (`center`, `radius`) from `direction` (from the center towards the
    /// camera), as [`Comparer::compare`] frames a model: the sphere fills the field of view,
    /// the clipping planes hug it.
    pub fn framing((center, radius): (Vec3, f32), direction: Vec3) -> Self {
        let fov = FOV_Y.to_radians();
        let distance = radius / (fov * 0.5).sin() * 1.02;
        Self {
            eye: center + direction.normalize() * distance,
            target: center,
            fov_y: FOV_Y,
            near: (distance - radius * 1.1).max(distance * 1e-3),
            far: distance + radius * 1.1,
        }
    }

    /// The pixel (x right, y down, in pixels) where `point` lands in a `size`² drawing;
    /// `None` behind the camera.
    pub fn project(&self, point: Vec3, size: u32) -> Option<[f32; 2]> {
        use bevy::math::Mat4;
        let view = Mat4::look_at_rh(self.eye, self.target, Vec3::Y);
        let projection = Mat4::perspective_rh(
            self.fov_y.to_radians(),
            1.0,
            self.near,
            self.far.max(self.near),
        );
        let clip = projection * view * point.extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let (x, y) = (clip.x / clip.w, clip.y / clip.w);
        let size = size as f32;
        Some([(x + 1.0) * 0.5 * size, (1.0 - y) * 0.5 * size])
    }
}

/// A headless Bevy app that draws baked models and their sources into one offscreen image.
pub struct Comparer {
    app: App,
    assets: crate::Generation,
    camera: Entity,
    frames: Arc<Mutex<Frames>>,
    settings: CompareSettings,
    adapter_name: String,
}

/// The frames read back from the target image.
#[derive(Default)]
struct Frames {
    /// How many arrived.
    count: usize,
    /// The last one's bytes (rows padded as the GPU copy wrote them).
    last: Vec<u8>,
}

impl Comparer {
    /// A headless app serving `assets` through [`HearthPlugin`] and the folder `source_root`
    /// as Bevy's default file source (source paths are relative to it), drawing on the
    /// adapter `settings` asks for: an error naming what is missing when there is none.
    pub fn new(
        assets: hearth::Assets,
        source_root: &Path,
        settings: &CompareSettings,
    ) -> Result<Self, CompareError> {
        if settings.size == 0 || settings.size > 8192 {
            return Err(error(format!(
                "image size {} is not from 1 to 8192",
                settings.size
            )));
        }
        let backends = settings
            .backends
            .or_else(|| WgpuSettings::default().backends)
            .unwrap_or(Backends::all());
        let adapter_name = find_adapter(backends, settings.adapter.as_deref())?;
        let plugin = HearthPlugin::new(assets);
        let assets = plugin.assets().clone();
        let mut app = App::new();
        app.add_plugins(plugin);
        let plugins = DefaultPlugins
            .set(AssetPlugin {
                file_path: source_root.to_string_lossy().into_owned(),
                ..AssetPlugin::default()
            })
            .set(RenderPlugin {
                render_creation: RenderCreation::Automatic(Box::new(WgpuSettings {
                    backends: Some(backends),
                    adapter_name: settings.adapter.clone(),
                    ..WgpuSettings::default()
                })),
                // Pipelines ready in the frame that asks for them: a drawing settles
                // once its assets are in.
                synchronous_pipeline_compilation: true,
                ..RenderPlugin::default()
            })
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                close_when_requested: false,
                ..WindowPlugin::default()
            })
            .disable::<TerminalCtrlCHandlerPlugin>();
        // The comparison never opens a window, and winit refuses an event loop off the
        // main thread (a test's thread): the viewer's window feature must not reach it.
        #[cfg(feature = "viewer")]
        let plugins = plugins.disable::<bevy::winit::WinitPlugin>();
        app.add_plugins(plugins);
        while app.plugins_state() == PluginsState::Adding {
            bevy::tasks::tick_global_task_pools_on_main_thread();
        }
        app.finish();
        app.cleanup();
        register_scene_types(&mut app);
        let frames = Arc::new(Mutex::new(Frames::default()));
        let camera = spawn_rig(&mut app, settings, frames.clone());
        Ok(Self {
            app,
            assets,
            camera,
            frames,
            settings: settings.clone(),
            adapter_name,
        })
    }

    #[doc(hidden)]
    /// Puts `fault` into the baked models drawn from now on (tests only).
    pub fn set_fault(&mut self, fault: Fault) {
        self.settings.fault = fault;
    }

    /// Sets the camera's ambient light for the drawings from now on (see
    /// [`CompareSettings::ambient`]).
    pub fn set_ambient(&mut self, brightness: Option<f32>) {
        self.settings.ambient = brightness;
        set_ambient(self.app.world_mut(), self.camera, brightness);
    }

    /// The name of the adapter it draws on.
    pub fn adapter_name(&self) -> &str {
        &self.adapter_name
    }

    /// Draws the baked model at runtime path `mesh` (its `#Scene`) and the source file at
    /// `source` (relative to the source root; its default scene), with the camera framing the
    /// baked mesh's bounds.
    pub fn compare(&mut self, mesh: &str, source: &str) -> Result<Renders, CompareError> {
        let bounds = self.bounds(mesh)?;
        self.frame(bounds);
        let baked = self.render_baked(mesh)?;
        let source = self.render_source(source)?;
        Ok(Renders { baked, source })
    }

    /// Draws the baked model at runtime path `mesh` (its `#Scene`) as `view` sees it: for
    /// checks that look at given points of a model (project them with
    /// [`CameraView::project`]).
    pub fn render_baked_from(
        &mut self,
        mesh: &str,
        view: &CameraView,
    ) -> Result<Rgba8, CompareError> {
        self.look(view);
        self.render_baked(mesh)
    }

    /// Draws the source file at `source` through Bevy's glTF loader as `view` sees it.
    pub fn render_source_from(
        &mut self,
        source: &str,
        view: &CameraView,
    ) -> Result<Rgba8, CompareError> {
        self.look(view);
        self.render_source(source)
    }

    /// The bounding sphere of the baked mesh's positions: center of their box, and the
    /// largest distance from it (1 for a degenerate or empty mesh).
    pub fn bounds(&self, mesh: &str) -> Result<(Vec3, f32), CompareError> {
        let bytes = self
            .assets
            .get(mesh)
            .map_err(|e| error(format!("{mesh}: {e}")))?
            .ok_or_else(|| error(format!("{mesh} is not in the pack")))?;
        let parsed = <hearth::Mesh as hearth::LoadAsset>::from_asset(
            mesh,
            hearth::AssetBytes::from_vec(bytes),
        )
        .map_err(|e| error(format!("{mesh}: {e}")))?;
        let positions: Vec<Vec3> = parsed.view().positions().map(Vec3::from_array).collect();
        let Some(&first) = positions.first() else {
            return Ok((Vec3::ZERO, 1.0));
        };
        let (lo, hi) = positions
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let center = (lo + hi) * 0.5;
        let radius = positions
            .iter()
            .map(|p| p.distance(center))
            .fold(0.0f32, f32::max);
        Ok((center, if radius > 1e-6 { radius } else { 1.0 }))
    }

    /// Points the camera at `center` from [`VIEW_DIRECTION`], far enough that a sphere of
    /// `radius` fits the field of view.
    fn frame(&mut self, bounds: (Vec3, f32)) {
        self.look(&CameraView::framing(bounds, VIEW_DIRECTION));
    }

    /// Puts the camera where `view` says.
    fn look(&mut self, view: &CameraView) {
        let projection = Projection::Perspective(PerspectiveProjection {
            fov: view.fov_y.to_radians(),
            aspect_ratio: 1.0,
            near: view.near,
            far: view.far,
            ..PerspectiveProjection::default()
        });
        let transform = Transform::from_translation(view.eye).looking_at(view.target, Vec3::Y);
        self.app
            .world_mut()
            .entity_mut(self.camera)
            .insert((projection, transform));
    }

    /// The baked model's `#Scene`, spawned, drawn until it settles, despawned.
    fn render_baked(&mut self, mesh: &str) -> Result<Rgba8, CompareError> {
        let path = format!("{}://{mesh}#Scene", crate::DEFAULT_SOURCE);
        let scene: Handle<WorldAsset> = self.server().load(path.clone());
        self.wait_loaded(&scene, &path)?;
        let root = self.spawn_scene(scene, &path)?;
        self.rest_pose();
        self.apply_fault();
        let image = self.settle(&path);
        self.app.world_mut().entity_mut(root).despawn();
        image
    }

    /// The source file's default scene (else its first) through Bevy's glTF loader, without
    /// its cameras and lights, drawn until it settles, despawned.
    fn render_source(&mut self, source: &str) -> Result<Rgba8, CompareError> {
        let gltf: Handle<Gltf> = self
            .server()
            .load_builder()
            .with_settings(|settings: &mut GltfLoaderSettings| {
                settings.load_cameras = false;
                settings.load_lights = false;
                settings.load_animations = false;
            })
            .load(source.to_owned());
        self.wait_loaded(&gltf, source)?;
        let world = self.app.world();
        let loaded = world
            .resource::<Assets<Gltf>>()
            .get(&gltf)
            .ok_or_else(|| error(format!("{source}: loaded, then gone")))?;
        let scene = loaded
            .default_scene
            .clone()
            .or_else(|| loaded.scenes.first().cloned())
            .ok_or_else(|| error(format!("{source} has no scene")))?;
        self.wait_loaded(&scene, source)?;
        let root = self.spawn_scene(scene, source)?;
        self.rest_pose();
        let image = self.settle(source);
        self.app.world_mut().entity_mut(root).despawn();
        image
    }

    fn server(&self) -> AssetServer {
        self.app.world().resource::<AssetServer>().clone()
    }
}

impl Comparer {
    /// Runs the app until `handle` and its dependencies are loaded: Bevy's error naming
    /// `what` when a load fails, an error after [`TIMEOUT`].
    fn wait_loaded<A: bevy::asset::Asset>(
        &mut self,
        handle: &Handle<A>,
        what: &str,
    ) -> Result<(), CompareError> {
        let start = Instant::now();
        loop {
            let server = self.server();
            if server.is_loaded_with_dependencies(handle) {
                return Ok(());
            }
            if let Some(LoadState::Failed(e)) = server.get_load_state(handle) {
                return Err(error(format!("{what}: {e}")));
            }
            if let Some(RecursiveDependencyLoadState::Failed(e)) =
                server.get_recursive_dependency_load_state(handle)
            {
                return Err(error(format!("{what}: a dependency failed: {e}")));
            }
            if start.elapsed() > TIMEOUT {
                return Err(error(format!("{what}: still loading after {TIMEOUT:?}")));
            }
            self.app.update();
        }
    }

    /// Spawns `scene` and runs the app until its entities are in the world.
    fn spawn_scene(
        &mut self,
        scene: Handle<WorldAsset>,
        what: &str,
    ) -> Result<Entity, CompareError> {
        let missing = unregistered_components(self.app.world(), &scene);
        if !missing.is_empty() {
            return Err(error(format!(
                "{what}: its scene holds components without reflection registration: {missing:?}"
            )));
        }
        let root = self.app.world_mut().spawn(WorldAssetRoot(scene)).id();
        let start = Instant::now();
        loop {
            self.app.update();
            let world = self.app.world();
            let spawned = world
                .get::<bevy::prelude::Children>(root)
                .is_some_and(|children| !children.is_empty());
            if spawned {
                return Ok(root);
            }
            if start.elapsed() > TIMEOUT {
                self.app.world_mut().entity_mut(root).despawn();
                return Err(error(format!("{what}: its scene did not spawn")));
            }
        }
    }

    /// Poses every skinned mesh in its bind pose and sets every morph weight to 0 (a bake's
    /// base shape; Bevy's glTF loader applies a mesh's default weights). Bind pose: where
    /// each joint's world transform is its inverse bind matrix's inverse, so skinning leaves
    /// the vertices where the mesh stores them (and the camera framed them). Both sides are
    /// posed so: a skeleton's rest pose need not be its bind pose.
    fn rest_pose(&mut self) {
        use bevy::math::Mat4;
        use bevy::mesh::morph::{MeshMorphWeights, MorphWeights};
        use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
        use bevy::transform::components::GlobalTransform;
        let world = self.app.world_mut();
        for mut weights in world.query::<&mut MorphWeights>().iter_mut(world) {
            weights.weights_mut().fill(0.0);
        }
        for mut weights in world.query::<&mut MeshMorphWeights>().iter_mut(world) {
            if let MeshMorphWeights::Value { weights } = &mut *weights {
                weights.fill(0.0);
            }
        }
        let mut query = world.query::<&SkinnedMesh>();
        let skins: Vec<SkinnedMesh> = query.iter(world).cloned().collect();
        for skin in skins {
            let binds = world.resource::<Assets<SkinnedMeshInverseBindposes>>();
            let Some(binds) = binds.get(&skin.inverse_bindposes) else {
                continue;
            };
            let wanted: std::collections::HashMap<Entity, Mat4> = skin
                .joints
                .iter()
                .zip(binds.iter())
                .map(|(&joint, bind)| (joint, bind.inverse()))
                .collect();
            for (&joint, global) in &wanted {
                let parent = world
                    .get::<bevy::prelude::ChildOf>(joint)
                    .map(|child_of| child_of.parent());
                let parent_global = parent.map_or(Mat4::IDENTITY, |parent| {
                    wanted.get(&parent).copied().unwrap_or_else(|| {
                        world
                            .get::<GlobalTransform>(parent)
                            .map_or(Mat4::IDENTITY, GlobalTransform::to_matrix)
                    })
                });
                let local = parent_global.inverse() * *global;
                world
                    .entity_mut(joint)
                    .insert(Transform::from_matrix(local));
            }
        }
    }

    /// Puts the settings' [`Fault`] into every drawn mesh or material (the only model in the
    /// world is the one being drawn), on copies: the loaded assets stay as they are.
    fn apply_fault(&mut self) {
        let world = self.app.world_mut();
        match self.settings.fault {
            Fault::None => {}
            Fault::NegateNormals => {
                let mut query = world.query::<(Entity, &Mesh3d)>();
                let parts: Vec<_> = query
                    .iter(world)
                    .map(|(entity, mesh)| (entity, mesh.0.clone()))
                    .collect();
                for (entity, handle) in parts {
                    let mut meshes = world.resource_mut::<Assets<Mesh>>();
                    let Some(mut mesh) = meshes.get(&handle).cloned() else {
                        continue;
                    };
                    if let Some(VertexAttributeValues::Float32x3(normals)) =
                        mesh.attribute_mut(Mesh::ATTRIBUTE_NORMAL)
                    {
                        for normal in normals {
                            *normal = normal.map(|c| -c);
                        }
                    }
                    let faulty = meshes.add(mesh);
                    world.entity_mut(entity).insert(Mesh3d(faulty));
                }
            }
        }
    }

    /// Runs the app until [`SETTLED_FRAMES`] read-back frames in a row are identical (after
    /// [`WARMUP_FRAMES`]), and returns that frame.
    fn settle(&mut self, what: &str) -> Result<Rgba8, CompareError> {
        let start = Instant::now();
        let mut seen = self.lock_frames().count;
        let (mut fresh, mut same) = (0usize, 0usize);
        let mut previous: Vec<u8> = Vec::new();
        loop {
            self.app.update();
            let frames = self.lock_frames();
            if frames.count != seen {
                seen = frames.count;
                fresh += 1;
                if fresh > WARMUP_FRAMES && frames.last == previous {
                    same += 1;
                } else {
                    same = 0;
                    previous.clone_from(&frames.last);
                }
                if same + 1 >= SETTLED_FRAMES {
                    let size = self.settings.size;
                    return unpad(&previous, size, size)
                        .ok_or_else(|| error(format!("{what}: a frame of the wrong size")));
                }
            }
            drop(frames);
            if start.elapsed() > TIMEOUT {
                return Err(error(format!("{what}: the drawing never settled")));
            }
        }
    }

    fn lock_frames(&self) -> std::sync::MutexGuard<'_, Frames> {
        // A poisoned lock only means an observer panicked mid-copy: the count still holds.
        self.frames
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The camera drawing into a `size`² target image read back into `frames` every frame, and
/// the lights: a key light from the front right above, a dimmer fill from the back left.
fn spawn_rig(app: &mut App, settings: &CompareSettings, frames: Arc<Mutex<Frames>>) -> Entity {
    let size = settings.size;
    let world = app.world_mut();
    let mut target = Image::new_target_texture(size, size, TextureFormat::Rgba8UnormSrgb, None);
    target.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let target = world.resource_mut::<Assets<Image>>().add(target);
    let camera = world
        .spawn((
            Camera3d::default(),
            Camera {
                clear_color: ClearColorConfig::Custom(CLEAR),
                ..Camera::default()
            },
            RenderTarget::Image(target.clone().into()),
            // Tony McMapface, Bevy's default, needs the `tonemapping_luts` feature.
            Tonemapping::AcesFitted,
        ))
        .id();
    set_ambient(world, camera, settings.ambient);
    for (from, illuminance) in [
        (Vec3::new(0.6, 0.9, 0.8), 6000.0),
        (Vec3::new(-0.8, 0.3, -0.6), 2000.0),
    ] {
        world.spawn((
            DirectionalLight {
                illuminance,
                shadow_maps_enabled: false,
                ..DirectionalLight::default()
            },
            Transform::from_translation(from).looking_at(Vec3::ZERO, Vec3::Y),
        ));
    }
    world
        .spawn(Readback::texture(target))
        .observe(move |event: On<ReadbackComplete>| {
            let mut frames = frames
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            frames.count += 1;
            frames.last.clone_from(&event.data);
        });
    camera
}

/// Gives `camera` an ambient light of `brightness` (`None`: Bevy's global one).
fn set_ambient(world: &mut bevy::ecs::world::World, camera: Entity, brightness: Option<f32>) {
    let mut camera = world.entity_mut(camera);
    match brightness {
        Some(brightness) => {
            camera.insert(bevy::light::AmbientLight {
                brightness,
                ..bevy::light::AmbientLight::default()
            });
        }
        None => {
            camera.remove::<bevy::light::AmbientLight>();
        }
    }
}

/// Registers for reflection the components of Bevy's glTF scenes (the plugin registers its
/// own): spawning a scene copies its components through reflection, and Bevy with
/// `default-features = false` (no `reflect_auto_register`) registers few of them.
fn register_scene_types(app: &mut App) {
    use bevy::gltf::{
        GltfExtras, GltfMaterialExtras, GltfMaterialName, GltfMeshExtras, GltfMeshName,
        GltfSceneExtras, GltfSceneName,
    };
    app.register_type::<GltfExtras>()
        .register_type::<GltfSceneExtras>()
        .register_type::<GltfSceneName>()
        .register_type::<GltfMeshExtras>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfMaterialExtras>()
        .register_type::<GltfMaterialName>();
}

/// The components on `scene`'s entities that the app's type registry cannot copy (spawning it
/// would panic on them), as Bevy's scene spawner picks them.
fn unregistered_components(
    world: &bevy::ecs::world::World,
    scene: &Handle<WorldAsset>,
) -> Vec<String> {
    use bevy::ecs::component::ComponentCloneBehavior;
    use bevy::ecs::reflect::{AppTypeRegistry, ReflectComponent};
    use bevy::ecs::resource::IS_RESOURCE;
    let Some(scene) = world.resource::<Assets<WorldAsset>>().get(scene) else {
        return Vec::new();
    };
    let registry = world.resource::<AppTypeRegistry>().read();
    let components = scene.world.components();
    let mut missing: Vec<String> = scene
        .world
        .archetypes()
        .iter()
        // Resources are entities too; the spawner copies them apart (and a scene has none).
        .filter(|archetype| !archetype.is_empty() && !archetype.contains(IS_RESOURCE))
        .flat_map(|archetype| archetype.iter_components())
        .filter_map(|id| components.get_info(id))
        .filter(|info| !matches!(info.clone_behavior(), ComponentCloneBehavior::Ignore))
        .filter(|info| {
            info.type_id()
                .and_then(|id| registry.get(id))
                .and_then(|registration| registration.data::<ReflectComponent>())
                .is_none()
        })
        .map(|info| format!("{} {:?}", info.name(), info.type_id()))
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

/// A read-back frame without the row padding of the GPU copy (rows of 256-byte multiples).
fn unpad(data: &[u8], width: u32, height: u32) -> Option<Rgba8> {
    let row = width as usize * 4;
    let padded = row.div_ceil(256) * 256;
    if data.len() < padded * (height as usize - 1) + row {
        return None;
    }
    let pixels = (0..height as usize)
        .flat_map(|y| &data[y * padded..y * padded + row])
        .copied()
        .collect();
    Some(Rgba8 {
        width,
        height,
        pixels,
    })
}

/// The name of the adapter `backends` give that matches `wanted` (any adapter when `None`):
/// an error listing what there is when none does.
fn find_adapter(backends: Backends, wanted: Option<&str>) -> Result<String, CompareError> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapters: Vec<wgpu::AdapterInfo> =
        bevy::tasks::block_on(instance.enumerate_adapters(backends))
            .iter()
            .map(wgpu::Adapter::get_info)
            .collect();
    let found = adapters.iter().find(|info| {
        wanted.is_none_or(|name| info.name.to_lowercase().contains(&name.to_lowercase()))
    });
    match found {
        Some(info) => Ok(info.name.clone()),
        None => Err(error(format!(
            "no GPU adapter{} on {backends:?} (found: {:?}); without a GPU, install Mesa's \
             software Vulkan driver, lavapipe (Debian: mesa-vulkan-drivers)",
            wanted.map_or(String::new(), |name| format!(" named like {name:?}")),
            adapters.iter().map(|a| &a.name).collect::<Vec<_>>()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(pixels: &[[u8; 4]]) -> Rgba8 {
        Rgba8 {
            width: pixels.len() as u32,
            height: 1,
            pixels: pixels.concat(),
        }
    }

    #[test]
    fn psnr_is_infinite_for_equal_images_and_falls_with_the_error() {
        let a = image(&[[10, 20, 30, 255], [40, 50, 60, 255]]);
        assert_eq!(a.psnr(&a), Some(f64::INFINITY));
        // One channel off by 255 among six: MSE 255²/6, so 10·log10(6) dB; alpha is ignored.
        let black = image(&[[0, 0, 0, 255], [0, 0, 0, 255]]);
        let one_off = image(&[[0, 0, 0, 0], [0, 255, 0, 255]]);
        assert!((black.psnr(&one_off).unwrap() - 10.0 * 6.0f64.log10()).abs() < 1e-9);
        let off_by_one = image(&[[11, 21, 31, 255], [41, 51, 61, 255]]);
        assert!((a.psnr(&off_by_one).unwrap() - 48.1308).abs() < 1e-3);
        assert_eq!(a.psnr(&image(&[[0; 4]])), None);
    }

    #[test]
    fn unpad_drops_the_row_padding() {
        let mut data = vec![7u8; 256 * 2];
        data[256..260].copy_from_slice(&[1, 2, 3, 4]);
        let image = unpad(&data, 2, 2).unwrap();
        assert_eq!(
            image.pixels,
            [vec![7; 8], vec![1, 2, 3, 4, 7, 7, 7, 7]].concat()
        );
        assert_eq!(unpad(&data[..263], 2, 2), None);
        assert!(unpad(&data[..264], 2, 2).is_some());
    }
}
