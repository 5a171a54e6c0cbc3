//! pak's `[bitmap]` asset files → `<name>.ktx2` through the texture pipeline's encoder: pak's
//! keys (`src`, `color`, `mip-levels`, `resize`, `swizzle`) and hearth's own texture keys
//! (`compress`, `quality`, `rdo`, `zstd-level`, `max-pixels`), over the manifest's layered
//! `texture` settings.

use crate::bake::asset_file::source_of_kind;
use crate::bake::pipeline::{AssetTable, BakeContext, PipelineError};
use crate::bake::texture::image_file::{decode, emit, IMAGE_EXTENSIONS};
use crate::bake::texture::settings::{TextureQuality, TextureSettings};
use crate::bake::texture::{self, TextureMode, TextureShape};
use crate::format::hman::AssetKind;
use serde::Deserialize;

/// Bakes a `[bitmap]` asset file into `<name>.ktx2`, its keys over the layered `settings`.
pub(super) fn bake(
    file: &AssetTable<'_>,
    settings: &TextureSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let (body, name) = (file.body(), file.name());
    let mut settings = settings.clone();
    apply_keys(body, "bitmap", &mut settings, cx)?;
    let (read_path, root_rel) = source_of_kind(file.rel(), "bitmap", body, &IMAGE_EXTENSIONS, cx)?;
    let bytes = cx.read(&read_path)?;
    let image = decode(std::path::Path::new(&root_rel), &bytes, &settings, cx)?;
    let mode = TextureMode::from_file_name(&root_rel);
    let encoded = texture::encode_decoded(vec![image], TextureShape::Single, mode, &settings)?;
    emit(
        cx,
        AssetKind::TEXTURE.file_name(name),
        AssetKind::TEXTURE,
        encoded,
    );
    Ok(())
}

/// Applies a bitmap table's keys (a `[bitmap]` file's, or an inline bitmap's at `at`) to the
/// layered texture settings; `src` is the caller's.
pub(crate) fn apply_keys(
    body: &toml::Table,
    at: &str,
    settings: &mut TextureSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), String> {
    let key_error = |key: &str, want: &str| format!("`{at}.{key}`: {want}");
    for (key, value) in body {
        match key.as_str() {
            "src" => {}
            "color" => {
                settings.srgb = Some(match value.as_str() {
                    Some("srgb") => true,
                    Some("linear") => false,
                    _ => return Err(key_error(key, "\"srgb\" or \"linear\"")),
                })
            }
            "mip-levels" => match value {
                toml::Value::Boolean(on) => settings.mips = *on,
                toml::Value::Integer(1) => settings.mips = false,
                toml::Value::Integer(n) if *n > 1 => {
                    settings.mips = true;
                    cx.warn(format!(
                        "`{at}.mip-levels = {n}`: hearth writes the full mip chain, not {n} levels"
                    ));
                }
                _ => return Err(key_error(key, "true, false or a count from 1")),
            },
            "resize" => {
                settings.max_size = value
                    .as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| key_error(key, "a size in pixels, from 1"))?
            }
            "swizzle" => {
                settings.swizzle = value
                    .as_str()
                    .ok_or_else(|| key_error(key, "a string like \"rgb\" or \"r\""))?
                    .to_owned()
            }
            "compress" => {
                settings.compress = value
                    .as_bool()
                    .ok_or_else(|| key_error(key, "true or false"))?
            }
            "quality" => {
                settings.quality = TextureQuality::deserialize(value.clone())
                    .map_err(|e| key_error(key, &e.to_string()))?
            }
            "rdo" => {
                settings.rdo = value
                    .as_float()
                    .or_else(|| value.as_integer().map(|n| n as f64))
                    .ok_or_else(|| key_error(key, "a number"))?
                    as f32
            }
            "zstd-level" => {
                settings.zstd_level = value
                    .as_integer()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| key_error(key, "an integer"))?
            }
            "max-pixels" => {
                settings.max_pixels = value
                    .as_integer()
                    .and_then(|n| u64::try_from(n).ok())
                    .ok_or_else(|| key_error(key, "a pixel count"))?
            }
            other => {
                return Err(format!(
                    "`{at}.{other}`: unknown key (src, color, mip-levels, resize, swizzle, \
                     compress, quality, rdo, zstd-level, max-pixels)"
                ))
            }
        }
    }
    settings.validate().map_err(|e| format!("`{at}`: {e}"))
}
