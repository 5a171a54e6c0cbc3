//! How a pipeline's settings table is declared (the `settings!` macro) and how its range
//! errors read: shared by each pipeline's settings file and the settings layering
//! (`bake::settings`), which re-exports the tables.

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
pub(crate) use settings;

/// A range error naming its key, in the form [`Config::check_tables`] qualifies with the key
/// path of its layer: `` `rdo` = NaN: … `` becomes `` `default.texture.rdo` = NaN: … ``.
///
/// [`Config::check_tables`]: crate::bake::manifest::Config::check_tables
pub(crate) fn invalid(key: &str, value: impl std::fmt::Debug, why: &str) -> String {
    format!("`{key}` = {value:?}: {why}")
}
