//! Per-asset settings and their layers.
//!
//! Settings resolve by overlaying layers from least to most specific, each overriding only the
//! fields it sets: built-in defaults < `[content]` < `[default]` < the selected preset's
//! globals < the asset's content group < `[[default.rules]]` (in file order) <
//! `[[presets.NAME.rules]]` (in file order).
//!
//! Adding a setting is one line in a `settings!` block: the resolved field, its `Option` twin
//! in the layer, the merge and the cache fingerprint all follow from it.

use crate::format::hpack::Codec;
use serde::Deserialize;

macro_rules! settings {
    (
        $(#[$meta:meta])* $name:ident, $(#[$layer_meta:meta])* $layer:ident {
            $( $(#[$field_meta:meta])* $field:ident : $ty:ty = $default:expr, )*
        }
        $( nested {
            $( $(#[$nested_meta:meta])* $nested:ident : $nested_ty:ty => $nested_layer:ty, )*
        } )?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
            $( $( $(#[$nested_meta])* pub $nested: $nested_ty, )* )?
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* $( $( $nested: <$nested_ty>::default(), )* )? }
            }
        }

        $(#[$layer_meta])*
        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        pub struct $layer {
            $( $(#[$field_meta])* pub $field: Option<$ty>, )*
            $( $( $(#[$nested_meta])* pub $nested: Option<$nested_layer>, )* )?
        }

        impl $name {
            /// Overrides every field that `layer` sets (nested tables field by field).
            pub fn apply(&mut self, layer: &$layer) {
                $( if let Some(value) = &layer.$field { self.$field = value.clone(); } )*
                $( $( if let Some(nested) = &layer.$nested { self.$nested.apply(nested); } )* )?
            }
        }
    };
}

settings! {
    /// Resolved texture settings.
    TextureSettings,
    /// A `texture = { … }` table.
    TextureLayer {
        /// `true`: UASTC; `false`: raw pixels + zstd, pixel-exact.
        compress: bool = true,
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
        /// zstd level of the KTX2 supercompression.
        zstd_level: i32 = 9,
    }
}

settings! {
    /// Resolved mesh settings.
    MeshSettings,
    /// A `mesh = { … }` table.
    MeshLayer {
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
        /// (x, then y, then z) or a quaternion (x, y, z, w); empty = none.
        rotation: Vec<f32> = Vec::new(),
        /// Translation applied to static geometry last.
        offset: [f32; 3] = [0.0; 3],
        /// Mirror X before everything else.
        flip_x: bool = false,
        /// Mirror Y before everything else.
        flip_y: bool = false,
        /// Mirror Z before everything else.
        flip_z: bool = false,
    }
    nested {
        /// Levels of detail (`lod = { … }`).
        lod: LodSettings => LodLayer,
    }
}

settings! {
    /// Resolved level-of-detail settings.
    LodSettings,
    /// A `lod = { … }` table inside `mesh`.
    LodLayer {
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

/// One layer of settings: `[default]`, a preset, a group or a rule sets some of these.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct SettingsLayer {
    /// Pack compression of the matched assets.
    pub compression: Option<CodecName>,
    /// Codec level (zstd 1..=22, brotli 0..=11; snap has none).
    pub compression_level: Option<i32>,
    /// Texture settings.
    pub texture: Option<TextureLayer>,
    /// Mesh settings.
    pub mesh: Option<MeshLayer>,
}

/// The settings that apply to one asset, after layering.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Pack codec for this asset's outputs.
    pub compression: Codec,
    /// Codec level; `None` is the codec's default.
    pub compression_level: Option<i32>,
    /// Texture settings.
    pub texture: TextureSettings,
    /// Mesh settings.
    pub mesh: MeshSettings,
}

impl Default for Settings {
    /// Built-in defaults: zstd at its default level.
    fn default() -> Self {
        Self {
            compression: Codec::Zstd,
            compression_level: None,
            texture: TextureSettings::default(),
            mesh: MeshSettings::default(),
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
        if let Some(texture) = &layer.texture {
            self.texture.apply(texture);
        }
        if let Some(mesh) = &layer.mesh {
            self.mesh.apply(mesh);
        }
    }

    /// A stable digest of the settings that shape an asset's *outputs* (not its pack codec,
    /// which only affects packing): part of the cache key.
    pub fn output_fingerprint(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(format!("{:?}|{:?}", self.texture, self.mesh).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_override_only_what_they_set() {
        let mut settings = Settings::default();
        settings.apply(&SettingsLayer {
            compression: Some(CodecName::Brotli),
            compression_level: Some(9),
            texture: Some(TextureLayer {
                compress: Some(false),
                ..Default::default()
            }),
            mesh: None,
        });
        settings.apply(&SettingsLayer {
            mesh: Some(MeshLayer {
                merge: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        });
        assert_eq!(settings.compression, Codec::Brotli);
        assert_eq!(settings.compression_level, Some(9));
        assert!(!settings.texture.compress);
        assert!(!settings.mesh.merge);
        settings.apply(&SettingsLayer {
            compression: Some(CodecName::Snap),
            ..Default::default()
        });
        assert_eq!(
            (settings.compression, settings.compression_level),
            (Codec::Snap, None)
        );
    }

    #[test]
    fn fingerprint_tracks_output_settings_only() {
        let base = Settings::default();
        let mut texture = base.clone();
        texture.texture.compress = false;
        let mut codec = base.clone();
        codec.compression = Codec::Brotli;
        assert_ne!(base.output_fingerprint(), texture.output_fingerprint());
        assert_eq!(base.output_fingerprint(), codec.output_fingerprint());
    }
}
