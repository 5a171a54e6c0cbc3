//! Baked models and scenes as USD (feature `export`; `hearth export`): a `.hmesh` with its
//! `.hmat`, textures and `.hanim` becomes a USD layer (`UsdGeomMesh`, `UsdPreviewSurface`
//! materials, UsdSkel), a `.hscene` a layer of `Xform`s referencing its models' layers, written
//! as USDC (hearth's own crate writer, version 0.8.0), USDA or USDZ.
//!
//! ```no_run
//! # #[cfg(feature = "export")] {
//! let pak = hearth::PakReader::open("game.hpack")?;
//! let files = hearth::export::export_model(&pak, "models/fox.hmesh", "fox.usdz".as_ref())?;
//! # let _ = files;
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Layers: `export` reads through `read/` and writes bytes of its own; nothing in `read/` or
//! `bake/` imports it.

pub mod layer;
mod model;
mod scene;
mod skel;
mod texture;
pub mod usda;
pub mod usdc;
pub mod usdz;

pub use model::{model_to_usd, UsdModel};

use crate::export::layer::Layer;
use crate::format::kind::AssetKind;
use crate::read::asset::AssetSource;
use crate::read::model::Model;
use std::path::{Path, PathBuf};

/// The file formats written, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.usdc`: binary crate file.
    Usdc,
    /// `.usda`: text.
    Usda,
    /// `.usdz`: a zip holding a `.usdc` root layer and its PNG textures.
    Usdz,
}

impl Format {
    /// The format of `path` by its extension (`.usdc`, `.usda`, `.usdz`, case-insensitive).
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "usdc" => Some(Self::Usdc),
            "usda" => Some(Self::Usda),
            "usdz" => Some(Self::Usdz),
            _ => None,
        }
    }
}

/// The model or scene `asset` of `source` (a `.hmesh` or `.hscene` runtime path, or a model's
/// or scene's name) exported for `out`, whose extension picks the format: the files to
/// write, as (path, bytes), `out` first. A `.usdc` or `.usda` names its PNGs in the folder
/// `<stem>_textures` beside it (a scene: its models' layers and their PNGs in `<stem>_models`);
/// a `.usdz` holds them all, its root layer first. Errors name the asset or texture at fault.
pub fn export_model(
    source: &impl AssetSource,
    asset: &str,
    out: &Path,
) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let format = Format::from_path(out).ok_or_else(|| {
        format!(
            "{}: the output's extension picks the format: .usdc, .usda or .usdz",
            out.display()
        )
    })?;
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_owned();
    let packed = format == Format::Usdz;
    let ext = if format == Format::Usda {
        "usda"
    } else {
        "usdc"
    };
    let path = resolve(source, asset)?;
    let (layer, models, textures) = if path.ends_with(".hscene") {
        let models_dir = if packed {
            "models".to_owned()
        } else {
            format!("{stem}_models")
        };
        let usd = scene::scene_to_usd(source, &path, &models_dir, ext)?;
        (usd.layer, usd.models, usd.textures)
    } else {
        // The reader's errors name the asset or file at fault already.
        let model = Model::load(source, &path).map_err(|e| e.to_string())?;
        let name = path.rsplit('/').next().unwrap_or(&path);
        let name = name.strip_suffix(".hmesh").unwrap_or(name);
        let texture_dir = if packed {
            "textures".to_owned()
        } else {
            format!("{stem}_textures")
        };
        let usd = model_to_usd(&model, name, &texture_dir).map_err(|e| format!("{path}: {e}"))?;
        (usd.layer, Vec::new(), usd.textures)
    };
    let encode = |layer: &Layer| match format {
        Format::Usda => Ok(usda::write(layer).into_bytes()),
        _ => usdc::write(layer).map_err(|e| format!("{path}: {e}")),
    };
    let mut files = vec![(PathBuf::new(), encode(&layer)?)];
    for (rel, model) in &models {
        files.push((PathBuf::from(rel), encode(model)?));
    }
    files.extend(
        textures
            .into_iter()
            .map(|(rel, bytes)| (PathBuf::from(rel), bytes)),
    );
    if packed {
        let mut entries: Vec<(String, Vec<u8>)> = files
            .into_iter()
            .map(|(rel, bytes)| (rel.to_string_lossy().into_owned(), bytes))
            .collect();
        entries[0].0 = format!("{stem}.usdc");
        let zip = usdz::write(&entries).map_err(|e| format!("{}: {e}", out.display()))?;
        return Ok(vec![(out.to_owned(), zip)]);
    }
    let folder = out.parent().unwrap_or(Path::new(""));
    files[0].0 = out.to_owned();
    for (rel, _) in files.iter_mut().skip(1) {
        *rel = folder.join(&*rel);
    }
    Ok(files)
}

/// The runtime path of `asset`: itself when it names a `.hmesh` or `.hscene`, otherwise the
/// model (or else the scene) of that name.
fn resolve(source: &impl AssetSource, asset: &str) -> Result<String, String> {
    if asset.ends_with(".hmesh") || asset.ends_with(".hscene") {
        return Ok(asset.to_owned());
    }
    for kind in [AssetKind::MESH, AssetKind::SCENE] {
        let found = source
            .lookup_name_of_kind(asset, Some(kind))
            .map_err(|e| e.to_string())?;
        if let Some(record) = found {
            return Ok(record.path.into_string());
        }
    }
    Err(format!(
        "{asset}: no model or scene of that name (a `.hmesh` or `.hscene` path, or a name)"
    ))
}

/// [`export_model`], each file written with
/// [`write_output`](crate::read::inspect::write_output) (a temporary file renamed into
/// place; none of `inputs` is overwritten), the PNG folder created when needed.
pub fn write(
    source: &impl AssetSource,
    asset: &str,
    out: &Path,
    inputs: &[&Path],
) -> Result<Vec<PathBuf>, String> {
    let files = export_model(source, asset, out)?;
    let mut written = Vec::with_capacity(files.len());
    // The files the root layer names first, the root layer last: a layer on disk always has
    // what it references beside it.
    for (path, bytes) in files.into_iter().rev() {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        crate::read::inspect::write_output(&path, &bytes, inputs)?;
        written.push(path);
    }
    written.reverse();
    Ok(written)
}
