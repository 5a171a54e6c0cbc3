//! The `hearth` command-line tool: a thin shell over the library.
//!
//! Exit codes: 0 ok, 1 failure (a bake error, a failed check), 2 usage.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` through a checked writer. A closed stdout (`hearth pack info | head`) is the
/// reader's choice: the process ends quietly with exit 0. Any other write error is reported
/// on stderr and exits 1. (`println!` itself panics on both.)
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

// One module per command (or family of commands); `main` only parses and dispatches.
mod bake;
mod cache;
mod export;
mod get;
mod inspect;
mod pack;
mod render;
mod shard;
use bake::{bake, init, presets, watch, BakeOptions, Distributed};
use cache::{cache, parse_cache_size};
use get::{get, get_layered, get_named, Deliver};
use inspect::{check, info, info_json, names, report_json, report_with_timeline, write_report};
use pack::{diff, keygen, pack_info, pack_verify};
use render::{parse_size, render};

/// Writes to stdout as [`outln!`] describes.
fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: stdout: {e}");
        std::process::exit(1);
    }
}

#[derive(Parser)]
#[command(
    name = "hearth",
    version,
    about = "Bake game assets into a runtime tree and a .hpack, and inspect them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What `bake` and `watch` bake, and how.
#[derive(clap::Args)]
struct BakeTarget {
    /// The TOML manifest.
    #[arg(default_value = "hearth.toml")]
    manifest: PathBuf,
    /// Output folder.
    #[arg(short, long, default_value = "runtime")]
    out: PathBuf,
    /// Preset to use (default: the manifest's `preset`).
    #[arg(long)]
    preset: Option<String>,
    /// Worker threads, 1 to 256 (default: NUM_JOBS, else all cores).
    #[arg(short, long, value_parser = parse_jobs)]
    jobs: Option<usize>,
}

