//! pak's `[material]` asset files and assetc's standalone `*.mat` files (the same schema, in
//! TOML) → a one-row `.hmat` whose textures are baked beside it or referenced.
//!
//! Each of `color`, `emissive`, `metal`, `rough` is a value (a hex string `#rgb`, `#rrggbb`,
//! `#rrggbbaa` in sRGB, a number, or an array of numbers) or a texture: a path to an image
//! (baked as `<name>/<slot>.ktx2`), a path to a `[bitmap]` asset file (its `.ktx2` is
//! referenced, not baked again), or an inline bitmap table (`{ src = "…" }` and any `[bitmap]`
//! key). `normal` is a texture.
//! `metal` and `rough` images are packed into one ORM texture (roughness G, metallic B, as
//! glTF's metallic-roughness). `double-sided` (bool) and `alpha-test` (the cutoff: MASK mode).
//! `height` (or pak's README spelling, `displacement`) and `transmission` take a number or a
//! texture (baked one-channel linear) and go to `.hmat` v2 property records
//! ([`crate::format::hmat::property`]); a material without them stays a v1 table.

use super::{number, resolve, AssetFileSettings};
use crate::bake::pipeline::{
    AssetTable, BakeContext, Claim, Output, Pipeline, PipelineError, Source,
};
use crate::bake::texture::image_file::{decode, emit};
use crate::bake::texture::pixels::{srgb_to_linear, Pixels};
use crate::bake::texture::settings::TextureSettings;
use crate::bake::texture::{self, TextureMode, TextureShape};
use crate::bake::toml_depth::{line_of, parse_toml};
use crate::format::hman::AssetKind;
use crate::format::hmat::{self, property, GpuMaterial, MaterialProperty};

/// What a material key holds.
enum Input {
    /// Numbers (a hex color is converted to linear RGBA).
    Value(Vec<f32>),
    /// An image to bake, relative to the material file (for `cx.read`) and to the root, with
    /// an inline bitmap's keys (`{ src = "…", resize = 512 }`; empty for a plain path).
    Image {
        read: String,
        root_rel: String,
        keys: toml::Table,
    },
    /// An asset baked by another file (a `[bitmap]`): its canonical ref.
    Baked(String),
}

/// assetc's standalone materials: `*.mat`, TOML with the `[material]` schema (its keys at the
/// top level, or in one `[material]` table) → `<name>.hmat`.
#[derive(Debug, Clone, Copy, Default)]
pub struct StandaloneMaterial;

impl Pipeline for StandaloneMaterial {
    type Settings = AssetFileSettings;

    fn name(&self) -> &str {
        "material"
    }
    fn version(&self) -> u32 {
        // 2: height and transmission kept (`.hmat` v2), no longer dropped.
        2
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.mat")]
    }
    fn asset_tables(&self) -> &[&str] {
        &["material"]
    }
    fn settings_table(&self) -> &str {
        "asset-file"
    }
    fn names_dependencies(&self) -> bool {
        true
    }
    fn dependencies(&self, source_rel: &str, bytes: &[u8]) -> Vec<String> {
        match std::str::from_utf8(bytes).map(parse_toml) {
            Ok(Ok(table)) => dependencies(source_rel, &material_body(table)),
            _ => Vec::new(),
        }
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &AssetFileSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let text =
            std::str::from_utf8(source.bytes()).map_err(|e| format!("not UTF-8 text: {e}"))?;
        let table = parse_toml(text).map_err(|(message, offset)| match offset {
            Some(offset) => format!("line {}: not TOML: {message}", line_of(text, offset)),
            None => format!("not TOML: {message}"),
        })?;
        bake(source.rel(), source.stem(), &material_body(table), cx)
    }
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        _: &AssetFileSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        bake(file.rel(), file.name(), file.body(), cx)
    }
    fn asset_table_dependencies(&self, file: &AssetTable<'_>) -> Vec<String> {
        dependencies(file.rel(), file.body())
    }
}

/// A `.mat` file's material keys: at the top level, or in its one `[material]` table.
fn material_body(table: toml::Table) -> toml::Table {
    match table.get("material") {
        Some(toml::Value::Table(body)) if table.len() == 1 => body.clone(),
        _ => table,
    }
}

