//! Meshes (`.hmesh`): described, counted, and checked with their companion `.hmat` and
//! `.hanim` the way assetc's check does.

use super::{KindTools, TreeCheck};
use crate::format::hman::AssetKind;
use crate::format::hman::MANIFEST_PATH;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::MESH,
    describe: Some(describe_hmesh),
    counts: Some(counts),
    check: Some(check),
};

/// A one-line description of an `.hmesh`: vertices, triangles, indices, meshlets, submeshes,
/// materials, LODs and bounds.
pub fn describe_hmesh(bytes: &[u8]) -> Result<String, ReadError> {
    let mesh = crate::read::mesh::MeshView::parse(bytes)?;
    let d = &mesh.desc;
    let lods = mesh.lods.as_ref().map(|l| l.header.lod_count).unwrap_or(0);
    let b = &mesh.bounds;
    Ok(format!(
        "{} verts, {} tris, {} idx (u{}), {} meshlets, {} submeshes, {} materials, {} LODs{}, bounds [{:.3} {:.3} {:.3}]..[{:.3} {:.3} {:.3}]",
        d.vertex_count,
        d.index_count / 3,
        d.index_count,
        d.index_width as u32 * 8,
        d.meshlet_count,
        d.submesh_count,
        d.material_count,
        lods,
        if mesh.skin.is_some() { ", skinned" } else { "" },
        b.aabb_min[0],
        b.aabb_min[1],
        b.aabb_min[2],
        b.aabb_max[0],
        b.aabb_max[1],
        b.aabb_max[2]
    ))
}

/// Checks a mesh and its companion material table the way assetc's check does: both valid,
/// the mesh's material count equal to the table's rows, every nonzero texture ref listed in the
/// manifest and present on disk.
fn check(tree: &TreeCheck<'_>, rel: &str, bytes: &[u8], problems: &mut Vec<String>) {
    if !rel.ends_with(".hmesh") {
        return;
    }
    let mesh = match crate::read::mesh::MeshView::parse(bytes) {
        Ok(mesh) => mesh,
        Err(e) => return problems.push(format!("`{rel}`: {e}")),
    };
    let anim_rel = format!("{}.hanim", rel.trim_end_matches(".hmesh"));
    if let Ok(anim) = tree.files.read(&anim_rel) {
        let joints = mesh.skeleton.as_ref().map(|s| s.len() as u32).unwrap_or(0);
        let targets = mesh
            .morph_targets
            .as_ref()
            .map(|m| m.targets.len() as u32)
            .unwrap_or(0);
        if let Err(e) = crate::read::animation::AnimClips::parse(&anim, joints, targets) {
            problems.push(format!(
                "`{anim_rel}`: {e} (`{rel}` has {joints} joints and {targets} morph targets)"
            ));
        }
    }
    let hmat_rel = format!("{}.hmat", rel.trim_end_matches(".hmesh"));
    let Ok(hmat) = tree.files.read(&hmat_rel) else {
        return problems.push(format!("`{rel}`: companion `{hmat_rel}` is missing"));
    };
    match crate::read::material::MaterialTable::parse(&hmat) {
        Err(e) => problems.push(format!("`{hmat_rel}`: {e}")),
        Ok(table) => {
            if table.rows.len() != mesh.materials.len() {
                problems.push(format!(
                    "`{hmat_rel}`: {} rows, but `{rel}` has {} materials",
                    table.rows.len(),
                    mesh.materials.len()
                ));
            }
            check_texture_refs(tree, &hmat_rel, &table, problems);
        }
    }
}

/// Every texture ref of a material table (rows and v2 properties) resolves through the
/// manifest to an existing file.
pub(super) fn check_texture_refs(
    tree: &TreeCheck<'_>,
    hmat_rel: &str,
    table: &crate::read::material::MaterialTable<'_>,
    problems: &mut Vec<String>,
) {
    for reference in table.texture_refs() {
        match tree.by_hash.get(&reference) {
            Some(path) if tree.files.has(path) => {}
            Some(path) => problems.push(format!("`{hmat_rel}`: texture `{path}` is missing")),
            None => problems.push(format!(
                "`{hmat_rel}`: texture ref {reference:#018x} is not in {MANIFEST_PATH}"
            )),
        }
    }
}

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    let mesh = crate::read::mesh::MeshView::parse(bytes)?;
    let d = &mesh.desc;
    Ok(vec![
        ("vertices", d.vertex_count.into()),
        ("indices", d.index_count.into()),
        ("triangles", (d.index_count / 3).into()),
        ("submeshes", d.submesh_count.into()),
        ("meshlets", d.meshlet_count.into()),
        ("materials", d.material_count.into()),
        (
            "joints",
            mesh.skeleton.as_ref().map_or(0, |s| s.len() as u64),
        ),
        (
            "lods",
            mesh.lods.as_ref().map_or(0, |l| l.header.lod_count.into()),
        ),
        (
            "shadow_vertices",
            mesh.shadow.as_ref().map_or(0, |s| s.positions.len() as u64),
        ),
        ("uv_sets", 1 + u64::from(mesh.uvs1.is_some())),
        ("colors", u64::from(mesh.colors.is_some())),
        (
            "morph_targets",
            mesh.morph_targets
                .as_ref()
                .map_or(0, |m| m.targets.len() as u64),
        ),
    ])
}
