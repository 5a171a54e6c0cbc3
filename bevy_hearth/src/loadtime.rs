//! How long Bevy takes to load baked models from a pack through
//! [`HearthPlugin`], against their glTF sources through Bevy's own glTF
//! loader (feature `compare`). Each measurement runs in a fresh headless app (no window, no
//! GPU): the time from `AssetServer::load` of every model's scene until each is loaded with
//! all its dependencies. The `loadtime` example prints it as JSON.
//!
//! ```no_run
//! use bevy_hearth::loadtime::{measure, LoadTimeSettings};
//! use std::path::Path;
//!
//! let settings = LoadTimeSettings::default();
//! let times = measure(Path::new("out/assets.hpack"), Path::new("content"), &settings).unwrap();
//! println!("{}", times.json());
//! ```

use crate::HearthPlugin;
use bevy::app::App;
use bevy::asset::{
    AssetApp, AssetPath, AssetPlugin, AssetServer, Handle, LoadState, RecursiveDependencyLoadState,
    UntypedHandle,
};
use bevy::gltf::{GltfAssetLabel, GltfPlugin};
use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats, ImageLoader};
use bevy::prelude::MinimalPlugins;
use bevy::world_serialization::WorldAsset;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long one load may take before the measurement gives up.
const TIMEOUT: Duration = Duration::from_secs(600);

/// How [`measure`] loads.
#[derive(Clone, Debug)]
pub struct LoadTimeSettings {
    /// Runs per side; the best (shortest) counts.
    pub runs: usize,
    /// The compressed texture formats the device samples, as Bevy's renderer would report
    /// them: UASTC textures are transcoded to the best of them. The default is a desktop GPU's
    /// (BC): Bevy 0.19's own UASTC-to-RGBA8 path (no compressed format) panics.
    pub formats: CompressedImageFormats,
}

impl Default for LoadTimeSettings {
    fn default() -> Self {
        Self {
            runs: 3,
            formats: CompressedImageFormats::BC,
        }
    }
}

/// A baked model and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelPair {
    /// The `.hmesh`'s runtime path in the pack.
    pub mesh: String,
    /// The `.gltf` or `.glb` file's path under the sources folder, `/`-separated.
    pub source: String,
}

/// What [`measure`] found: how many models, and the best load time of each side.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadTimes {
    /// Models loaded on each side.
    pub models: usize,
    /// Best time to load them all from the pack.
    pub pack: Duration,
    /// Best time to load them all from their glTF sources.
    pub gltf: Duration,
}

