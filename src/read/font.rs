//! `.hfont` on the read side: [`FontView`], validated and read in place, and [`Font`], its
//! owned form. The byte layout and the writer are in [`crate::format::hfont`]; the checks
//! `hearth check` runs are in `read::inspect::font` (feature `inspect`).

use crate::format::error::{ReadBytes, ReadError};
use crate::format::hfont::{
    FontHeader, Glyph, Kerning, GLYPH_SIZE, HEADER_SIZE, KERNING_SIZE, MAGIC, VERSION,
};

/// A validated `.hfont`, read in place.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let bytes = pak.get("fonts/ui.hfont")?.expect("baked");
/// let font = hearth::FontView::parse(&bytes)?;
/// // The width of "AV": the advances, and the pair's kerning.
/// let advance = |c: char| font.glyph(c as u32).map_or(0, |glyph| i32::from(glyph.x_advance));
/// let width = advance('A') + advance('V') + i32::from(font.kerning('A' as u32, 'V' as u32));
/// println!("\"AV\" is {width} px wide; lines are {} px apart", font.header.line_height);
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FontView<'a> {
    /// Font-wide values.
    pub header: FontHeader,
    pages: &'a [u8],
    glyphs: &'a [u8],
    kernings: &'a [u8],
}

fn u16_le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// One glyph record's fields (`b` is [`GLYPH_SIZE`] bytes).
fn glyph_record(b: &[u8]) -> Glyph {
    Glyph {
        id: u32_le(b, 0),
        x: u16_le(b, 4),
        y: u16_le(b, 6),
        width: u16_le(b, 8),
        height: u16_le(b, 10),
        x_offset: u16_le(b, 12) as i16,
        y_offset: u16_le(b, 14) as i16,
        x_advance: u16_le(b, 16) as i16,
        page: b[18],
        channel: b[19],
    }
}

