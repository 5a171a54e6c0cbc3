//! `.hmesh` → one Bevy [`Mesh`] per submesh, and the model as a spawnable scene.

use crate::joints::{check_joint_tree, joint_name, joint_target_ids, root_target_id};
use crate::material::material_label;
use crate::uv::{rewritten_uvs, uv_mapping};
use crate::HearthLoadError;
use bevy::animation::{AnimatedBy, AnimationPlayer};
use bevy::asset::io::{AssetReaderError, Reader};
use bevy::asset::{
    Asset, AssetLoader, AssetPath, Handle, LoadContext, ReadAssetBytesError, RenderAssetUsages,
};
use bevy::ecs::entity::Entity;
use bevy::ecs::world::World;
use bevy::math::{Mat4, Quat, Vec3};
use bevy::mesh::morph::{MeshMorphWeights, MorphAttributes, MorphWeights, MAX_MORPH_WEIGHTS};
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
use bevy::mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology, VertexAttributeValues};
use bevy::pbr::{MeshMaterial3d, StandardMaterial};
use bevy::prelude::{ChildOf, Name, Transform};
use bevy::reflect::TypePath;
use bevy::world_serialization::WorldAsset;
use hearth::{MeshView, SubMesh};

/// A loaded `.hmesh`: its submeshes as meshes, each one's material, and the model as a scene.
#[derive(Asset, TypePath, Debug)]
pub struct HearthModel {
    /// One mesh per submesh, in order (labels `Submesh{i}`).
    pub submeshes: Vec<Handle<Mesh>>,
    /// Each submesh's material (`<stem>.hmat#Material{slot}`), `None` for a submesh without
    /// one or a model without a `.hmat`.
    pub materials: Vec<Option<Handle<StandardMaterial>>>,
    /// The model as a scene (label `Scene`): a root entity and one child per submesh.
    pub scene: Handle<WorldAsset>,
}

/// Loads `.hmesh` files as [`HearthModel`]s (see the crate's labels).
#[derive(Default, TypePath)]
pub struct HearthMeshLoader;

impl AssetLoader for HearthMeshLoader {
    type Asset = HearthModel;
    type Settings = ();
    type Error = HearthLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<HearthModel, HearthLoadError> {
        let path = load_context.path().clone();
        let mesh: hearth::Mesh = crate::read_asset(reader, &path).await?;
        let view = mesh.view();
        let streams = Streams::of(view);
        let (materials, table) = material_paths(load_context, &path, view).await?;
        let rewrites = uv_rewrites(view, table.as_ref());
        let mut submeshes = Vec::with_capacity(view.submeshes.len());
        let mut material_meshes = Vec::with_capacity(view.submeshes.len());
        for (i, (submesh, rewrite)) in view.submeshes.iter().zip(&rewrites).enumerate() {
            let part = submesh_mesh(view, &streams, submesh)
                .map_err(|e| HearthLoadError::new(&path, format!("submesh {i}: {e}")))?;
            let rewritten = rewrite
                .as_ref()
                .and_then(|pairs| rewritten_uvs(&part, pairs));
            material_meshes.push(
                rewritten.map(|copy| load_context.add_labeled_asset(material_uvs_label(i), copy)),
            );
            submeshes.push(load_context.add_labeled_asset(submesh_label(i), part));
        }
        let skeleton = match skin_joints(view).map_err(|e| HearthLoadError::new(&path, e))? {
            Some(joints) => {
                let inverse_binds: Vec<Mat4> = joints
                    .iter()
                    .map(|joint| Mat4::from_cols_array(&joint.inverse_bind))
                    .collect();
                let handle = load_context.add_labeled_asset(
                    INVERSE_BINDPOSES,
                    SkinnedMeshInverseBindposes::from(inverse_binds),
                );
                Some((joints.to_vec(), handle))
            }
            None => None,
        };
        let model = ModelParts {
            name: model_name(&path),
            submeshes,
            material_meshes,
            slots: material_slots(view),
            materials,
            morph_weights: view.morph_targets.as_ref().map(|m| m.weights.to_vec()),
            skeleton,
        };
        // Bevy draws no mesh without a material: glTF's default one, as Bevy's glTF loader
        // gives it. A label of the file itself (not of its scene), so that an `.hscene`
        // placing the model finds it by path.
        let default_material = model.materials.iter().any(Option::is_none).then(|| {
            load_context.add_labeled_asset(
                DEFAULT_MATERIAL,
                StandardMaterial {
                    metallic: 1.0,
                    perceptual_roughness: 1.0,
                    ..StandardMaterial::default()
                },
            )
        });
        let scene = load_context.labeled_asset_scope("Scene", |context| {
            // Asked only for a submesh without a material, so it was made.
            let parts = drawn_parts(context, &model, &[], &mut |_| {
                default_material.clone().unwrap_or_default()
            });
            let mut world = World::new();
            let root = world
                .spawn((Transform::default(), Name::new(model.name.clone())))
                .id();
            spawn_model(&mut world, root, &model, &parts)
                .map_err(|e| HearthLoadError::new(&path, e))?;
            Ok::<_, HearthLoadError>(WorldAsset::new(world))
        })?;
        let materials = model
            .materials
            .into_iter()
            .map(|material| material.map(|path| load_context.load(path)))
            .collect();
        Ok(HearthModel {
            submeshes: model.submeshes,
            materials,
            scene,
        })
    }

