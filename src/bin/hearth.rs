//! The `hearth` command-line tool: a thin shell over the library.
//!
//! Exit codes: 0 ok, 1 failure (a bake error, a failed check), 2 usage.

use clap::{Parser, Subcommand};
use hearth::bake::signing::SigningKey;
use hearth::bake::watch::WatchEvent;
use hearth::bake::{Baker, Config, Progress};
use hearth::format::hash::parse_hash_literal;
use hearth::read::inspect::{
    check_output, file_counts, has_counts, kind_tools, line_field, manifest_kinds, pack_layout,
    write_output, OutputFolder,
};
use hearth::read::signed::fingerprint;
use hearth::{AssetKind, Assets, PakReader};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `println!` through a checked writer. A closed stdout (`hearth pack info | head`) is the
/// reader's choice: the process ends quietly with exit 0. Any other write error is reported
/// on stderr and exits 1. (`println!` itself panics on both.)
macro_rules! outln {
    () => {
        write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

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
    },
    /// Write one entry's bytes (decompressed) from a pack or a runtime tree to stdout or a file.
    Get {
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

const STARTER: &str = r#"# hearth manifest: https://docs.rs/hearth (see the README's manifest reference)
preset = "release"

[content]
name = "assets"             # the pack is assets.hpack
compression = "zstd"        # none | snap | brotli | zstd

[[content.group]]
assets = ["**/*"]
exclude = ["**/wip/**", "*.toml"]

[default]
texture = { compress = true }
mesh = { merge = true }

[[default.rules]]
match = "ui/*"
texture = { compress = false }

[presets.debug]             # picked by build.rs in debug builds: bake fast
compression = "none"

[presets.release]
compression_level = 19
"#;

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
            },
        ),
        Command::Keygen { out } => keygen(&out),
        Command::Watch { target } => return watch(target),
        Command::Get {
            source,
            entry,
            name,
            out,
            level,
            over,
        } => match (entry, name) {
            (entry, name) if !over.is_empty() => get_layered(
                &source,
                &over,
                (entry.as_deref(), name.as_deref()),
                out.as_deref(),
                level,
            ),
            (_, Some(name)) => get_named(&source, &name, out.as_deref(), level),
            (entry, None) => get(&source, &entry.unwrap_or_default(), out.as_deref(), level),
        },
        Command::Diff {
            old,
            new,
            out,
            sign,
            json,
        } => diff(&old, &new, &out, sign.as_deref(), json),
        Command::Names { source, json } => names(&source, json),
        Command::Init { path } => init(&path),
        Command::Info { out, json: false } => info(&out),
        Command::Info { out, json: true } => info_json(&out),
        Command::Check { out } => check(&out),
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
            timings: None,
        } => write_report(&out, None, &html),
        Command::Report {
            out,
            html,
            timings: Some(timings),
        } => report_with_timeline(&out, &timings, &html),
        Command::Presets { manifest } => presets(&manifest),
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

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// `hearth bake`'s flags.
struct BakeOptions {
    preset: Option<String>,
    jobs: Option<usize>,
    use_cache: bool,
    pack_only: bool,
    keep_going: bool,
    verify: bool,
    quiet: bool,
    sign: Option<PathBuf>,
    report: Option<PathBuf>,
    timings: Option<PathBuf>,
}

fn bake(manifest: &Path, out: &Path, options: BakeOptions) -> Result<(), String> {
    let BakeOptions {
        preset,
        jobs,
        use_cache,
        pack_only,
        keep_going,
        verify,
        quiet,
        sign,
        report: report_file,
        timings,
    } = options;
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {wide_msg}",
        )
        .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut baker = Baker::new(manifest, out);
    baker
        .preset_opt(preset)
        .cache(use_cache)
        .keep_going(keep_going);
    if let Some(jobs) = jobs {
        baker.jobs(jobs);
    }
    if pack_only {
        baker.tree(false);
    }
    if let Some(key) = sign {
        baker.sign(SigningKey::load(&key).map_err(|e| e.to_string())?);
    }
    baker.shared_cache_from_env();
    baker.record_timings(timings.is_some());
    let warn_bar = bar.clone();
    baker.on_warning(move |w| warn_bar.suspend(|| eprintln!("warning: {w}")));
    let progress_bar = bar.clone();
    baker.on_progress(move |event| match event {
        Progress::Planned { assets } => progress_bar.set_length(assets as u64),
        Progress::Asset { done, path, .. } => {
            progress_bar.set_position(done as u64);
            progress_bar.set_message(path.to_owned());
        }
        Progress::Packing { entries } => {
            progress_bar.set_message(format!("packing {entries} entries"))
        }
        _ => {}
    });
    let result = baker.run();
    bar.finish_and_clear();
    let report = result.map_err(|e| e.to_string())?;
    if !quiet {
        print_bake_summary(manifest, &report);
        print_shared_cache(&report);
    }
    if let Some(file) = &report_file {
        write_report(&report.out_dir, Some(&report), file)?;
    }
    if let Some(file) = &timings {
        write_timings(&report, file)?;
    }
    if verify {
        let (problems, files) = check_output(&report.out_dir);
        if !problems.is_empty() {
            return Err(format!(
                "verify found {} problems:\n  {}",
                problems.len(),
                problems.join("\n  ")
            ));
        }
        if !quiet {
            outln!("  verify: {files} files and the pack are consistent");
        }
    }
    Ok(())
}

