//! Generated models: warnings reported once per bake, one image in two colour spaces, and
//! thousands of objects, materials and meshes.

use super::*;

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