    fn extensions(&self) -> &[&str] {
        hearth::AssetKind::MESH.extensions()
    }
}

/// The label of a model's submesh `i`.
fn submesh_label(i: usize) -> String {
    format!("Submesh{i}")
}

/// The label of submesh `i`'s copy whose UV sets are its own material's two (set, transform)
/// pairs (see `uv.rs`), drawn with that material.
fn material_uvs_label(i: usize) -> String {
    format!("Submesh{i}MaterialUvs")
}

/// For each submesh, the two (set, transform) pairs its own material's slots need its UVs
/// rewritten to (`None`: its UVs serve the material as they are).
fn uv_rewrites(
    view: &MeshView<'_>,
    table: Option<&hearth::Materials>,
) -> Vec<Option<[hearth::TextureUv; 2]>> {
    view.submeshes
        .iter()
        .map(|submesh| {
            let table = table?.view();
            let slot = submesh.material_slot;
            if slot == hearth::format::hmesh::NO_MATERIAL || slot as usize >= table.rows.len() {
                return None;
            }
            uv_mapping(table, slot).rewrite
        })
        .collect()
}

/// The label of a skinned model's inverse bind matrices.
const INVERSE_BINDPOSES: &str = "InverseBindposes";

/// The label of the material a model's `#Scene` gives the submeshes without one.
const DEFAULT_MATERIAL: &str = "DefaultMaterial";

/// The model's name: its file stem (its scene root's name, its animation targets' root).
fn model_name(path: &AssetPath<'_>) -> String {
    path.path()
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// Each submesh's material slot (`None` for one without).
fn material_slots(view: &MeshView<'_>) -> Vec<Option<usize>> {
    view.submeshes
        .iter()
        .map(|s| {
            (s.material_slot != hearth::format::hmesh::NO_MATERIAL)
                .then_some(s.material_slot as usize)
        })
        .collect()
}

/// A skinned mesh's joints (checked to form a tree); `None` without a skin.
fn skin_joints<'v>(
    view: &'v MeshView<'_>,
) -> Result<Option<&'v [hearth::format::hmesh::GpuJoint]>, String> {
    match view.skeleton.as_deref() {
        Some(joints) if view.skin.is_some() => {
            check_joint_tree(joints)?;
            Ok(Some(joints))
        }
        _ => Ok(None),
    }
}

