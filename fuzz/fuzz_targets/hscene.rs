//! Arbitrary bytes parsed as `.hscene` (scenes): every ref, geometry record and data value,
//! walked to the leaves.
#![no_main]

use hearth::format::hscene::Value;
use hearth::SceneView;
use libfuzzer_sys::fuzz_target;

fn walk(value: Value<'_>, depth: usize) {
    let _ = (value.kind(), value.key(), value.as_str(), value.as_i64(), value.as_f64(), value.as_bool());
    let _ = value.get("type");
    if depth < 64 {
        for child in value.iter() {
            walk(child, depth + 1);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(scene) = SceneView::parse(data) else {
        return;
    };
    for r in scene.refs() {
        let _ = (r.id(), r.mesh(), r.materials().count(), r.translation(), r.rotation(), r.scale(), r.tags());
        if let Some(data) = r.data() {
            walk(data, 0);
        }
    }
    for g in scene.geometry() {
        let _ = (g.id(), g.vertices().count(), g.indices().count(), g.tags(), g.vertex(usize::MAX));
        if let Some(data) = g.data() {
            walk(data, 0);
        }
    }
});
