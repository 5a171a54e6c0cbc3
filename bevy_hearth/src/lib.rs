//! Load what hearth bakes into [Bevy](https://bevy.org) 0.19: a pack or a runtime tree as an
//! asset source, `.hmesh` as meshes and a spawnable scene, `.hmat` as `StandardMaterial`s,
//! `.hanim` as `AnimationClip`s;
//! `.ktx2` textures as `Image`s: UASTC transcoded on every core by [`HearthKtx2Loader`] to
//! what the device samples, other formats through Bevy's own KTX2 loader.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_hearth::HearthPlugin;
//!
//! App::new()
//!     // Before `DefaultPlugins`: Bevy builds its asset sources when `AssetPlugin` is added.
//!     .add_plugins(HearthPlugin::open("assets.hpack").expect("the pack opens"))
//!     .add_plugins(DefaultPlugins)
//!     .add_systems(Startup, |mut commands: Commands, server: Res<AssetServer>| {
//!         let scene = server.load("hearth://models/fox.hmesh#Scene");
//!         commands.spawn(bevy::world_serialization::WorldAssetRoot(scene));
//!     })
//!     .run();
//! ```
//!
//! Labels of a `.hmesh` (root asset [`HearthModel`]): `Submesh{i}` (a [`Mesh`] per submesh,
//! only the vertices it uses, with joints and weights when skinned), `Submesh{i}MaterialUvs`
//! (the same with UV0 and UV1 rewritten for its material, where that material's texture slots
//! use two UV transforms, which one `StandardMaterial` cannot hold), `InverseBindposes` (a
//! skinned mesh's), `Scene` (a [`WorldAsset`]: one entity per submesh with its mesh, material
//! and `SkinnedMesh`, and one entity per joint in its bind pose; morph targets' weights on the
//! root). Labels of a `.hmat` (root asset [`HearthMaterials`]): `Material{i}` (a
//! [`StandardMaterial`] per row, which is the mesh's material slot `i`). Labels of a `.hanim`
//! (root asset [`HearthAnimations`]): `Animation{i}` (an `AnimationClip` targeting the
//! entities of the model's `#Scene`). Labels of a `.hscene` (root asset [`HearthScene`]):
//! `Scene` (a [`WorldAsset`]: one entity per reference with its transform and a
//! [`HearthSceneNode`], its mesh's model under it drawn with the reference's materials in
//! place of the model's slots, and one per geometry record), `Geometry{i}`. Labels of a
//! `.hfont` (root asset [`HearthFont`]: glyphs, kerning, line height): `Page{i}` (an
//! [`Image`]). [`HearthNames`] loads by hearth name (models, scenes, fonts, clips,
//! materials, textures); [`HearthPlugin::hot`] reloads a pack's changed assets when a bake
//! replaces it, and a runtime tree's folder is watched (feature `watch`) when Bevy watches
//! for changes.

mod animation;
#[cfg(feature = "compare")]
pub mod compare;
mod cpu_decode;
mod font;
#[cfg(feature = "watch")]
mod hot;
mod joints;
#[cfg(feature = "compare")]
pub mod loadtime;
mod material;
mod mesh;
mod names;
mod reader;
mod scene;
mod texture;
mod uv;

pub use animation::{animation_label, HearthAnimationLoader, HearthAnimations};
pub use font::{page_label, HearthFont, HearthFontLoader, HearthGlyph};
pub use joints::{joint_target_ids, root_target_id};
pub use material::{HearthMaterialLoader, HearthMaterials};
pub use mesh::{HearthMeshLoader, HearthModel};
pub use names::{ByName, HearthNames};
pub use reader::{Generation, HearthReader, Served};
pub use scene::{HearthScene, HearthSceneLoader, HearthSceneNode, SceneValue};
pub use texture::HearthKtx2Loader;

use bevy::app::{App, Plugin};
use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::{AssetApp, Assets};
use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats, Image};
use bevy::mesh::Mesh;
use bevy::pbr::StandardMaterial;
use bevy::world_serialization::WorldAsset;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The asset source name [`HearthPlugin`] registers by default: paths read
/// `hearth://models/fox.hmesh`.
pub const DEFAULT_SOURCE: &str = "hearth";

/// Serves a hearth pack or runtime tree to Bevy as an asset source and registers the `.hmesh`
/// and `.hmat` loaders.
///
/// Add it before `DefaultPlugins` (or `AssetPlugin`): Bevy builds its asset sources when
/// `AssetPlugin` is added. The loaders are registered in [`Plugin::finish`], so they also work
/// for a runtime tree served by Bevy's own file source.
pub struct HearthPlugin {
    served: Served,
    source: &'static str,
    /// Set once [`HearthKtx2Loader`] is registered: the source's readers then send `.ktx2`
    /// entries to it.
    ktx2_loader: Arc<AtomicBool>,
    /// The pack to follow, for hot reload (taken by the source's watcher when Bevy builds it).
    #[cfg(feature = "watch")]
    hot: Option<std::sync::Arc<std::sync::Mutex<Option<hearth::read::hot::HotPack>>>>,
}

