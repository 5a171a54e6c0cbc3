//! glTF 2.0 import (`.gltf` + `.bin`, data URIs, external images, `.glb`) through the `gltf`
//! crate, into plain triangle lists per primitive. Images are not decoded here: their bytes go
//! to the texture pipeline once, with the mode their material slot dictates.

pub(crate) mod ancestors;
mod animation;
mod materials;
mod morphs;
mod nodes;
mod primitives;
mod skins;

pub use primitives::transform_primitive;

use crate::format::hanim::Clip;
use crate::format::hmesh::GpuJoint;
use std::collections::HashMap;

/// Extensions hearth reads or can safely ignore when a file lists them as required.
pub const SUPPORTED_REQUIRED: [&str; 9] = [
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
    "KHR_materials_clearcoat",
    "KHR_materials_sheen",
    "KHR_materials_transmission",
    "KHR_materials_ior",
    "KHR_materials_specular",
    "KHR_materials_volume",
    "KHR_materials_unlit",
];

/// One triangle-list primitive, in the space `merge` asks for.
#[derive(Debug, Clone, Default)]
pub struct Primitive {
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Normals, when the source has them.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Tangents (xyz + handedness), when the source has them.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// TEXCOORD_0, when present.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// TEXCOORD_1, when present.
    pub uvs1: Option<Vec<[f32; 2]>>,
    /// COLOR_0 as linear RGBA, when present.
    pub colors: Option<Vec<[f32; 4]>>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
    /// Source material index.
    pub material: Option<usize>,
    /// Per-vertex joints (into the skeleton) and weights summing to 1, for skinned primitives.
    pub skin: Option<Vec<([u16; 4], [f32; 4])>>,
    /// Morph targets, when the source mesh has them.
    pub morph: Option<MorphDeltas>,
}

/// A primitive's morph targets: per target, a delta per source vertex (in the primitive's
/// space, moved with it by [`transform_primitive`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphDeltas {
    /// Index of the primitive's first target among the scene's ([`Scene::morph_weights`]);
    /// the primitives of one glTF mesh instance share their targets.
    pub first_target: u32,
    /// Position deltas, per target.
    pub positions: Vec<Vec<[f32; 3]>>,
    /// Normal deltas, per target (when the primitive has normals and a target moves them).
    pub normals: Option<Vec<Vec<[f32; 3]>>>,
    /// Tangent deltas (xyz), per target (when the primitive has tangents and a target moves
    /// them).
    pub tangents: Option<Vec<Vec<[f32; 3]>>>,
}

/// A texture slot of a material: the source image and the texture coordinate set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureRef {
    /// glTF image index.
    pub image: usize,
}

/// A source material's fields hearth keeps.
#[derive(Debug, Clone, Default)]
pub struct Material {
    /// Name (may be empty).
    pub name: String,
    /// Base color factor.
    pub base_color: [f32; 4],
    /// Emissive factor (times KHR_materials_emissive_strength).
    pub emissive: [f32; 3],
    /// Metallic factor.
    pub metallic: f32,
    /// Roughness factor.
    pub roughness: f32,
    /// Normal scale.
    pub normal_scale: f32,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// Alpha cutoff.
    pub alpha_cutoff: f32,
    /// 0 opaque, 1 mask, 2 blend.
    pub alpha_mode: u32,
    /// Double-sided.
    pub double_sided: bool,
    /// Base color texture.
    pub base_color_tex: Option<TextureRef>,
    /// Metallic-roughness texture.
    pub metallic_roughness_tex: Option<TextureRef>,
    /// Normal texture.
    pub normal_tex: Option<TextureRef>,
    /// Occlusion texture.
    pub occlusion_tex: Option<TextureRef>,
    /// Emissive texture.
    pub emissive_tex: Option<TextureRef>,
    /// Each texture slot's `KHR_texture_transform` (base color, metallic-roughness, normal,
    /// occlusion, emissive), kept only when the material's textures use different transforms;
    /// one transform shared by all of them is baked into the UVs of the material's
    /// primitives instead, and these are `None`.
    pub texture_transforms: [Option<UvTransform>; 5],
    /// Which texture slots sample TEXCOORD_1 (same order).
    pub second_uv_set: [bool; 5],
    /// The PBR extensions hearth keeps (clearcoat, sheen, transmission, ior, specular,
    /// volume, unlit), each as an `.hmat` property record.
    pub extensions: Vec<MaterialExtension>,
}

