//! Deterministic generated models at scale, shared by `tests/mesh.rs` (which bakes a few
//! thousand of each and checks the result) and `benches/mesh.rs` (which bakes N and 10 N of
//! each and reports the ratio). Standard library only.
//!
//! Every object is the same small patch: a 3 x 2 vertex grid (2 x 1 quads, 4 triangles) with
//! UVs, a little bent so it is not flat, placed on its own spot of a plane so no two objects
//! share a position.

/// Triangles per generated object.
pub const PATCH_TRIANGLES: usize = 4;
/// Distinct vertices per generated object.
pub const PATCH_VERTICES: usize = 6;
/// Materials the object OBJ cycles through (object `i` uses `shared_{i % OBJ_SHARED}`).
pub const OBJ_SHARED: usize = 8;
/// Materials the glTF cycles through (mesh `i` uses material `i % GLTF_SHARED`).
pub const GLTF_SHARED: usize = 4;

/// Where object `i` sits (its patch spans 2 x 1 units from there, plus the bend in +Z): a
/// grid of 128 columns, 3 units apart.
pub fn spot(i: usize) -> [f32; 3] {
    [(i % 128) as f32 * 3.0, (i / 128) as f32 * 3.0, 0.0]
}

/// The patch's local positions and UVs (row-major 3 x 2), bent by `i`.
fn patch(i: usize) -> ([[f32; 3]; PATCH_VERTICES], [[f32; 2]; PATCH_VERTICES]) {
    let bend = 0.1 + (i % 7) as f32 * 0.05;
    let mut positions = [[0.0; 3]; PATCH_VERTICES];
    let mut uvs = [[0.0; 2]; PATCH_VERTICES];
    for y in 0..2 {
        for x in 0..3 {
            let k = y * 3 + x;
            let z = if x == 1 { bend } else { 0.0 };
            positions[k] = [x as f32, y as f32, z];
            uvs[k] = [x as f32 / 2.0, y as f32];
        }
    }
    (positions, uvs)
}

/// The patch's triangles, counter-clockwise seen from +Z, as local vertex indices.
const PATCH_INDICES: [u16; PATCH_TRIANGLES * 3] = [0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4];

/// Appends one OBJ object: its `v`/`vt` lines and its faces (1-based, after `base` earlier
/// vertices).
fn obj_patch(out: &mut String, i: usize, base: usize) {
    use std::fmt::Write;
    let (positions, uvs) = patch(i);
    let at = spot(i);
    for (p, t) in positions.iter().zip(&uvs) {
        let _ = writeln!(
            out,
            "v {} {} {}\nvt {} {}",
            p[0] + at[0],
            p[1] + at[1],
            p[2] + at[2],
            t[0],
            1.0 - t[1]
        );
    }
    for t in PATCH_INDICES.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|k| base + k as usize + 1);
        let _ = writeln!(out, "f {a}/{a} {b}/{b} {c}/{c}");
    }
}

/// One MTL material with a distinct diffuse color.
fn mtl_material(out: &mut String, name: &str, i: usize) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "newmtl {name}\nKd {} {} {}\nd 1\n",
        (i % 11) as f32 / 10.0,
        (i % 13) as f32 / 12.0,
        (i % 17) as f32 / 16.0
    );
}

/// An OBJ (`objects.obj`) with `objects` objects (`o obj_<i>`), object `i` using material
/// `shared_<i % 8>` of `shared.mtl`: returns (OBJ, MTL).
pub fn obj_objects(objects: usize) -> (String, String) {
    let mut obj = String::from("# generated: objects sharing a few materials\nmtllib shared.mtl\n");
    for i in 0..objects {
        obj.push_str(&format!("o obj_{i}\nusemtl shared_{}\n", i % OBJ_SHARED));
        obj_patch(&mut obj, i, i * PATCH_VERTICES);
    }
    let mut mtl = String::new();
    for m in 0..OBJ_SHARED {
        mtl_material(&mut mtl, &format!("shared_{m}"), m);
    }
    (obj, mtl)
}

/// An OBJ (`materials.obj`) with `groups` groups (`g grp_<i>`), group `i` using its own
/// material `m_<i>` of `materials.mtl`, which holds `groups` materials: returns (OBJ, MTL).
pub fn obj_materials(groups: usize) -> (String, String) {
    let mut obj = String::from("# generated: one material per group\nmtllib materials.mtl\n");
    let mut mtl = String::new();
    for i in 0..groups {
        obj.push_str(&format!("g grp_{i}\nusemtl m_{i}\n"));
        obj_patch(&mut obj, i, i * PATCH_VERTICES);
        mtl_material(&mut mtl, &format!("m_{i}"), i);
    }
    (obj, mtl)
}

