//! Shared helpers for the integration tests.
#![allow(dead_code)]

mod corpus;
pub mod models;
pub mod xvfb;

#[allow(unused_imports)] // not every test binary reads the corpus
pub use corpus::corpus;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Writes `files` (path -> bytes) under `root`, creating folders.
pub fn write_files(root: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// A small content folder with a manifest: text (compressible), an .ogg (already
/// compressed), a shader, a font, nested folders, a hidden file and a wip file to exclude.
pub fn sample_content(root: &Path, manifest_extra: &str) -> PathBuf {
    let text = "the quick brown fox jumps over the lazy dog\n".repeat(50);
    write_files(
        root,
        &[
            ("data/levels/level1.txt", text.as_bytes()),
            ("data/levels/level2.txt", b"short level"),
            ("data/wip/secret.txt", b"not shipped"),
            ("data/.hidden", b"dotfile"),
            (
                "sounds/hit.ogg",
                b"OggS\0\x02fake ogg payload that should stay stored as it is",
            ),
            // A real SPIR-V module (glslang's; the shader pipeline checks it).
            (
                "shaders/mesh.spv",
                include_bytes!("../fixtures/shaders/vertex.spv"),
            ),
            ("fonts/ui.ttf", &[0, 1, 0, 0, 9, 9, 9]),
        ],
    );
    let manifest = root.join("hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            r#"[content]
name = "game"
compression = "zstd"
[[content.group]]
assets = ["data/**/*", "sounds/*.ogg"]
exclude = ["**/wip/**"]
[[content.group]]
assets = ["shaders/*.spv", "fonts/*", "data/levels/*.txt"]
{manifest_extra}"#
        ),
    )
    .unwrap();
    manifest
}

/// Every file under `dir` (relative path -> mtime), recursively.
pub fn mtimes(dir: &Path) -> BTreeMap<PathBuf, SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                out.insert(
                    entry.path().strip_prefix(dir).unwrap().to_path_buf(),
                    meta.modified().unwrap(),
                );
            }
        }
    }
    out
}

/// Every file under `dir` (relative path -> bytes).
pub fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    mtimes(dir)
        .into_keys()
        .map(|rel| (rel.clone(), std::fs::read(dir.join(rel)).unwrap()))
        .collect()
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Asserts that `error` has a line naming each file with the expected words.
pub fn assert_errors_name(error: &str, expect: &[(&str, &str)]) {
    for (file, what) in expect {
        let line = error
            .lines()
            .find(|l| l.contains(file))
            .unwrap_or_else(|| panic!("{file} not named:\n{error}"));
        assert!(line.contains(what), "{file}: expected `{what}` in `{line}`");
    }
}

/// Bakes `manifest` into `out` from scratch (cache off) with `jobs` threads and returns the
/// output folder's files, less the cache (which records source mtimes).
#[cfg(feature = "bake")]
pub fn bake_cold(manifest: &Path, out: &Path, jobs: usize) -> BTreeMap<PathBuf, Vec<u8>> {
    hearth::bake::Baker::new(manifest, out)
        .jobs(jobs)
        .cache(false)
        .run()
        .unwrap();
    let mut tree = contents(out);
    tree.remove(Path::new(".hearth-cache"));
    tree
}

/// `hearth info --json OUT`'s files, by path (the command must succeed).
#[cfg(feature = "cli")]
pub fn info_files(out: &Path) -> BTreeMap<String, serde_json::Value> {
    let (ok, json) = hearth_on(&["info", "--json"], out);
    assert!(ok, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f.clone()))
        .collect()
}

