//! Renders every corpus model twice on a real Vulkan driver (Mesa's lavapipe on CI, installed
//! by `.ci/run`; any adapter wgpu finds elsewhere): from the baked pack and from the source
//! file, with the same camera, lights and shaders (`hearth::render`). The two images must
//! agree (PSNR >= 30 dB over RGB), neither may be blank, and a bake with a deliberate fault
//! (normals negated, or V flipped, written into the baked `.hmesh`) must fail the comparison.
#![cfg(all(feature = "render", feature = "bake"))]

use crate::common;
use crate::common::{copy_dir, corpus};
use hearth::format::hmesh::{chunk, oct_decode, oct_encode, parse_chunks, GpuVertex};
use hearth::render::{RenderScene, Renderer};
use std::path::{Path, PathBuf};

/// Image size of the comparisons.
const SIZE: u32 = 256;
/// The floor of a model's pack-vs-source PSNR.
const MIN_PSNR: f64 = 30.0;

/// Corpus models rendered (file under `tests/corpus`), and the runtime path of their mesh.
const MODELS: &[(&str, &str)] = &[
    (
        "gltf/AlphaBlendModeTest/AlphaBlendModeTest.glb",
        "gltf/AlphaBlendModeTest/AlphaBlendModeTest.hmesh",
    ),
    (
        "gltf/BoxTextured/BoxTextured.gltf",
        "gltf/BoxTextured/BoxTextured.hmesh",
    ),
    (
        "gltf/BoxVertexColors/BoxVertexColors.glb",
        "gltf/BoxVertexColors/BoxVertexColors.hmesh",
    ),
    ("gltf/Box_embedded/Box.gltf", "gltf/Box_embedded/Box.hmesh"),
    (
        "gltf/CesiumMan/CesiumMan.gltf",
        "gltf/CesiumMan/CesiumMan.hmesh",
    ),
    (
        "gltf/DamagedHelmet/DamagedHelmet.glb",
        "gltf/DamagedHelmet/DamagedHelmet.hmesh",
    ),
    (
        "gltf/MorphPrimitivesTest/MorphPrimitivesTest.glb",
        "gltf/MorphPrimitivesTest/MorphPrimitivesTest.hmesh",
    ),
    (
        "gltf/MultiUVTest/MultiUVTest.glb",
        "gltf/MultiUVTest/MultiUVTest.hmesh",
    ),
    (
        "gltf/NormalTangentMirrorTest/NormalTangentMirrorTest.glb",
        "gltf/NormalTangentMirrorTest/NormalTangentMirrorTest.hmesh",
    ),
    (
        "gltf/RiggedSimple/RiggedSimple.glb",
        "gltf/RiggedSimple/RiggedSimple.hmesh",
    ),
    (
        "gltf/SheenCloth/SheenCloth.gltf",
        "gltf/SheenCloth/SheenCloth.hmesh",
    ),
    (
        "gltf/SimpleSparseAccessor/SimpleSparseAccessor.gltf",
        "gltf/SimpleSparseAccessor/SimpleSparseAccessor.hmesh",
    ),
    (
        "gltf/TextureTransformTest/TextureTransformTest.gltf",
        "gltf/TextureTransformTest/TextureTransformTest.hmesh",
    ),
    (
        "gltf/TextureTransformBoard/TextureTransformBoard.gltf",
        "gltf/TextureTransformBoard/TextureTransformBoard.hmesh",
    ),
    (
        "gltf/Triangle/Triangle.gltf",
        "gltf/Triangle/Triangle.hmesh",
    ),
];

/// BoxTextured under `dir/src/box`, with a manifest baking it; returns `dir/src`.
fn box_content(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    copy_dir(&corpus("gltf/BoxTextured"), &src.join("box"));
    std::fs::write(
        src.join("hearth.toml"),
        "[[content.group]]\nassets = [\"**/*.gltf\"]\n",
    )
    .unwrap();
    src
}

