//! `hearth bake --shard`, `--list`, `--balance`, `--require-hits` and `--json`: one bake on
//! many machines, and the one-object summary CI scripts read.

use crate::bake::read_timings;
use hearth::bake::shard::{Balance, Shard, ENV_SHARDS};
use hearth::bake::{BakeError, Baker, Report};
use serde_json::{json, Value};
use std::path::Path;

/// `--shard K/N` or `--shard auto` (the scheduler's environment).
pub(crate) fn parse_shard(text: &str) -> Result<Shard, String> {
    match text.trim() {
        "auto" => Shard::from_env(|name| std::env::var(name).ok()),
        text => Shard::parse(text),
    }
}

/// `--shards N`, else `HEARTH_SHARDS`: the partition an assemble names missing assets by.
pub(crate) fn shard_count(given: Option<usize>) -> Result<Option<usize>, String> {
    if given.is_some() {
        return Ok(given);
    }
    match std::env::var(ENV_SHARDS) {
        Ok(text) if !text.trim().is_empty() => match text.trim().parse() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => Err(format!("{ENV_SHARDS}={text:?}: not a number of shards")),
        },
        _ => Ok(None),
    }
}

/// `--balance TIMINGS.json`: the seconds per asset of an earlier bake's `--timings` file.
pub(crate) fn read_balance(file: &Path) -> Result<Balance, String> {
    let (tasks, _) = read_timings(file)?;
    Ok(Balance::from_tasks(&tasks))
}

/// `--shard K/N --list`: shard K's assets, one source path per line, or with `json` one
/// object `{"shard", "shards", "unit", "cost", "assets": [{"path", "cost"}]}`.
pub(crate) fn list(baker: &Baker, shard: Shard, json: bool) -> Result<(), String> {
    let partition = baker.partition(shard.count()).map_err(|e| e.to_string())?;
    let assets: Vec<_> = partition.assets_of(shard.index()).collect();
    if !json {
        for asset in assets {
            outln!("{}", asset.path);
        }
        return Ok(());
    }
    let bytes = partition.unit() == hearth::bake::shard::CostUnit::Bytes;
    // Bytes are whole numbers; seconds keep their fraction.
    let cost = |c: f64| match bytes {
        true => json!(c as u64),
        false => json!(c),
    };
    let document = json!({
        "shard": shard.index(),
        "shards": shard.count(),
        "unit": partition.unit().name(),
        "cost": cost(partition.cost_of(shard.index())),
        "assets": assets
            .iter()
            .map(|a| json!({"path": a.path, "cost": cost(a.cost)}))
            .collect::<Vec<Value>>(),
    });
    outln!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON values serialize")
    );
    Ok(())
}

/// `hearth bake --json`: one object on stdout at the end of any bake, for CI scripts.
/// `warnings` counts the warnings reported (the report's, or on failure the callback's).
pub(crate) fn print_json(result: &Result<Report, BakeError>, warnings: usize, seconds: f64) {
    let document = match result {
        Ok(report) => json!({
            "ok": true,
            "shard": report.shard.map(|s| s.to_string()),
            "assets": report.assets,
            "baked": report.baked.len(),
            "incremental_hits": report.cache_hits,
            "local_hits": report.shared_local_hits.len(),
            "remote_hits": report.shared_remote_hits.len(),
            "stored": report.shared_stored,
            "pack_entries": report.pack_entries,
            "pack_entries_copied": report.pack_entries_copied,
            "warnings": report.warnings.len(),
            "seconds": report.elapsed.as_secs_f64(),
            "out_dir": report.shard.is_none().then(|| report.out_dir.display().to_string()),
        }),
        Err(BakeError::Missing(missing)) => json!({
            "ok": false,
            "error": format!("{} assets are in no cache", missing.len()),
            "missing": missing
                .iter()
                .map(|m| json!({"path": m.path, "shard": m.shard.map(|s| s.index())}))
                .collect::<Vec<Value>>(),
            "warnings": warnings,
            "seconds": seconds,
        }),
        Err(error) => {
            let errors: Vec<String> = match error {
                BakeError::Failed(list) => list.iter().map(ToString::to_string).collect(),
                other => vec![other.to_string()],
            };
            json!({
                "ok": false,
                "error": error.to_string(),
                "errors": errors,
                "warnings": warnings,
                "seconds": seconds,
            })
        }
    };
    outln!(
        "{}",
        serde_json::to_string(&document).expect("JSON values serialize")
    );
}

/// `hearth bake --json` when the bake did not begin (a bad flag value, an unreadable
/// `--balance` file): the error alone.
pub(crate) fn print_json_error(message: &str) {
    let document = json!({"ok": false, "error": message, "errors": [message]});
    outln!(
        "{}",
        serde_json::to_string(&document).expect("JSON values serialize")
    );
}

/// A shard's summary in words.
pub(crate) fn print_shard_summary(manifest: &Path, report: &Report) {
    let shard = report.shard.map(|s| s.to_string()).unwrap_or_default();
    outln!(
        "shard {shard} of {}: {} assets in {:.2?} ({} baked and stored, {} already in the local \
         tier, {} in the remote tier); no output written",
        manifest.display(),
        report.assets,
        report.elapsed,
        report.shared_stored,
        report.shared_local_hits.len(),
        report.shared_remote_hits.len(),
    );
    outln!("  warnings: {}", report.warnings.len());
}
