//! A baked model ([`Model`]) as a USD layer: one `Mesh` (the submeshes as `GeomSubset`s of
//! the `materialBind` family when there are several), a `UsdPreviewSurface` material per
//! slot with its textures as PNG, and the skeleton and clips as UsdSkel ([`super::skel`]).
//!
//! hearth's meshes follow glTF: Y up, metres, counter-clockwise front faces (USD's
//! `rightHanded`), UV origin at the top left. USD's is at the bottom left, so `st` is
//! `(u, 1 - v)`.

use crate::export::layer::{identifier, token, unique_name, Attribute, Layer, Prim, Value};
use crate::export::texture::png_of;
use crate::format::hmat::AlphaMode;
use crate::read::material::TextureUv;
use crate::read::model::{Model, ModelMaterial, ModelSubmesh, ModelTexture};
use std::collections::{HashMap, HashSet};

/// A model as USD: the layer and the PNG files it names (path relative to the layer, bytes).
#[derive(Debug, Clone)]
pub struct UsdModel {
    /// The layer.
    pub layer: Layer,
    /// The textures the layer's `inputs:file` attributes name, in order of first use.
    pub textures: Vec<(String, Vec<u8>)>,
}

/// The PNGs written so far, by (texture hash, rebuilt as a normal map).
struct Textures<'a> {
    dir: &'a str,
    by_key: HashMap<(u64, bool), String>,
    names: HashSet<String>,
    files: Vec<(String, Vec<u8>)>,
}

impl Textures<'_> {
    /// The layer-relative path of `texture`'s PNG, encoding it on first use.
    fn file(&mut self, texture: &ModelTexture, normal: bool) -> Result<String, String> {
        if let Some(path) = self.by_key.get(&(texture.hash, normal)) {
            return Ok(path.clone());
        }
        let stem = texture.path.rsplit('/').next().unwrap_or(&texture.path);
        let stem = stem.strip_suffix(".ktx2").unwrap_or(stem);
        let name = unique_name(&identifier(stem), &mut self.names);
        let path = format!("{}/{name}.png", self.dir);
        let png = png_of(texture.texture.view(), normal, &texture.path)?;
        self.files.push((path.clone(), png));
        self.by_key.insert((texture.hash, normal), path.clone());
        Ok(path)
    }
}

/// `model` as a USD layer whose root prim is `name` (made an identifier) and whose PNGs live
/// under `texture_dir` (relative to the layer). Errors name the texture that could not be
/// decoded.
pub fn model_to_usd(model: &Model, name: &str, texture_dir: &str) -> Result<UsdModel, String> {
    let root_name = identifier(name);
    let root_path = format!("/{root_name}");
    let view = model.mesh.view();
    // A skin or blend shapes: either needs a SkelRoot and a Skeleton.
    let uses_skel = (view.skeleton.is_some() && view.skin().is_some())
        || view
            .morph_targets
            .as_ref()
            .is_some_and(|m| !m.targets.is_empty());
    let mut root = Prim::def(&root_name, if uses_skel { "SkelRoot" } else { "Xform" });
    root.metadata
        .push(("kind".into(), Value::Token("component".into())));
    let mut textures = Textures {
        dir: texture_dir,
        by_key: HashMap::new(),
        names: HashSet::new(),
        files: Vec::new(),
    };
    // Materials first: the mesh's bindings name their paths.
    let mut materials = Prim::def("Materials", "Scope");
    let mut material_paths = Vec::new();
    let mut taken = HashSet::new();
    for material in &model.material_slots {
        let label = material.name.rsplit('#').next().unwrap_or(&material.name);
        let prim_name = unique_name(&identifier(label), &mut taken);
        let path = format!("{root_path}/Materials/{prim_name}");
        materials
            .children
            .push(material_prim(material, &prim_name, &path, &mut textures)?);
        material_paths.push(path);
    }
    let mut mesh = mesh_prim(model, &material_paths)?;
    let mut metadata = vec![
        ("defaultPrim".to_owned(), Value::Token(root_name.clone())),
        ("metersPerUnit".to_owned(), Value::Double(1.0)),
        ("upAxis".to_owned(), Value::Token("Y".into())),
    ];
    if uses_skel {
        let times = crate::export::skel::add_skeleton(model, &mut root, &mut mesh, &root_path);
        metadata.extend(times);
    }
    root.children.push(mesh);
    if !materials.children.is_empty() {
        root.children.push(materials);
    }
    Ok(UsdModel {
        layer: Layer {
            metadata,
            prims: vec![root],
        },
        textures: textures.files,
    })
}

