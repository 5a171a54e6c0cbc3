//! Owned typed assets and the one-call model loader, on real baked models read from a mapped
//! pack, an embedded (static) pack, a compressed pack and a loose tree.
#![cfg(feature = "bake")]

use crate::common::corpus;
use hearth::{
    AlphaMode, AssetBytes, Assets, Materials, Mesh, Model, PakReader, ReadError, Texture,
    TreeReader,
};
use std::path::{Path, PathBuf};

const ALPHA: &str = "m/AlphaBlendModeTest.hmesh";
const CESIUM: &str = "m/CesiumMan/CesiumMan.hmesh";

/// Bakes AlphaBlendModeTest (six materials: opaque, mask, blend) and CesiumMan (skinned,
/// animated) with pack compression `codec`; returns the folder and the pack's path.
fn bake(codec: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("m")).unwrap();
    std::fs::copy(
        corpus("gltf/AlphaBlendModeTest/AlphaBlendModeTest.glb"),
        src.join("m/AlphaBlendModeTest.glb"),
    )
    .unwrap();
    crate::common::copy_dir(&corpus("gltf/CesiumMan"), &src.join("m/CesiumMan"));
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            "[content]\nname = \"game\"\ncompression = \"{codec}\"\n[[content.group]]\n\
             assets = [\"m/**/*.glb\", \"m/**/*.gltf\"]\n[default]\n\
             texture = {{ quality = \"fastest\", max_size = 64, mips = false }}\n"
        ),
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    (dir, report.pack_path)
}

fn out(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("out")
}

/// A base colour texture: path, width, height.
type Base = (String, u32, u32);

/// What a model loads to, as comparable values: per submesh, its slot, alpha mode and base
/// colour texture.
fn summary(model: &Model) -> Vec<(u32, AlphaMode, Option<Base>)> {
    model
        .submeshes
        .iter()
        .map(|part| {
            let material = part
                .material
                .as_ref()
                .expect("every submesh has a material");
            let base = material.base_color.as_ref().map(|t| {
                let view = t.texture.view();
                (t.path.to_string(), view.width(), view.height())
            });
            (material.slot, material.alpha_mode, base)
        })
        .collect()
}

#[test]
fn a_model_loads_in_one_call_the_same_from_pack_tree_and_embedded_bytes() {
    let (dir, pack_path) = bake("none");
    let pak = PakReader::open(&pack_path).unwrap();
    let from_pack = Model::load(&pak, ALPHA).unwrap();
    let tree = Assets::open(out(&dir)).unwrap();
    let from_tree = Model::load(&tree, ALPHA).unwrap();
    let leaked: &'static [u8] = Box::leak(std::fs::read(&pack_path).unwrap().into_boxed_slice());
    let from_static = Model::load(&PakReader::from_static(leaked).unwrap(), ALPHA).unwrap();
    let expected = summary(&from_pack);
    assert_eq!(summary(&from_tree), expected);
    assert_eq!(summary(&from_static), expected);

    // Six materials of three alpha modes, as the source says; textures resolved and loaded.
    let modes: Vec<AlphaMode> = from_pack
        .material_slots
        .iter()
        .map(|m| m.alpha_mode)
        .collect();
    assert_eq!(from_pack.material_slots.len(), 6);
    for mode in [AlphaMode::Opaque, AlphaMode::Mask, AlphaMode::Blend] {
        assert!(modes.contains(&mode), "{modes:?}");
    }
    let textured = expected
        .iter()
        .filter(|(_, _, base)| base.is_some())
        .count();
    assert!(textured > 0);
    for base in expected.iter().filter_map(|(_, _, base)| base.as_ref()) {
        assert!(
            base.0.starts_with("m/AlphaBlendModeTest/tex_") && base.1 == 64,
            "{base:?}"
        );
    }
    assert!(from_pack.animations.is_none());
}

#[test]
fn owned_assets_share_stored_entries_outlive_their_reader_and_decompress_once() {
    let (_stored_dir, stored) = bake("none");
    let (_zstd_dir, zstd) = bake("zstd");
    let mesh: Mesh = {
        let pak = PakReader::open(&stored).unwrap();
        pak.load(CESIUM).unwrap()
    }; // the reader is gone; the mesh keeps the mapping
    assert!(mesh.bytes().is_shared_with_pack());
    assert_eq!(mesh.path(), CESIUM);
    let compressed = PakReader::open(&zstd).unwrap();
    assert_ne!(
        compressed.find(CESIUM).unwrap().unwrap().codec(),
        hearth::Codec::None
    );
    let inflated: Mesh = compressed.load(CESIUM).unwrap();
    assert!(!inflated.bytes().is_shared_with_pack());
    assert_eq!(&*inflated.bytes(), &*mesh.bytes());
    assert_eq!(inflated.view().vertex_count(), mesh.view().vertex_count());

    // Moved to another thread and used there.
    let handle = std::thread::spawn(move || mesh.view().index_count());
    assert_eq!(handle.join().unwrap(), 14016);

    // By hash, from the pack and the tree.
    let hash = hearth::hash_runtime_path("m/CesiumMan/CesiumMan.hmat");
    let by_hash: Materials = compressed.load_by_hash(hash).unwrap();
    assert_eq!(by_hash.view().len(), 1);
    let tree = TreeReader::open(stored.parent().unwrap()).unwrap();
    let from_tree: Materials = tree.load_by_hash(hash).unwrap();
    assert_eq!(&*from_tree.bytes(), &*by_hash.bytes());
}

