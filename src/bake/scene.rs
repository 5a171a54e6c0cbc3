//! pak's `[scene]` asset files → `.hscene`: `[[scene.ref]]` (id, mesh, materials, translation,
//! rotation, euler, scale, tags, data) and `[[scene.geometry]]` (id, indices, vertices,
//! translation, rotation, euler, tags, data). Mesh and material paths become asset hashes,
//! checked at the end of the bake like every reference; the asset files, models and images
//! they name are planned with the scene (`dependencies`). A material given as an image is
//! a one-row material baked with the scene, as pak makes one.

use crate::bake::asset_file::{number, resolve, AssetFileSettings};
use crate::bake::mesh::settings::pak_euler_axes;
use crate::bake::pipeline::{
    AssetTable, BakeContext, Claim, Output, Pipeline, PipelineError, Source,
};
use crate::bake::texture::image_file::IMAGE_EXTENSIONS;
use crate::format::hman::AssetKind;
use crate::format::hmat::{self, GpuMaterial};
use crate::format::hscene::{self, GeometryData, RefData, SceneData, SceneValue};

/// pak's `[scene]` asset files → `<name>.hscene`. It claims no file pattern: scenes come only
/// as asset files.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scene;

impl Pipeline for Scene {
    type Settings = AssetFileSettings;

    fn name(&self) -> &str {
        "scene"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        Vec::new()
    }
    fn settings_table(&self) -> &str {
        "asset-file"
    }
    fn bake(
        &self,
        _: &Source<'_>,
        _: &AssetFileSettings,
        _: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        Err("scenes are baked from `[scene]` asset files only".into())
    }
    fn asset_tables(&self) -> &[&str] {
        &["scene"]
    }
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        _: &AssetFileSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        Ok(bake(file.rel(), file.name(), file.body(), cx)?)
    }
    fn asset_table_dependencies(&self, file: &AssetTable<'_>) -> Vec<String> {
        dependencies(file.rel(), file.body())
    }
}

/// Bakes the `[scene]` table `body` of `toml_rel` into `<name>.hscene`.
fn bake(
    toml_rel: &str,
    name: &str,
    body: &toml::Table,
    cx: &mut BakeContext<'_>,
) -> Result<(), String> {
    let mut scene = SceneData::default();
    for key in body.keys() {
        if key != "ref" && key != "geometry" {
            return Err(format!(
                "`scene.{key}`: unknown key (scene.ref, scene.geometry)"
            ));
        }
    }
    for (i, table) in tables(body, "ref")?.iter().enumerate() {
        let at = |key: &str| format!("scene.ref[{i}].{key}");
        let mut data = RefData {
            scale: [1.0; 3],
            ..RefData::default()
        };
        for (key, value) in table.iter() {
            match key.as_str() {
                "id" => data.id = string(value, &at(key))?,
                "mesh" => {
                    let path = string(value, &at(key))?;
                    data.mesh =
                        cx.reference(&asset_path(toml_rel, &path, AssetKind::MESH, &at(key))?);
                }
                "materials" => {
                    for (j, path) in array(value, &at(key))?.iter().enumerate() {
                        let at = format!("{}[{j}]", at(key));
                        let path = string(path, &at)?;
                        let runtime = material_path(toml_rel, name, &path, &at, cx)?;
                        data.materials.push(cx.reference(&runtime));
                    }
                }
                "translation" => data.translation = floats(value, &at(key))?,
                "rotation" | "euler" => {}
                "scale" => data.scale = floats(value, &at(key))?,
                "tags" => data.tags = tags(value, &at(key))?,
                "data" => data.data = Some(scene_value(value, &at(key))?),
                _ => return Err(format!("`{}`: unknown key", at(key))),
            }
        }
        data.rotation = rotation(table, &at("rotation"))?;
        scene.refs.push(data);
    }
    for (i, table) in tables(body, "geometry")?.iter().enumerate() {
        let at = |key: &str| format!("scene.geometry[{i}].{key}");
        let mut data = GeometryData {
            components: 3,
            ..GeometryData::default()
        };
        for (key, value) in table.iter() {
            match key.as_str() {
                "id" => data.id = string(value, &at(key))?,
                "vertices" => (data.components, data.vertices) = vertices(value, &at(key))?,
                "indices" => {
                    for (j, index) in array(value, &at(key))?.iter().enumerate() {
                        let index = index
                            .as_integer()
                            .and_then(|v| u32::try_from(v).ok())
                            .ok_or_else(|| format!("`{}[{j}]`: not an index (0..2^32)", at(key)))?;
                        data.indices.push(index);
                    }
                }
                "translation" => data.translation = floats(value, &at(key))?,
                "rotation" | "euler" => {}
                "tags" => data.tags = tags(value, &at(key))?,
                "data" => data.data = Some(scene_value(value, &at(key))?),
                _ => return Err(format!("`{}`: unknown key", at(key))),
            }
        }
        data.rotation = rotation(table, &at("rotation"))?;
        if data.components == 0 {
            data.components = flat_components(&data.vertices, &data.indices, &at("vertices"))?;
        }
        let vertex_count = data.vertices.len() / data.components as usize;
        if let Some(bad) = data.indices.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(format!(
                "`{}`: index {bad} is past the {vertex_count} vertices",
                at("indices")
            ));
        }
        scene.geometry.push(data);
    }
    let bytes = hscene::write(&scene);
    crate::read::scene::SceneView::parse(&bytes)
        .map_err(|e| format!("baked scene does not check: {e}"))?;
    cx.emit(Output::new(
        AssetKind::SCENE.file_name(name),
        AssetKind::SCENE,
        bytes,
    ));
    Ok(())
}

