//! pak's `[mesh]` and `[animation]` asset files: a glTF, GLB or OBJ file baked through the
//! model pipeline, with pak's keys over the manifest's layered `mesh` settings.
//!
//! - `[mesh]` → `<name>.hmesh`, `<name>.hmat`, `<name>/tex_<i>.ktx2` (and `<name>.hanim` when
//!   the source is skinned and animated), as the model pipeline writes them for a model file.
//! - `[animation]` → `<name>.hanim`: one clip (`name`, else the first), channels on the
//!   joints of the source's first skin, less the joints `exclude` names.

use crate::bake::asset_file::{number, source_of_kind};
use crate::bake::mesh::{self, ModelSource};
use crate::bake::pipeline::{AssetTable, BakeContext, Output, PipelineError};
use crate::bake::{mesh::settings::MeshSettings, texture::settings::TextureSettings};
use crate::format::hman::AssetKind;

/// The model files an asset file may name.
const MODEL_EXTENSIONS: [&str; 7] = ["glb", "gltf", "obj", "usd", "usda", "usdc", "usdz"];

/// pak keys hearth reads and ignores, with why.
const IGNORED_PAK_KEYS: [(&str, &str); 2] = [
    ("data", "pak's unstructured side data"),
    (
        "max-index",
        "hearth picks 16- or 32-bit indices from the vertex count",
    ),
];

/// Bakes a `[mesh]` asset file into `<name>.hmesh` and its companions, its keys over the
/// layered `settings`.
pub(super) fn bake_mesh(
    file: &AssetTable<'_>,
    settings: &MeshSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let (toml_rel, name, body) = (file.rel(), file.name(), file.body());
    let mut settings = settings.clone();
    let texture: TextureSettings = cx.settings("texture")?;
    let picks = apply_mesh_keys(body, &mut settings, cx)?;
    let (read_path, _) = source_of_kind(toml_rel, "mesh", body, &MODEL_EXTENSIONS, cx)?;
    let bytes = cx.read(&read_path)?;
    let model = ModelSource {
        bytes: &bytes,
        file_name: &read_path,
        side_dir: folder_of(&read_path),
        stem: name,
        scene_name: picks.scene_name.as_deref(),
        mesh_name: picks.mesh_name.as_deref(),
    };
    mesh::bake_named_model(&model, &settings, &texture, cx)
}

/// Bakes an `[animation]` asset file into `<name>.hanim`.
pub(super) fn bake_animation(
    file: &AssetTable<'_>,
    settings: &MeshSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let (toml_rel, name, body) = (file.rel(), file.name(), file.body());
    let mut clip_name = None;
    let mut exclude: Vec<String> = Vec::new();
    for (key, value) in body {
        match key.as_str() {
            "src" => {}
            "name" => clip_name = Some(string(value, "animation.name")?),
            "exclude" => {
                exclude = value
                    .as_array()
                    .and_then(|names| {
                        names
                            .iter()
                            .map(|n| n.as_str().map(str::to_owned))
                            .collect()
                    })
                    .ok_or("`animation.exclude` must be an array of joint names")?
            }
            other => {
                return Err(format!("`animation.{other}`: unknown key (src, name, exclude)").into())
            }
        }
    }
    let (read_path, _) = source_of_kind(
        toml_rel,
        "animation",
        body,
        &["glb", "gltf", "usd", "usda", "usdc", "usdz"],
        cx,
    )?;
    let bytes = cx.read(&read_path)?;
    let model = ModelSource {
        bytes: &bytes,
        file_name: &read_path,
        side_dir: folder_of(&read_path),
        stem: name,
        scene_name: None,
        mesh_name: None,
    };
    let skinned = MeshSettings {
        ignore_skin: false,
        ..settings.clone()
    };
    let scene = mesh::import_model(&model, &skinned, cx)?;
    if scene.skeleton.is_none() {
        return Err(format!(
            "{read_path} has no skin: .hanim channels index the joints of a skin (a skinned \
             glTF's first), so `[animation]` needs a skinned source"
        )
        .into());
    }
    let available: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    let mut clip = match &clip_name {
        Some(wanted) => scene
            .clips
            .iter()
            .find(|c| &c.name == wanted)
            .ok_or_else(|| format!("no animation named {wanted:?} (the file has {available:?})"))?,
        None => scene
            .clips
            .first()
            .ok_or_else(|| format!("{read_path} has no animation on its skin's joints"))?,
    }
    .clone();
    if clip_name.is_none() && available.len() > 1 {
        cx.warn(format!(
            "{} animations; baking the first, {:?} (`name` picks another)",
            available.len(),
            clip.name
        ));
    }
    for joint in &exclude {
        if !scene.joint_names.iter().any(|n| n == joint) {
            cx.warn(format!(
                "`animation.exclude`: no joint named {joint:?} in {read_path}"
            ));
        }
    }
    clip.channels.retain(|channel| {
        scene
            .joint_names
            .get(channel.joint as usize)
            .is_none_or(|joint| !exclude.contains(joint))
    });
    cx.emit(Output::new(
        AssetKind::ANIMATION.file_name(name),
        AssetKind::ANIMATION,
        crate::format::hanim::write(&[clip]),
    ));
    Ok(())
}

