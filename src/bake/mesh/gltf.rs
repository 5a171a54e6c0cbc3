//! glTF 2.0 import (`.gltf` + `.bin`, data URIs, external images, `.glb`) through the `gltf`
//! crate, into plain triangle lists per primitive. Images are not decoded here: their bytes go
//! to the texture pipeline once, with the mode their material slot dictates.

use crate::format::hanim::{Channel, ChannelPath, Clip, Interpolation};
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
pub type Mat4 = [[f32; 4]; 4];

/// `a * b`.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (c, column) in out.iter_mut().enumerate() {
        for (r, value) in column.iter_mut().enumerate() {
            *value = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    out
}

fn transform_point(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|r| m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r])
}

fn transform_vector(m: &Mat4, v: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|r| m[0][r] * v[0] + m[1][r] * v[1] + m[2][r] * v[2])
}

fn length(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 0.0 {
        v.map(|c| c / len)
    } else {
        v
    }
}

/// The inverse transpose of the upper 3x3 (for normals), as columns; and the determinant.
fn normal_matrix(m: &Mat4) -> ([[f32; 3]; 3], f32) {
    let a = |r: usize, c: usize| m[c][r];
    let cof = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)
    };
    let det = a(0, 0) * cof(0, 0) + a(0, 1) * cof(0, 1) + a(0, 2) * cof(0, 2);
    // inverse transpose = cofactor matrix / det; the scale does not matter after normalizing,
    // but the sign does.
    let s = if det < 0.0 { -1.0 } else { 1.0 };
    (
        std::array::from_fn(|c| std::array::from_fn(|r| cof(r, c) * s)),
        det,
    )
}

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