/// What a bake made, in words: by kind, where, the pack's size and codecs, the warnings, and
/// the commands that look further.
fn print_bake_summary(manifest: &Path, report: &hearth::bake::Report) {
    outln!(
        "baked {} assets of {} in {:.2?} ({} from the cache, {} baked){}",
        report.assets,
        manifest.display(),
        report.elapsed,
        report.cache_hits,
        report.baked.len(),
        report
            .preset
            .as_deref()
            .map(|p| format!(", preset `{p}`"))
            .unwrap_or_default()
    );
    let pak = PakReader::open(&report.pack_path).ok();
    let layout = pak.as_ref().and_then(|pak| pack_layout(pak).ok());
    if let Some(layout) = &layout {
        let made: Vec<String> = layout
            .per_kind
            .iter()
            .filter(|(kind, _)| **kind != AssetKind::MANIFEST)
            .map(|(kind, (count, size, _))| format!("{count} {kind} ({})", human(*size)))
            .collect();
        outln!("  made:     {}", made.join(", "));
    }
    outln!(
        "  output:   {} ({} in {} files listed in assets.hman, from {} of sources){}",
        report.out_dir.display(),
        human(report.bytes_out),
        report.manifest_entries,
        human(report.bytes_in),
        match report.tree {
            true => "",
            false => "; pack only, no runtime tree",
        }
    );
    let mut codecs: BTreeMap<&'static str, usize> = BTreeMap::new();
    for entry in pak.iter().flat_map(|pak| pak.entries()).flatten() {
        *codecs.entry(entry.codec().name()).or_default() += 1;
    }
    let codecs: Vec<String> = codecs
        .iter()
        .map(|(codec, count)| format!("{codec} ({count})"))
        .collect();
    outln!(
        "  pack:     {}, {}, {} entries, codec {}",
        report.pack_path.display(),
        human(report.pack_bytes),
        report.pack_entries,
        if codecs.is_empty() {
            "-".to_owned()
        } else {
            codecs.join(", ")
        }
    );
    outln!("  warnings: {}", report.warnings.len());
    outln!(
        "  files:    {} written, {} stale removed (a re-bake with nothing changed writes none)",
        report.files_written,
        report.files_removed
    );
    outln!("next:");
    outln!(
        "  hearth info {}          every file, its kind and size",
        report.out_dir.display()
    );
    outln!(
        "  hearth pack info {}   the pack's layout and entries",
        report.pack_path.display()
    );
    outln!(
        "  hearth report {} -o report.html   an HTML report (thumbnails, vertex counts, hashes)",
        report.out_dir.display()
    );
}

fn init(path: &Path) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("{}: {e} (init never overwrites)", path.display()))?;
    std::io::Write::write_all(&mut file, STARTER.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    outln!("wrote {}", path.display());
    Ok(())
}

/// What `hearth info` reads: one file, or an output folder (its tree, or a pack-only bake's
/// pack).
enum InfoSource {
    File(PathBuf),
    Folder(OutputFolder),
}

impl InfoSource {
    fn size(&self, rel: &str) -> Result<u64, String> {
        match self {
            InfoSource::File(path) => std::fs::metadata(path)
                .map(|meta| meta.len())
                .map_err(|e| e.to_string()),
            InfoSource::Folder(folder) => folder.size(rel),
        }
    }

    fn read(&self, rel: &str) -> Result<Vec<u8>, String> {
        match self {
            InfoSource::File(path) => {
                let cap = hearth::read::inspect::MAX_NAMED_FILE_BYTES;
                hearth::read::inspect::read_named_file(path, cap)
            }
            InfoSource::Folder(folder) => folder.read(rel),
        }
    }
}