/// How a material extension's texture is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureUse {
    /// sRGB color.
    Color,
    /// Linear data.
    Linear,
    /// A normal map.
    Normal,
}

/// One material extension's record: an [`hmat::property`](crate::format::hmat::property) id,
/// its numbers, and its texture when it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialExtension {
    /// The property id.
    pub id: u32,
    /// Up to four numbers, as the id defines them.
    pub value: [f32; 4],
    /// The texture and how it is encoded.
    pub texture: Option<(TextureRef, TextureUse)>,
    /// The texture's own `KHR_texture_transform`, if any.
    pub transform: Option<UvTransform>,
}

/// A `KHR_texture_transform`: a texture samples at
/// `offset + [[cos r, sin r], [−sin r, cos r]] · (scale ⊙ uv)`, the extension's
/// `translation · rotation · scale` (its rotation turns UVs counter-clockwise, the image
/// clockwise).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvTransform {
    /// Offset of the UV origin.
    pub offset: [f32; 2],
    /// Rotation in radians.
    pub rotation: f32,
    /// Scale of each UV component.
    pub scale: [f32; 2],
}

impl UvTransform {
    /// The identity.
    pub const IDENTITY: Self = Self {
        offset: [0.0, 0.0],
        rotation: 0.0,
        scale: [1.0, 1.0],
    };

    /// Whether it changes UVs and every number is finite (JSON numbers past f32's range are
    /// not, and are left out): the transforms worth keeping.
    fn is_kept(&self) -> bool {
        *self != Self::IDENTITY
            && self.offset.iter().chain(&self.scale).all(|c| c.is_finite())
            && self.rotation.is_finite()
    }

    /// `uv` transformed.
    pub fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        let (sin, cos) = self.rotation.sin_cos();
        let (u, v) = (uv[0] * self.scale[0], uv[1] * self.scale[1]);
        [
            self.offset[0] + cos * u + sin * v,
            self.offset[1] - sin * u + cos * v,
        ]
    }

    /// Reads the extension's object (absent members take their defaults); `None` for the
    /// identity (or non-finite numbers). A `texCoord` override other than 0 is returned
    /// beside it.
    fn from_json(value: &gltf::json::Value) -> (Option<Self>, Option<u64>) {
        let pair = |key: &str, default: [f32; 2]| {
            value
                .get(key)
                .and_then(|v| v.as_array())
                .and_then(|a| Some([a.first()?.as_f64()? as f32, a.get(1)?.as_f64()? as f32]))
                .unwrap_or(default)
        };
        let transform = Self {
            offset: pair("offset", [0.0, 0.0]),
            rotation: value
                .get("rotation")
                .and_then(|r| r.as_f64())
                .unwrap_or(0.0) as f32,
            scale: pair("scale", [1.0, 1.0]),
        };
        let tex_coord = value
            .get("texCoord")
            .and_then(|t| t.as_u64())
            .filter(|t| *t != 0);
        (transform.is_kept().then_some(transform), tex_coord)
    }
}

