//! Arbitrary bytes parsed as `.hfont` (bitmap fonts): every glyph, page and kerning pair, and
//! lookups by ids found and absent.
#![no_main]

use hearth::FontView;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(font) = FontView::parse(data) else {
        return;
    };
    for glyph in font.glyphs() {
        assert_eq!(font.glyph(glyph.id), Some(glyph), "a parsed glyph is found by its id");
    }
    let pages: Vec<u64> = font.pages().collect();
    assert_eq!(pages.len(), font.page_count());
    let _ = (font.page(usize::MAX), font.glyph_at(usize::MAX), font.glyph(u32::MAX));
    for kerning in font.kernings() {
        assert_eq!(font.kerning(kerning.first, kerning.second), kerning.amount);
    }
});
