//! pak's `[mesh]` and `[animation]` asset files: models baked through the model pipeline with
//! pak's keys (source picked by `src`, `name`, `scene-name`; transforms with pak's Euler order;
//! LODs; position-only shadow geometry), one clip per `.hanim`, and mistakes as errors naming
//! the file and the key.
#![cfg(feature = "bake")]

use crate::common;

use crate::common::corpus;
use hearth::bake::{BakeError, Baker, Report};
use hearth::{AnimClips, MeshView, PakReader};
use std::path::Path;

/// Bakes `files` (plus the corpus folders in `corpus_dirs`, copied to their names) with one
/// group taking every `.toml`.
fn bake(
    files: &[(&str, &[u8])],
    corpus_dirs: &[(&str, &str)],
) -> (tempfile::TempDir, Result<Report, BakeError>) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    common::write_files(&src, files);
    for (from, to) in corpus_dirs {
        common::copy_dir(&corpus(from), &src.join(to));
    }
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"**/*.toml\"]\n\
         exclude = [\"hearth.toml\"]\n",
    )
    .unwrap();
    let report = Baker::new(manifest.as_path(), dir.path().join("out")).run();
    (dir, report)
}

fn rebake(dir: &tempfile::TempDir) -> Result<Report, BakeError> {
    Baker::new(dir.path().join("src/hearth.toml"), dir.path().join("out")).run()
}

fn get(dir: &Path, path: &str) -> Option<Vec<u8>> {
    let pack = PakReader::open(dir.join("out/game.hpack")).unwrap();
    pack.get(path).unwrap().map(|b| b.into_owned())
}

fn positions(mesh: &MeshView<'_>) -> Vec<[f32; 3]> {
    mesh.vertices.iter().map(|v| v.position).collect()
}