/// A GLB with `meshes` meshes, each one indexed triangle primitive (POSITION, NORMAL,
/// TEXCOORD_0, u16 indices, its own accessors) on its own root node (translated to its spot),
/// mesh `i` using material `i % 4`.
pub fn glb_meshes(meshes: usize) -> Vec<u8> {
    use std::fmt::Write;
    // One buffer, four views (positions, normals, UVs, indices); accessor i of each view is
    // mesh i's.
    let (mut positions, mut normals, mut uvs, mut indices) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..meshes {
        let (p, t) = patch(i);
        for k in 0..PATCH_VERTICES {
            positions.extend(p[k].iter().flat_map(|c| c.to_le_bytes()));
            normals.extend([0f32, 0.0, 1.0].iter().flat_map(|c| c.to_le_bytes()));
            uvs.extend(t[k].iter().flat_map(|c| c.to_le_bytes()));
        }
        indices.extend(PATCH_INDICES.iter().flat_map(|k| k.to_le_bytes()));
    }
    let views = [&positions, &normals, &uvs, &indices];
    let mut bin = Vec::new();
    let mut view_json = Vec::new();
    for view in views {
        view_json.push(format!(
            "{{\"buffer\":0,\"byteOffset\":{},\"byteLength\":{}}}",
            bin.len(),
            view.len()
        ));
        bin.extend_from_slice(view);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
    }
    let mut accessors = String::new();
    let mut mesh_json = String::new();
    let mut nodes = String::new();
    let sep = |s: &mut String| {
        if !s.is_empty() {
            s.push(',');
        }
    };
    for i in 0..meshes {
        let (p, _) = patch(i);
        let max_z = p.iter().map(|v| v[2]).fold(0f32, f32::max);
        let a = 4 * i;
        sep(&mut accessors);
        let _ = write!(
            accessors,
            "{{\"bufferView\":0,\"byteOffset\":{},\"componentType\":5126,\"count\":{PATCH_VERTICES},\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[2,1,{max_z}]}},\
             {{\"bufferView\":1,\"byteOffset\":{},\"componentType\":5126,\"count\":{PATCH_VERTICES},\"type\":\"VEC3\"}},\
             {{\"bufferView\":2,\"byteOffset\":{},\"componentType\":5126,\"count\":{PATCH_VERTICES},\"type\":\"VEC2\"}},\
             {{\"bufferView\":3,\"byteOffset\":{},\"componentType\":5123,\"count\":{},\"type\":\"SCALAR\"}}",
            i * PATCH_VERTICES * 12,
            i * PATCH_VERTICES * 12,
            i * PATCH_VERTICES * 8,
            i * PATCH_INDICES.len() * 2,
            PATCH_INDICES.len()
        );
        sep(&mut mesh_json);
        let _ = write!(
            mesh_json,
            "{{\"name\":\"mesh_{i}\",\"primitives\":[{{\"attributes\":{{\"POSITION\":{a},\"NORMAL\":{},\"TEXCOORD_0\":{}}},\"indices\":{},\"material\":{}}}]}}",
            a + 1,
            a + 2,
            a + 3,
            i % GLTF_SHARED
        );
        let at = spot(i);
        sep(&mut nodes);
        let _ = write!(
            nodes,
            "{{\"mesh\":{i},\"translation\":[{},{},{}]}}",
            at[0], at[1], at[2]
        );
    }
    let materials: Vec<String> = (0..GLTF_SHARED)
        .map(|m| {
            format!(
                "{{\"name\":\"mat_{m}\",\"pbrMetallicRoughness\":{{\"baseColorFactor\":[{},0.5,0.5,1],\"metallicFactor\":0}}}}",
                m as f32 / GLTF_SHARED as f32
            )
        })
        .collect();
    let roots: Vec<String> = (0..meshes).map(|i| i.to_string()).collect();
    let mut json = format!(
        "{{\"asset\":{{\"version\":\"2.0\",\"generator\":\"hearth tests\"}},\"scene\":0,\"scenes\":[{{\"nodes\":[{}]}}],\"nodes\":[{nodes}],\"meshes\":[{mesh_json}],\"materials\":[{}],\"accessors\":[{accessors}],\"bufferViews\":[{}],\"buffers\":[{{\"byteLength\":{}}}]}}",
        roots.join(","),
        materials.join(","),
        view_json.join(","),
        bin.len()
    )
    .into_bytes();
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    glb
}