/// Bakes the material table `body` of `file_rel` (a `.toml` or `.mat`) into `<name>.hmat`.
fn bake(
    file_rel: &str,
    name: &str,
    body: &toml::Table,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let settings: TextureSettings = cx.settings("texture")?;
    let mut row = GpuMaterial::default();
    let mut metal = None;
    let mut rough = None;
    let mut properties: Vec<MaterialProperty> = Vec::new();
    for (key, value) in body {
        let at = format!("material.{key}");
        match key.as_str() {
            "color" => match input(file_rel, value, &at)? {
                Input::Value(v) => row.base_color_factor = vector::<4>(&v, 1.0, &at)?,
                texture => {
                    row.base_color_tex =
                        slot(cx, name, "color", texture, TextureMode::Color, &settings)?
                }
            },
            "emissive" => match input(file_rel, value, &at)? {
                Input::Value(v) => {
                    let [r, g, b, _] = vector::<4>(&v, 1.0, &at)?;
                    row.emissive_factor = [r, g, b];
                }
                texture => {
                    row.emissive_factor = [1.0; 3];
                    row.emissive_tex =
                        slot(cx, name, "emissive", texture, TextureMode::Color, &settings)?;
                }
            },
            "normal" => match input(file_rel, value, &at)? {
                Input::Value(_) => return Err(format!("`{at}` must be a texture").into()),
                texture => {
                    row.normal_tex =
                        slot(cx, name, "normal", texture, TextureMode::Normal, &settings)?
                }
            },
            "metal" => metal = Some(input(file_rel, value, &at)?),
            "rough" => rough = Some(input(file_rel, value, &at)?),
            "double-sided" => {
                let on = value
                    .as_bool()
                    .ok_or_else(|| format!("`{at}` must be true or false"))?;
                row.flags = (row.flags & !hmat::FLAG_DOUBLE_SIDED) | u32::from(on);
            }
            "alpha-test" => {
                if let Some(cutoff) = alpha_cutoff(value, &at)? {
                    row.alpha_cutoff = cutoff;
                    row.flags |= hmat::ALPHA_MASK << hmat::ALPHA_MODE_SHIFT;
                }
            }
            "displacement" | "height" | "transmission" => {
                let property = property(cx, file_rel, name, key, value, &settings, &properties)?;
                properties.push(property);
            }
            other => {
                return Err(format!(
                    "`material.{other}`: unknown key (color, emissive, metal, rough, normal, \
                     double-sided, alpha-test, displacement, height, transmission)"
                )
                .into())
            }
        }
    }
    metal_rough(cx, name, &metal, &rough, &settings, &mut row)?;
    cx.emit(Output::new(
        format!("{name}.hmat"),
        AssetKind::MATERIAL,
        hmat::write_with_properties(&[row], &properties),
    ));
    Ok(())
}

/// `alpha-test`'s cutoff, or `None` for `false`. pak's schema says a boolean (the engine's
/// cutoff); a number is the cutoff.
fn alpha_cutoff(value: &toml::Value, at: &str) -> Result<Option<f32>, String> {
    Ok(match value {
        toml::Value::Boolean(false) => None,
        toml::Value::Boolean(true) => Some(GpuMaterial::default().alpha_cutoff),
        number_value => Some(number(number_value, at)?),
    })
}

/// The `.hmat` v2 property record of `height` (or `displacement`) or `transmission`: a
/// factor, or a one-channel linear texture baked beside the material. A property given
/// twice (`height` and `displacement`) is an error.
fn property(
    cx: &mut BakeContext<'_>,
    file_rel: &str,
    name: &str,
    key: &str,
    value: &toml::Value,
    settings: &TextureSettings,
    properties: &[MaterialProperty],
) -> Result<MaterialProperty, PipelineError> {
    let at = format!("material.{key}");
    let (id, slot_name) = match key {
        "transmission" => (property::TRANSMISSION, "transmission"),
        _ => (property::HEIGHT, "height"),
    };
    if properties.iter().any(|p| p.id == id) {
        return Err(
            "`material.height` and `material.displacement` are the same \
                    property: give one"
                .into(),
        );
    }
    let (factor, texture) = match input(file_rel, value, &at)? {
        Input::Value(v) => (vector::<1>(&v, 1.0, &at)?[0], 0),
        texture => (
            1.0,
            slot(
                cx,
                name,
                slot_name,
                texture,
                TextureMode::Grayscale,
                settings,
            )?,
        ),
    };
    Ok(MaterialProperty {
        row: 0,
        id,
        value: [factor, 0.0, 0.0, 0.0],
        texture,
    })
}