fn read_scene(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    read: &mut ReadSide<'_>,
    options: &ImportOptions<'_>,
) -> Result<Scene, String> {
    let (skins, user) = (options.skins, &options.user);
    let mut scene = Scene::default();
    // Only the first skin is exported (as assetc does); meshes bound to others stay static.
    let skin = document.skins().next().filter(|_| skins);
    if skins && document.skins().len() > 1 {
        scene.warnings.push(format!(
            "{} skins: only the first is exported",
            document.skins().len()
        ));
    }
    // A set: it is looked up once per mesh and per primitive.
    let skinned_meshes: std::collections::HashSet<usize> = match &skin {
        Some(skin) => document
            .nodes()
            .filter(|n| n.skin().is_some_and(|s| s.index() == skin.index()))
            .filter_map(|n| n.mesh().map(|m| m.index()))
            .collect(),
        None => Default::default(),
    };
    // (mesh, world matrix) pairs: every mesh node of the default scene with `merge`, else each
    // mesh once in its own space.
    let identity: Mat4 = [
        [1., 0., 0., 0.],
        [0., 1., 0., 0.],
        [0., 0., 1., 0.],
        [0., 0., 0., 1.],
    ];
    // (mesh, matrix, the node when each node is its own instance)
    let mut instances: Vec<(gltf::Mesh<'_>, Mat4, Option<gltf::Node<'_>>)> = Vec::new();
    let wanted = |node: Option<&gltf::Node<'_>>, mesh: &gltf::Mesh<'_>| match options.mesh_name {
        None => true,
        Some(name) => match node {
            Some(node) => node.name() == Some(name) || mesh.name() == Some(name),
            None => mesh.name() == Some(name),
        },
    };
    if options.merge || options.scene_name.is_some() {
        let root = match options.scene_name {
            Some(name) => Some(
                document
                    .scenes()
                    .find(|s| s.name() == Some(name))
                    .ok_or_else(|| {
                        let names: Vec<&str> =
                            document.scenes().map(|s| s.name().unwrap_or("")).collect();
                        format!("no scene named {name:?} (the file has {names:?})")
                    })?,
            ),
            None => document
                .default_scene()
                .or_else(|| document.scenes().next()),
        };
        let mut stack: Vec<(gltf::Node<'_>, Mat4)> = root
            .iter()
            .flat_map(|s| s.nodes())
            .map(|n| (n, identity))
            .collect();
        let mut visited = 0usize;
        while let Some((node, parent)) = stack.pop() {
            visited += 1;
            if visited > document.nodes().len() * 4 + 16 {
                return Err("node hierarchy has a cycle".into());
            }
            let world = mul(&parent, &node.transform().matrix());
            if let Some(mesh) = node.mesh().filter(|mesh| wanted(Some(&node), mesh)) {
                if !options.merge {
                    // A scene picked by name without merging: each of its meshes once, in
                    // its own space.
                    if !instances.iter().any(|(m, _, _)| m.index() == mesh.index()) {
                        let skinned = skinned_meshes.contains(&mesh.index());
                        instances.push((mesh, if skinned { identity } else { *user }, None));
                    }
                } else if node.skin().is_some() {
                    // Skinned meshes are never baked into world space (glTF ignores their node
                    // transform), nor moved by the mesh settings (their bind matrices would no
                    // longer match).
                    instances.push((mesh, identity, Some(node.clone())));
                } else {
                    instances.push((mesh, mul(user, &world), Some(node.clone())));
                }
            }
            stack.extend(node.children().map(|c| (c, world)));
        }
        // Depth-first order reversed by the stack: sort for a stable, source-like order.
        instances.sort_by_key(|(mesh, _, _)| mesh.index());
    } else {
        instances = document
            .meshes()
            .filter(|m| {
                wanted(None, m)
                    || document.nodes().any(|n| {
                        n.mesh().is_some_and(|own| own.index() == m.index()) && wanted(Some(&n), m)
                    })
            })
            .map(|m| {
                let skinned = skinned_meshes.contains(&m.index());
                (m, if skinned { identity } else { *user }, None)
            })
            .collect();
    }
    if let (Some(name), true) = (options.mesh_name, instances.is_empty()) {
        let mut names: Vec<&str> = document
            .nodes()
            .filter(|n| n.mesh().is_some())
            .filter_map(|n| n.name())
            .chain(document.meshes().filter_map(|m| m.name()))
            .collect();
        names.sort_unstable();
        names.dedup();
        return Err(format!(
            "no mesh node or mesh named {name:?} (the file has {names:?})"
        ));
    }

    // Node -> its mesh instance's (first target, target count), for weight channels.
    let mut morph_of_node: HashMap<usize, (u32, u8)> = HashMap::new();
    for (mesh, world, node) in &instances {
        let targets = mesh
            .primitives()
            .map(|p| p.morph_targets().len())
            .max()
            .unwrap_or(0);
        let first_target = scene.morph_weights.len() as u32;
        if targets > 0 {
            if targets > u8::MAX as usize {
                return Err(format!(
                    "mesh {}: {targets} morph targets; .hanim weight channels hold at most 255",
                    mesh.index()
                ));
            }
            if mesh
                .primitives()
                .any(|p| p.morph_targets().len() != targets)
            {
                return Err(format!(
                    "mesh {}: its primitives have different numbers of morph targets",
                    mesh.index()
                ));
            }
            let weights: Vec<f32> = node
                .as_ref()
                .and_then(|n| n.weights())
                .or(mesh.weights())
                .map(<[f32]>::to_vec)
                .unwrap_or_else(|| vec![0.0; targets]);
            if weights.len() != targets || weights.iter().any(|w| !w.is_finite()) {
                return Err(format!(
                    "mesh {}: {} default morph weights for {targets} targets",
                    mesh.index(),
                    weights.len()
                ));
            }
            scene.morph_weights.extend(weights);
            let entry = (first_target, targets as u8);
            match node {
                Some(node) => {
                    morph_of_node.insert(node.index(), entry);
                }
                // Each mesh once: every node showing it is animated through this instance.
                None => {
                    for n in document.nodes() {
                        if n.mesh().is_some_and(|m| m.index() == mesh.index()) {
                            morph_of_node.entry(n.index()).or_insert(entry);
                        }
                    }
                }
            }
        }
        for primitive in mesh.primitives() {
            use gltf::mesh::Mode;
            let mode = primitive.mode();
            if matches!(
                mode,
                Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
            ) {
                scene.warnings.push(format!(
                    "mesh {}: {mode:?} primitive skipped (only triangles are baked)",
                    mesh.index()
                ));
                continue;
            }
            // .hmesh keeps two UV sets and one color set: say what is left behind.
            for (semantic, name) in [
                (gltf::Semantic::Colors(1), "COLOR_1"),
                (gltf::Semantic::TexCoords(2), "TEXCOORD_2"),
            ] {
                if primitive.get(&semantic).is_some() {
                    scene.warnings.push(format!("mesh {}: {name} (and any later set) is not kept (.hmesh keeps TEXCOORD_0, TEXCOORD_1 and COLOR_0)", mesh.index()));
                }
            }
            let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(|d| &d.0[..]));
            let positions: Vec<[f32; 3]> = reader
                .read_positions()
                .ok_or("a primitive has no POSITION")?
                .collect();
            if let Some(bad) = positions.iter().find(|p| p.iter().any(|c| !c.is_finite())) {
                return Err(format!(
                    "mesh {}: non-finite position {bad:?}",
                    mesh.index()
                ));
            }
            let count = positions.len();
            let list: Vec<u32> = match reader.read_indices() {
                Some(indices) => indices.into_u32().collect(),
                None => (0..count as u32).collect(),
            };
            if let Some(bad) = list.iter().find(|i| **i as usize >= count) {
                return Err(format!(
                    "mesh {}: index {bad} out of range ({count} vertices)",
                    mesh.index()
                ));
            }
            let indices = match mode {
                Mode::Triangles => list[..list.len() / 3 * 3].to_vec(),
                Mode::TriangleStrip => (2..list.len())
                    .flat_map(|i| if i % 2 == 0 { [list[i - 2], list[i - 1], list[i]] } else { [list[i - 1], list[i - 2], list[i]] })
                    .collect(),
                _ /* fan */ => (2..list.len()).flat_map(|i| [list[0], list[i - 1], list[i]]).collect(),
            };
            let normals = reader.read_normals().map(|n| n.collect::<Vec<_>>());
            let tangents = reader.read_tangents().map(|t| t.collect::<Vec<_>>());
            let uvs = reader
                .read_tex_coords(0)
                .map(|t| t.into_f32().collect::<Vec<_>>());
            let uvs1 = reader
                .read_tex_coords(1)
                .map(|t| t.into_f32().collect::<Vec<_>>());
            let colors = reader
                .read_colors(0)
                .map(|c| c.into_rgba_f32().collect::<Vec<_>>());
            for (name, len) in [
                ("NORMAL", normals.as_ref().map(|v| v.len())),
                ("TANGENT", tangents.as_ref().map(|v| v.len())),
                ("TEXCOORD_0", uvs.as_ref().map(|v| v.len())),
                ("TEXCOORD_1", uvs1.as_ref().map(|v| v.len())),
                ("COLOR_0", colors.as_ref().map(|v| v.len())),
            ] {
                if len.is_some_and(|len| len != count) {
                    return Err(format!(
                        "mesh {}: {name} has {} values for {count} positions",
                        mesh.index(),
                        len.unwrap_or(0)
                    ));
                }
            }
            let skin_data = if skinned_meshes.contains(&mesh.index()) {
                match (reader.read_joints(0), reader.read_weights(0)) {
                    (Some(joints), Some(weights)) => {
                        let joints: Vec<[u16; 4]> = joints.into_u16().collect();
                        let weights: Vec<[f32; 4]> = weights.into_f32().collect();
                        if joints.len() != count || weights.len() != count {
                            return Err(format!(
                                "mesh {}: JOINTS_0/WEIGHTS_0 do not match POSITION",
                                mesh.index()
                            ));
                        }
                        Some(
                            joints
                                .into_iter()
                                .zip(weights)
                                .map(|(j, w)| normalize_weights(j, w))
                                .collect(),
                        )
                    }
                    _ => None,
                }
            } else {
                None
            };
            let morph = if targets > 0 {
                Some(
                    read_morph_targets(
                        &reader,
                        count,
                        first_target,
                        normals.is_some(),
                        tangents.is_some(),
                    )
                    .map_err(|e| format!("mesh {}: {e}", mesh.index()))?,
                )
            } else {
                None
            };
            let mut baked = Primitive {
                positions,
                normals,
                tangents,
                uvs,
                uvs1,
                colors,
                indices,
                material: primitive.material().index(),
                skin: skin_data,
                morph,
            };
            transform_primitive(&mut baked, world);
            scene.primitives.push(baked);
        }
    }

    let mut uv_transforms: std::collections::HashMap<usize, UvTransform> = Default::default();
    for material in document.materials() {
        let pbr = material.pbr_metallic_roughness();
        let texture = |info: Option<gltf::texture::Info<'_>>| {
            info.map(|i| TextureRef {
                image: i.texture().source().index(),
            })
        };
        let emissive_strength = material.emissive_strength().unwrap_or(1.0);
        let alpha_mode = match material.alpha_mode() {
            gltf::material::AlphaMode::Opaque => 0,
            gltf::material::AlphaMode::Mask => 1,
            gltf::material::AlphaMode::Blend => 2,
        };
        scene.materials.push(Material {
            name: material.name().unwrap_or("").to_owned(),
            base_color: pbr.base_color_factor(),
            emissive: material.emissive_factor().map(|c| c * emissive_strength),
            metallic: pbr.metallic_factor(),
            roughness: pbr.roughness_factor(),
            normal_scale: material.normal_texture().map(|n| n.scale()).unwrap_or(1.0),
            occlusion_strength: material
                .occlusion_texture()
                .map(|o| o.strength())
                .unwrap_or(1.0),
            alpha_cutoff: material.alpha_cutoff().unwrap_or(0.5),
            alpha_mode,
            double_sided: material.double_sided(),
            base_color_tex: texture(pbr.base_color_texture()),
            metallic_roughness_tex: texture(pbr.metallic_roughness_texture()),
            normal_tex: material.normal_texture().map(|n| TextureRef {
                image: n.texture().source().index(),
            }),
            occlusion_tex: material.occlusion_texture().map(|o| TextureRef {
                image: o.texture().source().index(),
            }),
            emissive_tex: texture(material.emissive_texture()),
            texture_transforms: [None; 5],
            second_uv_set: [false; 5],
            extensions: material_extensions(&material, document),
        });
        let baked = scene.materials.len() - 1;
        if let Some(shared) = texture_transforms(&material, &mut scene) {
            uv_transforms.insert(baked, shared);
        }
    }
    // One transform shared by all of a material's textures goes into its primitives' UVs
    // (each primitive has vertices of its own, so no other material's UVs move).
    for primitive in &mut scene.primitives {
        let shared = primitive.material.and_then(|m| uv_transforms.get(&m));
        if let (Some(shared), Some(uvs)) = (shared, &mut primitive.uvs) {
            uvs.iter_mut().for_each(|uv| *uv = shared.apply(*uv));
        }
    }

    let joint_of = match &skin {
        Some(skin) => read_skeleton(document, buffers, skin, &mut scene)?,
        None => HashMap::new(),
    };
    // `mesh.ignore_skin` leaves out animation as well as skinning.
    if skins {
        read_clips(document, buffers, &joint_of, &morph_of_node, &mut scene)?;
    }

    for image in document.images() {
        let bytes = match image.source() {
            gltf::image::Source::View { view, .. } => {
                let data = &buffers
                    .get(view.buffer().index())
                    .ok_or("image buffer missing")?
                    .0;
                data.get(view.offset()..view.offset() + view.length())
                    .map(<[u8]>::to_vec)
            }
            gltf::image::Source::Uri { uri, .. } => match resolve_uri(uri) {
                Ok(Ok(inline)) => Some(inline),
                Ok(Err(path)) => read(&path).ok(),
                Err(_) => None,
            },
        };
        if bytes.is_none() {
            scene
                .warnings
                .push(format!("image {} could not be loaded", image.index()));
        }
        scene.images.push(bytes);
    }
    Ok(scene)
}

