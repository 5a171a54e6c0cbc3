//! Animation clips (`.hanim`): described and counted; joints are checked against the
//! skeleton with their mesh.

use super::KindTools;
use crate::format::hman::AssetKind;
use crate::read::error::ReadError;

pub(super) const TOOLS: KindTools = KindTools {
    kind: AssetKind::ANIMATION,
    describe: Some(describe_hanim),
    counts: Some(counts),
    check: None,
};

/// A one-line description of an `.hanim`: clips, channels, longest duration. (Joint indices
/// are checked against the skeleton by [`super::check_output`], not here.)
pub fn describe_hanim(bytes: &[u8]) -> Result<String, ReadError> {
    let clips = crate::format::hanim::parse(bytes, u32::MAX, u32::MAX)?;
    let channels: usize = clips.iter().map(|c| c.channels.len()).sum();
    let duration = clips.iter().map(|c| c.duration).fold(0.0f32, f32::max);
    let names: Vec<&str> = clips
        .iter()
        .map(|c| {
            if c.name.is_empty() {
                "(unnamed)"
            } else {
                c.name.as_str()
            }
        })
        .collect();
    Ok(format!(
        "{} clips ({}), {channels} channels, longest {duration:.3} s",
        clips.len(),
        names.join(", ")
    ))
}

fn counts(bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    let clips = crate::format::hanim::parse(bytes, u32::MAX, u32::MAX)?;
    let channels: usize = clips.iter().map(|c| c.channels.len()).sum();
    Ok(vec![
        ("clips", clips.len() as u64),
        ("channels", channels as u64),
    ])
}
