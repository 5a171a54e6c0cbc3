//! A model in one call: a mesh, its material table with each slot's textures loaded, and its
//! animation clips.
//!
//! A baked model is three siblings, `<stem>.hmesh`, `<stem>.hmat` (row `i` is the material of
//! slot `i`) and, when animated, `<stem>.hanim`, plus its textures, which the `.hmat` names by
//! asset hash. The mesh's own material references ([`MeshView::materials`](crate::MeshView))
//! are identities (hashes of `<source>/<material>`), not assets: [`Model::load`] pairs a mesh
//! with the `.hmat` beside it, and resolves each texture hash through the pack's
//! `assets.hman`.

use crate::format::hman::AssetKind;
use crate::format::hmat::{AlphaMode, GpuMaterial};
use crate::format::hmesh::{SubMesh, NO_MATERIAL};
use crate::read::animation::Animations;
use crate::read::asset::{in_asset, load, load_from, AssetSource};
use crate::read::error::ReadError;
use crate::read::ktx2::Texture;
use crate::read::material::{Materials, TextureUv};
use crate::read::mesh::Mesh;
use crate::read::names::named;
use std::collections::HashMap;
use std::sync::Arc;

/// A texture a material slot uses: where it lives, and the texture itself.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let model = hearth::Model::load(&pak, "models/chair.hmesh")?;
/// let base = model.material_slots.first().and_then(|material| material.base_color.as_ref());
/// if let Some(base) = base {
///     let texture: &hearth::ModelTexture = base;
///     let ktx = texture.texture.view();
///     println!("{} ({:#018x}): {}x{}", texture.path, texture.hash, ktx.width(), ktx.height());
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ModelTexture {
    /// Runtime path of the `.ktx2`.
    pub path: Arc<str>,
    /// Asset hash (what the `.hmat` stores).
    pub hash: u64,
    /// The texture, loaded (shared between the slots and materials that use it).
    pub texture: Texture,
}

/// One material of a model, resolved: its factors and each slot's texture.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let model = hearth::Model::load(&pak, "models/chair.hmesh")?;
/// for material in &model.material_slots {
///     let material: &hearth::ModelMaterial = material;
///     println!(
///         "slot {} {}: base colour {:?}, metallic {}, roughness {}, {}",
///         material.slot,
///         material.name,
///         material.base_color_factor,
///         material.metallic_factor,
///         material.roughness_factor,
///         material.alpha_mode.name()
///     );
///     if let Some(normal) = &material.normal {
///         println!("  normal map {}", normal.path);
///     }
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelMaterial {
    /// Its name: `Model#Material` from the pack's name table (`assets.hnames`);
    /// `<stem>#<slot>` for a pack baked before names existed.
    pub name: Arc<str>,
    /// The slot (row of the `.hmat`, [`SubMesh::material_slot`]).
    pub slot: u32,
    /// The mesh's reference for the slot (its MTRL hash).
    pub reference: u64,
    /// The row as stored, for everything the fields below do not name.
    pub row: GpuMaterial,
    /// How alpha is used.
    pub alpha_mode: AlphaMode,
    /// Whether both faces are drawn.
    pub double_sided: bool,
    /// Base colour factor, linear RGBA.
    pub base_color_factor: [f32; 4],
    /// Emissive factor, linear RGB.
    pub emissive_factor: [f32; 3],
    /// Metallic factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// Alpha cutoff ([`AlphaMode::Mask`]).
    pub alpha_cutoff: f32,
    /// Base colour texture (sRGB).
    pub base_color: Option<ModelTexture>,
    /// Metallic (B) and roughness (G) texture (linear).
    pub metallic_roughness: Option<ModelTexture>,
    /// Normal map.
    pub normal: Option<ModelTexture>,
    /// Occlusion texture (R, linear).
    pub occlusion: Option<ModelTexture>,
    /// Emissive texture (sRGB).
    pub emissive: Option<ModelTexture>,
    /// How each slot reads its UVs (which set, which transform), in row order: base colour,
    /// metallic-roughness, normal, occlusion, emissive.
    pub uvs: [TextureUv; 5],
}

/// One submesh and its material.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let model = hearth::Model::load(&pak, "models/chair.hmesh")?;
/// for part in &model.submeshes {
///     let part: &hearth::ModelSubmesh = part;
///     let start = part.submesh.first_index;
///     let end = start + part.submesh.index_count;
///     let material = part.material.as_ref().map_or("no material", |m| &*m.name);
///     println!("draw indices {start}..{end} with {material}");
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ModelSubmesh {
    /// The submesh as stored: its index range, meshlets, bounds and material slot.
    pub submesh: SubMesh,
    /// Its material, when the model has a `.hmat` and the submesh a slot.
    pub material: Option<Arc<ModelMaterial>>,
}

/// A model loaded in one call: the mesh, its submeshes with their materials and textures,
/// and its animation clips.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let model = hearth::Model::load(&pak, "models/fox.hmesh")?;
/// for part in &model.submeshes {
///     let Some(material) = &part.material else { continue };
///     if let Some(base) = &material.base_color {
///         let view = base.texture.view();
///         println!("{}: {:?}, {}x{}", base.path, material.alpha_mode, view.width(), view.height());
///     }
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Model {
    /// The mesh.
    pub mesh: Mesh,
    /// The material table beside it (`<stem>.hmat`), when there is one.
    pub materials: Option<Materials>,
    /// The animation clips beside it (`<stem>.hanim`), when there are any, checked against
    /// the mesh's skeleton and morph targets.
    pub animations: Option<Animations>,
    /// One resolved material per slot of the `.hmat`.
    pub material_slots: Vec<Arc<ModelMaterial>>,
    /// The submeshes, in order, each with its material.
    pub submeshes: Vec<ModelSubmesh>,
}