/// Each submesh's triangles, in order, as face-vertex indices, and each submesh's range of
/// face numbers. An index past the vertices is an error.
fn triangles(model: &Model) -> Result<(Vec<i32>, Vec<std::ops::Range<i32>>), String> {
    let view = model.mesh.view();
    let indices = view.indices_u32();
    let mut corners = Vec::with_capacity(indices.len());
    let mut faces = Vec::with_capacity(model.submeshes.len());
    for part in &model.submeshes {
        let s = part.submesh;
        let first = corners.len() / 3;
        let range = s.first_index as usize..(s.first_index as usize + s.index_count as usize);
        for &i in indices.get(range).unwrap_or_default() {
            let corner = i
                .checked_add(s.base_vertex)
                .filter(|&c| (c as usize) < view.vertex_count())
                .ok_or("a submesh index past the mesh's vertices")?;
            corners.push(corner as i32);
        }
        faces.push(first as i32..(corners.len() / 3) as i32);
    }
    Ok((corners, faces))
}

/// The `Mesh` prim: points, triangles, normals, `st`, vertex colours, extent, and each
/// submesh's material binding (on the mesh, or on one `GeomSubset` per submesh).
fn mesh_prim(model: &Model, material_paths: &[String]) -> Result<Prim, String> {
    let view = model.mesh.view();
    let (corners, faces) = triangles(model)?;
    let points: Vec<[f32; 3]> = view.positions().collect();
    let mut extent = Vec::new();
    if let Some(&first) = points.first() {
        let (mut lo, mut hi) = (first, first);
        for p in &points {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        extent = vec![lo, hi];
    }
    let double_sided = model.material_slots.iter().any(|m| m.double_sided);
    let st: Vec<[f32; 2]> = view.uvs().map(|[u, v]| [u, 1.0 - v]).collect();
    let mut mesh = Prim::def("Mesh", "Mesh");
    mesh.set_uniform("doubleSided", "bool", Value::Bool(double_sided))
        .set("extent", "float3[]", Value::Float3Array(extent))
        .set(
            "faceVertexCounts",
            "int[]",
            Value::IntArray(vec![3; corners.len() / 3]),
        )
        .set("faceVertexIndices", "int[]", Value::IntArray(corners))
        .set_vertex(
            "normals",
            "normal3f[]",
            Value::Float3Array(view.normals().collect()),
        )
        .set("points", "point3f[]", Value::Float3Array(points))
        .set_vertex("primvars:st", "texCoord2f[]", Value::Float2Array(st))
        .set_uniform("subdivisionScheme", "token", token("none"));
    if let Some(uvs1) = view.uvs1() {
        let st1 = uvs1.iter().map(|&[u, v]| [u, 1.0 - v]).collect();
        mesh.set_vertex("primvars:st1", "texCoord2f[]", Value::Float2Array(st1));
    }
    if let Some(colors) = view.colors_f32() {
        let (rgb, alpha): (Vec<[f32; 3]>, Vec<f32>) =
            colors.map(|[r, g, b, a]| ([r, g, b], a)).unzip();
        mesh.set_vertex(
            "primvars:displayColor",
            "color3f[]",
            Value::Float3Array(rgb),
        )
        .set_vertex(
            "primvars:displayOpacity",
            "float[]",
            Value::FloatArray(alpha),
        );
    }
    let binding = |part: &ModelSubmesh| {
        let slot = part.material.as_ref()?.slot as usize;
        material_paths.get(slot).cloned()
    };
    match model.submeshes.as_slice() {
        [] => {}
        [only] => {
            if let Some(target) = binding(only) {
                mesh.api_schemas.push("MaterialBindingAPI".into());
                mesh.rel("material:binding", vec![target]);
            }
        }
        parts => {
            let family = "subsetFamily:materialBind:familyType";
            mesh.set_uniform(family, "token", token("nonOverlapping"));
            for (i, (part, range)) in parts.iter().zip(faces).enumerate() {
                let mut subset = Prim::def(&format!("Submesh_{i}"), "GeomSubset");
                subset
                    .set_uniform("elementType", "token", token("face"))
                    .set_uniform("familyName", "token", token("materialBind"))
                    .set("indices", "int[]", Value::IntArray(range.collect()));
                if let Some(target) = binding(part) {
                    subset.api_schemas.push("MaterialBindingAPI".into());
                    subset.rel("material:binding", vec![target]);
                }
                mesh.children.push(subset);
            }
        }
    }
    Ok(mesh)
}

/// A material's `UsdPreviewSurface` being built, with the texture shaders it reads.
struct Surface<'a, 'b> {
    /// The material's path.
    path: &'a str,
    surface: Prim,
    shaders: Vec<Prim>,
    textures: &'a mut Textures<'b>,
    /// Which UV sets' primvar readers the texture shaders read (`st`, `st1`).
    readers: [bool; 2],
}

impl Surface<'_, '_> {
    /// Sets input `name` to `value`, or connects it to `link` (`shader`, `output`).
    fn input(&mut self, name: &str, type_name: &str, value: Value, link: Option<(&str, &str)>) {
        let name = format!("inputs:{name}");
        self.surface.attr(match link {
            Some((shader, output)) => Attribute::declared(&name, type_name)
                .connected(format!("{}/{shader}.outputs:{output}", self.path)),
            None => Attribute::new(&name, type_name, value),
        });
    }

    /// Adds a `UsdUVTexture` named `name` reading `texture` (its PNG `normal`-rebuilt when
    /// asked) at the UVs `uv` says, `scale * texel + bias`, with `outputs`; returns `name` for
    /// `input`'s link.
    fn texture<'n>(
        &mut self,
        name: &'n str,
        (texture, normal, srgb): (&ModelTexture, bool, bool),
        uv: TextureUv,
        (scale, bias): ([f32; 4], [f32; 4]),
        outputs: &[(&str, &str)],
    ) -> Result<&'n str, String> {
        let file = self.textures.file(texture, normal)?;
        let st = self.coordinates(name, uv);
        let mut shader = Prim::def(name, "Shader");
        shader
            .set_uniform("info:id", "token", token("UsdUVTexture"))
            .set("inputs:bias", "float4", Value::Float4(bias))
            .set("inputs:file", "asset", Value::Asset(file))
            .set("inputs:scale", "float4", Value::Float4(scale))
            .set(
                "inputs:sourceColorSpace",
                "token",
                token(if srgb { "sRGB" } else { "raw" }),
            )
            .attr(Attribute::declared("inputs:st", "float2").connected(st))
            .set("inputs:wrapS", "token", token("repeat"))
            .set("inputs:wrapT", "token", token("repeat"));
        for (output, type_name) in outputs {
            shader.attr(Attribute::declared(&format!("outputs:{output}"), type_name));
        }
        self.shaders.push(shader);
        Ok(name)
    }

    /// The output a texture shader `name` reads its coordinates from: its UV set's primvar
    /// reader, through a `UsdTransform2d` of its own when the slot has a transform.
    fn coordinates(&mut self, name: &str, uv: TextureUv) -> String {
        let set = usize::from(uv.set.min(1));
        self.readers[set] = true;
        let reader = format!("{}/{}.outputs:result", self.path, READERS[set].0);
        if uv.is_identity() {
            return reader;
        }
        let (scale, rotation, translation) = usd_transform2d(&uv);
        let transform_name = format!("{name}Transform");
        let mut transform = Prim::def(&transform_name, "Shader");
        transform
            .set_uniform("info:id", "token", token("UsdTransform2d"))
            .attr(Attribute::declared("inputs:in", "float2").connected(reader))
            .set("inputs:rotation", "float", Value::Float(rotation))
            .set("inputs:scale", "float2", Value::Float2(scale))
            .set("inputs:translation", "float2", Value::Float2(translation))
            .attr(Attribute::declared("outputs:result", "float2"));
        self.shaders.push(transform);
        format!("{}/{transform_name}.outputs:result", self.path)
    }
}