/// Where the images go (kept for looking at: `target/tmp/render/`).
fn image_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn baked_and_source_renders_agree_and_a_faulty_bake_does_not() {
    let renderer = Renderer::new().unwrap_or_else(|e| panic!("{e}"));
    println!("adapter: {}", renderer.adapter_name());
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf"), &src.path().join("gltf"));
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"gltf/**/*.gltf\", \"gltf/**/*.glb\"]\n\
         exclude = [\"**/Box_draco/**\", \"**/BoxMeshopt/**\"]\n\
         [default]\ntexture = { quality = \"fastest\", max_size = 512 }\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = hearth::bake::Baker::new(manifest.as_path(), out.path())
        .run()
        .unwrap();
    let pack = hearth::PakReader::open(&report.pack_path).unwrap();
    let images = image_dir();
    let mut figures = Vec::new();
    for (file, mesh) in MODELS {
        let source = RenderScene::from_source(&src.path().join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let baked = RenderScene::from_pack(&pack, mesh, renderer.samples_bc())
            .unwrap_or_else(|e| panic!("{mesh}: {e}"));
        let from_source = renderer.render(&source, SIZE, SIZE).unwrap();
        let from_pack = renderer.render(&baked, SIZE, SIZE).unwrap();
        let name = Path::new(file)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        from_source
            .save_png(images.join(format!("{name}.source.png")))
            .unwrap();
        from_pack
            .save_png(images.join(format!("{name}.pack.png")))
            .unwrap();
        let db = from_pack.psnr(&from_source).unwrap();
        println!(
            "{name}: PSNR {db:.2} dB, coverage pack {:.3} source {:.3}",
            from_pack.coverage(),
            from_source.coverage()
        );
        figures.push((name, db, from_pack.coverage(), from_source.coverage()));
    }
    let bad: Vec<_> = figures
        .iter()
        .filter(|(_, db, a, b)| *db < MIN_PSNR || *a < 0.01 || *b < 0.01)
        .collect();
    assert!(bad.is_empty(), "under {MIN_PSNR} dB or blank: {bad:?}");

    // The comparison bites: a bake whose normals come out negated, or whose V is flipped,
    // fails it on a lit, textured model.
    for (file, mesh) in [MODELS[1], MODELS[5]] {
        let source = renderer
            .render(
                &RenderScene::from_source(&src.path().join(file)).unwrap(),
                SIZE,
                SIZE,
            )
            .unwrap();
        let bytes = pack
            .find(mesh)
            .unwrap()
            .unwrap()
            .bytes()
            .unwrap()
            .into_owned();
        let materials = pack
            .find(&mesh.replace(".hmesh", ".hmat"))
            .unwrap()
            .unwrap()
            .bytes()
            .unwrap()
            .into_owned();
        for (fault, edit) in [
            ("normals negated", negate_normals as fn(&mut GpuVertex)),
            ("V flipped", flip_v),
        ] {
            let faulty = with_vertices_edited(&bytes, edit);
            let mut texture = |hash: u64| {
                pack.find_by_hash(hash)
                    .unwrap()
                    .map(|e| e.bytes().unwrap().into_owned())
            };
            let scene =
                RenderScene::from_baked(&faulty, &materials, &mut texture, renderer.samples_bc())
                    .unwrap();
            let image = renderer.render(&scene, SIZE, SIZE).unwrap();
            let db = image.psnr(&source).unwrap();
            let name = Path::new(file)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            image
                .save_png(images.join(format!("{name}.{}.png", fault.replace(' ', "_"))))
                .unwrap();
            println!("{name} with {fault}: PSNR {db:.2} dB");
            assert!(
                db < MIN_PSNR,
                "{name} with {fault} still passes: {db:.2} dB"
            );
        }
    }
}

fn negate_normals(v: &mut GpuVertex) {
    v.normal = oct_encode(oct_decode(v.normal).map(|c| -c));
}

fn flip_v(v: &mut GpuVertex) {
    v.uv[1] = 1.0 - v.uv[1];
}

/// `.hmesh` bytes with every VTXS vertex passed through `edit`.
fn with_vertices_edited(bytes: &[u8], edit: fn(&mut GpuVertex)) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let vtxs = parse_chunks(bytes)
        .unwrap()
        .into_iter()
        .find(|c| c.fourcc == chunk::VTXS)
        .unwrap();
    let range = vtxs.offset as usize..(vtxs.offset + vtxs.size) as usize;
    for raw in out[range].chunks_exact_mut(std::mem::size_of::<GpuVertex>()) {
        let mut vertex: GpuVertex = bytemuck::pod_read_unaligned(raw);
        edit(&mut vertex);
        raw.copy_from_slice(bytemuck::bytes_of(&vertex));
    }
    out
}