/// A primitive's morph targets (`count` vertices each), checked: every attribute a target
/// has matches the vertex count and is finite; targets without an attribute get zero deltas.
/// Normal (tangent) deltas are kept when the primitive has normals (tangents) and a target
/// moves them.
fn read_morph_targets<'a, 's, F>(
    reader: &gltf::mesh::Reader<'a, 's, F>,
    count: usize,
    first_target: u32,
    has_normals: bool,
    has_tangents: bool,
) -> Result<MorphDeltas, String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    type Deltas = Vec<Vec<[f32; 3]>>;
    let (mut positions, mut normals, mut tangents): (Deltas, Deltas, Deltas) = Default::default();
    let (mut any_normals, mut any_tangents) = (false, false);
    for (t, (p, n, tg)) in reader.read_morph_targets().enumerate() {
        let take = |what: &str, values: Option<Vec<[f32; 3]>>, any: &mut bool| match values {
            Some(values) if values.len() != count => Err(format!(
                "morph target {t}: {what} has {} values for {count} positions",
                values.len()
            )),
            Some(values) if values.iter().flatten().any(|c| !c.is_finite()) => {
                Err(format!("morph target {t}: non-finite {what} delta"))
            }
            Some(values) => {
                *any = true;
                Ok(values)
            }
            None => Ok(vec![[0.0; 3]; count]),
        };
        let mut unused = false;
        positions.push(take("POSITION", p.map(Iterator::collect), &mut unused)?);
        normals.push(take("NORMAL", n.map(Iterator::collect), &mut any_normals)?);
        tangents.push(take(
            "TANGENT",
            tg.map(Iterator::collect),
            &mut any_tangents,
        )?);
    }
    Ok(MorphDeltas {
        first_target,
        positions,
        normals: (any_normals && has_normals).then_some(normals),
        tangents: (any_tangents && has_tangents).then_some(tangents),
    })
}

