//! `hearth render`: a model drawn by the preview renderer (feature `render`).

use std::path::Path;

/// The largest image side `hearth render` draws (the renderer's limit; without the renderer
/// the command only says how to get it).
#[cfg(feature = "render")]
pub(crate) const MAX_SIDE: u32 = hearth::render::MAX_SIDE;

#[cfg(not(feature = "render"))]
pub(crate) const MAX_SIDE: u32 = u32::MAX;

/// `WIDTHxHEIGHT`, each side 1 to the renderer's limit.
pub(crate) fn parse_size(text: &str) -> Result<(u32, u32), String> {
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
pub(crate) fn render(
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
pub(crate) fn render(
    target: Option<&Path>,
    mesh: Option<&str>,
    source: Option<&Path>,
    out: &Path,
    (width, height): (u32, u32),
) -> Result<(), String> {
    use hearth::read::inspect::write_output;
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
