//! Loading by hearth name: a name in the pack's name table (`assets.hnames`) as the asset
//! path of the file (and label) it names.

use crate::animation::animation_label;
use crate::material::material_label;
use crate::reader::Served;
use crate::{
    HearthAnimations, HearthFont, HearthLoadError, HearthMaterials, HearthModel, HearthScene,
};
use bevy::animation::AnimationClip;
use bevy::asset::io::AssetSourceId;
use bevy::asset::{Asset, AssetPath, AssetServer, Handle};
use bevy::ecs::resource::Resource;
use bevy::image::Image;
use bevy::pbr::StandardMaterial;
use bevy::world_serialization::WorldAsset;
use hearth::AssetKind;

/// An asset type a hearth name can load: the kinds of name it takes, and where in the named
/// file it is.
pub trait ByName: Asset {
    /// The kinds of name row it loads, in ascending kind order: a name of several of them (a
    /// model and a scene both `Level`, as a [`WorldAsset`]) is the lowest kind's, as
    /// [`hearth::NameTable::lookup`] picks. A model's mesh, material table and clips share a
    /// name; each type names the kind it loads.
    const KINDS: &'static [AssetKind];

    /// The label inside the named file, a row of `kind` (one of [`KINDS`](Self::KINDS)): `sub`
    /// is a sub-asset name's material row or clip index, `None` for a whole file's name. An
    /// error says which type loads that name.
    fn label(kind: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str>;
}

/// A whole file's name only.
fn whole(sub: Option<u32>, what: &'static str) -> Result<Option<String>, &'static str> {
    match sub {
        None => Ok(None),
        Some(_) => Err(what),
    }
}

impl ByName for HearthModel {
    const KINDS: &'static [AssetKind] = &[AssetKind::MESH];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a model")
    }
}

/// A model's or a scene's name as its `#Scene`.
impl ByName for WorldAsset {
    const KINDS: &'static [AssetKind] = &[AssetKind::MESH, AssetKind::SCENE];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a model or a scene").map(|_| Some("Scene".to_owned()))
    }
}

impl ByName for HearthScene {
    const KINDS: &'static [AssetKind] = &[AssetKind::SCENE];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a scene")
    }
}

impl ByName for HearthFont {
    const KINDS: &'static [AssetKind] = &[AssetKind::FONT];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a font")
    }
}

impl ByName for HearthAnimations {
    const KINDS: &'static [AssetKind] = &[AssetKind::ANIMATION];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "one clip: load it as an AnimationClip")
    }
}

/// A clip's name (`Fox#Survey`).
impl ByName for AnimationClip {
    const KINDS: &'static [AssetKind] = &[AssetKind::ANIMATION];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        match sub {
            Some(clip) => Ok(Some(animation_label(clip as usize))),
            None => Err("a whole .hanim: load it as HearthAnimations"),
        }
    }
}

impl ByName for HearthMaterials {
    const KINDS: &'static [AssetKind] = &[AssetKind::MATERIAL];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "one material: load it as a StandardMaterial")
    }
}

/// A material row's name.
impl ByName for StandardMaterial {
    const KINDS: &'static [AssetKind] = &[AssetKind::MATERIAL];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        match sub {
            Some(row) => Ok(Some(material_label(row as usize))),
            None => Err("a whole .hmat: load it as HearthMaterials"),
        }
    }
}

/// A texture's name, a font's page among them (`ui#page_0`: the page's `.ktx2`).
impl ByName for Image {
    const KINDS: &'static [AssetKind] = &[AssetKind::TEXTURE];
    fn label(_: AssetKind, sub: Option<u32>) -> Result<Option<String>, &'static str> {
        whole(sub, "a sub-asset, not a texture")
    }
}

/// The kinds, for an error: `mesh or scene`.
fn kind_list(kinds: &[AssetKind]) -> String {
    kinds
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
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
    /// scene, `hearth://levels/one.hscene#Scene` for a scene's); an error names `name` when
    /// the table has no such name of `A`'s kinds or the name is of a sub-asset `A` is not.
    pub fn path<A: ByName>(&self, name: &str) -> Result<AssetPath<'static>, HearthLoadError> {
        let generation = self.served.current();
        let mut record = None;
        for &kind in A::KINDS {
            record = generation
                .lookup_name(name, Some(kind))
                .map_err(|e| HearthLoadError::new(name, e))?;
            if record.is_some() {
                break;
            }
        }
        let record = record.ok_or_else(|| {
            HearthLoadError::new(
                name,
                format!("no such name of kind {}", kind_list(A::KINDS)),
            )
        })?;
        let label = A::label(record.kind, record.sub).map_err(|e| HearthLoadError::new(name, e))?;
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
