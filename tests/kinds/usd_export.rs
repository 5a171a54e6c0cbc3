//! USD export (issue 38): corpus models baked, exported as USDC, USDA and USDZ, and opened by
//! Pixar's OpenUSD (`pip install usd-core`, run through `usd_check.py`): the crate version is
//! 0.8.0, the validators report no error, and points, triangles, UVs and material inputs read
//! back equal to what hearth baked.
#![cfg(all(feature = "bake", feature = "export"))]

use crate::common::{copy_dir, corpus};
use hearth::read::model::Model;
use hearth::Assets;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Bakes the corpus folder `folder` (its model `file`) into a runtime tree; returns the
/// tree and the model's `.hmesh` runtime path.
fn bake(folder: &str, file: &str) -> (tempfile::TempDir, String) {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus(folder), src.path());
    let out = tempfile::tempdir().unwrap();
    let manifest = src.path().join("hearth-test.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[content.group]]\nassets = [\"{file}\"]\n[default]\n\
             texture = {{ quality = \"fastest\", max_size = 64, mips = false }}\n"
        ),
    )
    .unwrap();
    hearth::bake::Baker::new(manifest.as_path(), out.path())
        .run()
        .unwrap();
    let mesh = Path::new(file).with_extension("hmesh");
    (out, mesh.to_string_lossy().into_owned())
}

/// Exports `mesh` of the tree `tree` to `dest`.
fn export(tree: &Path, mesh: &str, dest: &Path) -> Vec<PathBuf> {
    let assets = Assets::open(tree).unwrap();
    hearth::export::write(&assets, mesh, dest, &[tree]).unwrap()
}

