//! Parity with the `pak` crate's own tests: pak 0.7.6's fixtures (`tests/fixtures/pak`, MIT,
//! see its README) bake unchanged through hearth, and each assertion of pak's `tests/blob.rs`,
//! `tests/scene.rs` and `tests/material.rs` has its equivalent here, through hearth's runtime
//! API. Each test names the pak test it ports.
#![cfg(feature = "bake")]

use crate::common;

use hearth::bake::{Baker, Config, Report};
use hearth::format::hmat::{self, property};
use hearth::format::hscene::ValueKind;
use hearth::{AssetKind, MaterialTable, PakReader, SceneView};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pak");
    assert!(
        dir.join("scene/pak.toml").is_file(),
        "missing test data: {} (pak's fixtures, see tests/fixtures/pak/README.md)",
        dir.display()
    );
    dir
}

/// A copy of one fixture folder (bakes write nothing into the repository).
fn copy_of(folder: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join(folder);
    common::copy_dir(&fixtures().join(folder), &content);
    (dir, content)
}

fn bake(manifest: &Path, out: &Path) -> Report {
    Baker::new(manifest, out).run().unwrap()
}

/// pak's `bake_with_dir`: a manifest in `dir` listing `assets`, the fixtures as its content
/// root; bakes into `dir/out`.
fn bake_with_fixtures_root(dir: &Path, assets: &str) -> Report {
    let manifest = dir.join("pak.toml");
    let text =
        format!("[content]\ncompression = 'snap'\n\n[[content.group]]\nassets = [{assets}]\n");
    std::fs::write(&manifest, &text).unwrap();
    let config = Config::parse(&text, &manifest, fixtures()).unwrap();
    Baker::new(config, dir.join("out")).run().unwrap()
}

/// pak's `bake_blob_asset_toml`: both asset files bake; what they name is a source file;
/// the pack checks out; two blobs with pak's bytes, dotted names included.
#[test]
fn bake_blob_asset_toml() {
    let (dir, content) = copy_of("blob");
    let report = bake(&content.join("pak.toml"), &dir.path().join("out"));
    let inputs: Vec<&Path> = report.inputs.iter().map(PathBuf::as_path).collect();
    for file in [
        "payload.toml",
        "payload.bin",
        "payload.name.bin.toml",
        "payload.name.bin",
    ] {
        assert!(
            inputs.contains(&content.join(file).as_path()),
            "{file} is an input: {inputs:?}"
        );
    }
    let pack = PakReader::open(&report.pack_path).unwrap();
    pack.verify().unwrap();
    let blobs: Vec<String> = pack
        .entries()
        .map(Result::unwrap)
        .filter(|e| e.kind() == AssetKind::BLOB)
        .map(|e| e.path().into_owned())
        .collect();
    assert_eq!(blobs, ["payload", "payload.name.bin"]);
    // pak asserts `b"blob payload\n"`; the files as crates.io ships them end in CRLF (kept
    // byte for byte, see .gitattributes), and the blob is exactly the file.
    assert_eq!(&*pack.get("payload").unwrap().unwrap(), b"blob payload\r\n");
    assert_eq!(
        &*pack.get("payload.name.bin").unwrap().unwrap(),
        b"dotted blob payload\r\n"
    );
}

/// pak's `bake_with_dir_resolves_project_rooted_asset_globs`: a manifest elsewhere, the
/// fixtures as the content root, a glob rooted at it with `/`.
#[test]
fn bake_with_dir_resolves_project_rooted_asset_globs() {
    let dir = tempfile::tempdir().unwrap();
    let report = bake_with_fixtures_root(dir.path(), "'/blob/payload.toml'");
    let root = fixtures();
    assert!(report.inputs.contains(&root.join("blob/payload.toml")));
    assert!(report.inputs.contains(&root.join("blob/payload.bin")));
    let pack = PakReader::open(&report.pack_path).unwrap();
    pack.verify().unwrap();
    assert_eq!(pack.len(), 3, "the blob, the manifest and the name table");
    assert_eq!(
        &*pack.get("blob/payload").unwrap().unwrap(),
        b"blob payload\r\n"
    );
}