/// The primvar readers of a material, per UV set: the shader's name and the primvar it reads.
const READERS: [(&str, &str); 2] = [("TexCoordReader", "st"), ("TexCoordReader1", "st1")];

/// A slot's UV transform as `UsdTransform2d` inputs (scale, rotation in degrees
/// counter-clockwise, translation), in USD's `st` space, whose V runs up where glTF's runs
/// down: the glTF matrix `M` conjugated by the flip `F(u, v) = (u, 1 - v)`, which
/// `KHR_texture_transform`'s translation · rotation · scale (no shear) always decomposes into.
fn usd_transform2d(uv: &TextureUv) -> ([f32; 2], f32, [f32; 2]) {
    let [[a, b, c], [d, e, f]] = uv.matrix;
    // F·M·F: linear part [[a, -b], [-d, e]], translation (b + c, 1 - e - f).
    let (column0, column1) = ([a, -d], [-b, e]);
    let angle = column0[1].atan2(column0[0]);
    let (sin, cos) = angle.sin_cos();
    let scale_u = column0[0].hypot(column0[1]);
    // Signed, so a mirrored axis stays mirrored.
    let scale_v = -sin * column1[0] + cos * column1[1];
    ([scale_u, scale_v], angle.to_degrees(), [b + c, 1.0 - e - f])
}

