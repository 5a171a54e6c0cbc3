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

/// A mesh instanced on three nodes whose primitive carries TEXCOORD_2 (not kept) warns once per
/// bake, in the report and through the callback, not once per instance; a second model with
/// its own warning keeps it, after the first (first-seen order).
#[test]
fn each_distinct_warning_is_reported_once_per_bake() {
    use serde_json::json;
    let extra_uv = |doc: &mut serde_json::Value| {
        doc["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({"buffer": 0, "byteLength": 24}));
        doc["accessors"]
            .as_array_mut()
            .unwrap()
            .push(json!({"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC2"}));
        let attributes = &mut doc["meshes"][0]["primitives"][0]["attributes"];
        for set in ["TEXCOORD_0", "TEXCOORD_1", "TEXCOORD_2"] {
            attributes[set] = json!(2);
        }
    };
    let instanced = crafted_gltf(|doc| {
        extra_uv(doc);
        doc["nodes"] = json!([{"mesh": 0}, {"mesh": 0}, {"mesh": 0, "translation": [2, 0, 0]}]);
        doc["scenes"][0]["nodes"] = json!([0, 1, 2]);
    });
    let single = crafted_gltf(extra_uv);
    let src = tempfile::tempdir().unwrap();
    common::write_files(
        src.path(),
        &[
            ("a.gltf", instanced.as_bytes()),
            ("b.gltf", single.as_bytes()),
        ],
    );
    let manifest = src.path().join("hearth-test.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"*.gltf\"]\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = heard.clone();
    let report = Baker::new(manifest.as_path(), out.path())
        .jobs(2)
        .on_warning(move |w| sink.lock().unwrap().push(w.to_owned()))
        .run()
        .unwrap();
    let names: Vec<&str> = report
        .warnings
        .iter()
        .map(|w| if w.contains("a.gltf") { "a" } else { "b" })
        .collect();
    assert_eq!(names, ["a", "b"], "{:#?}", report.warnings);
    assert!(
        report.warnings[0].contains("TEXCOORD_2"),
        "{}",
        report.warnings[0]
    );
    assert_eq!(*heard.lock().unwrap(), report.warnings);
}

/// One image used as base colour (sRGB) and as metallic-roughness (linear data) bakes twice:
/// `tex_0.ktx2` with the sRGB transfer in its DFD for the colour slot, `tex_0.linear.ktx2`
/// linear for the data slot, each `.hmat` slot pointing at its own, and no warning.
#[test]
fn an_image_used_as_colour_and_as_data_bakes_one_texture_per_colour_space() {
    use serde_json::json;
    let gltf = crafted_gltf(|doc| {
        doc["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({"buffer": 0, "byteLength": 24}));
        doc["accessors"]
            .as_array_mut()
            .unwrap()
            .push(json!({"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC2"}));
        doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(2);
        doc["meshes"][0]["primitives"][0]["material"] = json!(0);
        doc["images"] = json!([{"uri": "orm.png"}]);
        doc["textures"] = json!([{"source": 0}]);
        doc["materials"] = json!([{"pbrMetallicRoughness": {
            "baseColorTexture": {"index": 0},
            "metallicRoughnessTexture": {"index": 0}
        }}]);
    });
    let mut png = Vec::new();
    image::RgbaImage::from_fn(8, 8, |x, y| {
        image::Rgba([x as u8 * 30, y as u8 * 30, 128, 255])
    })
    .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
    .unwrap();
    let src = tempfile::tempdir().unwrap();
    common::write_files(
        src.path(),
        &[("m.gltf", gltf.as_bytes()), ("orm.png", &png)],
    );
    let (out, report) = bake_dir(src.path(), "\"*.gltf\"", "");
    let report = report.unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let texture = |name: &str| {
        let bytes = std::fs::read(out.path().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let srgb = hearth::Ktx2::parse(&bytes).unwrap().is_srgb();
        let described = hearth::read::inspect::describe_ktx2(&bytes).unwrap();
        (srgb, described)
    };
    let (colour_srgb, colour) = texture("m/tex_0.ktx2");
    let (data_srgb, data) = texture("m/tex_0.linear.ktx2");
    assert!(colour_srgb && colour.contains(" sRGB,"), "{colour}");
    assert!(!data_srgb && data.contains(" linear,"), "{data}");
    let hmat = std::fs::read(out.path().join("m.hmat")).unwrap();
    let table = MaterialTable::parse(&hmat).unwrap();
    let row = table.rows[0];
    assert_eq!(row.base_color_tex, hearth::hash_asset_ref("m/tex_0"));
    assert_eq!(
        row.metallic_roughness_tex,
        hearth::hash_asset_ref("m/tex_0.linear")
    );
    let manifest_bytes = std::fs::read(out.path().join("assets.hman")).unwrap();
    let manifest = hman::parse(&manifest_bytes).unwrap();
    check_mesh(&out.path().join("m.hmesh"), &manifest, out.path());
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

/// Submesh `i` is object `i`: 4 triangles, every vertex on object `i`'s spot, material slot
/// `slot(i)`.
fn check_objects(mesh: &MeshView<'_>, objects: usize, slot: impl Fn(usize) -> u32) {
    assert_eq!(mesh.submeshes.len(), objects);
    for (i, s) in mesh.submeshes.iter().enumerate() {
        assert_eq!(
            s.index_count as usize,
            models::PATCH_TRIANGLES * 3,
            "submesh {i}"
        );
        assert_eq!(s.material_slot, slot(i), "submesh {i}");
        let at = models::spot(i);
        for k in s.first_index..s.first_index + s.index_count {
            let p = mesh.vertices[mesh.indices.get(k as usize).unwrap() as usize].position;
            assert!(
                (0..2).all(|c| p[c] >= at[c] - 1e-4 && p[c] <= at[c] + 2.0 + 1e-4)
                    && (p[2] - at[2]).abs() < 0.5,
                "submesh {i}: vertex {p:?} is not on object {i}'s spot {at:?}"
            );
        }
    }
}

/// Correctness at scale (the speed is `benches/mesh.rs`' `mesh_scale`): 2000 OBJ objects
/// sharing 8 materials, 2000 OBJ groups each with its own MTL material, and 2000 glTF meshes
/// on 2000 nodes bake to one submesh each, in source order, with the right material slots and
/// rows.
#[test]
fn thousands_of_objects_materials_and_meshes_bake_correctly() {
    const N: usize = 2000;
    let kd = |i: usize| {
        [
            (i % 11) as f32 / 10.0,
            (i % 13) as f32 / 12.0,
            (i % 17) as f32 / 16.0,
            1.0,
        ]
    };

    // OBJ objects sharing materials: slots in first-use order, object i -> material i % 8.
    let (obj, mtl) = models::obj_objects(N);
    let (_out, mesh, hmat) = bake_generated(
        &[
            ("objects.obj", obj.as_bytes()),
            ("shared.mtl", mtl.as_bytes()),
        ],
        "objects",
    );
    let mesh = MeshView::parse(&mesh).unwrap();
    check_objects(&mesh, N, |i| (i % models::OBJ_SHARED) as u32);
    let rows = MaterialTable::parse(&hmat).unwrap().rows.into_owned();
    assert_eq!(rows.len(), models::OBJ_SHARED);
    assert_eq!(mesh.materials.len(), models::OBJ_SHARED);
    for (m, row) in rows.iter().enumerate() {
        assert_eq!(row.base_color_factor, kd(m), "shared_{m}");
        assert_eq!(
            mesh.materials[m],
            hearth::hash_asset_ref(&format!("objects/shared_{m}"))
        );
    }

    // One MTL material per group: N slots, slot i is m_i with its own color.
    let (obj, mtl) = models::obj_materials(N);
    let (_out, mesh, hmat) = bake_generated(
        &[
            ("materials.obj", obj.as_bytes()),
            ("materials.mtl", mtl.as_bytes()),
        ],
        "materials",
    );
    let mesh = MeshView::parse(&mesh).unwrap();
    check_objects(&mesh, N, |i| i as u32);
    let rows = MaterialTable::parse(&hmat).unwrap().rows.into_owned();
    assert_eq!(rows.len(), N);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.base_color_factor, kd(i), "m_{i}");
        assert_eq!(
            mesh.materials[i],
            hearth::hash_asset_ref(&format!("materials/m_{i}"))
        );
    }

    // glTF meshes on their own nodes: merged in mesh order, moved by their node.
    let glb = models::glb_meshes(N);
    let (_out, mesh, hmat) = bake_generated(&[("meshes.glb", &glb)], "meshes");
    let mesh = MeshView::parse(&mesh).unwrap();
    check_objects(&mesh, N, |i| (i % models::GLTF_SHARED) as u32);
    let rows = MaterialTable::parse(&hmat).unwrap().rows.into_owned();
    assert_eq!(rows.len(), models::GLTF_SHARED);
    for (m, row) in rows.iter().enumerate() {
        assert_eq!(
            row.base_color_factor,
            [m as f32 / models::GLTF_SHARED as f32, 0.5, 0.5, 1.0]
        );
        assert_eq!(
            mesh.materials[m],
            hearth::hash_asset_ref(&format!("meshes/mat_{m}"))
        );
    }
}

/// `uv` under a `KHR_texture_transform`, written from the extension's text (translation ·
/// rotation · scale, with the rotation that maps its worked example, offset [0, 1], rotation
/// π/2, scale 0.5, onto the image's lower-left quadrant).
fn khr_texture_transform(
    uv: [f32; 2],
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
) -> [f32; 2] {
    let (x, y) = (uv[0] * scale[0], uv[1] * scale[1]);
    let (s, c) = rotation.sin_cos();
    [offset[0] + c * x + s * y, offset[1] - s * x + c * y]
}

#[test]
fn the_texture_transform_formula_maps_the_extensions_worked_example() {
    // "This example utilizes only the lower left quadrant of the source image, rotated
    // clockwise 90°" (UV origin at the image's top left, v down).
    for corner in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] {
        let [u, v] =
            khr_texture_transform(corner, [0.0, 1.0], std::f32::consts::FRAC_PI_2, [0.5, 0.5]);
        assert!(
            (-1e-6..=0.5 + 1e-6).contains(&u) && (0.5 - 1e-6..=1.0 + 1e-6).contains(&v),
            "{corner:?} -> {u}, {v}"
        );
    }
}

/// TextureTransformTest: every material uses one transform on its one texture, so the bake
/// moves the UVs of its quad by it (checked vertex by vertex against the source through the
/// node translations) and warns about nothing.
#[test]
fn texture_transforms_are_baked_into_the_uvs() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/TextureTransformTest"), &src.path().join("tt"));
    let (out, report) = bake_dir(src.path(), "\"tt/*.gltf\"", "");
    let report = report.unwrap();
    assert!(
        report
            .warnings
            .iter()
            .all(|w| !w.contains("texture") && !w.contains("TEXCOORD")),
        "{:?}",
        report.warnings
    );
    let (document, buffers, _) = gltf_import(&src.path().join("tt/TextureTransformTest.gltf"));
    let key = |p: [f32; 3]| p.map(|c| (c * 1e4).round() as i64);
    let mut expected: BTreeMap<[i64; 3], [f32; 2]> = BTreeMap::new();
    // Column-major 4x4 products: each node's world matrix is its parent's times its own.
    let multiply = |a: [[f32; 4]; 4], b: [[f32; 4]; 4]| {
        let mut m = [[0.0f32; 4]; 4];
        for (col, out) in m.iter_mut().enumerate() {
            for (row, value) in out.iter_mut().enumerate() {
                *value = (0..4).map(|k| a[k][row] * b[col][k]).sum();
            }
        }
        m
    };
    let identity = [
        [1., 0., 0., 0.],
        [0., 1., 0., 0.],
        [0., 0., 1., 0.],
        [0., 0., 0., 1.],
    ];
    let mut stack: Vec<(gltf::Node<'_>, [[f32; 4]; 4])> = document
        .default_scene()
        .unwrap()
        .nodes()
        .map(|n| (n, identity))
        .collect();
    let mut transformed = 0;
    while let Some((node, parent)) = stack.pop() {
        let world = multiply(parent, node.transform().matrix());
        stack.extend(node.children().map(|c| (c, world)));
        let Some(mesh) = node.mesh() else { continue };
        for primitive in mesh.primitives() {
            let info = primitive
                .material()
                .pbr_metallic_roughness()
                .base_color_texture()
                .unwrap();
            let (offset, rotation, scale) = match info.texture_transform() {
                Some(t) => (t.offset(), t.rotation(), t.scale()),
                None => ([0.0, 0.0], 0.0, [1.0, 1.0]),
            };
            transformed += usize::from(info.texture_transform().is_some());
            let reader = primitive.reader(|b| Some(&buffers[b.index()].0[..]));
            for (p, uv) in reader
                .read_positions()
                .unwrap()
                .zip(reader.read_tex_coords(0).unwrap().into_f32())
            {
                let at: [f32; 3] = std::array::from_fn(|r| {
                    (0..3).map(|k| world[k][r] * p[k]).sum::<f32>() + world[3][r]
                });
                expected.insert(key(at), khr_texture_transform(uv, offset, rotation, scale));
            }
        }
    }
    assert!(transformed >= 6, "the model's six transformed quads");
    let bytes = std::fs::read(out.path().join("tt/TextureTransformTest.hmesh")).unwrap();
    let mesh = MeshView::parse(&bytes).unwrap();
    let mut moved = 0;
    for v in mesh.vertices.iter() {
        let want = expected[&key(v.position)];
        assert!(
            (v.uv[0] - want[0]).abs() < 1e-5 && (v.uv[1] - want[1]).abs() < 1e-5,
            "vertex at {:?}: uv {:?}, expected {want:?}",
            v.position,
            v.uv
        );
        moved += usize::from(
            want[0] < -1e-3 || want[0] > 1.0 + 1e-3 || want[1] < -1e-3 || want[1] > 1.0 + 1e-3,
        );
    }
    assert!(
        moved > 0,
        "some UVs left [0, 1]: the transforms were applied"
    );
}

/// A one-triangle glTF (UVs (0, 0), (1, 0), (0, 1)) with `material` and two 4x4 PNG
/// textures, 0 and 1.
fn textured_triangle(material: serde_json::Value) -> String {
    use base64::Engine;
    let base64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([200, 100, 50, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let mut buffer: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .chain(&[0f32, 0., 1., 0., 0., 1.])
        .flat_map(|f| f.to_le_bytes())
        .collect();
    buffer.extend([0u16, 1, 2].iter().flat_map(|i| i.to_le_bytes()));
    buffer.extend([0u8; 2]);
    let image = format!("data:image/png;base64,{}", base64(&png));
    serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
        "materials": [material],
        "textures": [{"source": 0}, {"source": 1}],
        "images": [{"uri": image}, {"uri": image}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"},
            {"bufferView": 2, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 24},
            {"buffer": 0, "byteOffset": 60, "byteLength": 6}
        ],
        "buffers": [{"byteLength": buffer.len(), "uri": format!("data:application/octet-stream;base64,{}", base64(&buffer))}]
    })
    .to_string()
}

/// A material whose base color and normal textures use different transforms keeps each in
/// the `.hmat` (v2 property records, one pair of ids per slot) and leaves the UVs alone.
#[test]
fn different_texture_transforms_of_one_material_are_kept_in_the_material() {
    let gltf = textured_triangle(serde_json::json!({
        "name": "atlas",
        "pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "extensions": {
            "KHR_texture_transform": {"offset": [0.5, 0.25], "scale": [0.5, 0.5], "rotation": 0.25}}}},
        "normalTexture": {"index": 1, "extensions": {
            "KHR_texture_transform": {"scale": [4.0, 4.0]}}}
    }));
    let (_out, mesh, hmat) = bake_generated(&[("atlas.gltf", gltf.as_bytes())], "atlas");
    let mesh = MeshView::parse(&mesh).unwrap();
    let mut uvs: Vec<[f32; 2]> = mesh.vertices.iter().map(|v| v.uv).collect();
    uvs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(
        uvs,
        [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]],
        "UVs as the source has them"
    );
    let table = MaterialTable::parse(&hmat).unwrap();
    use hearth::format::hmat::property::{UV_ROTATION, UV_TRANSFORM};
    let row = &table.rows[0];
    let base = table.property(0, UV_TRANSFORM[0]).unwrap();
    assert_eq!(base.value, [0.5, 0.25, 0.5, 0.5]);
    assert_eq!(base.texture, row.base_color_tex);
    let rotation = table.property(0, UV_ROTATION[0]).unwrap();
    assert_eq!(rotation.value[0], 0.25);
    let normal = table.property(0, UV_TRANSFORM[2]).unwrap();
    assert_eq!(normal.value, [0.0, 0.0, 4.0, 4.0]);
    assert_eq!(normal.texture, row.normal_tex);
    assert!(
        table.property(0, UV_ROTATION[2]).is_none(),
        "no rotation, no record"
    );
    assert_eq!(table.properties.len(), 3);
}

