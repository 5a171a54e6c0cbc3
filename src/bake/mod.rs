//! The baker.
