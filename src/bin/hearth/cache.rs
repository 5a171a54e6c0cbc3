//! `hearth cache`: the shared bake cache's statistics and garbage collection.

use crate::{human, CacheCommand};
use serde_json::json;
use std::path::PathBuf;

/// `--max-size`: a size like 500M or 20G.
pub(crate) fn parse_cache_size(text: &str) -> Result<u64, String> {
    hearth::bake::shared_cache::local::parse_size(text)
}

/// `hearth cache stats | gc | clear`.
pub(crate) fn cache(command: CacheCommand) -> Result<(), String> {
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
