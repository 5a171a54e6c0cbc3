//! A source image read for a texture (its extensions, the decode under the pixel budget) and
//! an encoded texture emitted: shared by the texture pipelines, pak's `[bitmap]` asset files
//! and materials.

use crate::bake::error::BakeError;
use crate::bake::pipeline::{BakeContext, Output};
use crate::bake::texture::settings::TextureSettings;
use crate::bake::texture::{pixels::DecodedImage, EncodedTexture};
use crate::format::hman::AssetKind;
use std::path::Path;

/// Image file extensions the texture pipelines decode.
pub const IMAGE_EXTENSIONS: [&str; 4] = ["png", "jpg", "jpeg", "tga"];
/// The lowercase extension of `name` (empty without one).
pub(crate) fn extension(name: &str) -> String {
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

/// Emits an encoded texture as the output `path` of `kind`, with its colour space.
pub(crate) fn emit(
    cx: &mut BakeContext<'_>,
    path: String,
    kind: AssetKind,
    encoded: EncodedTexture,
) {
    cx.emit(Output::new(path, kind, encoded.ktx2).color_space(encoded.color_space));
}
