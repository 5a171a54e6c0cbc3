//! The on-disk contract shared by the reader and the baker: one module per format.
//! Plain data and (de)serialization only; no file I/O.

pub mod error;
pub mod hanim;
pub mod hash;
pub mod hfont;
pub mod hman;
pub mod hmat;
pub mod hmesh;
pub mod hnames;
pub mod hpack;
pub mod hpatch;
pub mod hscene;
pub mod key;
pub mod kind;
pub mod ktx2;
#[cfg(feature = "inspect")]
#[cfg_attr(docsrs, doc(cfg(feature = "inspect")))]
pub mod spirv;
pub(crate) mod zstd_frame;

/// The folder inside an output folder where a bake stages its files before it commits them
/// (the write transaction; README, "What hearth reads and writes"). Never part of the tree.
pub const STAGING_DIR: &str = ".hearth-txn";
/// The journal inside [`STAGING_DIR`]: while it exists, a committed bake is not fully applied.
pub const JOURNAL_FILE: &str = "commit";
