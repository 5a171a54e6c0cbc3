//! Baked models drawn by Bevy through the plugin against their sources drawn by Bevy's own
//! glTF loader, on Mesa's lavapipe (`.ci/run` installs it; the test fails without it): they
//! agree at PSNR >= 30 dB, skinned models in bind pose included, and a drawing with negated
//! normals does not.

use bevy::math::Vec3;
use bevy::render::settings::Backends;
use bevy_hearth::compare::{CameraView, CompareSettings, Comparer, Fault, Renders, Rgba8};
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

/// The mean sRGB colour over the inner half of TextureTransformBoard's cell at (`row`,
/// `column`) (0.2-wide quads at x = (column - 1) 0.26, y = (2.5 - row) 0.26: its
/// `generate.py`), sampled at 7 x 7 points projected with `view`.
fn board_cell(image: &Rgba8, view: &CameraView, row: usize, column: usize) -> [f32; 3] {
    let center = Vec3::new((column as f32 - 1.0) * 0.26, (2.5 - row as f32) * 0.26, 0.0);
    let mut sum = [0.0f32; 3];
    for i in 0..7 {
        for j in 0..7 {
            let at = |k: i32| (k as f32 - 3.0) / 3.0 * 0.05;
            let point = center + Vec3::new(at(i), at(j), 0.0);
            let [x, y] = view.project(point, image.width).expect("in front");
            let pixel = (y as u32 * image.width + x as u32) as usize * 4;
            for (c, total) in sum.iter_mut().enumerate() {
                *total += f32::from(image.pixels[pixel + c]);
            }
        }
    }
    sum.map(|c| c / 49.0)
}

/// The largest per-channel difference of two colours.
fn color_distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f32::max)
}

/// TextureTransformBoard drawn by Bevy from its pack, facing the camera: in every texture
/// slot's row the TEXCOORD_1 cell looks as its TEXCOORD_0 neighbour (both transformed) and
/// unlike the cell that ignores the transform; the mixed material (two transforms on two UV
/// sets) looks as its factor-only reference. Drawn twice: with Bevy's default ambient light,
/// and with a bright one for the occlusion row (an occlusion map darkens only ambient light).
/// The source drawn by Bevy's own glTF loader is saved and printed beside it (not held to
/// anything: that loader transforms the base colour slot only).
#[test]
fn the_texture_transform_board_draws_every_cell_right_in_bevy() {
    /// Largest difference of two cells drawn alike (measured: at most 2.9, neighbouring cells
    /// seen from slightly different angles).
    const ALIKE: f32 = 4.0;
    /// Smallest difference between a cell drawn right and one that ignores the transform
    /// (measured: 7.0 in the normal row, 22 and more in the others).
    const UNLIKE: f32 = 5.0;
    /// An ambient light bright enough that the occlusion row's map shows (22 levels, against
    /// 1.6 under Bevy's default one).
    const AMBIENT: f32 = 2000.0;
    let (dir, pack) = crate::transforms::bake_board();
    let settings = CompareSettings {
        backends: Some(Backends::VULKAN),
        adapter: Some("llvmpipe".into()),
        ..CompareSettings::default()
    };
    let mut comparer = Comparer::new(
        hearth::Assets::open(&pack).unwrap(),
        &dir.path().join("src"),
        &settings,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mesh = "board/TextureTransformBoard.hmesh";
    let view = CameraView::framing(comparer.bounds(mesh).unwrap(), Vec3::Z);
    let images = image_dir();
    // (ambient light, the rows it shows: slot names, row 5 being the mixed one)
    type Rows = &'static [(usize, &'static str)];
    let passes: [(Option<f32>, Rows); 2] = [
        (
            None,
            &[
                (0, "base color"),
                (1, "emissive"),
                (2, "normal"),
                (3, "metal-rough"),
                (5, "mixed"),
            ],
        ),
        (Some(AMBIENT), &[(4, "occlusion")]),
    ];
    for (ambient, rows) in passes {
        comparer.set_ambient(ambient);
        let tag = if ambient.is_some() { "-ambient" } else { "" };
        let baked = comparer.render_baked_from(mesh, &view).unwrap();
        let source = comparer
            .render_source_from("board/TextureTransformBoard.gltf", &view)
            .unwrap();
        for (image, name) in [(&baked, "bevy"), (&source, "bevy-gltf")] {
            image
                .save_png(&images.join(format!("TextureTransformBoard.{name}{tag}.png")))
                .unwrap();
        }
        for (name, image) in [("Bevy's glTF loader", &source), ("pack", &baked)] {
            let cell = |row, column| board_cell(image, &view, row, column);
            for &(row, slot) in rows {
                let (uv0, uv1, ignored) = (cell(row, 0), cell(row, 1), cell(row, 2));
                println!(
                    "{name}{tag}, {slot}: {uv0:?}, column 1 {uv1:?}, not applied {ignored:?}: \
                     {:.2} from column 1, {:.2} from not applied",
                    color_distance(uv0, uv1),
                    color_distance(uv0, ignored)
                );
            }
        }
        let cell = |row, column| board_cell(&baked, &view, row, column);
        for &(row, slot) in rows {
            // Column 1: the slot on TEXCOORD_1 (the mixed row: its factor-only reference).
            let (uv0, uv1, ignored) = (cell(row, 0), cell(row, 1), cell(row, 2));
            assert!(
                color_distance(uv0, uv1) <= ALIKE,
                "{slot}: column 1 {uv1:?} differs from column 0 {uv0:?}"
            );
            assert!(
                color_distance(uv0, ignored) >= UNLIKE,
                "{slot}: the transformed cell {uv0:?} looks as the untransformed {ignored:?}"
            );
        }
    }
}
