//! The runtime reader: always compiled, no encoders.

pub mod aligned;
pub mod animation;
pub mod asset;
pub mod assets;
pub mod error;
pub mod font;
#[cfg(feature = "watch")]
#[cfg_attr(docsrs, doc(cfg(feature = "watch")))]
pub mod hot;
#[cfg(feature = "inspect")]
#[cfg_attr(docsrs, doc(cfg(feature = "inspect")))]
pub mod inspect;
pub mod ktx2;
pub mod layers;
pub mod loader;
pub mod material;
pub mod mesh;
pub mod model;
pub mod names;
pub mod pak;
pub(crate) mod regular_file;
pub mod scene;
#[cfg(feature = "verify")]
#[cfg_attr(docsrs, doc(cfg(feature = "verify")))]
pub mod signed;
#[cfg(feature = "transcode")]
#[cfg_attr(docsrs, doc(cfg(feature = "transcode")))]
pub mod transcode;
mod zstd_context;
