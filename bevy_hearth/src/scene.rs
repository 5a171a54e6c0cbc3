//! `.hscene` → a spawnable [`WorldAsset`]: one entity per placed reference (its model's
//! `#Scene` under it) and per custom geometry record, with their transforms, tags and data.

use crate::HearthLoadError;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext, RenderAssetUsages};
use bevy::ecs::component::Component;
use bevy::ecs::reflect::ReflectComponent;
use bevy::ecs::world::World;
use bevy::image::Image;
use bevy::math::{Quat, Vec3};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::pbr::StandardMaterial;
use bevy::prelude::{ChildOf, Name, Transform};
use bevy::reflect::std_traits::ReflectDefault;
use bevy::reflect::{Reflect, TypePath};
use bevy::world_serialization::{WorldAsset, WorldAssetRoot};
use hearth::format::hman;
use hearth::format::hscene::ValueKind;
use hearth::read::scene::{SceneGeometry, SceneRef, Value};
use hearth::AssetKind;

/// A loaded `.hscene`: the scene to spawn (label `Scene`) and its custom geometry as meshes
/// (labels `Geometry{i}`).
#[derive(Asset, TypePath, Debug)]
pub struct HearthScene {
    /// The scene: a root named after the file stem, one child per reference, then one per
    /// geometry record, in file order.
    pub scene: Handle<WorldAsset>,
    /// Each geometry record as a triangle-list mesh (positions and indices), in order.
    pub geometry: Vec<Handle<Mesh>>,
}

/// What an `.hscene` entity carries beyond its `Name` and `Transform`.
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
pub struct HearthSceneNode {
    /// The record's id (empty: none; the entity's `Name` is then `ref{i}` or `geometry{i}`).
    pub id: String,
    /// Its tags, in file order.
    pub tags: Vec<String>,
    /// Its custom data.
    pub data: Option<SceneValue>,
    /// A reference's materials, in file order: a `.hmat`'s first row, or a texture as a
    /// material's base colour. They are not applied to the model spawned under the entity
    /// (which keeps its own `.hmat`); the game decides what they mean.
    pub materials: Vec<Handle<StandardMaterial>>,
    /// A geometry record's mesh (not rendered: no `Mesh3d`; for colliders, nav meshes …).
    pub geometry: Option<Handle<Mesh>>,
}

/// A value of an `.hscene`'s custom data, owned.
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(opaque)]
#[reflect(Clone, Debug, PartialEq)]
pub enum SceneValue {
    /// Text.
    String(String),
    /// An integer.
    Integer(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A list.
    Array(Vec<SceneValue>),
    /// Members by key, sorted by key.
    Table(Vec<(String, SceneValue)>),
}

/// How deep data may nest (arrays and tables in one another) before the load fails.
const MAX_DATA_DEPTH: usize = 64;

impl SceneValue {
    /// `value` owned; `None` deeper than `depth_left` levels.
    fn of(value: Value<'_>, depth_left: usize) -> Option<Self> {
        fn children(value: Value<'_>, depth_left: usize) -> Option<Vec<Value<'_>>> {
            (depth_left > 1).then(|| value.iter().collect())
        }
        Some(match value.kind() {
            ValueKind::String => Self::String(value.as_str()?.to_owned()),
            ValueKind::Integer => Self::Integer(value.as_i64()?),
            ValueKind::Float => Self::Float(value.as_f64()?),
            ValueKind::Bool => Self::Bool(value.as_bool()?),
            ValueKind::Array => Self::Array(
                children(value, depth_left)?
                    .into_iter()
                    .map(|item| Self::of(item, depth_left - 1))
                    .collect::<Option<_>>()?,
            ),
            ValueKind::Table => Self::Table(
                children(value, depth_left)?
                    .into_iter()
                    .map(|item| Some((item.key().to_owned(), Self::of(item, depth_left - 1)?)))
                    .collect::<Option<_>>()?,
            ),
        })
    }
}

/// Loads `.hscene` files as [`HearthScene`]s.
#[derive(Default, TypePath)]
pub struct HearthSceneLoader;

impl AssetLoader for HearthSceneLoader {
    type Asset = HearthScene;
    type Settings = ();
    type Error = HearthLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<HearthScene, HearthLoadError> {
        let path = load_context.path().clone();
        let scene: hearth::Scene = crate::read_asset(reader, &path).await?;
        let view = scene.view();
        let hashes = view
            .refs()
            .flat_map(|r| r.mesh().into_iter().chain(r.materials()))
            .collect::<Vec<_>>();
        let manifest = if hashes.is_empty() {
            Vec::new()
        } else {
            manifest_rows(load_context).await?
        };
        let mut geometry = Vec::with_capacity(view.geometry_count());
        for (i, record) in view.geometry().enumerate() {
            let mesh = geometry_mesh(&record)
                .map_err(|e| HearthLoadError::new(&path, format!("geometry {i}: {e}")))?;
            geometry.push(load_context.add_labeled_asset(format!("Geometry{i}"), mesh));
        }
        let mut world = World::new();
        let name = path
            .path()
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let root = world.spawn((Transform::default(), Name::new(name))).id();
        for (i, placed) in view.refs().enumerate() {
            let (name, transform, node, model) = ref_entity(load_context, &manifest, i, &placed)
                .map_err(|e| HearthLoadError::new(&path, format!("ref {i}: {e}")))?;
            let mut entity = world.spawn((name, transform, node, ChildOf(root)));
            if let Some(model) = model {
                entity.insert(model);
            }
        }
        for (i, (record, mesh)) in view.geometry().zip(&geometry).enumerate() {
            let [x, y, z, w] = record.rotation();
            let node = HearthSceneNode {
                id: record.id().to_owned(),
                tags: record.tags().into_iter().map(str::to_owned).collect(),
                data: owned_data(record.data())
                    .map_err(|e| HearthLoadError::new(&path, format!("geometry {i}: {e}")))?,
                materials: Vec::new(),
                geometry: Some(mesh.clone()),
            };
            world.spawn((
                entity_name(&node.id, "geometry", i),
                Transform::from_translation(Vec3::from(record.translation()))
                    .with_rotation(Quat::from_xyzw(x, y, z, w)),
                node,
                ChildOf(root),
            ));
        }
        let scene = load_context.add_labeled_asset("Scene".to_owned(), WorldAsset::new(world));
        Ok(HearthScene { scene, geometry })
    }