/// The files `hearth info` describes, as (runtime path, kind), and where they are read: every
/// file of an output folder, or the one file given. Kinds come from the `assets.hman` row
/// naming the file, else from its extension.
fn info_files(out: &Path) -> Result<(InfoSource, Vec<(String, AssetKind)>), String> {
    let meta = std::fs::metadata(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if !meta.is_dir() && !meta.is_file() {
        // A FIFO or a device: waited on or read without end, never described.
        return Err(format!("{}: not a regular file", out.display()));
    }
    if !meta.is_dir() {
        let rel = out.display().to_string();
        let kind = kind_of_file(out);
        return Ok((InfoSource::File(out.to_path_buf()), vec![(rel, kind)]));
    }
    let folder = OutputFolder::open(out)?;
    let listed = folder.manifest_kinds();
    let files = folder
        .paths()
        .into_iter()
        .map(|rel| {
            let kind = listed
                .get(&rel)
                .copied()
                .unwrap_or_else(|| AssetKind::from_path(&rel));
            (rel, kind)
        })
        .collect();
    Ok((InfoSource::Folder(folder), files))
}

/// The kind of one file: its row in the nearest `assets.hman` above it that lists it, else
/// the kind of its extension.
fn kind_of_file(file: &Path) -> AssetKind {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    for root in file.ancestors().skip(1) {
        if !root.join(hearth::format::hman::MANIFEST_PATH).is_file() {
            continue;
        }
        let Ok(rel) = file.strip_prefix(root) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if let Some(kind) = manifest_kinds(root).get(&rel) {
            return *kind;
        }
    }
    AssetKind::from_path(&file.to_string_lossy())
}

fn info(out: &Path) -> Result<(), String> {
    let (source, files) = info_files(out)?;
    let mut totals: BTreeMap<AssetKind, (usize, u64)> = Default::default();
    outln!("{:<48} {:<9} {:>12}  details", "file", "kind", "size");
    for (rel, kind) in &files {
        let size = source.size(rel).unwrap_or(0);
        let details = kind_tools(*kind)
            .and_then(|tools| tools.describe)
            .map(|describe| {
                source
                    .read(rel)
                    .and_then(|bytes| describe(&bytes).map_err(|e| e.to_string()))
                    .unwrap_or_else(|e| format!("INVALID: {e}"))
            })
            .unwrap_or_default();
        outln!(
            "{:<48} {:<9} {:>12}  {}",
            line_field(rel),
            kind.to_string(),
            human(size),
            line_field(&details)
        );
        let total = totals.entry(*kind).or_default();
        total.0 += 1;
        total.1 += size;
    }
    outln!();
    for (kind, (count, size)) in &totals {
        outln!(
            "{:<9} {count:>6} files {:>12}",
            kind.to_string(),
            human(*size)
        );
    }
    let all: u64 = totals.values().map(|t| t.1).sum();
    outln!("{:<9} {:>6} files {:>12}", "total", files.len(), human(all));
    Ok(())
}

/// One file as a JSON object: `path`, `kind` (its name), `size`, and its kind's counts, or
/// `error` when it cannot be read.
fn file_json(rel: &str, source: &InfoSource, kind: AssetKind) -> Value {
    let mut object = Map::new();
    object.insert("path".into(), rel.into());
    object.insert("kind".into(), kind.to_string().into());
    let counts = source.size(rel).and_then(|size| {
        object.insert("size".into(), size.into());
        if !has_counts(kind) {
            return Ok(Vec::new());
        }
        let bytes = source.read(rel)?;
        file_counts(kind, &bytes).map_err(|e| e.to_string())
    });
    match counts {
        Ok(counts) => {
            for (name, value) in counts {
                object.insert(name.into(), value.into());
            }
        }
        Err(error) => {
            object.insert("error".into(), error.into());
        }
    }
    Value::Object(object)
}

fn info_json(out: &Path) -> Result<(), String> {
    let is_dir = std::fs::metadata(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .is_dir();
    let (source, files) = info_files(out)?;
    let files: Vec<Value> = files
        .iter()
        .map(|(rel, kind)| file_json(rel, &source, *kind))
        .collect();
    let invalid = files.iter().filter(|f| f.get("error").is_some()).count();
    let document = if is_dir {
        let mut kinds: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for file in &files {
            let kind = file["kind"].as_str().unwrap_or_default().to_owned();
            let total = kinds.entry(kind).or_default();
            total.0 += 1;
            total.1 += file["size"].as_u64().unwrap_or(0);
        }
        let size: u64 = kinds.values().map(|t| t.1).sum();
        json!({
            "path": out.display().to_string(),
            "files": files,
            "kinds": kinds
                .iter()
                .map(|(kind, (count, size))| (kind.clone(), json!({"files": count, "size": size})))
                .collect::<Map<String, Value>>(),
            "totals": {"files": files.len(), "size": size, "invalid": invalid},
        })
    } else {
        files.into_iter().next().unwrap_or(Value::Null)
    };
    outln!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON values serialize")
    );
    match invalid {
        0 => Ok(()),
        n => Err(format!("{n} invalid files (see their \"error\" fields)")),
    }
}

fn check(out: &Path) -> Result<(), String> {
    // An interrupted bake is finished (committed) or discarded (not) first, as the next bake
    // would: the folder then holds one bake, the old or the new.
    if out.is_dir() {
        let recovered = hearth::bake::transaction::recover_all(out).map_err(|e| e.to_string())?;
        for (dir, recovery) in recovered {
            eprintln!("{}: {recovery}", dir.display());
        }
    }
    let (problems, files) = check_output(out);
    if problems.is_empty() {
        outln!("ok: {files} files, manifest and packs consistent");
        Ok(())
    } else {
        Err(format!(
            "{} problems:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}

/// `hearth watch`: one line per bake on stdout, errors on stderr; exits 130 on Ctrl-C.
fn watch(target: BakeTarget) -> ExitCode {
    let BakeTarget {
        manifest,
        out,
        preset,
        jobs,
    } = target;
    let (manifest, out) = (manifest.as_path(), out.as_path());
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        eprintln!("error: cannot catch Ctrl-C: {e}");
        return ExitCode::FAILURE;
    }
    let mut baker = Baker::new(manifest, out);
    baker.preset_opt(preset);
    if let Some(jobs) = jobs {
        baker.jobs(jobs);
    }
    baker.on_warning(|w| eprintln!("warning: {w}"));
    let mut watch = hearth::bake::watch::Watch::new(baker, manifest, out);
    outln!(
        "watching {} (output {}; Ctrl-C to stop)",
        manifest.display(),
        out.display()
    );
    let result = watch.run(stop.clone(), |event| match event {
        WatchEvent::Baked { report, changed } => {
            let what = match (changed.is_empty(), report.baked.len()) {
                (true, _) => format!("baked {} assets", report.assets),
                (false, 0) if report.files_removed > 0 => {
                    format!("removed {} stale outputs", report.files_removed)
                }
                (false, 0) => "nothing to re-bake".to_owned(),
                (false, n) => format!("re-baked {n} of {} assets", report.assets),
            };
            let names = report
                .baked
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = report.baked.len().saturating_sub(5);
            outln!(
                "{what} in {} ms{}{}{}",
                report.elapsed.as_millis(),
                if names.is_empty() { "" } else { ": " },
                names,
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
            // Each error names its file already.
            for (_, error) in &report.failed {
                outln!("error: {error} (its last good output is kept)");
            }
        }
        WatchEvent::Failed { error, .. } => {
            outln!("error: {error} (the last good output is kept)");
        }
    });
    match result {
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        Ok(()) if stop.load(Ordering::Relaxed) => ExitCode::from(130),
        Ok(()) => ExitCode::SUCCESS,
    }
}

fn get(source: &Path, entry: &str, out: Option<&Path>, level: Option<u32>) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let bytes = match parse_hash_literal(entry) {
        Some(hash) => assets.get_by_hash(hash),
        None => assets.get(entry),
    }
    .map_err(|e| format!("{}: {e}", source.display()))?
    .ok_or_else(|| format!("{}: no entry `{entry}`", source.display()))?;
    write_entry(
        &bytes,
        &format!("{}: {entry}", source.display()),
        (out, &[source]),
        level,
    )
}

/// Writes an entry's bytes (or one mip level of them) to `out` (never one of `inputs`) or
/// stdout; `label` names the entry in errors.
fn write_entry(
    bytes: &[u8],
    label: &str,
    (out, inputs): (Option<&Path>, &[&Path]),
    level: Option<u32>,
) -> Result<(), String> {
    let bytes: std::borrow::Cow<'_, [u8]> = match level {
        Some(level) => mip_level(bytes, level)
            .map_err(|e| format!("{label}: {e}"))?
            .into(),
        None => bytes.into(),
    };
    match out {
        Some(path) => write_output(path, &bytes, inputs),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                // A closed pipe (`hearth get … | head -c 16`) is the reader's choice, not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
                _ => Ok(()),
            }
        }
    }
}

/// `hearth get BASE PATH --over PATCH …`: the entry through the layers (by path, `0x` hash or
/// `--name`), written as `get` writes it.
fn get_layered(
    base: &Path,
    over: &[PathBuf],
    (entry, name): (Option<&str>, Option<&str>),
    out: Option<&Path>,
    level: Option<u32>,
) -> Result<(), String> {
    let mut mount = hearth::LayeredPak::open(base).map_err(|e| e.to_string())?;
    for patch in over {
        mount.mount_file(patch).map_err(|e| e.to_string())?;
    }
    let files = std::iter::once(base)
        .chain(over.iter().map(PathBuf::as_path))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    let entry = match name {
        Some(name) => {
            let record = mount
                .lookup_name(name)
                .map_err(|e| format!("{files}: {e}"))?
                .ok_or_else(|| format!("{files}: no asset named `{name}`"))?;
            record.path.into_string()
        }
        None => entry.unwrap_or_default().to_owned(),
    };
    let bytes = match parse_hash_literal(&entry) {
        Some(hash) => mount.get_by_hash(hash),
        None => mount.get(&entry),
    }
    .map_err(|e| format!("{files}: {e}"))?
    .ok_or_else(|| format!("{files}: no entry `{entry}`"))?;
    let inputs: Vec<&Path> = std::iter::once(base)
        .chain(over.iter().map(PathBuf::as_path))
        .collect();
    write_entry(&bytes, &format!("{files}: {entry}"), (out, &inputs), level)
}

/// `hearth diff OLD NEW -o PATCH [--sign KEY] [--json]`.
fn diff(old: &Path, new: &Path, out: &Path, sign: Option<&Path>, json: bool) -> Result<(), String> {
    let key = sign
        .map(|key| SigningKey::load(key).map_err(|e| e.to_string()))
        .transpose()?;
    // An output folder stands for its one pack (`pack_file` names the folder otherwise).
    let open = |path: &Path| {
        let pack = hearth::read::layers::pack_file(path).map_err(|e| e.to_string())?;
        PakReader::open(pack).map_err(|e| format!("{}: {e}", path.display()))
    };
    let (old_pak, new_pak) = (open(old)?, open(new)?);
    let patch = hearth::bake::patch::diff(
        &old_pak,
        &old.display().to_string(),
        &new_pak,
        &new.display().to_string(),
        key.as_ref(),
    )
    .map_err(|e| e.to_string())?;
    write_output(out, &patch.bytes, &[old, new])?;
    let stats = &patch.stats;
    if json {
        let identity = hearth::format::hpatch::identity_hex;
        let report = json!({
            "patch": out.display().to_string(),
            "bytes": patch.bytes.len(),
            "signed": key.is_some(),
            "added": stats.added,
            "added_bytes": stats.added_bytes,
            "changed": stats.changed,
            "changed_bytes": stats.changed_bytes,
            "deleted": stats.deleted,
            "deleted_bytes": stats.deleted_bytes,
            "unchanged": stats.unchanged,
            "base_identity": identity(&patch.record.base),
            "result_identity": identity(&patch.record.result),
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).expect("JSON values serialize")
        );
    } else {
        outln!(
            "{}: {} ({} added, {} changed, {} deleted, {} unchanged{})",
            out.display(),
            human(patch.bytes.len() as u64),
            stats.added,
            stats.changed,
            stats.deleted,
            stats.unchanged,
            if key.is_some() { ", signed" } else { "" }
        );
    }
    Ok(())
}

/// `hearth get --name`: the file the name names, written as `get` writes a path's.
fn get_named(
    source: &Path,
    name: &str,
    out: Option<&Path>,
    level: Option<u32>,
) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let record = assets
        .lookup_name(name)
        .map_err(|e| format!("{}: {e}", source.display()))?
        .ok_or_else(|| format!("{}: no asset named `{name}`", source.display()))?;
    get(source, &record.path, out, level)
}

