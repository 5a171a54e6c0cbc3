//! Fonts: hearth's `.hfont` (glyphs, pages, kerning) and font files kept as they are.

use super::{KindTools, TreeCheck};
use crate::format::hman::AssetKind;
use crate::format::hman::MANIFEST_PATH;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::FONT,
    describe: Some(describe_font),
    counts: Some(counts),
    check: Some(check),
};

/// A one-line description of a font: an `.hfont`'s glyphs, pages, kerning pairs and line
/// metrics, or another font file's size.
pub fn describe_font(bytes: &[u8]) -> Result<String, ReadError> {
    if !bytes.starts_with(&crate::format::hfont::MAGIC) {
        return Ok(format!("font file, {} bytes", bytes.len()));
    }
    let font = crate::read::font::FontView::parse(bytes)?;
    let h = font.header;
    Ok(format!(
        "{} glyphs, {} pages ({}x{}), {} kerning pairs, line height {}, base {}",
        font.glyph_count(),
        font.page_count(),
        h.scale_w,
        h.scale_h,
        font.kerning_count(),
        h.line_height,
        h.base
    ))
}

/// A baked `.hfont`: it parses, and every page it names is a texture of the tree.
fn check(tree: &TreeCheck<'_>, rel: &str, bytes: &[u8], problems: &mut Vec<String>) {
    if !rel.ends_with(".hfont") {
        return;
    }
    let font = match crate::read::font::FontView::parse(bytes) {
        Ok(font) => font,
        Err(e) => return problems.push(format!("`{rel}`: {e}")),
    };
    for (index, page) in font.pages().enumerate() {
        match tree.by_hash.get(&page) {
            Some(path) if tree.files.has(path) => {}
            Some(path) => problems.push(format!("`{rel}`: page {index} `{path}` is missing")),
            None => problems.push(format!(
                "`{rel}`: page {index} ({page:#018x}) is not in {MANIFEST_PATH}"
            )),
        }
    }
}

/// `.hfont`: `glyphs`, `pages`, `kernings`; other fonts (TTF): none.
fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    if !bytes.starts_with(&crate::format::hfont::MAGIC) {
        return Ok(Vec::new());
    }
    let font = crate::read::font::FontView::parse(bytes)?;
    Ok(vec![
        ("glyphs", font.glyph_count() as u64),
        ("pages", font.page_count() as u64),
        ("kernings", font.kerning_count() as u64),
    ])
}