/// Moves a primitive by `m`: positions by `m`, normals by its inverse transpose, tangents by
/// `m`; a mirroring `m` (negative determinant) flips the triangle winding and the tangents'
/// handedness so surfaces keep facing their normals.
pub fn transform_primitive(p: &mut Primitive, m: &Mat4) {
    let (normal_m, det) = normal_matrix(m);
    let normal_transform = |n: [f32; 3]| -> [f32; 3] {
        std::array::from_fn(|r| {
            normal_m[0][r] * n[0] + normal_m[1][r] * n[1] + normal_m[2][r] * n[2]
        })
    };
    // Morph deltas move with the vectors they change: positions by `m`'s linear part; normal
    // and tangent deltas as their base vectors, scaled by the same factor the base vector's
    // renormalization applies (so base + delta, renormalized, is the moved morphed vector).
    if let Some(morph) = &mut p.morph {
        for target in &mut morph.positions {
            target.iter_mut().for_each(|d| *d = transform_vector(m, *d));
        }
        if let (Some(targets), Some(normals)) = (&mut morph.normals, &p.normals) {
            let scales: Vec<f32> = normals
                .iter()
                .map(|n| 1.0 / length(normal_transform(*n)).max(1e-20))
                .collect();
            for target in targets {
                for (d, scale) in target.iter_mut().zip(&scales) {
                    *d = normal_transform(*d).map(|c| c * scale);
                }
            }
        }
        if let (Some(targets), Some(tangents)) = (&mut morph.tangents, &p.tangents) {
            let scales: Vec<f32> = tangents
                .iter()
                .map(|t| 1.0 / length(transform_vector(m, [t[0], t[1], t[2]])).max(1e-20))
                .collect();
            for target in targets {
                for (d, scale) in target.iter_mut().zip(&scales) {
                    *d = transform_vector(m, *d).map(|c| c * scale);
                }
            }
        }
    }
    for position in &mut p.positions {
        *position = transform_point(m, *position);
    }
    if let Some(normals) = &mut p.normals {
        for n in normals.iter_mut() {
            *n = normalize(normal_transform(*n));
        }
    }
    if let Some(tangents) = &mut p.tangents {
        for t in tangents.iter_mut() {
            let v = normalize(transform_vector(m, [t[0], t[1], t[2]]));
            *t = [v[0], v[1], v[2], if det < 0.0 { -t[3] } else { t[3] }];
        }
    }
    if det < 0.0 {
        p.indices.chunks_exact_mut(3).for_each(|t| t.swap(1, 2));
    }
}