impl HearthPlugin {
    /// Serves `assets` (a [`hearth::PakReader`] or [`hearth::TreeReader`], as
    /// [`hearth::Assets`]) as the source [`DEFAULT_SOURCE`].
    pub fn new(assets: impl Into<hearth::Assets>) -> Self {
        Self {
            served: Served::new(Generation::Assets(Arc::new(assets.into()))),
            source: DEFAULT_SOURCE,
            ktx2_loader: Arc::default(),
            #[cfg(feature = "watch")]
            hot: None,
        }
    }

    /// Opens a `.hpack` (mapped) or a bake's output folder (read file by file, for debug
    /// builds; a pack-only bake's folder opens as its pack) and serves it as
    /// [`DEFAULT_SOURCE`]. A folder is followed when Bevy watches for
    /// changes (feature `watch`; see [`hot`](Self::hot)): its changed, added and removed files
    /// go to Bevy as the source's events, debounced, and a changed manifest reopens it.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, hearth::ReadError> {
        Ok(Self::new(hearth::Assets::open(path)?))
    }

    /// Opens the signed `.hpack` at `path` (mapped), checking its signature against `key`
    /// (feature `verify`), and serves it as [`DEFAULT_SOURCE`]. An unsigned pack, one signed
    /// by another key, or a changed header or table byte is an error naming the file; each
    /// entry's bytes are checked against their signed digest before Bevy first reads them, so
    /// a changed payload fails that asset's load (naming it). For an embedded pack, serve
    /// [`hearth::PakReader::from_static_signed`] with [`new`](Self::new).
    #[cfg(feature = "verify")]
    pub fn open_signed(
        path: impl AsRef<Path>,
        key: &hearth::PublicKey,
    ) -> Result<Self, hearth::ReadError> {
        let path = path.as_ref();
        let pack = hearth::PakReader::open_signed(path, key).map_err(|error| {
            hearth::ReadError::Asset {
                asset: path.display().to_string().into(),
                error: Arc::new(error),
            }
        })?;
        Ok(Self::new(pack))
    }

    /// Serves the `.hpack` at `path` and follows it across bakes (feature `watch`): when a
    /// bake replaces the pack, the source serves the new one and tells Bevy which entries
    /// changed, were added or removed, so Bevy reloads the assets loaded from them (and
    /// sends their `AssetEvent`s). Bevy only builds a source's watcher when it watches for
    /// changes: its `file_watcher` or `watch` feature, or
    /// `AssetPlugin { watch_for_changes_override: Some(true), .. }`.
    #[cfg(feature = "watch")]
    pub fn hot(path: impl AsRef<Path>) -> Result<Self, hearth::ReadError> {
        let hot = hearth::read::hot::HotPack::open(path)?;
        Ok(Self {
            served: Served::new(Generation::Pack(hot.pack())),
            source: DEFAULT_SOURCE,
            ktx2_loader: Arc::default(),
            hot: Some(Arc::new(std::sync::Mutex::new(Some(hot)))),
        })
    }

    /// Serves it under another source name (`name://path`).
    pub fn with_source_name(mut self, name: &'static str) -> Self {
        self.source = name;
        self
    }

    /// The pack or tree it serves, at its current generation.
    pub fn assets(&self) -> Generation {
        self.served.current()
    }

    /// Name lookups in what it serves (also a resource once the plugin is added).
    pub fn names(&self) -> HearthNames {
        HearthNames::new(self.served.clone(), self.source)
    }
}

impl Plugin for HearthPlugin {
    fn build(&self, app: &mut App) {
        let (served, ktx2_loader) = (self.served.clone(), self.ktx2_loader.clone());
        let builder = AssetSourceBuilder::new(move || {
            let reader = HearthReader::serving(served.clone());
            Box::new(reader.with_ktx2_loader(ktx2_loader.clone()))
        });
        #[cfg(feature = "watch")]
        let builder = match &self.hot {
            Some(hot) => {
                let (pending, served) = (hot.clone(), self.served.clone());
                builder.with_watcher(move |events| {
                    // Bevy builds a source's watcher once; a second build has nothing to follow.
                    let pack = pending.lock().ok()?.take()?;
                    hot::watch(pack, served.clone(), events)
                })
            }
            None => match self.served.current() {
                Generation::Assets(assets) => match &*assets {
                    hearth::Assets::Tree(tree) => {
                        let (root, served) = (tree.root().to_path_buf(), self.served.clone());
                        builder.with_watcher(move |events| {
                            hot::watch_tree(&root, served.clone(), events)
                        })
                    }
                    hearth::Assets::Pack(_) => builder,
                },
                Generation::Pack(_) => builder,
            },
        };
        app.register_asset_source(self.source, builder);
        app.insert_resource(self.names());
        register_scene_components(app);
    }

