//! The `loadtime` measurement on a small pack (CI's smoke test: its figure is not asserted).

use bevy_hearth::loadtime::{measure, model_pairs, LoadTimeSettings, ModelPair};

/// The number after `"key": ` in `json`.
fn number(json: &str, key: &str) -> f64 {
    let at = json
        .find(&format!("\"{key}\": "))
        .unwrap_or_else(|| panic!("{key} missing from {json}"));
    let rest = &json[at + key.len() + 4..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].trim().parse().unwrap()
}

#[test]
fn loadtime_measures_a_small_pack_against_its_sources_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    // A textured model (its PNG decoded by Bevy; the baked KTX2 transcoded) and an untextured
    // one; a model without a source does not count.
    super::copy_folder(&super::corpus("BoxTextured"), &src.join("m/BoxTextured"));
    super::copy_folder(&super::corpus("BoxVertexColors"), &src.join("m"));
    let manifest = src.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\n\
         assets = [\"m/**/*.glb\", \"m/**/*.gltf\"]\n[default]\n\
         texture = { quality = \"fastest\", max_size = 64, mips = false }\n",
    )
    .unwrap();
    let report = hearth::bake::Baker::new(&manifest, dir.path().join("out"))
        .run()
        .unwrap();
    std::fs::remove_file(src.join("m/BoxVertexColors.glb")).unwrap();
    assert_eq!(
        model_pairs(&report.pack_path, &src).unwrap(),
        [ModelPair {
            mesh: "m/BoxTextured/BoxTextured.hmesh".into(),
            source: "m/BoxTextured/BoxTextured.gltf".into(),
        }]
    );
    let settings = LoadTimeSettings {
        runs: 1,
        ..LoadTimeSettings::default()
    };
    let times = measure(&report.pack_path, &src, &settings).unwrap();
    let json = times.json();
    assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
    assert_eq!(number(&json, "models"), 1.0, "{json}");
    for key in ["pack_s", "gltf_s", "ratio"] {
        assert!(number(&json, key) > 0.0, "{key} in {json}");
    }
    // No source at all: an error, not a figure over nothing.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(measure(&report.pack_path, &empty, &settings).is_err());
}