#[test]
fn a_skinned_model_brings_its_clips_checked_against_its_skeleton() {
    let (_dir, pack) = bake("zstd");
    let model = Model::load(&PakReader::open(&pack).unwrap(), CESIUM).unwrap();
    let clips = model.animations.as_ref().expect("CesiumMan is animated");
    assert_eq!(clips.clips().clips.len(), 1);
    assert_eq!(clips.clips().clips[0].channels.len(), 57);
    let joints = model.mesh.view().skeleton.as_ref().unwrap().len() as u32;
    assert!(clips.check_against(joints, 0).is_ok());
    assert!(clips.check_against(1, 0).is_err());
    let material = model.submeshes[0].material.as_ref().unwrap();
    assert_eq!(material.alpha_mode, AlphaMode::Opaque);
    let base = material.base_color.as_ref().unwrap();
    assert_eq!(&*base.path, "m/CesiumMan/CesiumMan/tex_0.ktx2");
    assert_eq!(
        base.hash,
        model.materials.as_ref().unwrap().view().rows[0].base_color_tex
    );
}

#[test]
fn decoded_vertex_streams_agree_with_the_stored_vertices() {
    let (_dir, pack) = bake("none");
    let pak = PakReader::open(&pack).unwrap();
    let skinned: Mesh = pak.load(CESIUM).unwrap();
    assert!(!skinned.view().has_tangents(), "no normal map, no tangents");
    let mesh: Mesh = pak.load(ALPHA).unwrap(); // normal-mapped: MikkTSpace tangents
    let view = mesh.view();
    assert!(view.has_tangents());
    let normals: Vec<[f32; 3]> = view.normals().collect();
    let tangents: Vec<[f32; 4]> = view.tangents().collect();
    assert_eq!(normals.len(), view.vertex_count());
    for (n, t) in normals.iter().zip(&tangents) {
        let len = |v: [f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        assert!((len(*n) - 1.0).abs() < 1e-3 && (len([t[0], t[1], t[2]]) - 1.0).abs() < 1e-3);
        assert!(t[3] == 1.0 || t[3] == -1.0);
        let dot = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
        assert!(
            dot.abs() < 0.05,
            "tangent not orthogonal to its normal: {dot}"
        );
    }
    let (lo, hi) = (view.bounds.aabb_min, view.bounds.aabb_max);
    for p in view.positions() {
        assert!((0..3).all(|i| p[i] >= lo[i] - 1e-4 && p[i] <= hi[i] + 1e-4));
    }
    assert_eq!(view.uvs().count(), view.vertex_count());
    assert!(view.skin().is_none());
    let skin = skinned.view().skin().expect("skinned");
    assert!(skin
        .iter()
        .all(|s| (s.weights.iter().sum::<f32>() - 1.0).abs() < 1e-3));
    assert_eq!(view.indices_u32().len(), view.index_count());
}

#[test]
fn errors_name_the_asset() {
    let (dir, pack) = bake("none");
    let pak = PakReader::open(&pack).unwrap();
    let missing = pak.load::<Mesh>("m/absent.hmesh").unwrap_err();
    assert!(matches!(missing, ReadError::NotFound { .. }));
    assert!(missing.to_string().contains("m/absent.hmesh"), "{missing}");
    let wrong = pak.load::<Texture>(ALPHA).unwrap_err();
    assert!(matches!(wrong, ReadError::Asset { .. }), "{wrong:?}");
    assert!(
        wrong.to_string().starts_with(&format!("{ALPHA}: ")),
        "{wrong}"
    );
    let by_hash = pak.load_by_hash::<Mesh>(0x1234).unwrap_err();
    assert!(
        by_hash.to_string().contains("0000000000001234"),
        "{by_hash}"
    );

    // A texture the .hmat names but the tree lost: the model's error names it.
    let tree_root = out(&dir);
    let texture = tree_root.join("m/CesiumMan/CesiumMan/tex_0.ktx2");
    std::fs::write(&texture, b"not a ktx2").unwrap();
    let error = Model::load(&TreeReader::open(&tree_root).unwrap(), CESIUM).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("m/CesiumMan/CesiumMan/tex_0.ktx2"),
        "{error}"
    );
    let bytes: AssetBytes = pak.load("assets.hman").unwrap();
    assert!(!bytes.is_empty());
}

