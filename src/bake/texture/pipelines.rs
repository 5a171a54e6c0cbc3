//! The texture pipelines: standalone images, cubemap folders, array folders and `.cube` LUTs,
//! all reading the `texture = { … }` settings table.

use super::image_file::{decode, emit};
pub use super::image_file::{is_image, IMAGE_EXTENSIONS};
use crate::bake::pipeline::{AssetTable, BakeContext, Claim, Pipeline, PipelineError, Source};
use crate::bake::texture::settings::TextureSettings;
use crate::bake::texture::{self, TextureMode, TextureShape};
use crate::format::hman::AssetKind;

/// Cubemap face file stems, in KTX2 face order (+X, -X, +Y, -Y, +Z, -Z).
pub const CUBE_FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];
/// Bumped when any texture pipeline's output changes for the same input and settings.
const VERSION: u32 = 1;

/// A PNG, JPEG or TGA image -> `.ktx2`; the mode comes from the name (`*.n.png` normal,
/// `*.ao.png` / `*.h.png` / `*.r.png` grayscale, else color).
#[derive(Debug, Clone, Copy, Default)]
pub struct Image;

impl Pipeline for Image {
    type Settings = TextureSettings;

    fn name(&self) -> &str {
        "image"
    }
    fn version(&self) -> u32 {
        VERSION
    }
    fn claims(&self) -> Vec<Claim> {
        IMAGE_EXTENSIONS
            .iter()
            .map(|ext| Claim::file(format!("*.{ext}")))
            .collect()
    }
    fn settings_table(&self) -> &str {
        "texture"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &TextureSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let image = decode(source.path(), source.bytes(), settings, cx)?;
        let mode = TextureMode::from_file_name(source.rel());
        let encoded = texture::encode_decoded(vec![image], TextureShape::Single, mode, settings)?;
        emit(
            cx,
            AssetKind::TEXTURE.file_name(source.stem()),
            AssetKind::TEXTURE,
            encoded,
        );
        Ok(())
    }
    fn asset_tables(&self) -> &[&str] {
        &["bitmap"]
    }
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        settings: &TextureSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        super::asset_file::bake(file, settings, cx)
    }
}

/// A `*.env/` folder of six faces (`px nx py ny pz nz`, any image type) -> cubemap
/// `.env.ktx2`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cubemap;

impl Pipeline for Cubemap {
    type Settings = TextureSettings;

    fn name(&self) -> &str {
        "cubemap"
    }
    fn version(&self) -> u32 {
        VERSION
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::folder("*.env/")]
    }
    fn settings_table(&self) -> &str {
        "texture"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &TextureSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let is_face = |name: &str, face: &str| {
            is_image(name)
                && name
                    .rsplit_once('.')
                    .is_some_and(|(stem, _)| stem.eq_ignore_ascii_case(face))
        };
        let mut faces = Vec::with_capacity(6);
        for face in CUBE_FACES {
            let file = source
                .files()
                .iter()
                .find(|f| is_face(f.name(), face))
                .ok_or_else(|| {
                    format!("cubemap face `{face}` is missing (need px, nx, py, ny, pz, nz images)")
                })?;
            faces.push(decode(&file.path, &file.bytes, settings, cx)?);
        }
        for file in source.files() {
            if !CUBE_FACES.iter().any(|face| is_face(file.name(), face)) {
                cx.warn_about(&file.path, "not a cubemap face; ignored");
            }
        }
        let encoded =
            texture::encode_decoded(faces, TextureShape::Cubemap, TextureMode::Color, settings)?;
        emit(
            cx,
            AssetKind::TEXTURE.file_name(source.rel()),
            AssetKind::TEXTURE,
            encoded,
        );
        Ok(())
    }
}

/// A `*.array/` folder of images -> 2D array `.arr.ktx2`, layers in file-name order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Array;

impl Pipeline for Array {
    type Settings = TextureSettings;

    fn name(&self) -> &str {
        "array"
    }
    fn version(&self) -> u32 {
        VERSION
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::folder("*.array/")]
    }
    fn settings_table(&self) -> &str {
        "texture"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &TextureSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let mut layers = Vec::new();
        for file in source.files() {
            if is_image(file.name()) {
                layers.push(decode(&file.path, &file.bytes, settings, cx)?);
            } else {
                cx.warn_about(&file.path, "not an image; left out of the array");
            }
        }
        if layers.is_empty() {
            return Err("texture array folder holds no images".into());
        }
        let encoded =
            texture::encode_decoded(layers, TextureShape::Array, TextureMode::Color, settings)?;
        emit(
            cx,
            AssetKind::TEXTURE.file_name(&format!("{}.arr", source.stem())),
            AssetKind::TEXTURE,
            encoded,
        );
        Ok(())
    }
}

/// A `*.lut.cube` file (Iridas/Resolve) -> 3D texture `.lut.ktx2`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lut;

impl Pipeline for Lut {
    type Settings = TextureSettings;

    fn name(&self) -> &str {
        "lut"
    }
    fn version(&self) -> u32 {
        VERSION
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.lut.cube")]
    }
    fn settings_table(&self) -> &str {
        "texture"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &TextureSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let text = std::str::from_utf8(source.bytes())
            .map_err(|_| "not a text .cube file (invalid UTF-8)")?;
        let lut = texture::lut::parse(text)?;
        let encoded = texture::encode_lut(&lut, settings.zstd_level);
        emit(
            cx,
            AssetKind::TEXTURE.file_name(source.stem()),
            AssetKind::LUT,
            encoded,
        );
        Ok(())
    }
}
