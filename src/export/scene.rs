//! A baked scene (`.hscene`) as USD: an `Xform` per placed reference (its translation,
//! rotation and scale as `xformOp`s), referencing the layer of the model it places, each model
//! exported once beside the scene ([`model_to_usd`]).
//!
//! A reference that places no mesh (a spawn point, a camera) is an empty `Xform`; the scene's
//! free geometry (nav meshes, triggers) and per-reference material overrides are not
//! exported.

use crate::export::layer::{identifier, token, unique_name, Layer, Prim, Value};
use crate::export::model::model_to_usd;
use crate::read::asset::AssetSource;
use crate::read::model::Model;
use crate::read::scene::SceneView;
use std::collections::{HashMap, HashSet};

/// A scene's layer and the files it needs: each model's layer and PNGs, as (path relative to
/// the scene's layer, the layer (to encode) or the PNG's bytes).
pub(crate) struct UsdScene {
    /// The scene's layer.
    pub layer: Layer,
    /// Each placed model's layer, by path relative to the scene's.
    pub models: Vec<(String, Layer)>,
    /// Each model's PNGs, by path relative to the scene's layer.
    pub textures: Vec<(String, Vec<u8>)>,
}

/// The scene at runtime path `path` of `source`, with the models it places in `models_dir`
/// (relative to the scene's layer) as `<Model>.<ext>`. Errors name the scene or the model.
pub(crate) fn scene_to_usd(
    source: &impl AssetSource,
    path: &str,
    models_dir: &str,
    ext: &str,
) -> Result<UsdScene, String> {
    let bytes = source
        .asset_bytes(path)
        .map_err(|e| format!("{path}: {e}"))?
        .ok_or_else(|| format!("{path}: no such asset"))?;
    let scene = SceneView::parse(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let stem = path.rsplit('/').next().unwrap_or(path);
    let root_name = identifier(stem.strip_suffix(".hscene").unwrap_or(stem));
    let mut root = Prim::def(&root_name, "Xform");
    let mut out = UsdScene {
        layer: Layer::default(),
        models: Vec::new(),
        textures: Vec::new(),
    };
    // Each model once: its mesh hash → (layer path, its root prim's path there).
    let mut placed: HashMap<u64, (String, String)> = HashMap::new();
    let (mut prim_names, mut file_names) = (HashSet::new(), HashSet::new());
    for (i, r) in scene.refs().enumerate() {
        let base = match r.id() {
            "" => format!("Ref_{i}"),
            id => identifier(id),
        };
        let mut xform = Prim::def(&unique_name(&base, &mut prim_names), "Xform");
        let [x, y, z] = r.translation().map(f64::from);
        let [qx, qy, qz, qw] = r.rotation();
        xform
            .set("xformOp:translate", "double3", Value::Double3([x, y, z]))
            .set("xformOp:orient", "quatf", Value::Quatf([qx, qy, qz, qw]))
            .set("xformOp:scale", "float3", Value::Float3(r.scale()));
        let order = ["xformOp:translate", "xformOp:orient", "xformOp:scale"];
        let order = order.iter().map(|s| s.to_string()).collect();
        xform.set_uniform("xformOpOrder", "token[]", Value::TokenArray(order));
        if let Some(hash) = r.mesh() {
            let reference = match placed.entry(hash) {
                std::collections::hash_map::Entry::Occupied(known) => known.get().clone(),
                std::collections::hash_map::Entry::Vacant(slot) => slot
                    .insert(
                        add_model(source, hash, (models_dir, ext), &mut file_names, &mut out)
                            .map_err(|e| format!("{path}: ref {i}: {e}"))?,
                    )
                    .clone(),
            };
            xform.references.push(reference);
        }
        root.children.push(xform);
    }
    out.layer = Layer {
        metadata: vec![
            ("defaultPrim".into(), Value::Token(root_name)),
            ("metersPerUnit".into(), Value::Double(1.0)),
            ("upAxis".into(), token("Y")),
        ],
        prims: vec![root],
    };
    Ok(out)
}

/// Exports the model whose mesh has asset hash `hash` into `out` (its layer and PNGs under
/// `models_dir`); returns what a reference to it names: (layer path, root prim path).
fn add_model(
    source: &impl AssetSource,
    hash: u64,
    (models_dir, ext): (&str, &str),
    file_names: &mut HashSet<String>,
    out: &mut UsdScene,
) -> Result<(String, String), String> {
    let mesh_path = source
        .path_of_hash(hash)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("mesh {hash:016x}: no such asset"))?;
    let model = Model::load(source, &mesh_path).map_err(|e| e.to_string())?;
    let stem = mesh_path.rsplit('/').next().unwrap_or(&mesh_path);
    let name = identifier(stem.strip_suffix(".hmesh").unwrap_or(stem));
    let file = unique_name(&name, file_names);
    let usd = model_to_usd(&model, &name, &format!("{file}_textures"))
        .map_err(|e| format!("{mesh_path}: {e}"))?;
    let layer_path = format!("{models_dir}/{file}.{ext}");
    out.textures.extend(
        usd.textures
            .into_iter()
            .map(|(p, bytes)| (format!("{models_dir}/{p}"), bytes)),
    );
    out.models.push((layer_path.clone(), usd.layer));
    Ok((format!("./{layer_path}"), format!("/{name}")))
}
