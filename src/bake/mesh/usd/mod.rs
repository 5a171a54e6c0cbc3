//! USD layers (`.usda`, `.usdc`, `.usd`, `.usdz`) as model sources: the stage composed by the
//! `openusd` crate (references, payloads, variants, inherits, instancing), read here into the
//! same [`Scene`] a glTF import gives, so every mesh setting applies unchanged.
//!
//! What openusd 0.6 leaves to its users is filled in beside it: transforms up the namespace
//! (`xform.rs`), primvars with their interpolation and indices (`geometry.rs`), the shading
//! network behind each material (`shading.rs`), skeletons (`skel.rs`), a resolver that keeps
//! every file inside the content root and records it as an input (`resolver.rs`), and bounds
//! on crate files' counts (`crate_bounds.rs`). The guide's page: [`crate::guide::usd`].

mod crate_bounds;
mod geometry;
mod resolver;
mod shading;
mod skel;
mod values;
mod xform;

use super::gltf::{Mat4, Scene};
use crate::bake::pipeline::{BakeContext, PipelineError};
use glam::{DMat4, DQuat, DVec3};
use openusd::sdf::Path;
use openusd::usd::{PrimPredicate, Stage};
use resolver::ConfinedResolver;
use std::path::PathBuf;

/// The file extensions read as USD.
pub const EXTENSIONS: [&str; 4] = ["usd", "usda", "usdc", "usdz"];

/// The most prims one import visits.
const MAX_PRIMS: usize = 1_000_000;

/// The most triangle corners one import produces (instancing multiplies geometry).
const MAX_CORNERS: usize = 1 << 28;

/// The most instances one PointInstancer expands.
const MAX_INSTANCES: usize = 1 << 20;

/// Whether `file_name` is a USD layer by its extension.
pub fn is_usd(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    EXTENSIONS.iter().any(|e| lower.ends_with(&format!(".{e}")))
}

/// What to import, and how.
#[derive(Debug, Clone, Copy)]
pub struct UsdOptions {
    /// The settings' transform, applied after the stage's units and up axis.
    pub user: Mat4,
    /// Read skeletons, skins and their animations.
    pub skins: bool,
}

/// Imports the USD layer `bytes` at `side_dir` + `file_name` (relative to the context's base);
/// every layer, payload and texture it opens is confined to the content root and recorded in
/// `cx`.
pub fn import(
    bytes: &[u8],
    file_name: &str,
    side_dir: &str,
    options: &UsdOptions,
    cx: &mut BakeContext<'_>,
) -> Result<Scene, PipelineError> {
    let name = std::path::Path::new(file_name)
        .file_name()
        .unwrap_or_default();
    let root_layer = resolver::normalize(&cx.base().join(side_dir).join(name));
    let resolver = ConfinedResolver::new(cx.root(), root_layer.clone(), bytes);
    let log = resolver.log();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        import_stage(&root_layer, resolver, options)
    }))
    .unwrap_or_else(|_| Err("the USD reader failed on this file (a panic, caught)".into()));
    let log = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
    for (path, digest) in log.inputs {
        cx.record_side_input(path, digest);
    }
    if let Some(first) = log.refused.first() {
        for more in &log.refused[1..] {
            let _ = cx.refuse(more.clone());
        }
        return Err(cx.refuse(first.clone()).into());
    }
    Ok(result?)
}

/// Imports one layer from memory alone (no other file resolves: references, payloads and
/// textures are missing), without catching panics: the fuzz target's way into the import's
/// parsing, composition and geometry on arbitrary bytes. `file_name`'s extension picks the
/// reader.
#[doc(hidden)]
pub fn import_detached(bytes: &[u8], file_name: &str) -> Result<Scene, String> {
    let root = PathBuf::from("/nonexistent-hearth-detached-root");
    let layer = root.join(file_name);
    let resolver = ConfinedResolver::new(&root, layer.clone(), bytes);
    let options = UsdOptions {
        user: Mat4::IDENTITY,
        skins: true,
    };
    import_stage(&layer, resolver, &options)
}

/// The stage's units and up axis as one matrix into hearth's space (Y up, metres).
fn stage_space(stage: &Stage) -> DMat4 {
    let meters = stage
        .stage_metadata("metersPerUnit")
        .ok()
        .flatten()
        .and_then(|v| values::scalar(&v))
        .filter(|m| m.is_finite() && *m > 0.0)
        // USD's fallback when unauthored: centimetres.
        .unwrap_or(0.01);
    let z_up = stage
        .stage_metadata("upAxis")
        .ok()
        .flatten()
        .and_then(|v| values::text(&v))
        .is_some_and(|axis| axis == "Z");
    let up = if z_up {
        // (x, y, z) -> (x, z, -y)
        DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2)
    } else {
        DMat4::IDENTITY
    };
    DMat4::from_scale(DVec3::splat(meters)) * up
}

