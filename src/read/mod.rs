//! The runtime reader: always compiled, no encoders.

pub mod aligned;
pub mod error;
pub mod inspect;
pub mod pak;