#[derive(Subcommand)]
enum Command {
    /// Bake a manifest's content into OUT (runtime tree, assets.hman and the .hpack).
    Bake {
        #[command(flatten)]
        target: BakeTarget,
        /// Ignore the incremental cache and rebuild everything.
        #[arg(long)]
        no_cache: bool,
        /// Write the pack alone, no runtime tree (the manifest's `tree = false`), for builds
        /// that embed or map the pack.
        #[arg(long)]
        pack_only: bool,
        /// Bake every asset even after a failure, and report all failures.
        #[arg(long)]
        keep_going: bool,
        /// Re-read everything written and check it (as `hearth check` does).
        #[arg(long)]
        verify: bool,
        /// Print only warnings and errors.
        #[arg(short, long)]
        quiet: bool,
        /// Sign the pack with this secret key (from `hearth keygen`); the pack is written as v5.
        #[arg(long, value_name = "KEY")]
        sign: Option<PathBuf>,
        /// Also write an HTML report of the bake (files, sizes, times, cache hits, warnings).
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Also write the bake's task timings as JSON, like `cargo build --timings`: every
        /// task the workers ran (an asset's job, or a slice of a large one) with its name,
        /// asset, start, seconds and thread, and the bake's wall and task seconds. `hearth
        /// report --timings FILE` draws it as a timeline.
        #[arg(long, value_name = "FILE")]
        timings: Option<PathBuf>,
        #[command(flatten)]
        distributed: Distributed,
    },
    /// Bake, then re-bake on every change under the content folder until Ctrl-C.
    Watch {
        #[command(flatten)]
        target: BakeTarget,
    },
    /// Write a new signing key pair: KEY (secret, owner-only) and KEY.pub (never overwrites).
    Keygen {
        /// Where to write the secret key; the public key goes to the same path + `.pub`.
        #[arg(short, long, value_name = "KEY")]
        out: PathBuf,
    },
    /// List a pack's or runtime tree's asset names (assets.hnames): name, kind, runtime
    /// path, asset hash and, for a material row or clip, its index in the file.
    Names {
        /// A `.hpack` file or a runtime tree folder.
        source: PathBuf,
        /// JSON: an array of {"name", "kind", "path", "hash", "sub"}.
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) on stdout:
    /// e.g. `hearth completions bash > ~/.local/share/bash-completion/completions/hearth`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on stdout: `hearth man > ~/.local/share/man/man1/hearth.1`.
    Man,
    /// Write a starter manifest (never overwrites).
    Init {
        /// Where to write it.
        #[arg(default_value = "hearth.toml")]
        path: PathBuf,
    },
    /// Per-file kind, size and stats, and totals, of an output folder or one baked file.
    Info {
        /// Output folder, or one file in it.
        #[arg(default_value = "runtime")]
        out: PathBuf,
        /// Print one JSON object on stdout instead (exit 1 when a file is invalid).
        #[arg(long)]
        json: bool,
    },
    /// Cross-file integrity of an output folder (non-zero exit on any problem).
    Check {
        /// Output folder.
        #[arg(default_value = "runtime")]
        out: PathBuf,
        /// Print one JSON object on stdout instead (`ok`, `files`, `problems`).
        #[arg(long)]
        json: bool,
    },
    /// Write one entry's bytes (decompressed) from a pack or a runtime tree to stdout or a
    /// file, or print its metadata (`--json`).
    Get(GetArgs),
    /// Export a baked model (its mesh, materials, textures, skin and clips) as USD: `.usdc`
    /// (binary), `.usda` (text; both with their PNGs in `<stem>_textures/` beside them) or
    /// `.usdz` (one archive), by the output's extension.
    Export {
        /// A `.hpack` file or a runtime tree folder.
        source: PathBuf,
        /// The model: its `.hmesh` runtime path or its name (`hearth names`).
        asset: String,
        /// The file to write: `FILE.usdc`, `FILE.usda` or `FILE.usdz`.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        out: PathBuf,
    },
    /// Write a patch pack: NEW's new and changed entries, byte for byte as NEW stores them,
    /// deletion records for what NEW dropped, and OLD's identity (the patch mounts over OLD
    /// only: `hearth get OLD PATH --over PATCH`).
    Diff {
        /// The pack the game has.
        old: PathBuf,
        /// The pack the game should read as.
        new: PathBuf,
        /// The patch pack to write.
        #[arg(short = 'o', long = "output", value_name = "PATCH")]
        out: PathBuf,
        /// Sign the patch with this secret key (from `hearth keygen`); it is written as v5.
        #[arg(long, value_name = "KEY")]
        sign: Option<PathBuf>,
        /// Print one JSON object on stdout: what the patch holds (counts and bytes).
        #[arg(long)]
        json: bool,
    },
    /// Render a baked model from a pack or runtime tree (or, with --source, a source model)
    /// to a PNG, offscreen: the same camera, lights and shaders either way.
    Render {
        /// A `.hpack` file or a runtime tree folder.
        #[arg(required_unless_present = "source")]
        target: Option<PathBuf>,
        /// The mesh's runtime path in it, e.g. `models/chair.hmesh`.
        #[arg(required_unless_present = "source")]
        mesh: Option<String>,
        /// Render this source model (.gltf, .glb, .obj) as its files say, without baking.
        #[arg(long, value_name = "MODEL", conflicts_with_all = ["target", "mesh"])]
        source: Option<PathBuf>,
        /// The PNG to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Image size, WIDTHxHEIGHT.
        #[arg(long, default_value = "512x512", value_parser = parse_size)]
        size: (u32, u32),
    },
    /// Write a self-contained HTML report of an output folder (files, kinds, sizes, pack
    /// codecs, texture thumbnails, mesh counts, size charts).
    Report {
        /// Output folder.
        #[arg(default_value = "runtime")]
        out: PathBuf,
        /// The HTML file to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        html: PathBuf,
        /// Add a timeline of a bake's tasks, from its `hearth bake --timings FILE`.
        #[arg(long, value_name = "FILE")]
        timings: Option<PathBuf>,
        /// Say what was written as one JSON object on stdout (`report`, `bytes`, `source`,
        /// `timeline`).
        #[arg(long)]
        json: bool,
    },
    /// Inspect .hpack files.
    Pack {
        #[command(subcommand)]
        command: PackCommand,
    },
    /// List a manifest's presets.
    Presets {
        /// The TOML manifest.
        #[arg(default_value = "hearth.toml")]
        manifest: PathBuf,
        /// Print one JSON object on stdout instead.
        #[arg(long)]
        json: bool,
    },
    /// The shared bake cache's local tier (HEARTH_CACHE_DIR, else the user cache folder).
    Cache {
        #[command(subcommand)]
        command: CacheCommand,
    },
}

#[derive(Subcommand)]
enum CacheCommand {
    /// Objects, recipes, bytes and last uses of the local tier.
    Stats {
        /// Print one JSON object on stdout instead.
        #[arg(long)]
        json: bool,
    },
    /// Remove the least recently used objects until the tier holds at most SIZE.
    Gc {
        /// Bytes, or with a K, M, G or T suffix (powers of 1024): 500M, 20G.
        #[arg(long, value_name = "SIZE", value_parser = parse_cache_size)]
        max_size: u64,
    },
    /// Remove everything the local tier holds.
    Clear,
}

#[derive(Subcommand)]
enum PackCommand {
    /// Layout breakdown, per-kind summary and entry listing of a pack.
    Info {
        /// The pack.
        file: PathBuf,
        /// Print one JSON object on stdout instead.
        #[arg(long)]
        json: bool,
    },
    /// Check a signed pack against a public key: the signature, then every entry's digest,
    /// checksum and layout (non-zero exit on any tampered byte or another key).
    Verify {
        /// The public key (`KEY.pub` from `hearth keygen`).
        #[arg(long, value_name = "KEY.pub")]
        key: PathBuf,
        /// The pack.
        file: PathBuf,
        /// Print one JSON object on stdout instead.
        #[arg(long)]
        json: bool,
    },
}