/// What usd-core reads from `file` (see `usd_check.py`); fails loudly without usd-core and
/// on any validator error (warnings are printed).
fn usd_check(file: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kinds/usd_check.py");
    let output = std::process::Command::new("python3")
        .arg(&script)
        .arg(file)
        .output()
        .expect("python3 runs (the USD export tests need Python 3 and `pip install usd-core`)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stdout.starts_with("PXR-MISSING"),
        "Pixar's OpenUSD is missing: run `python3 -m pip install usd-core` ({stdout})"
    );
    assert!(
        output.status.success(),
        "usd_check.py on {}: {stderr}\n{stdout}",
        file.display()
    );
    let report: Value = serde_json::from_str(stdout.trim()).unwrap();
    for warning in report["warnings"].as_array().unwrap() {
        eprintln!("usd-core warning on {}: {warning}", file.display());
    }
    assert_eq!(
        report["errors"].as_array().unwrap().len(),
        0,
        "usd-core's validators on {}: {}",
        file.display(),
        report["errors"]
    );
    report
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

/// Points, triangles, UVs and each material's inputs in `report` equal what hearth baked.
fn assert_reads_back(report: &Value, model: &Model) {
    assert_eq!(report["upAxis"], "Y");
    assert_eq!(report["metersPerUnit"], 1.0);
    let meshes = report["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 1);
    let mesh = &meshes[0];
    let view = model.mesh.view();
    let points: Vec<[f32; 3]> = mesh["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| f32s(p).try_into().unwrap())
        .collect();
    assert_eq!(points, view.positions().collect::<Vec<_>>());
    let uvs: Vec<[f32; 2]> = mesh["st"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| f32s(p).try_into().unwrap())
        .collect();
    let baked: Vec<[f32; 2]> = view.uvs().map(|[u, v]| [u, 1.0 - v]).collect();
    assert_eq!(uvs, baked);
    assert_eq!(mesh["st_interpolation"], "vertex");
    let indices = view.indices_u32();
    let mut triangles = Vec::new();
    for part in &model.submeshes {
        let s = part.submesh;
        let range = s.first_index as usize..(s.first_index + s.index_count) as usize;
        triangles.extend(indices[range].iter().map(|&i| (i + s.base_vertex) as i64));
    }
    let read: Vec<i64> = mesh["indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_i64().unwrap())
        .collect();
    assert_eq!(read, triangles);
    assert!(mesh["counts"].as_array().unwrap().iter().all(|c| c == 3));
    // In the layer's order, which is the slots' order.
    let materials = report["materials"].as_array().unwrap();
    assert_eq!(materials.len(), model.material_slots.len());
    for (material, entry) in model.material_slots.iter().zip(materials) {
        let (path, inputs) = (&entry[0], &entry[1]);
        let textures = &report["textures"];
        let base = &inputs["diffuseColor"];
        let factor = &material.base_color_factor;
        match base.get("connected") {
            Some(out) => {
                let shader = out.as_str().unwrap().split(".outputs:").next().unwrap();
                assert_eq!(f32s(&textures[shader]["scale"]), factor.to_vec(), "{path}");
                assert_eq!(textures[shader]["sourceColorSpace"], "sRGB");
                let file = textures[shader]["resolved"].as_str().unwrap();
                assert!(!file.is_empty(), "{path}: the texture resolves");
            }
            None => assert_eq!(f32s(base), factor[..3].to_vec(), "{path}"),
        }
        if inputs["metallic"].get("connected").is_none() {
            assert_eq!(
                inputs["metallic"].as_f64().unwrap() as f32,
                material.metallic_factor
            );
            assert_eq!(
                inputs["roughness"].as_f64().unwrap() as f32,
                material.roughness_factor
            );
        }
        let emissive = &inputs["emissiveColor"];
        match emissive.get("connected") {
            Some(_) => assert!(material.emissive.is_some(), "{path}"),
            None => assert_eq!(f32s(emissive), material.emissive_factor.to_vec(), "{path}"),
        }
    }
}

/// A textured model (BoxTextured) as `.usdc`: crate 0.8.0, valid, and equal to the bake.
#[test]
fn usd_export_textured_usdc_validates_and_reads_back() {
    let (tree, mesh) = bake("gltf/BoxTextured", "BoxTextured.gltf");
    let dir = tempfile::tempdir().unwrap();
    let written = export(tree.path(), &mesh, &dir.path().join("box.usdc"));
    assert_eq!(written[0], dir.path().join("box.usdc"));
    assert!(written[1..]
        .iter()
        .all(|p| p.starts_with(dir.path().join("box_textures"))));
    let report = usd_check(&written[0]);
    assert_eq!(report["version"], "0.8.0");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    assert_reads_back(&report, &model);
}

/// The same model as `.usda` and `.usdz` (the validators include the USDZ package rules).
#[test]
fn usd_export_textured_usda_and_usdz_validate_and_read_back() {
    let (tree, mesh) = bake("gltf/BoxTextured", "BoxTextured.gltf");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["box.usda", "box.usdz"] {
        let written = export(tree.path(), &mesh, &dir.path().join(name));
        let report = usd_check(&written[0]);
        assert_reads_back(&report, &model);
    }
    let zip = std::fs::read(dir.path().join("box.usdz")).unwrap();
    // The root layer is the archive's first file.
    assert_eq!(&zip[30..30 + "box.usdc".len()], b"box.usdc");
}

/// Every texture slot (DamagedHelmet: base colour, metallic-roughness, normal, occlusion,
/// emissive) as a `UsdUVTexture` in the `.usdz`, with glTF's scales as `scale`/`bias`.
#[test]
fn usd_export_every_texture_slot_reads_back() {
    let (tree, mesh) = bake("gltf/DamagedHelmet", "DamagedHelmet.glb");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = export(tree.path(), &mesh, &dir.path().join("helmet.usdz"));
    let report = usd_check(&written[0]);
    assert_reads_back(&report, &model);
    let inputs = &report["materials"][0][1];
    for input in [
        "diffuseColor",
        "metallic",
        "roughness",
        "emissiveColor",
        "normal",
        "occlusion",
    ] {
        assert!(
            inputs[input].get("connected").is_some(),
            "{input}: {inputs}"
        );
    }
    let textures = report["textures"].as_object().unwrap();
    assert_eq!(textures.len(), 5);
    let material = &model.material_slots[0];
    let normal = textures
        .iter()
        .find(|(k, _)| k.ends_with("/NormalTexture"))
        .unwrap()
        .1;
    let k = material.row.normal_scale;
    assert_eq!(f32s(&normal["scale"]), [2.0 * k, 2.0 * k, 2.0, 1.0]);
    assert_eq!(f32s(&normal["bias"]), [-k, -k, -1.0, 0.0]);
    assert_eq!(normal["sourceColorSpace"], "raw");
    let emissive = textures
        .iter()
        .find(|(k, _)| k.ends_with("/EmissiveTexture"))
        .unwrap()
        .1;
    assert_eq!(emissive["sourceColorSpace"], "sRGB");
    let [r, g, b] = material.emissive_factor;
    assert_eq!(f32s(&emissive["scale"]), [r, g, b, 1.0]);
}

/// A model with several materials and alpha modes (AlphaBlendModeTest): one subset per
/// submesh, each bound to its material.
#[test]
fn usd_export_several_materials_bind_per_subset() {
    let (tree, mesh) = bake("gltf/AlphaBlendModeTest", "AlphaBlendModeTest.glb");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    assert!(model.submeshes.len() > 1);
    let dir = tempfile::tempdir().unwrap();
    let written = export(tree.path(), &mesh, &dir.path().join("alpha.usdz"));
    let report = usd_check(&written[0]);
    assert_reads_back(&report, &model);
    let subsets = report["meshes"][0]["subsets"].as_array().unwrap();
    assert_eq!(subsets.len(), model.submeshes.len());
    assert!(subsets.iter().all(|s| s[1].is_string()), "{subsets:?}");
    let thresholds = report["materials"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m[1]["opacityThreshold"].is_number())
        .count();
    let masks = model
        .material_slots
        .iter()
        .filter(|m| m.alpha_mode == hearth::format::hmat::AlphaMode::Mask)
        .count();
    assert_eq!(thresholds, masks);
}

/// A skinned, animated model (CesiumMan): a valid skeleton bound to the mesh, and its clip.
#[test]
fn usd_export_skinned_model_has_a_valid_skeleton_and_clip() {
    let (tree, mesh) = bake("gltf/CesiumMan", "CesiumMan.gltf");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["man.usdc", "man.usda"] {
        let written = export(tree.path(), &mesh, &dir.path().join(name));
        let report = usd_check(&written[0]);
        assert_reads_back(&report, &model);
        let joints = model.mesh.view().skeleton.as_ref().unwrap().len();
        assert_eq!(report["skeleton"]["joints"], joints as u64);
        assert_eq!(report["skeleton"]["valid"], true);
        assert!(report["skeleton"]["animation_times"].as_u64().unwrap() > 1);
    }
}

/// The two writers agree: OpenUSD reads the `.usdc` and the `.usda` of a model (skin, clips,
/// half-precision scales, every texture slot) as the same layer.
#[test]
fn usd_export_usdc_and_usda_read_as_the_same_layer() {
    for (folder, file) in [
        ("gltf/CesiumMan", "CesiumMan.gltf"),
        ("gltf/DamagedHelmet", "DamagedHelmet.glb"),
    ] {
        let (tree, mesh) = bake(folder, file);
        let dir = tempfile::tempdir().unwrap();
        let binary = export(tree.path(), &mesh, &dir.path().join("m.usdc"));
        let text = export(tree.path(), &mesh, &dir.path().join("m.usda"));
        // Fails loudly without usd-core, and on any validator error.
        usd_check(&binary[0]);
        let script = "import sys\nfrom pxr import Sdf\n\
            a, b = (Sdf.Layer.FindOrOpen(p).ExportToString() for p in sys.argv[1:])\n\
            sys.exit(0 if a == b else 1)\n";
        let status = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&binary[0])
            .arg(&text[0])
            .status()
            .unwrap();
        assert!(status.success(), "{file}: the .usdc and the .usda differ");
    }
}

/// Two exports of the same model are byte-identical, in every format.
#[test]
fn usd_export_is_deterministic() {
    let (tree, mesh) = bake("gltf/CesiumMan", "CesiumMan.gltf");
    let assets = Assets::open(tree.path()).unwrap();
    for name in ["a.usdc", "a.usda", "a.usdz"] {
        let first = hearth::export::export_model(&assets, &mesh, Path::new(name)).unwrap();
        let second = hearth::export::export_model(&assets, &mesh, Path::new(name)).unwrap();
        assert_eq!(first, second, "{name}");
    }
}

/// A wrong extension, a missing model and an input as the output are errors naming them.
#[test]
fn usd_export_errors_name_the_file() {
    let (tree, mesh) = bake("gltf/BoxTextured", "BoxTextured.gltf");
    let assets = Assets::open(tree.path()).unwrap();
    let e = hearth::export::export_model(&assets, &mesh, Path::new("x.obj")).unwrap_err();
    assert!(e.contains("x.obj") && e.contains(".usdz"), "{e}");
    let e = hearth::export::export_model(&assets, "Nope.hmesh", Path::new("x.usdc")).unwrap_err();
    assert!(e.contains("Nope.hmesh"), "{e}");
    // An output that is one of the inputs is refused, naming it.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.usdc");
    std::fs::write(&input, b"not USD").unwrap();
    let e = hearth::export::write(&assets, &mesh, &input, &[&input]).unwrap_err();
    assert!(e.contains("in.usdc") && e.contains("input"), "{e}");
    assert_eq!(std::fs::read(&input).unwrap(), b"not USD");
}

/// A scene placing one model twice and a marker: an `Xform` per reference, the model's layer
/// referenced (inside the `.usdz`, or beside the `.usda`), each instance where the scene puts it.
#[test]
fn usd_export_scene_references_its_models() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/BoxTextured"), &src.path().join("models"));
    let scene = "[scene]\n\
        [[scene.ref]]\nid = 'left'\nmesh = '../models/BoxTextured.gltf'\ntranslation = [-2.0, 0.0, 0.0]\n\
        [[scene.ref]]\nid = 'right'\nmesh = '../models/BoxTextured.gltf'\ntranslation = [2.0, 0.5, 0.0]\n\
        rotation = [0.0, 90.0, 0.0]\nscale = [2.0, 2.0, 2.0]\n\
        [[scene.ref]]\nid = 'Spawn'\ntranslation = [0.0, 0.0, 5.0]\n";
    std::fs::create_dir_all(src.path().join("levels")).unwrap();
    std::fs::write(src.path().join("levels/yard.toml"), scene).unwrap();
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"levels/*.toml\", \"models/*.gltf\"]\n\
         [default]\ntexture = { quality = \"fastest\", max_size = 64, mips = false }\n",
    )
    .unwrap();
    let tree = tempfile::tempdir().unwrap();
    hearth::bake::Baker::new(manifest.as_path(), tree.path())
        .run()
        .unwrap();
    let assets = Assets::open(tree.path()).unwrap();
    let model = Model::load(&assets, "models/BoxTextured.hmesh").unwrap();
    let points: Vec<[f32; 3]> = model.mesh.view().positions().collect();
    let dir = tempfile::tempdir().unwrap();
    for name in ["yard.usdz", "yard.usda"] {
        let written = export(tree.path(), "levels/yard.hscene", &dir.path().join(name));
        let report = usd_check(&written[0]);
        let meshes = report["meshes"].as_array().unwrap();
        assert_eq!(meshes.len(), 2, "{name}");
        let mut places: Vec<Vec<f32>> = Vec::new();
        for mesh in meshes {
            let read: Vec<[f32; 3]> = mesh["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| f32s(p).try_into().unwrap())
                .collect();
            assert_eq!(read, points, "{name}");
            assert!(mesh["binding"].is_string(), "{name}: {mesh}");
            places.push(f32s(&mesh["world_translation"]));
        }
        assert_eq!(
            places,
            [vec![-2.0, 0.0, 0.0], vec![2.0, 0.5, 0.0]],
            "{name}"
        );
    }
}

/// A model with morph targets (MorphPrimitivesTest): UsdSkel blend shapes on the mesh, their
/// offsets equal to the baked deltas, their weights from an animation.
#[test]
fn usd_export_morph_targets_become_blend_shapes() {
    let (tree, mesh) = bake("gltf/MorphPrimitivesTest", "MorphPrimitivesTest.glb");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    let view = model.mesh.view();
    let morphs = view
        .morph_targets
        .as_ref()
        .expect("the model has morph targets");
    let dir = tempfile::tempdir().unwrap();
    for name in ["morph.usdc", "morph.usdz"] {
        let written = export(tree.path(), &mesh, &dir.path().join(name));
        let report = usd_check(&written[0]);
        assert_reads_back(&report, &model);
        let shapes = report["meshes"][0]["blend_shapes"].as_array().unwrap();
        assert_eq!(shapes.len(), morphs.targets.len(), "{name}");
        for (shape, target) in shapes.iter().zip(&morphs.targets) {
            let offsets: Vec<[f32; 3]> = shape
                .as_array()
                .unwrap()
                .iter()
                .map(|p| f32s(p).try_into().unwrap())
                .collect();
            assert_eq!(offsets, target.positions.to_vec(), "{name}");
        }
        let order = report["skeleton"]["blend_shape_order"].as_array().unwrap();
        assert_eq!(order.len(), morphs.targets.len(), "{name}");
    }
}

/// A glTF triangle with one morph target whose weight a clip keys from 0 to 1 over a second.
fn morph_animated_gltf() -> String {
    use base64::Engine;
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let deltas: [[f32; 3]; 3] = [[0.0, 0.0, 1.0]; 3];
    let times: [f32; 2] = [0.0, 1.0];
    let weights: [f32; 2] = [0.0, 1.0];
    let mut buffer: Vec<u8> = Vec::new();
    for part in [&positions[..], &deltas[..]] {
        buffer.extend(part.iter().flatten().flat_map(|v| v.to_le_bytes()));
    }
    buffer.extend(times.iter().chain(&weights).flat_map(|v| v.to_le_bytes()));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&buffer)
    );
    serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0 }],
        "meshes": [{
            "primitives": [{ "attributes": { "POSITION": 0 }, "targets": [{ "POSITION": 1 }] }],
            "weights": [0.25]
        }],
        "animations": [{
            "name": "Grow",
            "channels": [{ "sampler": 0, "target": { "node": 0, "path": "weights" } }],
            "samplers": [{ "input": 2, "output": 3, "interpolation": "LINEAR" }]
        }],
        "buffers": [{ "byteLength": buffer.len(), "uri": uri }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 72, "byteLength": 8 },
            { "buffer": 0, "byteOffset": 80, "byteLength": 8 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0] },
            { "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0.0, 0.0, 1.0], "max": [0.0, 0.0, 1.0] },
            { "bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
              "min": [0.0], "max": [1.0] },
            { "bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR" }
        ]
    })
    .to_string()
}