/// Metallic and roughness: numbers are factors; images are packed into one ORM texture
/// (roughness G, metallic B), baked as `<name>/orm.ktx2`.
fn metal_rough(
    cx: &mut BakeContext<'_>,
    name: &str,
    metal: &Option<Input>,
    rough: &Option<Input>,
    settings: &TextureSettings,
    row: &mut GpuMaterial,
) -> Result<(), PipelineError> {
    let factor = |input: &Option<Input>, at: &str| -> Result<Option<f32>, String> {
        match input {
            Some(Input::Value(v)) => Ok(Some(vector::<1>(v, 1.0, at)?[0])),
            _ => Ok(None),
        }
    };
    if let Some(m) = factor(metal, "material.metal")? {
        row.metallic_factor = m;
    }
    if let Some(r) = factor(rough, "material.rough")? {
        row.roughness_factor = r;
    }
    for (input, at) in [(metal, "material.metal"), (rough, "material.rough")] {
        if let Some(Input::Image { keys, .. }) = input {
            if let Some(key) = keys.keys().next() {
                return Err(format!(
                    "`{at}.{key}`: metal and rough images are packed into one texture, which \
                     takes the `texture` settings; inline bitmap keys do not apply to it"
                )
                .into());
            }
        }
    }
    let images = [metal, rough].map(|i| match i {
        Some(Input::Image { read, root_rel, .. }) => Some((read.clone(), root_rel.clone())),
        _ => None,
    });
    if [metal, rough]
        .iter()
        .any(|i| matches!(i, Some(Input::Baked(_))))
    {
        return Err(
            "`material.metal` and `material.rough` take images or numbers \
                    (they are packed into one texture), not [bitmap] files"
                .into(),
        );
    }
    if images.iter().any(Option::is_some) {
        bake_orm(cx, name, &images, settings, row)?;
    }
    Ok(())
}

/// Packs the metal and rough images (`images[0]`, `images[1]`: paths to read and relative to
/// the root; a missing one is 1.0) into one ORM texture, baked and referenced by `row`.
fn bake_orm(
    cx: &mut BakeContext<'_>,
    name: &str,
    images: &[Option<(String, String)>; 2],
    settings: &TextureSettings,
    row: &mut GpuMaterial,
) -> Result<(), PipelineError> {
    let mut channels = Vec::new();
    for image in images {
        channels.push(match image {
            Some((read, root_rel)) => {
                let bytes = cx.read(read)?;
                Some(decode(std::path::Path::new(root_rel), &bytes, settings, cx)?.to_pixels()?)
            }
            None => None,
        });
    }
    let size = channels
        .iter()
        .flatten()
        .map(|p| (p.width, p.height))
        .next()
        .unwrap_or((1, 1));
    if channels
        .iter()
        .flatten()
        .any(|p| (p.width, p.height) != size)
    {
        return Err("`material.metal` and `material.rough` images differ in size".into());
    }
    let (width, height) = size;
    let value = |pixels: &Option<Pixels>, i: usize| pixels.as_ref().map_or(1.0, |p| p.rgba[i][0]);
    let rgba = (0..(width * height) as usize)
        .map(|i| [1.0, value(&channels[1], i), value(&channels[0], i), 1.0])
        .collect();
    let orm = Pixels {
        width,
        height,
        rgba,
    };
    if channels[0].is_some() {
        row.metallic_factor = 1.0;
    }
    if channels[1].is_some() {
        row.roughness_factor = 1.0;
    }
    let encoded = texture::encode(
        &[orm],
        TextureShape::Single,
        TextureMode::LinearColor,
        settings,
    )?;
    row.metallic_roughness_tex = cx.reference(&format!("{name}/orm"));
    emit(cx, format!("{name}/orm.ktx2"), AssetKind::TEXTURE, encoded);
    Ok(())
}

/// The `[bitmap]` files a material names (they are baked on their own and referenced).
fn dependencies(file_rel: &str, body: &toml::Table) -> Vec<String> {
    let path_of = |value: &toml::Value| match value {
        toml::Value::String(path) if !path.starts_with('#') => Some(path.clone()),
        toml::Value::Table(inline) => inline.get("src")?.as_str().map(str::to_owned),
        _ => None,
    };
    body.values()
        .filter_map(path_of)
        .filter(|path| path.ends_with(".toml"))
        .filter_map(|path| resolve(file_rel, &path).ok().map(|(_, root_rel)| root_rel))
        .collect()
}