fn near(a: [f32; 3], b: [f32; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

#[test]
fn a_mesh_asset_file_bakes_its_gltf_with_textures_and_side_files() {
    let (dir, report) = bake(
        &[(
            "actors/box.toml",
            b"[mesh]\nsrc = '../models/box/BoxTextured.gltf'\n",
        )],
        &[("gltf/BoxTextured", "models/box")],
    );
    let report = report.unwrap();
    let mesh_bytes = get(dir.path(), "actors/box.hmesh").expect("[mesh] → <name>.hmesh");
    let mesh = MeshView::parse(&mesh_bytes).unwrap();
    assert_eq!(mesh.indices.len(), 36);
    assert!(mesh.shadow.is_none(), "no shadow geometry unless asked");
    assert!(mesh.lods.is_some(), "the group's LOD levels apply");
    assert_eq!(
        mesh.materials[0],
        hearth::hash_asset_ref("actors/box/texture"),
        "material refs are named after the asset file, like a model's after its file"
    );
    assert!(get(dir.path(), "actors/box.hmat").is_some());
    assert!(get(dir.path(), "actors/box/tex_0.ktx2").is_some());
    assert!(get(dir.path(), "actors/box.toml").is_none());
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    // The outputs pass hearth's own check and the independent spec reader.
    #[cfg(feature = "cli")]
    {
        let (ok, text) = common::hearth_on(&["check"], &dir.path().join("out"));
        assert!(ok, "{text}");
    }
    let (ok, text) = common::spec_check(&dir.path().join("out"));
    assert!(ok, "{text}");

    // The glTF's buffer is an input of the asset file: editing it re-bakes.
    let bin = dir.path().join("src/models/box/BoxTextured0.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes.extend_from_slice(&[0; 4]); // past byteLength: read, but not used
    std::fs::write(&bin, bytes).unwrap();
    assert_eq!(rebake(&dir).unwrap().baked, ["actors/box.toml"]);
    assert!(rebake(&dir).unwrap().baked.is_empty());
}

/// One triangle, A = (1, 0, 0), B = (0, 0, 0), C = (0, 0, 0.5), as an OBJ.
const TRIANGLE: &[u8] = b"v 1 0 0\nv 0 0 0\nv 0 0 0.5\nf 1 2 3\n";

fn triangle_with(keys: &str) -> Vec<[f32; 3]> {
    let toml = format!("[mesh]\nsrc = 'tri.obj'\nnormals = false\n{keys}");
    let (dir, report) = bake(&[("tri.toml", toml.as_bytes()), ("tri.obj", TRIANGLE)], &[]);
    report.unwrap();
    let bytes = get(dir.path(), "tri.hmesh").unwrap();
    positions(&MeshView::parse(&bytes).unwrap())
}

#[test]
fn transforms_follow_paks_keys_and_euler_order() {
    let has = |points: &[[f32; 3]], p: [f32; 3]| points.iter().any(|q| near(*q, p));
    // pak's default Euler order "xyz" is intrinsic (glam's EulerRot::XYZ, Rx · Ry · Rz):
    // (90, 90, 0) takes A to (0, 1, 0) and C to (0.5, 0, 0).
    let turned = triangle_with("rotation = [90.0, 90.0, 0.0]\n");
    assert!(has(&turned, [0.0, 1.0, 0.0]), "{turned:?}");
    assert!(has(&turned, [0.5, 0.0, 0.0]), "{turned:?}");
    // "zyx" is Rz · Ry · Rx: about the fixed x first, then y; A goes to (0, 0, -1).
    let zyx = triangle_with("euler = 'zyx'\nrotation = [90.0, 90.0, 0.0]\n");
    assert!(has(&zyx, [0.0, 0.0, -1.0]), "{zyx:?}");
    // A quaternion (x, y, z, w): 180° about z.
    let quat = triangle_with("rotation = [0.0, 0.0, 1.0, 0.0]\n");
    assert!(has(&quat, [-1.0, 0.0, 0.0]), "{quat:?}");
    // One number scales every axis; flips mirror before it; the offset moves last.
    let scaled = triangle_with("scale = 2.0\nflip-x = true\noffset = [0.0, 3.0, 0.0]\n");
    assert!(has(&scaled, [-2.0, 3.0, 0.0]), "{scaled:?}");
    assert!(has(&scaled, [0.0, 3.0, 1.0]), "{scaled:?}");
}

/// A glTF with two one-triangle meshes on nodes "Left" and "Right", in scene "Both" (the
/// default) and scene "OnlyRight"; the buffer is a side file.
fn two_mesh_gltf() -> (String, Vec<u8>) {
    let floats: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let json = r#"{
  "asset": {"version": "2.0"},
  "buffers": [{"uri": "parts.bin", "byteLength": 36}],
  "bufferViews": [{"buffer": 0, "byteLength": 36}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0, 0, 0], "max": [1, 1, 0]}],
  "meshes": [{"name": "LeftMesh", "primitives": [{"attributes": {"POSITION": 0}}]},
             {"name": "RightMesh", "primitives": [{"attributes": {"POSITION": 0}}]}],
  "nodes": [{"name": "Left", "mesh": 0, "translation": [-10, 0, 0]},
            {"name": "Right", "mesh": 1, "translation": [10, 0, 0]}],
  "scenes": [{"name": "Both", "nodes": [0, 1]}, {"name": "OnlyRight", "nodes": [1]}],
  "scene": 0
}"#;
    (json.to_owned(), bin)
}

fn bounds_x(keys: &str) -> Result<(f32, f32), String> {
    let (json, bin) = two_mesh_gltf();
    let toml = format!("[mesh]\nsrc = 'parts/two.gltf'\n{keys}");
    let (dir, report) = bake(
        &[
            ("two.toml", toml.as_bytes()),
            ("parts/two.gltf", json.as_bytes()),
            ("parts/parts.bin", &bin),
        ],
        &[],
    );
    report.map_err(|e| e.to_string())?;
    let bytes = get(dir.path(), "two.hmesh").unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    Ok((mesh.bounds.aabb_min[0], mesh.bounds.aabb_max[0]))
}