fn tables<'a>(body: &'a toml::Table, key: &str) -> Result<Vec<&'a toml::Table>, String> {
    match body.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_table().ok_or_else(|| {
                    format!("`scene.{key}` must be an array of tables ([[scene.{key}]])")
                })
            })
            .collect(),
        Some(_) => Err(format!(
            "`scene.{key}` must be an array of tables ([[scene.{key}]])"
        )),
    }
}

fn string(value: &toml::Value, at: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("`{at}` must be a string"))
}

fn array<'a>(value: &'a toml::Value, at: &str) -> Result<&'a Vec<toml::Value>, String> {
    value
        .as_array()
        .ok_or_else(|| format!("`{at}` must be an array"))
}

fn strings(value: &toml::Value, at: &str) -> Result<Vec<String>, String> {
    array(value, at)?
        .iter()
        .enumerate()
        .map(|(i, v)| string(v, &format!("{at}[{i}]")))
        .collect()
}

fn float_list(value: &toml::Value, at: &str) -> Result<Vec<f32>, String> {
    array(value, at)?
        .iter()
        .enumerate()
        .map(|(i, v)| number(v, &format!("{at}[{i}]")))
        .collect()
}

fn floats<const N: usize>(value: &toml::Value, at: &str) -> Result<[f32; N], String> {
    let list = float_list(value, at)?;
    list.try_into()
        .map_err(|list: Vec<f32>| format!("`{at}` has {} numbers, {N} expected", list.len()))
}

/// A record's `rotation`: three Euler angles in degrees, in pak's order (`euler`, intrinsic as
/// glam's `EulerRot`; `"xyz"`, Rx · Ry · Rz, by default), or a quaternion xyzw; none is the
/// identity. `at` names the `rotation` key.
fn rotation(table: &toml::Table, at: &str) -> Result<[f32; 4], String> {
    let order = match table.get("euler") {
        None => "xyz",
        Some(value) => value
            .as_str()
            .ok_or_else(|| format!("`{}` must be a string", at.replace(".rotation", ".euler")))?,
    };
    let axes = pak_euler_axes(order).ok_or_else(|| {
        format!(
            "`{}` = {order:?}: the three axes x, y and z once each",
            at.replace(".rotation", ".euler")
        )
    })?;
    let Some(value) = table.get("rotation") else {
        return Ok([0.0, 0.0, 0.0, 1.0]);
    };
    let list = float_list(value, at)?;
    match list[..] {
        [x, y, z, w] => Ok([x, y, z, w]),
        [x, y, z] => Ok(crate::bake::mesh::settings::euler_quaternion(
            [x, y, z],
            axes,
        )),
        _ => Err(format!(
            "`{at}` has {} numbers: 3 Euler angles in degrees or a quaternion xyzw",
            list.len()
        )),
    }
}

/// Tags as pak stores them: trimmed, lowercased, sorted, each once.
fn tags(value: &toml::Value, at: &str) -> Result<Vec<String>, String> {
    let mut tags: Vec<String> = strings(value, at)?
        .iter()
        .map(|t| t.trim().to_lowercase())
        .collect();
    tags.sort();
    tags.dedup();
    Ok(tags)
}

/// The components of a flat vertex list (pak writes one without saying): 3 when the count
/// and the indices allow it, else 2.
fn flat_components(vertices: &[f32], indices: &[u32], at: &str) -> Result<u32, String> {
    let fits = |components: usize| {
        vertices.len().is_multiple_of(components)
            && indices
                .iter()
                .all(|&i| (i as usize) < vertices.len() / components)
    };
    let whole = |components: usize| vertices.len().is_multiple_of(components);
    match (fits(3), fits(2)) {
        (true, _) => Ok(3),
        (false, true) => Ok(2),
        // The caller names the index past the vertices.
        _ if whole(3) => Ok(3),
        _ if whole(2) => Ok(2),
        _ => Err(format!(
            "`{at}` has {} numbers: not a whole count of 2- or 3-number vertices",
            vertices.len()
        )),
    }
}