/// The prims an import draws, found in one traversal.
#[derive(Default)]
struct Found {
    meshes: Vec<Path>,
    instancers: Vec<Path>,
    skipped_gprims: Vec<String>,
    visited: usize,
}

fn traverse(stage: &Stage) -> Result<Found, String> {
    let mut found = Found::default();
    // Instance proxies included (instanceable prims expanded); class, over and inactive
    // prims excluded, as OpenUSD's default predicate does.
    stage
        .traverse(PrimPredicate::DEFAULT_PROXIES, |path| {
            found.visited += 1;
            if found.visited > MAX_PRIMS {
                return;
            }
            let type_name = stage
                .prim(path.clone())
                .type_name()
                .ok()
                .flatten()
                .map(|t| t.as_str().to_string())
                .unwrap_or_default();
            match type_name.as_str() {
                "Mesh" => found.meshes.push(path.clone()),
                "PointInstancer" => found.instancers.push(path.clone()),
                "Cube" | "Sphere" | "Cylinder" | "Cone" | "Capsule" | "Plane" => {
                    found.skipped_gprims.push(format!("{path} ({type_name})"))
                }
                _ => {}
            }
        })
        .map_err(|e| format!("traversing the stage: {e}"))?;
    if found.visited > MAX_PRIMS {
        return Err(format!("the stage has more than {MAX_PRIMS} prims"));
    }
    Ok(found)
}

fn under(path: &Path, root: &Path) -> bool {
    let (p, r) = (path.as_str(), root.as_str());
    p == r || (p.starts_with(r) && p.as_bytes().get(r.len()) == Some(&b'/'))
}

fn import_stage(
    root_layer: &std::path::Path,
    resolver: ConfinedResolver,
    options: &UsdOptions,
) -> Result<Scene, String> {
    let root = root_layer.to_string_lossy().into_owned();
    let stage = Stage::builder()
        .resolver(resolver.clone())
        .open(&root)
        .map_err(|e| format!("{e:#}"))?;
    let space = options.user.as_dmat4() * stage_space(&stage);
    let found = traverse(&stage)?;
    let mut scene = Scene::default();
    let mut shading = shading::Shading::default();
    let mut xforms = xform::XformCache::default();
    let mut generated_normals = 0;
    let mut warnings = Vec::new();
    let mut corners = 0usize;
    {
        let mut cx = geometry::MeshContext {
            stage: &stage,
            resolver: &resolver,
            shading: &mut shading,
            warnings: &mut warnings,
            generated_normals: &mut generated_normals,
        };
        let mut skeletons = skel::Skins::new(&stage, options.skins);
        for mesh in &found.meshes {
            // Prototypes under a PointInstancer are drawn only by its instances.
            if found.instancers.iter().any(|i| under(mesh, i)) {
                continue;
            }
            // The skeleton's transform, its warnings kept beside the binding's.
            let mut xform_warnings = Vec::new();
            let mut world_of = |path: &Path| xforms.world(&stage, path, &mut xform_warnings);
            let skin = skeletons.binding(mesh, &mut world_of, cx.warnings);
            cx.warnings.append(&mut xform_warnings);
            let matrix = match &skin {
                // A skinned mesh stays in its bind space: the skeleton moves it.
                Some(binding) => space * binding.geom_bind,
                None => space * xforms.world(&stage, mesh, cx.warnings),
            };
            let mut parts = geometry::read_mesh(&mut cx, mesh, &matrix)
                .map_err(|why| format!("{mesh}: {why}"))?;
            if let Some(binding) = &skin {
                skeletons.skin(binding, mesh, &mut parts)?;
                skeletons.blend_shapes(mesh, &matrix, &mut parts, &mut scene)?;
            }
            push_all(&mut scene, parts, &mut corners)?;
        }
        for instancer in &found.instancers {
            let instances = instances(&stage, instancer, &found.meshes, &mut xforms, cx.warnings)?;
            for (mesh, local) in instances {
                let matrix = space * local;
                let parts = geometry::read_mesh(&mut cx, &mesh, &matrix)
                    .map_err(|why| format!("{mesh}: {why}"))?;
                push_all(&mut scene, parts, &mut corners)?;
            }
        }
        skeletons.finish(&mut scene, &space, cx.warnings)?;
    }
    if !found.skipped_gprims.is_empty() {
        warnings.push(format!(
            "{} implicit surface prims are not tessellated and were skipped: {}",
            found.skipped_gprims.len(),
            found.skipped_gprims.join(", ")
        ));
    }
    if generated_normals > 0 {
        warnings.push(format!(
            "{generated_normals} meshes have no normals (or none of a usable type); normals are generated"
        ));
    }
    let subdivided = found
        .meshes
        .iter()
        .filter(|m| is_subdivided(&stage, m))
        .count();
    if subdivided > 0 {
        warnings.push(format!(
            "{subdivided} meshes ask for subdivision; they are drawn as their control cage"
        ));
    }
    scene.materials = shading.materials;
    scene.images = shading.images;
    scene.warnings = shading.warnings;
    scene.warnings.extend(warnings);
    Ok(scene)
}