/// A clip keying morph weights becomes `blendShapeWeights` time samples (24 per second).
#[test]
fn usd_export_morph_weight_clips_are_time_sampled() {
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("Grow.gltf"), morph_animated_gltf()).unwrap();
    let manifest = src.path().join("hearth.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"Grow.gltf\"]\n").unwrap();
    let tree = tempfile::tempdir().unwrap();
    hearth::bake::Baker::new(manifest.as_path(), tree.path())
        .run()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = export(tree.path(), "Grow.hmesh", &dir.path().join("grow.usda"));
    let report = usd_check(&written[0]);
    let samples = report["skeleton"]["blend_weights"].as_object().unwrap();
    assert_eq!(samples.len(), 2, "{samples:?}");
    assert_eq!(f32s(&samples["0.0"]), [0.0]);
    assert_eq!(f32s(&samples["24.0"]), [1.0]);
}

/// `hearth export` by name, and its mistakes: errors naming the output or the asset.
#[cfg(feature = "cli")]
#[test]
fn usd_export_command_writes_by_name_and_names_mistakes() {
    let (tree, _) = bake("gltf/BoxTextured", "BoxTextured.gltf");
    let dir = tempfile::tempdir().unwrap();
    let hearth = |asset: &str, out: &Path| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
            .arg("export")
            .arg(tree.path())
            .arg(asset)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        (output.status.success(), text)
    };
    let out = dir.path().join("box.usdz");
    let (ok, text) = hearth("BoxTextured", &out);
    assert!(ok, "{text}");
    assert!(text.contains("box.usdz"), "{text}");
    usd_check(&out);
    let (ok, text) = hearth("BoxTextured", &dir.path().join("box.txt"));
    assert!(
        !ok && text.contains("box.txt") && text.contains(".usdc"),
        "{text}"
    );
    let (ok, text) = hearth("NoSuchModel", &dir.path().join("x.usdc"));
    assert!(!ok && text.contains("NoSuchModel"), "{text}");
    assert!(!dir.path().join("x.usdc").exists());
}

