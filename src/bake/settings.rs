//! Per-asset settings and their layers.
//!
//! Settings resolve by overlaying layers from least to most specific, each overriding only the
//! fields it sets: built-in defaults < `[content]` < `[default]` < the selected preset's
//! globals < the asset's content group < `[[default.rules]]` (in file order) <
//! `[[presets.NAME.rules]]` (in file order).
//!
//! Layering works on the TOML tables themselves (nested tables key by key), so it is the same
//! for every pipeline's table, built-in or the game's; a pipeline then deserializes its table
//! into its typed settings. Adding a setting is one line in a `settings!` block.

use crate::format::hpack::Codec;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Declares a settings struct: public fields with their defaults, `#[serde(default)]`
/// semantics, and a `Deserialize` that runs the struct's `validate(&self) -> Result<(),
/// String>` after reading, so an out-of-range value fails wherever the table is read (the
/// manifest check, a bake), naming its key.
macro_rules! settings {
    (
        $(#[$meta:meta])* $name:ident {
            $( $(#[$field_meta:meta])* $field:ident : $ty:ty = $default:expr, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // The same fields, read as written (shadowing the public name, so messages
                // still say `struct TextureSettings`); then checked.
                #[derive(Deserialize)]
                #[serde(default)]
                struct $name {
                    $( $field: $ty, )*
                }
                impl Default for $name {
                    fn default() -> Self {
                        Self { $( $field: $default, )* }
                    }
                }
                let raw = <$name as Deserialize>::deserialize(deserializer)?;
                let settings = Self { $( $field: raw.$field, )* };
                settings.validate().map_err(serde::de::Error::custom)?;
                Ok(settings)
            }
        }
    };
}

/// A range error naming its key, in the form [`Config::check_tables`] qualifies with the key
/// path of its layer: `` `rdo` = NaN: … `` becomes `` `default.texture.rdo` = NaN: … ``.
///
/// [`Config::check_tables`]: crate::bake::manifest::Config::check_tables
fn invalid(key: &str, value: impl std::fmt::Debug, why: &str) -> String {
    format!("`{key}` = {value:?}: {why}")
}

/// Prefixes the key a settings error names (`` `rdo` = … ``) with `table`
/// (`` `default.texture.rdo` = … ``); any other message is prefixed whole
/// (`` `default.texture`: invalid type … ``).
pub(crate) fn qualify(table: &str, message: &str) -> String {
    if let Some((key, rest)) = message
        .strip_prefix('`')
        .and_then(|m| m.split_once('`'))
        .filter(|(key, rest)| !key.contains(' ') && rest.starts_with(" = "))
    {
        return format!("`{table}.{key}`{rest}");
    }
    format!("`{table}`: {message}")
}

/// Largest `texture.max_pixels`: the per-side limit squared (16384², 2^28).
pub const MAX_PIXELS_LIMIT: u64 = 1 << 28;
/// Most `mesh.lod.levels` (each halves the triangles of the one before; 32 halvings leave
/// nothing of any mesh).
pub const MAX_LOD_LEVELS: u32 = 32;

settings! {
    /// Texture settings: the `texture = { … }` table.
    TextureSettings {
        /// `true`: UASTC; `false`: raw pixels + zstd, pixel-exact (`format = "rgba8"`).
        compress: bool = true,
        /// The GPU format written: `uastc` (the default, transcoded on the device), a GPU's own
        /// block format (`bc7`, `bc5`, `bc4`, `bc1`, `bc3`, `astc4x4`, `etc2`; `bcn` picks bc7,
        /// bc5 or bc4 by the texture's channels), or `rgba8` (raw pixels, as `compress = false`).
        format: TextureFormat = TextureFormat::Uastc,
        /// How a GPU block format is made: `auto` (each format's better encoder, see the
        /// README), `transcode` (UASTC, then Basis Universal's transcoder), `direct` (Intel's
        /// ISPC encoders; not for `astc4x4` and `etc2`).
        encoder: TextureEncoder = TextureEncoder::Auto,
        /// UASTC speed/quality level.
        quality: TextureQuality = TextureQuality::Faster,
        /// UASTC RDO quality scalar (0 = off; 0.5..4 trades quality for smaller zstd output).
        rdo: f32 = 0.0,
        /// Generate a full mip chain.
        mips: bool = true,
        /// Downscale (keeping the aspect ratio) so neither side exceeds this; 0 = no limit.
        max_size: u32 = 0,
        /// Override the mode's color space: `true` sRGB, `false` linear.
        srgb: Option<bool> = None,
        /// Channel selection (pak-style): 1-4 of `r g b a 0 1`; its length picks the raw
        /// format (1 R8, 2 RG8, 3-4 RGBA8). Empty: the mode decides.
        swizzle: String = String::new(),
        /// zstd level of the KTX2 supercompression (zstd's range, -131072..=22).
        zstd_level: i32 = 9,
        /// Pixel budget per source image (width x height), checked from the image's header
        /// before it is decoded: 1..=2^28 (the default, 16384²).
        max_pixels: u64 = MAX_PIXELS_LIMIT,
    }
}

impl TextureSettings {
    /// Whether the texture is written as raw pixels (`compress = false` or `format = "rgba8"`).
    pub fn raw(&self) -> bool {
        !self.compress || self.format == TextureFormat::Rgba8
    }

    /// Checks every value's range; the error names the key (`` `rdo` = NaN: … ``).
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rdo == 0.0 || (0.001..=50.0).contains(&self.rdo)) {
            return Err(invalid(
                "rdo",
                self.rdo,
                "must be 0 (off) or a number from 0.001 to 50 (basisu's range)",
            ));
        }
        let zstd = zstd::compression_level_range();
        if !zstd.contains(&self.zstd_level) {
            return Err(invalid(
                "zstd_level",
                self.zstd_level,
                &format!("must be in zstd's range {}..={}", zstd.start(), zstd.end()),
            ));
        }
        let max_side = crate::bake::texture::pixels::MAX_DIMENSION;
        if self.max_size > max_side {
            return Err(invalid(
                "max_size",
                self.max_size,
                &format!("must be 0 (no limit) or at most {max_side}"),
            ));
        }
        if !(1..=MAX_PIXELS_LIMIT).contains(&self.max_pixels) {
            return Err(invalid(
                "max_pixels",
                self.max_pixels,
                &format!("must be 1 to {MAX_PIXELS_LIMIT} (16384²)"),
            ));
        }
        if !self.compress && !matches!(self.format, TextureFormat::Uastc | TextureFormat::Rgba8) {
            return Err(invalid(
                "format",
                self.format,
                "disagrees with `compress = false` (raw pixels): leave one of them out",
            ));
        }
        if self.encoder == TextureEncoder::Direct
            && matches!(self.format, TextureFormat::Astc4x4 | TextureFormat::Etc2)
        {
            return Err(invalid(
                "encoder",
                "direct",
                "has no ASTC or ETC2 encoder: use `transcode` (or `auto`)",
            ));
        }
        if self.swizzle.len() > 4 || self.swizzle.chars().any(|c| !"rgba01".contains(c)) {
            return Err(invalid(
                "swizzle",
                &self.swizzle,
                "use 1 to 4 of r, g, b, a, 0, 1",
            ));
        }
        Ok(())
    }
}

