//! Renders every corpus model twice on a real Vulkan driver (Mesa's lavapipe on CI, installed
//! by `.ci/run`; any adapter wgpu finds elsewhere): from the baked pack and from the source
//! file, with the same camera, lights and shaders (`hearth::render`). The two images must
//! agree (PSNR >= 30 dB over RGB), neither may be blank, and a bake with a deliberate fault
//! (normals negated, or V flipped, written into the baked `.hmesh`) must fail the comparison.
#![cfg(all(feature = "render", feature = "bake"))]

mod common;
use common::{copy_dir, corpus};
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
        "gltf/Triangle/Triangle.gltf",
        "gltf/Triangle/Triangle.hmesh",
    ),
];

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
