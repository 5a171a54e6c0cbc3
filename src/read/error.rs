//! Errors of the runtime reader: [`ReadError`] is defined with the formats, in
//! [`crate::format::error`] (with the bounds-checked byte helpers the parsers use), and
//! re-exported here so `hearth::read::error::ReadError` keeps working.

pub use crate::format::error::ReadError;