/// The PBR extensions a material carries come out as `.hmat` property records with the
/// source's numbers (defaults where the source leaves them out) and their textures baked.
#[test]
fn pbr_extensions_are_kept_as_material_properties() {
    let gltf = textured_triangle(serde_json::json!({
        "name": "coat",
        "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
        "extensions": {
            "KHR_materials_clearcoat": {"clearcoatFactor": 0.75, "clearcoatRoughnessFactor": 0.125,
                "clearcoatNormalTexture": {"index": 1, "scale": 0.5}},
            "KHR_materials_transmission": {"transmissionFactor": 0.25, "transmissionTexture": {"index": 1}},
            "KHR_materials_ior": {"ior": 1.25},
            "KHR_materials_specular": {"specularColorFactor": [0.5, 0.25, 1.0], "specularColorTexture": {"index": 0}},
            "KHR_materials_volume": {"thicknessFactor": 2.0, "attenuationColor": [0.5, 0.5, 0.25]},
            "KHR_materials_unlit": {}
        }
    }));
    let (out, _mesh, hmat) = bake_generated(&[("coat.gltf", gltf.as_bytes())], "coat");
    let table = MaterialTable::parse(&hmat).unwrap();
    use hearth::format::hmat::property::*;
    let value = |id| {
        table
            .property(0, id)
            .unwrap_or_else(|| panic!("property {id}"))
            .value
    };
    assert_eq!(value(CLEARCOAT), [0.75, 0.125, 0.0, 0.0]);
    assert_eq!(value(CLEARCOAT_NORMAL), [0.5, 0.0, 0.0, 0.0]);
    assert_eq!(value(TRANSMISSION), [0.25, 0.0, 0.0, 0.0]);
    assert_eq!(value(IOR), [1.25, 0.0, 0.0, 0.0]);
    assert_eq!(
        value(SPECULAR),
        [1.0, 0.0, 0.0, 0.0],
        "the specular factor's default"
    );
    assert_eq!(value(SPECULAR_COLOR), [0.5, 0.25, 1.0, 0.0]);
    assert_eq!(
        value(VOLUME),
        [2.0, 0.0, 0.0, 0.0],
        "infinite attenuation distance reads 0"
    );
    assert_eq!(value(VOLUME_ATTENUATION), [0.5, 0.5, 0.25, 0.0]);
    assert_eq!(value(UNLIT), [0.0; 4]);
    assert!(table.property(0, SHEEN).is_none() && table.property(0, CLEARCOAT_ROUGHNESS).is_none());
    // Image 0 is baked once; image 1 once as linear data for transmission (its first use) and
    // once as the clearcoat normal map; each record names the texture in its own mode.
    let tex = |i: usize| hearth::format::hash::hash_asset_ref(&format!("coat/tex_{i}"));
    assert_eq!(table.property(0, TRANSMISSION).unwrap().texture, tex(1));
    assert_eq!(
        table.property(0, CLEARCOAT_NORMAL).unwrap().texture,
        hearth::format::hash::hash_asset_ref("coat/tex_1.normal")
    );
    assert!(out.path().join("coat/tex_1.normal.ktx2").is_file());
    assert_eq!(table.property(0, SPECULAR_COLOR).unwrap().texture, tex(0));
    assert_eq!(
        table.property(0, CLEARCOAT).unwrap().texture,
        0,
        "no clearcoat map"
    );
    assert!(out.path().join("coat/tex_1.ktx2").is_file());
}

