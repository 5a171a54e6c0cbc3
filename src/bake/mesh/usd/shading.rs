//! UsdShade networks as glTF-style materials: a Material's `outputs:surface` followed to its
//! UsdPreviewSurface, each input read as a value, a UsdUVTexture (with its file, colour space,
//! wrap modes, scale and bias, channel, UV set and UsdTransform2d) or a primvar reader.
//! openusd's own preview-surface reader returns only a texture's file, so the graph is walked
//! here.

use super::resolver::ConfinedResolver;
use super::values;
use crate::bake::mesh::gltf::{Material, MaterialExtension, TextureRef, UvTransform};
use crate::format::hmat::property;
use openusd::sdf::{Path, Value};
use openusd::usd::Stage;
use std::collections::HashMap;

/// The most connections followed from one input (node graphs, interface inputs).
const MAX_HOPS: usize = 32;

/// A UsdUVTexture an input reads.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureInput {
    /// The file's resolved identifier (or its authored path when unresolved).
    pub file: String,
    /// The path as the layer wrote it, for messages.
    pub authored: String,
    /// The output read: `rgb`, `r`, `g`, `b` or `a`.
    pub channel: String,
    /// `inputs:scale` and `inputs:bias` (RGBA).
    pub scale: [f64; 4],
    /// See `scale`.
    pub bias: [f64; 4],
    /// The primvar its `st` reads (`None`: unconnected, USD's fallback `st`).
    pub uv_set: Option<String>,
    /// A UsdTransform2d between the primvar reader and the texture.
    pub transform: Option<UvTransform>,
}

/// The UV set a material's textures read.
#[derive(Debug, Clone, PartialEq)]
pub struct Uv {
    /// The primvar's name (USD's fallback `st` when no reader names one).
    pub set: String,
    /// A UsdTransform2d, in USD's UV space (V up).
    pub transform: Option<UvTransform>,
}

impl Default for Uv {
    fn default() -> Self {
        Self {
            set: "st".into(),
            transform: None,
        }
    }
}

/// What one surface input is.
#[derive(Debug, Clone)]
enum Input {
    Unset,
    Value(Value),
    Texture(TextureInput),
    Primvar(String),
}

/// The materials of one import, by path, with the images their textures read.
#[derive(Default)]
pub struct Shading {
    index: HashMap<String, usize>,
    /// Materials in first-use order.
    pub materials: Vec<Material>,
    /// The UV primvar each material's textures read, and its transform (by material index).
    pub uvs: Vec<Uv>,
    /// Whether a material's diffuse colour is the mesh's `displayColor` (a primvar reader).
    pub uses_display_color: Vec<bool>,
    /// Encoded image bytes, by image index.
    pub images: Vec<Option<Vec<u8>>>,
    image_index: HashMap<String, usize>,
    /// Warnings.
    pub warnings: Vec<String>,
}

impl Shading {
    /// The index of the material at `path`, read on first use.
    pub fn material(&mut self, stage: &Stage, path: &Path, resolver: &ConfinedResolver) -> usize {
        if let Some(&i) = self.index.get(path.as_str()) {
            return i;
        }
        let (material, uv_set, display) = self.read(stage, path, resolver);
        let i = self.materials.len();
        self.materials.push(material);
        self.uvs.push(uv_set);
        self.uses_display_color.push(display);
        self.index.insert(path.as_str().to_string(), i);
        i
    }