impl LoadTimes {
    /// How many times longer the glTF sources take than the pack.
    pub fn ratio(&self) -> f64 {
        self.gltf.as_secs_f64() / self.pack.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// One JSON object: `{"models": N, "pack_s": …, "gltf_s": …, "ratio": …}`.
    pub fn json(&self) -> String {
        format!(
            "{{\"models\": {}, \"pack_s\": {:.6}, \"gltf_s\": {:.6}, \"ratio\": {:.3}}}",
            self.models,
            self.pack.as_secs_f64(),
            self.gltf.as_secs_f64(),
            self.ratio()
        )
    }
}

/// Why a measurement could not run.
#[derive(Debug)]
pub struct LoadTimeError(String);

impl std::fmt::Display for LoadTimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadTimeError {}

fn error(message: impl std::fmt::Display) -> LoadTimeError {
    LoadTimeError(message.to_string())
}

/// Every `.hmesh` in the pack at `pack` whose source is under `sources`: the same path with
/// `.gltf` or `.glb` for `.hmesh` (as a bake names its output), sorted by runtime path.
pub fn model_pairs(pack: &Path, sources: &Path) -> Result<Vec<ModelPair>, LoadTimeError> {
    let assets =
        hearth::Assets::open(pack).map_err(|e| error(format!("{}: {e}", pack.display())))?;
    let entries = assets
        .entries()
        .map_err(|e| error(format!("{}: {e}", pack.display())))?;
    let mut pairs: Vec<ModelPair> = entries
        .into_iter()
        .filter_map(|entry| {
            let stem = entry.path.strip_suffix(".hmesh")?;
            ["gltf", "glb"].into_iter().find_map(|ext| {
                let source = format!("{stem}.{ext}");
                sources.join(&source).is_file().then(|| ModelPair {
                    mesh: entry.path.clone(),
                    source,
                })
            })
        })
        .collect();
    pairs.sort_by(|a, b| a.mesh.cmp(&b.mesh));
    Ok(pairs)
}

/// Loads every model of `pack` whose source is under `sources` both ways, `settings.runs`
/// times each (alternating, each in a fresh app), and keeps each side's best time. An error
/// when no model pairs up, or a load fails.
pub fn measure(
    pack: &Path,
    sources: &Path,
    settings: &LoadTimeSettings,
) -> Result<LoadTimes, LoadTimeError> {
    let sources =
        std::path::absolute(sources).map_err(|e| error(format!("{}: {e}", sources.display())))?;
    let pairs = model_pairs(pack, &sources)?;
    if pairs.is_empty() {
        return Err(error(format!(
            "no model of {} has its .gltf or .glb source under {}",
            pack.display(),
            sources.display()
        )));
    }
    let (mut best_pack, mut best_gltf) = (Duration::MAX, Duration::MAX);
    for _ in 0..settings.runs.max(1) {
        best_pack = best_pack.min(time_pack(pack, &sources, &pairs, settings.formats)?);
        best_gltf = best_gltf.min(time_gltf(pack, &sources, &pairs, settings.formats)?);
    }
    Ok(LoadTimes {
        models: pairs.len(),
        pack: best_pack,
        gltf: best_gltf,
    })
}

/// The time one fresh app takes to load every pair's baked `#Scene` from the pack.
pub fn time_pack(
    pack: &Path,
    sources: &Path,
    pairs: &[ModelPair],
    formats: CompressedImageFormats,
) -> Result<Duration, LoadTimeError> {
    let mut app = headless_app(pack, sources, formats)?;
    let server = app.world().resource::<AssetServer>().clone();
    let start = Instant::now();
    let handles: Vec<(UntypedHandle, &str)> = pairs
        .iter()
        .map(|pair| {
            let path = format!("{}://{}#Scene", crate::DEFAULT_SOURCE, pair.mesh);
            let scene: Handle<WorldAsset> = server.load(path);
            (scene.untyped(), pair.mesh.as_str())
        })
        .collect();
    wait_loaded(&mut app, &handles, |i| {
        server.is_loaded_with_dependencies(handles[i].0.id())
    })?;
    Ok(start.elapsed())
}

/// The time one fresh app takes to load every pair's source through Bevy's glTF loader: its
/// first scene, and the file with everything it holds and refers to (its images, which the
/// scene reaches only through `StandardMaterial`s, made by Bevy's PBR plugin, which needs a
/// renderer).
///
/// A `.gltf` also counts as loaded once it is and each image file it names is either loaded
/// or held by nothing. Bevy's loader holds its images only until it returns, then through its
/// materials, so an image that only an extension Bevy drops refers to (`SheenCloth`'s sheen
/// texture) is held by nothing: with multi-threaded task pools its load can be cancelled
/// midway and leave the file's recursive state `Loading` for good. A game waits for no such
/// image either.
pub fn time_gltf(
    pack: &Path,
    sources: &Path,
    pairs: &[ModelPair],
    formats: CompressedImageFormats,
) -> Result<Duration, LoadTimeError> {
    // `images[i]`: the image files of `handles[i]` below (none for a scene).
    let mut images = Vec::with_capacity(pairs.len() * 2);
    for pair in pairs {
        images.extend([Vec::new(), image_files(sources, &pair.source)?]);
    }
    let mut app = headless_app(pack, sources, formats)?;
    let server = app.world().resource::<AssetServer>().clone();
    let start = Instant::now();
    let handles: Vec<(UntypedHandle, &str)> = pairs
        .iter()
        .flat_map(|pair| {
            let scene: Handle<WorldAsset> =
                server.load(GltfAssetLabel::Scene(0).from_asset(pair.source.clone()));
            let file: Handle<bevy::gltf::Gltf> = server.load(pair.source.clone());
            [
                (scene.untyped(), pair.source.as_str()),
                (file.untyped(), pair.source.as_str()),
            ]
        })
        .collect();
    let image_loaded = |path: &AssetPath| {
        server
            .get_handle_untyped(path)
            .is_none_or(|image| server.is_loaded_with_dependencies(image.id()))
    };
    wait_loaded(&mut app, &handles, |i| {
        let id = handles[i].0.id();
        server.is_loaded_with_dependencies(id)
            || (!images[i].is_empty() && server.is_loaded(id) && images[i].iter().all(image_loaded))
    })?;
    Ok(start.elapsed())
}

/// The image files a `.gltf` under `sources` names, as Bevy's loader resolves them; none for
/// a `.glb` (its images are in the file) or an image embedded as a data URI.
fn image_files(sources: &Path, source: &str) -> Result<Vec<AssetPath<'static>>, LoadTimeError> {
    if !source.ends_with(".gltf") {
        return Ok(Vec::new());
    }
    let path = sources.join(source);
    let bytes = std::fs::read(&path).map_err(|e| error(format!("{}: {e}", path.display())))?;
    let gltf = bevy::gltf::gltf::Gltf::from_slice(&bytes)
        .map_err(|e| error(format!("{}: {e}", path.display())))?;
    let file = AssetPath::parse(source);
    Ok(gltf
        .as_json()
        .images
        .iter()
        .filter_map(|image| image.uri.as_deref())
        .filter(|uri| !uri.starts_with("data:"))
        .filter_map(|uri| file.resolve_embed_str(uri).ok())
        .collect())
}

