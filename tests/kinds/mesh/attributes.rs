//! What a mesh keeps besides positions and normals: texture transforms baked into the UVs or
//! kept in the material, PBR extensions, second UV sets, vertex colours and morph targets.

use super::*;

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
