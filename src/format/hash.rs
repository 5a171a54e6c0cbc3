//! FNV-1a 64 asset hashes and canonical asset refs.
//!
//! Every baked asset is addressed by a 64-bit hash of its *canonical ref*: the runtime path,
//! forward-slash separated, with ASCII letters lowercased. Textures and LUTs (`.ktx2`) hash
//! their path without the `.ktx2` extension, as `assetc` does for texture refs; every other kind
//! hashes its full runtime path, extension included (`models/chair.hmesh`).

/// FNV-1a 64 offset basis.
pub const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64 prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 over the UTF-8 bytes of `text`, with ASCII `A-Z` folded to lowercase.
///
/// ```
/// use hearth::format::hash::hash_asset_ref;
/// assert_eq!(hash_asset_ref(""), 0xcbf29ce484222325);
/// assert_eq!(hash_asset_ref("a"), 0xaf63dc4c8601ec8c);
/// assert_eq!(hash_asset_ref("Court/TEX_0"), 0xad44c4a2970495b9);
/// ```
pub const fn hash_asset_ref(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut hash = FNV_OFFSET_BASIS;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i].to_ascii_lowercase() as u64;
        hash = hash.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    hash
}

/// The canonical ref of a runtime path: `.ktx2` files drop their extension, every other file keeps it.
///
/// The result is not lowercased here; [`hash_asset_ref`] folds case, so the ref keeps the
/// path's spelling for display.
pub fn canonical_ref(runtime_path: &str) -> &str {
    runtime_path.strip_suffix(".ktx2").unwrap_or(runtime_path)
}

/// The asset hash of a runtime path: `hash_asset_ref(canonical_ref(path))`.
///
/// ```
/// use hearth::{hash_asset_ref, hash_runtime_path};
/// // A texture's `.ktx2` is not part of its ref: a material that names `ui/logo` finds it.
/// assert_eq!(hash_runtime_path("ui/logo.ktx2"), hash_asset_ref("ui/logo"));
/// assert_eq!(hash_runtime_path("levels/one.json"), hash_asset_ref("levels/one.json"));
/// ```
pub fn hash_runtime_path(runtime_path: &str) -> u64 {
    hash_asset_ref(canonical_ref(runtime_path))
}

/// An asset hash written as text, as tools take it: `0x` and exactly 16 hex digits
/// (`0x3f2a…`, either case). Anything else, `0xbeef` included, is not a hash (a tool then
/// reads it as a path).
///
/// ```
/// use hearth::format::hash::parse_hash_literal;
/// assert_eq!(parse_hash_literal("0x00000000000000ff"), Some(255));
/// assert_eq!(parse_hash_literal("0xbeef"), None);
/// ```
pub fn parse_hash_literal(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("0x")?;
    if digits.len() != 16 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_test_vectors() {
        assert_eq!(hash_asset_ref(""), 0xcbf29ce484222325);
        assert_eq!(hash_asset_ref("a"), 0xaf63dc4c8601ec8c);
        assert_eq!(hash_asset_ref("court/tex_0"), 0xad44c4a2970495b9);
    }

    #[test]
    fn case_folds_ascii_only() {
        assert_eq!(
            hash_asset_ref("Models/Chair"),
            hash_asset_ref("models/chair")
        );
        // Non-ASCII bytes are hashed as they are.
        assert_ne!(hash_asset_ref("É"), hash_asset_ref("é"));
    }

    #[test]
    fn textures_hash_without_extension() {
        assert_eq!(hash_runtime_path("court/tex_0.ktx2"), 0xad44c4a2970495b9);
        assert_eq!(
            hash_runtime_path("models/chair.hmesh"),
            hash_asset_ref("models/chair.hmesh")
        );
    }

    #[test]
    fn a_hash_literal_is_0x_and_exactly_16_hex_digits() {
        assert_eq!(
            parse_hash_literal("0xCBF29CE484222325"),
            Some(FNV_OFFSET_BASIS)
        );
        for not_a_hash in [
            "0xbeef",
            "0x",
            "0x+bf29ce484222325",
            "0x0cbf29ce4842223250",
            "cbf29ce484222325",
            "0Xcbf29ce484222325",
            "0xcbf29ce48422232g",
        ] {
            assert_eq!(parse_hash_literal(not_a_hash), None, "{not_a_hash}");
        }
    }
}
