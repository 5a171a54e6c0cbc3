//! The mesh pipeline on real models: every corpus glTF/GLB baked and its `.hmesh`/`.hmat`
//! read back with hearth's validating views, checking the invariants the spec promises.
#![cfg(feature = "bake")]

use crate::common;

use crate::common::{copy_dir, corpus, models};
use hearth::bake::Baker;
use hearth::format::hman;
use hearth::format::hmesh::{oct_decode, GpuVertex};
use hearth::{MaterialTable, MeshView};
use std::collections::BTreeMap;
use std::path::Path;

mod attributes;
mod generated;

fn bake_dir(
    src: &Path,
    globs: &str,
    extra: &str,
) -> (
    tempfile::TempDir,
    Result<hearth::bake::Report, hearth::bake::BakeError>,
) {
    let out = tempfile::tempdir().unwrap();
    let manifest = src.join("hearth-test.toml");
    std::fs::write(
        &manifest,
        format!("[[content.group]]\nassets = [{globs}]\n[default]\ntexture = {{ quality = \"fastest\", max_size = 64, mips = false }}\n{extra}"),
    )
    .unwrap();
    let report = Baker::new(manifest.as_path(), out.path())
        .keep_going(true)
        .run();
    (out, report)
}

/// Every triangle of a submesh as a rotation-normalized triple.
fn canonical(t: [u32; 3]) -> [u32; 3] {
    let m = (0..3).min_by_key(|i| t[*i]).unwrap();
    [t[m], t[(m + 1) % 3], t[(m + 2) % 3]]
}