/// Each submesh's material as a labeled path into the `.hmat` beside the mesh at `path` (`None`
/// without a slot, or when there is no `.hmat`), and that table.
async fn material_paths(
    load_context: &mut LoadContext<'_>,
    path: &AssetPath<'static>,
    view: &MeshView<'_>,
) -> Result<(Vec<Option<AssetPath<'static>>>, Option<hearth::Materials>), HearthLoadError> {
    let none = || (vec![None; view.submeshes.len()], None);
    let has_slots = view
        .submeshes
        .iter()
        .any(|s| s.material_slot != hearth::format::hmesh::NO_MATERIAL);
    if !has_slots || view.materials.is_empty() {
        return Ok(none());
    }
    let file = path.path().to_string_lossy().replace('\\', "/");
    let stem = file.strip_suffix(".hmesh").unwrap_or(&file);
    let table_path = AssetPath::from(format!("{stem}.hmat"))
        .with_source(path.source().clone_owned())
        .into_owned();
    // A model without a `.hmat` has no materials (as `hearth::Model::load` reads it).
    let bytes = match load_context.read_asset_bytes(table_path.clone()).await {
        Ok(bytes) => bytes,
        Err(ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_))) => {
            return Ok(none());
        }
        Err(error) => return Err(HearthLoadError::new(&table_path, error)),
    };
    let table = <hearth::Materials as hearth::LoadAsset>::from_asset(
        &table_path.to_string(),
        hearth::AssetBytes::from_vec(bytes),
    )
    .map_err(|e| HearthLoadError::new(&table_path, e))?;
    let paths = view
        .submeshes
        .iter()
        .map(|submesh| {
            let slot = submesh.material_slot;
            if slot == hearth::format::hmesh::NO_MATERIAL {
                return Ok(None);
            }
            if slot as usize >= view.materials.len() {
                return Err(HearthLoadError::new(
                    path,
                    format!(
                        "material slot {slot} past the mesh's {} slots",
                        view.materials.len()
                    ),
                ));
            }
            Ok(Some(
                table_path.clone().with_label(material_label(slot as usize)),
            ))
        })
        .collect::<Result<_, _>>()?;
    Ok((paths, Some(table)))
}

/// What a model's scene is built from, as handles: the `.hmesh` loader's own labeled assets,
/// or (an `.hscene`'s placed model) the same labels loaded by path.
pub(crate) struct ModelParts {
    /// The model's name (its file stem).
    name: String,
    /// One mesh per submesh.
    submeshes: Vec<Handle<Mesh>>,
    /// Each submesh's copy with its own material's UV sets (`None`: the submesh serves).
    material_meshes: Vec<Option<Handle<Mesh>>>,
    /// Each submesh's material slot (`None`: none).
    slots: Vec<Option<usize>>,
    /// Each submesh's own material (`None`: the default material).
    materials: Vec<Option<AssetPath<'static>>>,
    /// Its morph targets' default weights.
    morph_weights: Option<Vec<f32>>,
    /// Its joints and inverse bind matrices, when skinned.
    skeleton: Option<Skeleton>,
}

impl ModelParts {
    /// The model at `path` (an `.hmesh`) as an `.hscene` places it: its file is read (and
    /// checked) for its submeshes, material slots, skeleton and morph targets; the meshes,
    /// materials and inverse bind matrices are the `.hmesh`'s labeled assets, loaded by path.
    pub(crate) async fn by_path(
        load_context: &mut LoadContext<'_>,
        path: &AssetPath<'static>,
    ) -> Result<Self, HearthLoadError> {
        let bytes = load_context
            .read_asset_bytes(path.clone())
            .await
            .map_err(|e| HearthLoadError::new(path, e))?;
        let mesh = <hearth::Mesh as hearth::LoadAsset>::from_asset(
            &path.to_string(),
            hearth::AssetBytes::from_vec(bytes),
        )
        .map_err(|e| HearthLoadError::new(path, e))?;
        let view = mesh.view();
        let submeshes = (0..view.submeshes.len())
            .map(|i| load_context.load(path.clone().with_label(submesh_label(i))))
            .collect();
        let (materials, table) = material_paths(load_context, path, view).await?;
        let material_meshes = uv_rewrites(view, table.as_ref())
            .iter()
            .enumerate()
            .map(|(i, rewrite)| {
                rewrite.map(|_| load_context.load(path.clone().with_label(material_uvs_label(i))))
            })
            .collect();
        let skeleton = skin_joints(view)
            .map_err(|e| HearthLoadError::new(path, e))?
            .map(|joints| {
                let binds = load_context.load(path.clone().with_label(INVERSE_BINDPOSES));
                (joints.to_vec(), binds)
            });
        Ok(Self {
            name: model_name(path),
            submeshes,
            material_meshes,
            slots: material_slots(view),
            materials,
            morph_weights: view.morph_targets.as_ref().map(|m| m.weights.to_vec()),
            skeleton,
        })
    }