/// `hearth completions SHELL`: clap's completion script for the whole command line.
fn completions(shell: clap_complete::Shell) -> Result<(), String> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "hearth", &mut script);
    print_text(&String::from_utf8_lossy(&script))
}

/// `hearth man`: the manual page, from the same definitions as `--help`.
fn manual() -> Result<(), String> {
    use clap::CommandFactory;
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| e.to_string())?;
    print_text(&String::from_utf8_lossy(&page))
}

/// `-j N`: 1..=[`hearth::bake::MAX_JOBS`].
fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=hearth::bake::MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!(
            "must be a number of threads from 1 to {}",
            hearth::bake::MAX_JOBS
        )),
    }
}

/// `hearth get`'s arguments.
#[derive(clap::Args)]
struct GetArgs {
    /// A `.hpack` file or a runtime tree folder.
    source: PathBuf,
    /// The entry's runtime path, or its asset hash as `0x` and 16 hex digits.
    #[arg(required_unless_present = "name")]
    entry: Option<String>,
    /// The asset's name instead (`assets.hnames`; see `hearth names`): its file's bytes.
    #[arg(long, conflicts_with = "entry")]
    name: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Write only this mip level of a KTX2 texture (0 is the full size), inflated when
    /// supercompressed: the bytes a game uploads for it.
    #[arg(long, value_name = "N")]
    level: Option<u32>,
    /// Mount this patch or DLC pack over SOURCE (a pack) and read through the layers;
    /// repeat in mount order, the last wins.
    #[arg(long, value_name = "PATCH")]
    over: Vec<PathBuf>,
    /// Print the entry's metadata as one JSON object instead of its bytes: `path`,
    /// `hash`, `kind`, `size` (decompressed), a pack entry's `codec` and `stored_size`,
    /// its `names` and its kind's counts (as `info --json` has them).
    #[arg(long, conflicts_with_all = ["out", "level"])]
    json: bool,
}

fn main() -> ExitCode {
    // Tests arm fault points through `FAILPOINTS` (feature `failpoints`, never in a release).
    #[cfg(feature = "failpoints")]
    let _faults = fail::FailScenario::setup();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bake {
            target:
                BakeTarget {
                    manifest,
                    out,
                    preset,
                    jobs,
                },
            no_cache,
            pack_only,
            keep_going,
            verify,
            quiet,
            sign,
            report,
            timings,
            distributed,
        } => bake(
            &manifest,
            &out,
            BakeOptions {
                preset,
                jobs,
                use_cache: !no_cache,
                pack_only,
                keep_going,
                verify,
                quiet,
                sign,
                report,
                timings,
                distributed,
            },
        ),
        Command::Keygen { out } => keygen(&out),
        Command::Watch { target } => return watch(target),
        Command::Get(args) => get_command(args),
        Command::Export { source, asset, out } => export::export(&source, &asset, &out),
        Command::Diff {
            old,
            new,
            out,
            sign,
            json,
        } => diff(&old, &new, &out, sign.as_deref(), json),
        Command::Names { source, json } => names(&source, json),
        Command::Init { path } => init(&path),
        Command::Completions { shell } => completions(shell),
        Command::Man => manual(),
        Command::Info { out, json: false } => info(&out),
        Command::Info { out, json: true } => info_json(&out),
        Command::Check { out, json } => check(&out, json),
        Command::Pack {
            command: PackCommand::Info { file, json },
        } => pack_info(&file, json),
        Command::Pack {
            command: PackCommand::Verify { key, file, json },
        } => pack_verify(&key, &file, json),
        Command::Render {
            target,
            mesh,
            source,
            out,
            size,
        } => render(
            target.as_deref(),
            mesh.as_deref(),
            source.as_deref(),
            &out,
            size,
        ),
        Command::Report {
            out,
            html,
            timings,
            json,
        } => match &timings {
            None => write_report(&out, None, &html),
            Some(timings) => report_with_timeline(&out, timings, &html),
        }
        .and_then(|()| match json {
            true => report_json(&out, &html, timings.is_some()),
            false => Ok(()),
        }),
        Command::Presets { manifest, json } => presets(&manifest, json),
        Command::Cache { command } => cache(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `hearth get`: an entry by path or name, from a source or through layers, as bytes or
/// (`--json`) its metadata.
fn get_command(args: GetArgs) -> Result<(), String> {
    let GetArgs {
        source,
        entry,
        name,
        out,
        level,
        over,
        json,
    } = args;
    let deliver = match json {
        true => Deliver::Json,
        false => Deliver::Bytes {
            out: out.as_deref(),
            level,
        },
    };
    match (entry, name) {
        (entry, name) if !over.is_empty() => {
            get_layered(&source, &over, (entry.as_deref(), name.as_deref()), deliver)
        }
        (_, Some(name)) => get_named(&source, &name, deliver),
        (entry, None) => get(&source, &entry.unwrap_or_default(), deliver),
    }
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// Writes `text` to stdout; a closed pipe (`hearth names … | head`) is the reader's choice.
fn print_text(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}