/// `hearth render` from a tree, a pack and a source file writes PNGs of the asked size; a mesh
/// that is not there, a bad size and a machine without a Vulkan driver are errors that say so
/// (exit 1, or clap's 2 for usage), never a panic.
#[cfg(feature = "cli")]
/// Without TANGENT, a normal-mapped model draws as with the tangents it ships: from its source
/// (a per-pixel frame from UV derivatives) and from its bake (generated MikkTSpace tangents).
/// NormalTangentMirrorTest's map is all slopes, so an inverted bitangent shows.
#[test]
fn normal_maps_without_shipped_tangents_draw_as_with_them() {
    let renderer = Renderer::new().unwrap_or_else(|e| panic!("{e}"));
    let src = tempfile::tempdir().unwrap();
    let source = corpus("gltf/NormalTangentMirrorTest/NormalTangentMirrorTest.glb");
    let bytes = std::fs::read(&source).unwrap();
    common::write_files(
        src.path(),
        &[
            ("shipped.glb", &bytes),
            ("stripped.glb", &common::without_tangents(&bytes)),
        ],
    );
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"stripped.glb\"]\n\
         [default]\ntexture = { quality = \"fastest\", max_size = 512 }\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = hearth::bake::Baker::new(manifest.as_path(), out.path())
        .run()
        .unwrap();
    let pack = hearth::PakReader::open(&report.pack_path).unwrap();
    let render = |scene: &RenderScene| renderer.render(scene, SIZE, SIZE).unwrap();
    let shipped = render(&RenderScene::from_source(&src.path().join("shipped.glb")).unwrap());
    let from_source = render(&RenderScene::from_source(&src.path().join("stripped.glb")).unwrap());
    let from_pack =
        render(&RenderScene::from_pack(&pack, "stripped.hmesh", renderer.samples_bc()).unwrap());
    let source_db = from_source.psnr(&shipped).unwrap();
    let pack_db = from_pack.psnr(&shipped).unwrap();
    println!("without tangents: source {source_db:.2} dB, pack {pack_db:.2} dB");
    assert!(
        source_db >= MIN_PSNR,
        "source without tangents: {source_db:.2} dB"
    );
    assert!(
        pack_db >= MIN_PSNR,
        "pack without tangents: {pack_db:.2} dB"
    );
}