#[test]
fn name_and_scene_name_pick_what_is_baked() {
    assert_eq!(
        bounds_x("").unwrap(),
        (-10.0, 11.0),
        "the default scene, both"
    );
    assert_eq!(bounds_x("name = 'Left'\n").unwrap(), (-10.0, -9.0));
    assert_eq!(
        bounds_x("name = 'RightMesh'\n").unwrap(),
        (10.0, 11.0),
        "a mesh's own name works too"
    );
    assert_eq!(
        bounds_x("scene-name = 'OnlyRight'\n").unwrap(),
        (10.0, 11.0)
    );
    let error = bounds_x("name = 'Middle'\n").unwrap_err();
    assert!(
        error.contains("two.toml") && error.contains("\"Middle\"") && error.contains("Left"),
        "{error}"
    );
    let error = bounds_x("scene-name = 'Nowhere'\n").unwrap_err();
    assert!(
        error.contains("two.toml") && error.contains("OnlyRight"),
        "{error}"
    );
}

#[test]
fn lod_keys_and_shadow_geometry() {
    let (dir, report) = bake(
        &[
            ("a/man.toml", b"[mesh]\nsrc = '/m/CesiumMan.gltf'\nlod = false\nshadow = true\n"),
            ("a/man3.toml", b"[mesh]\nsrc = '/m/CesiumMan.gltf'\nlod = 3\nmin-lod-triangles = 100\nlod-target-error = 0.1\nlod-lock-border = true\n"),
            ("a/static.toml", b"[mesh]\nsrc = '/m/CesiumMan.gltf'\nignore-skin = true\nshadow = true\nlod = false\n"),
        ],
        &[("gltf/CesiumMan", "m")],
    );
    report.unwrap();

    let bytes = get(dir.path(), "a/man.hmesh").unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    assert!(mesh.lods.is_none(), "lod = false: no LOD chunks");
    let shadow = mesh.shadow.as_ref().expect("shadow = true writes SHDW");
    // Welded: no more vertices than the full mesh, every position one of the mesh's.
    assert!(shadow.positions.len() < mesh.vertices.len());
    let full = positions(&mesh);
    assert!(shadow.positions.iter().all(|p| full.contains(p)));
    // The same triangles, per submesh, drawn from the welded positions.
    assert_eq!(shadow.indices.len(), mesh.indices.len());
    assert_eq!(shadow.ranges.len(), mesh.submeshes.len());
    let mut main: Vec<[[u32; 3]; 3]> = (0..mesh.indices.len() / 3)
        .map(|t| {
            let corner = |k: usize| full[mesh.indices.get(t * 3 + k).unwrap() as usize];
            [0, 1, 2].map(|k| corner(k).map(f32::to_bits))
        })
        .collect();
    let mut welded: Vec<[[u32; 3]; 3]> = shadow
        .indices
        .chunks(3)
        .map(|t| [0, 1, 2].map(|k| shadow.positions[t[k] as usize].map(f32::to_bits)))
        .collect();
    main.sort_unstable();
    welded.sort_unstable();
    assert_eq!(main, welded);
    // Skinned: the shadow vertices carry joints and weights.
    let skin = shadow
        .skin
        .as_ref()
        .expect("a skinned mesh's shadow keeps its skin");
    assert_eq!(skin.len(), shadow.positions.len());
    let still = get(dir.path(), "a/static.hmesh").unwrap();
    let still = MeshView::parse(&still).unwrap();
    assert!(still.skin.is_none());
    assert!(still.shadow.as_ref().unwrap().skin.is_none());

    // The independent spec reader checks SHDW too, and notices a moved shadow vertex.
    let (ok, text) = common::spec_check(&dir.path().join("out"));
    assert!(ok, "{text}");
    let file = dir.path().join("out/a/man.hmesh");
    let mut damaged = std::fs::read(&file).unwrap();
    let entry = (0..damaged[8] as usize)
        .map(|i| 32 + i * 24)
        .find(|at| &damaged[*at..at + 4] == b"SHDW")
        .unwrap();
    let offset = u64::from_le_bytes(damaged[entry + 8..entry + 16].try_into().unwrap()) as usize;
    let first_position = offset + 16 + mesh.submeshes.len() * 8;
    damaged[first_position + 3] ^= 0x40;
    std::fs::write(&file, &damaged).unwrap();
    // The runtime reader checks SHDW's sizes and ranges: a vertex count that does not match
    // the chunk is an error, not a read past it.
    damaged[offset] ^= 1;
    let error = MeshView::parse(&damaged).unwrap_err().to_string();
    assert!(error.contains("SHDW"), "{error}");
    let (ok, text) = common::spec_check(&dir.path().join("out"));
    assert!(!ok && text.contains("SHDW submesh 0"), "{text}");

    let bytes = get(dir.path(), "a/man3.hmesh").unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    let lods = mesh.lods.as_ref().expect("lod = 3");
    assert_eq!(lods.header.lod_count, 3);
    let first = lods.range(0, 0).unwrap();
    assert!(first.index_count > 0 && (first.index_count as usize) < mesh.indices.len());
    assert!(lods
        .table
        .iter()
        .all(|r| r.index_count == 0 || r.index_count >= 300));
}

