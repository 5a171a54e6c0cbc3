//! Reads the pack that build.rs baked and prints what it finds.
//!
//! `hearth-example-game [--watch] [PACK]`: a release build embeds the pack (`load_pak!`); a
//! debug build maps the pack build.rs baked from disk, so an art change re-baked by
//! `bake-watch` needs no recompile. `PACK` reads another pack file instead. `--watch`
//! (feature `hot-reload`) then follows the pack and prints what each bake changed.

mod level;

use hearth::{hash_asset_ref, Ktx2, MeshView, PakReader, ReadError};

fn main() -> Result<(), ReadError> {
    let mut watch = false;
    let mut pack_path = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--watch" => watch = true,
            _ => pack_path = Some(arg),
        }
    }
    let pak: PakReader = match &pack_path {
        Some(path) => PakReader::open(path)?,
        None => hearth::load_pak!(env!("HEARTH_PACK"))?,
    };
    let source = match (&pack_path, cfg!(debug_assertions)) {
        (Some(_), _) | (None, true) => "mapped",
        (None, false) => "embedded",
    };
    println!(
        "{source} pack: v{}, {} entries, {} bytes",
        pak.version(),
        pak.len(),
        pak.bytes().len()
    );
    for entry in pak.entries() {
        let entry = entry?;
        println!(
            "  {:<28} {:<9} {:>6} B (stored {:>6} B, {})",
            entry.path(),
            entry.kind().to_string(),
            entry.size(),
            entry.stored_size(),
            entry.codec().name()
        );
    }

    // By path: stored entries are borrowed straight from the binary, compressed ones decoded.
    let hello = pak
        .get("text/hello.txt")?
        .expect("text/hello.txt is in the pack");
    println!(
        "text/hello.txt says: {}",
        String::from_utf8_lossy(&hello).trim()
    );

    // By 64-bit asset hash, resolved through assets.hman.
    let hash = hash_asset_ref("data/levels/level2.json");
    let record = pak.resolve(hash)?.expect("level2 is in the manifest");
    let level = pak.get_by_hash(hash)?.expect("level2 is in the pack");
    println!(
        "asset {hash:#018x} -> {} ({}, {} bytes)",
        record.path,
        record.kind,
        level.len()
    );

    // Textures: a KTX2 view gives what an upload needs, without another crate.
    let bricks = pak
        .get("textures/bricks.ktx2")?
        .expect("bricks are in the pack");
    let ktx = Ktx2::parse(&bricks)?;
    println!(
        "textures/bricks.ktx2: {}x{}, {} mips, {}, {}",
        ktx.width(),
        ktx.height(),
        ktx.level_count(),
        if ktx.is_uastc() { "UASTC" } else { "raw" },
        if ktx.is_srgb() { "sRGB" } else { "linear" }
    );

    // The game's own kind, baked by the pipeline its build.rs registers; its references are
    // asset hashes, resolved through the manifest like any other.
    let bytes = pak
        .get("levels/meadow.level")?
        .expect("the level is in the pack");
    let meadow = level::decode(&bytes).map_err(|_| ReadError::Invalid { what: "level" })?;
    let record = pak
        .resolve(hash_asset_ref("levels/meadow.level"))?
        .expect("the level is in the manifest");
    println!(
        "level {:?} (kind {}): spawn at {:?}, {} props",
        meadow.name,
        record.kind.value(),
        meadow.spawn,
        meadow.props.len()
    );
    let ground = pak.resolve(meadow.ground)?.expect("ground texture baked");
    let ground_ktx = pak.get_by_hash(meadow.ground)?.expect("ground in the pack");
    let ground_ktx = Ktx2::parse(&ground_ktx)?;
    println!(
        "  ground: {} ({}x{})",
        ground.path,
        ground_ktx.width(),
        ground_ktx.height()
    );
    for prop in &meadow.props {
        let mesh_path = &pak.resolve(prop.mesh)?.expect("prop mesh baked").path;
        let mesh_bytes = pak.get_by_hash(prop.mesh)?.expect("prop mesh in the pack");
        let mesh = MeshView::parse(&mesh_bytes)?;
        println!(
            "  prop: {mesh_path} at {:?} x{}: {} vertices, {} triangles, {} materials",
            prop.position,
            prop.scale,
            mesh.vertices.len(),
            mesh.indices.len() / 3,
            mesh.materials.len()
        );
    }

    pak.verify()?;
    println!("verify: ok ({} manifest rows)", pak.manifest()?.len());
    if watch {
        let path = pack_path.unwrap_or_else(|| env!("HEARTH_PACK").to_owned());
        follow(&path)?;
    }
    Ok(())
}

/// Follows the pack at `path` across bakes, printing each reload, until the process is
/// stopped.
#[cfg(feature = "hot-reload")]
fn follow(path: &str) -> Result<(), ReadError> {
    let mut hot = hearth::read::hot::HotPack::open(path)?;
    println!("watching {path}");
    loop {
        // A game calls `poll` once per frame; this loop has nothing else to do, so it waits.
        let reload = match hot.wait(std::time::Duration::from_secs(1)) {
            Ok(Some(reload)) => reload,
            Ok(None) => continue,
            // A pack that does not open (another tool half-wrote it): keep the last good one.
            Err(error) => {
                eprintln!(
                    "reload failed, keeping generation {}: {error}",
                    hot.generation()
                );
                continue;
            }
        };
        let list = |changes: &[hearth::read::hot::AssetChange]| {
            changes
                .iter()
                .map(|c| c.path.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "reload {}: changed [{}] added [{}] removed [{}]",
            reload.generation,
            list(&reload.changed),
            list(&reload.added),
            list(&reload.removed)
        );
        // React to what changed: here, re-read the greeting.
        if reload.changed.iter().any(|c| c.path == "text/hello.txt") {
            if let Some(hello) = hot.pack().get("text/hello.txt")? {
                println!(
                    "text/hello.txt now says: {}",
                    String::from_utf8_lossy(&hello).trim()
                );
            }
        }
    }
}

#[cfg(not(feature = "hot-reload"))]
fn follow(_path: &str) -> Result<(), ReadError> {
    eprintln!("--watch needs the `hot-reload` feature: cargo run --features hot-reload -- --watch");
    std::process::exit(2);
}