    fn read(
        &mut self,
        stage: &Stage,
        path: &Path,
        resolver: &ConfinedResolver,
    ) -> (Material, Uv, bool) {
        let name = path.name().unwrap_or_default().to_string();
        let mut material = usd_default(&name);
        let Some(surface) = surface_shader(stage, path) else {
            self.warnings.push(format!(
                "material {path}: no UsdPreviewSurface (MaterialX, RenderMan or other shaders are not read); glTF's default material is used"
            ));
            return (gltf_default(&name), Uv::default(), false);
        };
        let inputs: HashMap<&str, Input> = [
            "diffuseColor",
            "emissiveColor",
            "metallic",
            "roughness",
            "opacity",
            "opacityThreshold",
            "normal",
            "occlusion",
            "ior",
            "clearcoat",
            "clearcoatRoughness",
        ]
        .into_iter()
        .map(|n| (n, read_input(stage, &surface, n)))
        .collect();
        let mut uv_sets: Vec<String> = Vec::new();
        let mut transforms: Vec<Option<UvTransform>> = Vec::new();
        let mut display = false;
        match &inputs["diffuseColor"] {
            Input::Value(v) => {
                if let Some(c) = values::vec3(v) {
                    material.base_color = [c[0] as f32, c[1] as f32, c[2] as f32, 1.0];
                }
            }
            Input::Texture(t) => {
                material.base_color =
                    [t.scale[0] as f32, t.scale[1] as f32, t.scale[2] as f32, 1.0];
                material.base_color_tex = self.texture(t, path, resolver);
                note_uv(t, &mut uv_sets, &mut transforms);
            }
            Input::Primvar(name) if name == "displayColor" => {
                material.base_color = [1.0; 4];
                display = true;
            }
            _ => {}
        }
        if let Input::Value(v) = &inputs["emissiveColor"] {
            if let Some(c) = values::vec3(v) {
                material.emissive = [c[0] as f32, c[1] as f32, c[2] as f32];
            }
        } else if let Input::Texture(t) = &inputs["emissiveColor"] {
            material.emissive = [t.scale[0] as f32, t.scale[1] as f32, t.scale[2] as f32];
            material.emissive_tex = self.texture(t, path, resolver);
            note_uv(t, &mut uv_sets, &mut transforms);
        }
        self.metal_rough(
            &inputs,
            &mut material,
            path,
            resolver,
            &mut uv_sets,
            &mut transforms,
        );
        self.opacity(&inputs, &mut material, path);
        if let Input::Texture(t) = &inputs["normal"] {
            material.normal_tex = self.texture(t, path, resolver);
            // n = texel · scale + bias; glTF's scale multiplies x, y of the standard 2t − 1.
            material.normal_scale = (t.scale[0] / 2.0) as f32;
            if (t.bias[0] + t.scale[0] / 2.0).abs() > 1e-3 || (t.scale[2] - 2.0).abs() > 1e-3 {
                self.warnings.push(format!(
                    "material {path}: normal map scale {:?} / bias {:?} are not the usual (2, 2, 2) / (-1, -1, -1): read as a standard normal map",
                    t.scale, t.bias
                ));
            }
            note_uv(t, &mut uv_sets, &mut transforms);
        }
        if let Input::Texture(t) = &inputs["occlusion"] {
            material.occlusion_tex = self.texture(t, path, resolver);
            note_uv(t, &mut uv_sets, &mut transforms);
        }
        let scalar = |name: &str| match &inputs[name] {
            Input::Value(v) => values::scalar(v).map(|s| s as f32),
            _ => None,
        };
        if let Some(ior) = scalar("ior") {
            material
                .extensions
                .push(extension(property::IOR, [ior, 0.0, 0.0, 0.0]));
        }
        if let Some(coat) = scalar("clearcoat").filter(|c| *c > 0.0) {
            let rough = scalar("clearcoatRoughness").unwrap_or(0.01);
            material
                .extensions
                .push(extension(property::CLEARCOAT, [coat, rough, 0.0, 0.0]));
        }
        let uv_set = self.one_uv_set(path, &uv_sets);
        // The material's one UsdTransform2d is baked into the UVs by the mesh reader.
        if transforms.windows(2).any(|w| w[0] != w[1]) {
            self.warnings.push(format!(
                "material {path}: textures with different UsdTransform2d; the first is used for all"
            ));
        }
        let transform = transforms.iter().flatten().next().copied();
        (
            material,
            Uv {
                set: uv_set,
                transform,
            },
            display,
        )
    }

    fn one_uv_set(&mut self, path: &Path, uv_sets: &[String]) -> String {
        let first = uv_sets.first().cloned().unwrap_or_else(|| "st".into());
        if uv_sets.iter().any(|s| *s != first) {
            self.warnings.push(format!(
                "material {path}: textures read different UV sets {uv_sets:?}; {first:?} is used for all"
            ));
        }
        first
    }

    fn metal_rough(
        &mut self,
        inputs: &HashMap<&str, Input>,
        material: &mut Material,
        path: &Path,
        resolver: &ConfinedResolver,
        uv_sets: &mut Vec<String>,
        transforms: &mut Vec<Option<UvTransform>>,
    ) {
        let value = |input: &Input, default: f32| match input {
            Input::Value(v) => values::scalar(v).map_or(default, |s| s as f32),
            _ => default,
        };
        material.metallic = value(&inputs["metallic"], 0.0);
        material.roughness = value(&inputs["roughness"], 0.5);
        match (&inputs["metallic"], &inputs["roughness"]) {
            (Input::Texture(m), Input::Texture(r))
                if m.file == r.file && m.channel == "b" && r.channel == "g" =>
            {
                // glTF's own packing: one texture, roughness in G and metalness in B.
                material.metallic = m.scale[2] as f32;
                material.roughness = r.scale[1] as f32;
                material.metallic_roughness_tex = self.texture(m, path, resolver);
                note_uv(m, uv_sets, transforms);
            }
            (Input::Texture(t), _) | (_, Input::Texture(t)) => {
                let packed = self.packed_metal_rough(inputs, resolver);
                match packed {
                    Ok(image) => {
                        material.metallic = 1.0;
                        material.roughness = 1.0;
                        material.metallic_roughness_tex = Some(TextureRef { image });
                        note_uv(t, uv_sets, transforms);
                    }
                    Err(why) => self.warnings.push(format!("material {path}: {why}")),
                }
            }
            _ => {}
        }
    }

