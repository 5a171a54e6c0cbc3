//! Reads the pack that build.rs baked and `include_pak!` embedded, and prints what it finds.

mod level;

use hearth::{hash_asset_ref, Ktx2, MeshView, PakReader, ReadError};

fn main() -> Result<(), ReadError> {
    let pak: PakReader = hearth::include_pak!(env!("HEARTH_PACK"))?;
    println!(
        "embedded pack: v{}, {} entries, {} bytes",
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
    Ok(())
}
