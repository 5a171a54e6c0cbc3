//! A preview renderer on wgpu (feature `render`): draws a baked model (from a pack or a runtime
//! tree) or, with `bake`, the source model it came from, offscreen, with the same camera,
//! lights and shaders, so two images of one model differ only by what the bake changed.
//!
//! - `.hmesh` vertices are drawn as stored: the octahedral normals and tangents are decoded in
//!   WGSL (`shader.wgsl`); source vertices are plain floats.
//! - `.hmat` metallic-roughness PBR: base color, metallic-roughness, normal (X, Y; Z rebuilt),
//!   occlusion and emissive textures, OPAQUE / MASK / BLEND, double-sided; each slot samples
//!   its own UV set (`TEXCOORD_0` or `_1`) through its own `KHR_texture_transform`
//!   ([`TextureUv`](crate::TextureUv), as `.hmat` v2 keeps them per slot). The PBR
//!   extensions' properties are not drawn: a preview shows the core material.
//! - UASTC is transcoded to BC7 where the adapter samples BC, else to RGBA8; raw textures are
//!   widened to RGBA8; GPU block formats (`texture.format`) are uploaded as they are when the
//!   adapter has them.
//! - Skinned models are drawn in bind pose; morph targets at rest.
//! - One fixed light rig (a warm key light, a cool fill, a sky/ground ambient term) and a
//!   camera framing the model's bounding sphere from the front right, above.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use hearth::render::{Renderer, RenderScene};
//! let renderer = Renderer::new()?;
//! let pack = hearth::PakReader::open("assets.hpack")?;
//! let scene = RenderScene::from_pack(&pack, "models/chair.hmesh", renderer.samples_bc())?;
//! renderer.render(&scene, 512, 512)?.save_png("chair.png")?;
//! # Ok(())
//! # }
//! ```

mod gpu;
pub mod scene;

pub use gpu::{Prepared, Renderer, View, MAX_SIDE};
pub use scene::RenderScene;

use crate::read::pak::PakReader;
use std::path::Path;

/// Why a render failed.
#[derive(Debug)]
pub enum RenderError {
    /// No GPU adapter (the message says how to get a software one).
    NoAdapter(String),
    /// The device failed.
    Device(String),
    /// The model, material or a texture is unreadable or inconsistent.
    Input(String),
    /// The adapter cannot draw something the model uses (a texture format, a size).
    Unsupported(String),
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoAdapter(m) => write!(f, "{m}"),
            Self::Device(m) => write!(f, "GPU device error: {m}"),
            Self::Input(m) => write!(f, "{m}"),
            Self::Unsupported(m) => write!(f, "not drawable on this adapter: {m}"),
        }
    }
}

impl std::error::Error for RenderError {}

/// An RGBA8 image (sRGB), rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

impl Image {
    /// The image as PNG bytes.
    pub fn to_png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        image::RgbaImage::from_raw(self.width, self.height, self.rgba.clone())
            .expect("an Image's buffer matches its size")
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("PNG encoding into memory");
        out
    }

    /// Writes the PNG to `path` through a temporary file in the same folder, so a reader never
    /// sees half an image and a failure leaves any previous file as it was.
    pub fn save_png(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        crate::read::regular_file::replace_file(path.as_ref(), &self.to_png())
    }

    /// The share of pixels that differ from the top-left one: 0 for a blank image.
    pub fn coverage(&self) -> f64 {
        let Some(first) = self.rgba.get(..4) else {
            return 0.0;
        };
        let differing = self.rgba.chunks_exact(4).filter(|p| *p != first).count();
        differing as f64 / (self.width as f64 * self.height as f64).max(1.0)
    }

    /// PSNR in dB over RGB against `other` (same size), infinite for equal images.
    pub fn psnr(&self, other: &Image) -> Option<f64> {
        if (self.width, self.height) != (other.width, other.height) {
            return None;
        }
        let (mut sum, mut n) = (0f64, 0usize);
        for (a, b) in self.rgba.chunks_exact(4).zip(other.rgba.chunks_exact(4)) {
            for c in 0..3 {
                sum += (a[c] as f64 - b[c] as f64).powi(2);
                n += 1;
            }
        }
        Some(if sum == 0.0 {
            f64::INFINITY
        } else {
            10.0 * (255.0f64 * 255.0 / (sum / n.max(1) as f64)).log10()
        })
    }
}

impl RenderScene {
    /// The mesh at `mesh_path` in a pack (`models/chair.hmesh`), its `.hmat` beside it, its
    /// textures by the `.hmat`'s refs.
    pub fn from_pack(pak: &PakReader, mesh_path: &str, bc7: bool) -> Result<Self, RenderError> {
        let read = |path: &str| -> Result<Vec<u8>, RenderError> {
            let entry = pak
                .find(path)
                .map_err(|e| RenderError::Input(format!("{path}: {e}")))?
                .ok_or_else(|| RenderError::Input(format!("{path} is not in the pack")))?;
            entry
                .bytes()
                .map(|b| b.into_owned())
                .map_err(|e| RenderError::Input(format!("{path}: {e}")))
        };
        let mesh = read(mesh_path)?;
        let materials = read(&companion(mesh_path)?)?;
        let mut texture = |hash: u64| {
            pak.find_by_hash(hash)
                .ok()
                .flatten()
                .and_then(|e| e.bytes().ok().map(|b| b.into_owned()))
        };
        Self::from_baked(&mesh, &materials, &mut texture, bc7)
    }

    /// The mesh at `mesh_path` in a baked runtime tree (the folder holding `assets.hman`).
    pub fn from_tree(root: &Path, mesh_path: &str, bc7: bool) -> Result<Self, RenderError> {
        let read = |rel: &str| {
            std::fs::read(root.join(rel))
                .map_err(|e| RenderError::Input(format!("{}: {e}", root.join(rel).display())))
        };
        let manifest = read(crate::format::hman::MANIFEST_PATH)?;
        let entries = crate::format::hman::parse(&manifest)
            .map_err(|e| RenderError::Input(format!("assets.hman: {e}")))?;
        let by_hash: std::collections::HashMap<u64, String> = entries
            .iter()
            .map(|e| (e.hash, e.path.to_owned()))
            .collect();
        let mesh = read(mesh_path)?;
        let materials = read(&companion(mesh_path)?)?;
        let mut texture = |hash: u64| {
            by_hash
                .get(&hash)
                .and_then(|path| std::fs::read(root.join(path)).ok())
        };
        Self::from_baked(&mesh, &materials, &mut texture, bc7)
    }
}

/// `x.hmesh` -> `x.hmat`.
fn companion(mesh_path: &str) -> Result<String, RenderError> {
    mesh_path
        .strip_suffix(".hmesh")
        .map(|stem| format!("{stem}.hmat"))
        .ok_or_else(|| RenderError::Input(format!("{mesh_path}: not a .hmesh path")))
}