/// The inputs glTF's metallic-roughness model maps to: base colour and alpha, metallic and
/// roughness (the ORM texture's B and G), emission.
fn pbr_inputs(s: &mut Surface<'_, '_>, m: &ModelMaterial) -> Result<(), String> {
    const ZERO: [f32; 4] = [0.0; 4];
    let [r, g, b, a] = m.base_color_factor;
    let base = match &m.base_color {
        Some(t) => Some(s.texture(
            "BaseColorTexture",
            (t, false, true),
            m.uvs[0],
            ([r, g, b, a], ZERO),
            &[("rgb", "float3"), ("a", "float")],
        )?),
        None => None,
    };
    s.input(
        "diffuseColor",
        "color3f",
        Value::Float3([r, g, b]),
        base.map(|t| (t, "rgb")),
    );
    if m.alpha_mode != AlphaMode::Opaque {
        s.input("opacity", "float", Value::Float(a), base.map(|t| (t, "a")));
    }
    if m.alpha_mode == AlphaMode::Mask {
        s.input(
            "opacityThreshold",
            "float",
            Value::Float(m.alpha_cutoff),
            None,
        );
    }
    let mr = match &m.metallic_roughness {
        Some(t) => {
            let scale = [1.0, m.roughness_factor, m.metallic_factor, 1.0];
            Some(s.texture(
                "MetallicRoughnessTexture",
                (t, false, false),
                m.uvs[1],
                (scale, ZERO),
                &[("g", "float"), ("b", "float")],
            )?)
        }
        None => None,
    };
    s.input(
        "metallic",
        "float",
        Value::Float(m.metallic_factor),
        mr.map(|t| (t, "b")),
    );
    s.input(
        "roughness",
        "float",
        Value::Float(m.roughness_factor),
        mr.map(|t| (t, "g")),
    );
    let [er, eg, eb] = m.emissive_factor;
    let emissive = match &m.emissive {
        Some(t) => Some(s.texture(
            "EmissiveTexture",
            (t, false, true),
            m.uvs[4],
            ([er, eg, eb, 1.0], ZERO),
            &[("rgb", "float3")],
        )?),
        None => None,
    };
    s.input(
        "emissiveColor",
        "color3f",
        Value::Float3(m.emissive_factor),
        emissive.map(|t| (t, "rgb")),
    );
    Ok(())
}

/// A `Material` with a `UsdPreviewSurface` for one slot, its texture shaders and the `st`
/// reader they share.
fn material_prim(
    m: &ModelMaterial,
    name: &str,
    path: &str,
    textures: &mut Textures<'_>,
) -> Result<Prim, String> {
    let mut surface = Prim::def("PreviewSurface", "Shader");
    surface.set_uniform("info:id", "token", token("UsdPreviewSurface"));
    let mut s = Surface {
        path,
        surface,
        shaders: Vec::new(),
        textures,
        readers: [false; 2],
    };
    pbr_inputs(&mut s, m)?;
    if let Some(t) = &m.normal {
        // Texels 0..1 to -1..1, X and Y scaled by glTF's normal scale.
        let k = m.row.normal_scale;
        let scale_bias = ([2.0 * k, 2.0 * k, 2.0, 1.0], [-k, -k, -1.0, 0.0]);
        let shader = s.texture(
            "NormalTexture",
            (t, true, false),
            m.uvs[2],
            scale_bias,
            &[("rgb", "float3")],
        )?;
        s.input(
            "normal",
            "normal3f",
            Value::Bool(false),
            Some((shader, "rgb")),
        );
    }
    if let Some(t) = &m.occlusion {
        // glTF's strength: 1 + strength * (texel - 1).
        let k = m.row.occlusion_strength;
        let scale_bias = ([k, k, k, 1.0], [1.0 - k, 1.0 - k, 1.0 - k, 0.0]);
        let shader = s.texture(
            "OcclusionTexture",
            (t, false, false),
            m.uvs[3],
            scale_bias,
            &[("r", "float")],
        )?;
        s.input(
            "occlusion",
            "float",
            Value::Bool(false),
            Some((shader, "r")),
        );
    }
    s.input("useSpecularWorkflow", "int", Value::Int(0), None);
    s.surface
        .attr(Attribute::declared("outputs:surface", "token"));
    let mut material = Prim::def(name, "Material");
    material.attr(
        Attribute::declared("outputs:surface", "token")
            .connected(format!("{path}/PreviewSurface.outputs:surface")),
    );
    material.children.push(s.surface);
    for (used, (reader_name, primvar)) in s.readers.iter().zip(READERS) {
        if *used {
            let mut reader = Prim::def(reader_name, "Shader");
            reader
                .set_uniform("info:id", "token", token("UsdPrimvarReader_float2"))
                .set("inputs:varname", "string", Value::String(primvar.into()))
                .attr(Attribute::declared("outputs:result", "float2"));
            material.children.push(reader);
        }
    }
    material.children.extend(s.shaders);
    Ok(material)
}
