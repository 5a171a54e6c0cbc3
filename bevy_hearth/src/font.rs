//! `.hfont` → a [`HearthFont`]: its pages as `Image`s (labels `Page{i}`) and its metrics;
//! no `bevy_text`.

use crate::HearthLoadError;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext};
use bevy::image::Image;
use bevy::math::{IVec2, URect, UVec2};
use bevy::reflect::TypePath;
use hearth::AssetKind;
use std::collections::HashMap;

/// A loaded bitmap font (BMFont metrics, in pixels).
#[derive(Asset, TypePath, Debug)]
pub struct HearthFont {
    /// The page textures (labels `Page{i}`), in page order.
    pub pages: Vec<Handle<Image>>,
    /// Every page's size.
    pub page_size: UVec2,
    /// Distance between two lines of text.
    pub line_height: u32,
    /// From the top of a line to the baseline.
    pub base: u32,
    /// The size the font was rendered at (BMFont's `size`; negative: matched the cell height).
    pub font_size: i32,
    /// Glyphs by character id (a Unicode code point for Unicode fonts).
    pub glyphs: HashMap<u32, HearthGlyph>,
    /// Cursor adjustment between two characters, by (first, second); absent pairs are 0.
    pub kerning: HashMap<(u32, u32), i32>,
}

impl HearthFont {
    /// The kerning between `first` and the `second` after it (0 without a pair).
    pub fn kerning(&self, first: u32, second: u32) -> i32 {
        self.kerning.get(&(first, second)).copied().unwrap_or(0)
    }
}

/// One glyph's metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HearthGlyph {
    /// Which page it is on (an index into [`HearthFont::pages`]).
    pub page: usize,
    /// Its rectangle in the page, in pixels from the top left.
    pub rect: URect,
    /// The offset from the cursor (x) and the line's top (y) to the rectangle's top left.
    pub bearing: IVec2,
    /// How far the cursor moves after it.
    pub advance: i32,
    /// The channels it is in (1 blue, 2 green, 4 red, 8 alpha, 15 all).
    pub channel: u8,
}

/// The label of a font's page `i`.
pub fn page_label(i: usize) -> String {
    format!("Page{i}")
}

/// Loads `.hfont` files as [`HearthFont`]s; each page is loaded by Bevy's image loader.
#[derive(Default, TypePath)]
pub struct HearthFontLoader;

impl AssetLoader for HearthFontLoader {
    type Asset = HearthFont;
    type Settings = ();
    type Error = HearthLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<HearthFont, HearthLoadError> {
        let path = load_context.path().clone();
        let font: hearth::Font = crate::read_asset(reader, &path).await?;
        let view = font.view();
        let manifest = if view.page_count() == 0 {
            Vec::new()
        } else {
            crate::scene::manifest_rows(load_context).await?
        };
        let mut pages = Vec::with_capacity(view.page_count());
        for (i, hash) in view.pages().enumerate() {
            let page = manifest
                .iter()
                .find(|(h, kind, _)| *h == hash && *kind == AssetKind::TEXTURE)
                .map(|(_, _, page)| page.clone())
                .ok_or_else(|| {
                    HearthLoadError::new(
                        &path,
                        format!(
                            "page {i}: texture {hash:016x} is not in {}",
                            hearth::format::hman::MANIFEST_PATH
                        ),
                    )
                })?;
            let image = load_context
                .load_builder()
                .load_value::<Image>(page.clone())
                .await
                .map_err(|e| HearthLoadError::new(&path, format!("page {i} ({page}): {e}")))?;
            pages.push(load_context.add_loaded_labeled_asset(page_label(i), image));
        }
        let header = &view.header;
        let glyphs = view
            .glyphs()
            .map(|g| {
                let rect = URect::new(
                    g.x.into(),
                    g.y.into(),
                    u32::from(g.x) + u32::from(g.width),
                    u32::from(g.y) + u32::from(g.height),
                );
                let glyph = HearthGlyph {
                    page: g.page.into(),
                    rect,
                    bearing: IVec2::new(g.x_offset.into(), g.y_offset.into()),
                    advance: g.x_advance.into(),
                    channel: g.channel,
                };
                (g.id, glyph)
            })
            .collect();
        let kerning = view
            .kernings()
            .map(|k| ((k.first, k.second), i32::from(k.amount)))
            .collect();
        Ok(HearthFont {
            pages,
            page_size: UVec2::new(header.scale_w.into(), header.scale_h.into()),
            line_height: header.line_height.into(),
            base: header.base.into(),
            font_size: header.font_size.into(),
            glyphs,
            kerning,
        })
    }

    fn extensions(&self) -> &[&str] {
        // The baked `.hfont` alone: the font kind's `.ttf`/`.otf` are Bevy's own loader's.
        &AssetKind::FONT.extensions()[..1]
    }
}
