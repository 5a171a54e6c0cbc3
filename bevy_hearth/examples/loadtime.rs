//! How long Bevy takes to load a pack's models through `HearthPlugin` against their glTF
//! sources through Bevy's own glTF loader, each in fresh headless apps (no window, no GPU),
//! best of 3 runs a side:
//!
//! ```text
//! cargo run -p bevy_hearth --release --features compare --example loadtime -- \
//!     --pack out/assets.hpack --sources content --json
//! ```
//!
//! Every `.hmesh` of the pack whose `.gltf` or `.glb` is at the same path under `--sources`
//! counts. `--runs N` (default 3) runs per side; `--formats bc|astc|etc2|none` the compressed
//! formats the device is taken to sample (default `bc`, a desktop GPU's). `--json` prints
//! `{"models": N, "pack_s": …, "gltf_s": …, "ratio": gltf_s / pack_s}`.

use bevy::image::CompressedImageFormats;
use bevy_hearth::loadtime::{measure, LoadTimeSettings};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: loadtime --pack PACK --sources DIR [--json] [--runs N] \
                     [--formats bc|astc|etc2|none]";

/// The command line.
struct Args {
    pack: PathBuf,
    sources: PathBuf,
    json: bool,
    settings: LoadTimeSettings,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut pack, mut sources, mut json) = (None, None, false);
    let mut settings = LoadTimeSettings::default();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--pack" => pack = Some(PathBuf::from(value()?)),
            "--sources" => sources = Some(PathBuf::from(value()?)),
            "--json" => json = true,
            "--runs" => {
                let text = value()?;
                settings.runs = text
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or(format!("--runs {text}: not a positive number"))?;
            }
            "--formats" => {
                let text = value()?;
                settings.formats = match text.as_str() {
                    "bc" => CompressedImageFormats::BC,
                    "astc" => CompressedImageFormats::ASTC_LDR,
                    "etc2" => CompressedImageFormats::ETC2,
                    "none" => CompressedImageFormats::NONE,
                    _ => return Err(format!("--formats {text}: not bc, astc, etc2 or none")),
                };
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    let missing = |name: &str| format!("{name} is missing");
    Ok(Args {
        pack: pack.ok_or_else(|| missing("--pack"))?,
        sources: sources.ok_or_else(|| missing("--sources"))?,
        json,
        settings,
    })
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match measure(&args.pack, &args.sources, &args.settings) {
        Ok(times) if args.json => {
            println!("{}", times.json());
            ExitCode::SUCCESS
        }
        Ok(times) => {
            println!(
                "{} models: pack {:.3} s, glTF {:.3} s, glTF / pack {:.2} (best of {})",
                times.models,
                times.pack.as_secs_f64(),
                times.gltf.as_secs_f64(),
                times.ratio(),
                args.settings.runs
            );
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("loadtime: {message}");
            ExitCode::FAILURE
        }
    }
}
