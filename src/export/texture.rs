//! Baked textures as PNG: KTX2 is not a texture format USD readers take.

use crate::read::ktx2::Ktx2;
use crate::read::transcode::rgba8_image;

/// Level 0 of `ktx` as an RGBA8 PNG. A normal map (`normal`) is baked as X in R and Y in G
/// with Z rebuilt in the shader; USD's `UsdUVTexture` reads all three, so Z is rebuilt here
/// (`sqrt(1 - x² - y²)`). `label` names the texture in errors.
pub(crate) fn png_of(ktx: &Ktx2<'_>, normal: bool, label: &str) -> Result<Vec<u8>, String> {
    if ktx.depth() > 1 || ktx.faces() != 1 || ktx.is_array() {
        return Err(format!(
            "{label}: a cubemap, array or 3D texture on a material slot (USD takes 2D images)"
        ));
    }
    let mut rgba = rgba8_image(ktx, 0).map_err(|e| format!("{label}: {e}"))?;
    if normal {
        for pixel in rgba.chunks_exact_mut(4) {
            let x = pixel[0] as f32 / 127.5 - 1.0;
            let y = pixel[1] as f32 / 127.5 - 1.0;
            let z = (1.0 - x * x - y * y).max(0.0).sqrt();
            pixel[2] = ((z + 1.0) * 127.5).round().clamp(0.0, 255.0) as u8;
            pixel[3] = 255;
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, ktx.width(), ktx.height());
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let encoded = encoder
        .write_header()
        .and_then(|mut writer| {
            writer.write_image_data(&rgba)?;
            writer.finish()
        })
        .map_err(|e| format!("{label}: PNG encoding: {e}"));
    encoded.map(|()| out)
}