settings! {
    /// Mesh settings: the `mesh = { … }` table.
    MeshSettings {
        /// Bake glTF node transforms into one world-space mesh (skinned meshes never are).
        merge: bool = true,
        /// Import (or generate, when missing) normals; `false` writes flat +Z normals.
        normals: bool = true,
        /// Import tangents, or generate them where a material has a normal map.
        tangents: bool = true,
        /// Vertex-cache, overdraw and vertex-fetch optimization.
        optimize: bool = true,
        /// How much vertex-cache efficiency overdraw optimization may trade (1.05 = 5 %).
        overdraw_threshold: f32 = 1.05,
        /// Leave out skinning (SKIN, SKEL) and animation (.hanim).
        ignore_skin: bool = false,
        /// Scale applied to static geometry (x, y, z).
        scale: [f32; 3] = [1.0; 3],
        /// Rotation applied to static geometry after the scale: Euler angles in degrees
        /// (about the fixed axes, in the order `euler` names) or a quaternion (x, y, z, w);
        /// empty = none.
        rotation: Vec<f32> = Vec::new(),
        /// The order Euler angles apply in, about the fixed axes: `"xyz"` turns about x
        /// first, then y, then z (any order of the three letters).
        euler: String = "xyz".to_owned(),
        /// Translation applied to static geometry last.
        offset: [f32; 3] = [0.0; 3],
        /// Mirror X before everything else.
        flip_x: bool = false,
        /// Mirror Y before everything else.
        flip_y: bool = false,
        /// Mirror Z before everything else.
        flip_z: bool = false,
        /// Levels of detail (`lod = { … }`).
        lod: LodSettings = LodSettings::default(),
        /// Also write position-only geometry for shadow and depth passes (the `SHDW` chunk).
        shadow: bool = false,
    }
}