/// Weights renormalized to sum 1; a weightless vertex binds rigidly to joint 0.
/// The `KHR_texture_transform` of each textured slot of `material` (the last one pushed to
/// `scene.materials`): one transform shared by every textured slot is returned, to be baked
/// into the UVs; different ones are kept in the material's `texture_transforms`. A slot that
/// asks for another UV set than the first is warned about (.hmesh keeps one).
fn texture_transforms(material: &gltf::Material<'_>, scene: &mut Scene) -> Option<UvTransform> {
    let typed = |info: Option<gltf::texture::Info<'_>>| {
        info.map(|info| {
            let Some(t) = info.texture_transform() else {
                return (
                    None,
                    (info.tex_coord() != 0).then_some(info.tex_coord() as u64),
                );
            };
            let transform = UvTransform {
                offset: t.offset(),
                rotation: t.rotation(),
                scale: t.scale(),
            };
            let tex_coord = t.tex_coord().unwrap_or(info.tex_coord());
            (
                transform.is_kept().then_some(transform),
                (tex_coord != 0).then_some(tex_coord as u64),
            )
        })
    };
    let raw = |value: Option<&gltf::json::Value>, tex_coord: u32| match value {
        Some(value) => {
            let (transform, set) = UvTransform::from_json(value);
            (
                transform,
                set.or((tex_coord != 0).then_some(tex_coord as u64)),
            )
        }
        None => (None, (tex_coord != 0).then_some(tex_coord as u64)),
    };
    let pbr = material.pbr_metallic_roughness();
    let slots: [Option<(Option<UvTransform>, Option<u64>)>; 5] = [
        typed(pbr.base_color_texture()),
        typed(pbr.metallic_roughness_texture()),
        material
            .normal_texture()
            .map(|n| raw(n.extension_value("KHR_texture_transform"), n.tex_coord())),
        material
            .occlusion_texture()
            .map(|o| raw(o.extension_value("KHR_texture_transform"), o.tex_coord())),
        typed(material.emissive_texture()),
    ];
    let name = material.name().unwrap_or("");
    // TEXCOORD_1 is kept (the slot says so in the material); later sets are not.
    let mut second_set = [false; 5];
    for (slot, (_, set)) in slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s.as_ref()?)))
    {
        match set {
            Some(1) => second_set[slot] = true,
            Some(set) => scene.warnings.push(format!(
                "material {name:?}: a texture samples TEXCOORD_{set}, which is not kept (.hmesh keeps two UV sets); it samples TEXCOORD_0"
            )),
            None => {}
        }
    }
    if let Some(baked) = scene.materials.last_mut() {
        baked.second_uv_set = second_set;
    }
    let extensions = scene
        .materials
        .last()
        .map(|m| m.extensions.clone())
        .unwrap_or_default();
    let extension_transforms = extensions
        .iter()
        .filter(|e| e.texture.is_some())
        .map(|e| e.transform);
    let used: Vec<Option<UvTransform>> = slots
        .iter()
        .flatten()
        .map(|(t, _)| *t)
        .chain(extension_transforms)
        .collect();
    let first = *used.first()?;
    // A transform goes into TEXCOORD_0 only when every texture samples that set.
    if used.iter().all(|t| *t == first) && !second_set.contains(&true) {
        return first;
    }
    for extension in extensions.iter().filter(|e| e.transform.is_some()) {
        scene.warnings.push(format!(
            "material {name:?}: the KHR_texture_transform of extension texture (property {}) differs from the material's other textures' and is not kept",
            extension.id
        ));
    }
    let kept = slots.map(|slot| slot.and_then(|(t, _)| t));
    if let Some(baked) = scene.materials.last_mut() {
        baked.texture_transforms = kept;
    }
    None
}