/// `hearth names`: every row of the name table, one per line (tab-separated) or as JSON.
fn names(source: &Path, json: bool) -> Result<(), String> {
    let assets = Assets::open(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let table = assets
        .names()
        .map_err(|e| format!("{}: {e}", source.display()))?;
    if json {
        let rows: Vec<Value> = table
            .iter()
            .map(|row| {
                json!({
                    "name": row.name,
                    "kind": row.kind.to_string(),
                    "path": row.path,
                    "hash": format!("{:016x}", row.hash),
                    "sub": row.sub,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&rows).expect("JSON values serialize");
        return print_text(&format!("{text}\n"));
    }
    let mut text = String::new();
    for row in table.iter() {
        let sub = row.sub.map(|s| format!("\t#{s}")).unwrap_or_default();
        text += &format!(
            "{}\t{}\t{}\t{:016x}{sub}\n",
            line_field(row.name),
            row.kind,
            line_field(row.path),
            row.hash
        );
    }
    print_text(&text)
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

/// Mip level `level` of the KTX2 file `bytes`, inflated when supercompressed.
fn mip_level(bytes: &[u8], level: u32) -> Result<Vec<u8>, String> {
    let stream = hearth::TextureStream::from_bytes(bytes).map_err(|e| match e {
        hearth::ReadError::BadMagic { .. } => "not a KTX2 texture (--level reads KTX2 only)".into(),
        e => format!("KTX2: {e}"),
    })?;
    if level >= stream.level_count() {
        return Err(format!(
            "no level {level}: the texture has {} levels (0 to {})",
            stream.level_count(),
            stream.level_count() - 1
        ));
    }
    Ok(stream
        .level(level)
        .map_err(|e| e.to_string())?
        .bytes
        .into_owned())
}

/// Writes the HTML report of `out` (with a bake's facts when given) to `file`, atomically.
fn write_report(
    out: &Path,
    bake: Option<&hearth::bake::Report>,
    file: &Path,
) -> Result<(), String> {
    let html = hearth::bake::report::html(out, bake)?;
    write_html(&html, file, &[out])
}

/// `hearth report OUT --timings TIMINGS -o FILE`: the report of `out` with the timeline of a
/// bake's `--timings` file.
fn report_with_timeline(out: &Path, timings: &Path, file: &Path) -> Result<(), String> {
    let (tasks, wall) = read_timings(timings)?;
    let html = hearth::bake::report::html_with_timeline(out, None, &tasks, wall)?;
    write_html(&html, file, &[out, timings])
}

/// Writes a report to `file` (never one of `inputs`), atomically.
fn write_html(html: &str, file: &Path, inputs: &[&Path]) -> Result<(), String> {
    write_output(file, html.as_bytes(), inputs)?;
    eprintln!("report: {}", file.display());
    Ok(())
}

/// The largest image side `hearth render` draws (the renderer's limit; without the renderer
/// the command only says how to get it).
#[cfg(feature = "render")]
const MAX_SIDE: u32 = hearth::render::MAX_SIDE;
#[cfg(not(feature = "render"))]
const MAX_SIDE: u32 = u32::MAX;

/// `WIDTHxHEIGHT`, each side 1 to the renderer's limit.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{text:?}: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let side = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=MAX_SIDE).contains(v))
            .ok_or_else(|| {
                format!("{text:?}: each side must be a whole number from 1 to {MAX_SIDE}")
            })
    };
    Ok((side(w)?, side(h)?))
}

#[cfg(not(feature = "render"))]
fn render(
    _: Option<&Path>,
    _: Option<&str>,
    _: Option<&Path>,
    _: &Path,
    _: (u32, u32),
) -> Result<(), String> {
    Err(
        "this hearth was built without the preview renderer: install it with the `full` \
         feature (or `render`)"
            .into(),
    )
}

#[cfg(feature = "render")]
fn render(
    target: Option<&Path>,
    mesh: Option<&str>,
    source: Option<&Path>,
    out: &Path,
    (width, height): (u32, u32),
) -> Result<(), String> {
    use hearth::render::{RenderScene, Renderer};
    let renderer = Renderer::new().map_err(|e| e.to_string())?;
    let (scene, what) = match (source, target, mesh) {
        (Some(model), _, _) => (
            RenderScene::from_source(model).map_err(|e| e.to_string())?,
            model.display().to_string(),
        ),
        (None, Some(target), Some(mesh)) => {
            let scene = if target.is_dir() {
                RenderScene::from_tree(target, mesh, renderer.samples_bc())
            } else {
                let pak = hearth::PakReader::open(target)
                    .map_err(|e| format!("{}: {e}", target.display()))?;
                RenderScene::from_pack(&pak, mesh, renderer.samples_bc())
            }
            .map_err(|e| format!("{}: {e}", target.display()))?;
            (scene, format!("{mesh} from {}", target.display()))
        }
        _ => return Err("give a pack or tree and a mesh path, or --source MODEL".into()),
    };
    let image = renderer
        .render(&scene, width, height)
        .map_err(|e| format!("{what}: {e}"))?;
    let inputs: Vec<&Path> = [source, target].into_iter().flatten().collect();
    write_output(out, &image.to_png(), &inputs)?;
    outln!(
        "rendered {what} ({} triangles) on {} -> {} ({width}x{height})",
        scene.indices.len() / 3,
        renderer.adapter_name(),
        out.display()
    );
    Ok(())
}

fn keygen(out: &Path) -> Result<(), String> {
    let key = SigningKey::generate().map_err(|e| e.to_string())?;
    key.write_pair(out).map_err(|e| e.to_string())?;
    outln!(
        "wrote {} (secret: keep it out of the repository) and {}.pub (key {})",
        out.display(),
        out.display(),
        key.public_key().fingerprint()
    );
    Ok(())
}

fn pack_verify(key_file: &Path, file: &Path, json: bool) -> Result<(), String> {
    let key = hearth::bake::signing::load_public_key(key_file).map_err(|e| e.to_string())?;
    let result = PakReader::open_signed(file, &key).and_then(|pak| {
        pak.verify()?;
        Ok(pak.len())
    });
    if json {
        let document = json!({
            "path": file.display().to_string(),
            "key": key.fingerprint(),
            "ok": result.is_ok(),
            "entries": result.as_ref().ok(),
            "error": result.as_ref().err().map(|e| e.to_string()),
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON values serialize")
        );
        return result
            .map(|_| ())
            .map_err(|_| "verification failed".to_owned());
    }
    let entries = result.map_err(|e| format!("{}: {e}", file.display()))?;
    outln!(
        "ok: {} is signed by key {} and all {entries} entries match",
        file.display(),
        key.fingerprint()
    );
    Ok(())
}

fn pack_info(file: &Path, json: bool) -> Result<(), String> {
    let pak = PakReader::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let layout = pack_layout(&pak).map_err(|e| format!("{}: {e}", file.display()))?;
    if json {
        return pack_info_json(file, &pak, &layout);
    }
    let total = pak.bytes().len() as u64;
    outln!(
        "{}: hpack v{}, {} entries, {}",
        file.display(),
        pak.version(),
        pak.len(),
        human(total)
    );
    if let Some(key) = pak.signer_key() {
        outln!(
            "  signed by key {} (unchecked here: `hearth pack verify --key KEY.pub`)",
            fingerprint(&key)
        );
    }
    let share = |b: u64| {
        if total == 0 {
            0.0
        } else {
            b as f64 * 100.0 / total as f64
        }
    };
    for (name, bytes) in [
        ("header", layout.header),
        ("tables", layout.tables),
        ("strings", layout.strings),
        ("payload", layout.payload),
        ("signature", layout.signature),
        ("padding", layout.padding),
    ] {
        outln!("  {name:<9} {:>12} {:>6.2}%", human(bytes), share(bytes));
    }
    outln!("  payload uncompressed: {}", human(layout.uncompressed));
    outln!();
    outln!(
        "  {:<10} {:>7} {:>12} {:>12}",
        "kind",
        "entries",
        "size",
        "stored"
    );
    for (kind, (count, size, stored)) in &layout.per_kind {
        outln!(
            "  {:<10} {count:>7} {:>12} {:>12}",
            kind.to_string(),
            human(*size),
            human(*stored)
        );
    }
    outln!();
    outln!(
        "  {:<10} {:>12} {:>12} {:<7} {:>10}  path",
        "kind",
        "size",
        "stored",
        "codec",
        "offset"
    );
    for entry in pak.entries() {
        let entry = entry.map_err(|e| format!("{}: {e}", file.display()))?;
        outln!(
            "  {:<10} {:>12} {:>12} {:<7} {:>10}  {}",
            entry.kind().to_string(),
            entry.size(),
            entry.stored_size(),
            entry.codec().name(),
            entry.offset(),
            entry.path()
        );
    }
    Ok(())
}

/// `pack info --json`: the same facts as the text, as one object.
fn pack_info_json(
    file: &Path,
    pak: &PakReader,
    layout: &hearth::read::inspect::PackLayout,
) -> Result<(), String> {
    let mut entries = Vec::with_capacity(pak.len());
    for entry in pak.entries() {
        let entry = entry.map_err(|e| format!("{}: {e}", file.display()))?;
        entries.push(json!({
            "path": entry.path(),
            "kind": entry.kind().0,
            "kind_name": entry.kind().name(),
            "size": entry.size(),
            "stored_size": entry.stored_size(),
            "codec": entry.codec().name(),
            "offset": entry.offset(),
        }));
    }
    let kinds: Vec<Value> = layout
        .per_kind
        .iter()
        .map(|(kind, (count, size, stored))| {
            json!({
                "kind": kind.0,
                "kind_name": kind.name(),
                "entries": count,
                "size": size,
                "stored_size": stored,
            })
        })
        .collect();
    let document = json!({
        "path": file.display().to_string(),
        "version": pak.version(),
        "size": pak.bytes().len(),
        "entry_count": pak.len(),
        "signer_key": pak.signer_key().map(|key| fingerprint(&key)),
        "layout": {
            "header": layout.header,
            "tables": layout.tables,
            "strings": layout.strings,
            "payload": layout.payload,
            "signature": layout.signature,
            "padding": layout.padding,
            "uncompressed": layout.uncompressed,
        },
        "kinds": kinds,
        "entries": entries,
    });
    outln!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON values serialize")
    );
    Ok(())
}

fn presets(manifest: &Path) -> Result<(), String> {
    let config = Config::load(manifest).map_err(|e| e.to_string())?;
    if config.presets.is_empty() {
        outln!("{} defines no presets", manifest.display());
    }
    for (name, preset) in &config.presets {
        let default = if config.default_preset.as_deref() == Some(name) {
            " (default)"
        } else {
            ""
        };
        let output = preset
            .output
            .as_deref()
            .map(|o| format!(" -> output `{o}`"))
            .unwrap_or_default();
        outln!("{name}{default}{output}");
    }
    Ok(())
}

/// `hearth bake`'s shared-cache line, when the shared cache did anything.
fn print_shared_cache(report: &hearth::bake::Report) {
    let (local, remote) = (
        report.shared_local_hits.len(),
        report.shared_remote_hits.len(),
    );
    if local + remote + report.shared_stored > 0 {
        outln!(
            "  shared cache: {local} from the local tier, {remote} from the remote tier, {} stored",
            report.shared_stored
        );
    }
}

/// `--max-size`: a size like 500M or 20G.
fn parse_cache_size(text: &str) -> Result<u64, String> {
    hearth::bake::shared_cache::local::parse_size(text)
}

/// `hearth cache stats | gc | clear`.
fn cache(command: CacheCommand) -> Result<(), String> {
    use hearth::bake::shared_cache::{self, local};
    let dir = std::env::var_os(shared_cache::ENV_DIR)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(shared_cache::default_local_dir)
        .ok_or("no cache folder: set HEARTH_CACHE_DIR (no home folder found)")?;
    match command {
        CacheCommand::Stats { json } => {
            let stats = local::stats(&dir)?;
            let age = |t: Option<std::time::SystemTime>| {
                t.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_secs())
            };
            if json {
                let document = json!({
                    "dir": dir.display().to_string(),
                    "objects": stats.objects,
                    "recipes": stats.recipes,
                    "bytes": stats.bytes,
                    "oldest_use_unix": age(stats.oldest_use),
                    "newest_use_unix": age(stats.newest_use),
                });
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&document).expect("JSON values serialize")
                );
            } else {
                outln!("local cache {}", dir.display());
                outln!(
                    "  {} objects, {} recipes, {}",
                    stats.objects,
                    stats.recipes,
                    human(stats.bytes)
                );
                let ago = |t: Option<std::time::SystemTime>| {
                    t.and_then(|t| t.elapsed().ok())
                        .map(|d| format!("{} s ago", d.as_secs()))
                        .unwrap_or_else(|| "never".to_owned())
                };
                outln!(
                    "  last use: oldest {}, newest {}",
                    ago(stats.oldest_use),
                    ago(stats.newest_use)
                );
            }
        }
        CacheCommand::Gc { max_size } => {
            let removed = local::gc(&dir, max_size)?;
            outln!(
                "removed {} files ({}); {} left in {}",
                removed.files,
                human(removed.bytes),
                human(removed.bytes_left),
                dir.display()
            );
        }
        CacheCommand::Clear => {
            let removed = local::clear(&dir)?;
            outln!(
                "removed {} files ({}) from {}",
                removed.files,
                human(removed.bytes),
                dir.display()
            );
        }
    }
    Ok(())
}

