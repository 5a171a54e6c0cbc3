//! Asset pipelines: one enum arm per asset kind. The planner, cache and pack writer only see
//! [`Pipeline`] and [`BakedAsset`], so a new kind is a new arm here and a module beside it.

use crate::bake::error::BakeError;
use crate::bake::plan::Job;
use crate::bake::texture::{self, pixels::Pixels, TextureMode, TextureShape};
use crate::format::hash::hash_runtime_path;
use crate::format::hman::{AssetKind, ColorSpace};
use std::path::PathBuf;

/// How an asset is baked, chosen by its file or folder name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipeline {
    /// Copied as it is into the runtime tree and packed (an opaque file).
    Blob,
    /// A PNG, JPEG or TGA image -> `.ktx2` (mode from the name: `*.n.png` normal, ...).
    Image(TextureMode),
    /// A `*.env/` folder of six faces -> cubemap `.env.ktx2`.
    Cubemap,
    /// A `*.array/` folder of images -> 2D array `.arr.ktx2`, layers in file-name order.
    TextureArray,
    /// A `*.lut.cube` file -> 3D texture `.lut.ktx2`.
    Lut,
    /// A `.gltf`, `.glb` or `.obj` model -> `.hmesh`, `.hmat` and `<stem>/tex_<i>.ktx2`.
    Model,
}

/// A file a pipeline produced, with the manifest row it contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BakedFile {
    /// Runtime path, `/`-separated, relative to the runtime root.
    pub path: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The manifest row (`None` for files that are not assets of their own).
    pub manifest: Option<ManifestRow>,
}

/// An `assets.hman` contribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ManifestRow {
    /// Asset hash of the canonical ref.
    pub hash: u64,
    /// Asset kind.
    pub kind: AssetKind,
    /// Color space.
    pub color_space: ColorSpace,
}

/// What a pipeline made of one source asset.
#[derive(Debug, Clone, Default)]
pub struct BakedAsset {
    /// Output files.
    pub files: Vec<BakedFile>,
    /// Warnings about this asset (each names the file).
    pub warnings: Vec<String>,
}

/// Image file extensions the texture pipeline decodes.
pub const IMAGE_EXTENSIONS: [&str; 4] = ["png", "jpg", "jpeg", "tga"];
/// Cubemap face file stems, in KTX2 face order (+X, -X, +Y, -Y, +Z, -Z).
pub const CUBE_FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether `name` is an image the texture pipeline reads.
pub fn is_image(name: &str) -> bool {
    IMAGE_EXTENSIONS.contains(&extension(name).as_str())
}

impl Pipeline {
    /// The pipeline for a source file's relative path.
    pub fn classify(rel: &str) -> Self {
        let lower = rel.to_ascii_lowercase();
        if lower.ends_with(".lut.cube") {
            Pipeline::Lut
        } else if lower.ends_with(".gltf") || lower.ends_with(".glb") || lower.ends_with(".obj") {
            Pipeline::Model
        } else if is_image(rel) {
            Pipeline::Image(TextureMode::from_file_name(rel))
        } else {
            Pipeline::Blob
        }
    }

    /// The pipeline for a source folder, if the folder is an asset of its own.
    pub fn classify_dir(rel: &str) -> Option<Self> {
        let lower = rel.to_ascii_lowercase();
        if lower.ends_with(".env") {
            Some(Pipeline::Cubemap)
        } else if lower.ends_with(".array") {
            Some(Pipeline::TextureArray)
        } else {
            None
        }
    }

    /// Version of this pipeline's encoder: bumping it re-bakes every asset of the kind.
    pub fn encoder_version(self) -> u32 {
        match self {
            Pipeline::Blob => 1,
            Pipeline::Image(_) | Pipeline::Cubemap | Pipeline::TextureArray | Pipeline::Lut => 1,
            Pipeline::Model => 1,
        }
    }

