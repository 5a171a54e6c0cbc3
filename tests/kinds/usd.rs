//! USD layers as model sources: every root layer of the USD corpus (`tests/corpus/usd`) baked
//! and checked against what Pixar's own library (usd-core, run by the test) says a viewer
//! draws: triangles after fan triangulation with PointInstancer instances expanded, joints,
//! bound materials, and the drawn bounds in hearth's space (Y up, metres).
#![cfg(feature = "bake")]

use crate::common::{copy_dir, corpus};
use hearth::bake::Baker;
use hearth::{MaterialTable, MeshView};
use std::path::Path;
use std::process::Command;

/// The corpus' root layers (`FACTS.jsonl`'s files that are in this repository's copy).
fn root_layers(dir: &Path) -> Vec<String> {
    let facts = std::fs::read_to_string(dir.join("FACTS.jsonl")).unwrap();
    let layers: Vec<String> = facts
        .lines()
        .map(|line| {
            let fact: serde_json::Value = serde_json::from_str(line).unwrap();
            fact["file"].as_str().unwrap().to_string()
        })
        .filter(|file| dir.join(file).exists())
        .collect();
    assert_eq!(layers.len(), 13, "the corpus copy's root layers");
    layers
}

/// usd-core's account of each layer (`drawn_facts.py`), run where the layers are.
fn drawn_facts(dir: &Path, layers: &[String]) -> Vec<serde_json::Value> {
    let output = Command::new("python3")
        .arg(dir.join("drawn_facts.py"))
        .args(layers)
        .current_dir(dir)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "usd-core's facts failed (is Pixar's usd-core installed? `python3 -m pip install usd-core`): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn stem(layer: &str) -> &str {
    layer.rsplit_once('.').unwrap().0
}

#[test]
fn every_corpus_layer_bakes_what_usd_core_draws() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("usd");
    copy_dir(&corpus("usd"), &dir);
    let layers = root_layers(&dir);
    let assets: Vec<String> = layers.iter().map(|l| format!("{l:?}")).collect();
    std::fs::write(
        dir.join("hearth.toml"),
        format!(
            "[[content.group]]\nassets = [{}]\n[default]\ntexture = {{ quality = \"fastest\", max_size = 64, mips = false }}\n",
            assets.join(", ")
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let report = Baker::new(dir.join("hearth.toml").as_path(), out.as_path())
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    for facts in drawn_facts(&dir, &layers) {
        let layer = facts["file"].as_str().unwrap();
        let bytes = std::fs::read(out.join(format!("{}.hmesh", stem(layer))))
            .unwrap_or_else(|e| panic!("{layer}: {e}"));
        let mesh = MeshView::parse(&bytes).unwrap();
        let triangles: u32 = mesh.submeshes.iter().map(|s| s.index_count / 3).sum();
        assert_eq!(
            triangles as u64,
            facts["triangles"].as_u64().unwrap(),
            "{layer}: triangles"
        );
        let joints = mesh.skeleton.as_ref().map_or(0, |s| s.len());
        assert_eq!(
            joints as u64,
            facts["joints"].as_u64().unwrap(),
            "{layer}: joints"
        );
        let hmat = std::fs::read(out.join(format!("{}.hmat", stem(layer)))).unwrap();
        let table = MaterialTable::parse(&hmat).unwrap();
        assert_eq!(
            table.rows.len() as u64,
            facts["materials"].as_u64().unwrap(),
            "{layer}: materials"
        );
        if let Some(bounds) = facts["bounds"].as_array() {
            let (lo, hi) = (&bounds[0], &bounds[1]);
            let extent: f64 = (0..3)
                .map(|i| hi[i].as_f64().unwrap() - lo[i].as_f64().unwrap())
                .fold(0.0, f64::max);
            for i in 0..3 {
                let tolerance = 1e-4 * extent + 1e-6;
                let (got_lo, got_hi) = (
                    mesh.bounds.aabb_min[i] as f64,
                    mesh.bounds.aabb_max[i] as f64,
                );
                assert!(
                    (got_lo - lo[i].as_f64().unwrap()).abs() <= tolerance
                        && (got_hi - hi[i].as_f64().unwrap()).abs() <= tolerance,
                    "{layer}: bounds axis {i}: baked {got_lo}..{got_hi}, usd-core {lo}..{hi}"
                );
            }
        }
    }
    eprintln!("{}", report.warnings.join("\n"));
}