#[test]
fn the_render_command_writes_pngs_and_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    box_content(dir.path());
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(args)
            .envs(env.iter().copied())
            .current_dir(dir.path())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned()
                + &String::from_utf8_lossy(&output.stderr),
        )
    };
    let (code, text) = run(&["bake", "src/hearth.toml", "-o", "out", "-q"], &[]);
    assert_eq!(code, Some(0), "{text}");
    for (args, png) in [
        (
            vec![
                "render",
                "out",
                "box/BoxTextured.hmesh",
                "-o",
                "tree.png",
                "--size",
                "200x120",
            ],
            "tree.png",
        ),
        (
            vec![
                "render",
                "out/assets.hpack",
                "box/BoxTextured.hmesh",
                "-o",
                "pack.png",
                "--size",
                "200x120",
            ],
            "pack.png",
        ),
        (
            vec![
                "render",
                "--source",
                "src/box/BoxTextured.gltf",
                "-o",
                "source.png",
                "--size",
                "200x120",
            ],
            "source.png",
        ),
    ] {
        let (code, text) = run(&args, &[]);
        assert_eq!(code, Some(0), "{args:?}: {text}");
        assert!(
            text.contains("rendered") && text.contains("12 triangles"),
            "{text}"
        );
        let image = image::open(dir.path().join(png)).unwrap().to_rgba8();
        assert_eq!(image.dimensions(), (200, 120), "{png}");
    }
    let same = |a: &str, b: &str| {
        std::fs::read(dir.path().join(a)).unwrap() == std::fs::read(dir.path().join(b)).unwrap()
    };
    assert!(
        same("tree.png", "pack.png"),
        "a tree and its pack draw the same image"
    );

    for (args, env, code, says) in [
        (
            vec!["render", "out", "box/Nope.hmesh", "-o", "x.png"],
            vec![],
            1,
            "Nope.hmesh",
        ),
        (
            vec![
                "render",
                "out/assets.hpack",
                "box/Nope.hmesh",
                "-o",
                "x.png",
            ],
            vec![],
            1,
            "not in the pack",
        ),
        (
            vec![
                "render",
                "out",
                "box/BoxTextured.hmesh",
                "-o",
                "x.png",
                "--size",
                "0x10",
            ],
            vec![],
            2,
            "from 1 to",
        ),
        (
            vec!["render", "--source", "src/box/missing.gltf", "-o", "x.png"],
            vec![],
            1,
            "missing.gltf",
        ),
        (
            vec!["render", "out", "box/BoxTextured.hmesh", "-o", "x.png"],
            vec![
                ("WGPU_BACKEND", "vulkan"),
                ("VK_ICD_FILENAMES", "/nonexistent.json"),
            ],
            1,
            "mesa-vulkan-drivers",
        ),
    ] {
        let (got, text) = run(&args, &env);
        assert_eq!(got, Some(code), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{args:?}: {text}");
        assert!(
            !dir.path().join("x.png").exists(),
            "{args:?} wrote an image"
        );
    }
}

/// `examples/preview` opens a window on a real X server (Xvfb, which `.ci/run` installs; the
/// test starts its own on a free display) and draws a baked pack's first mesh into it:
/// `--screenshot` saves that first frame, at the window's 800x600, and exits.
#[test]
fn the_preview_example_draws_in_a_window() {
    let examples = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples");
    let viewer = examples.join("preview");
    assert!(
        viewer.is_file(),
        "{} is missing: `cargo test --workspace` builds the examples (hearth-preview's)",
        viewer.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let src = box_content(dir.path());
    let report = hearth::bake::Baker::new(src.join("hearth.toml"), dir.path().join("out"))
        .run()
        .unwrap();
    let xvfb = crate::common::xvfb::Xvfb::start();
    let shot = dir.path().join("shot.png");
    let output = std::process::Command::new(&viewer)
        .arg(&report.pack_path)
        .arg("--screenshot")
        .arg(&shot)
        .env("DISPLAY", &xvfb.display)
        .output()
        .unwrap();
    drop(xvfb);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let image = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (800, 600));
    let first = *image.get_pixel(0, 0);
    let covered = image.pixels().filter(|p| **p != first).count();
    assert!(covered > 800 * 600 / 20, "the box covers {covered} pixels");
}

