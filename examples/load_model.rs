//! Loads one baked model through the public API only and prints what a renderer needs, as
//! JSON: `cargo run --example load_model -- PACK_OR_TREE MESH_PATH`.
//!
//! ```text
//! {"vertices": 123, "indices": 183, "submeshes": [{"material": "AlphaBlendModeTest#MatOpaque",
//!  "alpha_mode": "opaque", "base_color": {"path": "…/tex_2.ktx2", "width": 64, "height": 64,
//!  "levels": 1}}, …]}
//! ```

use hearth::{Assets, Model, ModelMaterial};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pack, mesh] = args.as_slice() else {
        eprintln!("usage: load_model PACK_OR_TREE MESH_PATH");
        std::process::exit(2);
    };
    match run(pack, mesh) {
        // A closed stdout (`| head`) is not an error worth a panic.
        Ok(json) => {
            let _ = writeln!(std::io::stdout(), "{json}");
        }
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
}

fn run(pack: &str, mesh: &str) -> Result<String, hearth::ReadError> {
    let assets = Assets::open(pack)?;
    let model = Model::load(&assets, mesh)?;
    let view = model.mesh.view();
    let submeshes: Vec<String> = model
        .submeshes
        .iter()
        .map(|part| match &part.material {
            Some(material) => submesh_json(material),
            None => r#"{"material": null, "alpha_mode": "opaque", "base_color": null}"#.into(),
        })
        .collect();
    Ok(format!(
        r#"{{"vertices": {}, "indices": {}, "submeshes": [{}]}}"#,
        view.vertex_count(),
        view.index_count(),
        submeshes.join(", ")
    ))
}

fn submesh_json(material: &ModelMaterial) -> String {
    let base_color = match &material.base_color {
        Some(base) => {
            let texture = base.texture.view();
            format!(
                r#"{{"path": {}, "width": {}, "height": {}, "levels": {}}}"#,
                quoted(&base.path),
                texture.width(),
                texture.height(),
                texture.level_count()
            )
        }
        None => "null".into(),
    };
    format!(
        r#"{{"material": {}, "alpha_mode": "{}", "base_color": {base_color}}}"#,
        quoted(&material.name),
        material.alpha_mode.name(),
    )
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