/// SheenCloth: its sheen comes out as property records whose textures are baked, and its one
/// texture transform (scale 30, -30 on every texture, sheen's included) is in the UVs.
#[test]
fn sheen_cloth_keeps_its_sheen_and_its_tiling() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&corpus("gltf/SheenCloth"), &src.path().join("cloth"));
    let (out, report) = bake_dir(src.path(), "\"cloth/*.gltf\"", "");
    let report = report.unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let hmat = std::fs::read(out.path().join("cloth/SheenCloth.hmat")).unwrap();
    let table = MaterialTable::parse(&hmat).unwrap();
    use hearth::format::hmat::property::{SHEEN, SHEEN_ROUGHNESS};
    let sheen = table.property(0, SHEEN).unwrap();
    assert_eq!(sheen.value, [1.0, 1.0, 1.0, 1.0]);
    let texture = hearth::format::hash::hash_asset_ref("cloth/sheencloth/tex_3");
    assert_eq!(sheen.texture, texture);
    assert_eq!(table.property(0, SHEEN_ROUGHNESS).unwrap().texture, texture);
    assert!(out.path().join("cloth/SheenCloth/tex_3.ktx2").is_file());
    let mesh = std::fs::read(out.path().join("cloth/SheenCloth.hmesh")).unwrap();
    let mesh = MeshView::parse(&mesh).unwrap();
    let (low, high) = mesh
        .vertices
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), v| {
            (lo.min(v.uv[1]), hi.max(v.uv[1]))
        });
    assert!(
        high - low > 20.0,
        "v spans {low}..{high}: the 30x tiling is in the UVs"
    );
}

