//! `.hfont` v1: a bitmap font (from an AngelCode BMFont descriptor), manifest kind 7 (font).
//!
//! ```text
//! header, 32 bytes:
//!   magic "HFNT" | version u32 = 1 | lineHeight u16 | base u16 | scaleW u16 | scaleH u16
//!   | pageCount u32 | glyphCount u32 | kerningCount u32 | fontSize i16 | reserved u16 = 0
//! pages:    pageCount x u64       asset hash of page i's texture (a raw or UASTC .ktx2)
//! glyphs:   glyphCount x 20 bytes id u32 | x u16 | y u16 | width u16 | height u16
//!                                 | xoffset i16 | yoffset i16 | xadvance i16 | page u8
//!                                 | channel u8 (BMFont's chnl: 1 B, 2 G, 4 R, 8 A, 15 all)
//! kernings: kerningCount x 12 b.  first u32 | second u32 | amount i16 | reserved u16 = 0
//! ```
//!
//! Little-endian; the file is exactly that long. Glyphs are sorted by id (unique), kernings by
//! (first, second) (unique), so lookups are binary searches. Every glyph's page exists and its
//! rectangle lies inside `scaleW` x `scaleH`. [`FontView`](crate::read::font::FontView) checks
//! all of it at parse and then reads records in place (no copy, no alignment needed).

/// Magic bytes.
pub const MAGIC: [u8; 4] = *b"HFNT";
/// Version.
pub const VERSION: u32 = 1;
/// Header size.
pub const HEADER_SIZE: usize = 32;
/// One glyph record.
pub const GLYPH_SIZE: usize = 20;
/// One kerning record.
pub const KERNING_SIZE: usize = 12;

/// The font-wide values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FontHeader {
    /// Distance between two lines of text, in pixels.
    pub line_height: u16,
    /// From the top of a line to the baseline, in pixels.
    pub base: u16,
    /// Width of every page texture.
    pub scale_w: u16,
    /// Height of every page texture.
    pub scale_h: u16,
    /// The size the font was rendered at (BMFont's `size`; negative: matched the cell height).
    pub font_size: i16,
}

/// One glyph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Glyph {
    /// Character id (a Unicode code point for Unicode fonts).
    pub id: u32,
    /// Left of its rectangle in the page.
    pub x: u16,
    /// Top of its rectangle in the page.
    pub y: u16,
    /// Rectangle width.
    pub width: u16,
    /// Rectangle height.
    pub height: u16,
    /// Offset from the cursor to the rectangle's left when drawing.
    pub x_offset: i16,
    /// Offset from the line's top to the rectangle's top when drawing.
    pub y_offset: i16,
    /// How far the cursor moves after this glyph.
    pub x_advance: i16,
    /// Page index.
    pub page: u8,
    /// Channels the glyph is in (1 blue, 2 green, 4 red, 8 alpha, 15 all).
    pub channel: u8,
}

/// One kerning pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kerning {
    /// The first character.
    pub first: u32,
    /// The character after it.
    pub second: u32,
    /// Cursor adjustment between them.
    pub amount: i16,
}

/// A font to write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FontData {
    /// Font-wide values.
    pub header: FontHeader,
    /// Page texture asset hashes.
    pub pages: Vec<u64>,
    /// Glyphs (any order; written sorted by id).
    pub glyphs: Vec<Glyph>,
    /// Kerning pairs (any order; written sorted).
    pub kernings: Vec<Kerning>,
}