/// A flat list (as pak writes them; components decided by [`flat_components`]) or a list of
/// 2- or 3-number vertices.
fn vertices(value: &toml::Value, at: &str) -> Result<(u32, Vec<f32>), String> {
    let items = array(value, at)?;
    if items.first().is_some_and(toml::Value::is_array) {
        let mut components = None;
        let mut out = Vec::new();
        for (i, vertex) in items.iter().enumerate() {
            let vertex = float_list(vertex, &format!("{at}[{i}]"))?;
            if !matches!(vertex.len(), 2 | 3) || components.is_some_and(|c| c != vertex.len()) {
                return Err(format!(
                    "`{at}[{i}]`: {} numbers; every vertex has 2, or every vertex 3",
                    vertex.len()
                ));
            }
            components = Some(vertex.len());
            out.extend(vertex);
        }
        return Ok((components.unwrap_or(3) as u32, out));
    }
    // A flat list: its components are decided once the indices are read (0 until then).
    Ok((0, float_list(value, at)?))
}

/// The runtime path of what a scene names: an asset file (`chair.toml` → `chair.<ext>`), a
/// model (`chair.glb` → `chair.<ext>`), or a baked path as it is.
fn asset_path(toml_rel: &str, path: &str, kind: AssetKind, at: &str) -> Result<String, String> {
    let (_, root_rel) = resolve(toml_rel, path).map_err(|e| format!("`{at}`: {e}"))?;
    let lower = root_rel.to_ascii_lowercase();
    for source_ext in [
        ".toml", ".gltf", ".glb", ".obj", ".usd", ".usda", ".usdc", ".usdz",
    ] {
        if lower.ends_with(source_ext) {
            return Ok(kind.file_name(&root_rel[..root_rel.len() - source_ext.len()]));
        }
    }
    Ok(root_rel)
}

/// The runtime path of a material a scene names: an asset file's or `.mat`'s `.hmat`; for an
/// image, as pak does, a one-row material whose color is the image's texture, baked with the
/// scene at `<scene>/<image stem>.hmat`; else a baked path as it is.
fn material_path(
    toml_rel: &str,
    scene: &str,
    path: &str,
    at: &str,
    cx: &mut BakeContext<'_>,
) -> Result<String, String> {
    let (_, root_rel) = resolve(toml_rel, path).map_err(|e| format!("`{at}`: {e}"))?;
    if let Some(mat) = root_rel.strip_suffix(".mat") {
        return Ok(AssetKind::MATERIAL.file_name(mat));
    }
    let Some((stem, _)) = root_rel.rsplit_once('.').filter(|(_, ext)| is_image(ext)) else {
        return asset_path(toml_rel, path, AssetKind::MATERIAL, at);
    };
    let leaf = stem.rsplit('/').next().unwrap_or(stem);
    let material = AssetKind::MATERIAL.file_name(&format!("{scene}/{leaf}"));
    if cx.emitted(&material) {
        return Ok(material);
    }
    let row = GpuMaterial {
        base_color_tex: cx.reference(stem),
        ..GpuMaterial::default()
    };
    cx.emit(Output::new(
        material.clone(),
        AssetKind::MATERIAL,
        hmat::write(&[row]),
    ));
    Ok(material)
}

fn is_image(extension: &str) -> bool {
    IMAGE_EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(extension))
}

/// What a `[scene]` table names that the bake must plan too: the files behind its refs'
/// `mesh` and `materials` (asset files, `.mat` files, models, images), relative to the
/// content root. Paths that do not resolve are left to the bake to report.
fn dependencies(toml_rel: &str, body: &toml::Table) -> Vec<String> {
    let mut found = Vec::new();
    let Some(toml::Value::Array(refs)) = body.get("ref") else {
        return found;
    };
    for r in refs.iter().filter_map(toml::Value::as_table) {
        let materials = r.get("materials").and_then(toml::Value::as_array);
        let paths = r
            .get("mesh")
            .into_iter()
            .chain(materials.into_iter().flatten())
            .filter_map(toml::Value::as_str);
        for path in paths {
            if let Ok((_, root_rel)) = resolve(toml_rel, path) {
                found.push(root_rel);
            }
        }
    }
    found
}

fn scene_value(value: &toml::Value, at: &str) -> Result<SceneValue, String> {
    Ok(match value {
        toml::Value::String(s) => SceneValue::String(s.clone()),
        toml::Value::Integer(i) => SceneValue::Integer(*i),
        toml::Value::Float(f) => SceneValue::Float(*f),
        toml::Value::Boolean(b) => SceneValue::Bool(*b),
        toml::Value::Array(items) => SceneValue::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| scene_value(v, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(table) => SceneValue::Table(
            table
                .iter()
                .map(|(k, v)| Ok((k.clone(), scene_value(v, &format!("{at}.{k}"))?)))
                .collect::<Result<_, String>>()?,
        ),
        toml::Value::Datetime(_) => {
            return Err(format!(
                "`{at}`: dates are not supported in scene data (use a string)"
            ))
        }
    })
}