settings! {
    /// Level-of-detail settings: the `lod = { … }` table inside `mesh`.
    LodSettings {
        /// Reduced levels, each targeting half the triangles of the one before.
        levels: u32 = 2,
        /// meshoptimizer's target error, relative to the mesh's extent.
        target_error: f32 = 0.05,
        /// Keep border vertices in place while simplifying.
        lock_border: bool = false,
        /// Never simplify a submesh below this many triangles.
        min_triangles: u32 = 0,
    }
}

impl MeshSettings {
    /// Checks every value's range; the error names the key (`` `scale` = [1.0, NaN, 1.0]: … ``).
    /// The nested `lod` table is checked by [`LodSettings::validate`] when it is read.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.overdraw_threshold.is_finite() && self.overdraw_threshold >= 1.0) {
            return Err(invalid(
                "overdraw_threshold",
                self.overdraw_threshold,
                "must be a finite number, at least 1",
            ));
        }
        if self.scale.iter().any(|v| !v.is_finite() || *v == 0.0) {
            return Err(invalid("scale", self.scale, "must be finite and non-zero"));
        }
        if self.offset.iter().any(|v| !v.is_finite()) {
            return Err(invalid("offset", self.offset, "must be finite"));
        }
        let rotation = &self.rotation;
        if !matches!(rotation.len(), 0 | 3 | 4) {
            return Err(invalid(
                "rotation",
                rotation,
                "give 3 Euler angles (degrees) or a quaternion x, y, z, w",
            ));
        }
        if euler_axes(&self.euler).is_none() {
            return Err(invalid(
                "euler",
                &self.euler,
                "give the three axes x, y and z once each, in the order they apply",
            ));
        }
        if rotation.iter().any(|v| !v.is_finite()) {
            return Err(invalid("rotation", rotation, "must be finite"));
        }
        if rotation.len() == 4 && rotation.iter().all(|v| *v == 0.0) {
            return Err(invalid(
                "rotation",
                rotation,
                "the quaternion has zero length",
            ));
        }
        Ok(())
    }
}

/// The axes (0 x, 1 y, 2 z) an Euler order names, when it names each once (`"zyx"`, any case).
pub fn euler_axes(order: &str) -> Option<[usize; 3]> {
    let mut axes = [0usize; 3];
    let mut seen = [false; 3];
    let bytes = order.as_bytes();
    if bytes.len() != 3 {
        return None;
    }
    for (slot, letter) in axes.iter_mut().zip(bytes) {
        let axis = match letter.to_ascii_lowercase() {
            b'x' => 0,
            b'y' => 1,
            b'z' => 2,
            _ => return None,
        };
        if std::mem::replace(&mut seen[axis], true) {
            return None;
        }
        *slot = axis;
    }
    Some(axes)
}