/// A headless app (no window, no renderer) serving `pack` as `hearth://` and the folder
/// `sources` as Bevy's default file source, with Bevy's glTF and image loaders for a device
/// that samples `formats`.
fn headless_app(
    pack: &Path,
    sources: &Path,
    formats: CompressedImageFormats,
) -> Result<App, LoadTimeError> {
    let plugin = HearthPlugin::open(pack).map_err(|e| error(format!("{}: {e}", pack.display())))?;
    // Bevy resolves a relative folder from the executable's.
    let sources =
        std::path::absolute(sources).map_err(|e| error(format!("{}: {e}", sources.display())))?;
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        plugin,
        AssetPlugin {
            file_path: sources.to_string_lossy().into_owned(),
            ..AssetPlugin::default()
        },
        GltfPlugin::default(),
    ));
    // What Bevy's renderer would insert: the glTF loader reads it in `finish`.
    app.insert_resource(CompressedImageFormatSupport(formats));
    app.register_asset_loader(ImageLoader::new(formats));
    app.finish();
    app.cleanup();
    // The startup schedules, before any load (as a game's loads come from its systems).
    app.update();
    Ok(app)
}

/// Runs `app` until `loaded(i)` holds for every handle `i`: Bevy's error naming the model
/// when one (or a dependency) fails, an error after [`TIMEOUT`].
fn wait_loaded(
    app: &mut App,
    handles: &[(UntypedHandle, &str)],
    loaded: impl Fn(usize) -> bool,
) -> Result<(), LoadTimeError> {
    let start = Instant::now();
    let server = app.world().resource::<AssetServer>().clone();
    loop {
        app.update();
        let mut done = true;
        for (i, (handle, what)) in handles.iter().enumerate() {
            if loaded(i) {
                continue;
            }
            done = false;
            if let Some(LoadState::Failed(e)) = server.get_load_state(handle.id()) {
                return Err(error(format!("{what}: {e}")));
            }
            if let Some(RecursiveDependencyLoadState::Failed(e)) =
                server.get_recursive_dependency_load_state(handle.id())
            {
                return Err(error(format!("{what}: a dependency failed: {e}")));
            }
        }
        if done {
            return Ok(());
        }
        if start.elapsed() > TIMEOUT {
            return Err(error(format!("still loading after {TIMEOUT:?}")));
        }
        // The loads run on Bevy's task pools: leave them the cores between polls.
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[cfg(test)]
mod tests {
    use super::image_files;
    use bevy::asset::AssetPath;

    #[test]
    fn a_gltf_names_its_image_files_as_bevy_resolves_them_and_a_glb_none() {
        let folder = tempfile::tempdir().unwrap();
        let sources = folder.path();
        std::fs::create_dir(sources.join("model")).unwrap();
        let gltf = r#"{"asset": {"version": "2.0"}, "images": [
            {"uri": "albedo.png"}, {"uri": "../shared/normal.png"},
            {"uri": "data:image/png;base64,AAAA"}, {"bufferView": 0, "mimeType": "image/png"}],
            "bufferViews": [{"buffer": 0, "byteLength": 4}],
            "buffers": [{"byteLength": 4, "uri": "data:application/octet-stream;base64,AAAAAA=="}]}"#;
        std::fs::write(sources.join("model/a.gltf"), gltf).unwrap();
        let images = image_files(sources, "model/a.gltf").unwrap();
        assert_eq!(
            images,
            [
                AssetPath::parse("model/albedo.png"),
                AssetPath::parse("shared/normal.png")
            ]
        );
        assert!(image_files(sources, "model/b.glb").unwrap().is_empty());
        let missing = image_files(sources, "model/missing.gltf").unwrap_err();
        assert!(missing.to_string().contains("missing.gltf"), "{missing}");
    }
}