fn check_mesh(path: &Path, manifest: &[hman::ManifestEntry<'_>], root: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let mesh = MeshView::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.display();
    // Bounds contain every vertex.
    let b = mesh.bounds;
    for v in mesh.vertices.iter() {
        for c in 0..3 {
            assert!(
                v.position[c] >= b.aabb_min[c] - 1e-4 && v.position[c] <= b.aabb_max[c] + 1e-4,
                "{name}: vertex outside the AABB"
            );
        }
        let d: f32 = (0..3)
            .map(|c| (v.position[c] - b.sphere_center[c]).powi(2))
            .sum::<f32>()
            .sqrt();
        assert!(
            d <= b.sphere_radius * 1.0001 + 1e-5,
            "{name}: vertex outside the sphere"
        );
        let n = oct_decode(v.normal);
        assert!(
            ((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs() < 1e-3,
            "{name}: normal not unit"
        );
    }
    // Meshlets of LOD0 cover each triangle of each submesh exactly once.
    for (submesh, s) in mesh.submeshes.iter().enumerate() {
        let mut from_indices: Vec<[u32; 3]> = (0..s.index_count / 3)
            .map(|t| {
                let i = (s.first_index + 3 * t) as usize;
                canonical([
                    mesh.indices.get(i).unwrap(),
                    mesh.indices.get(i + 1).unwrap(),
                    mesh.indices.get(i + 2).unwrap(),
                ])
            })
            .collect();
        let mut from_meshlets = Vec::new();
        for m in
            &mesh.meshlets[s.first_meshlet as usize..(s.first_meshlet + s.meshlet_count) as usize]
        {
            assert!(m.vertex_count <= 64 && m.triangle_count <= 124);
            for t in &mesh.meshlet_triangles
                [m.triangle_offset as usize..(m.triangle_offset + m.triangle_count) as usize]
            {
                let global =
                    t.map(|local| mesh.meshlet_vertices[(m.vertex_offset + local as u32) as usize]);
                from_meshlets.push(canonical(global));
            }
        }
        from_indices.sort();
        from_meshlets.sort();
        assert_eq!(
            from_indices, from_meshlets,
            "{name}: meshlets do not cover the submesh exactly once"
        );
        // LOD index counts decrease (a stalled level is 0).
        if let Some(lods) = &mesh.lods {
            let mut previous = s.index_count;
            for level in 0..lods.header.lod_count as usize {
                let row = lods.range(submesh, level).unwrap();
                if row.index_count > 0 {
                    assert!(
                        row.index_count < previous,
                        "{name}: LOD {level} does not decrease"
                    );
                    previous = row.index_count;
                }
            }
        }
    }
    // The companion .hmat has one row per material ref, and its texture refs resolve.
    let hmat = std::fs::read(path.with_extension("hmat")).unwrap();
    let table = MaterialTable::parse(&hmat).unwrap();
    assert_eq!(
        table.rows.len(),
        mesh.materials.len(),
        "{name}: .hmat rows vs MTRL"
    );
    for row in table.rows.iter() {
        for reference in row.texture_refs().into_iter().filter(|r| *r != 0) {
            let entry = hman::find(manifest, reference).unwrap_or_else(|| {
                panic!("{name}: texture ref {reference:#x} not in the manifest")
            });
            assert!(
                root.join(entry.path).is_file(),
                "{name}: {} missing",
                entry.path
            );
            assert_eq!(entry.kind, hearth::AssetKind::TEXTURE);
        }
    }
}

#[test]
fn every_corpus_model_bakes_or_is_rejected_clearly() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf"), &src.path().join("gltf"));
    let (out, report) = bake_dir(src.path(), "\"gltf/**/*.gltf\", \"gltf/**/*.glb\"", "");
    let error = report.unwrap_err().to_string();
    // Exactly the two compressed-geometry models are refused, naming file and extension.
    assert!(error.starts_with("2 assets failed"), "{error}");
    assert!(
        error.contains("Box.gltf: pipeline `model`: unsupported: required extension KHR_draco_mesh_compression"),
        "{error}"
    );
    assert!(
        error.contains("BoxMeshopt.glb: pipeline `model`: unsupported: required extension")
            && error.contains("EXT_meshopt_compression"),
        "{error}"
    );
    drop(out);

    let (out, report) = bake_dir(src.path(), "\"gltf/**/*.gltf\", \"gltf/**/*.glb\"", "");
    let _ = report;
    let manifest_path = src.path().join("hearth-test.toml");
    let text = std::fs::read_to_string(&manifest_path).unwrap().replace(
        "[default]",
        "exclude = [\"**/Box_draco/**\", \"**/BoxMeshopt/**\"]\n[default]",
    );
    std::fs::write(&manifest_path, text).unwrap();
    let report = Baker::new(manifest_path.as_path(), out.path())
        .run()
        .unwrap();
    assert_eq!(report.assets, 15);
    // The corpus loses nothing it carries (morph targets, COLOR_0, TEXCOORD_1,
    // KHR_texture_transform, the KHR_materials extensions are all kept): no warning at all.
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
    let manifest_bytes = std::fs::read(out.path().join("assets.hman")).unwrap();
    let manifest = hman::parse(&manifest_bytes).unwrap();
    let meshes: Vec<_> = manifest
        .iter()
        .filter(|e| e.kind == hearth::AssetKind::MESH)
        .collect();
    assert_eq!(meshes.len(), 15);
    for entry in meshes {
        assert_eq!(
            entry.hash,
            hearth::hash_asset_ref(entry.path),
            "meshes hash their path with the extension"
        );
        check_mesh(&out.path().join(entry.path), &manifest, out.path());
    }
    let (problems, _) = hearth::read::inspect::check_output(out.path());
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn invalid_models_are_errors_naming_the_file() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf_invalid"), &src.path().join("bad"));
    std::fs::write(
        src.path().join("bad/truncated.glb"),
        &std::fs::read(corpus("gltf/DamagedHelmet/DamagedHelmet.glb")).unwrap()[..5000],
    )
    .unwrap();
    std::fs::write(src.path().join("bad/notjson.gltf"), b"{ this is not json").unwrap();
    std::fs::write(
        src.path().join("bad/missingbin.gltf"),
        std::fs::read(corpus("gltf/BoxTextured/BoxTextured.gltf")).unwrap(),
    )
    .unwrap();
    let (_out, report) = bake_dir(src.path(), "\"bad/**/*.gltf\", \"bad/**/*.glb\"", "");
    let error = report.unwrap_err().to_string();
    let expect = [
        ("BoxWithInfinites.glb", "POSITION"),
        ("IndexOutOfRange.gltf", "out of range"),
        ("length_mismatch.glb", "glTF"),
        ("truncated.glb", "glTF"),
        ("notjson.gltf", "glTF"),
        ("BoxTextured0.bin", "No such file"),
    ];
    common::assert_errors_name(&error, &expect);
}

#[test]
fn a_missing_image_names_the_file_and_the_material() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/BoxTextured"), &src.path().join("box"));
    std::fs::remove_file(src.path().join("box/CesiumLogoFlat.png")).unwrap();
    let (_out, report) = bake_dir(src.path(), "\"box/*.gltf\"", "");
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("BoxTextured.gltf")
            && error.contains("CesiumLogoFlat.png")
            && error.contains("material \"Texture\"")
            && error.contains("No such file"),
        "{error}"
    );
}