/// Inputs a preview cannot take as they are: a texture wider than the device allows starts
/// from its first mip level that fits; indices beyond the vertices, an empty model and a
/// degenerate (single-point) model are handled without a panic.
#[test]
fn oversized_textures_and_degenerate_models_do_not_panic() {
    use hearth::render::scene::{
        Draw, RenderMaterial, RenderTexture, SourceVertex, TextureFormat, Vertices,
    };
    let renderer = Renderer::new().unwrap_or_else(|e| panic!("{e}"));
    let quad = |position: [[f32; 3]; 3]| {
        position
            .iter()
            .map(|p| SourceVertex {
                position: *p,
                normal: [0.0, 0.0, 1.0],
                tangent: [0.0; 4],
                uv: [p[0], p[1]],
            })
            .collect::<Vec<_>>()
    };
    let wide = 32768u32; // beyond any adapter's 2D limit (lavapipe: 16384)
    let levels = hearth::render::scene::rgba8_mips(wide, 4, vec![200; wide as usize * 16]);
    let scene = |vertices, indices: Vec<u32>| RenderScene {
        vertices: Vertices::Source(vertices),
        draws: vec![Draw {
            first_index: 0,
            index_count: indices.len() as u32,
            material: Some(0),
        }],
        indices,
        materials: vec![RenderMaterial {
            textures: [Some(0), None, None, None, None],
            ..RenderMaterial::default()
        }],
        textures: vec![RenderTexture {
            width: wide,
            height: 4,
            format: TextureFormat::Rgba8 { srgb: true },
            levels: levels.clone(),
        }],
        uvs1: vec![],
        has_tangents: false,
    };
    let triangle = quad([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let image = renderer
        .render(&scene(triangle.clone(), vec![0, 1, 2]), 64, 64)
        .unwrap();
    assert!(image.coverage() > 0.05, "the triangle is drawn");
    let point = quad([[2.0, 2.0, 2.0]; 3]);
    renderer
        .render(&scene(point, vec![0, 1, 2]), 64, 64)
        .unwrap();
    renderer
        .render(&scene(Vec::new(), Vec::new()), 64, 64)
        .unwrap();
    let error = renderer
        .render(&scene(triangle, vec![0, 1, 7]), 64, 64)
        .unwrap_err()
        .to_string();
    assert!(error.contains("index 7 beyond the 3 vertices"), "{error}");
}

/// GPU-format bakes draw as they are where the adapter samples them (BC on lavapipe: drawn
/// and compared with the source like the UASTC bake), and are a clear error where it does not
/// (ASTC on lavapipe), never a panic.
#[test]
fn gpu_format_bakes_draw_or_say_what_the_adapter_lacks() {
    let renderer = Renderer::new().unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let src = box_content(dir.path());
    let model = src.join("box/BoxTextured.gltf");
    let source = renderer
        .render(&RenderScene::from_source(&model).unwrap(), SIZE, SIZE)
        .unwrap();
    for (format, family, samples) in [
        ("bcn", "BC", renderer.samples_bc()),
        ("astc4x4", "ASTC", false),
    ] {
        std::fs::write(
            src.join("hearth.toml"),
            format!(
                "[[content.group]]\nassets = [\"**/*.gltf\"]\n\
                 [default]\ntexture = {{ format = \"{format}\" }}\n"
            ),
        )
        .unwrap();
        let out = dir.path().join(format);
        hearth::bake::Baker::new(src.join("hearth.toml"), &out)
            .run()
            .unwrap();
        let scene =
            RenderScene::from_tree(&out, "box/BoxTextured.hmesh", renderer.samples_bc()).unwrap();
        match renderer.render(&scene, SIZE, SIZE) {
            Ok(image) => {
                let db = image.psnr(&source).unwrap();
                println!("{format}: PSNR {db:.2} dB against the source");
                assert!(db >= MIN_PSNR, "{format}: {db:.2} dB");
            }
            Err(error) => {
                let error = error.to_string();
                assert!(!samples, "{format}: the adapter samples it, yet: {error}");
                assert!(
                    error.contains(&format!("does not sample {family}")),
                    "{error}"
                );
            }
        }
    }
}

/// The mean sRGB color of `image` over the inner half of TextureTransformBoard's cell at
/// (`row`, `column`) (see its `generate.py`: 0.2-wide quads at x = (column - 1) 0.26,
/// y = (2.5 - row) 0.26), sampled at 7 x 7 points projected with the renderer's camera.
fn board_cell(
    image: &hearth::render::Image,
    bounds: ([f32; 3], f32),
    row: usize,
    column: usize,
) -> [f32; 3] {
    let center = [(column as f32 - 1.0) * 0.26, (2.5 - row as f32) * 0.26];
    let mut sum = [0.0f32; 3];
    let mut count = 0.0;
    for i in 0..7 {
        for j in 0..7 {
            let at = |k: i32| (k as f32 - 3.0) / 3.0 * 0.05;
            let point = [center[0] + at(i), center[1] + at(j), 0.0];
            let [x, y] = hearth::render::View::default()
                .project(bounds, image.width, image.height, point)
                .expect("in front of the camera");
            let pixel = (y as u32 * image.width + x as u32) as usize * 4;
            for (c, total) in sum.iter_mut().enumerate() {
                *total += image.rgba[pixel + c] as f32;
            }
            count += 1.0;
        }
    }
    sum.map(|c| c / count)
}

fn color_distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|c| (a[c] - b[c]).abs()).fold(0.0, f32::max)
}