impl<'a> FontView<'a> {
    /// Parses and checks `bytes` (see the module's layout and rules).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        if bytes.slice_at(0, 4, "hfont magic")? != MAGIC {
            return Err(ReadError::BadMagic { format: "hfont" });
        }
        let version = bytes.u32_at(4, "hfont version")?;
        if version != VERSION {
            return Err(ReadError::UnsupportedVersion {
                format: "hfont",
                version,
            });
        }
        let header_bytes = bytes.slice_at(0, HEADER_SIZE, "hfont header")?;
        let header = FontHeader {
            line_height: u16_le(header_bytes, 8),
            base: u16_le(header_bytes, 10),
            scale_w: u16_le(header_bytes, 12),
            scale_h: u16_le(header_bytes, 14),
            font_size: u16_le(header_bytes, 28) as i16,
        };
        if u16_le(header_bytes, 30) != 0 {
            return Err(ReadError::Invalid {
                what: "hfont reserved header field",
            });
        }
        let count = |at| u32_le(header_bytes, at) as u64;
        let (page_count, glyph_count, kerning_count) = (count(16), count(20), count(24));
        let sizes = [
            page_count * 8,
            glyph_count * GLYPH_SIZE as u64,
            kerning_count * KERNING_SIZE as u64,
        ];
        let total = HEADER_SIZE as u64 + sizes.iter().sum::<u64>();
        if total != bytes.len() as u64 {
            return Err(if total > bytes.len() as u64 {
                ReadError::Truncated {
                    what: "hfont tables",
                }
            } else {
                ReadError::Invalid {
                    what: "hfont size (bytes after the tables)",
                }
            });
        }
        // Every size fits: they sum to the slice's length.
        let pages_end = HEADER_SIZE + sizes[0] as usize;
        let glyphs_end = pages_end + sizes[1] as usize;
        let view = Self {
            header,
            pages: &bytes[HEADER_SIZE..pages_end],
            glyphs: &bytes[pages_end..glyphs_end],
            kernings: &bytes[glyphs_end..],
        };
        let mut previous = None;
        for glyph in view.glyphs() {
            if previous.is_some_and(|id| id >= glyph.id) {
                return Err(ReadError::Invalid {
                    what: "hfont glyph order (ids must ascend, without duplicates)",
                });
            }
            previous = Some(glyph.id);
            if u64::from(glyph.page) >= page_count {
                return Err(ReadError::OutOfBounds {
                    what: "hfont glyph page",
                });
            }
            if u32::from(glyph.x) + u32::from(glyph.width) > u32::from(header.scale_w)
                || u32::from(glyph.y) + u32::from(glyph.height) > u32::from(header.scale_h)
            {
                return Err(ReadError::OutOfBounds {
                    what: "hfont glyph rectangle (outside its page)",
                });
            }
        }
        let mut previous = None;
        for (i, kerning) in view.kernings().enumerate() {
            let pair = (kerning.first, kerning.second);
            if previous.is_some_and(|p| p >= pair) {
                return Err(ReadError::Invalid {
                    what: "hfont kerning order (pairs must ascend, without duplicates)",
                });
            }
            previous = Some(pair);
            if u16_le(view.kernings, i * KERNING_SIZE + 10) != 0 {
                return Err(ReadError::Invalid {
                    what: "hfont kerning reserved field",
                });
            }
        }
        Ok(view)
    }

    /// Number of pages.
    pub fn page_count(&self) -> usize {
        self.pages.len() / 8
    }

    /// Asset hash of page `index`'s texture (resolve it through `assets.hman`).
    pub fn page(&self, index: usize) -> Option<u64> {
        let start = index.checked_mul(8)?;
        let bytes = self.pages.get(start..start.checked_add(8)?)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(bytes);
        Some(u64::from_le_bytes(a))
    }

    /// Every page's texture hash, in page order.
    pub fn pages(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.pages
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// Number of glyphs.
    pub fn glyph_count(&self) -> usize {
        self.glyphs.len() / GLYPH_SIZE
    }

    /// Glyph number `index`, in id order.
    pub fn glyph_at(&self, index: usize) -> Option<Glyph> {
        let start = index.checked_mul(GLYPH_SIZE)?;
        self.glyphs
            .get(start..start.checked_add(GLYPH_SIZE)?)
            .map(glyph_record)
    }

    /// Every glyph, in id order.
    pub fn glyphs(&self) -> impl ExactSizeIterator<Item = Glyph> + '_ {
        self.glyphs.chunks_exact(GLYPH_SIZE).map(glyph_record)
    }

    /// The glyph of character `id` (a binary search).
    pub fn glyph(&self, id: u32) -> Option<Glyph> {
        let (mut low, mut high) = (0, self.glyph_count());
        while low < high {
            let mid = low + (high - low) / 2;
            let at = u32_le(self.glyphs, mid * GLYPH_SIZE);
            match at.cmp(&id) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return self.glyph_at(mid),
            }
        }
        None
    }

    /// Number of kerning pairs.
    pub fn kerning_count(&self) -> usize {
        self.kernings.len() / KERNING_SIZE
    }

    /// Every kerning pair, sorted.
    pub fn kernings(&self) -> impl ExactSizeIterator<Item = Kerning> + '_ {
        (0..self.kerning_count()).map(|i| {
            let b = &self.kernings[i * KERNING_SIZE..(i + 1) * KERNING_SIZE];
            Kerning {
                first: u32_le(b, 0),
                second: u32_le(b, 4),
                amount: u16_le(b, 8) as i16,
            }
        })
    }

    /// The cursor adjustment between `first` and `second` (0 without a pair; a binary search).
    pub fn kerning(&self, first: u32, second: u32) -> i16 {
        let (mut low, mut high) = (0, self.kerning_count());
        while low < high {
            let mid = low + (high - low) / 2;
            let at = mid * KERNING_SIZE;
            let pair = (u32_le(self.kernings, at), u32_le(self.kernings, at + 4));
            match pair.cmp(&(first, second)) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return u16_le(self.kernings, at + 8) as i16,
            }
        }
        0
    }
}

crate::read::asset::owned_view!(
    /// An owned `.hfont`: [`view`](Self::view) gives its [`FontView`].
    ///
    /// ```no_run
    /// let pak = hearth::PakReader::open("game.hpack")?;
    /// let font: hearth::Font = pak.load("fonts/ui.hfont")?;
    /// let view = font.view();
    /// let a = view.glyph('A' as u32).expect("the font has A");
    /// println!("A: {}x{} advance {}, kerning AV {}", a.width, a.height, a.x_advance, view.kerning('A' as u32, 'V' as u32));
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    Font,
    FontHeld,
    FontView,
    FontView::parse,
    crate::AssetKind::FONT
);