/// The scene and mesh a `[mesh]` table picks.
struct Picks {
    scene_name: Option<String>,
    mesh_name: Option<String>,
}

/// Applies pak's `[mesh]` keys to the layered `mesh` settings.
fn apply_mesh_keys(
    body: &toml::Table,
    settings: &mut MeshSettings,
    cx: &mut BakeContext<'_>,
) -> Result<Picks, String> {
    let mut picks = Picks {
        scene_name: None,
        mesh_name: None,
    };
    // pak's `euler` names intrinsic axes (glam's EulerRot: "xyz" turns about x, then the
    // turned y, then the twice-turned z), which is hearth's fixed-axes order reversed.
    let mut intrinsic_order = "xyz".to_owned();
    for (key, value) in body {
        let at = format!("mesh.{key}");
        let flag = || {
            value
                .as_bool()
                .ok_or(format!("`{at}` must be true or false"))
        };
        match key.as_str() {
            "src" => {}
            "name" => picks.mesh_name = Some(string(value, &at)?),
            "scene-name" => picks.scene_name = Some(string(value, &at)?),
            "euler" => intrinsic_order = string(value, &at)?,
            "flip-x" => settings.flip_x = flag()?,
            "flip-y" => settings.flip_y = flag()?,
            "flip-z" => settings.flip_z = flag()?,
            "ignore-skin" => settings.ignore_skin = flag()?,
            "normals" => settings.normals = flag()?,
            "tangents" | "bake-tangent" => settings.tangents = flag()?,
            "optimize" => settings.optimize = flag()?,
            "shadow" => settings.shadow = flag()?,
            "merge" => settings.merge = flag()?,
            "lod" => {
                settings.lod.levels = match value {
                    toml::Value::Boolean(false) => 0,
                    // pak halves until `min-lod-triangles`; hearth writes a fixed count of
                    // levels, stalled ones empty: `true` keeps the group's count (2 by default).
                    toml::Value::Boolean(true) => settings.lod.levels.max(1),
                    toml::Value::Integer(n) => u32::try_from(*n)
                        .map_err(|_| format!("`{at}` = {n}: a level count from 0"))?,
                    _ => return Err(format!("`{at}` must be true, false or a level count")),
                }
            }
            "lod-lock-border" => settings.lod.lock_border = flag()?,
            "lod-target-error" => settings.lod.target_error = number(value, &at)?,
            "min-lod-triangles" => {
                settings.lod.min_triangles = value
                    .as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or(format!("`{at}` must be a triangle count"))?
            }
            "overdraw-threshold" => settings.overdraw_threshold = number(value, &at)?,
            "offset" => settings.offset = vector3(value, &at)?,
            "scale" => {
                settings.scale = match value {
                    toml::Value::Array(_) => vector3(value, &at)?,
                    single => [number(single, &at)?; 3],
                }
            }
            "rotation" => {
                settings.rotation = value
                    .as_array()
                    .ok_or(format!("`{at}` must be 3 Euler degrees or a quaternion"))?
                    .iter()
                    .map(|v| number(v, &at))
                    .collect::<Result<_, _>>()?
            }
            other => {
                if let Some((_, why)) = IGNORED_PAK_KEYS.iter().find(|(k, _)| *k == other) {
                    cx.warn(format!("`mesh.{other}` is ignored: {why}"));
                    continue;
                }
                return Err(format!(
                    "`mesh.{other}`: unknown key (src, name, scene-name, euler, flip-x, flip-y, \
                     flip-z, ignore-skin, lod, lod-lock-border, lod-target-error, \
                     min-lod-triangles, normals, offset, optimize, overdraw-threshold, \
                     rotation, scale, shadow, tangents, bake-tangent, merge)"
                ));
            }
        }
    }
    settings.euler = intrinsic_order.chars().rev().collect();
    settings
        .validate()
        .and_then(|()| settings.lod.validate())
        .map_err(|e| format!("`mesh`: {e}"))?;
    Ok(picks)
}

/// The folder part of a path (with its trailing `/`), or `""`.
fn folder_of(path: &str) -> &str {
    path.rfind('/').map_or("", |slash| &path[..=slash])
}

fn string(value: &toml::Value, at: &str) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("`{at}` must be a string"))
}

fn vector3(value: &toml::Value, at: &str) -> Result<[f32; 3], String> {
    match value.as_array().map(Vec::as_slice) {
        Some([x, y, z]) => Ok([number(x, at)?, number(y, at)?, number(z, at)?]),
        _ => Err(format!("`{at}` must be an array of 3 numbers")),
    }
}
