//! Baked models drawn by Bevy through the plugin against their sources drawn by Bevy's own
//! glTF loader, on Mesa's lavapipe (`.ci/run` installs it; the test fails without it): they
//! agree at PSNR >= 30 dB, skinned models in bind pose included, and a drawing with negated
//! normals does not.

use bevy::render::settings::Backends;
use bevy_hearth::compare::{CompareSettings, Comparer, Fault, Renders};
use std::path::{Path, PathBuf};

/// The floor of a model's baked-vs-source PSNR.
const MIN_PSNR: f64 = 30.0;

/// (baked mesh, source file under the content folder) of the models held to [`MIN_PSNR`]:
/// the load test's corpus models.
const MODELS: &[(&str, &str)] = &[
    ("m/AlphaBlendModeTest.hmesh", "m/AlphaBlendModeTest.glb"),
    (
        "m/BoxTextured/BoxTextured.hmesh",
        "m/BoxTextured/BoxTextured.gltf",
    ),
    (
        "m/BoxVertexColors/BoxVertexColors.hmesh",
        "m/BoxVertexColors/BoxVertexColors.glb",
    ),
    (
        "m/Morph/MorphPrimitivesTest.hmesh",
        "m/Morph/MorphPrimitivesTest.glb",
    ),
    ("m/CesiumMan/CesiumMan.hmesh", "m/CesiumMan/CesiumMan.gltf"),
];

/// Bakes the models with textures up to 512 pixels, no mips (Bevy's glTF loader makes none
/// either); returns the folder (content in `src`) and the pack's path.
fn bake() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    crate::copy_folder(&crate::corpus("AlphaBlendModeTest"), &src.join("m"));
    for (from, to) in [
        ("BoxTextured", "BoxTextured"),
        ("BoxVertexColors", "BoxVertexColors"),
        ("MorphPrimitivesTest", "Morph"),
        ("CesiumMan", "CesiumMan"),
    ] {
        crate::copy_folder(&crate::corpus(from), &src.join("m").join(to));
    }
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\n\
         assets = [\"m/**/*.glb\", \"m/**/*.gltf\"]\n[default]\n\
         texture = { quality = \"fastest\", max_size = 512, mips = false }\n",
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    (dir, report.pack_path)
}

/// Where the images go (kept for looking at: `target/tmp/bevy_compare/`).
fn image_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bevy_compare");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The file stem of a runtime path.
fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name)
}

/// Draws `mesh` and `source`, saves both under [`image_dir`] with `tag`, and returns the
/// PSNR and both coverages.
fn draw(comparer: &mut Comparer, mesh: &str, source: &str, tag: &str) -> (f64, f64, f64) {
    let Renders {
        baked,
        source: drawn,
    } = comparer
        .compare(mesh, source)
        .unwrap_or_else(|e| panic!("{mesh}: {e}"));
    let images = image_dir();
    let name = stem(mesh);
    baked
        .save_png(&images.join(format!("{name}.{tag}.png")))
        .unwrap();
    drawn
        .save_png(&images.join(format!("{name}.source.png")))
        .unwrap();
    let db = baked.psnr(&drawn).unwrap();
    println!(
        "{name} ({tag}): PSNR {db:.2} dB, coverage baked {:.3} source {:.3}",
        baked.coverage(),
        drawn.coverage()
    );
    (db, baked.coverage(), drawn.coverage())
}

#[test]
fn baked_and_source_models_draw_alike_in_bevy_on_lavapipe_and_faults_do_not() {
    let (dir, pack) = bake();
    // Lavapipe only (its adapter is "llvmpipe"): without it this fails, naming the package.
    let settings = CompareSettings {
        backends: Some(Backends::VULKAN),
        adapter: Some("llvmpipe".into()),
        ..CompareSettings::default()
    };
    let assets = hearth::Assets::open(&pack).unwrap();
    let mut comparer =
        Comparer::new(assets, &dir.path().join("src"), &settings).unwrap_or_else(|e| panic!("{e}"));
    println!("adapter: {}", comparer.adapter_name());
    let mut figures = Vec::new();
    for (mesh, source) in MODELS {
        let (db, baked, drawn) = draw(&mut comparer, mesh, source, "baked");
        figures.push((stem(mesh), db, baked, drawn));
    }
    let bad: Vec<_> = figures
        .iter()
        .filter(|(_, db, a, b)| *db < MIN_PSNR || *a < 0.01 || *b < 0.01)
        .collect();
    assert!(bad.is_empty(), "under {MIN_PSNR} dB or blank: {bad:?}");

    // The comparison bites: negated normals on a lit, textured box fall under the floor.
    comparer.set_fault(Fault::NegateNormals);
    let (mesh, source) = MODELS[1];
    let (db, ..) = draw(&mut comparer, mesh, source, "NegateNormals");
    assert!(db < MIN_PSNR, "{mesh} with normals negated: {db:.2} dB");
}
