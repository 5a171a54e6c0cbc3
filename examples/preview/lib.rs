//! The package of hearth's windowed preview example (`examples/preview.rs`):
//! `cargo run -p hearth-preview --release --example preview -- PACK_OR_TREE [MESH_PATH]`.