#[test]
fn merge_bakes_node_transforms_and_mirrors_flip_winding() {
    // A one-triangle mesh instanced by two nodes: translated + scaled, and mirrored in X.
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let normals: [[f32; 3]; 3] = [[0.0, 0.0, 1.0]; 3];
    let mut buffer: Vec<u8> = bytemuck::cast_slice(&positions).to_vec();
    buffer.extend_from_slice(bytemuck::cast_slice(&normals));
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(&buffer);
    let gltf = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0,1]}}],
        "nodes":[{{"mesh":0,"translation":[10,0,0],"scale":[2,2,2]}},{{"mesh":0,"scale":[-1,1,1]}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1}}}}]}}],
        "buffers":[{{"byteLength":72,"uri":"data:application/octet-stream;base64,{data}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
                     {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}}]}}"#
    );
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("tri.gltf"), gltf).unwrap();
    let (out, report) = bake_dir(src.path(), "\"*.gltf\"", "");
    report.unwrap();
    let bytes = std::fs::read(out.path().join("tri.hmesh")).unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    assert_eq!(mesh.submeshes.len(), 2);
    let mut positions: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.position).collect();
    positions.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut expected = vec![
        [10.0, 0.0, 0.0],
        [12.0, 0.0, 0.0],
        [10.0, 2.0, 0.0],
        [0.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(positions, expected, "world-space positions");
    // Every triangle still faces its normal: the mirrored copy had its winding flipped.
    let v = |i: u32| -> GpuVertex { mesh.vertices[i as usize] };
    for t in 0..mesh.indices.len() / 3 {
        let [a, b, c] = [0, 1, 2].map(|k| v(mesh.indices.get(3 * t + k).unwrap()));
        let e1: [f32; 3] = std::array::from_fn(|i| b.position[i] - a.position[i]);
        let e2: [f32; 3] = std::array::from_fn(|i| c.position[i] - a.position[i]);
        let face_z = e1[0] * e2[1] - e1[1] * e2[0];
        let n = oct_decode(a.normal);
        assert!(
            face_z * n[2] > 0.0,
            "triangle {t} faces away from its normal"
        );
    }
}

#[test]
fn transform_settings_move_static_geometry() {
    let src = tempfile::tempdir().unwrap();
    // The merge test's triangle, as one node without a transform.
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let normals: [[f32; 3]; 3] = [[0.0, 0.0, 1.0]; 3];
    let mut buffer: Vec<u8> = bytemuck::cast_slice(&positions).to_vec();
    buffer.extend_from_slice(bytemuck::cast_slice(&normals));
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(&buffer);
    std::fs::write(
        src.path().join("tri.gltf"),
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1}}}}]}}],
            "buffers":[{{"byteLength":72,"uri":"data:application/octet-stream;base64,{data}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
                         {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}}]}}"#
        ),
    )
    .unwrap();
    // Scale x2, rotate 90 degrees about Z, move up 10, after mirroring X.
    let (out, report) = bake_dir(src.path(), "\"*.gltf\"", "mesh = { flip_x = true, scale = [2.0, 2.0, 2.0], rotation = [0.0, 0.0, 90.0], offset = [0.0, 10.0, 0.0] }\n");
    report.unwrap();
    let bytes = std::fs::read(out.path().join("tri.hmesh")).unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    let mut got: Vec<[i32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| v.position.map(|c| c.round() as i32))
        .collect();
    got.sort();
    // (x, y) -> mirror (-x, y) -> scale (-2x, 2y) -> rotate 90 about Z (-2y, -2x) -> + (0, 10)
    let mut want = vec![[0, 10, 0], [0, 8, 0], [-2, 10, 0]];
    want.sort();
    assert_eq!(got, want);
    // The mirror flipped the winding, so the triangle still faces its normal.
    let p = |i: usize| mesh.vertices[mesh.indices.get(i).unwrap() as usize];
    let (a, b, c) = (p(0), p(1), p(2));
    let face_z = (b.position[0] - a.position[0]) * (c.position[1] - a.position[1])
        - (b.position[1] - a.position[1]) * (c.position[0] - a.position[0]);
    assert!(face_z * oct_decode(a.normal)[2] > 0.0);
    let (_, bad) = bake_dir(
        src.path(),
        "\"*.gltf\"",
        "mesh = { rotation = [1.0, 2.0] }\n",
    );
    let bad = bad.unwrap_err().to_string();
    assert!(
        bad.contains("`default.mesh.rotation` = [1.0, 2.0]: give 3 Euler angles"),
        "{bad}"
    );
}

#[test]
fn lods_land_near_their_targets() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/DamagedHelmet"), &src.path().join("helmet"));
    let (out, report) = bake_dir(src.path(), "\"helmet/*.glb\"", "");
    report.unwrap();
    let bytes = std::fs::read(out.path().join("helmet/DamagedHelmet.hmesh")).unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    let lods = mesh.lods.as_ref().unwrap();
    let base = mesh.submeshes[0].index_count as f32;
    for (level, target) in [(0usize, 0.5f32), (1, 0.25)] {
        let got = lods.range(0, level).unwrap().index_count as f32 / base;
        println!("LOD {}: {:.3} of LOD0 (target {target})", level + 1, got);
        assert!(
            (got - target).abs() < 0.1,
            "LOD {} at {got:.3}, target {target}",
            level + 1
        );
    }
}