#[test]
fn the_source_of_the_same_name_and_mistakes_named() {
    // No `src`: the model of the asset file's name.
    let (json, bin) = two_mesh_gltf();
    let (dir, report) = bake(
        &[
            ("two.toml", b"[mesh]\nmax-index = 65535\n"),
            ("two.gltf", json.as_bytes()),
            ("parts.bin", &bin),
        ],
        &[],
    );
    let report = report.unwrap();
    assert!(get(dir.path(), "two.hmesh").is_some());
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("two.toml") && w.contains("`mesh.max-index` is ignored")),
        "{:?}",
        report.warnings
    );

    for (toml, expect) in [
        (
            &b"[mesh]\nsrc = 'two.gltf'\nspin = 3\n"[..],
            "`mesh.spin`: unknown key",
        ),
        (
            b"[mesh]\nsrc = 'two.gltf'\nscale = [1.0, 0.0, 1.0]\n",
            "`scale`",
        ),
        (b"[mesh]\nsrc = 'two.gltf'\neuler = 'xxy'\n", "`euler`"),
        (b"[mesh]\nsrc = 'two.gltf'\nlod = 'many'\n", "`mesh.lod`"),
        (b"[mesh]\n", "none of bad.glb, bad.gltf, bad.obj"),
        (b"[mesh]\nsrc = 'missing.glb'\n", "missing.glb"),
        (b"[animation]\nsrc = 'two.gltf'\n", "has no skin"),
        (
            b"[animation]\nsrc = 'two.gltf'\nspeed = 2\n",
            "`animation.speed`",
        ),
    ] {
        let (_dir, report) = bake(
            &[
                ("bad.toml", toml),
                ("two.gltf", json.as_bytes()),
                ("parts.bin", &bin),
            ],
            &[],
        );
        let error = report.unwrap_err().to_string();
        assert!(
            error.contains("bad.toml") && error.contains(expect),
            "{}: {error}",
            String::from_utf8_lossy(toml)
        );
    }
}