/// MultiUVTest's TEXCOORD_1 and BoxVertexColors' COLOR_0 come out as the `UVS1` and `COLR`
/// chunks, each vertex's value one its position has in the source (`merge = false`: positions
/// as the source stores them; a position repeats with other attributes at hard edges).
#[test]
fn second_uv_sets_and_vertex_colors_are_kept() {
    let src = tempfile::tempdir().unwrap();
    for model in ["MultiUVTest", "BoxVertexColors"] {
        copy_dir(&corpus(&format!("gltf/{model}")), &src.path().join(model));
    }
    let (out, report) = bake_dir(src.path(), "\"*/*.glb\"", "mesh = { merge = false }\n");
    report.unwrap();
    let key = |p: [f32; 3]| p.map(f32::to_bits);
    for (model, uv_set) in [("MultiUVTest", true), ("BoxVertexColors", false)] {
        let (document, buffers, _) = gltf_import(&src.path().join(format!("{model}/{model}.glb")));
        let mut expected: BTreeMap<[u32; 3], Vec<[f32; 4]>> = BTreeMap::new();
        for primitive in document
            .meshes()
            .flat_map(|m| m.primitives().collect::<Vec<_>>())
        {
            let reader = primitive.reader(|b| Some(&buffers[b.index()].0[..]));
            let values: Vec<[f32; 4]> = if uv_set {
                reader
                    .read_tex_coords(1)
                    .unwrap()
                    .into_f32()
                    .map(|[u, v]| [u, v, 0.0, 0.0])
                    .collect()
            } else {
                reader.read_colors(0).unwrap().into_rgba_f32().collect()
            };
            for (p, value) in reader.read_positions().unwrap().zip(values) {
                expected.entry(key(p)).or_default().push(value);
            }
        }
        let bytes = std::fs::read(out.path().join(format!("{model}/{model}.hmesh"))).unwrap();
        let mesh = MeshView::parse(&bytes).unwrap();
        let baked: Vec<[f32; 4]> = if uv_set {
            assert!(mesh.colors.is_none(), "{model}: no colors in the source");
            mesh.uvs1
                .as_ref()
                .unwrap()
                .iter()
                .map(|[u, v]| [*u, *v, 0.0, 0.0])
                .collect()
        } else {
            assert!(
                mesh.uvs1.is_none(),
                "{model}: no second UV set in the source"
            );
            mesh.colors
                .as_ref()
                .unwrap()
                .iter()
                .map(|c| c.map(|x| x as f32 / 65535.0))
                .collect()
        };
        assert_eq!(baked.len(), mesh.vertices.len());
        let mut distinct = std::collections::BTreeSet::new();
        for (v, value) in mesh.vertices.iter().zip(&baked) {
            let candidates = &expected[&key(v.position)];
            assert!(
                candidates
                    .iter()
                    .any(|c| (0..4).all(|i| (c[i] - value[i]).abs() < 1e-4)),
                "{model}: vertex at {:?} has {value:?}, the source {candidates:?}",
                v.position
            );
            distinct.insert(value.map(f32::to_bits));
        }
        assert!(distinct.len() > 1, "{model}: the values vary");
    }
    // MultiUVTest's emissive texture samples TEXCOORD_1 (its base color the first set): its
    // material says so.
    let hmat = std::fs::read(out.path().join("MultiUVTest/MultiUVTest.hmat")).unwrap();
    let table = MaterialTable::parse(&hmat).unwrap();
    use hearth::format::hmat::property::UV_SET;
    let set = table
        .property(0, UV_SET[4])
        .expect("emissive samples UV set 1");
    assert_eq!(set.value[0], 1.0);
    assert_eq!(set.texture, table.rows[0].emissive_tex);
    assert!(UV_SET[..4]
        .iter()
        .all(|id| table.property(0, *id).is_none()));
}

