//! The baker.
pub mod error;
pub mod manifest;
pub mod settings;
