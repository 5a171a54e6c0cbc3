//! Shaders: SPIR-V modules (checked by [`crate::format::spirv`]) and text shaders.

use super::{KindTools, TreeCheck};
use crate::format::hman::AssetKind;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::SHADER,
    describe: Some(describe_shader),
    counts: Some(counts),
    check: Some(check),
};

/// Whether `bytes` start like a SPIR-V module (its magic, in either byte order).
pub fn is_spirv(bytes: &[u8]) -> bool {
    let magic = crate::format::spirv::MAGIC;
    bytes.len() >= 4 && {
        let first = [bytes[0], bytes[1], bytes[2], bytes[3]];
        u32::from_le_bytes(first) == magic || u32::from_be_bytes(first) == magic
    }
}

/// A one-line description of a shader: a SPIR-V module's version and entry points
/// (`SPIR-V 1.0: vertex main`), or a text shader's line count.
pub fn describe_shader(bytes: &[u8]) -> Result<String, ReadError> {
    if !is_spirv(bytes) {
        let lines = bytes.iter().filter(|&&b| b == b'\n').count();
        return Ok(format!("text shader, {lines} lines"));
    }
    let info = crate::format::spirv::check(bytes).map_err(|_| ReadError::Invalid {
        what: "SPIR-V module",
    })?;
    let entries: Vec<String> = info
        .entry_points
        .iter()
        .map(|e| format!("{} {}", e.stage.name(), e.name))
        .collect();
    Ok(format!(
        "SPIR-V {}.{}: {}",
        info.version.0,
        info.version.1,
        entries.join(", ")
    ))
}

/// SPIR-V: `stages` (distinct execution models) and `entry_points`; text shaders: none.
fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    if !is_spirv(bytes) {
        return Ok(Vec::new());
    }
    let info = crate::format::spirv::check_read(bytes)?;
    let mut stages: Vec<_> = info.entry_points.iter().map(|e| e.stage).collect();
    stages.sort();
    stages.dedup();
    Ok(vec![
        ("stages", stages.len() as u64),
        ("entry_points", info.entry_points.len() as u64),
    ])
}

/// A `.spv` file is a whole, valid module.
fn check(_: &TreeCheck<'_>, rel: &str, bytes: &[u8], problems: &mut Vec<String>) {
    if rel.ends_with(".spv") {
        if let Err(e) = crate::format::spirv::check(bytes) {
            problems.push(format!("`{rel}`: {e}"));
        }
    }
}