/// The PBR extensions of `material` hearth keeps, read from their JSON (absent members take
/// the extensions' defaults), in property id order.
fn material_extensions(
    material: &gltf::Material<'_>,
    document: &gltf::Document,
) -> Vec<MaterialExtension> {
    use crate::format::hmat::property;
    use gltf::json::Value;
    let number = |v: &Value, key: &str, default: f32| {
        v.get(key)
            .and_then(Value::as_f64)
            .map_or(default, |n| n as f32)
    };
    let rgb = |v: &Value, key: &str, default: [f32; 3]| {
        v.get(key)
            .and_then(Value::as_array)
            .and_then(|a| {
                Some([
                    a.first()?.as_f64()? as f32,
                    a.get(1)?.as_f64()? as f32,
                    a.get(2)?.as_f64()? as f32,
                ])
            })
            .unwrap_or(default)
    };
    let texture = |v: &Value, key: &str, usage: TextureUse| {
        let info = v.get(key)?;
        let texture = document
            .textures()
            .nth(info.get("index")?.as_u64()? as usize)?;
        let transform = info
            .get("extensions")
            .and_then(|e| e.get("KHR_texture_transform"))
            .and_then(|t| UvTransform::from_json(t).0);
        Some((
            (
                TextureRef {
                    image: texture.source().index(),
                },
                usage,
            ),
            transform,
        ))
    };
    let mut out = Vec::new();
    let mut push =
        |id: u32,
         value: [f32; 4],
         found: Option<((TextureRef, TextureUse), Option<UvTransform>)>| {
            out.push(MaterialExtension {
                id,
                // JSON numbers past f32's range would not be finite.
                value: value.map(|x| if x.is_finite() { x } else { 0.0 }),
                texture: found.map(|(t, _)| t),
                transform: found.and_then(|(_, transform)| transform),
            })
        };
    let extension = |name: &str| material.extension_value(name);
    use TextureUse::{Color, Linear, Normal};
    if let Some(v) = extension("KHR_materials_transmission") {
        let factor = number(v, "transmissionFactor", 0.0);
        push(
            property::TRANSMISSION,
            [factor, 0.0, 0.0, 0.0],
            texture(v, "transmissionTexture", Linear),
        );
    }
    if let Some(v) = extension("KHR_materials_clearcoat") {
        let value = [
            number(v, "clearcoatFactor", 0.0),
            number(v, "clearcoatRoughnessFactor", 0.0),
            0.0,
            0.0,
        ];
        push(
            property::CLEARCOAT,
            value,
            texture(v, "clearcoatTexture", Linear),
        );
        if let Some(found) = texture(v, "clearcoatRoughnessTexture", Linear) {
            push(property::CLEARCOAT_ROUGHNESS, [0.0; 4], Some(found));
        }
        if let Some(found) = texture(v, "clearcoatNormalTexture", Normal) {
            let scale = v
                .get("clearcoatNormalTexture")
                .map_or(1.0, |t| number(t, "scale", 1.0));
            push(
                property::CLEARCOAT_NORMAL,
                [scale, 0.0, 0.0, 0.0],
                Some(found),
            );
        }
    }
    if let Some(v) = extension("KHR_materials_sheen") {
        let [r, g, b] = rgb(v, "sheenColorFactor", [0.0; 3]);
        let roughness = number(v, "sheenRoughnessFactor", 0.0);
        push(
            property::SHEEN,
            [r, g, b, roughness],
            texture(v, "sheenColorTexture", Color),
        );
        // Its alpha channel: linear in sRGB textures too, so it shares the color map's
        // encoding (the two are often one image).
        if let Some(found) = texture(v, "sheenRoughnessTexture", Color) {
            push(property::SHEEN_ROUGHNESS, [0.0; 4], Some(found));
        }
    }
    if let Some(v) = extension("KHR_materials_ior") {
        push(property::IOR, [number(v, "ior", 1.5), 0.0, 0.0, 0.0], None);
    }
    if let Some(v) = extension("KHR_materials_specular") {
        let factor = number(v, "specularFactor", 1.0);
        push(
            property::SPECULAR,
            [factor, 0.0, 0.0, 0.0],
            // Alpha again: shares the specular color map's encoding.
            texture(v, "specularTexture", Color),
        );
        let [r, g, b] = rgb(v, "specularColorFactor", [1.0; 3]);
        push(
            property::SPECULAR_COLOR,
            [r, g, b, 0.0],
            texture(v, "specularColorTexture", Color),
        );
    }
    if let Some(v) = extension("KHR_materials_volume") {
        let distance = number(v, "attenuationDistance", 0.0);
        let value = [
            number(v, "thicknessFactor", 0.0),
            if distance.is_finite() { distance } else { 0.0 },
            0.0,
            0.0,
        ];
        push(
            property::VOLUME,
            value,
            texture(v, "thicknessTexture", Linear),
        );
        let [r, g, b] = rgb(v, "attenuationColor", [1.0; 3]);
        push(property::VOLUME_ATTENUATION, [r, g, b, 0.0], None);
    }
    if extension("KHR_materials_unlit").is_some() {
        push(property::UNLIT, [0.0; 4], None);
    }
    out
}

