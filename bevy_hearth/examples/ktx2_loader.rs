//! How long a pack's models take to load (their `#Scene`s with every dependency) with the
//! pack's `.ktx2` textures through `HearthKtx2Loader` against Bevy's own KTX2 loader, in fresh
//! headless apps for a device that samples BC, best of 3 a side. The loader splits UASTC
//! transcoding across Bevy's task pools, which are threads only with Bevy's `multi_threaded`
//! feature (a game's default):
//!
//! ```sh
//! cargo run -p bevy_hearth --release --features compare,bevy/multi_threaded \
//!     --example ktx2_loader -- PACK SOURCES
//! ```
//!
//! (`SOURCES` is the folder of the models' glTF sources, as for the `loadtime` example: the
//! models measured are the pack's `.hmesh`es whose source is there.)

use bevy::asset::{AssetPlugin, AssetServer, Handle, UntypedHandle};
use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats, ImageLoader};
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;
use bevy_hearth::HearthPlugin;
use std::path::Path;
use std::time::{Duration, Instant};

/// Seconds one fresh app takes to load `meshes`' scenes; with `hearth_loader` false the app
/// skips `Plugin::cleanup`, where `HearthPlugin` registers its KTX2 loader, so Bevy's loads
/// the textures.
fn load_time(pack: &Path, meshes: &[String], hearth_loader: bool) -> Result<f64, String> {
    let formats = CompressedImageFormats::BC;
    let mut app = App::new();
    let plugin = HearthPlugin::open(pack).map_err(|e| format!("{}: {e}", pack.display()))?;
    app.add_plugins((MinimalPlugins, plugin, AssetPlugin::default()));
    app.insert_resource(CompressedImageFormatSupport(formats));
    app.register_asset_loader(ImageLoader::new(formats));
    app.finish();
    if hearth_loader {
        app.cleanup();
    }
    app.update();
    let server = app.world().resource::<AssetServer>().clone();
    let start = Instant::now();
    let handles: Vec<UntypedHandle> = meshes
        .iter()
        .map(|mesh| {
            let scene: Handle<WorldAsset> = server.load(format!("hearth://{mesh}#Scene"));
            scene.untyped()
        })
        .collect();
    while !handles
        .iter()
        .all(|handle| server.is_loaded_with_dependencies(handle.id()))
    {
        if start.elapsed() > Duration::from_secs(300) {
            return Err("still loading after 300 s".into());
        }
        app.update();
        std::thread::sleep(Duration::from_micros(200));
    }
    Ok(start.elapsed().as_secs_f64())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pack, sources] = args.as_slice() else {
        return Err("usage: ktx2_loader PACK SOURCES".into());
    };
    let pairs = bevy_hearth::loadtime::model_pairs(Path::new(pack), Path::new(sources))
        .map_err(|e| e.to_string())?;
    let meshes: Vec<String> = pairs.into_iter().map(|pair| pair.mesh).collect();
    let (mut bevy_s, mut hearth_s) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        bevy_s = bevy_s.min(load_time(Path::new(pack), &meshes, false)?);
        hearth_s = hearth_s.min(load_time(Path::new(pack), &meshes, true)?);
    }
    println!(
        "{{\"models\": {}, \"bevy_loader_s\": {bevy_s:.6}, \"hearth_loader_s\": {hearth_s:.6}, \"speedup\": {:.3}}}",
        meshes.len(),
        bevy_s / hearth_s
    );
    Ok(())
}
