//! The bitmap-font pipeline: AngelCode BMFont descriptors (`*.fnt`, text, XML or binary) ->
//! `.hfont` (manifest kind 7, font; [`crate::format::hfont`]) plus one texture per page.
//!
//! `fonts/ui.fnt` with pages `ui_0.png`, `ui_1.png` bakes to `fonts/ui.hfont`,
//! `fonts/ui/page_0.ktx2` and `fonts/ui/page_1.ktx2`; the `.hfont` holds the pages' asset
//! hashes. Pages are raw RGBA8 without mips by default (pixel-exact: glyph edges stay sharp
//! and a glyph's rectangle is exact); `font = { compress = true, mips = true }` makes them
//! UASTC with mips instead.

pub mod bmfont;

use crate::bake::asset_file::named_source;
use crate::bake::pipeline::{
    AssetTable, BakeContext, Claim, Output, Pipeline, PipelineError, Source,
};
use crate::bake::texture::pixels::{DecodedImage, PixelSource};
use crate::bake::texture::settings::TextureSettings;
use crate::bake::texture::{self, TextureMode, TextureShape};
use crate::format::hfont::{self, FontData};
use crate::format::hman::AssetKind;

/// `font = { … }` in any layer of the manifest.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FontSettings {
    /// Page textures as UASTC (`true`) or raw RGBA8 (`false`, the default: pixel-exact).
    pub compress: bool,
    /// Mip chains on the page textures (default `false`: text is drawn at its size).
    pub mips: bool,
}

/// `*.fnt` -> `.hfont` + page textures.
#[derive(Debug, Clone, Copy, Default)]
pub struct BitmapFont;

impl Pipeline for BitmapFont {
    type Settings = FontSettings;

    fn name(&self) -> &str {
        "bitmap-font"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.fnt")]
    }
    fn settings_table(&self) -> &str {
        "font"
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &FontSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        bake_descriptor(source.bytes(), "", source.stem(), settings, cx)
    }
    fn asset_tables(&self) -> &[&str] {
        &["bitmap-font"]
    }
    /// pak's `[bitmap-font]` asset files: the descriptor `src` names, its pages beside it.
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        settings: &FontSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let (read_path, _) = named_source(file.rel(), file.body())?;
        let descriptor = cx.read(&read_path)?;
        let pages_dir = match read_path.rfind('/') {
            Some(slash) => &read_path[..=slash],
            None => "",
        };
        bake_descriptor(&descriptor, pages_dir, file.name(), settings, cx)
    }
}

/// Bakes one BMFont descriptor: `pages_dir` is the descriptor's folder relative to the
/// baking source's (its page files are read from there); outputs are `<stem>.hfont` and
/// `<stem>/page_<i>.ktx2`. Shared by `*.fnt` and pak's `[bitmap-font]` asset files.
pub fn bake_descriptor(
    descriptor: &[u8],
    pages_dir: &str,
    stem: &str,
    settings: &FontSettings,
    cx: &mut BakeContext<'_>,
) -> Result<(), PipelineError> {
    let font = bmfont::parse(descriptor)?;
    let texture_settings = TextureSettings {
        compress: settings.compress,
        mips: settings.mips,
        ..TextureSettings::default()
    };
    let mut pages = Vec::with_capacity(font.pages.len());
    for (index, file) in font.pages.iter().enumerate() {
        let bytes = cx.read(&format!("{pages_dir}{file}"))?;
        let extension = file
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let image = DecodedImage::decode(&bytes, &extension, texture_settings.max_pixels)
            .map_err(|e| format!("page {index} ({file}): {e}"))?;
        let (width, height) = (image.width(), image.height());
        let (header_w, header_h) = (font.header.scale_w, font.header.scale_h);
        if (width, height) != (u32::from(header_w), u32::from(header_h)) {
            return Err(format!(
                    "page {index} ({file}) is {width}x{height}, but the descriptor's scaleW x scaleH is \
                     {header_w}x{header_h}"
                )
                .into());
        }
        let encoded = texture::encode_decoded(
            vec![image],
            TextureShape::Single,
            TextureMode::Color,
            &texture_settings,
        )?;
        let page_ref = format!("{stem}/page_{index}");
        pages.push(cx.reference(&page_ref));
        let path = AssetKind::TEXTURE.file_name(&page_ref);
        cx.emit(
            Output::new(path, AssetKind::TEXTURE, encoded.ktx2).color_space(encoded.color_space),
        );
    }
    let data = FontData {
        header: font.header,
        pages,
        glyphs: font.glyphs,
        kernings: font.kernings,
    };
    let bytes = hfont::write(&data);
    // What the runtime reader will accept, checked here so a bad font fails its bake.
    crate::read::font::FontView::parse(&bytes)
        .map_err(|e| format!("baked font does not check: {e}"))?;
    cx.emit(Output::new(
        AssetKind::FONT.file_name(stem),
        AssetKind::FONT,
        bytes,
    ));
    Ok(())
}
