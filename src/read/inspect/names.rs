//! The name table (`assets.hnames`): counted; checked against `assets.hman` by
//! [`super::check_output`].

use super::KindTools;
use crate::format::hman::AssetKind;
use crate::format::hnames::NamesView;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::NAMES,
    describe: None,
    counts: Some(counts),
    check: None,
};

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    let view = NamesView::parse(bytes)?;
    let subs = view.rows().filter(|row| row.sub.is_some()).count() as u64;
    Ok(vec![
        ("names", view.len() as u64),
        ("sub-asset names", subs),
    ])
}