/// Each triangle as its three corner positions (bits), rotated to start at the smallest so
/// the winding is kept and the first corner does not matter, sorted: the triangles as a set.
fn triangle_set(model: &Model) -> Vec<[[u32; 3]; 3]> {
    let view = model.mesh.view();
    let positions: Vec<[u32; 3]> = view.positions().map(|p| p.map(f32::to_bits)).collect();
    let indices = view.indices_u32();
    let mut triangles = Vec::new();
    for part in &model.submeshes {
        let s = part.submesh;
        let range = s.first_index as usize..(s.first_index + s.index_count) as usize;
        for t in indices[range].chunks_exact(3) {
            let mut corners: [[u32; 3]; 3] =
                std::array::from_fn(|k| positions[(t[k] + s.base_vertex) as usize]);
            let first = (0..3).min_by_key(|&k| corners[k]).unwrap();
            corners.rotate_left(first);
            triangles.push(corners);
        }
    }
    triangles.sort();
    triangles
}

/// Round trip: hearth's own importer bakes hearth's export (`.usdc`, `.usdz`) back to the same
/// triangles (corner positions and winding), the same UV count and the same materials.
#[test]
fn usd_export_round_trips_through_the_importer() {
    for (folder, file) in [
        ("gltf/BoxTextured", "BoxTextured.gltf"),
        ("gltf/AlphaBlendModeTest", "AlphaBlendModeTest.glb"),
        ("gltf/CesiumMan", "CesiumMan.gltf"),
    ] {
        let (tree, mesh) = bake(folder, file);
        let original = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
        for ext in ["usdc", "usdz"] {
            let content = tempfile::tempdir().unwrap();
            export(
                tree.path(),
                &mesh,
                &content.path().join(format!("back.{ext}")),
            );
            let manifest = content.path().join("hearth.toml");
            std::fs::write(
                &manifest,
                format!(
                    "[[content.group]]\nassets = [\"back.{ext}\"]\n[default]\n\
                     texture = {{ quality = \"fastest\", max_size = 64, mips = false }}\n"
                ),
            )
            .unwrap();
            let out = tempfile::tempdir().unwrap();
            let report = hearth::bake::Baker::new(manifest.as_path(), out.path())
                .run()
                .unwrap_or_else(|e| panic!("{file} as .{ext}: {e}"));
            for warning in &report.warnings {
                eprintln!("{file} as .{ext}: {warning}");
            }
            let back = Model::load(&Assets::open(out.path()).unwrap(), "back.hmesh").unwrap();
            assert_eq!(
                triangle_set(&back),
                triangle_set(&original),
                "{file} as .{ext}"
            );
            assert_eq!(
                back.material_slots.len(),
                original.material_slots.len(),
                "{file} as .{ext}"
            );
            let joints = |m: &Model| m.mesh.view().skeleton.as_ref().map_or(0, |s| s.len());
            assert_eq!(joints(&back), joints(&original), "{file} as .{ext}");
        }
    }
}