#[test]
fn a_hot_reloaded_generation_keeps_assets_loaded_from_the_old_one() {
    let (_dir, pack) = bake("none");
    let old: Mesh = PakReader::open(&pack).unwrap().load(ALPHA).unwrap();
    let before = old.bytes().to_vec();
    // A re-bake replaces the pack by rename; the old mapping stays valid for its assets.
    let copy = pack.with_extension("tmp");
    std::fs::copy(&pack, &copy).unwrap();
    std::fs::rename(&copy, &pack).unwrap();
    assert_eq!(old.bytes().to_vec(), before);
    assert_eq!(old.view().vertex_count(), 123);
    let _ = Path::new(""); // keeps the import used when the module is compiled alone
}

/// `examples/load_model` (default features, public API only) prints the JSON shape.
#[test]
fn the_load_model_example_prints_each_submesh_material_and_base_texture() {
    let example = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/load_model");
    assert!(
        example.is_file(),
        "{} is missing: `cargo test` builds the examples",
        example.display()
    );
    let (dir, pack) = bake("zstd");
    for source in [pack, out(&dir)] {
        let output = std::process::Command::new(&example)
            .arg(&source)
            .arg(ALPHA)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["vertices"], 123);
        assert_eq!(json["indices"], 183);
        let submeshes = json["submeshes"].as_array().unwrap();
        assert_eq!(submeshes.len(), 9);
        let modes: Vec<&str> = submeshes
            .iter()
            .map(|s| s["alpha_mode"].as_str().unwrap())
            .collect();
        for mode in ["opaque", "mask", "blend"] {
            assert!(modes.contains(&mode), "{modes:?}");
        }
        let materials: Vec<&str> = submeshes
            .iter()
            .map(|s| s["material"].as_str().unwrap())
            .collect();
        for name in ["MatOpaque", "MatBlend", "MatCutoff25", "MatBed"] {
            let name = format!("AlphaBlendModeTest#{name}");
            assert!(materials.contains(&name.as_str()), "{materials:?}");
        }
        for submesh in submeshes {
            let base = &submesh["base_color"];
            assert!(base["path"].as_str().unwrap().ends_with(".ktx2"), "{base}");
            assert_eq!((&base["width"], &base["levels"]), (&64.into(), &1.into()));
            assert!(submesh["material"]
                .as_str()
                .unwrap()
                .starts_with("AlphaBlendModeTest#"));
        }
    }
    let missing = std::process::Command::new(&example)
        .args([
            dir.path().join("out").as_os_str(),
            "m/absent.hmesh".as_ref(),
        ])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("m/absent.hmesh"));
}

#[test]
fn assets_and_models_load_by_name_with_their_material_names() {
    let (dir, pack) = bake("zstd");
    let pak = PakReader::open(&pack).unwrap();
    let tree = TreeReader::open(out(&dir)).unwrap();
    // One name, three kinds: the load's type picks the row.
    let mesh: Mesh = pak.load_by_name("CesiumMan").unwrap();
    assert_eq!(mesh.path(), CESIUM);
    let table: Materials = tree.load_by_name("CesiumMan").unwrap();
    assert_eq!(table.path(), "m/CesiumMan/CesiumMan.hmat");
    let clips: hearth::Animations = pak.load_by_name("CesiumMan").unwrap();
    assert_eq!(clips.clips().clips.len(), 1);
    let texture: Texture = pak.load_by_name("CesiumMan#tex_0").unwrap();
    assert_eq!(texture.view().width(), 64);

    for model in [
        Model::load_by_name(&pak, "AlphaBlendModeTest").unwrap(),
        Model::load_by_name(&tree, "AlphaBlendModeTest").unwrap(),
    ] {
        let names: Vec<&str> = model.material_slots.iter().map(|m| &*m.name).collect();
        assert_eq!(
            names,
            [
                "AlphaBlendModeTest#MatCutoff25",
                "AlphaBlendModeTest#MatCutoff75",
                "AlphaBlendModeTest#MatBed",
                "AlphaBlendModeTest#MatBlend",
                "AlphaBlendModeTest#MatOpaque",
                "AlphaBlendModeTest#MatCutoffDefault",
            ]
        );
    }
    let missing = Model::load_by_name(&pak, "Nobody").unwrap_err();
    assert!(missing.to_string().contains("Nobody"), "{missing}");
    let wrong = pak.load_by_name::<Texture>("Nobody").unwrap_err();
    assert!(matches!(wrong, ReadError::NotFound { .. }), "{wrong:?}");
}