    fn extensions(&self) -> &[&str] {
        &["hscene"]
    }
}

/// The entity's name: its id, or `{what}{i}` without one.
fn entity_name(id: &str, what: &str, i: usize) -> Name {
    if id.is_empty() {
        Name::new(format!("{what}{i}"))
    } else {
        Name::new(id.to_owned())
    }
}

/// A record's data, owned (an error past [`MAX_DATA_DEPTH`]).
fn owned_data(data: Option<Value<'_>>) -> Result<Option<SceneValue>, String> {
    data.map(|value| {
        SceneValue::of(value, MAX_DATA_DEPTH)
            .ok_or_else(|| format!("its data nests deeper than {MAX_DATA_DEPTH} levels"))
    })
    .transpose()
}

/// Reference `i`'s entity: name, transform, node, and its mesh's `#Scene` spawned under it.
fn ref_entity(
    load_context: &mut LoadContext<'_>,
    manifest: &[(u64, AssetKind, AssetPath<'static>)],
    i: usize,
    placed: &SceneRef<'_>,
) -> Result<(Name, Transform, HearthSceneNode, Option<WorldAssetRoot>), String> {
    let resolve = |hash: u64| {
        manifest
            .iter()
            .find(|(h, _, _)| *h == hash)
            .map(|(_, kind, path)| (*kind, path.clone()))
            .ok_or_else(|| format!("asset {hash:016x} is not in {}", hman::MANIFEST_PATH))
    };
    let mut materials = Vec::new();
    for (j, hash) in placed.materials().enumerate() {
        let material = match resolve(hash)? {
            (AssetKind::MATERIAL, path) => load_context.load(path.with_label("Material0")),
            (AssetKind::TEXTURE, path) => {
                let image: Handle<Image> = load_context.load(path);
                let material = StandardMaterial {
                    base_color_texture: Some(image),
                    ..Default::default()
                };
                load_context.add_labeled_asset(format!("Ref{i}Material{j}"), material)
            }
            (kind, path) => return Err(format!("material {j}: {path} is a {kind:?}")),
        };
        materials.push(material);
    }
    let model = match placed.mesh().map(resolve).transpose()? {
        Some((AssetKind::MESH, path)) => {
            Some(WorldAssetRoot(load_context.load(path.with_label("Scene"))))
        }
        Some((kind, path)) => return Err(format!("its mesh {path} is a {kind:?}")),
        None => None,
    };
    let [x, y, z, w] = placed.rotation();
    let node = HearthSceneNode {
        id: placed.id().to_owned(),
        tags: placed.tags().into_iter().map(str::to_owned).collect(),
        data: owned_data(placed.data())?,
        materials,
        geometry: None,
    };
    Ok((
        entity_name(&node.id, "ref", i),
        Transform {
            translation: Vec3::from(placed.translation()),
            rotation: Quat::from_xyzw(x, y, z, w),
            scale: Vec3::from(placed.scale()),
        },
        node,
        model,
    ))
}

/// A geometry record as a triangle list: its vertices (z = 0 for 2D ones) and indices.
fn geometry_mesh(record: &SceneGeometry<'_>) -> Result<Mesh, String> {
    let positions: Vec<[f32; 3]> = record.vertices().collect();
    let indices: Vec<u32> = record.indices().collect();
    if let Some(index) = indices.iter().find(|&&i| i as usize >= positions.len()) {
        return Err(format!(
            "index {index} past its {} vertices",
            positions.len()
        ));
    }
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, positions);
    mesh.insert_indices(Indices::U32(indices));
    Ok(mesh)
}

/// The rows of the `assets.hman` at the root of the loaded file's source: (hash, kind,
/// asset path in that source).
pub(crate) async fn manifest_rows(
    load_context: &mut LoadContext<'_>,
) -> Result<Vec<(u64, AssetKind, AssetPath<'static>)>, HearthLoadError> {
    let path = load_context.path().clone();
    let source = path.source().clone_owned();
    let manifest_path = AssetPath::from(hman::MANIFEST_PATH).with_source(source.clone());
    let manifest = load_context
        .read_asset_bytes(manifest_path)
        .await
        .map_err(|e| HearthLoadError::new(&path, format!("{}: {e}", hman::MANIFEST_PATH)))?;
    let rows = hman::parse(&manifest)
        .map_err(|e| HearthLoadError::new(&path, format!("{}: {e}", hman::MANIFEST_PATH)))?;
    Ok(rows
        .iter()
        .map(|row| {
            let asset = AssetPath::from(row.path.to_owned()).with_source(source.clone());
            (row.hash, row.kind, asset.into_owned())
        })
        .collect())
}