/// Runs the `hearth` binary with `args` and then `target` (a folder or file); returns
/// whether it succeeded and its stdout followed by its stderr.
#[cfg(feature = "cli")]
pub fn hearth_on(args: &[&str], target: &Path) -> (bool, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .arg(target)
        .output()
        .expect("the hearth binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// Runs the independent reader `tools/spec_check.py` on `out`: whether it passed, and its
/// output.
pub fn spec_check(out: &Path) -> (bool, String) {
    let output = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/spec_check.py"))
        .arg(out)
        .output()
        .expect("python3 runs tools/spec_check.py");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A quad with two morph targets (position, normal and tangent deltas) on a node scaled by 2,
/// and three clips animating its weights (LINEAR, STEP, CUBICSPLINE): no corpus model
/// animates morph weights. Vertices 1 and 3 sit at the same spot with the same attributes,
/// told apart only by target 0's deltas.
pub mod morph_quad {
    // Four vertices; 1 and 3 sit at the same spot with the same attributes, told apart only
    // by target 0's deltas.
    pub const POSITIONS: [f32; 12] = [0.0, 0., 0., 1., 0., 0., 1., 1., 0., 1., 0., 0.];
    pub const NORMALS: [f32; 12] = [0.0, 0., 1., 0., 0., 1., 0., 0., 1., 0., 0., 1.];
    pub const TANGENTS: [f32; 16] = [
        1.0, 0., 0., 1., 1., 0., 0., 1., 1., 0., 0., 1., 1., 0., 0., 1.,
    ];
    pub const T0_POSITIONS: [f32; 12] = [0.0, 0., 0., 0., 0., 0.5, 0., 0., 0., 0., 0., 0.];
    pub const T0_NORMALS: [f32; 12] = [0.0, 0., 0., 0.3, 0., -0.1, 0., 0., 0., 0., 0., 0.];
    pub const T0_TANGENTS: [f32; 12] = [0.0, 0., 0., 0., 0.25, 0., 0., 0., 0., 0., 0., 0.];
    pub const T1_POSITIONS: [f32; 12] = [0.0, 0., 0.25, 0., 0., 0., 0., 0., 0., 0., 0., 0.];
    pub const TIMES: [f32; 3] = [0.0, 1., 2.];
    pub const LINEAR_WEIGHTS: [f32; 6] = [0.0, 0., 1., 0.5, 0., 1.];
    pub const STEP_WEIGHTS: [f32; 6] = [1.0, 0., 0., 1., 1., 1.];
    // CUBICSPLINE: (in-tangent, value, out-tangent) per key, each 2 weights.
    pub const CUBIC_WEIGHTS: [f32; 18] = [
        0.0, 0., 0.1, 0.2, 0., 0., 0., 0., 0.3, 0.4, 0., 0., 0., 0., 0.5, 0.6, 0., 0.,
    ];

    /// The glTF (JSON, buffer embedded).
    pub fn gltf() -> String {
        use base64::Engine;
        let base64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        let f32s = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
        let indices = [0u16, 1, 2, 0, 2, 3];
        let mut buffer = Vec::new();
        let mut views = Vec::new();
        for chunk in [
            f32s(&POSITIONS),
            f32s(&NORMALS),
            f32s(&TANGENTS),
            f32s(&T0_POSITIONS),
            f32s(&T0_NORMALS),
            f32s(&T0_TANGENTS),
            f32s(&T1_POSITIONS),
            f32s(&TIMES),
            f32s(&LINEAR_WEIGHTS),
            f32s(&STEP_WEIGHTS),
            f32s(&CUBIC_WEIGHTS),
            indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        ] {
            views.push(
                serde_json::json!({"buffer": 0, "byteOffset": buffer.len(), "byteLength": chunk.len()}),
            );
            buffer.extend(chunk);
            buffer.resize(buffer.len().next_multiple_of(4), 0);
        }
        let vec3 = |view: usize| serde_json::json!({"bufferView": view, "componentType": 5126, "count": 4, "type": "VEC3"});
        let scalar = |view: usize, count: usize| serde_json::json!({"bufferView": view, "componentType": 5126, "count": count, "type": "SCALAR"});
        let mut position = vec3(0);
        position["min"] = serde_json::json!([0, 0, 0]);
        position["max"] = serde_json::json!([1, 1, 0]);
        serde_json::json!({
            "asset": {"version": "2.0"},
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0, "scale": [2, 2, 2]}],
            "meshes": [{
                "primitives": [{
                    "attributes": {"POSITION": 0, "NORMAL": 1, "TANGENT": 2},
                    "indices": 11,
                    "targets": [
                        {"POSITION": 3, "NORMAL": 4, "TANGENT": 5},
                        {"POSITION": 6}
                    ]
                }],
                "weights": [0.25, 0.75]
            }],
            "animations": [
                {"name": "linear", "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
                 "samplers": [{"input": 7, "output": 8, "interpolation": "LINEAR"}]},
                {"name": "step", "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
                 "samplers": [{"input": 7, "output": 9, "interpolation": "STEP"}]},
                {"name": "cubic", "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
                 "samplers": [{"input": 7, "output": 10, "interpolation": "CUBICSPLINE"}]}
            ],
            "accessors": [
                position, vec3(1),
                {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC4"},
                vec3(3), vec3(4), vec3(5), vec3(6),
                {"bufferView": 7, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0], "max": [2]},
                scalar(8, 6), scalar(9, 6), scalar(10, 18),
                {"bufferView": 11, "componentType": 5123, "count": 6, "type": "SCALAR"}
            ],
            "bufferViews": views,
            "buffers": [{"byteLength": buffer.len(), "uri": format!("data:application/octet-stream;base64,{}", base64(&buffer))}]
        })
        .to_string()
    }
}

/// A skinned glTF (JSON, buffer embedded): one triangle on one joint, and one clip `name`
/// moving the joint.
pub fn animated_gltf(name: &str) -> String {
    use base64::Engine;
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let joints: [[u8; 4]; 3] = [[0; 4]; 3];
    let weights: [[f32; 4]; 3] = [[1.0, 0.0, 0.0, 0.0]; 3];
    let times: [f32; 2] = [0.0, 1.0];
    let translations: [[f32; 3]; 2] = [[0.0; 3], [0.0, 1.0, 0.0]];
    let mut buffer: Vec<u8> = Vec::new();
    buffer.extend_from_slice(bytemuck::cast_slice(&positions)); // 0..36
    buffer.extend_from_slice(bytemuck::cast_slice(&joints)); // 36..48
    buffer.extend_from_slice(bytemuck::cast_slice(&weights)); // 48..96
    buffer.extend_from_slice(bytemuck::cast_slice(&times)); // 96..104
    buffer.extend_from_slice(bytemuck::cast_slice(&translations)); // 104..128
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&buffer)
    );
    let document = serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": [
            { "mesh": 0, "skin": 0 },
            { "name": "joint" }
        ],
        "skins": [{ "joints": [1] }],
        "meshes": [{ "primitives": [{
            "attributes": { "POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2 }
        }] }],
        "animations": [{
            "name": name,
            "channels": [{ "sampler": 0, "target": { "node": 1, "path": "translation" } }],
            "samplers": [{ "input": 3, "output": 4, "interpolation": "LINEAR" }]
        }],
        "buffers": [{ "byteLength": buffer.len(), "uri": uri }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 12 },
            { "buffer": 0, "byteOffset": 48, "byteLength": 48 },
            { "buffer": 0, "byteOffset": 96, "byteLength": 8 },
            { "buffer": 0, "byteOffset": 104, "byteLength": 24 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0] },
            { "bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4" },
            { "bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR",
              "min": [0.0], "max": [1.0] },
            { "bufferView": 4, "componentType": 5126, "count": 2, "type": "VEC3" }
        ]
    });
    document.to_string()
}

/// `json` (a glTF whose buffers are data URIs) as a GLB: the header and one JSON chunk.
pub fn glb_of(json: &str) -> Vec<u8> {
    let mut chunk = json.as_bytes().to_vec();
    chunk.resize(chunk.len().next_multiple_of(4), b' ');
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend((12 + 8 + chunk.len() as u32).to_le_bytes());
    glb.extend((chunk.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(chunk);
    glb
}

/// A GLB with `TANGENT` removed from every primitive (the JSON chunk rewritten, the binary
/// chunk kept).
pub fn without_tangents(glb: &[u8]) -> Vec<u8> {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    for mesh in doc["meshes"].as_array_mut().unwrap() {
        for primitive in mesh["primitives"].as_array_mut().unwrap() {
            primitive["attributes"]
                .as_object_mut()
                .unwrap()
                .remove("TANGENT");
        }
    }
    let mut json = doc.to_string().into_bytes();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let bin = &glb[20 + json_len..];
    let total = 12 + 8 + json.len() + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(bin);
    out
}
