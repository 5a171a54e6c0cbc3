//! Baked models as USD (feature `export`; `hearth export`): a `.hmesh` with its `.hmat`,
//! textures and `.hanim` becomes a USD layer (`UsdGeomMesh`, `UsdPreviewSurface` materials,
//! UsdSkel) written as USDC (hearth's own crate writer, version 0.8.0), USDA or USDZ.
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
mod skel;
mod texture;
pub mod usda;
pub mod usdc;
pub mod usdz;

pub use model::{model_to_usd, UsdModel};

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

/// The model `asset` of `source` (a `.hmesh` runtime path, or a model's name) exported for
/// `out`, whose extension picks the format: the files to write, as (path, bytes), `out`
/// first. A `.usdc` or `.usda` names its PNGs in the folder `<stem>_textures` beside it; a
/// `.usdz` holds them. Errors name the asset or texture at fault.
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
    let model = load_model(source, asset)?;
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_owned();
    let model_name = asset
        .rsplit('/')
        .next()
        .and_then(|s| s.strip_suffix(".hmesh").or(Some(s)))
        .unwrap_or(asset);
    let texture_dir = match format {
        Format::Usdz => "textures".to_owned(),
        _ => format!("{stem}_textures"),
    };
    let usd =
        model_to_usd(&model, model_name, &texture_dir).map_err(|e| format!("{asset}: {e}"))?;
    let folder = out.parent().unwrap_or(Path::new(""));
    let mut files = Vec::with_capacity(usd.textures.len() + 1);
    match format {
        Format::Usdc | Format::Usda => {
            let bytes = if format == Format::Usdc {
                usdc::write(&usd.layer).map_err(|e| format!("{asset}: {e}"))?
            } else {
                usda::write(&usd.layer).into_bytes()
            };
            files.push((out.to_owned(), bytes));
            files.extend(usd.textures.into_iter().map(|(p, b)| (folder.join(p), b)));
        }
        Format::Usdz => {
            let root = usdc::write(&usd.layer).map_err(|e| format!("{asset}: {e}"))?;
            let mut entries = vec![(format!("{stem}.usdc"), root)];
            entries.extend(usd.textures);
            let zip = usdz::write(&entries).map_err(|e| format!("{}: {e}", out.display()))?;
            files.push((out.to_owned(), zip));
        }
    }
    Ok(files)
}

/// The model at runtime path `asset` (a `.hmesh`), or the model named `asset`.
fn load_model(source: &impl AssetSource, asset: &str) -> Result<Model, String> {
    if asset.ends_with(".hscene") {
        return Err(format!(
            "{asset}: scenes are not exported yet; export each model the scene places"
        ));
    }
    // The reader's errors name the asset or file at fault already.
    if asset.ends_with(".hmesh") {
        return Model::load(source, asset).map_err(|e| e.to_string());
    }
    Model::load_by_name(source, asset).map_err(|e| e.to_string())
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
    for (path, bytes) in files {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        crate::read::inspect::write_output(&path, &bytes, inputs)?;
        written.push(path);
    }
    Ok(written)
}
