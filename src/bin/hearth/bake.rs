//! `hearth bake`, `watch`, `init` and `presets`: a bake and what it prints.

use crate::inspect::write_report;
use crate::shard::{
    list as list_shard, print_json, print_json_error, print_shard_summary, read_balance,
    shard_count,
};
use crate::{human, BakeTarget};
use hearth::bake::shard::Shard;
use hearth::bake::signing::SigningKey;
use hearth::bake::watch::WatchEvent;
use hearth::bake::{Baker, Config, Progress};
use hearth::read::inspect::{check_output, pack_layout, write_output};
use hearth::{AssetKind, PakReader};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The manifest `hearth init` writes: one group of the usual source kinds.
pub(crate) const STARTER: &str = r#"# hearth manifest: https://docs.rs/hearth-assets/latest/hearth/guide/manifest/index.html
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

/// `hearth bake`'s flags.
pub(crate) struct BakeOptions {
    pub(crate) preset: Option<String>,
    pub(crate) jobs: Option<usize>,
    pub(crate) use_cache: bool,
    pub(crate) pack_only: bool,
    pub(crate) keep_going: bool,
    pub(crate) verify: bool,
    pub(crate) quiet: bool,
    pub(crate) sign: Option<PathBuf>,
    pub(crate) report: Option<PathBuf>,
    pub(crate) timings: Option<PathBuf>,
    pub(crate) distributed: Distributed,
}

/// `hearth bake`'s flags for one bake on many machines, and `--json`.
#[derive(clap::Args)]
pub(crate) struct Distributed {
    /// Bake shard K of N only, into the shared cache (a remote tier, or HEARTH_CACHE_DIR on a
    /// shared file system); writes no output. `auto`: from the scheduler's environment
    /// (HEARTH_SHARD=K/N, or JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, CI_NODE_INDEX,
    /// CIRCLE_NODE_INDEX, BUILDKITE_PARALLEL_JOB with HEARTH_SHARDS=N).
    #[arg(long, value_name = "K/N|auto", value_parser = crate::shard::parse_shard)]
    pub(crate) shard: Option<Shard>,
    /// With --shard: print the shard's assets (source paths relative to the manifest, one a
    /// line; with --json one object) and bake nothing.
    #[arg(long, requires = "shard")]
    pub(crate) list: bool,
    /// Partition by the seconds an earlier bake's --timings file recorded (longest first)
    /// instead of source sizes; give every shard and the assemble step the same file.
    #[arg(long, value_name = "TIMINGS.json")]
    pub(crate) balance: Option<PathBuf>,
    /// Assemble from the caches only: fail before writing anything, naming every asset no
    /// cache holds (and its shard, with --shards N or HEARTH_SHARDS).
    #[arg(long, conflicts_with = "shard")]
    pub(crate) require_hits: bool,
    /// The number of shards the assets were baked in (default HEARTH_SHARDS): with
    /// --require-hits, each missing asset names its shard.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) shards: Option<u64>,
    /// Print one JSON object on stdout at the end (assets, baked, incremental_hits,
    /// local_hits, remote_hits, stored, warnings, seconds; on failure missing or errors).
    #[arg(long)]
    pub(crate) json: bool,
}

/// `hearth bake MANIFEST -o OUT`: bakes, prints the summary, and verifies, reports or
/// records timings as asked.
pub(crate) fn bake(manifest: &Path, out: &Path, options: BakeOptions) -> Result<(), String> {
    let json = options.distributed.json && !options.distributed.list;
    let mut summed_up = false;
    let result = bake_and_sum_up(manifest, out, options, &mut summed_up);
    // `--json` prints one object whatever failed, even before the bake began.
    if let (true, false, Err(message)) = (json, summed_up, &result) {
        print_json_error(message);
    }
    result
}

/// [`bake`]; `summed_up` is set once the `--json` object is printed.
fn bake_and_sum_up(
    manifest: &Path,
    out: &Path,
    options: BakeOptions,
    summed_up: &mut bool,
) -> Result<(), String> {
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
        distributed,
    } = options;
    let Distributed {
        shard,
        list,
        balance,
        require_hits,
        shards,
        json,
    } = distributed;
    if shard.is_some() && (verify || report_file.is_some()) {
        return Err(
            "a shard writes no output: --verify and --report belong to the assemble step".into(),
        );
    }
    let quiet = quiet || json || list;
    let bar = progress_bar(quiet);
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
    if let Some(file) = &balance {
        baker.balance(read_balance(file)?);
    }
    if let Some(n) = shard_count(shards.map(|n| n as usize))? {
        baker.shards(n);
    }
    baker.require_hits(require_hits);
    match (shard, list) {
        (Some(shard), true) => return list_shard(&baker, shard, json),
        (None, true) => return Err("--list lists a shard's assets: give --shard K/N".into()),
        (Some(shard), false) => {
            baker.shard(shard.index(), shard.count());
        }
        (None, false) => {}
    }
    let warned = show_progress(&mut baker, &bar);
    let started = std::time::Instant::now();
    let result = baker.run();
    bar.finish_and_clear();
    if json {
        let seconds = started.elapsed().as_secs_f64();
        print_json(&result, warned.load(Ordering::Relaxed), seconds);
        *summed_up = true;
    }
    let report = result.map_err(|e| e.to_string())?;
    if !quiet && report.shard.is_some() {
        print_shard_summary(manifest, &report);
    } else if !quiet {
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
    if !quiet && report.shard.is_none() {
        print_next_commands(&report);
    }
    Ok(())
}

