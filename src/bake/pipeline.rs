//! Asset pipelines: one enum arm per asset kind. The planner, cache and pack writer only see
//! [`Pipeline`] and [`BakedAsset`], so a new kind is a new arm here and a module beside it.

use crate::bake::error::BakeError;
use crate::bake::plan::Job;
use crate::format::hash::hash_runtime_path;
use crate::format::hman::{AssetKind, ColorSpace};

/// How an asset is baked, chosen by its file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipeline {
    /// Copied as it is into the runtime tree and packed (an opaque file).
    Blob,
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

impl Pipeline {
    /// The pipeline for a source-relative path.
    pub fn classify(_rel: &str) -> Self {
        Pipeline::Blob
    }

    /// Version of this pipeline's encoder: bumping it re-bakes every asset of the kind.
    pub fn encoder_version(self) -> u32 {
        match self {
            Pipeline::Blob => 1,
        }
    }

    /// A short name, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Blob => "blob",
        }
    }

    /// Bakes one job whose source bytes have been read.
    pub fn bake(self, job: &Job, source: Vec<u8>) -> Result<BakedAsset, BakeError> {
        match self {
            Pipeline::Blob => Ok(bake_blob(&job.rel, source)),
        }
    }
}

/// An opaque file keeps its path and bytes; its kind comes from the extension.
fn bake_blob(rel: &str, bytes: Vec<u8>) -> BakedAsset {
    let extension = rel
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let kind = match extension.as_str() {
        "spv" | "wgsl" | "glsl" | "hlsl" => AssetKind::Shader,
        "ttf" | "otf" | "fnt" => AssetKind::Font,
        _ => AssetKind::Embed,
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
