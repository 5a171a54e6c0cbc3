//! hearth bakes game assets at build time and reads them back at run time.
//!
//! See the README for the manifest reference, the build.rs recipe and the format docs.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// Every hearth format is little-endian, and the zero-copy views cast file bytes directly.
#[cfg(not(target_endian = "little"))]
compile_error!("hearth supports little-endian targets only");

pub mod format;
pub mod read;

#[cfg(feature = "bake")]
#[cfg_attr(docsrs, doc(cfg(feature = "bake")))]
pub mod bake;

pub use format::hash::{hash_asset_ref, hash_runtime_path};
pub use format::hman::{AssetKind, ColorSpace};
pub use format::hpack::{Codec, PackKind};
pub use read::aligned::AlignedBytes;
pub use read::error::ReadError;
pub use read::pak::{Entry, Limits, ManifestRecord, PakReader};
