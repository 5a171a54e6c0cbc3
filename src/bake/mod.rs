//! The baker (feature `bake`): manifest, planning, per-kind pipelines, pack writing, cache and
//! cargo integration.

pub mod asset_file;
mod baker;
pub mod blob;
mod builtins;
pub mod cache;
pub mod cargo;
mod error;
mod fault;
pub mod font;
pub mod manifest;
pub mod mesh;
pub mod names;
mod output;
pub mod pack;
pub mod patch;
pub mod pipeline;
pub mod plan;
pub mod report;
pub mod scene;
pub mod settings;
mod settings_decl;
pub mod shader;
pub mod shard;
pub mod shared_cache;
pub mod signing;
pub mod texture;
pub mod timings;
mod toml_depth;
pub mod transaction;
#[cfg(feature = "watch")]
#[cfg_attr(docsrs, doc(cfg(feature = "watch")))]
pub mod watch;

pub use baker::{AssetTime, Baker, ConfigSource, Progress, Report, MAX_JOBS};
pub use error::BakeError;
pub use manifest::Config;
pub use pipeline::{
    AssetTable, BakeContext, Claim, Output, Pipeline, PipelineError, Registry, Source,
};