impl Model {
    /// [`load`](Self::load) by the model's name (`Chair`: its `.hmesh` row in
    /// `assets.hnames`). Errors name `name`.
    pub fn load_by_name(source: &impl AssetSource, name: &str) -> Result<Self, ReadError> {
        let path = source
            .lookup_name_of_kind(name, Some(AssetKind::MESH))
            .map_err(named(name))?
            .ok_or_else(|| ReadError::NotFound { asset: name.into() })?
            .path;
        Self::load(source, &path).map_err(named(name))
    }

    /// Loads the mesh at `mesh_path` (a `.hmesh`) from `source` (a [`PakReader`](crate::PakReader),
    /// [`Assets`](crate::Assets), [`TreeReader`](crate::TreeReader) or
    /// [`HotPack`](crate::read::hot)), the `.hmat` and `.hanim` beside it, and every texture
    /// its materials use. A texture hash that resolves to nothing, a `.hmat` whose row count
    /// differs from the mesh's slots, or clips that animate joints the mesh lacks are errors
    /// naming the file.
    pub fn load(source: &impl AssetSource, mesh_path: &str) -> Result<Self, ReadError> {
        let mesh: Mesh = load(source, mesh_path)?;
        let stem = AssetKind::MESH
            .strip_extension(mesh_path)
            .unwrap_or(mesh_path);
        let materials = load_sibling::<Materials>(source, &AssetKind::MATERIAL.file_name(stem))?;
        let animations = load_sibling::<Animations>(source, &AssetKind::ANIMATION.file_name(stem))?;
        let view = mesh.view();
        if let Some(animations) = &animations {
            let joints = view.skeleton.as_ref().map_or(0, |s| s.len() as u32);
            let morphs = view
                .morph_targets
                .as_ref()
                .map_or(0, |m| m.targets.len() as u32);
            animations
                .check_against(joints, morphs)
                .map_err(|e| in_asset(animations.path(), e))?;
        }
        let material_slots = match &materials {
            Some(table) => resolve_materials(source, table, &view.materials, stem)?,
            None => Vec::new(),
        };
        let submeshes = view
            .submeshes
            .iter()
            .map(|submesh| ModelSubmesh {
                submesh: *submesh,
                material: (submesh.material_slot != NO_MATERIAL)
                    .then(|| material_slots.get(submesh.material_slot as usize).cloned())
                    .flatten(),
            })
            .collect();
        Ok(Self {
            mesh,
            materials,
            animations,
            material_slots,
            submeshes,
        })
    }
}

/// `path` loaded as `T`, `None` when there is no such asset.
fn load_sibling<T: crate::read::asset::LoadAsset>(
    source: &impl AssetSource,
    path: &str,
) -> Result<Option<T>, ReadError> {
    match source.asset_bytes(path) {
        Ok(None) => Ok(None),
        bytes => load_from(path, bytes).map(Some),
    }
}

/// Each row of `table` with its textures loaded (each texture once).
fn resolve_materials(
    source: &impl AssetSource,
    table: &Materials,
    references: &[u64],
    stem: &str,
) -> Result<Vec<Arc<ModelMaterial>>, ReadError> {
    let model_name = stem.rsplit('/').next().unwrap_or(stem);
    // Row names from the name table: the material rows of this `.hmat`.
    let names = source.names()?;
    let mut row_names: HashMap<u32, Arc<str>> = names
        .subs_of(table.path())
        .filter(|row| row.kind == AssetKind::MATERIAL)
        .filter_map(|row| Some((row.sub?, Arc::from(row.name))))
        .collect();
    let rows = &table.view().rows;
    if rows.len() != references.len() {
        return Err(in_asset(
            table.path(),
            ReadError::Invalid {
                what: ".hmat row count (differs from the mesh's material slots)",
            },
        ));
    }
    let mut loaded: HashMap<u64, ModelTexture> = HashMap::new();
    let mut texture = |hash: u64| -> Result<Option<ModelTexture>, ReadError> {
        if hash == 0 {
            return Ok(None);
        }
        if let Some(known) = loaded.get(&hash) {
            return Ok(Some(known.clone()));
        }
        let path = source
            .path_of_hash(hash)?
            .ok_or_else(|| ReadError::NotFound {
                asset: format!("texture {hash:016x} of {}", table.path()).into(),
            })?;
        let found = ModelTexture {
            texture: load(source, &path)?,
            path: path.into(),
            hash,
        };
        loaded.insert(hash, found.clone());
        Ok(Some(found))
    };
    let mut slots = Vec::with_capacity(rows.len());
    for (slot, (row, &reference)) in rows.iter().zip(references).enumerate() {
        slots.push(Arc::new(ModelMaterial {
            name: row_names
                .remove(&(slot as u32))
                .unwrap_or_else(|| format!("{model_name}#{slot}").into()),
            slot: slot as u32,
            reference,
            row: *row,
            alpha_mode: row.alpha(),
            double_sided: row.double_sided(),
            base_color_factor: row.base_color_factor,
            emissive_factor: row.emissive_factor,
            metallic_factor: row.metallic_factor,
            roughness_factor: row.roughness_factor,
            alpha_cutoff: row.alpha_cutoff,
            base_color: texture(row.base_color_tex)?,
            metallic_roughness: texture(row.metallic_roughness_tex)?,
            normal: texture(row.normal_tex)?,
            occlusion: texture(row.occlusion_tex)?,
            emissive: texture(row.emissive_tex)?,
            uvs: std::array::from_fn(|texture_slot| {
                table.view().texture_uv(slot as u32, texture_slot)
            }),
        }));
    }
    Ok(slots)
}
