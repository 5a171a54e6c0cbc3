//! pak's `[scene]` asset files → `.hscene`: `[[scene.ref]]` (id, mesh, materials, translation,
//! rotation, scale, tags, data) and `[[scene.geometry]]` (id, indices, vertices, translation,
//! rotation, tags, data). Mesh and material paths become asset hashes, checked at the end of
//! the bake like every reference.

use super::{number, resolve};
use crate::bake::pipeline::{BakeContext, Output};
use crate::format::hman::AssetKind;
use crate::format::hscene::{self, GeometryData, RefData, SceneData, SceneValue};

/// Bakes the `[scene]` table `body` of `toml_rel` into `<name>.hscene`.
pub(super) fn bake(
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
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            ..RefData::default()
        };
        for (key, value) in table.iter() {
            match key.as_str() {
                "id" => data.id = string(value, &at(key))?,
                "mesh" => {
                    let path = string(value, &at(key))?;
                    data.mesh = cx.reference(&asset_path(toml_rel, &path, "hmesh", &at(key))?);
                }
                "materials" => {
                    for (j, path) in array(value, &at(key))?.iter().enumerate() {
                        let at = format!("{}[{j}]", at(key));
                        let path = string(path, &at)?;
                        let runtime = asset_path(toml_rel, &path, "hmat", &at)?;
                        data.materials.push(cx.reference(&runtime));
                    }
                }
                "translation" => data.translation = floats(value, &at(key))?,
                "rotation" => data.rotation = rotation(value, &at(key))?,
                "scale" => data.scale = floats(value, &at(key))?,
                "tags" => data.tags = strings(value, &at(key))?,
                "data" => data.data = Some(scene_value(value, &at(key))?),
                _ => return Err(format!("`{}`: unknown key", at(key))),
            }
        }
        scene.refs.push(data);
    }
    for (i, table) in tables(body, "geometry")?.iter().enumerate() {
        let at = |key: &str| format!("scene.geometry[{i}].{key}");
        let mut data = GeometryData {
            rotation: [0.0, 0.0, 0.0, 1.0],
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
                "rotation" => data.rotation = rotation(value, &at(key))?,
                "tags" => data.tags = strings(value, &at(key))?,
                "data" => data.data = Some(scene_value(value, &at(key))?),
                _ => return Err(format!("`{}`: unknown key", at(key))),
            }
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
    hscene::SceneView::parse(&bytes).map_err(|e| format!("baked scene does not check: {e}"))?;
    cx.emit(Output::new(
        format!("{name}.hscene"),
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

/// Three Euler angles in degrees (applied X, then Y, then Z) or a quaternion xyzw.
fn rotation(value: &toml::Value, at: &str) -> Result<[f32; 4], String> {
    let list = float_list(value, at)?;
    match list[..] {
        [x, y, z, w] => Ok([x, y, z, w]),
        [x, y, z] => {
            let half = |deg: f32| (deg.to_radians() * 0.5).sin_cos();
            let ((sx, cx), (sy, cy), (sz, cz)) = (half(x), half(y), half(z));
            // q = qz * qy * qx
            Ok([
                sx * cy * cz - cx * sy * sz,
                cx * sy * cz + sx * cy * sz,
                cx * cy * sz - sx * sy * cz,
                cx * cy * cz + sx * sy * sz,
            ])
        }
        _ => Err(format!(
            "`{at}` has {} numbers: 3 Euler angles in degrees or a quaternion xyzw",
            list.len()
        )),
    }
}

/// A flat list (3 per vertex, as pak writes them) or a list of 2- or 3-number vertices.
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
    let flat = float_list(value, at)?;
    if flat.len() % 3 != 0 {
        return Err(format!(
            "`{at}` has {} numbers, not a multiple of 3 (x, y, z per vertex)",
            flat.len()
        ));
    }
    Ok((3, flat))
}

/// The runtime path of what a scene names: an asset file (`chair.toml` → `chair.<ext>`), a
/// model (`chair.glb` → `chair.<ext>`), or a baked path as it is.
fn asset_path(toml_rel: &str, path: &str, ext: &str, at: &str) -> Result<String, String> {
    let (_, root_rel) = resolve(toml_rel, path).map_err(|e| format!("`{at}`: {e}"))?;
    let lower = root_rel.to_ascii_lowercase();
    for source_ext in [".toml", ".gltf", ".glb", ".obj"] {
        if lower.ends_with(source_ext) {
            return Ok(format!(
                "{}.{ext}",
                &root_rel[..root_rel.len() - source_ext.len()]
            ));
        }
    }
    Ok(root_rel)
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
