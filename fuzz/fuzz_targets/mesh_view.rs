//! Arbitrary bytes parsed as `.hmesh` by `MeshView::parse`, then every view walked: indices,
//! submesh and meshlet ranges, skin, skeleton, LOD and shadow ranges, the way a renderer reads
//! them.
#![no_main]

use hearth::MeshView;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mesh) = MeshView::parse(data) else {
        return;
    };
    let vertices = mesh.vertices.len();
    let mut sum = 0u64;
    for index in mesh.indices.iter() {
        assert!((index as usize) < vertices, "validated index");
        sum += u64::from(index);
    }
    for s in mesh.submeshes.iter() {
        for i in s.first_index..s.first_index + s.index_count {
            sum += u64::from(mesh.indices.get(i as usize).expect("validated submesh range"));
        }
        if s.material_slot != hearth::format::hmesh::NO_MATERIAL {
            let _ = mesh.materials[s.material_slot as usize];
        }
    }
    for m in mesh.meshlets.iter() {
        let verts = &mesh.meshlet_vertices
            [m.vertex_offset as usize..(m.vertex_offset + m.vertex_count) as usize];
        let tris = &mesh.meshlet_triangles
            [m.triangle_offset as usize..(m.triangle_offset + m.triangle_count) as usize];
        for local in tris.iter().flatten() {
            let _ = mesh.vertices[verts[*local as usize] as usize];
        }
    }
    if let Some(lods) = &mesh.lods {
        for submesh in 0..mesh.submeshes.len() + 1 {
            for lod in 0..lods.header.lod_count as usize + 1 {
                if let Some(range) = lods.range(submesh, lod) {
                    let end = (range.first_index + range.index_count) as usize;
                    for i in &lods.lod_indices[range.first_index as usize..end] {
                        let _ = mesh.vertices[*i as usize];
                    }
                }
            }
        }
        let _ = lods.range(usize::MAX, 0);
    }
    if let (Some(skin), Some(skeleton)) = (&mesh.skin, &mesh.skeleton) {
        for s in skin.iter() {
            for j in s.joints {
                let _ = skeleton[j as usize];
            }
        }
    }
    if let Some(shadow) = &mesh.shadow {
        for range in shadow.ranges.iter() {
            let end = (range.first_index + range.index_count) as usize;
            for i in &shadow.indices[range.first_index as usize..end] {
                let _ = shadow.positions[*i as usize];
            }
        }
        if let (Some(skin), Some(skeleton)) = (&shadow.skin, &mesh.skeleton) {
            for s in skin.iter() {
                for j in s.joints {
                    let _ = skeleton[j as usize];
                }
            }
        }
    }
    std::hint::black_box((sum, mesh.meshlet_bounds.len(), mesh.desc, mesh.bounds));
});