#[test]
fn normals_decode_within_1e3_of_the_source() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/DamagedHelmet"), &src.path().join("helmet"));
    let (out, report) = bake_dir(src.path(), "\"helmet/*.glb\"", "mesh = { merge = false }\n");
    report.unwrap();
    let (document, buffers, _) = gltf_import(&src.path().join("helmet/DamagedHelmet.glb"));
    let primitive = document
        .meshes()
        .next()
        .unwrap()
        .primitives()
        .next()
        .unwrap();
    let reader = primitive.reader(|b| Some(&buffers[b.index()].0[..]));
    // Positions repeat along hard edges with different normals: keep every candidate.
    let mut source: BTreeMap<[u32; 3], Vec<[f32; 3]>> = BTreeMap::new();
    for (p, n) in reader
        .read_positions()
        .unwrap()
        .zip(reader.read_normals().unwrap())
    {
        source.entry(p.map(f32::to_bits)).or_default().push(n);
    }
    let bytes = std::fs::read(out.path().join("helmet/DamagedHelmet.hmesh")).unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    let mut worst = 0.0f32;
    for v in mesh.vertices.iter() {
        let d = oct_decode(v.normal);
        let error = source[&v.position.map(f32::to_bits)]
            .iter()
            .map(|n| {
                let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                (0..3)
                    .map(|c| (d[c] - n[c] / len).abs())
                    .fold(0.0, f32::max)
            })
            .fold(f32::MAX, f32::min);
        worst = worst.max(error);
    }
    assert!(worst < 1e-3, "worst normal error {worst}");
}

fn gltf_import(
    path: &Path,
) -> (
    gltf::Document,
    Vec<gltf::buffer::Data>,
    Vec<gltf::image::Data>,
) {
    gltf::import(path).unwrap()
}

#[test]
fn every_mesh_setting_changes_the_output() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(
        &corpus("gltf/NormalTangentMirrorTest"),
        &src.path().join("m"),
    );
    copy_dir(&corpus("gltf/AlphaBlendModeTest"), &src.path().join("a"));
    let bake = |table: &str, file: &str| {
        let (out, report) = bake_dir(
            src.path(),
            "\"m/*.glb\", \"a/*.glb\"",
            &format!("mesh = {{ {table} }}\n"),
        );
        report.unwrap_or_else(|e| panic!("{table}: {e}"));
        std::fs::read(out.path().join(file)).unwrap()
    };
    let mirror = "m/NormalTangentMirrorTest.hmesh";
    let alpha = "a/AlphaBlendModeTest.hmesh";
    let variants = [
        ("merge = false", alpha),
        ("normals = false", mirror),
        ("tangents = false", mirror),
        ("optimize = false", mirror),
        ("overdraw_threshold = 3.0", mirror),
        ("lod = { levels = 1 }", mirror),
        ("lod = { target_error = 0.001 }", mirror),
        ("lod = { lock_border = true }", alpha),
        ("lod = { min_triangles = 5000 }", mirror),
        ("scale = [2.0, 1.0, 1.0]", mirror),
        ("rotation = [0.0, 90.0, 0.0]", mirror),
        ("rotation = [0.0, 0.0, 0.7071, 0.7071]", mirror),
        ("offset = [0.0, 3.0, 0.0]", mirror),
        ("flip_x = true", mirror),
        ("flip_y = true", mirror),
        ("flip_z = true", mirror),
    ];
    let baseline: BTreeMap<&str, Vec<u8>> = [mirror, alpha]
        .into_iter()
        .map(|f| (f, bake("", f)))
        .collect();
    let mut without = Vec::new();
    for (variant, file) in variants {
        let out = bake(variant, file);
        // (assert! rather than assert_ne!, which would print whole meshes)
        assert!(baseline[file] != out, "`{variant}` did not change {file}");
        if variant == "tangents = false" {
            without = out;
        }
    }
    // Tangents present by default for a normal-mapped model, absent when turned off.
    let with = &baseline[mirror];
    assert_eq!(MeshView::parse(with).unwrap().desc.flags & 1, 1);
    assert_eq!(MeshView::parse(&without).unwrap().desc.flags & 1, 0);
}

/// A vertex key that survives an OBJ round trip: exact position bits, UV in 1e-4 steps.
type TangentKey = ([u32; 3], [i32; 2]);

/// Shipped tangents by vertex key (a key may hold several, across seams).
type ShippedTangents = BTreeMap<TangentKey, Vec<[f32; 4]>>;

/// The [`TangentKey`] of a vertex (-0 as 0).
fn tangent_key(position: [f32; 3], uv: [f32; 2]) -> TangentKey {
    (
        position.map(|c| (c + 0.0).to_bits()),
        uv.map(|c| (c * 1e4).round() as i32),
    )
}

/// The share of `mesh`'s vertices whose generated tangent lies within 10 degrees of a shipped
/// tangent at the same position and UV, with the same sign (w).
fn share_matching_shipped(mesh: &MeshView<'_>, shipped: &ShippedTangents) -> f64 {
    let cos_10 = 10f32.to_radians().cos();
    let matching = mesh
        .vertices
        .iter()
        .filter(|v| {
            let (t, w) = hearth::format::hmesh::oct_decode_tangent(v.tangent);
            let Some(candidates) = shipped.get(&tangent_key(v.position, v.uv)) else {
                panic!("no source vertex at {:?} {:?}", v.position, v.uv);
            };
            candidates.iter().any(|s| {
                let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
                let cos = (t[0] * s[0] + t[1] * s[1] + t[2] * s[2]) / len;
                cos >= cos_10 && (w < 0.0) == (s[3] < 0.0)
            })
        })
        .count();
    matching as f64 / mesh.vertices.len() as f64
}

