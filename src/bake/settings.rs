//! Per-asset settings and their layers.
//!
//! Settings resolve by overlaying layers from least to most specific, each overriding only the
//! fields it sets: built-in defaults < `[content]` < `[default]` < the selected preset's
//! globals < the asset's content group < `[[default.rules]]` (in file order) <
//! `[[presets.NAME.rules]]` (in file order).
//!
//! Layering works on the TOML tables themselves (nested tables key by key), so it is the same
//! for every pipeline's table, built-in or the game's; a pipeline then deserializes its table
//! into its typed settings. Adding a setting is one line in a `settings!` block. The texture
//! and mesh settings live with their pipelines (`texture::settings`, `mesh::settings`).

use crate::format::hpack::Codec;
use serde::de::DeserializeOwned;
use serde::Deserialize;

// Each kind's settings live with its pipeline; re-exported here, where they were first.
pub use crate::bake::mesh::settings::{
    euler_axes, euler_quaternion, pak_euler_axes, LodSettings, MeshSettings, MAX_LOD_LEVELS,
};
pub use crate::bake::texture::settings::{
    TextureEncoder, TextureFormat, TextureQuality, TextureSettings, MAX_PIXELS_LIMIT,
};

/// Prefixes the key a settings error names (`` `rdo` = … ``) with `table`
/// (`` `default.texture.rdo` = … ``), as it does `` `quality`: … ``; any other message is
/// prefixed whole
/// (`` `default.texture`: invalid type … ``).
pub(crate) fn qualify(table: &str, message: &str) -> String {
    if let Some((key, rest)) = message
        .strip_prefix('`')
        .and_then(|m| m.split_once('`'))
        .filter(|(key, rest)| {
            !key.contains(' ') && (rest.starts_with(" = ") || rest.starts_with(": "))
        })
    {
        return format!("`{table}.{key}`{rest}");
    }
    format!("`{table}`: {message}")
}

/// A compression codec as the manifest spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodecName {
    /// Stored.
    None,
    /// Snappy (frame format).
    Snap,
    /// Brotli.
    Brotli,
    /// Zstandard.
    Zstd,
}

impl From<CodecName> for Codec {
    fn from(name: CodecName) -> Self {
        match name {
            CodecName::None => Codec::None,
            CodecName::Snap => Codec::Snap,
            CodecName::Brotli => Codec::Brotli,
            CodecName::Zstd => Codec::Zstd,
        }
    }
}

/// One layer of settings: `[content]`, `[default]`, a preset, a group or a rule sets some of
/// these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsLayer {
    /// Pack compression of the matched assets.
    pub compression: Option<CodecName>,
    /// Codec level (zstd 1..=22, brotli 0..=11; snap has none).
    pub compression_level: Option<i32>,
    /// The pipelines' settings tables (`texture = { … }`, `mesh = { … }`, a game's own), as
    /// written.
    pub tables: toml::Table,
}

/// The settings that apply to one asset, after layering.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Pack codec for this asset's outputs.
    pub compression: Codec,
    /// Codec level; `None` is the codec's default.
    pub compression_level: Option<i32>,
    /// Every settings table, merged layer over layer (tables key by key, other values
    /// replaced whole).
    pub tables: toml::Table,
}

impl Default for Settings {
    /// Built-in defaults: zstd at its default level, every table at its defaults.
    fn default() -> Self {
        Self {
            compression: Codec::Zstd,
            compression_level: None,
            tables: toml::Table::new(),
        }
    }
}

impl Settings {
    /// Overrides every field that `layer` sets.
    pub fn apply(&mut self, layer: &SettingsLayer) {
        if let Some(codec) = layer.compression {
            self.compression = codec.into();
            // A new codec resets the level unless the same layer sets one.
            self.compression_level = None;
        }
        if let Some(level) = layer.compression_level {
            self.compression_level = Some(level);
        }
        merge(&mut self.tables, &layer.tables);
    }

    /// The typed settings of one table (its defaults where no layer sets it).
    pub fn table<T: DeserializeOwned + Default>(&self, name: &str) -> Result<T, String> {
        deserialize_table(self.tables.get(name), |_| {})
    }
}