/// What an import yields.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// Triangle primitives (points and lines left out).
    pub primitives: Vec<Primitive>,
    /// All source materials, in source order.
    pub materials: Vec<Material>,
    /// Encoded bytes of every source image, by image index (`None` when not loadable).
    pub images: Vec<Option<Vec<u8>>>,
    /// Why an image could not be loaded, naming the file it looked for, by image index (may
    /// be shorter than `images`).
    pub image_errors: Vec<Option<String>>,
    /// The first skin's joints, when the scene is skinned.
    pub skeleton: Option<Vec<GpuJoint>>,
    /// Animation clips on the skeleton's joints.
    pub clips: Vec<Clip>,
    /// The name of each skeleton joint's node (empty when unnamed), parallel to `skeleton`.
    pub joint_names: Vec<String>,
    /// Every mesh instance's morph targets, one after another: their default weights (the
    /// node's `weights`, else the mesh's, else 0). [`MorphDeltas::first_target`] indexes it.
    pub morph_weights: Vec<f32>,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// Reads a side file by its path relative to the model's folder (recorded as an input).
pub type ReadSide<'a> = dyn FnMut(&str) -> Result<Vec<u8>, String> + 'a;

/// What to import from a glTF file, and how.
#[derive(Debug, Clone, Copy)]
pub struct ImportOptions<'a> {
    /// Bake node transforms into one world-space mesh (skinned meshes never are).
    pub merge: bool,
    /// Read the first skin (SKIN, SKEL) and its animations.
    pub skins: bool,
    /// The settings' transform, applied to static geometry after the node transforms.
    pub user: Mat4,
    /// Import this scene (by name) instead of the default one.
    pub scene_name: Option<&'a str>,
    /// Import only the mesh nodes of this name (or, failing that, the meshes of this name).
    pub mesh_name: Option<&'a str>,
}

/// Imports a glTF or GLB file; `read` loads the files its URIs name.
pub fn import(
    bytes: &[u8],
    read: &mut ReadSide<'_>,
    options: &ImportOptions<'_>,
) -> Result<Scene, String> {
    let gltf = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| format!("not a valid glTF: {e}"))?;
    let unsupported: Vec<&str> = gltf
        .document
        .extensions_required()
        .filter(|e| !SUPPORTED_REQUIRED.contains(e))
        .collect();
    if !unsupported.is_empty() {
        return Err(format!(
            "unsupported: required extension {}",
            unsupported.join(", ")
        ));
    }
    // Indices, byte ranges and accessor types, checked before the gltf crate's validation
    // (which indexes the POSITION accessor unchecked) and its readers (which panic on
    // component types and strides they do not expect) see the document.
    super::gltf_check::check(gltf.document.as_json())
        .map_err(|e| format!("malformed glTF: {e}"))?;
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| format!("invalid glTF: {e}"))?;
    let buffers = load_buffers(&gltf.document, gltf.blob.clone(), read)?;
    // A last guard: a malformed file must be an error, not a crash of the build, even where
    // the checks above miss something the gltf crate's readers assume.
    let document = &gltf.document;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        read_scene(document, &buffers, read, options)
    }))
    .unwrap_or_else(|_| Err("malformed glTF: the gltf crate's reader panicked on it".into()))
}

/// A column-major 4x4 matrix.
pub type Mat4 = glam::Mat4;

/// What a URI names: inline bytes, or a file to read (relative to the model, or absolute for
/// `file:` URIs).
fn resolve_uri(uri: &str) -> Result<Result<Vec<u8>, String>, String> {
    if let Some(data) = uri.strip_prefix("data:") {
        let (_, b64) = data
            .split_once(";base64,")
            .ok_or("a data: URI that is not base64")?;
        use base64::Engine;
        return base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map(Ok)
            .map_err(|e| format!("bad base64 in a data: URI: {e}"));
    }
    if let Some(path) = uri
        .strip_prefix("file://")
        .or_else(|| uri.strip_prefix("file:"))
    {
        return Ok(Err(path.to_owned()));
    }
    if uri.contains(':') {
        return Err(format!("unsupported URI scheme in {uri:?}"));
    }
    Ok(Err(percent_decode(uri)))
}