/// MorphPrimitivesTest's target (POSITION deltas on both primitives, default weight 0.5)
/// lands in the `.hmesh` MRPH chunk: every baked vertex carries its source vertex's delta,
/// in the mesh's own space (`merge = false`) and moved by the node transforms when merged;
/// no "morph targets skipped" warning is left.
#[test]
fn morph_targets_are_kept_as_deltas() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(
        &corpus("gltf/MorphPrimitivesTest"),
        &src.path().join("morph"),
    );
    let model = src.path().join("morph/MorphPrimitivesTest.glb");
    let (document, buffers, _) = gltf_import(&model);
    // Source (position, position + delta) pairs.
    let mut source: Vec<([f32; 3], [f32; 3])> = Vec::new();
    for primitive in document
        .meshes()
        .flat_map(|m| m.primitives().collect::<Vec<_>>())
    {
        let reader = primitive.reader(|b| Some(&buffers[b.index()].0[..]));
        let (deltas, _, _) = reader.read_morph_targets().next().expect("one target");
        for (p, d) in reader.read_positions().unwrap().zip(deltas.unwrap()) {
            source.push((p, [p[0] + d[0], p[1] + d[1], p[2] + d[2]]));
        }
    }
    // The mesh node's world matrix (column-major), for the merged bake.
    let mut world = None;
    let mut stack: Vec<(gltf::Node<'_>, [[f32; 4]; 4])> = document
        .default_scene()
        .unwrap()
        .nodes()
        .map(|n| (n, IDENTITY))
        .collect();
    while let Some((node, parent)) = stack.pop() {
        let m = mat_mul(&parent, &node.transform().matrix());
        if node.mesh().is_some() {
            world = Some(m);
        }
        stack.extend(node.children().map(|c| (c, m)));
    }
    // Merged, with the mesh settings' non-uniform scale after the node transforms (the
    // node alone only moves the mesh, which deltas do not see).
    let scale = [
        [1., 0., 0., 0.],
        [0., 2., 0., 0.],
        [0., 0., 3., 0.],
        [0., 0., 0., 1.],
    ];
    let world = mat_mul(&scale, &world.unwrap());
    for (settings, matrix) in [
        ("merge = false", IDENTITY),
        ("merge = true, scale = [1.0, 2.0, 3.0]", world),
    ] {
        let merge = settings;
        let (out, report) = bake_dir(
            src.path(),
            "\"*/*.glb\"",
            &format!("mesh = {{ {settings} }}\n"),
        );
        let report = report.unwrap();
        assert!(
            !report.warnings.iter().any(|w| w.contains("morph")),
            "{:?}",
            report.warnings
        );
        let bytes = std::fs::read(out.path().join("morph/MorphPrimitivesTest.hmesh")).unwrap();
        let mesh = MeshView::parse(&bytes).unwrap();
        let morph = mesh.morph_targets.as_ref().expect("an MRPH chunk");
        assert_eq!(morph.weights[..], [0.5], "the mesh's default weight");
        assert_eq!(morph.targets.len(), 1);
        let target = &morph.targets[0];
        assert!(
            target.normals.is_none() && target.tangents.is_none(),
            "the source target moves positions only"
        );
        let moved: Vec<([f32; 3], [f32; 3])> = source
            .iter()
            .map(|(p, q)| (mat_point(&matrix, *p), mat_point(&matrix, *q)))
            .collect();
        let mut moving = 0;
        for (v, delta) in mesh.vertices.iter().zip(target.positions.iter()) {
            let p = v.position;
            let q = [p[0] + delta[0], p[1] + delta[1], p[2] + delta[2]];
            let close = |a: [f32; 3], b: [f32; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-4);
            assert!(
                moved.iter().any(|(sp, sq)| close(*sp, p) && close(*sq, q)),
                "{merge}: vertex {p:?} with delta {delta:?} is no source vertex's"
            );
            moving += usize::from(delta.iter().any(|c| c.abs() > 1e-6));
        }
        assert!(moving > 0, "the target moves some vertices");
        // `hearth info --json` counts them.
        let counts =
            hearth::read::inspect::file_counts(hearth::format::hman::AssetKind::MESH, &bytes)
                .unwrap();
        assert!(counts.contains(&("morph_targets", 1)), "{counts:?}");
    }
}