/// Tangents hearth generates (MikkTSpace, for a normal-mapped primitive without TANGENT) agree
/// with the ones NormalTangentMirrorTest ships, bitangent sign included: from the GLB with its
/// tangents stripped, and from the same geometry written as OBJ (whose V hearth flips).
#[test]
fn generated_tangents_match_the_shipped_ones() {
    let source = corpus("gltf/NormalTangentMirrorTest/NormalTangentMirrorTest.glb");
    let (document, buffers, _) = gltf_import(&source);
    let mut shipped = ShippedTangents::new();
    let mut obj = String::from("mtllib m.mtl\nusemtl normal_mapped\n");
    let mut base = 1;
    for primitive in document.meshes().flat_map(|m| m.primitives()) {
        let reader = primitive.reader(|b| Some(&buffers[b.index()].0[..]));
        let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
        let normals: Vec<[f32; 3]> = reader.read_normals().unwrap().collect();
        let uvs: Vec<[f32; 2]> = reader.read_tex_coords(0).unwrap().into_f32().collect();
        let tangents = reader.read_tangents().expect("the model ships tangents");
        for (((p, n), uv), t) in positions.iter().zip(&normals).zip(&uvs).zip(tangents) {
            shipped.entry(tangent_key(*p, *uv)).or_default().push(t);
            obj += &format!(
                "v {} {} {}\nvn {} {} {}\n",
                p[0], p[1], p[2], n[0], n[1], n[2]
            );
            obj += &format!("vt {} {}\n", uv[0], 1.0 - uv[1]);
        }
        let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
        for t in indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize + base);
            obj += &format!("f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}\n");
        }
        base += positions.len();
    }
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([128, 128, 255, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let src = tempfile::tempdir().unwrap();
    common::write_files(
        src.path(),
        &[
            (
                "stripped.glb",
                &common::without_tangents(&std::fs::read(&source).unwrap()),
            ),
            ("m.obj", obj.as_bytes()),
            ("m.mtl", b"newmtl normal_mapped\nmap_Bump flat.png\n"),
            ("flat.png", &png),
        ],
    );
    let (out, report) = bake_dir(
        src.path(),
        "\"*.glb\", \"*.obj\"",
        "mesh = { merge = false }\n",
    );
    report.unwrap();
    for file in ["stripped.hmesh", "m.hmesh"] {
        let bytes = std::fs::read(out.path().join(file)).unwrap();
        let mesh = MeshView::parse(&bytes).unwrap();
        assert_eq!(mesh.desc.flags & 1, 1, "{file}: tangents generated");
        let share = share_matching_shipped(&mesh, &shipped);
        assert!(
            share >= 0.99,
            "{file}: {:.1} % of vertices match",
            share * 100.0
        );
    }
}

/// MTL's PBR `norm` names the normal map (tobj leaves it among the unknown keys): the baked
/// material has a normal texture and the mesh tangents, as with `map_Bump`.
#[test]
fn an_mtl_norm_map_is_the_normal_texture() {
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([128, 128, 255, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let obj = "mtllib m.mtl\nusemtl tiles\nv 0 0 0\nv 1 0 0\nv 0 1 0\n\
               vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1\n";
    let src = tempfile::tempdir().unwrap();
    common::write_files(
        src.path(),
        &[
            ("m.obj", obj.as_bytes()),
            ("m.mtl", b"newmtl tiles\nnorm flat.png\n"),
            ("flat.png", &png),
        ],
    );
    let (out, report) = bake_dir(src.path(), "\"*.obj\"", "");
    report.unwrap();
    let materials = std::fs::read(out.path().join("m.hmat")).unwrap();
    let table = hearth::MaterialTable::parse(&materials).unwrap();
    assert_ne!(table.rows[0].normal_tex, 0, "norm is the normal texture");
    let mesh = std::fs::read(out.path().join("m.hmesh")).unwrap();
    assert_eq!(
        MeshView::parse(&mesh).unwrap().desc.flags & 1,
        1,
        "tangents generated"
    );
}

#[test]
fn skinned_models_carry_skin_skeleton_and_clips() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/CesiumMan"), &src.path().join("man"));
    copy_dir(&corpus("gltf/RiggedSimple"), &src.path().join("rig"));
    let (out, report) = bake_dir(src.path(), "\"man/*.gltf\", \"rig/*.glb\"", "");
    report.unwrap();
    for stem in ["man/CesiumMan", "rig/RiggedSimple"] {
        let bytes = std::fs::read(out.path().join(format!("{stem}.hmesh"))).unwrap();
        let mesh = MeshView::parse(&bytes).unwrap();
        let skin = mesh.skin.as_ref().expect("SKIN");
        let skeleton = mesh.skeleton.as_ref().expect("SKEL");
        assert_eq!(
            skin.len(),
            mesh.vertices.len(),
            "{stem}: SKIN parallel to VTXS"
        );
        for s in skin.iter() {
            assert!(
                (s.weights.iter().sum::<f32>() - 1.0).abs() < 1e-5,
                "{stem}: weights sum to 1"
            );
            assert!(s.joints.iter().all(|j| (*j as usize) < skeleton.len()));
        }
        assert!(
            skeleton.iter().filter(|j| j.parent == -1).count() >= 1,
            "{stem}: a root joint"
        );
        let anim = std::fs::read(out.path().join(format!("{stem}.hanim"))).unwrap();
        let clips = hearth::AnimClips::parse(&anim, skeleton.len() as u32, 0).unwrap();
        let described = hearth::read::inspect::describe_hanim(&anim).unwrap();
        assert!(
            described.starts_with(&format!("{} clips", clips.clips.len())),
            "{described}"
        );
        assert!(
            !clips.clips.is_empty()
                && clips
                    .clips
                    .iter()
                    .all(|c| c.duration > 0.0 && !c.channels.is_empty()),
            "{stem}"
        );
    }
    let (problems, _) = hearth::read::inspect::check_output(out.path());
    assert!(problems.is_empty(), "{problems:#?}");
    // ignore_skin drops all of it.
    let (out, report) = bake_dir(
        src.path(),
        "\"rig/*.glb\"",
        "mesh = { ignore_skin = true }\n",
    );
    report.unwrap();
    let bytes = std::fs::read(out.path().join("rig/RiggedSimple.hmesh")).unwrap();
    assert!(MeshView::parse(&bytes).unwrap().skin.is_none());
    assert!(!out.path().join("rig/RiggedSimple.hanim").exists());
}

#[test]
fn obj_models_bake_with_their_materials() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("obj"), &src.path().join("obj"));
    let (out, report) = bake_dir(src.path(), "\"obj/**/*.obj\"", "");
    let report = report.unwrap();
    assert_eq!(report.assets, 3);
    // The MTL and its maps are inputs (watched and hashed).
    assert!(report.inputs.iter().any(|p| p.ends_with("spider.mtl")));
    assert!(
        report.inputs.iter().any(|p| p.ends_with("SpiderTex.jpg")),
        "backslash map paths resolved"
    );
    let manifest_bytes = std::fs::read(out.path().join("assets.hman")).unwrap();
    let manifest = hman::parse(&manifest_bytes).unwrap();
    for stem in [
        "obj/cornell_box/cornell_box",
        "obj/spider/spider",
        "obj/spot/spot_triangulated",
    ] {
        check_mesh(
            &out.path().join(format!("{stem}.hmesh")),
            &manifest,
            out.path(),
        );
    }
    let spider =
        MaterialTable::parse(&std::fs::read(out.path().join("obj/spider/spider.hmat")).unwrap())
            .unwrap()
            .rows
            .into_owned();
    assert!(
        spider.iter().all(|m| m.base_color_tex != 0),
        "map_Kd -> base color texture"
    );
    let cornell = MaterialTable::parse(
        &std::fs::read(out.path().join("obj/cornell_box/cornell_box.hmat")).unwrap(),
    )
    .unwrap()
    .rows
    .into_owned();
    assert!(
        cornell
            .iter()
            .any(|m| m.base_color_factor[0] > 0.5 && m.base_color_factor[1] < 0.2),
        "Kd of the red wall"
    );
    let (problems, _) = hearth::read::inspect::check_output(out.path());
    assert!(problems.is_empty(), "{problems:#?}");

    // A face that points past the vertices is an error naming the file.
    std::fs::write(
        src.path().join("obj/broken.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n",
    )
    .unwrap();
    let (_, report) = bake_dir(src.path(), "\"obj/broken.obj\"", "");
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("broken.obj") && (error.contains("OBJ") || error.contains("out of range")),
        "{error}"
    );
}

