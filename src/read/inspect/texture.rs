//! Textures and LUTs (`.ktx2`, `.lut.ktx2`): described, counted and checked as the runtime
//! reads them ([`crate::read::ktx2::Ktx2`]).

use super::{KindTools, TreeCheck};
use crate::format::hman::AssetKind;
use crate::read::error::ReadError;

/// 2D, cube and array textures.
pub(super) const TEXTURE: KindTools = KindTools {
    kind: AssetKind::TEXTURE,
    describe: Some(describe_ktx2),
    counts: Some(counts),
    check: Some(check),
};

/// 3D colour-grading LUTs.
pub(super) const LUT: KindTools = KindTools {
    kind: AssetKind::LUT,
    ..TEXTURE
};

/// A one-line description of a KTX2 file: dimensions, format, levels, faces or layers,
/// color space, supercompression.
pub fn describe_ktx2(bytes: &[u8]) -> Result<String, ReadError> {
    let ktx = crate::read::ktx2::Ktx2::parse(bytes)?;
    let format = if ktx.is_uastc() {
        "UASTC".to_owned()
    } else {
        match crate::format::ktx2::vk_format_name(ktx.vk_format()) {
            Some(name) => name.to_owned(),
            None => format!("vk {}", ktx.vk_format()),
        }
    };
    let mut shape = format!("{}x{}", ktx.width(), ktx.height());
    if ktx.depth() > 1 {
        shape += &format!("x{}", ktx.depth());
    }
    if ktx.faces() == 6 {
        shape += " cube";
    }
    if ktx.is_array() {
        shape += &format!(" [{}]", ktx.layers());
    }
    let space = if ktx.is_srgb() { "sRGB" } else { "linear" };
    let supercompression = match ktx.supercompression() {
        0 => "none",
        2 => "zstd",
        _ => "other",
    };
    Ok(format!(
        "{shape} {format} {space}, {} mips, {supercompression}",
        ktx.level_count()
    ))
}

/// Checks a KTX2 file the way the runtime reads it: header, level index, DFD, key/value data,
/// every level inflating to the size its format and dimensions require.
pub fn check_ktx2(bytes: &[u8]) -> Result<(), ReadError> {
    let ktx = crate::read::ktx2::Ktx2::parse(bytes)?;
    for level in 0..ktx.level_count() {
        ktx.level(level)?;
    }
    Ok(())
}

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    let ktx = crate::read::ktx2::Ktx2::parse(bytes)?;
    Ok(vec![
        ("width", ktx.width().into()),
        ("height", ktx.height().into()),
        ("depth", ktx.depth().into()),
        ("levels", ktx.level_count().into()),
        ("layers", ktx.layers().into()),
        ("faces", ktx.faces().into()),
        ("vk_format", ktx.vk_format().into()),
    ])
}

fn check(_: &TreeCheck<'_>, rel: &str, bytes: &[u8], problems: &mut Vec<String>) {
    if let Err(e) = check_ktx2(bytes) {
        problems.push(format!("`{rel}`: {e}"));
    }
}