/// Merges `layer` into `into`: nested tables key by key, any other value replaced whole.
/// Recursion is bounded: settings tables come from the manifest, refused at parse time when
/// nested deeper than [`MAX_TOML_DEPTH`](crate::bake::toml_depth::MAX_TOML_DEPTH) levels.
fn merge(into: &mut toml::Table, layer: &toml::Table) {
    for (key, value) in layer {
        match (into.get_mut(key), value) {
            (Some(toml::Value::Table(existing)), toml::Value::Table(nested)) => {
                merge(existing, nested)
            }
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Deserializes a settings table (its defaults when `None`); every key the type does not
/// know goes to `unknown` as a dotted path relative to the table.
pub(crate) fn deserialize_table<T: DeserializeOwned + Default>(
    value: Option<&toml::Value>,
    mut unknown: impl FnMut(String),
) -> Result<T, String> {
    let Some(value) = value else {
        return Ok(T::default());
    };
    serde_ignored::deserialize(value.clone(), |path| unknown(key_path(&path)))
        .map_err(|e: toml::de::Error| explain::<T>(value, e.message()))
}

/// A settings error that names its key and, for a choice, the accepted values:
/// `` `quality`: expected one of "fastest", "faster", …, got 3 `` (the key relative to the
/// table; [`qualify`] adds the table's own path). `message` is serde's, kept when the key
/// cannot be found.
fn explain<T: DeserializeOwned>(value: &toml::Value, message: &str) -> String {
    if qualify("", message).starts_with("`.") {
        // A range check's message names its key already (`` `lod.levels` = 40: … ``).
        return message.to_owned();
    }
    let Some((path, leaf)) = error_key::<T>(value).and_then(|path| {
        let leaf = leaf_at(value, &path)?.clone();
        Some((path, leaf))
    }) else {
        return message.to_owned();
    };
    let dotted = path.join(".");
    let got = leaf.to_string();
    match accepted_values::<T>(value, &path) {
        Some(choices) if !matches!(leaf, toml::Value::String(_)) => {
            format!("`{dotted}`: expected one of {choices}, got {got}")
        }
        _ => format!("`{dotted}`: {message}"),
    }
}

/// The key path of the value a settings table fails on: the table is written out one leaf per
/// line (`"lod"."levels" = "x"`) and read back with TOML's own deserializer, whose error
/// points at the offending line.
fn error_key<T: DeserializeOwned>(value: &toml::Value) -> Option<Vec<String>> {
    let toml::Value::Table(table) = value else {
        return None;
    };
    let mut lines = Vec::new();
    flatten(table, &mut Vec::new(), &mut lines);
    let text: String = lines.iter().map(|(_, line)| format!("{line}\n")).collect();
    let error = toml::from_str::<T>(&text).err()?;
    let line = text[..error.span()?.start].matches('\n').count();
    lines.get(line).map(|(path, _)| path.clone())
}

/// One `key.path = value` line per leaf of `table` (nested tables key by key; arrays and
/// empty tables whole). Bounded: settings tables are refused at parse time when nested deeper
/// than [`MAX_TOML_DEPTH`](crate::bake::toml_depth::MAX_TOML_DEPTH) levels.
fn flatten(table: &toml::Table, prefix: &mut Vec<String>, lines: &mut Vec<(Vec<String>, String)>) {
    for (key, value) in table {
        prefix.push(key.clone());
        match value {
            toml::Value::Table(nested) if !nested.is_empty() => flatten(nested, prefix, lines),
            _ => {
                let keys: Vec<String> = prefix
                    .iter()
                    .map(|k| toml::Value::String(k.clone()).to_string())
                    .collect();
                lines.push((prefix.clone(), format!("{} = {value}", keys.join("."))));
            }
        }
        prefix.pop();
    }
}

/// The value at `path` inside `value`.
fn leaf_at<'v>(value: &'v toml::Value, path: &[String]) -> Option<&'v toml::Value> {
    path.iter()
        .try_fold(value, |value, key| value.as_table()?.get(key))
}

/// The values a choice at `path` accepts (`"fastest", "faster", …`), found by offering it a
/// name no choice has and reading serde's "unknown variant" answer; `None` when the key is
/// not a choice.
fn accepted_values<T: DeserializeOwned>(value: &toml::Value, path: &[String]) -> Option<String> {
    const PROBE: &str = "\u{1}not a variant";
    let mut probe = value.clone();
    let (last, parents) = path.split_last()?;
    let mut table = probe.as_table_mut()?;
    for key in parents {
        table = table.get_mut(key)?.as_table_mut()?;
    }
    table.insert(last.clone(), toml::Value::String(PROBE.to_owned()));
    let error = T::deserialize(probe).err()?;
    let expected = error
        .message()
        .strip_prefix(&format!("unknown variant `{PROBE}`, expected "))?;
    let names: Vec<String> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|name| format!("{name:?}"))
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// A dotted key path (`lod.levls`, `rotation[2]`) from serde_ignored's path, which also has
/// nodes for `Option`s and newtypes.
/// Recursion is bounded: a path is as deep as the value deserialized (the manifest, a settings
/// table), refused at parse time when nested deeper than
/// [`MAX_TOML_DEPTH`](crate::bake::toml_depth::MAX_TOML_DEPTH) levels.
pub(crate) fn key_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", key_path(parent)),
        Path::Map { parent, key } => match key_path(parent) {
            prefix if prefix.is_empty() => key.clone(),
            prefix => format!("{prefix}.{key}"),
        },
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => key_path(parent),
    }
}