#[test]
fn background_loads_become_ready_report_progress_and_cancel() {
    use hearth::read::loader::Loader;
    let (_dir, pack) = bake("zstd");
    let pak = PakReader::open(&pack).unwrap();
    let expected = summary(&Model::load(&pak, ALPHA).unwrap());
    let loader = Loader::new(pak, 2);
    let models: Vec<_> = (0..8).map(|_| loader.load_model(ALPHA)).collect();
    let skinned = loader.load::<Mesh>(CESIUM);
    let missing = loader.load::<Mesh>("m/absent.hmesh");
    for model in &models {
        assert_eq!(summary(&model.wait().unwrap()), expected);
    }
    assert_eq!(skinned.wait().unwrap().view().vertex_count(), 2612);
    assert!(matches!(missing.wait(), Err(ReadError::NotFound { .. })));
    let progress = loader.progress();
    assert_eq!(
        (progress.requested, progress.finished, progress.failed),
        (10, 10, 1)
    );
    assert!(progress.is_done() && progress.fraction() == 1.0);

    // Without threads, nothing runs until the game pumps: deterministic cancelling.
    let manual = Loader::new(PakReader::open(&pack).unwrap(), 0);
    let kept = manual.load_by_name::<Materials>("CesiumMan");
    let dropped = manual.load::<Texture>("m/CesiumMan/CesiumMan/tex_0.ktx2");
    let later = manual.load::<Mesh>(CESIUM);
    assert!(kept.get().is_none() && !kept.is_ready());
    dropped.cancel();
    assert_eq!(manual.pump(2), 2);
    assert_eq!(kept.get().unwrap().unwrap().view().len(), 1);
    assert!(matches!(dropped.wait(), Err(ReadError::Cancelled)));
    manual.cancel_all();
    assert!(matches!(later.wait(), Err(ReadError::Cancelled)));
    assert_eq!(manual.pump(10), 0);
    assert_eq!(manual.progress().cancelled, 2);

    // A handle is a future too: driven here by a minimal executor.
    let texture = loader.load::<Texture>("m/CesiumMan/CesiumMan/tex_0.ktx2");
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    let mut future = std::pin::pin!(texture);
    let ready = loop {
        if let std::task::Poll::Ready(result) =
            std::future::Future::poll(future.as_mut(), &mut context)
        {
            break result;
        }
        std::thread::yield_now();
    };
    assert_eq!(ready.unwrap().view().width(), 64);
}

/// `ModelMaterial::uvs` says which UV set and transform each slot reads, as the `.hmat` keeps
/// them: none where the bake moved a shared transform into the mesh's UVs, the transform and
/// set 1 for a slot on TEXCOORD_1, and two different ones in one material
/// (`TextureTransformBoard`, see its `generate.py`).
#[test]
fn model_materials_say_which_uv_set_and_transform_each_slot_reads() {
    use hearth::TextureUv;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    crate::common::copy_dir(&corpus("gltf/TextureTransformBoard"), &src.join("board"));
    std::fs::write(
        src.join("hearth.toml"),
        "[[content.group]]\nassets = [\"**/*.gltf\"]\n",
    )
    .unwrap();
    let report = hearth::bake::Baker::new(src.join("hearth.toml"), out(&dir))
        .run()
        .unwrap();
    let pak = PakReader::open(&report.pack_path).unwrap();
    let model = Model::load_by_name(&pak, "TextureTransformBoard").unwrap();
    let slot = |name: &str| {
        model
            .material_slots
            .iter()
            .find(|m| m.name.ends_with(&format!("#{name}")))
            .unwrap_or_else(|| panic!("no material {name}"))
            .uvs
    };
    let t = |set| TextureUv::from_parts(set, [0.6, 0.4], std::f32::consts::FRAC_PI_2, [0.3, 0.3]);
    let b = TextureUv::from_parts(1, [0.0, -0.5], 0.0, [0.3, 0.3]);
    let close = |a: TextureUv, b: TextureUv| {
        a.set == b.set
            && (0..2).all(|r| (0..3).all(|c| (a.matrix[r][c] - b.matrix[r][c]).abs() < 1e-6))
    };
    assert_eq!(
        slot("emissive_uv0")[4],
        TextureUv::IDENTITY,
        "baked into the UVs"
    );
    assert!(
        close(slot("emissive_uv1")[4], t(1)),
        "{:?}",
        slot("emissive_uv1")
    );
    assert!(close(slot("normal_uv1")[2], t(1)));
    let mixed = slot("mixed");
    for (texture_slot, expected) in [(0, t(0)), (1, b), (2, t(0)), (3, t(0)), (4, b)] {
        assert!(
            close(mixed[texture_slot], expected),
            "slot {texture_slot}: {:?}",
            mixed[texture_slot]
        );
    }
}