#[test]
fn an_animation_asset_file_bakes_one_clip_less_excluded_joints() {
    let (dir, report) = bake(
        &[
            (
                "anim/all.toml",
                b"[animation]\nsrc = '../man/CesiumMan.gltf'\n",
            ),
            (
                "anim/some.toml",
                b"[animation]\nsrc = '../man/CesiumMan.gltf'\n\
                  exclude = ['Skeleton_neck_joint_1', 'Tail']\n",
            ),
            ("anim/man.toml", b"[mesh]\nsrc = '../man/CesiumMan.gltf'\n"),
        ],
        &[("gltf/CesiumMan", "man")],
    );
    let report = report.unwrap();
    let man = get(dir.path(), "anim/man.hmesh").unwrap();
    let joints = MeshView::parse(&man).unwrap().skeleton.unwrap().len() as u32;
    assert_eq!(joints, 19);
    let all = get(dir.path(), "anim/all.hanim").expect("[animation] → <name>.hanim");
    let all = AnimClips::parse(&all, joints, 0).unwrap();
    assert_eq!(all.clips.len(), 1);
    assert_eq!(all.clips[0].channels.len(), 57);
    // Skeleton_neck_joint_1 is the skin's joint 3, animated by three channels.
    let some = get(dir.path(), "anim/some.hanim").unwrap();
    let some = AnimClips::parse(&some, joints, 0).unwrap();
    assert_eq!(some.clips[0].channels.len(), 54);
    assert!(some.clips[0].channels.iter().all(|c| c.joint != 3));
    // A name that matches no joint is a warning: a typo would otherwise pass silently.
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("anim/some.toml") && w.contains("\"Tail\"")),
        "{:?}",
        report.warnings
    );

    let (_dir, report) = bake(
        &[(
            "walk.toml",
            b"[animation]\nsrc = 'rig/RiggedSimple.glb'\nname = 'walk'\n",
        )],
        &[("gltf/RiggedSimple", "rig")],
    );
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("walk.toml") && error.contains("no animation named \"walk\""),
        "{error}"
    );
}

/// A 12x12 grid of quads (positions, normals, UVs; no tangents) on two nodes, the second
/// turned and moved, with a normal-mapped material: files for `parts/grid.gltf`.
fn grid_gltf() -> Vec<(&'static str, Vec<u8>)> {
    let n = 12usize;
    let (mut positions, mut normals, mut uvs, mut indices) = (vec![], vec![], vec![], vec![]);
    for y in 0..=n {
        for x in 0..=n {
            let (u, v) = (x as f32 / n as f32, y as f32 / n as f32);
            // A bump, so normals differ from flat +Z.
            let z = ((u - 0.5).powi(2) + (v - 0.5).powi(2)) * 0.5;
            positions.extend([u, v, z]);
            let normal = [1.0 - 2.0 * u, 1.0 - 2.0 * v, 2.0];
            let len = normal.iter().map(|c| c * c).sum::<f32>().sqrt();
            normals.extend(normal.map(|c| c / len));
            uvs.extend([u, v]);
        }
    }
    for y in 0..n {
        for x in 0..n {
            let i = (y * (n + 1) + x) as u16;
            let row = (n + 1) as u16;
            indices.extend([i, i + 1, i + row, i + 1, i + row + 1, i + row]);
        }
    }
    let mut bin: Vec<u8> = Vec::new();
    let mut view = |bytes: Vec<u8>| {
        let at = bin.len();
        bin.extend(&bytes);
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        (at, bytes.len())
    };
    let floats = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let p = view(floats(&positions));
    let nm = view(floats(&normals));
    let t = view(floats(&uvs));
    let ix = view(indices.iter().flat_map(|i| i.to_le_bytes()).collect());
    let count = (n + 1) * (n + 1);
    let json = format!(
        r#"{{"asset": {{"version": "2.0"}},
  "buffers": [{{"uri": "grid.bin", "byteLength": {len}}}],
  "bufferViews": [{{"buffer": 0, "byteOffset": {p0}, "byteLength": {p1}}},
                  {{"buffer": 0, "byteOffset": {n0}, "byteLength": {n1}}},
                  {{"buffer": 0, "byteOffset": {t0}, "byteLength": {t1}}},
                  {{"buffer": 0, "byteOffset": {i0}, "byteLength": {i1}}}],
  "accessors": [{{"bufferView": 0, "componentType": 5126, "count": {count}, "type": "VEC3",
                  "min": [0, 0, 0], "max": [1, 1, 0.25]}},
                {{"bufferView": 1, "componentType": 5126, "count": {count}, "type": "VEC3"}},
                {{"bufferView": 2, "componentType": 5126, "count": {count}, "type": "VEC2"}},
                {{"bufferView": 3, "componentType": 5123, "count": {icount}, "type": "SCALAR"}}],
  "images": [{{"uri": "bumps.png"}}],
  "textures": [{{"source": 0}}],
  "materials": [{{"name": "Bumpy", "normalTexture": {{"index": 0}}}}],
  "meshes": [{{"name": "Grid", "primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1,
               "TEXCOORD_0": 2}}, "indices": 3, "material": 0}}]}}],
  "nodes": [{{"name": "A", "mesh": 0}},
            {{"name": "B", "mesh": 0, "translation": [3, 0, 0], "rotation": [0, 0, 0.7071068, 0.7071068]}}],
  "scenes": [{{"nodes": [0, 1]}}], "scene": 0}}"#,
        len = bin.len(),
        p0 = p.0,
        p1 = p.1,
        n0 = nm.0,
        n1 = nm.1,
        t0 = t.0,
        t1 = t.1,
        i0 = ix.0,
        i1 = ix.1,
        icount = indices.len(),
    );
    let mut png = Vec::new();
    image::RgbaImage::from_fn(4, 4, |x, y| {
        image::Rgba([128 + x as u8 * 20, 128 + y as u8 * 20, 255, 255])
    })
    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
    .unwrap();
    vec![
        ("parts/grid.gltf", json.into_bytes()),
        ("parts/grid.bin", bin),
        ("parts/bumps.png", png),
    ]
}

