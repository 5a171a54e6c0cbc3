//! The on-disk contract shared by the reader and the baker: one module per format.
//! Plain data and (de)serialization only; no file I/O.

pub mod error;
pub mod hanim;
pub mod hash;
pub mod hman;
pub mod hmat;
pub mod hmesh;
pub mod hpack;
pub mod ktx2;
