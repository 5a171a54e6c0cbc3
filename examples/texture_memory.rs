//! Peak memory of baking one large image (issue 29, item 5): run the `bake` step under
//! `/usr/bin/time -v` and divide its "Maximum resident set size" by the pixel count.
//!
//! ```sh
//! cargo run --release --features bake --example texture_memory -- generate 8192 3 /tmp/m/content
//! /usr/bin/time -v target/release/examples/texture_memory bake /tmp/m/content /tmp/m/out [JOBS]
//! ```
//!
//! `generate SIZE CHANNELS DIR` writes `DIR/image.png` (8-bit gray, RGB or RGBA: smooth
//! gradients with a little noise, which PNG compresses about 2:1 like a real texture) and
//! `DIR/hearth.toml` (UASTC `fastest`, cache off); `bake DIR OUT [JOBS]` bakes it through the
//! Baker, with `JOBS` worker threads (default: all cores), and prints the pixel count.

use hearth::bake::Baker;
use std::path::Path;

fn generate(size: u32, channels: u8, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let color = match channels {
        1 => image::ExtendedColorType::L8,
        3 => image::ExtendedColorType::Rgb8,
        4 => image::ExtendedColorType::Rgba8,
        other => panic!("channels must be 1, 3 or 4, not {other}"),
    };
    let n = channels as usize;
    let mut pixels = vec![0u8; size as usize * size as usize * n];
    let mut seed = 0x9e37_79b9_u32;
    for (i, px) in pixels.chunks_exact_mut(n).enumerate() {
        let (x, y) = ((i % size as usize) as u32, (i / size as usize) as u32);
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let noise = (seed & 7) as u8;
        for (c, v) in px.iter_mut().enumerate() {
            let ramp = match c {
                0 => x * 255 / size,
                1 => y * 255 / size,
                2 => (x + y) * 127 / size,
                _ => 255 - (x / 64 % 2) * 40,
            };
            *v = (ramp as u8).wrapping_add(noise);
        }
    }
    let file = std::io::BufWriter::new(std::fs::File::create(dir.join("image.png")).unwrap());
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(file),
        &pixels,
        size,
        size,
        color,
    )
    .unwrap();
    std::fs::write(
        dir.join("hearth.toml"),
        "[[content.group]]\nassets = [\"*.png\"]\n[default]\ntexture = { quality = \"fastest\" }\n",
    )
    .unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["generate", size, channels, dir] => generate(
            size.parse().unwrap(),
            channels.parse().unwrap(),
            Path::new(dir),
        ),
        ["bake", dir, out, rest @ ..] => {
            let manifest = Path::new(dir).join("hearth.toml");
            let mut baker = Baker::new(manifest.as_path(), Path::new(out));
            if let Some(jobs) = rest.first() {
                baker.jobs(jobs.parse().unwrap());
            }
            baker.cache(false).run().unwrap();
            let (w, h) = image::image_dimensions(Path::new(dir).join("image.png")).unwrap();
            println!("pixels {}", w as u64 * h as u64);
        }
        _ => {
            eprintln!("usage: texture_memory generate SIZE CHANNELS DIR | bake DIR OUT [JOBS]");
            std::process::exit(2);
        }
    }
}