fn push_all(
    scene: &mut Scene,
    parts: Vec<geometry::Part>,
    corners: &mut usize,
) -> Result<(), String> {
    for geometry::Part { primitive: p, .. } in parts {
        *corners = corners.saturating_add(p.indices.len());
        if *corners > MAX_CORNERS {
            return Err(format!(
                "the stage's geometry has more than {MAX_CORNERS} triangle corners"
            ));
        }
        scene.primitives.push(p);
    }
    Ok(())
}

/// Whether a mesh asks for subdivision (USD's fallback scheme is Catmull-Clark).
fn is_subdivided(stage: &Stage, mesh: &Path) -> bool {
    values::prim_value(stage, mesh, "subdivisionScheme")
        .and_then(|v| values::text(&v))
        .is_none_or(|scheme| scheme != "none")
}

/// Every (mesh, matrix into the stage's space) a PointInstancer draws: each instance's
/// prototype subtree, placed by its position, orientation and scale.
fn instances(
    stage: &Stage,
    instancer: &Path,
    meshes: &[Path],
    xforms: &mut xform::XformCache,
    warnings: &mut Vec<String>,
) -> Result<Vec<(Path, DMat4)>, String> {
    let read = |name: &str| values::prim_value(stage, instancer, name);
    let prototypes = instancer
        .append_property("prototypes")
        .ok()
        .and_then(|rel| stage.relationship(rel).targets().ok())
        .unwrap_or_default();
    let proto_indices = read("protoIndices")
        .and_then(|v| values::ints(&v))
        .unwrap_or_default();
    if proto_indices.len() > MAX_INSTANCES {
        return Err(format!("{instancer}: more than {MAX_INSTANCES} instances"));
    }
    let positions = read("positions")
        .and_then(|v| values::vec3s(&v))
        .unwrap_or_default();
    let orientations = read("orientations")
        .and_then(|v| values::quats(&v))
        .unwrap_or_default();
    let scales = read("scales")
        .and_then(|v| values::vec3s(&v))
        .unwrap_or_default();
    let hidden: Vec<i64> = read("invisibleIds")
        .and_then(|v| values::ints(&v))
        .unwrap_or_default();
    let instancer_world = xforms.world(stage, instancer, warnings);
    let mut out = Vec::new();
    for (i, &proto) in proto_indices.iter().enumerate() {
        if hidden.contains(&(i as i64)) {
            continue;
        }
        let Some(prototype) = usize::try_from(proto).ok().and_then(|p| prototypes.get(p)) else {
            warnings.push(format!(
                "{instancer}: instance {i} names prototype {proto}, which does not exist"
            ));
            continue;
        };
        let Some(position) = positions.get(i) else {
            warnings.push(format!(
                "{instancer}: instance {i} has no position; skipped"
            ));
            continue;
        };
        let rotation = orientations.get(i).map_or(DQuat::IDENTITY, |q| {
            DQuat::from_xyzw(q[0] as f64, q[1] as f64, q[2] as f64, q[3] as f64).normalize()
        });
        let scale = scales
            .get(i)
            .map_or(DVec3::ONE, |s| DVec3::from(s.map(f64::from)));
        let placed = instancer_world
            * DMat4::from_scale_rotation_translation(
                scale,
                rotation,
                DVec3::from(position.map(f64::from)),
            );
        // The prototype keeps its own transform, not its ancestors'.
        let above = prototype.parent().map_or(DMat4::IDENTITY, |parent| {
            xforms.world(stage, &parent, warnings)
        });
        let above_inverse = above.inverse();
        for mesh in meshes.iter().filter(|m| under(m, prototype)) {
            let relative = above_inverse * xforms.world(stage, mesh, warnings);
            out.push((mesh.clone(), placed * relative));
        }
    }
    Ok(out)
}
