//! The texture pipelines: standalone images, cubemap folders, array folders and `.cube` LUTs,
//! all reading the `texture = { … }` settings table.

use crate::bake::error::BakeError;
use crate::bake::pipeline::{
    AssetTable, BakeContext, Claim, Output, Pipeline, PipelineError, Source,
};
use crate::bake::texture::settings::TextureSettings;
use crate::bake::texture::{self, pixels::DecodedImage, EncodedTexture, TextureMode, TextureShape};
use crate::format::hman::AssetKind;
use std::path::Path;

/// Image file extensions the texture pipelines decode.
pub const IMAGE_EXTENSIONS: [&str; 4] = ["png", "jpg", "jpeg", "tga"];
/// Cubemap face file stems, in KTX2 face order (+X, -X, +Y, -Y, +Z, -Z).
pub const CUBE_FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];
/// Bumped when any texture pipeline's output changes for the same input and settings.
const VERSION: u32 = 1;

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether `name` is an image the texture pipelines read.
pub fn is_image(name: &str) -> bool {
    IMAGE_EXTENSIONS.contains(&extension(name).as_str())
}

/// Decodes one image under the settings' pixel budget, naming the file in errors (also those
/// of a PNG's rows, decoded later as they are read) and warning about precision loss.
pub(crate) fn decode<'b>(
    path: &Path,
    bytes: &'b [u8],
    settings: &TextureSettings,
    cx: &mut BakeContext<'_>,
) -> Result<DecodedImage<'b>, BakeError> {
    let ext = extension(&path.to_string_lossy());
    let image = DecodedImage::decode(bytes, &ext, settings.max_pixels)
        .map_err(|e| BakeError::asset(path, e))?
        .named(path.display().to_string());
    let info = image.info();
    if info.bits > 8 {
        cx.warn_about(
            path,
            format!("{}-bit source stored with 8 bits per channel", info.bits),
        );
    }
    Ok(image)
}

pub(crate) fn emit(
    cx: &mut BakeContext<'_>,
    path: String,
    kind: AssetKind,
    encoded: EncodedTexture,
) {
    cx.emit(Output::new(path, kind, encoded.ktx2).color_space(encoded.color_space));
}

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
            format!("{}.ktx2", source.stem()),
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
            format!("{}.ktx2", source.rel()),
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
            format!("{}.arr.ktx2", source.stem()),
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
            format!("{}.ktx2", source.stem()),
            AssetKind::LUT,
            encoded,
        );
        Ok(())
    }
}
