//! Loading by hearth name: a name in the pack's name table (`assets.hnames`) as the asset
//! path of the file (and label) it names.

use crate::animation::animation_label;
use crate::material::material_label;
use crate::reader::Served;
use crate::{HearthAnimations, HearthLoadError, HearthMaterials, HearthModel};
use bevy::animation::AnimationClip;
use bevy::asset::io::AssetSourceId;
use bevy::asset::{Asset, AssetPath, AssetServer, Handle};
use bevy::ecs::resource::Resource;
use bevy::image::Image;
use bevy::pbr::StandardMaterial;
use bevy::world_serialization::WorldAsset;
use hearth::AssetKind;

/// An asset type a hearth name can load: the kind of name it takes, and where in the named
/// file it is.
pub trait ByName: Asset {
    /// The kind of the name's row (a model's mesh, material table and clips share a name).
    const KIND: AssetKind;

    /// The label inside the named file: `sub` is a sub-asset name's material row or clip
    /// index, `None` for a whole file's name. An error says which type loads that name.
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str>;
}

/// A whole file's name only.
fn whole(sub: Option<u32>, what: &'static str) -> Result<Option<String>, &'static str> {
    match sub {
        None => Ok(None),
        Some(_) => Err(what),
    }
}

impl ByName for HearthModel {
    const KIND: AssetKind = AssetKind::MESH;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a model")
    }
}

/// A model's name as its `#Scene`.
impl ByName for WorldAsset {
    const KIND: AssetKind = AssetKind::MESH;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a model").map(|_| Some("Scene".to_owned()))
    }
}

impl ByName for HearthAnimations {
    const KIND: AssetKind = AssetKind::ANIMATION;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "one clip: load it as an AnimationClip")
    }
}

/// A clip's name (`Fox#Survey`).
impl ByName for AnimationClip {
    const KIND: AssetKind = AssetKind::ANIMATION;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        match sub {
            Some(clip) => Ok(Some(animation_label(clip as usize))),
            None => Err("a whole .hanim: load it as HearthAnimations"),
        }
    }
}

impl ByName for HearthMaterials {
    const KIND: AssetKind = AssetKind::MATERIAL;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "one material: load it as a StandardMaterial")
    }
}

/// A material row's name.
impl ByName for StandardMaterial {
    const KIND: AssetKind = AssetKind::MATERIAL;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        match sub {
            Some(row) => Ok(Some(material_label(row as usize))),
            None => Err("a whole .hmat: load it as HearthMaterials"),
        }
    }
}

impl ByName for Image {
    const KIND: AssetKind = AssetKind::TEXTURE;
    fn label(sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a texture")
    }
}

/// Resolves hearth names through the served pack's (or tree's) name table, at its current
/// generation. [`HearthPlugin`](crate::HearthPlugin) inserts it as a resource.
///
/// ```no_run
/// # use bevy::prelude::*;
/// fn spawn_fox(mut commands: Commands, server: Res<AssetServer>, names: Res<bevy_hearth::HearthNames>) {
///     let scene = names.load::<bevy::world_serialization::WorldAsset>(&server, "Fox").unwrap();
///     commands.spawn(bevy::world_serialization::WorldAssetRoot(scene));
/// }
/// ```
#[derive(Resource, Clone, Debug)]
pub struct HearthNames {
    served: Served,
    source: &'static str,
}

impl HearthNames {
    pub(crate) fn new(served: Served, source: &'static str) -> Self {
        Self { served, source }
    }

    /// The asset path `name` loads as `A` (`hearth://models/fox.hmesh#Scene` for a model's
    /// scene); an error names `name` when the table has no such name of `A`'s kind or the
    /// name is of a sub-asset `A` is not.
    pub fn path<A: ByName>(&self, name: &str) -> Result<AssetPath<'static>, HearthLoadError> {
        let record = self
            .served
            .current()
            .lookup_name(name, Some(A::KIND))
            .map_err(|e| HearthLoadError::new(name, e))?
            .ok_or_else(|| {
                HearthLoadError::new(name, format!("no such name of kind {}", A::KIND))
            })?;
        let label = A::label(record.sub).map_err(|e| HearthLoadError::new(name, e))?;
        let path = AssetPath::from(record.path.to_string())
            .with_source(AssetSourceId::from(self.source))
            .into_owned();
        Ok(match label {
            Some(label) => path.with_label(label),
            None => path,
        })
    }

    /// Loads `name` as `A` through `server` (see [`path`](Self::path)).
    pub fn load<A: ByName>(
        &self,
        server: &AssetServer,
        name: &str,
    ) -> Result<Handle<A>, HearthLoadError> {
        Ok(server.load(self.path::<A>(name)?))
    }
}
