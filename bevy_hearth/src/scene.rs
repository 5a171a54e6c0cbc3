//! `.hscene` → a spawnable [`WorldAsset`]: one entity per placed reference (its model's
//! `#Scene` under it) and per custom geometry record, with their transforms, tags and data.

use crate::material::material_label;
use crate::mesh::{default_material_of, drawn_parts, spawn_model, ModelParts};
use crate::HearthLoadError;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext, RenderAssetUsages};
use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::reflect::ReflectComponent;
use bevy::ecs::world::World;
use bevy::image::Image;
use bevy::math::{Quat, Vec3};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::pbr::StandardMaterial;
use bevy::prelude::{ChildOf, Name, Transform};
use bevy::reflect::std_traits::ReflectDefault;
use bevy::reflect::{Reflect, TypePath};
use bevy::world_serialization::WorldAsset;
use hearth::format::hman;
use hearth::format::hscene::ValueKind;
use hearth::read::scene::{SceneGeometry, SceneRef, SceneView, Value};
use hearth::AssetKind;
use std::collections::HashMap;

/// A loaded `.hscene`: the scene to spawn (label `Scene`) and its custom geometry as meshes
/// (labels `Geometry{i}`).
#[derive(Asset, TypePath, Debug)]
pub struct HearthScene {
    /// The scene: a root named after the file stem, one child per reference, then one per
    /// geometry record, in file order. A dependency: the scene is loaded with what it places.
    #[dependency]
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
    /// material's base colour. The model spawned under the entity uses them in place of its
    /// own: material `i` for its material slot `i` (the first for a submesh without a slot, as
    /// pak gives a primitive without a material the source's first); a slot past them keeps
    /// the model's own `.hmat` row.
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
        let models = placed_models(load_context, view, &manifest).await?;
        let mut geometry = Vec::with_capacity(view.geometry_count());
        for (i, record) in view.geometry().enumerate() {
            let mesh = geometry_mesh(&record)
                .map_err(|e| HearthLoadError::new(&path, format!("geometry {i}: {e}")))?;
            geometry.push(load_context.add_labeled_asset(format!("Geometry{i}"), mesh));
        }
        let scene = load_context.labeled_asset_scope("Scene", |context| {
            scene_world(context, view, &manifest, &models, &geometry).map(WorldAsset::new)
        })?;
        Ok(HearthScene { scene, geometry })
    }

    fn extensions(&self) -> &[&str] {
        hearth::AssetKind::SCENE.extensions()
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

/// The models the scene's references place, by mesh hash, each read once (an `.hmesh` of the
/// manifest; a mesh of another kind is the reference's error when its entity is made).
async fn placed_models(
    load_context: &mut LoadContext<'_>,
    view: &SceneView<'_>,
    manifest: &[ManifestRow],
) -> Result<HashMap<u64, ModelParts>, HearthLoadError> {
    let mut models = HashMap::new();
    for hash in view.refs().filter_map(|placed| placed.mesh()) {
        if models.contains_key(&hash) {
            continue;
        }
        let Some((_, AssetKind::MESH, mesh_path)) = manifest.iter().find(|(h, ..)| *h == hash)
        else {
            continue;
        };
        let model = ModelParts::by_path(load_context, mesh_path).await?;
        models.insert(hash, model);
    }
    Ok(models)
}

/// The scene's world: a root named after the file stem, one child per reference (its model
/// spawned under it), then one per geometry record.
fn scene_world(
    context: &mut LoadContext<'_>,
    view: &SceneView<'_>,
    manifest: &[ManifestRow],
    models: &HashMap<u64, ModelParts>,
    geometry: &[Handle<Mesh>],
) -> Result<World, HearthLoadError> {
    let path = context.path().clone();
    let mut world = World::new();
    let name = path
        .path()
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let root = world.spawn((Transform::default(), Name::new(name))).id();
    for (i, placed) in view.refs().enumerate() {
        spawn_ref(context, &mut world, root, manifest, models, i, &placed)
            .map_err(|e| HearthLoadError::new(&path, format!("ref {i}: {e}")))?;
    }
    for (i, (record, mesh)) in view.geometry().zip(geometry).enumerate() {
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
    Ok(world)
}

/// An `assets.hman` row: hash, kind, asset path in the loaded file's source.
type ManifestRow = (u64, AssetKind, AssetPath<'static>);

/// Reference `i`'s entity under `root`: name, transform, node, and its model's parts under it
/// (a child named after the model) with the reference's materials in place of the model's.
fn spawn_ref(
    context: &mut LoadContext<'_>,
    world: &mut World,
    root: Entity,
    manifest: &[ManifestRow],
    models: &HashMap<u64, ModelParts>,
    i: usize,
    placed: &SceneRef<'_>,
) -> Result<(), String> {
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
            (AssetKind::MATERIAL, path) => context.load(path.with_label(material_label(0))),
            (AssetKind::TEXTURE, path) => {
                let image: Handle<Image> = context.load(path);
                let material = StandardMaterial {
                    base_color_texture: Some(image),
                    ..Default::default()
                };
                context.add_labeled_asset(format!("Ref{i}Material{j}"), material)
            }
            (kind, path) => return Err(format!("material {j}: {path} is a {kind:?}")),
        };
        materials.push(material);
    }
    let model = match placed.mesh().map(|hash| resolve(hash).map(|r| (hash, r))) {
        Some(Ok((hash, (AssetKind::MESH, path)))) => models.get(&hash).map(|model| (model, path)),
        Some(Ok((_, (kind, path)))) => return Err(format!("its mesh {path} is a {kind:?}")),
        Some(Err(error)) => return Err(error),
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
    let transform = Transform {
        translation: Vec3::from(placed.translation()),
        rotation: Quat::from_xyzw(x, y, z, w),
        scale: Vec3::from(placed.scale()),
    };
    let entity = world
        .spawn((entity_name(&node.id, "ref", i), transform, ChildOf(root)))
        .id();
    if let Some((model, path)) = model {
        let parts = drawn_parts(
            context,
            model,
            &node.materials,
            &mut default_material_of(&path),
        );
        let model_root = world
            .spawn((
                Transform::default(),
                Name::new(model.name().to_owned()),
                ChildOf(entity),
            ))
            .id();
        spawn_model(world, model_root, model, &parts)?;
    }
    world.entity_mut(entity).insert(node);
    Ok(())
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
) -> Result<Vec<ManifestRow>, HearthLoadError> {
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