/// A texture slot: bakes an image to `<name>/<slot>.ktx2`, or references a baked asset.
fn slot(
    cx: &mut BakeContext<'_>,
    name: &str,
    slot: &str,
    texture: Input,
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<u64, PipelineError> {
    match texture {
        Input::Baked(path) => Ok(cx.reference(&path)),
        Input::Image {
            read,
            root_rel,
            keys,
        } => {
            let mut settings = settings.clone();
            crate::bake::texture::asset_file::apply_keys(
                &keys,
                &format!("material.{slot}"),
                &mut settings,
                cx,
            )?;
            let bytes = cx.read(&read)?;
            let image = decode(std::path::Path::new(&root_rel), &bytes, &settings, cx)?;
            let encoded =
                texture::encode_decoded(vec![image], TextureShape::Single, mode, &settings)?;
            let reference = format!("{name}/{slot}");
            emit(cx, format!("{reference}.ktx2"), AssetKind::TEXTURE, encoded);
            Ok(cx.reference(&reference))
        }
        Input::Value(_) => unreachable!("values are handled by the caller"),
    }
}

fn input(file_rel: &str, value: &toml::Value, at: &str) -> Result<Input, String> {
    let mut keys = toml::Table::new();
    let path = match value {
        toml::Value::String(text) if text.starts_with('#') => {
            return hex(text).map(Input::Value).ok_or_else(|| {
                format!("`{at}` = {text:?}: a hex color is #rgb, #rrggbb or #rrggbbaa")
            })
        }
        toml::Value::String(path) => path.clone(),
        toml::Value::Table(inline) => {
            // An inline bitmap: `src` and any `[bitmap]` key, applied when it is baked.
            keys = inline.clone();
            keys.remove("src")
                .as_ref()
                .and_then(toml::Value::as_str)
                .ok_or_else(|| format!("`{at}` needs `src`"))?
                .to_owned()
        }
        toml::Value::Float(_) | toml::Value::Integer(_) => {
            return Ok(Input::Value(vec![number(value, at)?]))
        }
        toml::Value::Array(items) => {
            return items
                .iter()
                .enumerate()
                .map(|(i, v)| number(v, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()
                .map(Input::Value)
        }
        _ => {
            return Err(format!(
                "`{at}`: a hex color, a number, numbers or a texture path"
            ))
        }
    };
    let (read, root_rel) = resolve(file_rel, &path).map_err(|e| format!("`{at}`: {e}"))?;
    Ok(match root_rel.strip_suffix(".toml") {
        Some(_) if !keys.is_empty() => {
            return Err(format!(
                "`{at}`: a [bitmap] file is baked with its own keys; give them there, not inline"
            ))
        }
        // The canonical ref of its `.ktx2` (the path without `.ktx2`).
        Some(bitmap) => Input::Baked(bitmap.to_owned()),
        None => Input::Image {
            read,
            root_rel,
            keys,
        },
    })
}

/// `values` as N numbers: one number fills every component but the 4th (alpha, `fill`).
fn vector<const N: usize>(values: &[f32], fill: f32, at: &str) -> Result<[f32; N], String> {
    match values.len() {
        n if n == N => Ok(std::array::from_fn(|i| values[i])),
        1 if N > 1 => Ok(std::array::from_fn(
            |i| if i < 3 { values[0] } else { fill },
        )),
        n if n == 3 && N == 4 => Ok(std::array::from_fn(|i| {
            values.get(i).copied().unwrap_or(fill)
        })),
        n => Err(format!("`{at}` has {n} numbers, {N} expected")),
    }
}

/// `#rgb`, `#rrggbb`, `#rrggbbaa` (sRGB) as linear RGBA.
fn hex(text: &str) -> Option<Vec<f32>> {
    let digits = text.strip_prefix('#')?;
    let expanded: String = match digits.len() {
        3 => digits.chars().flat_map(|c| [c, c]).collect(),
        6 | 8 => digits.to_owned(),
        _ => return None,
    };
    let bytes: Vec<u8> = (0..expanded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(expanded.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    let mut rgba: Vec<f32> = bytes.iter().map(|&b| f32::from(b) / 255.0).collect();
    for c in rgba.iter_mut().take(3) {
        *c = srgb_to_linear(*c);
    }
    if rgba.len() == 3 {
        rgba.push(1.0);
    }
    Some(rgba)
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn hex_colors_are_srgb_made_linear() {
        assert_eq!(hex("#fff"), Some(vec![1.0, 1.0, 1.0, 1.0]));
        assert_eq!(hex("#00000080").map(|v| v[3]), Some(128.0 / 255.0));
        let mid = hex("#808080").unwrap()[0];
        assert!((mid - 0.2158).abs() < 1e-3, "{mid}");
        assert_eq!(hex("#12"), None);
        assert_eq!(hex("#gggggg"), None);
    }
}
