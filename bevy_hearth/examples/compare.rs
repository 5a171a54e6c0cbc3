//! Draws a baked model through `HearthPlugin` and its source through Bevy's glTF loader,
//! headless and offscreen, with the same camera, lights and tone mapping, and writes
//! `OUT/baked.png` and `OUT/source.png`:
//!
//! ```text
//! cargo run -p bevy_hearth --release --features compare --example compare -- \
//!     --pack out/assets.hpack --mesh models/fox.hmesh --source content/models/fox.gltf --out cmp
//! ```
//!
//! `--size N` (default 512), `--adapter NAME` (e.g. `llvmpipe`, Mesa's lavapipe) and
//! `--backend vulkan|gl|metal|dx12` pick how it draws.

use bevy::render::settings::Backends;
use bevy_hearth::compare::{CompareSettings, Comparer};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: compare --pack PACK --mesh MESH_PATH --source SOURCE.gltf --out DIR \
                     [--size N] [--adapter NAME] [--backend vulkan|gl|metal|dx12]";

/// The command line.
struct Args {
    pack: PathBuf,
    mesh: String,
    source: PathBuf,
    out: PathBuf,
    settings: CompareSettings,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut pack, mut mesh, mut source, mut out) = (None, None, None, None);
    let mut settings = CompareSettings::default();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--pack" => pack = Some(PathBuf::from(value()?)),
            "--mesh" => mesh = Some(value()?),
            "--source" => source = Some(PathBuf::from(value()?)),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--size" => {
                let text = value()?;
                settings.size = text
                    .parse()
                    .map_err(|_| format!("--size {text}: not a number"))?;
            }
            "--adapter" => settings.adapter = Some(value()?),
            "--backend" => {
                let text = value()?;
                settings.backends = Some(match text.as_str() {
                    "vulkan" => Backends::VULKAN,
                    "gl" => Backends::GL,
                    "metal" => Backends::METAL,
                    "dx12" => Backends::DX12,
                    _ => return Err(format!("--backend {text}: not vulkan, gl, metal or dx12")),
                });
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    let missing = |name: &str| format!("{name} is missing");
    Ok(Args {
        pack: pack.ok_or_else(|| missing("--pack"))?,
        mesh: mesh.ok_or_else(|| missing("--mesh"))?,
        source: source.ok_or_else(|| missing("--source"))?,
        out: out.ok_or_else(|| missing("--out"))?,
        settings,
    })
}

fn run(args: Args) -> Result<(), String> {
    let source =
        std::path::absolute(&args.source).map_err(|e| format!("{}: {e}", args.source.display()))?;
    let (Some(root), Some(file)) = (source.parent(), source.file_name()) else {
        return Err(format!("{}: not a file path", source.display()));
    };
    let assets =
        hearth::Assets::open(&args.pack).map_err(|e| format!("{}: {e}", args.pack.display()))?;
    let mut comparer = Comparer::new(assets, root, &args.settings).map_err(|e| e.to_string())?;
    let renders = comparer
        .compare(&args.mesh, &file.to_string_lossy())
        .map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    for (name, image) in [
        ("baked.png", &renders.baked),
        ("source.png", &renders.source),
    ] {
        image
            .save_png(&args.out.join(name))
            .map_err(|e| e.to_string())?;
    }
    let psnr = renders.baked.psnr(&renders.source).unwrap_or(f64::NAN);
    println!(
        "{}: PSNR {psnr:.2} dB on {} (baked.png and source.png in {})",
        args.mesh,
        comparer.adapter_name(),
        args.out.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("compare: {message}");
            ExitCode::FAILURE
        }
    }
}