/// Shows the bake's progress on `bar` and its warnings on stderr above it; returns the count
/// of warnings, which the callbacks keep.
fn show_progress(baker: &mut Baker, bar: &ProgressBar) -> Arc<AtomicUsize> {
    let warned = Arc::new(AtomicUsize::new(0));
    let counter = warned.clone();
    let warn_bar = bar.clone();
    baker.on_warning(move |w| {
        counter.fetch_add(1, Ordering::Relaxed);
        warn_bar.suspend(|| eprintln!("warning: {w}"))
    });
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
    warned
}

/// The bake's progress bar on stderr (hidden when quiet).
fn progress_bar(quiet: bool) -> ProgressBar {
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
    bar
}

/// Where a bake's assets came from, adding up to the asset count: `3 from the cache, 1 from
/// the shared cache, 1 baked` (the shared cache's tiers named when both gave some).
pub(crate) fn origins(report: &hearth::bake::Report) -> String {
    let (local, remote) = (
        report.shared_local_hits.len(),
        report.shared_remote_hits.len(),
    );
    let mut parts = vec![format!("{} from the cache", report.cache_hits)];
    match (local, remote) {
        (0, 0) => {}
        (n, 0) => parts.push(format!("{n} from the shared cache")),
        (0, n) => parts.push(format!("{n} from the shared cache's remote tier")),
        (l, r) => parts.push(format!(
            "{} from the shared cache ({l} local, {r} remote)",
            l + r
        )),
    }
    parts.push(format!("{} baked", report.baked.len()));
    parts.join(", ")
}

/// What a bake made, in words: by kind, where, the pack's size and codecs and the warnings
/// (the commands that look further come last, after the shared cache's and verify's lines).
pub(crate) fn print_bake_summary(manifest: &Path, report: &hearth::bake::Report) {
    outln!(
        "baked {} assets of {} in {:.2?} ({}){}",
        report.assets,
        manifest.display(),
        report.elapsed,
        origins(report),
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
}

/// The summary's last lines: the commands that look further at what the bake wrote.
fn print_next_commands(report: &hearth::bake::Report) {
    let program = invoked_program();
    let out_dir = shell_word(&report.out_dir.display().to_string());
    let next = [
        (
            format!("{program} info {out_dir}"),
            "every file, its kind and size",
        ),
        (
            format!(
                "{program} pack info {}",
                shell_word(&report.pack_path.display().to_string())
            ),
            "the pack's layout and entries",
        ),
        (
            format!("{program} report {out_dir} -o report.html"),
            "an HTML report (thumbnails, vertex counts, hashes)",
        ),
    ];
    // Each line pastes into a shell as printed: the command, then its purpose as a comment.
    let width = next
        .iter()
        .map(|(command, _)| command.len())
        .max()
        .unwrap_or(0);
    outln!("next:");
    for (command, purpose) in next {
        outln!("  {command:<width$}  # {purpose}");
    }
}

/// This program as the user ran it, for the commands the bake summary suggests: `hearth` when
/// the shell found it on PATH (its first argument has no folder), else the running binary's
/// path, relative to the working folder when under it (`target/debug/hearth` after `cargo
/// run`, which puts nothing on PATH), so that every suggested line runs where it was printed.
fn invoked_program() -> String {
    let first = std::env::args_os().next().unwrap_or_default();
    let has_folder = Path::new(&first)
        .parent()
        .is_some_and(|parent| !parent.as_os_str().is_empty());
    if !has_folder {
        return "hearth".into();
    }
    let Ok(exe) = std::env::current_exe() else {
        return shell_word(&first.to_string_lossy());
    };
    let here = std::env::current_dir().unwrap_or_default();
    let shown = exe.strip_prefix(&here).unwrap_or(&exe);
    shell_word(&shown.display().to_string())
}

/// `text` as one POSIX shell word: as is when it holds only characters no shell treats
/// specially, else single-quoted.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    match !text.is_empty() && text.chars().all(plain) {
        true => text.to_owned(),
        false => format!("'{}'", text.replace('\'', "'\\''")),
    }
}

/// `hearth init [PATH]`: writes a starter manifest, never over an existing file.
pub(crate) fn init(path: &Path) -> Result<(), String> {
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

/// `hearth watch`: one line per bake on stdout, errors on stderr; exits 130 on Ctrl-C.
pub(crate) fn watch(target: BakeTarget) -> ExitCode {
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

/// `hearth presets MANIFEST`: the manifest's presets and where each bakes to.
pub(crate) fn presets(manifest: &Path, json: bool) -> Result<(), String> {
    let config = Config::load(manifest).map_err(|e| e.to_string())?;
    if json {
        let presets: Vec<serde_json::Value> = config
            .presets
            .iter()
            .map(|(name, preset)| {
                serde_json::json!({
                    "name": name,
                    "default": config.default_preset.as_deref() == Some(name),
                    "output": preset.output,
                })
            })
            .collect();
        let document =
            serde_json::json!({ "manifest": manifest.display().to_string(), "presets": presets });
        outln!(
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON values serialize")
        );
        return Ok(());
    }
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
pub(crate) fn print_shared_cache(report: &hearth::bake::Report) {
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

/// `hearth bake --timings FILE`: the bake's tasks as JSON, written atomically. Task seconds
/// are each task's own time on its thread (a task that forks is split into stretches, so no
/// second counts twice); `cpu_seconds` is their sum, the workers' busy time.
pub(crate) fn write_timings(report: &hearth::bake::Report, file: &Path) -> Result<(), String> {
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
pub(crate) const MAX_TIMINGS_BYTES: u64 = 256 << 20;

/// A `hearth bake --timings` file read back: its tasks and the bake's wall time.
pub(crate) fn read_timings(
    file: &Path,
) -> Result<(Vec<hearth::bake::timings::TaskTime>, Duration), String> {
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