    /// The model's name (its file stem): its scene root's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

/// Each submesh's mesh and material: `overrides[slot]` where given (an `.hscene` reference's
/// materials: a submesh without a slot takes the first, as pak gives a primitive without a
/// material the source's first) with the submesh, else its own `.hmat` row with the submesh's
/// copy for that row's UVs where it has one, else `default_material`'s.
pub(crate) fn drawn_parts(
    context: &mut LoadContext<'_>,
    model: &ModelParts,
    overrides: &[Handle<StandardMaterial>],
    default_material: &mut dyn FnMut(&mut LoadContext<'_>) -> Handle<StandardMaterial>,
) -> Vec<(Handle<Mesh>, Handle<StandardMaterial>)> {
    model
        .slots
        .iter()
        .zip(&model.materials)
        .zip(model.submeshes.iter().zip(&model.material_meshes))
        .map(|((slot, own), (mesh, material_mesh))| {
            if let Some(material) = overrides.get(slot.unwrap_or(0)) {
                return (mesh.clone(), material.clone());
            }
            match own {
                Some(path) => (
                    material_mesh.as_ref().unwrap_or(mesh).clone(),
                    context.load(path.clone()),
                ),
                None => (mesh.clone(), default_material(context)),
            }
        })
        .collect()
}

/// The default material of the model at `path`, for its submeshes without one: the `.hmesh`
/// loader's labeled one.
pub(crate) fn default_material_of<'p>(
    path: &'p AssetPath<'static>,
) -> impl FnMut(&mut LoadContext<'_>) -> Handle<StandardMaterial> + 'p {
    move |context| context.load(path.clone().with_label(DEFAULT_MATERIAL))
}

/// Spawns the model's parts under `root` (an entity named after the model): one child per
/// submesh with `parts[i]`'s mesh and material and a `SkinnedMesh`, and one entity per joint in its
/// bind pose. An animatable model (joints or morph targets) gets an [`AnimationPlayer`] on
/// `root`, and `root` and its joints carry the
/// [`AnimationTargetId`](bevy::animation::AnimationTargetId)s its `.hanim` clips target; its
/// morph weights are a [`MorphWeights`] on `root`.
pub(crate) fn spawn_model(
    world: &mut World,
    root: Entity,
    model: &ModelParts,
    parts: &[(Handle<Mesh>, Handle<StandardMaterial>)],
) -> Result<(), String> {
    if model.skeleton.is_some() || model.morph_weights.is_some() {
        world.entity_mut(root).insert((
            AnimationPlayer::default(),
            root_target_id(&model.name),
            AnimatedBy(root),
        ));
    }
    if let Some(weights) = &model.morph_weights {
        let weights = MorphWeights::new(weights.clone(), model.submeshes.first().cloned())
            .map_err(|e| e.to_string())?;
        world.entity_mut(root).insert(weights);
    }
    let skin = model
        .skeleton
        .as_ref()
        .map(|(joints, inverse_bindposes)| SkinnedMesh {
            inverse_bindposes: inverse_bindposes.clone(),
            joints: spawn_joints(world, root, &model.name, joints),
        });
    for (i, (mesh, material)) in parts.iter().enumerate() {
        let mut part = world.spawn((
            Mesh3d(mesh.clone()),
            MeshMaterial3d(material.clone()),
            Transform::default(),
            Name::new(format!("{}#{i}", model.name)),
            ChildOf(root),
        ));
        if let Some(skin) = &skin {
            part.insert(skin.clone());
        }
        if model.morph_weights.is_some() {
            part.insert(MeshMorphWeights::Reference(root));
        }
    }
    Ok(())
}

/// A skinned mesh's joints and its labeled inverse bind matrices.
type Skeleton = (
    Vec<hearth::format::hmesh::GpuJoint>,
    Handle<SkinnedMeshInverseBindposes>,
);

/// One entity per joint in its bind pose, parented as the skeleton says (roots under `root`),
/// named `joint{i}` and animated by the root's player.
fn spawn_joints(
    world: &mut World,
    root: Entity,
    model_name: &str,
    joints: &[hearth::format::hmesh::GpuJoint],
) -> Vec<Entity> {
    let targets = joint_target_ids(model_name, joints);
    let entities: Vec<_> = joints
        .iter()
        .zip(targets)
        .enumerate()
        .map(|(i, (joint, target))| {
            let transform = Transform {
                translation: Vec3::from_array(joint.bind_t),
                rotation: Quat::from_array(joint.bind_r),
                scale: Vec3::from_array(joint.bind_s),
            };
            world
                .spawn((
                    transform,
                    Name::new(joint_name(i)),
                    target,
                    AnimatedBy(root),
                ))
                .id()
        })
        .collect();
    for (joint, &entity) in joints.iter().zip(&entities) {
        let parent = usize::try_from(joint.parent)
            .ok()
            .and_then(|p| entities.get(p).copied())
            .unwrap_or(root);
        world.entity_mut(entity).insert(ChildOf(parent));
    }
    entities
}

/// The mesh's vertex streams, decoded once for all its submeshes.
struct Streams {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    tangents: Option<Vec<[f32; 4]>>,
    uvs: Vec<[f32; 2]>,
    uvs1: Option<Vec<[f32; 2]>>,
    colors: Option<Vec<[f32; 4]>>,
    joints: Option<Vec<[u16; 4]>>,
    weights: Option<Vec<[f32; 4]>>,
}

impl Streams {
    fn of(view: &MeshView<'_>) -> Self {
        Self {
            positions: view.positions().collect(),
            normals: view.normals().collect(),
            tangents: view.has_tangents().then(|| view.tangents().collect()),
            uvs: view.uvs().collect(),
            uvs1: view.uvs1().map(<[_]>::to_vec),
            colors: view.colors_f32().map(Iterator::collect),
            joints: view
                .skin()
                .map(|skin| skin.iter().map(|v| v.joints).collect()),
            weights: view
                .skin()
                .map(|skin| skin.iter().map(|v| v.weights).collect()),
        }
    }
}

/// One submesh as a Bevy mesh: its index range, and only the vertices it uses (in their
/// stored order, so a mesh of one submesh keeps its vertex order).
fn submesh_mesh(view: &MeshView<'_>, streams: &Streams, submesh: &SubMesh) -> Result<Mesh, String> {
    let vertex_count = streams.positions.len();
    let first = submesh.first_index as usize;
    let count = submesh.index_count as usize;
    if first
        .checked_add(count)
        .is_none_or(|end| end > view.indices.len())
    {
        return Err(format!(
            "index range {first}+{count} past the mesh's {} indices",
            view.indices.len()
        ));
    }
    let optional = [
        streams.tangents.as_ref().map(Vec::len),
        streams.uvs1.as_ref().map(Vec::len),
        streams.colors.as_ref().map(Vec::len),
        streams.joints.as_ref().map(Vec::len),
    ];
    let lengths = [streams.normals.len(), streams.uvs.len()];
    if lengths
        .into_iter()
        .chain(optional.into_iter().flatten())
        .any(|len| len != vertex_count)
    {
        return Err("a vertex stream's length differs from the vertex count".into());
    }
    let mut used = vec![false; vertex_count];
    let mut global = Vec::with_capacity(count);
    for i in first..first + count {
        let index = view.indices.get(i).ok_or("index out of range")?;
        let vertex = used
            .get_mut(index as usize)
            .ok_or_else(|| format!("index {index} past the mesh's {vertex_count} vertices"))?;
        *vertex = true;
        global.push(index);
    }
    // Old index → new index, for the used vertices only.
    let mut remap = vec![u32::MAX; vertex_count];
    let mut kept = Vec::new();
    for (old, _) in used.iter().enumerate().filter(|(_, used)| **used) {
        remap[old] = kept.len() as u32;
        kept.push(old);
    }
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, pick(&streams.positions, &kept));
    mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, pick(&streams.normals, &kept));
    mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, pick(&streams.uvs, &kept));
    if let Some(tangents) = &streams.tangents {
        mesh.insert_attribute(Mesh::ATTRIBUTE_TANGENT, pick(tangents, &kept));
    }
    if let Some(uvs1) = &streams.uvs1 {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_1, pick(uvs1, &kept));
    }
    if let Some(colors) = &streams.colors {
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, pick(colors, &kept));
    }
    if let (Some(joints), Some(weights)) = (&streams.joints, &streams.weights) {
        mesh.insert_attribute(
            Mesh::ATTRIBUTE_JOINT_INDEX,
            VertexAttributeValues::Uint16x4(pick(joints, &kept)),
        );
        mesh.insert_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, pick(weights, &kept));
    }
    if let Some(morphs) = &view.morph_targets {
        mesh.set_morph_targets(morph_attributes(morphs, &kept, vertex_count)?);
    }
    // Every vertex kept: the indices stay as they are.
    let local: Vec<u32> = if kept.len() == vertex_count {
        global
    } else {
        global.iter().map(|&i| remap[i as usize]).collect()
    };
    mesh.insert_indices(if kept.len() <= usize::from(u16::MAX) + 1 {
        Indices::U16(local.iter().map(|&i| i as u16).collect())
    } else {
        Indices::U32(local)
    });
    Ok(mesh)
}