fn normalize_weights(joints: [u16; 4], weights: [f32; 4]) -> ([u16; 4], [f32; 4]) {
    let weights = weights.map(|w| if w.is_finite() && w > 0.0 { w } else { 0.0 });
    let sum: f32 = weights.iter().sum();
    if sum > 0.0 {
        (joints, weights.map(|w| w / sum))
    } else {
        ([0; 4], [1.0, 0.0, 0.0, 0.0])
    }
}

/// The skin's joints (SKEL) and the animation channels that target them (.hanim).
fn read_skeleton(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    skin: &gltf::Skin<'_>,
    scene: &mut Scene,
) -> Result<HashMap<usize, usize>, String> {
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d.0[..]);
    let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    // Node -> joint, looked up per joint (its parent) and per animation channel. The first
    // occurrence wins, as a search of `joint_nodes` would find it.
    let mut joint_of: HashMap<usize, usize> = HashMap::with_capacity(joint_nodes.len());
    for (joint, node) in joint_nodes.iter().enumerate() {
        joint_of.entry(*node).or_insert(joint);
    }
    let mut parent_of = vec![None; document.nodes().len()];
    for node in document.nodes() {
        for child in node.children() {
            parent_of[child.index()] = Some(node.index());
        }
    }
    let inverse_binds: Vec<[[f32; 4]; 4]> = match skin.reader(data).read_inverse_bind_matrices() {
        Some(matrices) => matrices.collect(),
        None => vec![
            [
                [1., 0., 0., 0.],
                [0., 1., 0., 0.],
                [0., 0., 1., 0.],
                [0., 0., 0., 1.]
            ];
            joint_nodes.len()
        ],
    };
    if inverse_binds.len() != joint_nodes.len() {
        return Err(format!(
            "skin {}: {} inverse bind matrices for {} joints",
            skin.index(),
            inverse_binds.len(),
            joint_nodes.len()
        ));
    }
    let joints = skin
        .joints()
        .zip(&inverse_binds)
        .map(|(node, inverse_bind)| {
            let (t, r, s) = node.transform().decomposed();
            let parent = parent_of[node.index()]
                .and_then(|p| joint_of.get(&p).copied())
                .map(|p| p as i32)
                .unwrap_or(-1);
            GpuJoint {
                inverse_bind: std::array::from_fn(|i| inverse_bind[i / 4][i % 4]),
                bind_t: t,
                bind_r: r,
                bind_s: s,
                parent,
                pad: 0,
            }
        })
        .collect();
    scene.skeleton = Some(joints);
    scene.joint_names = skin
        .joints()
        .map(|node| node.name().unwrap_or("").to_owned())
        .collect();

    Ok(joint_of)
}