    fn finish(&self, app: &mut App) {
        init_asset_once::<Mesh>(app);
        init_asset_once::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>(app);
        init_asset_once::<StandardMaterial>(app);
        init_asset_once::<Image>(app);
        init_asset_once::<WorldAsset>(app);
        init_asset_once::<HearthModel>(app);
        init_asset_once::<HearthMaterials>(app);
        init_asset_once::<bevy::animation::AnimationClip>(app);
        init_asset_once::<HearthAnimations>(app);
        init_asset_once::<HearthScene>(app);
        init_asset_once::<HearthFont>(app);
        app.init_asset_loader::<HearthMeshLoader>()
            .init_asset_loader::<HearthSceneLoader>()
            .init_asset_loader::<HearthFontLoader>()
            .init_asset_loader::<HearthMaterialLoader>()
            .init_asset_loader::<HearthAnimationLoader>();
    }

    /// The pack's `.ktx2` loader, registered after every plugin's `finish`: Bevy's renderer
    /// says in its `finish` which compressed formats the device samples (none known without
    /// a renderer, as for Bevy's own image loader: RGBA8).
    fn cleanup(&self, app: &mut App) {
        let formats = app
            .world()
            .get_resource::<CompressedImageFormatSupport>()
            .map_or(CompressedImageFormats::NONE, |support| support.0);
        app.register_asset_loader(HearthKtx2Loader::new(formats));
        self.ktx2_loader.store(true, Ordering::Release);
    }
}

/// Registers for reflection the components the `#Scene`s of an `.hscene` and an `.hmesh` hold,
/// with the ones Bevy requires beside them (transforms, visibility, bounds): spawning a scene
/// copies them by reflection, and Bevy's minimal features register few of them (a windowed app
/// panicked on the first spawn without these).
fn register_scene_components(app: &mut App) {
    use bevy::camera::primitives::Aabb;
    use bevy::camera::visibility::{
        DynamicSkinnedMeshBounds, InheritedVisibility, NoFrustumCulling, ViewVisibility,
        Visibility, VisibilityClass,
    };
    use bevy::ecs::hierarchy::{ChildOf, Children};
    use bevy::ecs::name::Name;
    use bevy::transform::components::{GlobalTransform, Transform, TransformTreeChanged};
    app.register_type::<HearthSceneNode>()
        .register_type::<bevy::world_serialization::WorldAssetRoot>()
        .register_type::<bevy::mesh::Mesh3d>()
        .register_type::<bevy::pbr::MeshMaterial3d<StandardMaterial>>()
        .register_type::<bevy::mesh::skinning::SkinnedMesh>()
        .register_type::<bevy::mesh::morph::MorphWeights>()
        .register_type::<bevy::mesh::morph::MeshMorphWeights>()
        .register_type::<bevy::animation::AnimationPlayer>()
        .register_type::<bevy::animation::AnimatedBy>()
        .register_type::<bevy::animation::AnimationTargetId>()
        .register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<TransformTreeChanged>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<VisibilityClass>()
        .register_type::<NoFrustumCulling>()
        .register_type::<DynamicSkinnedMeshBounds>()
        .register_type::<Aabb>();
}

/// Registers asset type `A` unless a plugin did (a second `init_asset` would replace its
/// storage). Headless apps without the render plugins need it.
fn init_asset_once<A: bevy::asset::Asset>(app: &mut App) {
    if !app.world().contains_resource::<Assets<A>>() {
        app.init_asset::<A>();
    }
}

/// Why a hearth asset did not load: the asset's path and what was wrong.
#[derive(Debug)]
pub struct HearthLoadError {
    path: String,
    message: String,
}

impl HearthLoadError {
    pub(crate) fn new(path: impl std::fmt::Display, message: impl std::fmt::Display) -> Self {
        Self {
            path: path.to_string(),
            message: message.to_string(),
        }
    }
}

impl std::fmt::Display for HearthLoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for HearthLoadError {}

/// The whole file behind `reader`, validated as hearth's `T` (what every loader starts with);
/// errors name the file.
pub(crate) async fn read_asset<T: hearth::LoadAsset>(
    reader: &mut dyn bevy::asset::io::Reader,
    path: &bevy::asset::AssetPath<'_>,
) -> Result<T, HearthLoadError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| HearthLoadError::new(path, e))?;
    T::from_asset(&path.to_string(), hearth::AssetBytes::from_vec(bytes))
        .map_err(|e| HearthLoadError::new(path, e))
}