/// pak's `hash_validation_is_explicit`: a pack verifies; one byte changed at its end, it
/// does not.
#[test]
fn hash_validation_is_explicit() {
    let (dir, content) = copy_of("blob");
    let report = bake(&content.join("pak.toml"), &dir.path().join("out"));
    PakReader::open(&report.pack_path)
        .unwrap()
        .verify()
        .unwrap();
    let mut bytes = std::fs::read(&report.pack_path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] = bytes[last].wrapping_add(1);
    std::fs::write(&report.pack_path, bytes).unwrap();
    let damaged = PakReader::open(&report.pack_path).and_then(|pack| pack.verify());
    assert!(damaged.is_err());
}

/// pak's `repeated_bakes_assign_stable_blob_ids`: 32 files baked three times give the same
/// entry for each name and byte-identical packs.
#[test]
fn repeated_bakes_assign_stable_blob_ids() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    std::fs::create_dir_all(&content).unwrap();
    for idx in 0..32u8 {
        let bytes = vec![idx; idx as usize * 4096 + 1];
        std::fs::write(content.join(format!("asset_{idx:02}.bin")), bytes).unwrap();
    }
    std::fs::write(
        content.join("pak.toml"),
        "[content]\ncompression = 'snap'\n\n[[content.group]]\nassets = ['*.bin']\n",
    )
    .unwrap();
    let mut first: Option<Vec<u8>> = None;
    for bake_idx in 0..3 {
        let out = dir.path().join(format!("out-{bake_idx}"));
        let report = bake(&content.join("pak.toml"), &out);
        let pack = PakReader::open(&report.pack_path).unwrap();
        for idx in 0..32u8 {
            let entry = pack.find(&format!("asset_{idx:02}.bin")).unwrap().unwrap();
            assert_eq!(
                &*entry.bytes().unwrap(),
                vec![idx; idx as usize * 4096 + 1].as_slice()
            );
            // pak: `BlobId(idx)`. Entries are sorted by path, `asset_` before `assets.hman`:
            // the idx-th file is entry idx, in every bake.
            assert_eq!(entry.index(), idx as usize);
        }
        let bytes = std::fs::read(&report.pack_path).unwrap();
        match &first {
            Some(expected) => assert_eq!(&bytes, expected),
            None => first = Some(bytes),
        }
    }
}

/// pak's `default_material_color_bitmap_matches_format`: an empty `[material]` bakes; its
/// color is white (pak: a 1x1 RGBA bitmap; hearth: the factor, no texture).
#[test]
fn default_material_color_bitmap_matches_format() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    common::write_files(
        &content,
        &[
            ("material.toml", b"[material]\n"),
            (
                "pak.toml",
                b"[content]\ncompression = 'snap'\n\n[[content.group]]\nassets = ['material.toml']\n",
            ),
        ],
    );
    let report = bake(&content.join("pak.toml"), &dir.path().join("out"));
    let pack = PakReader::open(&report.pack_path).unwrap();
    let bytes = pack.get("material.hmat").unwrap().unwrap();
    let table = MaterialTable::parse(&bytes).unwrap();
    assert_eq!(table.rows.len(), 1);
    assert_eq!(table.rows[0].base_color_factor, [1.0; 4]);
    assert_eq!(table.rows[0].base_color_tex, 0);
}