/// The document's buffers: the GLB blob, data: URIs, or side files through `read`; each padded
/// to a multiple of 4 bytes, as the gltf crate's own loader does.
fn load_buffers(
    document: &gltf::Document,
    mut blob: Option<Vec<u8>>,
    read: &mut ReadSide<'_>,
) -> Result<Vec<gltf::buffer::Data>, String> {
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let mut data = match buffer.source() {
            gltf::buffer::Source::Bin => blob.take().ok_or("cannot load buffers: no BIN chunk")?,
            gltf::buffer::Source::Uri(uri) => match resolve_uri(uri)? {
                Ok(inline) => inline,
                Err(path) => read(&path).map_err(|e| format!("cannot load buffer: {e}"))?,
            },
        };
        if data.len() < buffer.length() {
            return Err(format!(
                "buffer {} holds {} bytes, {} declared",
                buffer.index(),
                data.len(),
                buffer.length()
            ));
        }
        while data.len() % 4 != 0 {
            data.push(0);
        }
        buffers.push(gltf::buffer::Data(data));
    }
    Ok(buffers)
}

/// The document's meshes (as the options pick and place them), materials, skeleton, clips
/// and image bytes.
fn read_scene(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    read: &mut ReadSide<'_>,
    options: &ImportOptions<'_>,
) -> Result<Scene, String> {
    let mut scene = Scene::default();
    let skin = skins::exported_skin(document, options.skins, &mut scene);
    let skinned_meshes = skins::skinned_meshes(document, skin.as_ref());
    let instances = nodes::mesh_instances(document, options, &skinned_meshes)?;
    // Node -> its mesh instance's (first target, target count), for weight channels.
    let mut morph_of_node: HashMap<usize, (u32, u8)> = HashMap::new();
    for instance in &instances {
        let (first_target, targets) =
            morphs::instance_targets(document, instance, &mut scene, &mut morph_of_node)?;
        let mesh_index = instance.mesh.index();
        for primitive in instance.mesh.primitives() {
            let Some(mut baked) = primitives::read_primitive(
                &primitive,
                mesh_index,
                buffers,
                skinned_meshes.contains(&mesh_index),
                (targets > 0).then_some(first_target),
                &mut scene,
            )?
            else {
                continue;
            };
            transform_primitive(&mut baked, &instance.matrix);
            scene.primitives.push(baked);
        }
    }
    materials::read_materials(document, &mut scene);
    let joints = match &skin {
        Some(skin) => skins::read_skeleton(document, buffers, skin, &mut scene)?,
        None => Default::default(),
    };
    // `mesh.ignore_skin` leaves out animation as well as skinning.
    if options.skins {
        animation::read_clips(document, buffers, &joints, &morph_of_node, &mut scene)?;
    }
    read_images(document, buffers, read, &mut scene)?;
    Ok(scene)
}

/// Each image's bytes (`None`, with a warning, when they cannot be loaded), into
/// `scene.images`.
fn read_images(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    read: &mut ReadSide<'_>,
    scene: &mut Scene,
) -> Result<(), String> {
    for image in document.images() {
        let loaded: Result<Vec<u8>, String> = match image.source() {
            gltf::image::Source::View { view, .. } => {
                let data = &buffers
                    .get(view.buffer().index())
                    .ok_or("image buffer missing")?
                    .0;
                data.get(view.offset()..view.offset() + view.length())
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| format!("bufferView {} is out of its buffer", view.index()))
            }
            gltf::image::Source::Uri { uri, .. } => match resolve_uri(uri) {
                Ok(Ok(inline)) => Ok(inline),
                Ok(Err(path)) => read(&path).map_err(|e| format!("{path:?}: {e}")),
                Err(e) => Err(e),
            },
        };
        match loaded {
            Ok(bytes) => {
                scene.images.push(Some(bytes));
                scene.image_errors.push(None);
            }
            Err(why) => {
                scene.warnings.push(format!(
                    "image {} could not be loaded ({why})",
                    image.index()
                ));
                scene.images.push(None);
                scene.image_errors.push(Some(why));
            }
        }
    }
    Ok(())
}
/// Decodes `%XX` escapes in a relative URI.
pub fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(v) = u8::from_str_radix(
                std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"),
                16,
            ) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