    /// Metallic and roughness from their own textures (or channels) repacked as glTF's one
    /// texture: roughness in G, metalness in B; a constant input fills its channel.
    fn packed_metal_rough(
        &mut self,
        inputs: &HashMap<&str, Input>,
        resolver: &ConfinedResolver,
    ) -> Result<usize, String> {
        let mut size = None;
        let mut planes: Vec<Result<Vec<u8>, u8>> = Vec::new();
        for (name, default) in [("roughness", 0.5), ("metallic", 0.0)] {
            match &inputs[name] {
                Input::Texture(t) => {
                    let bytes = resolver
                        .read(&t.file)
                        .map_err(|e| format!("{name} texture {}: {e}", t.authored))?;
                    let image = image::load_from_memory(&bytes)
                        .map_err(|e| format!("{name} texture {}: {e}", t.authored))?
                        .to_rgba8();
                    let dims = image.dimensions();
                    if *size.get_or_insert(dims) != dims {
                        return Err(
                            "metallic and roughness textures of different sizes are not repacked"
                                .into(),
                        );
                    }
                    let c = match t.channel.as_str() {
                        "g" => 1,
                        "b" => 2,
                        "a" => 3,
                        _ => 0,
                    };
                    let (scale, bias) = (t.scale[c], t.bias[c]);
                    let plane = image
                        .pixels()
                        .map(|p| {
                            ((p.0[c] as f64 / 255.0 * scale + bias).clamp(0.0, 1.0) * 255.0).round()
                                as u8
                        })
                        .collect();
                    planes.push(Ok(plane));
                }
                Input::Value(v) => planes.push(Err((values::scalar(v)
                    .unwrap_or(default)
                    .clamp(0.0, 1.0)
                    * 255.0)
                    .round() as u8)),
                _ => planes.push(Err((default * 255.0).round() as u8)),
            }
        }
        let (w, h) = size.ok_or("no texture to repack")?;
        let mut packed = image::RgbaImage::new(w, h);
        for (i, pixel) in packed.pixels_mut().enumerate() {
            let at = |p: &Result<Vec<u8>, u8>| match p {
                Ok(v) => v[i],
                Err(c) => *c,
            };
            pixel.0 = [0, at(&planes[0]), at(&planes[1]), 255];
        }
        let mut png = Vec::new();
        packed
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .map_err(|e| e.to_string())?;
        self.images.push(Some(png));
        Ok(self.images.len() - 1)
    }

    fn opacity(&mut self, inputs: &HashMap<&str, Input>, material: &mut Material, path: &Path) {
        let threshold = match &inputs["opacityThreshold"] {
            Input::Value(v) => values::scalar(v).unwrap_or(0.0) as f32,
            _ => 0.0,
        };
        match &inputs["opacity"] {
            Input::Value(v) => {
                let opacity = values::scalar(v).unwrap_or(1.0) as f32;
                material.base_color[3] = opacity;
                if threshold > 0.0 {
                    material.alpha_mode = 1;
                    material.alpha_cutoff = threshold;
                } else if opacity < 1.0 {
                    material.alpha_mode = 2;
                }
            }
            Input::Texture(t) => {
                let same = material.base_color_tex.is_some() && t.channel == "a";
                if !same {
                    self.warnings.push(format!(
                        "material {path}: opacity from {} ({}) is not the diffuse texture's alpha; only that alpha is read",
                        t.authored, t.channel
                    ));
                }
                material.alpha_mode = if threshold > 0.0 { 1 } else { 2 };
                material.alpha_cutoff = if threshold > 0.0 { threshold } else { 0.5 };
            }
            _ => {}
        }
    }