#[test]
fn mesh_bakes_are_deterministic_and_material_refs_resolve_in_the_pack() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/BoxTextured"), &src.path().join("box"));
    copy_dir(&corpus("gltf/RiggedSimple"), &src.path().join("rig"));
    copy_dir(&corpus("obj/spider"), &src.path().join("spider"));
    let manifest = src.path().join("hearth-test.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"**/*.gltf\", \"**/*.glb\", \"**/*.obj\"]\n[default]\ntexture = { quality = \"fastest\", max_size = 64 }\n").unwrap();
    let mut trees = Vec::new();
    for jobs in [1, 2] {
        let out = tempfile::tempdir().unwrap();
        let tree = common::bake_cold(&manifest, out.path(), jobs);
        trees.push((out, tree));
    }
    assert!(
        trees[0].1 == trees[1].1,
        "mesh outputs differ between 1 and 2 threads"
    );
    // Every texture ref of every material resolves through the pack's manifest to a KTX2 entry.
    let out = trees[0].0.path();
    let pak = hearth::PakReader::open(out.join("assets.hpack")).unwrap();
    let mut resolved = 0;
    for stem in ["box/BoxTextured", "spider/spider"] {
        let hmat = pak.get(&format!("{stem}.hmat")).unwrap().unwrap();
        for row in MaterialTable::parse(&hmat).unwrap().rows.iter() {
            for reference in row.texture_refs().into_iter().filter(|r| *r != 0) {
                let entry = pak
                    .find_by_hash(reference)
                    .unwrap()
                    .expect("texture ref resolves");
                assert_eq!(entry.kind(), hearth::AssetKind::TEXTURE);
                hearth::Ktx2::parse(&entry.bytes().unwrap()).unwrap();
                resolved += 1;
            }
        }
    }
    assert!(resolved >= 5, "{resolved} refs");
}