const IDENTITY: [[f32; 4]; 4] = [
    [1., 0., 0., 0.],
    [0., 1., 0., 0.],
    [0., 0., 1., 0.],
    [0., 0., 0., 1.],
];

fn mat_mul(a: &[[f32; 4]; 4], b: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    std::array::from_fn(|c| std::array::from_fn(|r| (0..4).map(|k| a[k][r] * b[c][k]).sum()))
}

fn mat_point(m: &[[f32; 4]; 4], p: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|r| m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r])
}

/// A quad with two morph targets (position, normal and tangent deltas), on a node scaled by
/// 2 and animated by a weights channel per interpolation: the deltas scale with the node, the
/// normal and tangent deltas survive their quantization within 1e-4, two vertices that differ
/// only in their deltas stay two vertices, and the `.hanim` (v2) carries the weight keys.
#[test]
fn morph_weight_animation_and_normal_deltas() {
    use crate::common::morph_quad::*;
    let gltf = common::morph_quad::gltf();
    let (out, mesh, _) = bake_generated(&[("morph.gltf", gltf.as_bytes())], "morph");
    let mesh = MeshView::parse(&mesh).unwrap();
    assert_eq!(
        mesh.vertices.len(),
        4,
        "vertices 1 and 3 differ only in their deltas"
    );
    let morph = mesh.morph_targets.as_ref().unwrap();
    assert_eq!(morph.weights[..], [0.25, 0.75]);
    let (t0, t1) = (&morph.targets[0], &morph.targets[1]);
    assert!(t0.normals.is_some() && t0.tangents.is_some());
    let close = |a: [f32; 3], b: [f32; 3], eps: f32| (0..3).all(|i| (a[i] - b[i]).abs() < eps);
    let mut seen = 0;
    for (v, vertex) in mesh.vertices.iter().enumerate() {
        let p = vertex.position;
        // Source vertex by its scaled position and target 0's delta (1 and 3 share a spot).
        let source = (0..4)
            .find(|&s| {
                close(
                    p,
                    [POSITIONS[3 * s] * 2., POSITIONS[3 * s + 1] * 2., 0.],
                    1e-6,
                ) && close(
                    t0.positions[v],
                    [0., 0., T0_POSITIONS[3 * s + 2] * 2.],
                    1e-6,
                )
            })
            .unwrap_or_else(|| panic!("vertex {p:?} is no source vertex"));
        seen |= 1 << source;
        let d = |a: &[f32], s: usize| [a[3 * s], a[3 * s + 1], a[3 * s + 2]];
        assert!(close(
            t1.positions[v],
            d(&T1_POSITIONS, source).map(|c| c * 2.),
            1e-6
        ));
        // A uniform scale leaves normal and tangent deltas as they are (the base vectors are
        // renormalized by the same factor).
        assert!(
            close(t0.normal(v), d(&T0_NORMALS, source), 1e-4),
            "{:?}",
            t0.normal(v)
        );
        assert!(
            close(t0.tangent(v), d(&T0_TANGENTS, source), 1e-4),
            "{:?}",
            t0.tangent(v)
        );
        assert_eq!(t1.normal(v), [0.0; 3]);
    }
    assert_eq!(seen, 0b1111, "every source vertex is baked once");

    let anim = std::fs::read(out.path().join("morph.hanim")).unwrap();
    assert_eq!(
        anim[4..8],
        hearth::format::hanim::VERSION_WEIGHTS.to_le_bytes()
    );
    let clips = hearth::AnimClips::parse(&anim, 0, 2).unwrap().clips;
    assert!(
        hearth::AnimClips::parse(&anim, 0, 1).is_err(),
        "two targets needed"
    );
    use hearth::format::hanim::{ChannelPath, Interpolation};
    let by_name = |name: &str| clips.iter().find(|c| c.name == name).unwrap().channels[0].clone();
    for (name, interpolation, values) in [
        ("linear", Interpolation::Linear, LINEAR_WEIGHTS.to_vec()),
        ("step", Interpolation::Step, STEP_WEIGHTS.to_vec()),
        // CUBICSPLINE keeps each key's value (LINEAR), as joint channels do.
        (
            "cubic",
            Interpolation::Linear,
            vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        ),
    ] {
        let channel = by_name(name);
        assert_eq!(channel.path, ChannelPath::Weights, "{name}");
        assert_eq!((channel.joint, channel.morph_targets), (0, 2), "{name}");
        assert_eq!(channel.interpolation, interpolation, "{name}");
        assert_eq!(channel.times, TIMES, "{name}");
        assert_eq!(channel.values, values, "{name}");
    }
}
