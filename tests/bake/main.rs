//! The baker: manifests, cargo build scripts, pipelines, the write transaction, containment, the shared cache, watch, the report and the CLI.
//!
//! One test binary per subject (each links the whole crate): a module per file.

#[path = "../common/mod.rs"]
mod common;

mod api_docs;
mod bake;
mod cargo;
mod cli;
mod containment;
mod links;
mod names;
mod pack_only;
mod package;
mod pipeline;
mod readme;
mod repack;
mod report;
mod shards;
mod shared_cache;
mod slurm;
mod transaction;
mod watch;
