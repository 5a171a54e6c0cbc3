//! Material tables (`.hmat`): described, counted, and a standalone table's texture refs
//! checked (a mesh's companion table is checked with its mesh).

use super::{KindTools, TreeCheck};
use crate::format::hman::AssetKind;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::MATERIAL,
    describe: Some(describe_hmat),
    counts: Some(counts),
    check: Some(check),
};

/// A one-line description of an `.hmat`: rows, texture-slot usage, alpha modes, double-sided.
pub fn describe_hmat(bytes: &[u8]) -> Result<String, ReadError> {
    let table = crate::read::material::MaterialTable::parse(bytes)?;
    let slots = ["baseColor", "metalRough", "normal", "occlusion", "emissive"];
    let used: Vec<String> = slots
        .iter()
        .enumerate()
        .map(|(i, name)| {
            (
                name,
                table
                    .rows
                    .iter()
                    .filter(|r| r.texture_refs()[i] != 0)
                    .count(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let modes = ["opaque", "mask", "blend"]
        .iter()
        .enumerate()
        .map(|(m, name)| {
            let n = table
                .rows
                .iter()
                .filter(|r| r.alpha_mode() == m as u32)
                .count();
            format!("{name} {n}")
        });
    Ok(format!(
        "{} materials; textures: {}; alpha: {}; double-sided {}",
        table.rows.len(),
        if used.is_empty() {
            "none".to_owned()
        } else {
            used.join(", ")
        },
        modes.collect::<Vec<_>>().join(", "),
        table.rows.iter().filter(|r| r.double_sided()).count()
    ))
}

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    let table = crate::read::material::MaterialTable::parse(bytes)?;
    Ok(vec![("materials", table.rows.len() as u64)])
}

/// A standalone material (no companion mesh, which checks it): its texture refs.
fn check(tree: &TreeCheck<'_>, rel: &str, bytes: &[u8], problems: &mut Vec<String>) {
    let companion = format!("{}.hmesh", rel.trim_end_matches(".hmat"));
    if !rel.ends_with(".hmat") || tree.listed.contains_key(companion.as_str()) {
        return;
    }
    match crate::read::material::MaterialTable::parse(bytes) {
        Ok(table) => super::mesh::check_texture_refs(tree, rel, &table, problems),
        Err(e) => problems.push(format!("`{rel}`: {e}")),
    }
}