/// TextureTransformBoard drawn from its pack and from its source: in every texture slot's row,
/// the cell sampling TEXCOORD_1 through a transform looks as its TEXCOORD_0 neighbour and
/// clearly not as the cell that ignores the transform; the mixed material (two transforms on
/// two UV sets) looks as its factor-only reference. Also pack and source agree.
#[test]
fn texture_transforms_and_the_second_uv_set_draw_in_every_slot() {
    const SIDE: u32 = 512;
    /// Largest per-channel difference (sRGB, 0-255) between two cells drawn alike: the pack's
    /// UASTC textures and the cells' slightly different view angles stay well under it
    /// (measured: at most 1).
    const ALIKE: f32 = 4.0;
    /// Smallest difference between a cell drawn right and one that ignores the transform
    /// (measured: 12 in the occlusion row, whose texture darkens only the ambient light; 39
    /// and more in the others).
    const UNLIKE: f32 = 8.0;
    let renderer = Renderer::new().unwrap_or_else(|e| panic!("{e}"));
    let src = tempfile::tempdir().unwrap();
    copy_dir(
        &corpus("gltf/TextureTransformBoard"),
        &src.path().join("board"),
    );
    let manifest = src.path().join("hearth.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"**/*.gltf\"]\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = hearth::bake::Baker::new(manifest.as_path(), out.path())
        .run()
        .unwrap();
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
    let pack = hearth::PakReader::open(&report.pack_path).unwrap();
    let mesh = "board/TextureTransformBoard.hmesh";
    let baked = RenderScene::from_pack(&pack, mesh, renderer.samples_bc()).unwrap();
    let source =
        RenderScene::from_source(&src.path().join("board/TextureTransformBoard.gltf")).unwrap();
    let images = image_dir();
    let mut drawn = Vec::new();
    for (name, scene) in [("pack", &baked), ("source", &source)] {
        let image = renderer.render(scene, SIDE, SIDE).unwrap();
        image
            .save_png(images.join(format!("TextureTransformBoard.{name}.png")))
            .unwrap();
        let bounds = scene.bounds();
        let cell = |row, column| board_cell(&image, bounds, row, column);
        for (row, slot) in [
            "base color",
            "emissive",
            "normal",
            "metal-rough",
            "occlusion",
        ]
        .iter()
        .enumerate()
        {
            let (uv0, uv1, ignored) = (cell(row, 0), cell(row, 1), cell(row, 2));
            println!("{name} {slot}: uv0 {uv0:?} uv1 {uv1:?} not applied {ignored:?}");
            assert!(
                color_distance(uv0, uv1) <= ALIKE,
                "{name}, {slot}: the TEXCOORD_1 cell {uv1:?} differs from the TEXCOORD_0 one {uv0:?}"
            );
            assert!(
                color_distance(uv0, ignored) >= UNLIKE,
                "{name}, {slot}: the transformed cell {uv0:?} looks as the untransformed {ignored:?}"
            );
        }
        let (mixed, reference, ignored) = (cell(5, 0), cell(5, 1), cell(5, 2));
        println!("{name} mixed: {mixed:?} reference {reference:?} not applied {ignored:?}");
        assert!(
            color_distance(mixed, reference) <= ALIKE,
            "{name}: the mixed material {mixed:?} differs from its reference {reference:?}"
        );
        assert!(
            color_distance(mixed, ignored) >= UNLIKE,
            "{name}: {mixed:?} vs {ignored:?}"
        );
        drawn.push(image);
    }
    let db = drawn[0].psnr(&drawn[1]).unwrap();
    println!("pack vs source: {db:.2} dB");
    assert!(db >= MIN_PSNR, "pack and source renders differ: {db:.2} dB");
}