/// pak's `material_bitmap_toml_src_resolves_relative_to_bitmap_toml`: a material names a
/// `[bitmap]` file that no group lists; the bitmap and its image are sources of the bake and
/// the material's color is that bitmap.
#[test]
fn material_bitmap_toml_src_resolves_relative_to_bitmap_toml() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    let albedo = std::fs::read(fixtures().join("scene/material_01.png")).unwrap();
    common::write_files(
        &content,
        &[
            ("textures/albedo.png", &albedo),
            ("textures/albedo.toml", b"[bitmap]\nsrc = 'albedo.png'\n"),
            (
                "materials/mat.toml",
                b"[material]\ncolor = '../textures/albedo.toml'\n",
            ),
            (
                "pak.toml",
                b"[content]\ncompression = 'snap'\n\n[[content.group]]\nassets = ['materials/mat.toml']\n",
            ),
        ],
    );
    let report = bake(&content.join("pak.toml"), &dir.path().join("out"));
    assert!(report
        .inputs
        .contains(&content.join("textures/albedo.toml")));
    assert!(report.inputs.contains(&content.join("textures/albedo.png")));
    let pack = PakReader::open(&report.pack_path).unwrap();
    let bytes = pack.get("materials/mat.hmat").unwrap().unwrap();
    let color = MaterialTable::parse(&bytes).unwrap().rows[0].base_color_tex;
    let texture = pack.resolve(color).unwrap().expect("the color resolves");
    assert_eq!(&*texture.path, "textures/albedo.ktx2");
    let ktx = pack.get("textures/albedo.ktx2").unwrap().unwrap();
    assert!(!hearth::Ktx2::parse(&ktx)
        .unwrap()
        .level(0)
        .unwrap()
        .is_empty());
}

/// The quaternion of pak's Euler angles (degrees) in its default order, XYZ intrinsic
/// (glam's `Quat::from_euler(EulerRot::XYZ, …)` = qx · qy · qz), computed independently of
/// hearth's code.
fn pak_euler_xyz(x: f32, y: f32, z: f32) -> [f32; 4] {
    let product = |a: [f32; 4], b: [f32; 4]| {
        let ([ax, ay, az, aw], [bx, by, bz, bw]) = (a, b);
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    };
    let half = |deg: f32| (deg.to_radians() / 2.0).sin_cos();
    let ((sx, cx), (sy, cy), (sz, cz)) = (half(x), half(y), half(z));
    product(
        product([sx, 0.0, 0.0, cx], [0.0, sy, 0.0, cy]),
        [0.0, 0.0, sz, cz],
    )
}