/// The quaternion (x, y, z, w) of Euler angles in degrees (x, y, z), turned about the fixed
/// axes in `order` ([`euler_axes`]): for x, y, z, q = qz · qy · qx.
pub fn euler_quaternion(degrees: [f32; 3], order: [usize; 3]) -> [f32; 4] {
    order.iter().fold([0.0, 0.0, 0.0, 1.0], |q, &axis| {
        let (sin, cos) = (degrees[axis].to_radians() * 0.5).sin_cos();
        let mut turn = [0.0, 0.0, 0.0, cos];
        turn[axis] = sin;
        quaternion_product(turn, q)
    })
}

/// pak's Euler order (intrinsic, as glam's `EulerRot`: `"xyz"` is Rx · Ry · Rz) as the
/// fixed-axes order [`euler_quaternion`] takes: the same axes reversed.
pub fn pak_euler_axes(order: &str) -> Option<[usize; 3]> {
    euler_axes(order).map(|[a, b, c]| [c, b, a])
}

/// The Hamilton product `a * b` of two quaternions (x, y, z, w): `b` turns first.
fn quaternion_product(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

impl LodSettings {
    /// Checks every value's range; the error names the key (`` `lod.target_error` = … ``).
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.target_error) {
            return Err(invalid(
                "lod.target_error",
                self.target_error,
                "must be a finite number from 0 to 1",
            ));
        }
        if self.levels > MAX_LOD_LEVELS {
            return Err(invalid(
                "lod.levels",
                self.levels,
                &format!("must be at most {MAX_LOD_LEVELS}"),
            ));
        }
        Ok(())
    }
}

/// The GPU format a texture is baked to (`texture.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureFormat {
    /// UASTC 4x4: one file for every GPU, transcoded at load (feature `transcode`).
    Uastc,
    /// The BC family by channels (a desktop preset's one setting): BC7 for color and RGBA
    /// data, BC5 for two channels (normal maps), BC4 for one (grayscale).
    Bcn,
    /// BC7 (desktop): RGBA, 8 bits per pixel.
    Bc7,
    /// BC5 (desktop): two channels, for normal maps; 8 bits per pixel.
    Bc5,
    /// BC4 (desktop): one channel; 4 bits per pixel.
    Bc4,
    /// BC1 (desktop, legacy): opaque RGB; 4 bits per pixel.
    Bc1,
    /// BC3 (desktop, legacy): RGB + alpha; 8 bits per pixel.
    Bc3,
    /// ASTC 4x4 (mobile, Apple): RGBA, 8 bits per pixel.
    Astc4x4,
    /// ETC2 (OpenGL ES 3, older mobile): RGB(A); one- and two-channel textures as EAC R11 and
    /// RG11.
    Etc2,
    /// Raw 8-bit pixels (R8, RG8 or RGBA8 by the texture's channels), as `compress = false`.
    Rgba8,
}

/// Which encoder makes a GPU block format (`texture.encoder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureEncoder {
    /// Each format's default, chosen by measurement (README, "GPU formats").
    Auto,
    /// Encode UASTC, then transcode it with Basis Universal's transcoder.
    Transcode,
    /// Intel's ISPC texture compressor (BC1, BC3, BC4, BC5, BC7).
    Direct,
}

/// UASTC encoder levels, fastest to slowest (basisu pack levels 0 to 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureQuality {
    /// Level 0: for debug presets.
    Fastest,
    /// Level 1: the default.
    Faster,
    /// Level 2.
    Default,
    /// Level 3.
    Slower,
    /// Level 4: can take minutes per large image.
    Veryslow,
}

impl TextureQuality {
    /// basisu's pack level.
    pub fn level(self) -> u32 {
        self as u32
    }
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
        .map_err(|e: toml::de::Error| e.message().to_owned())
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