#[test]
fn accessors_outside_their_buffer_are_errors() {
    // POSITION claims 300 vertices in a 36-byte buffer view.
    let src = tempfile::tempdir().unwrap();
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode([0u8; 36]);
    std::fs::write(
        src.path().join("bad.gltf"),
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{data}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":36}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":300,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}}]}}"#
        ),
    )
    .unwrap();
    let (_, report) = bake_dir(src.path(), "\"*.gltf\"", "");
    let error = report.unwrap_err().to_string();
    assert!(error.contains("bad.gltf"), "{error}");
}

#[test]
fn non_finite_positions_are_errors() {
    let src = tempfile::tempdir().unwrap();
    let positions: [[f32; 3]; 3] = [
        [0.0, 0.0, 0.0],
        [f32::NAN, 0.0, 0.0],
        [0.0, f32::INFINITY, 0.0],
    ];
    use base64::Engine;
    let data =
        base64::engine::general_purpose::STANDARD.encode(bytemuck::cast_slice::<_, u8>(&positions));
    std::fs::write(
        src.path().join("nan.gltf"),
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{data}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":36}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}]}}"#
        ),
    )
    .unwrap();
    let (_, report) = bake_dir(src.path(), "\"*.gltf\"", "");
    let error = report.unwrap_err().to_string();
    assert!(
        error.contains("nan.gltf") && error.contains("non-finite position"),
        "{error}"
    );
}

/// A one-triangle glTF (positions, u16 indices, and three float "indices" for the bad case) in
/// one data: URI buffer of 56 bytes; `edit` breaks it.
fn crafted_gltf(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    use base64::Engine;
    let mut bytes: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    bytes.extend([0u16, 1, 2, 0].iter().flat_map(|i| i.to_le_bytes()));
    bytes.extend([0f32, 1., 2.].iter().flat_map(|f| f.to_le_bytes()));
    assert_eq!(bytes.len(), 56);
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let mut doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 6},
            {"buffer": 0, "byteOffset": 44, "byteLength": 12}
        ],
        "buffers": [{"byteLength": 56, "uri": uri}]
    });
    edit(&mut doc);
    doc.to_string()
}

