//! Load what hearth bakes into [Bevy](https://bevy.org) 0.19: a pack or a runtime tree as an
//! asset source, `.hmesh` as meshes and a spawnable scene, `.hmat` as `StandardMaterial`s;
//! `.ktx2` textures go through Bevy's own KTX2 loader (zstd, UASTC transcoded).
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
//! only the vertices it uses, with joints and weights when skinned), `InverseBindposes` (a
//! skinned mesh's), `Scene` (a [`WorldAsset`]: one entity per submesh with its mesh, material
//! and `SkinnedMesh`, and one entity per joint in its bind pose). Labels of a `.hmat` (root asset [`HearthMaterials`]): `Material{i}` (a
//! [`StandardMaterial`] per row, which is the mesh's material slot `i`).

#[cfg(feature = "compare")]
pub mod compare;
mod material;
mod mesh;
mod reader;

pub use material::{HearthMaterialLoader, HearthMaterials};
pub use mesh::{HearthMeshLoader, HearthModel};
pub use reader::HearthReader;

use bevy::app::{App, Plugin};
use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::{AssetApp, Assets};
use bevy::image::Image;
use bevy::mesh::Mesh;
use bevy::pbr::StandardMaterial;
use bevy::world_serialization::WorldAsset;
use std::path::Path;
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
    assets: Arc<hearth::Assets>,
    source: &'static str,
}

impl HearthPlugin {
    /// Serves `assets` (a [`hearth::PakReader`] or [`hearth::TreeReader`], as
    /// [`hearth::Assets`]) as the source [`DEFAULT_SOURCE`].
    pub fn new(assets: impl Into<hearth::Assets>) -> Self {
        Self {
            assets: Arc::new(assets.into()),
            source: DEFAULT_SOURCE,
        }
    }

    /// Opens a `.hpack` (mapped) or a bake's output folder (read file by file, for debug
    /// builds) and serves it as [`DEFAULT_SOURCE`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, hearth::ReadError> {
        Ok(Self::new(hearth::Assets::open(path)?))
    }

    /// Serves it under another source name (`name://path`).
    pub fn with_source_name(mut self, name: &'static str) -> Self {
        self.source = name;
        self
    }

    /// The pack or tree it serves.
    pub fn assets(&self) -> &Arc<hearth::Assets> {
        &self.assets
    }
}

impl Plugin for HearthPlugin {
    fn build(&self, app: &mut App) {
        let assets = self.assets.clone();
        app.register_asset_source(
            self.source,
            AssetSourceBuilder::new(move || Box::new(HearthReader::new(assets.clone()))),
        );
    }

    fn finish(&self, app: &mut App) {
        init_asset_once::<Mesh>(app);
        init_asset_once::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>(app);
        init_asset_once::<StandardMaterial>(app);
        init_asset_once::<Image>(app);
        init_asset_once::<WorldAsset>(app);
        init_asset_once::<HearthModel>(app);
        init_asset_once::<HearthMaterials>(app);
        app.init_asset_loader::<HearthMeshLoader>()
            .init_asset_loader::<HearthMaterialLoader>();
    }
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
