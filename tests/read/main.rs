//! The runtime reader: packs of every version, trees, hot reload, signed packs, pak parity, the format spec check and hostile input.
//!
//! One test binary per subject (each links the whole crate): a module per file.

#[path = "../common/mod.rs"]
mod common;

mod assets;
mod hardening;
mod hot;
mod mount_parity;
mod pak_parity;
mod patches;
mod read;
mod signing;
mod spec_check;
mod typed;