/// Every `[mesh]` key reaches the setting it names: each one, alone, changes the baked
/// `.hmesh` (or, for the tuning values a grid does not react to, its out-of-range value is
/// an error naming the setting).
#[test]
fn every_mesh_key_changes_the_output() {
    let keys = [
        "normals = false",
        "tangents = false",
        "bake-tangent = false",
        "optimize = false",
        "merge = false",
        "lod = false",
        "lod = 1",
        "min-lod-triangles = 200",
        "lod-lock-border = true",
        "lod-target-error = 0.001",
        "shadow = true",
        "flip-y = true",
        "scale = [1.0, 2.0, 1.0]",
        "offset = [0.0, 0.0, 1.0]",
        "rotation = [0.0, 0.0, 90.0]",
        "euler = 'zyx'\nrotation = [90.0, 90.0, 0.0]",
        "name = 'B'",
    ];
    let grid = grid_gltf();
    let mut files: Vec<(String, Vec<u8>)> = grid
        .iter()
        .map(|(path, bytes)| (path.to_string(), bytes.clone()))
        .collect();
    files.push((
        "base.toml".into(),
        b"[mesh]\nsrc = 'parts/grid.gltf'\nrotation = [90.0, 90.0, 0.0]\n".to_vec(),
    ));
    for (i, key) in keys.iter().enumerate() {
        let rotation = if key.contains("rotation") {
            String::new()
        } else {
            "rotation = [90.0, 90.0, 0.0]\n".into()
        };
        let toml = format!("[mesh]\nsrc = 'parts/grid.gltf'\n{rotation}{key}\n");
        files.push((format!("v{i}.toml"), toml.into_bytes()));
    }
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (dir, report) = bake(&borrowed, &[]);
    report.unwrap();
    let base = get(dir.path(), "base.hmesh").unwrap();
    MeshView::parse(&base).unwrap();
    for (i, key) in keys.iter().enumerate() {
        let variant = get(dir.path(), &format!("v{i}.hmesh")).unwrap();
        MeshView::parse(&variant).unwrap();
        assert_ne!(variant, base, "`{key}` changed nothing");
    }
    for (key, names) in [
        ("overdraw-threshold = 0.5", "overdraw_threshold"),
        ("lod-target-error = 2.0", "lod.target_error"),
    ] {
        let toml = format!("[mesh]\nsrc = 'parts/grid.gltf'\n{key}\n");
        let mut files: Vec<(&str, &[u8])> = grid.iter().map(|(p, b)| (*p, b.as_slice())).collect();
        files.push(("bad.toml", toml.as_bytes()));
        let error = bake(&files, &[]).1.unwrap_err().to_string();
        assert!(
            error.contains("bad.toml") && error.contains(names),
            "{key}: {error}"
        );
    }
}
