//! The manifest (`assets.hman`): counted; checked row by row by [`super::check_output`].

use super::KindTools;
use crate::format::hman::{self, AssetKind};
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::MANIFEST,
    describe: None,
    counts: Some(counts),
    check: None,
};

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    Ok(vec![("entries", hman::parse(bytes)?.len() as u64)])
}