/// Writes `font` (glyphs and kernings sorted). Duplicates and out-of-range values are the
/// caller's to reject first ([`FontView::parse`](crate::read::font::FontView::parse) would refuse the result).
pub fn write(font: &FontData) -> Vec<u8> {
    let mut glyphs = font.glyphs.clone();
    glyphs.sort_by_key(|g| g.id);
    let mut kernings = font.kernings.clone();
    kernings.sort_by_key(|k| (k.first, k.second));
    let h = &font.header;
    let mut out = Vec::with_capacity(
        HEADER_SIZE
            + font.pages.len() * 8
            + glyphs.len() * GLYPH_SIZE
            + kernings.len() * KERNING_SIZE,
    );
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    for value in [h.line_height, h.base, h.scale_w, h.scale_h] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    for count in [font.pages.len(), glyphs.len(), kernings.len()] {
        out.extend_from_slice(&(count as u32).to_le_bytes());
    }
    out.extend_from_slice(&h.font_size.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    for page in &font.pages {
        out.extend_from_slice(&page.to_le_bytes());
    }
    for g in &glyphs {
        out.extend_from_slice(&g.id.to_le_bytes());
        for value in [g.x, g.y, g.width, g.height] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in [g.x_offset, g.y_offset, g.x_advance] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.push(g.page);
        out.push(g.channel);
    }
    for k in &kernings {
        out.extend_from_slice(&k.first.to_le_bytes());
        out.extend_from_slice(&k.second.to_le_bytes());
        out.extend_from_slice(&k.amount.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::font::FontView;

    fn sample() -> FontData {
        FontData {
            header: FontHeader {
                line_height: 32,
                base: 26,
                scale_w: 256,
                scale_h: 128,
                font_size: -24,
            },
            pages: vec![0x1111, 0x2222],
            glyphs: vec![
                Glyph {
                    id: 66,
                    x: 10,
                    width: 12,
                    height: 20,
                    x_advance: 13,
                    page: 1,
                    channel: 15,
                    ..Glyph::default()
                },
                Glyph {
                    id: 65,
                    x: 240,
                    y: 100,
                    width: 16,
                    height: 28,
                    x_offset: -1,
                    y_offset: 4,
                    x_advance: 14,
                    channel: 15,
                    ..Glyph::default()
                },
            ],
            kernings: vec![
                Kerning {
                    first: 86,
                    second: 65,
                    amount: -2,
                },
                Kerning {
                    first: 65,
                    second: 86,
                    amount: -3,
                },
            ],
        }
    }

    #[test]
    fn round_trips_sorted() {
        let font = sample();
        let bytes = write(&font);
        assert_eq!(
            bytes.len(),
            HEADER_SIZE + 2 * 8 + 2 * GLYPH_SIZE + 2 * KERNING_SIZE
        );
        let view = FontView::parse(&bytes).unwrap();
        assert_eq!(view.header, font.header);
        assert_eq!(view.pages().collect::<Vec<_>>(), [0x1111, 0x2222]);
        assert_eq!(view.glyphs().map(|g| g.id).collect::<Vec<_>>(), [65, 66]);
        assert_eq!(view.glyph(65), Some(font.glyphs[1]));
        assert_eq!(view.glyph(67), None);
        assert_eq!(view.kerning(65, 86), -3);
        assert_eq!(view.kerning(86, 65), -2);
        assert_eq!(view.kerning(65, 65), 0);
    }

    #[test]
    fn damage_is_refused() {
        let good = write(&sample());
        assert!(FontView::parse(&good[..good.len() - 1]).is_err());
        let mut longer = good.clone();
        longer.push(0);
        assert!(FontView::parse(&longer).is_err());
        let mut font = sample();
        font.glyphs[0].page = 2;
        assert!(FontView::parse(&write(&font)).is_err(), "page out of range");
        let mut font = sample();
        font.glyphs[1].x = 241;
        assert!(FontView::parse(&write(&font)).is_err(), "outside the page");
        let mut font = sample();
        font.glyphs[1].id = 66;
        assert!(FontView::parse(&write(&font)).is_err(), "duplicate id");
        let mut huge = good.clone();
        huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(FontView::parse(&huge).is_err(), "count past the end");
        for len in 0..good.len() {
            let _ = FontView::parse(&good[..len]);
        }
    }
}
