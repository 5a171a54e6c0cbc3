//! Empty: everything lives in `benches/compare.rs`.