    /// A short name, for reports and the cache.
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Blob => "blob",
            Pipeline::Image(_) => "image",
            Pipeline::Cubemap => "cubemap",
            Pipeline::TextureArray => "array",
            Pipeline::Lut => "lut",
            Pipeline::Model => "model",
        }
    }

    /// Bakes one job from its sources' bytes (one file, or a folder's files in name order).
    pub fn bake(
        self,
        job: &Job,
        sources: Vec<(PathBuf, Vec<u8>)>,
    ) -> Result<BakedAsset, BakeError> {
        let fail = |message: String| BakeError::asset(&job.source, message);
        match self {
            Pipeline::Model => {
                let (_, bytes) = sources
                    .into_iter()
                    .next()
                    .ok_or_else(|| fail("no source".into()))?;
                crate::bake::mesh::bake_model(&job.rel, &job.source, &bytes, &job.settings)
                    .map_err(fail)
            }
            Pipeline::Blob => {
                let bytes = sources
                    .into_iter()
                    .next()
                    .map(|(_, b)| b)
                    .unwrap_or_default();
                Ok(bake_blob(&job.rel, bytes))
            }
            Pipeline::Image(mode) => {
                let (_, bytes) = sources
                    .into_iter()
                    .next()
                    .ok_or_else(|| fail("no source".into()))?;
                let mut warnings = Vec::new();
                let image = decode(&job.source, &bytes, &mut warnings)?;
                let encoded =
                    texture::encode(&[image], TextureShape::Single, mode, &job.settings.texture)
                        .map_err(fail)?;
                let path = format!(
                    "{}.ktx2",
                    job.rel.rsplit_once('.').map(|(s, _)| s).unwrap_or(&job.rel)
                );
                Ok(texture_asset(path, encoded, AssetKind::TEXTURE, warnings))
            }
            Pipeline::Cubemap => {
                let mut warnings = Vec::new();
                let mut faces = Vec::with_capacity(6);
                for face in CUBE_FACES {
                    let found = sources.iter().find(|(path, _)| {
                        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                        name.rsplit_once('.')
                            .is_some_and(|(stem, _)| stem.eq_ignore_ascii_case(face))
                            && is_image(name)
                    });
                    let (path, bytes) = found.ok_or_else(|| {
                        fail(format!(
                            "cubemap face `{face}` is missing (need px, nx, py, ny, pz, nz images)"
                        ))
                    })?;
                    faces.push(decode(path, bytes, &mut warnings)?);
                }
                for (path, _) in &sources {
                    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    let stem = name.rsplit_once('.').map(|(s, _)| s).unwrap_or(name);
                    if !(is_image(name) && CUBE_FACES.iter().any(|f| stem.eq_ignore_ascii_case(f)))
                    {
                        warnings.push(format!("{}: not a cubemap face; ignored", path.display()));
                    }
                }
                let encoded = texture::encode(
                    &faces,
                    TextureShape::Cubemap,
                    TextureMode::Color,
                    &job.settings.texture,
                )
                .map_err(fail)?;
                Ok(texture_asset(
                    format!("{}.ktx2", job.rel),
                    encoded,
                    AssetKind::TEXTURE,
                    warnings,
                ))
            }
            Pipeline::TextureArray => {
                let mut warnings = Vec::new();
                let mut layers = Vec::new();
                for (path, bytes) in &sources {
                    if is_image(&path.to_string_lossy()) {
                        layers.push(decode(path, bytes, &mut warnings)?);
                    } else {
                        warnings.push(format!(
                            "{}: not an image; left out of the array",
                            path.display()
                        ));
                    }
                }
                if layers.is_empty() {
                    return Err(fail("texture array folder holds no images".into()));
                }
                let encoded = texture::encode(
                    &layers,
                    TextureShape::Array,
                    TextureMode::Color,
                    &job.settings.texture,
                )
                .map_err(fail)?;
                let stem = &job.rel[..job.rel.len() - ".array".len()];
                Ok(texture_asset(
                    format!("{stem}.arr.ktx2"),
                    encoded,
                    AssetKind::TEXTURE,
                    warnings,
                ))
            }
            Pipeline::Lut => {
                let (_, bytes) = sources
                    .into_iter()
                    .next()
                    .ok_or_else(|| fail("no source".into()))?;
                let text = std::str::from_utf8(&bytes)
                    .map_err(|_| fail("not a text .cube file (invalid UTF-8)".into()))?;
                let lut = texture::lut::parse(text).map_err(fail)?;
                let encoded = texture::encode_lut(&lut, job.settings.texture.zstd_level);
                let stem = &job.rel[..job.rel.len() - ".cube".len()];
                Ok(texture_asset(
                    format!("{stem}.ktx2"),
                    encoded,
                    AssetKind::LUT,
                    Vec::new(),
                ))
            }
        }
    }
}

/// Decodes one image, naming the file in errors and warning about precision loss.
fn decode(
    path: &std::path::Path,
    bytes: &[u8],
    warnings: &mut Vec<String>,
) -> Result<Pixels, BakeError> {
    let ext = extension(&path.to_string_lossy());
    let (pixels, info) = Pixels::decode(bytes, &ext).map_err(|e| BakeError::asset(path, e))?;
    if info.bits > 8 {
        warnings.push(format!(
            "{}: {}-bit source stored with 8 bits per channel",
            path.display(),
            info.bits
        ));
    }
    Ok(pixels)
}

fn texture_asset(
    path: String,
    encoded: texture::EncodedTexture,
    kind: AssetKind,
    warnings: Vec<String>,
) -> BakedAsset {
    let row = ManifestRow {
        hash: hash_runtime_path(&path),
        kind,
        color_space: encoded.color_space,
    };
    BakedAsset {
        files: vec![BakedFile {
            path,
            bytes: encoded.ktx2,
            manifest: Some(row),
        }],
        warnings,
    }
}

/// An opaque file keeps its path and bytes; its kind comes from the extension.
fn bake_blob(rel: &str, bytes: Vec<u8>) -> BakedAsset {
    let kind = match extension(rel).as_str() {
        "spv" | "wgsl" | "glsl" | "hlsl" => AssetKind::SHADER,
        "ttf" | "otf" | "fnt" => AssetKind::FONT,
        _ => AssetKind::BLOB,
    };
    let row = ManifestRow {
        hash: hash_runtime_path(rel),
        kind,
        color_space: ColorSpace::Linear,
    };
    BakedAsset {
        files: vec![BakedFile {
            path: rel.to_owned(),
            bytes,
            manifest: Some(row),
        }],
        warnings: Vec::new(),
    }
}
