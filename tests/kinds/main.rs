//! Each asset kind end to end: meshes and models, textures, fonts, scenes, shaders, and the preview renderer.
//!
//! One test binary per subject (each links the whole crate): a module per file.

#[path = "../common/mod.rs"]
mod common;

mod asset_models;
mod font;
mod mesh;
mod render;
mod scene;
mod shader;
mod skeleton;
mod texture;
mod usd;
mod usd_export;