/// A stable digest of a settings table as layered (absent and empty differ from nothing
/// else): part of an asset's cache key. Keys are visited in sorted order, so the digest does
/// not depend on how the manifest ordered them.
/// Recursion is bounded: settings tables come from the manifest, refused at parse time when
/// nested deeper than [`MAX_TOML_DEPTH`](crate::bake::toml_depth::MAX_TOML_DEPTH) levels.
pub(crate) fn fingerprint(value: Option<&toml::Value>) -> u64 {
    fn feed(hasher: &mut xxhash_rust::xxh3::Xxh3, value: &toml::Value) {
        use toml::Value;
        match value {
            Value::String(s) => {
                hasher.update(&[1]);
                hasher.update(&(s.len() as u64).to_le_bytes());
                hasher.update(s.as_bytes());
            }
            Value::Integer(i) => {
                hasher.update(&[2]);
                hasher.update(&i.to_le_bytes());
            }
            Value::Float(f) => {
                hasher.update(&[3]);
                hasher.update(&f.to_bits().to_le_bytes());
            }
            Value::Boolean(b) => hasher.update(&[4, *b as u8]),
            Value::Datetime(d) => {
                let text = d.to_string();
                hasher.update(&[5]);
                hasher.update(&(text.len() as u64).to_le_bytes());
                hasher.update(text.as_bytes());
            }
            Value::Array(items) => {
                hasher.update(&[6]);
                hasher.update(&(items.len() as u64).to_le_bytes());
                items.iter().for_each(|item| feed(hasher, item));
            }
            Value::Table(table) => {
                hasher.update(&[7]);
                hasher.update(&(table.len() as u64).to_le_bytes());
                let mut keys: Vec<&String> = table.keys().collect();
                keys.sort();
                for key in keys {
                    hasher.update(&(key.len() as u64).to_le_bytes());
                    hasher.update(key.as_bytes());
                    feed(hasher, &table[key]);
                }
            }
        }
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    match value {
        None => hasher.update(&[0]),
        Some(value) => feed(&mut hasher, value),
    }
    hasher.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(compression: Option<CodecName>, level: Option<i32>, tables: &str) -> SettingsLayer {
        SettingsLayer {
            compression,
            compression_level: level,
            tables: toml::from_str(tables).unwrap(),
        }
    }

    #[test]
    fn layers_override_only_what_they_set() {
        let mut settings = Settings::default();
        settings.apply(&layer(
            Some(CodecName::Brotli),
            Some(9),
            "texture = { compress = false, quality = \"fastest\" }\nmesh = { lod = { levels = 3, lock_border = true } }",
        ));
        settings.apply(&layer(
            None,
            None,
            "mesh = { merge = false, lod = { levels = 1 } }\ntexture = { quality = \"slower\" }",
        ));
        assert_eq!(settings.compression, Codec::Brotli);
        assert_eq!(settings.compression_level, Some(9));
        let texture: TextureSettings = settings.table("texture").unwrap();
        assert!(!texture.compress);
        assert_eq!(texture.quality, TextureQuality::Slower);
        let mesh: MeshSettings = settings.table("mesh").unwrap();
        assert!(!mesh.merge);
        assert_eq!(mesh.lod.levels, 1);
        assert!(mesh.lod.lock_border, "nested tables layer key by key");
        assert_eq!(mesh.lod.target_error, LodSettings::default().target_error);
        settings.apply(&layer(Some(CodecName::Snap), None, ""));
        assert_eq!(
            (settings.compression, settings.compression_level),
            (Codec::Snap, None)
        );
    }

    #[test]
    fn unknown_keys_are_reported_with_their_path() {
        let value: toml::Value =
            toml::from_str("compres = true\nlod = { levls = 2 }\nscale = [1, 2, 3]").unwrap();
        let mut unknown = Vec::new();
        let mesh: MeshSettings = deserialize_table(Some(&value), |k| unknown.push(k)).unwrap();
        assert_eq!(mesh.scale, [1.0, 2.0, 3.0]);
        assert_eq!(unknown, ["compres", "lod.levls"]);
        let bad: toml::Value = toml::from_str("quality = \"superb\"").unwrap();
        let err = deserialize_table::<TextureSettings>(Some(&bad), |_| {}).unwrap_err();
        assert!(err.contains("superb"), "{err}");
    }

    #[test]
    fn out_of_range_values_are_errors_naming_their_key() {
        let read = |table: &str, text: &str| -> Result<(), String> {
            let value: toml::Value = toml::from_str(text).unwrap();
            match table {
                "texture" => deserialize_table::<TextureSettings>(Some(&value), |_| {}).map(drop),
                _ => deserialize_table::<MeshSettings>(Some(&value), |_| {}).map(drop),
            }
        };
        for (table, text, key) in [
            ("texture", "rdo = nan", "`rdo`"),
            ("texture", "rdo = -1.0", "`rdo`"),
            ("texture", "rdo = 51.0", "`rdo`"),
            ("texture", "rdo = inf", "`rdo`"),
            ("texture", "zstd_level = 100", "`zstd_level`"),
            ("texture", "zstd_level = -200000", "`zstd_level`"),
            ("texture", "max_size = 20000", "`max_size`"),
            ("texture", "max_pixels = 0", "`max_pixels`"),
            ("texture", "max_pixels = 268435457", "`max_pixels`"),
            ("texture", "swizzle = \"rgbx\"", "`swizzle`"),
            ("mesh", "overdraw_threshold = nan", "`overdraw_threshold`"),
            ("mesh", "overdraw_threshold = 0.5", "`overdraw_threshold`"),
            ("mesh", "scale = [1, nan, 1]", "`scale`"),
            ("mesh", "scale = [1, 0, 1]", "`scale`"),
            ("mesh", "offset = [0, 0, inf]", "`offset`"),
            ("mesh", "rotation = [0, nan, 0]", "`rotation`"),
            ("mesh", "rotation = [0, 0]", "`rotation`"),
            ("mesh", "rotation = [0, 0, 0, 0]", "`rotation`"),
            ("mesh", "lod = { target_error = nan }", "`lod.target_error`"),
            ("mesh", "lod = { target_error = 1.5 }", "`lod.target_error`"),
            (
                "mesh",
                "lod = { target_error = -0.1 }",
                "`lod.target_error`",
            ),
            ("mesh", "lod = { levels = 4000000000 }", "`lod.levels`"),
        ] {
            let err = read(table, text).expect_err(text);
            assert!(err.starts_with(key), "{text}: {err}");
            assert_eq!(
                qualify(&format!("default.{table}"), &err),
                format!("`default.{table}.{}", &err[1..]),
                "{text}"
            );
        }
        for (table, text) in [
            ("texture", "rdo = 0.0"),
            ("texture", "rdo = 0.001"),
            ("texture", "rdo = 50.0"),
            ("texture", "zstd_level = 22"),
            ("texture", "zstd_level = -7"),
            ("texture", "max_size = 16384"),
            ("texture", "max_pixels = 1"),
            ("texture", "swizzle = \"rg01\""),
            ("mesh", "overdraw_threshold = 1.0"),
            ("mesh", "rotation = [0, 0, 0, 1]"),
            ("mesh", "lod = { target_error = 0.0, levels = 32 }"),
            ("mesh", "lod = { target_error = 1.0 }"),
        ] {
            read(table, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
        assert_eq!(
            qualify("default.texture", "invalid type: integer `3`"),
            "`default.texture`: invalid type: integer `3`"
        );
    }

    #[test]
    fn fingerprints_ignore_key_order_only() {
        let a: toml::Value = toml::from_str("x = 1\ny = { z = 2.5 }").unwrap();
        let b: toml::Value = toml::from_str("y = { z = 2.5 }\nx = 1").unwrap();
        let c: toml::Value = toml::from_str("x = 1\ny = { z = 2.0 }").unwrap();
        let empty: toml::Value = toml::from_str("").unwrap();
        assert_eq!(fingerprint(Some(&a)), fingerprint(Some(&b)));
        assert_ne!(fingerprint(Some(&a)), fingerprint(Some(&c)));
        assert_ne!(fingerprint(None), fingerprint(Some(&empty)));
    }
}