/// Texture transforms and the second UV set survive the export (TextureTransformBoard): the
/// mesh carries `primvars:st1`, and each texture shader reads the primvar of its slot's UV set
/// through a `UsdTransform2d` that, as usd-core's reading of the specification computes it,
/// maps `st` where the baked material's transform does (in USD's V-up `st` space).
#[test]
fn usd_export_keeps_texture_transforms_and_the_second_uv_set() {
    let (tree, mesh) = bake("gltf/TextureTransformBoard", "TextureTransformBoard.gltf");
    let dest = tempfile::tempdir().unwrap();
    let written = export(tree.path(), &mesh, &dest.path().join("board.usdc"));
    let report = usd_check(&written[0]);
    let usd_mesh = &report["meshes"][0];
    assert!(usd_mesh["st1"].is_array(), "primvars:st1 is written");
    let model = Model::load(&Assets::open(tree.path()).unwrap(), &mesh).unwrap();
    let names = [
        "BaseColorTexture",
        "MetallicRoughnessTexture",
        "NormalTexture",
        "OcclusionTexture",
        "EmissiveTexture",
    ];
    let flip = |[u, v]: [f32; 2]| [u, 1.0 - v];
    let mut checked = 0;
    for material in &model.material_slots {
        let label = material.name.rsplit('#').next().unwrap();
        for (slot, texture_name) in names.iter().enumerate() {
            let key = format!("/TextureTransformBoard/Materials/{label}/{texture_name}");
            let Some(texture) = report["textures"].get(&key) else {
                continue;
            };
            let uv = material.uvs[slot];
            let coordinates = &texture["coordinates"];
            let primvar = if uv.set == 1 { "st1" } else { "st" };
            assert_eq!(coordinates["primvar"], primvar, "{key}");
            let mapped = coordinates["mapped"].as_array().unwrap();
            for (sample, got) in [[0.25, 0.75], [1.0, 0.0]].into_iter().zip(mapped) {
                let expected = flip(uv.apply(flip(sample)));
                let got = f32s(got);
                assert!(
                    (got[0] - expected[0]).abs() < 1e-5 && (got[1] - expected[1]).abs() < 1e-5,
                    "{key} at {sample:?}: usd-core {got:?}, the baked transform {expected:?}"
                );
            }
            checked += 1;
        }
    }
    // 15 one-slot cells, the mixed material's five slots twice (with and without transforms).
    assert_eq!(checked, 25);
}
