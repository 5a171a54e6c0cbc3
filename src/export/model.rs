//! A baked model ([`Model`]) as a USD layer: one `Mesh` (the submeshes as `GeomSubset`s of
//! the `materialBind` family when there are several), a `UsdPreviewSurface` material per
//! slot with its textures as PNG, and the skeleton and clips as UsdSkel ([`super::skel`]).
//!
//! hearth's meshes follow glTF: Y up, metres, counter-clockwise front faces (USD's
//! `rightHanded`), UV origin at the top left. USD's is at the bottom left, so `st` is
//! `(u, 1 - v)`.

use crate::export::layer::{identifier, unique_name, Attribute, Layer, Prim, Value};
use crate::export::texture::png_of;
use crate::format::hmat::AlphaMode;
use crate::read::model::{Model, ModelMaterial, ModelTexture};
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
    let skinned = view.skeleton.is_some() && view.skin().is_some();
    let mut root = Prim::def(&root_name, if skinned { "SkelRoot" } else { "Xform" });
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
    let mut mesh = mesh_prim(model, &material_paths);
    let mut metadata = vec![
        ("defaultPrim".to_owned(), Value::Token(root_name.clone())),
        ("metersPerUnit".to_owned(), Value::Double(1.0)),
        ("upAxis".to_owned(), Value::Token("Y".into())),
    ];
    if skinned {
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

/// The `Mesh` prim: points, triangles, normals, `st`, vertex colours, extent, and each
/// submesh's material binding (on the mesh, or on one `GeomSubset` per submesh).
fn mesh_prim(model: &Model, material_paths: &[String]) -> Prim {
    let view = model.mesh.view();
    let indices = view.indices_u32();
    let mut mesh = Prim::def("Mesh", "Mesh");
    let points: Vec<[f32; 3]> = view.positions().collect();
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    // Each submesh's triangles, in order; `faces` is its range of face numbers.
    let mut corners = Vec::with_capacity(indices.len());
    let mut faces = Vec::with_capacity(model.submeshes.len());
    for part in &model.submeshes {
        let s = part.submesh;
        let first = corners.len() / 3;
        let range = s.first_index as usize..(s.first_index as usize + s.index_count as usize);
        for &i in indices.get(range).unwrap_or_default() {
            corners.push((i + s.base_vertex) as i32);
        }
        faces.push(first as i32..(corners.len() / 3) as i32);
    }
    let face_count = corners.len() / 3;
    let vertex = || Value::Token("vertex".into());
    let double_sided = model.material_slots.iter().any(|m| m.double_sided);
    mesh.attr(Attribute::uniform(
        "doubleSided",
        "bool",
        Value::Bool(double_sided),
    ))
    .attr(Attribute::new(
        "extent",
        "float3[]",
        Value::Float3Array(if points.is_empty() {
            Vec::new()
        } else {
            vec![lo, hi]
        }),
    ))
    .attr(Attribute::new(
        "faceVertexCounts",
        "int[]",
        Value::IntArray(vec![3; face_count]),
    ))
    .attr(Attribute::new(
        "faceVertexIndices",
        "int[]",
        Value::IntArray(corners),
    ))
    .attr(
        Attribute::new(
            "normals",
            "normal3f[]",
            Value::Float3Array(view.normals().collect()),
        )
        .with("interpolation", vertex()),
    )
    .attr(Attribute::new(
        "points",
        "point3f[]",
        Value::Float3Array(points),
    ))
    .attr(
        Attribute::new(
            "primvars:st",
            "texCoord2f[]",
            Value::Float2Array(view.uvs().map(|[u, v]| [u, 1.0 - v]).collect()),
        )
        .with("interpolation", vertex()),
    )
    .attr(Attribute::uniform(
        "subdivisionScheme",
        "token",
        Value::Token("none".into()),
    ));
    if let Some(colors) = view.colors_f32() {
        let (rgb, alpha): (Vec<[f32; 3]>, Vec<f32>) =
            colors.map(|[r, g, b, a]| ([r, g, b], a)).unzip();
        mesh.attr(
            Attribute::new(
                "primvars:displayColor",
                "color3f[]",
                Value::Float3Array(rgb),
            )
            .with("interpolation", vertex()),
        );
        mesh.attr(
            Attribute::new(
                "primvars:displayOpacity",
                "float[]",
                Value::FloatArray(alpha),
            )
            .with("interpolation", vertex()),
        );
    }
    let binding = |part: &crate::read::model::ModelSubmesh| {
        let slot = part.material.as_ref()?.slot as usize;
        material_paths.get(slot).cloned()
    };
    match model.submeshes.as_slice() {
        [only] => {
            if let Some(target) = binding(only) {
                mesh.api_schemas.push("MaterialBindingAPI".into());
                mesh.rel("material:binding", vec![target]);
            }
        }
        parts => {
            mesh.attr(Attribute::uniform(
                "subsetFamily:materialBind:familyType",
                "token",
                Value::Token("nonOverlapping".into()),
            ));
            for (i, (part, range)) in parts.iter().zip(faces).enumerate() {
                let mut subset = Prim::def(&format!("Submesh_{i}"), "GeomSubset");
                subset
                    .attr(Attribute::uniform(
                        "elementType",
                        "token",
                        Value::Token("face".into()),
                    ))
                    .attr(Attribute::uniform(
                        "familyName",
                        "token",
                        Value::Token("materialBind".into()),
                    ))
                    .attr(Attribute::new(
                        "indices",
                        "int[]",
                        Value::IntArray(range.collect()),
                    ));
                if let Some(target) = binding(part) {
                    subset.api_schemas.push("MaterialBindingAPI".into());
                    subset.rel("material:binding", vec![target]);
                }
                mesh.children.push(subset);
            }
        }
    }
    mesh
}

/// A `UsdUVTexture` shader reading `file` at the material's `st`, `scale * texel + bias`.
fn texture_shader(
    name: &str,
    material: &str,
    file: String,
    srgb: bool,
    (scale, bias): ([f32; 4], [f32; 4]),
    outputs: &[(&str, &str)],
) -> Prim {
    let mut shader = Prim::def(name, "Shader");
    let token = |s: &str| Value::Token(s.into());
    shader
        .attr(Attribute::uniform(
            "info:id",
            "token",
            token("UsdUVTexture"),
        ))
        .attr(Attribute::new("inputs:bias", "float4", Value::Float4(bias)))
        .attr(Attribute::new("inputs:file", "asset", Value::Asset(file)))
        .attr(Attribute::new(
            "inputs:scale",
            "float4",
            Value::Float4(scale),
        ))
        .attr(Attribute::new(
            "inputs:sourceColorSpace",
            "token",
            token(if srgb { "sRGB" } else { "raw" }),
        ))
        .attr(
            Attribute::declared("inputs:st", "float2")
                .connected(format!("{material}/TexCoordReader.outputs:result")),
        )
        .attr(Attribute::new("inputs:wrapS", "token", token("repeat")))
        .attr(Attribute::new("inputs:wrapT", "token", token("repeat")));
    for (output, type_name) in outputs {
        shader.attr(Attribute::declared(&format!("outputs:{output}"), type_name));
    }
    shader
}

/// A `Material` with a `UsdPreviewSurface` for one slot, its texture shaders and the `st`
/// reader they share.
fn material_prim(
    m: &ModelMaterial,
    name: &str,
    path: &str,
    textures: &mut Textures<'_>,
) -> Result<Prim, String> {
    let mut material = Prim::def(name, "Material");
    let surface_path = format!("{path}/PreviewSurface");
    material.attr(
        Attribute::declared("outputs:surface", "token")
            .connected(format!("{surface_path}.outputs:surface")),
    );
    let mut surface = Prim::def("PreviewSurface", "Shader");
    surface.attr(Attribute::uniform(
        "info:id",
        "token",
        Value::Token("UsdPreviewSurface".into()),
    ));
    let mut shaders = Vec::new();
    let [r, g, b, a] = m.base_color_factor;
    let zero = [0.0f32; 4];
    let input =
        |surface: &mut Prim, name: &str, type_name: &str, value: Value, link: Option<String>| {
            let attr = match link {
                Some(target) => {
                    Attribute::declared(&format!("inputs:{name}"), type_name).connected(target)
                }
                None => Attribute::new(&format!("inputs:{name}"), type_name, value),
            };
            surface.attr(attr);
        };
    let base = match &m.base_color {
        Some(t) => {
            let file = textures.file(t, false)?;
            shaders.push(texture_shader(
                "BaseColorTexture",
                path,
                file,
                true,
                ([r, g, b, a], zero),
                &[("rgb", "float3"), ("a", "float")],
            ));
            true
        }
        None => false,
    };
    let link = |on: bool, shader: &str, output: &str| {
        on.then(|| format!("{path}/{shader}.outputs:{output}"))
    };
    input(
        &mut surface,
        "diffuseColor",
        "color3f",
        Value::Float3([r, g, b]),
        link(base, "BaseColorTexture", "rgb"),
    );
    if m.alpha_mode != AlphaMode::Opaque {
        input(
            &mut surface,
            "opacity",
            "float",
            Value::Float(a),
            link(base, "BaseColorTexture", "a"),
        );
    }
    if m.alpha_mode == AlphaMode::Mask {
        input(
            &mut surface,
            "opacityThreshold",
            "float",
            Value::Float(m.alpha_cutoff),
            None,
        );
    }
    let mr = match &m.metallic_roughness {
        Some(t) => {
            let file = textures.file(t, false)?;
            let scale = [1.0, m.roughness_factor, m.metallic_factor, 1.0];
            shaders.push(texture_shader(
                "MetallicRoughnessTexture",
                path,
                file,
                false,
                (scale, zero),
                &[("g", "float"), ("b", "float")],
            ));
            true
        }
        None => false,
    };
    input(
        &mut surface,
        "metallic",
        "float",
        Value::Float(m.metallic_factor),
        link(mr, "MetallicRoughnessTexture", "b"),
    );
    input(
        &mut surface,
        "roughness",
        "float",
        Value::Float(m.roughness_factor),
        link(mr, "MetallicRoughnessTexture", "g"),
    );
    let [er, eg, eb] = m.emissive_factor;
    let emissive = match &m.emissive {
        Some(t) => {
            let file = textures.file(t, false)?;
            shaders.push(texture_shader(
                "EmissiveTexture",
                path,
                file,
                true,
                ([er, eg, eb, 1.0], zero),
                &[("rgb", "float3")],
            ));
            true
        }
        None => false,
    };
    input(
        &mut surface,
        "emissiveColor",
        "color3f",
        Value::Float3(m.emissive_factor),
        link(emissive, "EmissiveTexture", "rgb"),
    );
    if let Some(t) = &m.normal {
        let file = textures.file(t, true)?;
        // Texels 0..1 to -1..1, X and Y scaled by glTF's normal scale.
        let s = m.row.normal_scale;
        let scale_bias = ([2.0 * s, 2.0 * s, 2.0, 1.0], [-s, -s, -1.0, 0.0]);
        shaders.push(texture_shader(
            "NormalTexture",
            path,
            file,
            false,
            scale_bias,
            &[("rgb", "float3")],
        ));
        input(
            &mut surface,
            "normal",
            "normal3f",
            Value::Float3([0.0, 0.0, 1.0]),
            link(true, "NormalTexture", "rgb"),
        );
    }
    if let Some(t) = &m.occlusion {
        let file = textures.file(t, false)?;
        // glTF's strength: 1 + strength * (texel - 1).
        let k = m.row.occlusion_strength;
        shaders.push(texture_shader(
            "OcclusionTexture",
            path,
            file,
            false,
            ([k, k, k, 1.0], [1.0 - k, 1.0 - k, 1.0 - k, 0.0]),
            &[("r", "float")],
        ));
        input(
            &mut surface,
            "occlusion",
            "float",
            Value::Float(1.0),
            link(true, "OcclusionTexture", "r"),
        );
    }
    input(
        &mut surface,
        "useSpecularWorkflow",
        "int",
        Value::Int(0),
        None,
    );
    surface.attr(Attribute::declared("outputs:surface", "token"));
    material.children.push(surface);
    if !shaders.is_empty() {
        let mut reader = Prim::def("TexCoordReader", "Shader");
        reader
            .attr(Attribute::uniform(
                "info:id",
                "token",
                Value::Token("UsdPrimvarReader_float2".into()),
            ))
            .attr(Attribute::new(
                "inputs:varname",
                "string",
                Value::String("st".into()),
            ))
            .attr(Attribute::declared("outputs:result", "float2"));
        material.children.push(reader);
        material.children.extend(shaders);
    }
    Ok(material)
}