    /// The image a texture input reads, loaded once per file; `None` (with a warning naming
    /// the file and the material) when it cannot be read.
    fn texture(
        &mut self,
        t: &TextureInput,
        material: &Path,
        resolver: &ConfinedResolver,
    ) -> Option<TextureRef> {
        if let Some(&image) = self.image_index.get(&t.file) {
            return self.images[image].is_some().then_some(TextureRef { image });
        }
        let bytes = match resolver.read(&t.file) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                self.warnings.push(format!(
                    "material {material}: texture {:?} could not be read ({e}); the slot is left untextured",
                    t.authored
                ));
                None
            }
        };
        let image = self.images.len();
        let loaded = bytes.is_some();
        self.images.push(bytes);
        self.image_index.insert(t.file.clone(), image);
        loaded.then_some(TextureRef { image })
    }
}

fn note_uv(t: &TextureInput, uv_sets: &mut Vec<String>, transforms: &mut Vec<Option<UvTransform>>) {
    uv_sets.push(t.uv_set.clone().unwrap_or_else(|| "st".into()));
    transforms.push(t.transform);
}

fn extension(id: u32, value: [f32; 4]) -> MaterialExtension {
    MaterialExtension {
        id,
        value,
        texture: None,
        transform: None,
    }
}

/// UsdPreviewSurface's fallbacks (diffuse 0.18 grey, roughness 0.5, not metallic).
fn usd_default(name: &str) -> Material {
    Material {
        base_color: [0.18, 0.18, 0.18, 1.0],
        metallic: 0.0,
        roughness: 0.5,
        ..gltf_default(name)
    }
}

/// glTF's default material (white, metallic 1, roughness 1).
fn gltf_default(name: &str) -> Material {
    Material {
        name: name.to_string(),
        base_color: [1.0; 4],
        emissive: [0.0; 3],
        metallic: 1.0,
        roughness: 1.0,
        normal_scale: 1.0,
        occlusion_strength: 1.0,
        alpha_cutoff: 0.5,
        alpha_mode: 0,
        double_sided: false,
        base_color_tex: None,
        metallic_roughness_tex: None,
        normal_tex: None,
        occlusion_tex: None,
        emissive_tex: None,
        texture_transforms: [None; 5],
        second_uv_set: [false; 5],
        extensions: Vec::new(),
    }
}

/// The prim path and output name a connection of `attr` leads to, followed through node
/// graphs' outputs and the material's interface inputs; `None` when unconnected.
fn follow(stage: &Stage, mut attr: Path) -> Option<(Path, String)> {
    for _ in 0..MAX_HOPS {
        let target = stage
            .attribute(attr.clone())
            .connections()
            .ok()?
            .into_iter()
            .next()?;
        let prim = target.prim_path();
        let property = target.name().unwrap_or_default().to_string();
        let type_name = type_name(stage, &prim);
        if type_name == "Shader" {
            return Some((prim, property));
        }
        // A node graph's output or a material's interface input: keep following, or stop at
        // its own value.
        let connected = stage
            .attribute(target.clone())
            .connections()
            .ok()
            .is_some_and(|c| !c.is_empty());
        if !connected {
            return Some((prim, property));
        }
        attr = target;
    }
    None
}

fn type_name(stage: &Stage, prim: &Path) -> String {
    stage
        .prim(prim.clone())
        .type_name()
        .ok()
        .flatten()
        .map(|t| t.as_str().to_string())
        .unwrap_or_default()
}

fn shader_id(stage: &Stage, prim: &Path) -> String {
    values::prim_value(stage, prim, "info:id")
        .and_then(|v| values::text(&v))
        .unwrap_or_default()
}

/// The UsdPreviewSurface a material's `outputs:surface` leads to.
fn surface_shader(stage: &Stage, material: &Path) -> Option<Path> {
    let output = material.append_property("outputs:surface").ok()?;
    let (prim, _) = follow(stage, output)?;
    (shader_id(stage, &prim) == "UsdPreviewSurface").then_some(prim)
}

/// A shader input's value, or what it is connected to.
fn read_input(stage: &Stage, shader: &Path, name: &str) -> Input {
    let Ok(attr) = shader.append_property(format!("inputs:{name}").as_str()) else {
        return Input::Unset;
    };
    let Some((source, output)) = follow(stage, attr.clone()) else {
        return values::rest_value(&stage.attribute(attr)).map_or(Input::Unset, Input::Value);
    };
    if type_name(stage, &source) != "Shader" {
        // An interface input's value.
        let at = source.append_property(output.as_str()).ok();
        return at
            .and_then(|p| values::rest_value(&stage.attribute(p)))
            .map_or(Input::Unset, Input::Value);
    }
    match shader_id(stage, &source).as_str() {
        "UsdUVTexture" => {
            texture_input(stage, &source, &output).map_or(Input::Unset, Input::Texture)
        }
        id if id.starts_with("UsdPrimvarReader") => {
            string_input(stage, &source, "varname").map_or(Input::Unset, Input::Primvar)
        }
        _ => Input::Unset,
    }
}