#[test]
fn malformed_gltf_structures_are_named_errors_not_panics() {
    use serde_json::json;
    let src = tempfile::tempdir().unwrap();
    let with_image = |doc: &mut serde_json::Value, view: u64| {
        doc["images"] = json!([{"bufferView": view, "mimeType": "image/png"}]);
        doc["textures"] = json!([{"source": 0}]);
        doc["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    };
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("fine", Box::new(|_| {}), ""),
        (
            "float_indices",
            Box::new(|d| {
                d["accessors"][1] =
                    json!({"bufferView": 2, "componentType": 5126, "count": 3, "type": "SCALAR"})
            }),
            "accessor 1: indices of FLOAT type",
        ),
        (
            "image_view",
            Box::new(move |d| with_image(d, 9)),
            "image 0: bufferView 9 does not exist",
        ),
        (
            "accessor_past_view",
            Box::new(|d| d["accessors"][0]["count"] = json!(4)),
            "accessor 0: bytes 0..48 reach past the end of bufferView 0 (36 bytes)",
        ),
        (
            "accessor_offset_overflow",
            Box::new(|d| d["accessors"][0]["byteOffset"] = json!(18446744073709551610u64)),
            "accessor 0: bytes 18446744073709551610..(overflow) reach past",
        ),
        (
            "missing_view",
            Box::new(|d| d["accessors"][0]["bufferView"] = json!(7)),
            "accessor 0: bufferView 7 does not exist",
        ),
        (
            "view_past_buffer",
            Box::new(|d| d["bufferViews"][2]["byteLength"] = json!(100)),
            "bufferView 2: bytes 44..144 reach outside buffer 0 (56 bytes)",
        ),
        (
            "position_vec2",
            Box::new(|d| d["accessors"][0]["type"] = json!("VEC2")),
            "accessor 0: POSITION of type VEC2 (VEC3 expected)",
        ),
        (
            "position_shorts",
            Box::new(|d| d["accessors"][0]["componentType"] = json!(5123)),
            "accessor 0: POSITION of UNSIGNED_SHORT type (FLOAT expected)",
        ),
        (
            "missing_position_accessor",
            Box::new(|d| d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(7)),
            "mesh 0 primitive 0: POSITION accessor 7 does not exist",
        ),
        (
            "small_stride",
            Box::new(|d| d["bufferViews"][0]["byteStride"] = json!(4)),
            "accessor 0: bufferView 0's byteStride 4 is smaller than one element (12 bytes)",
        ),
        (
            "zero_count",
            Box::new(|d| d["accessors"][1]["count"] = json!(0)),
            "accessor 1: count is 0",
        ),
        (
            "sparse_float_indices",
            Box::new(|d| {
                d["accessors"][0]["sparse"] = json!({"count": 1,
                    "indices": {"bufferView": 2, "componentType": 5126},
                    "values": {"bufferView": 0}})
            }),
            "accessor 0: sparse indices of an invalid type",
        ),
        (
            "sparse_values_outside",
            Box::new(|d| {
                d["accessors"][0]["sparse"] = json!({"count": 1,
                    "indices": {"bufferView": 1, "componentType": 5123},
                    "values": {"bufferView": 1}})
            }),
            "accessor 0: sparse values: bytes 0..12 reach past the end of bufferView 1 (6 bytes)",
        ),
        (
            "sparse_without_view_too_big",
            Box::new(|d| {
                d["accessors"][0] = json!({"componentType": 5126, "count": 1u64 << 40, "type": "VEC3",
                    "min": [0, 0, 0], "max": [1, 1, 0],
                    "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123},
                               "values": {"bufferView": 0}}})
            }),
            "accessor 0: 1099511627776 elements without a bufferView",
        ),
        (
            "animation_input_type",
            Box::new(|d| {
                d["animations"] = json!([{"samplers": [{"input": 1, "output": 0}],
                    "channels": [{"sampler": 0, "target": {"node": 99, "path": "translation"}}]}])
            }),
            "animation 0 sampler 0: accessor 1: input of UNSIGNED_SHORT type (FLOAT expected)",
        ),
        (
            "animation_bad_node",
            Box::new(|d| {
                let times =
                    json!({"bufferView": 2, "componentType": 5126, "count": 3, "type": "SCALAR"});
                d["accessors"].as_array_mut().unwrap().push(times);
                d["animations"] = json!([{"samplers": [{"input": 2, "output": 0}],
                    "channels": [{"sampler": 0, "target": {"node": 99, "path": "translation"}}]}])
            }),
            "animation 0 channel 0: node 99 does not exist",
        ),
        (
            "animation_rotation_type",
            Box::new(|d| {
                let times =
                    json!({"bufferView": 2, "componentType": 5126, "count": 3, "type": "SCALAR"});
                d["accessors"].as_array_mut().unwrap().push(times);
                d["animations"] = json!([{"samplers": [{"input": 2, "output": 0}],
                    "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}])
            }),
            "animation 0 channel 0: accessor 0: output of type VEC3 (VEC4 expected)",
        ),
    ];
    let mut expect = Vec::new();
    for (name, edit, message) in cases {
        let file = format!("{name}.gltf");
        std::fs::write(src.path().join(&file), crafted_gltf(edit)).unwrap();
        if !message.is_empty() {
            expect.push((file, message));
        }
    }
    let (out, report) = bake_dir(src.path(), "\"*.gltf\"", "");
    let error = report.unwrap_err().to_string();
    assert!(!error.contains("panicked"), "{error}");
    assert!(
        error.starts_with(&format!("{} assets failed", expect.len())),
        "{error}"
    );
    let expect: Vec<(&str, &str)> = expect.iter().map(|(f, m)| (f.as_str(), *m)).collect();
    common::assert_errors_name(&error, &expect);
    assert!(!error.contains("fine.gltf"), "{error}");
    drop(out);
}

/// Bakes one generated model (`files` written into a fresh folder) and returns the output
/// folder, the stem's `.hmesh` and `.hmat` bytes, after `check_mesh`'s invariants.
fn bake_generated(files: &[(&str, &[u8])], stem: &str) -> (tempfile::TempDir, Vec<u8>, Vec<u8>) {
    let src = tempfile::tempdir().unwrap();
    common::write_files(src.path(), files);
    let (out, report) = bake_dir(src.path(), "\"*.obj\", \"*.glb\", \"*.gltf\"", "");
    let report = report.unwrap();
    assert_eq!(report.assets, 1);
    let manifest_bytes = std::fs::read(out.path().join("assets.hman")).unwrap();
    let manifest = hman::parse(&manifest_bytes).unwrap();
    let hmesh = out.path().join(format!("{stem}.hmesh"));
    check_mesh(&hmesh, &manifest, out.path());
    let mesh = std::fs::read(&hmesh).unwrap();
    let hmat = std::fs::read(out.path().join(format!("{stem}.hmat"))).unwrap();
    (out, mesh, hmat)
}