/// Animation clips: channels on the skeleton's joints (`joint_of`: node -> joint) and
/// morph-weight channels on mesh instances with targets (`morph_of_node`: node -> first
/// target and count). Channels on other nodes are skipped with a warning.
fn read_clips(
    document: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    joint_of: &HashMap<usize, usize>,
    morph_of_node: &HashMap<usize, (u32, u8)>,
    scene: &mut Scene,
) -> Result<(), String> {
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d.0[..]);
    for animation in document.animations() {
        let name = animation.name().unwrap_or("").to_owned();
        if name.len() > u16::MAX as usize {
            // `.hanim` stores a clip name's length in 16 bits.
            return Err(format!(
                "animation {}: name is {} bytes long; .hanim clip names are at most 65535 bytes",
                animation.index(),
                name.len()
            ));
        }
        let mut clip = Clip {
            name: name.clone(),
            duration: 0.0,
            channels: Vec::new(),
        };
        let (mut skipped_nodes, mut cubic) = (0, false);
        for channel in animation.channels() {
            let node = channel.target().node().index();
            let is_weights =
                channel.target().property() == gltf::animation::Property::MorphTargetWeights;
            // (target index, morph target count: 0 for joint channels)
            let target = if is_weights {
                morph_of_node
                    .get(&node)
                    .map(|&(first, count)| (first, count))
            } else {
                joint_of.get(&node).map(|&joint| (joint as u32, 0))
            };
            let Some((target, morph_targets)) = target else {
                skipped_nodes += 1;
                continue;
            };
            let reader = channel.reader(data);
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or("animation channel without input")?
                .collect();
            use gltf::animation::util::ReadOutputs;
            let (path, values): (ChannelPath, Vec<f32>) = match reader
                .read_outputs()
                .ok_or("animation channel without output")?
            {
                ReadOutputs::Translations(v) => (ChannelPath::Translation, v.flatten().collect()),
                ReadOutputs::Rotations(v) => {
                    (ChannelPath::Rotation, v.into_f32().flatten().collect())
                }
                ReadOutputs::Scales(v) => (ChannelPath::Scale, v.flatten().collect()),
                ReadOutputs::MorphTargetWeights(v) => {
                    (ChannelPath::Weights, v.into_f32().collect())
                }
            };
            let n = path.joint_components().unwrap_or(morph_targets as usize);
            let (interpolation, values) = match channel.sampler().interpolation() {
                gltf::animation::Interpolation::Step => (Interpolation::Step, values),
                gltf::animation::Interpolation::Linear => (Interpolation::Linear, values),
                gltf::animation::Interpolation::CubicSpline => {
                    // Keep the value of each (in-tangent, value, out-tangent) triple.
                    cubic = true;
                    let kept = values
                        .chunks_exact(3 * n)
                        .flat_map(|triple| triple[n..2 * n].to_vec())
                        .collect();
                    (Interpolation::Linear, kept)
                }
            };
            if values.len() != times.len() * n
                || times.iter().any(|t| !t.is_finite())
                || times.windows(2).any(|w| w[0] > w[1])
            {
                return Err(format!("animation {name:?}: channel keys are inconsistent"));
            }
            clip.duration = clip.duration.max(times.last().copied().unwrap_or(0.0));
            clip.channels.push(Channel {
                joint: target,
                path,
                interpolation,
                times,
                values,
                morph_targets,
            });
        }
        if skipped_nodes > 0 {
            scene.warnings.push(format!(
                "animation {name:?}: {skipped_nodes} channels on nodes that are neither joints \
                 of the skin nor meshes with morph targets skipped"
            ));
        }
        if cubic {
            scene.warnings.push(format!(
                "animation {name:?}: CUBICSPLINE degraded to LINEAR"
            ));
        }
        if !clip.channels.is_empty() {
            scene.clips.push(clip);
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