/// A shader input read as text, through connections to interface inputs.
fn string_input(stage: &Stage, shader: &Path, name: &str) -> Option<String> {
    let attr = shader
        .append_property(format!("inputs:{name}").as_str())
        .ok()?;
    let value = match follow(stage, attr.clone()) {
        Some((prim, property)) => {
            values::rest_value(&stage.attribute(prim.append_property(property.as_str()).ok()?))
        }
        None => values::rest_value(&stage.attribute(attr)),
    }?;
    values::text(&value)
}

fn vector_input(stage: &Stage, shader: &Path, name: &str) -> Option<Value> {
    let attr = shader
        .append_property(format!("inputs:{name}").as_str())
        .ok()?;
    values::rest_value(&stage.attribute(attr))
}

fn texture_input(stage: &Stage, shader: &Path, output: &str) -> Option<TextureInput> {
    let file = vector_input(stage, shader, "file")?;
    let (authored, resolved) = values::asset(&file)?;
    let four = |name: &str, default: [f64; 4]| {
        vector_input(stage, shader, name)
            .and_then(|v| values::vec4(&v))
            .unwrap_or(default)
    };
    let (uv_set, transform) = uv_source(stage, shader);
    Some(TextureInput {
        file: resolved.unwrap_or_else(|| authored.clone()),
        authored,
        channel: output
            .strip_prefix("outputs:")
            .unwrap_or(output)
            .to_string(),
        scale: four("scale", [1.0; 4]),
        bias: four("bias", [0.0; 4]),
        uv_set,
        transform,
    })
}

/// The primvar a texture's `st` reads, and a UsdTransform2d on the way.
fn uv_source(stage: &Stage, texture: &Path) -> (Option<String>, Option<UvTransform>) {
    let Ok(st) = texture.append_property("inputs:st") else {
        return (None, None);
    };
    let Some((mut source, _)) = follow(stage, st) else {
        return (None, None);
    };
    let mut transform = None;
    if shader_id(stage, &source) == "UsdTransform2d" {
        let v2 = |name: &str, default: [f64; 2]| {
            vector_input(stage, &source, name)
                .and_then(|v| values::vec2(&v))
                .unwrap_or(default)
        };
        let rotation = vector_input(stage, &source, "rotation")
            .and_then(|v| values::scalar(&v))
            .unwrap_or(0.0);
        let (scale, translation) = (v2("scale", [1.0; 2]), v2("translation", [0.0; 2]));
        transform = Some(UvTransform {
            offset: [translation[0] as f32, translation[1] as f32],
            rotation: rotation.to_radians() as f32,
            scale: [scale[0] as f32, scale[1] as f32],
        });
        let Some((reader, _)) = texture
            .append_property("inputs:st")
            .ok()
            .and(source.append_property("inputs:in").ok())
            .and_then(|input| follow(stage, input))
        else {
            return (None, transform);
        };
        source = reader;
    }
    let varname = shader_id(stage, &source)
        .starts_with("UsdPrimvarReader")
        .then(|| string_input(stage, &source, "varname"))
        .flatten();
    (varname, transform)
}

/// The material bound to `prim` (a mesh or a GeomSubset): the nearest direct
/// `material:binding`, unless an ancestor's is `strongerThanDescendants`.
pub fn bound_material(stage: &Stage, prim: &Path) -> Option<Path> {
    let mut winner = None;
    let mut cursor = Some(prim.clone());
    let mut depth = 0;
    while let Some(path) = cursor {
        if path.as_str() == "/" || depth > 4096 {
            break;
        }
        depth += 1;
        let rel = path.append_property("material:binding").ok();
        let target = rel
            .and_then(|r| stage.relationship(r).targets().ok())
            .and_then(|t| t.into_iter().next());
        if let Some(target) = target {
            // Relationship metadata through an attribute handle: openusd reads fields by path.
            let strong = stage
                .attribute(path.append_property("material:binding").ok()?)
                .get_metadata::<Value>("bindMaterialAs")
                .ok()
                .flatten()
                .and_then(|v| values::text(&v))
                .is_some_and(|s| s == "strongerThanDescendants");
            if winner.is_none() || strong {
                winner = Some(target);
            }
        }
        cursor = path.parent();
    }
    winner
}