/// pak's `deserialize_scene_materials`, on pak's scene fixture baked as it is (its manifest
/// lists only `scene.toml`: the mesh and materials it names are baked with it).
#[test]
fn deserialize_scene_materials() {
    let (dir, content) = copy_of("scene");
    let report = bake(&content.join("pak.toml"), &dir.path().join("out"));
    let pack = PakReader::open(&report.pack_path).unwrap();
    pack.verify().unwrap();
    let bytes = pack.get("scene.hscene").unwrap().expect("the scene");
    let scene = SceneView::parse(&bytes).unwrap();
    let material_row = |hash: u64| {
        let path = pack
            .resolve(hash)
            .unwrap()
            .expect("material in the manifest")
            .path
            .to_string();
        let bytes = pack.get(&path).unwrap().unwrap().into_owned();
        let table = MaterialTable::parse(&bytes).unwrap();
        (table.rows[0], table.properties.into_owned())
    };

    let one = scene.find_ref("mesh-with-one-material").unwrap();
    assert_eq!(one.translation(), [1.0, 2.0, 3.0]);
    let want = pak_euler_xyz(4.0, 5.0, 6.0);
    let got = one.rotation();
    assert!(
        got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-4),
        "{got:?} vs pak's {want:?}"
    );
    let materials: Vec<u64> = one.materials().collect();
    assert_eq!(materials.len(), 1);
    // pak: alpha_test, params METAL | HEIGHT | TRANSMISSION used, ROUGH not.
    let (row, properties) = material_row(materials[0]);
    assert_eq!(row.alpha_mode(), hmat::ALPHA_MASK);
    assert_eq!(row.metallic_factor, 0.25);
    assert_eq!(row.roughness_factor, 1.0, "rough unset: the default");
    let ids: Vec<(u32, f32)> = properties.iter().map(|p| (p.id, p.value[0])).collect();
    assert_eq!(
        ids,
        [(property::HEIGHT, 0.5), (property::TRANSMISSION, 0.75)]
    );
    assert!(one
        .mesh()
        .is_some_and(|mesh| pack.resolve(mesh).unwrap().is_some()));

    let zero = scene.find_ref("mesh-with-zero-materials").unwrap();
    assert_eq!(zero.materials().len(), 0);

    let same = scene.find_ref("mesh-with-two-materials-same").unwrap();
    let same: Vec<u64> = same.materials().collect();
    assert_eq!(same.len(), 2);
    assert_eq!(same[0], same[1]);

    let different = scene.find_ref("mesh-with-two-materials-different").unwrap();
    let different: Vec<u64> = different.materials().collect();
    assert_eq!(different.len(), 2);
    assert_ne!(different[0], different[1]);
    // The image given as a material: pak makes a material of that color; so does hearth.
    let (image_material, _) = material_row(different[1]);
    let color = pack
        .resolve(image_material.base_color_tex)
        .unwrap()
        .unwrap();
    assert_eq!(&*color.path, "material_02.ktx2");

    let data = scene.find_ref("just data").unwrap().data().unwrap();
    let my_value = data.get("my-value").unwrap();
    assert_eq!(my_value.kind(), ValueKind::Float);
    assert_eq!(my_value.as_f64(), Some(42.0));
    let another = data.get("another-value").unwrap();
    assert_eq!(another.kind(), ValueKind::String);
    assert_eq!(another.as_str(), Some("foo"));
    let bar = data.get("bar").unwrap();
    assert_eq!(bar.kind(), ValueKind::Array);
    assert_eq!(bar.len(), 4);
    for (i, n) in [1, 2, 3].into_iter().enumerate() {
        let item = bar.at(i).unwrap();
        assert_eq!(item.kind(), ValueKind::Integer);
        assert_eq!(item.as_i64(), Some(n));
    }
    let banana = bar.at(3).unwrap();
    assert_eq!(banana.kind(), ValueKind::String);
    assert_eq!(banana.as_str(), Some("banana"));

    // Beyond pak's assertions, the rest of its fixture: dotted data keys, tags, and the flat
    // 2D collider (8 numbers, indices up to 3: four 2-number vertices).
    let more = scene.find_ref("more data").unwrap().data().unwrap();
    assert_eq!(more.get("frog").unwrap().as_str(), Some("roger"));
    assert_eq!(scene.find_ref("tags first").unwrap().tags(), ["up"]);
    assert_eq!(scene.find_ref("tags last").unwrap().tags(), ["down"]);
    let collider = scene.geometry().next().unwrap();
    assert_eq!(collider.id(), "my-special-2d-collider");
    assert_eq!(collider.components(), 2);
    assert_eq!(collider.vertex_count(), 4);
    assert_eq!(collider.vertex(3), Some([1.0, 1.0, 0.0]));
    assert_eq!(collider.tags(), ["quad"]);
}

/// pak's `bake_with_generated_content_file`: a manifest elsewhere lists `scene/scene.toml`
/// under the fixtures; the scene, its mesh and material files are sources; the scene reads.
#[test]
fn bake_with_generated_content_file() {
    let dir = tempfile::tempdir().unwrap();
    let report = bake_with_fixtures_root(dir.path(), "'scene/scene.toml'");
    let root = fixtures();
    for file in [
        "scene/scene.toml",
        "scene/mesh_01.toml",
        "scene/material_01.toml",
    ] {
        assert!(report.inputs.contains(&root.join(file)), "{file}");
    }
    let pack = PakReader::open(&report.pack_path).unwrap();
    let bytes = pack.get("scene/scene.hscene").unwrap().unwrap();
    SceneView::parse(&bytes).unwrap();
    // What the scene pulled in is cached like everything else: a second bake does nothing.
    let again = bake_with_fixtures_root(dir.path(), "'scene/scene.toml'");
    assert!(again.baked.is_empty(), "{:?}", again.baked);
    assert_eq!(again.files_written, 0);
}
