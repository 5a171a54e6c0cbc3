//! Scenes (`.hscene`): refs placing meshes and materials, geometry records.

use super::{KindTools, TreeCheck};
use crate::format::hman::AssetKind;
use crate::format::hman::MANIFEST_PATH;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::SCENE,
    describe: Some(describe_scene),
    counts: Some(counts),
    check: Some(check),
};

/// A one-line description of an `.hscene`: its refs (with how many place meshes) and
/// geometry records.
pub fn describe_scene(bytes: &[u8]) -> Result<String, ReadError> {
    let scene = crate::read::scene::SceneView::parse(bytes)?;
    let meshes = scene.refs().filter(|r| r.mesh().is_some()).count();
    Ok(format!(
        "{} refs ({meshes} placing meshes), {} geometry",
        scene.ref_count(),
        scene.geometry_count()
    ))
}

/// A baked scene: it parses, and every mesh and material it places is in the tree.
fn check(tree: &TreeCheck<'_>, rel: &str, bytes: &[u8], problems: &mut Vec<String>) {
    if !rel.ends_with(".hscene") {
        return;
    }
    let scene = match crate::read::scene::SceneView::parse(bytes) {
        Ok(scene) => scene,
        Err(e) => return problems.push(format!("`{rel}`: {e}")),
    };
    for (index, placed) in scene.refs().enumerate() {
        for hash in placed.mesh().into_iter().chain(placed.materials()) {
            match tree.by_hash.get(&hash) {
                Some(path) if tree.files.has(path) => {}
                Some(path) => problems.push(format!("`{rel}`: ref {index}: `{path}` is missing")),
                None => problems.push(format!(
                    "`{rel}`: ref {index}: {hash:#018x} is not in {MANIFEST_PATH}"
                )),
            }
        }
    }
}

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    let scene = crate::read::scene::SceneView::parse(bytes)?;
    Ok(vec![
        ("refs", scene.ref_count() as u64),
        ("geometry", scene.geometry_count() as u64),
    ])
}