/// `hearth bake --timings FILE`: the bake's tasks as JSON, written atomically. Task seconds
/// are each task's own time on its thread (a task that forks is split into stretches, so no
/// second counts twice); `cpu_seconds` is their sum, the workers' busy time.
fn write_timings(report: &hearth::bake::Report, file: &Path) -> Result<(), String> {
    let tasks: Vec<Value> = report
        .tasks
        .iter()
        .map(|task| {
            json!({
                "name": task.name,
                "asset": task.asset,
                "start": task.start.as_secs_f64(),
                "seconds": task.elapsed.as_secs_f64(),
                "thread": task.thread,
            })
        })
        .collect();
    let busy: f64 = report.tasks.iter().map(|t| t.elapsed.as_secs_f64()).sum();
    let timings = json!({
        "tasks": tasks,
        "wall_seconds": report.elapsed.as_secs_f64(),
        "cpu_seconds": busy,
    });
    let text = serde_json::to_string_pretty(&timings).expect("JSON values serialize") + "\n";
    write_output(file, text.as_bytes(), &[])?;
    eprintln!("timings: {}", file.display());
    Ok(())
}

/// The most bytes of a `--timings` file `hearth report` reads.
const MAX_TIMINGS_BYTES: u64 = 256 << 20;

/// A `hearth bake --timings` file read back: its tasks and the bake's wall time.
fn read_timings(file: &Path) -> Result<(Vec<hearth::bake::timings::TaskTime>, Duration), String> {
    let fail = |why: String| format!("{}: {why}", file.display());
    // (A FIFO or a device is refused, not waited on.)
    let bytes = hearth::read::inspect::read_named_file(file, MAX_TIMINGS_BYTES)?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| fail(e.to_string()))?;
    let seconds = |v: Option<&Value>, what: &str| {
        v.and_then(Value::as_f64)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .ok_or_else(|| fail(format!("{what}: not a number of seconds")))
    };
    let wall = seconds(value.get("wall_seconds"), "wall_seconds")?;
    let list = value
        .get("tasks")
        .and_then(Value::as_array)
        .ok_or_else(|| fail("no \"tasks\" array".into()))?;
    let mut tasks = Vec::with_capacity(list.len());
    for (i, task) in list.iter().enumerate() {
        let text = |key: &str| {
            task.get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| fail(format!("task {i}: no \"{key}\" string")))
        };
        let thread = task
            .get("thread")
            .and_then(Value::as_u64)
            .filter(|t| *t < hearth::bake::MAX_JOBS as u64)
            .ok_or_else(|| fail(format!("task {i}: \"thread\" is not a worker number")))?;
        tasks.push(hearth::bake::timings::TaskTime {
            name: text("name")?,
            asset: text("asset")?,
            start: seconds(task.get("start"), &format!("task {i}: start"))?,
            elapsed: seconds(task.get("seconds"), &format!("task {i}: seconds"))?,
            thread: thread as usize,
        });
    }
    Ok((tasks, wall))
}
