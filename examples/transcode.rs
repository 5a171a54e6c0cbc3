//! Transcodes every level of a UASTC `.ktx2` (from a file or a pack entry) for the GPU at hand.
//!
//! `cargo run --example transcode --features transcode -- path/to/texture.ktx2 [bc7|astc|etc2|rgba8]`
//! `cargo run --example transcode --features transcode -- path/to/pack.hpack textures/a.ktx2 bc7`

use hearth::read::transcode::{transcode, TranscodeTarget};
use hearth::{Ktx2, PakReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (bytes, target) = match args.as_slice() {
        [pack, entry, target] if pack.ends_with(".hpack") => {
            let pak = PakReader::open(pack)?;
            (
                pak.get(entry)?.ok_or("no such entry")?.into_owned(),
                target.as_str(),
            )
        }
        [file, target] => (std::fs::read(file)?, target.as_str()),
        [file] => (std::fs::read(file)?, "bc7"),
        _ => {
            return Err(
                "usage: transcode FILE.ktx2 [bc7|astc|etc2|rgba8] | PACK.hpack ENTRY TARGET".into(),
            )
        }
    };
    let target = match target {
        "bc7" => TranscodeTarget::Bc7,
        "astc" => TranscodeTarget::Astc4x4,
        "etc2" => TranscodeTarget::Etc2Rgba,
        "rgba8" => TranscodeTarget::Rgba8,
        other => return Err(format!("unknown target {other}").into()),
    };
    let ktx = Ktx2::parse(&bytes)?;
    println!(
        "{}x{} UASTC, {} levels, {}",
        ktx.width(),
        ktx.height(),
        ktx.level_count(),
        if ktx.is_srgb() { "sRGB" } else { "linear" }
    );
    for level in 0..ktx.level_count() {
        let out = transcode(&ktx, level, 0, 0, target)?;
        let (w, h, _) = ktx.level_dimensions(level);
        println!(
            "  level {level}: {w}x{h} -> {} bytes of {target:?}",
            out.len()
        );
    }
    Ok(())
}