/// The kept vertices' deltas of every morph target, target by target (Bevy's layout: target
/// `t`'s vertex `v` at `t * kept.len() + v`). Every submesh carries all of the mesh's targets
/// (a submesh outside a target's glTF mesh has zero deltas), so one [`MorphWeights`] on the
/// model's root drives them all, as the `.hanim` weight channels expect.
fn morph_attributes(
    morphs: &hearth::read::mesh::MorphTargets<'_>,
    kept: &[usize],
    vertex_count: usize,
) -> Result<Vec<MorphAttributes>, String> {
    if morphs.targets.len() > MAX_MORPH_WEIGHTS {
        return Err(format!(
            "{} morph targets, Bevy takes at most {MAX_MORPH_WEIGHTS}",
            morphs.targets.len()
        ));
    }
    let mut attributes = Vec::with_capacity(morphs.targets.len() * kept.len());
    for target in &morphs.targets {
        if target.positions.len() != vertex_count {
            return Err("a morph target's length differs from the vertex count".into());
        }
        attributes.extend(kept.iter().map(|&v| {
            MorphAttributes::new(
                Vec3::from_array(target.positions[v]),
                Vec3::from_array(target.normal(v)),
                Vec3::from_array(target.tangent(v)),
            )
        }));
    }
    Ok(attributes)
}

/// `stream[i]` for each kept vertex `i` (every stream is as long as the vertices: checked
/// above). `kept` ascends, so keeping as many as there are is keeping all: a slice copy.
fn pick<T: Copy>(stream: &[T], kept: &[usize]) -> Vec<T> {
    if kept.len() == stream.len() {
        return stream.to_vec();
    }
    kept.iter().map(|&i| stream[i]).collect()
}
