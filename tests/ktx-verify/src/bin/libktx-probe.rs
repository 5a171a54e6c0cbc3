//! `libktx-probe COMMAND [ARGS] < file.ktx2`: runs one function of `hearth_ktx_verify` (libktx
//! in this process) on the KTX2 file read from stdin and prints the result in the text format
//! of `hearth_ktx_verify::{info_to_text, images_to_text, bytes_to_text}`. On error it prints
//! the error (libktx's) to stderr and exits 1. Commands:
//!
//! - `info`: `load`
//! - `decode LAYER FACE`: `decode_rgba8_at`
//! - `image LEVEL LAYER FACE`: `image_bytes`
//! - `level LEVEL`: `level_bytes`
//! - `images`: `all_image_bytes`, one `LEVEL LAYER FACE_SLICE hex` line per image
//! - `levels`: `all_level_bytes`, one hex line per level
//!
//! It exists so that a test linking hearth's Basis Universal (which clashes with libktx's own
//! copy at link time) can still reach libktx: see `hearth_ktx_verify::Probe`.

use hearth_ktx_verify as ktx;
use std::io::{Read, Write};

fn run(args: &[String], bytes: &[u8]) -> Result<String, String> {
    let num = |i: usize| -> Result<u32, String> {
        let arg = args.get(i).ok_or("missing argument")?;
        arg.parse().map_err(|_| format!("not a number: {arg}"))
    };
    match args.first().map(String::as_str) {
        Some("info") => Ok(ktx::info_to_text(&ktx::load(bytes)?)),
        Some("decode") => Ok(ktx::images_to_text(&ktx::decode_rgba8_at(
            bytes,
            num(1)?,
            num(2)?,
        )?)),
        Some("image") => Ok(ktx::bytes_to_text(&ktx::image_bytes(
            bytes,
            num(1)?,
            num(2)?,
            num(3)?,
        )?)),
        Some("level") => Ok(ktx::bytes_to_text(&ktx::level_bytes(bytes, num(1)?)?)),
        Some("images") => Ok(ktx::indexed_images_to_text(&ktx::all_image_bytes(bytes)?)),
        Some("levels") => Ok(ktx::all_level_bytes(bytes)?
            .iter()
            .map(|level| ktx::bytes_to_text(level))
            .collect()),
        _ => Err(
            "usage: libktx-probe info | decode LAYER FACE | image LEVEL LAYER FACE \
                  | level LEVEL | images | levels  < file.ktx2"
                .into(),
        ),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut bytes = Vec::new();
    let result = std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading stdin: {e}"))
        .and_then(|_| run(&args, &bytes));
    match result {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).expect("stdout");
        }
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    }
}
