//! `.hanim`: animation clips. v1 (assetc's): channels on the joints of the companion `.hmesh`
//! SKEL chunk. v2 (hearth's extension, written only when a clip has one): also morph-weight
//! channels on the companion `.hmesh` MRPH chunk's targets. A v2 reader reads v1.
//!
//! ```text
//! magic "HANM" | version u32 (1 or 2) | clipCount u32 | reserved u32 = 0
//! per clip:    nameLen u16 | name [u8] | duration f32 (seconds) | channelCount u32
//! per channel: target u32 | path u8 | interp u8 (0 STEP, 1 LINEAR) | components u8 | pad u8 = 0
//!              | keyCount u32 | keyCount x (time f32, value [f32; components])
//! path: 0 translation (3), 1 rotation xyzw (4), 2 scale (3): target = joint (SKEL index);
//!       3 (v2) morph weights: target = first MRPH target, components = its mesh's target
//!       count (1 to 255), one weight per target.
//! ```

use crate::format::error::{ReadBytes, ReadError};

/// Magic bytes.
pub const MAGIC: [u8; 4] = *b"HANM";
/// assetc's version: joint channels only.
pub const VERSION: u32 = 1;
/// hearth's version with morph-weight channels.
pub const VERSION_WEIGHTS: u32 = 2;

/// What a channel animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ChannelPath {
    /// Translation, vec3.
    Translation = 0,
    /// Rotation quaternion, xyzw.
    Rotation = 1,
    /// Scale, vec3.
    Scale = 2,
    /// Morph target weights (v2): one per target of a mesh.
    Weights = 3,
}

impl ChannelPath {
    /// Values per key of the joint paths (`None` for [`Weights`](Self::Weights), whose count
    /// is the channel's).
    pub fn joint_components(self) -> Option<usize> {
        match self {
            Self::Rotation => Some(4),
            Self::Translation | Self::Scale => Some(3),
            Self::Weights => None,
        }
    }
}

/// Interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Interpolation {
    /// Hold each key.
    Step = 0,
    /// Linear (slerp for rotations).
    Linear = 1,
}

/// One channel.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// Joint index into SKEL; for [`ChannelPath::Weights`], the first morph target (MRPH).
    pub joint: u32,
    /// Animated property.
    pub path: ChannelPath,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, ascending.
    pub times: Vec<f32>,
    /// `times.len() * components()` values.
    pub values: Vec<f32>,
    /// For [`ChannelPath::Weights`]: how many targets (from `joint` on) each key weighs;
    /// 0 for the joint paths.
    pub morph_targets: u8,
}

/// Whether a channel on `path` starting at `joint` (weights: `targets` of them) lies inside a
/// skeleton of `joint_count` joints or `morph_target_count` morph targets.
fn target_fits(
    path: ChannelPath,
    joint: u32,
    targets: u32,
    joint_count: u32,
    morph_target_count: u32,
) -> bool {
    match path {
        ChannelPath::Weights => joint as u64 + targets as u64 <= morph_target_count as u64,
        _ => joint < joint_count,
    }
}

impl Channel {
    /// Whether the channel's target lies inside a skeleton of `joint_count` joints (joint
    /// paths) or `morph_target_count` morph targets (weights): what `parse` checks.
    pub fn fits(&self, joint_count: u32, morph_target_count: u32) -> bool {
        let targets = self.morph_targets as u32;
        target_fits(
            self.path,
            self.joint,
            targets,
            joint_count,
            morph_target_count,
        )
    }

    /// Values per key.
    pub fn components(&self) -> usize {
        self.path
            .joint_components()
            .unwrap_or(self.morph_targets as usize)
    }
}

/// One clip.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Name (may be empty).
    pub name: String,
    /// Duration in seconds (the largest key time).
    pub duration: f32,
    /// Channels.
    pub channels: Vec<Channel>,
}

/// Serializes clips: v1 unless a channel animates morph weights.
///
/// # Panics
/// When a name exceeds 65535 bytes or a channel's value count does not match its keys (caller
/// bugs; the baker builds consistent clips).
pub fn write(clips: &[Clip]) -> Vec<u8> {
    let weights = clips
        .iter()
        .flat_map(|c| &c.channels)
        .any(|c| c.path == ChannelPath::Weights);
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&if weights { VERSION_WEIGHTS } else { VERSION }.to_le_bytes());
    out.extend_from_slice(&(clips.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for clip in clips {
        out.extend_from_slice(
            &u16::try_from(clip.name.len())
                .expect("clip name over 65535 bytes")
                .to_le_bytes(),
        );
        out.extend_from_slice(clip.name.as_bytes());
        out.extend_from_slice(&clip.duration.to_le_bytes());
        out.extend_from_slice(&(clip.channels.len() as u32).to_le_bytes());
        for channel in &clip.channels {
            let components = channel.components();
            assert_eq!(
                channel.values.len(),
                channel.times.len() * components,
                "channel values"
            );
            out.extend_from_slice(&channel.joint.to_le_bytes());
            out.extend_from_slice(&[
                channel.path as u8,
                channel.interpolation as u8,
                components as u8,
                0,
            ]);
            out.extend_from_slice(&(channel.times.len() as u32).to_le_bytes());
            for (k, time) in channel.times.iter().enumerate() {
                out.extend_from_slice(&time.to_le_bytes());
                for v in &channel.values[k * components..(k + 1) * components] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    out
}

/// Parses and validates clips (v1 or v2): known paths and interpolations, components matching
/// the path, finite ascending key times, joints below `joint_count` (the SKEL size), weight
/// channels (v2 only) within `morph_target_count` (the MRPH size), no trailing bytes.
pub fn parse(
    bytes: &[u8],
    joint_count: u32,
    morph_target_count: u32,
) -> Result<Vec<Clip>, ReadError> {
    if bytes.slice_at(0, 16, ".hanim header")?[..4] != MAGIC {
        return Err(ReadError::BadMagic { format: ".hanim" });
    }
    let version = bytes.u32_at(4, ".hanim header")?;
    if version != VERSION && version != VERSION_WEIGHTS {
        return Err(ReadError::UnsupportedVersion {
            format: ".hanim",
            version,
        });
    }
    let clip_count = bytes.u32_at(8, ".hanim header")? as usize;
    let f32_at = |at: usize| bytes.u32_at(at, ".hanim data").map(f32::from_bits);
    let mut at = 16;
    let mut clips = Vec::new();
    for _ in 0..clip_count {
        let name_len = bytes.u16_at(at, ".hanim clip")? as usize;
        let name = std::str::from_utf8(bytes.slice_at(at + 2, name_len, ".hanim clip name")?)
            .map_err(|_| ReadError::Invalid {
                what: ".hanim clip name (not UTF-8)",
            })?
            .to_owned();
        at += 2 + name_len;
        let duration = f32_at(at)?;
        let channel_count = bytes.u32_at(at + 4, ".hanim clip")? as usize;
        at += 8;
        let mut channels = Vec::new();
        for _ in 0..channel_count {
            channels.push(parse_channel(
                bytes,
                &mut at,
                version,
                joint_count,
                morph_target_count,
            )?);
        }
        clips.push(Clip {
            name,
            duration,
            channels,
        });
    }
    if at != bytes.len() {
        return Err(ReadError::Invalid {
            what: ".hanim length (trailing bytes)",
        });
    }
    Ok(clips)
}

/// One channel at `*at` (moved past it): its joint or first morph target in range, a known path
/// and interpolation, the path's component count, finite ascending key times.
fn parse_channel(
    bytes: &[u8],
    at: &mut usize,
    version: u32,
    joint_count: u32,
    morph_target_count: u32,
) -> Result<Channel, ReadError> {
    let f32_at = |at: usize| bytes.u32_at(at, ".hanim data").map(f32::from_bits);
    let joint = bytes.u32_at(*at, ".hanim channel")?;
    let head = bytes.slice_at(*at + 4, 4, ".hanim channel")?;
    let path = match head[0] {
        0 => ChannelPath::Translation,
        1 => ChannelPath::Rotation,
        2 => ChannelPath::Scale,
        3 if version == VERSION_WEIGHTS => ChannelPath::Weights,
        _ => {
            return Err(ReadError::Invalid {
                what: ".hanim channel path",
            })
        }
    };
    let interpolation = match head[1] {
        0 => Interpolation::Step,
        1 => Interpolation::Linear,
        _ => {
            return Err(ReadError::Invalid {
                what: ".hanim channel interpolation",
            })
        }
    };
    let components = match path.joint_components() {
        Some(components) => components,
        None => head[2] as usize,
    };
    if head[2] as usize != components || components == 0 || head[3] != 0 {
        return Err(ReadError::Invalid {
            what: ".hanim channel components",
        });
    }
    if !target_fits(
        path,
        joint,
        components as u32,
        joint_count,
        morph_target_count,
    ) {
        return Err(ReadError::OutOfBounds {
            what: match path {
                ChannelPath::Weights => ".hanim weight channel (targets not in the mesh's MRPH)",
                _ => ".hanim channel joint (not in the skeleton)",
            },
        });
    }
    let key_count = bytes.u32_at(*at + 8, ".hanim channel")? as usize;
    *at += 12;
    let key_size = 4 * (1 + components);
    bytes.slice_at(
        *at,
        key_count
            .checked_mul(key_size)
            .ok_or(ReadError::Truncated {
                what: ".hanim keys",
            })?,
        ".hanim keys",
    )?;
    let (mut times, mut values) = (
        Vec::with_capacity(key_count),
        Vec::with_capacity(key_count * components),
    );
    for _ in 0..key_count {
        let time = f32_at(*at)?;
        if !time.is_finite() || times.last().is_some_and(|last| *last > time) {
            return Err(ReadError::Invalid {
                what: ".hanim key times (must be finite and ascending)",
            });
        }
        times.push(time);
        for c in 0..components {
            values.push(f32_at(*at + 4 + 4 * c)?);
        }
        *at += key_size;
    }
    Ok(Channel {
        joint,
        path,
        interpolation,
        times,
        values,
        morph_targets: if path == ChannelPath::Weights {
            components as u8
        } else {
            0
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Clip> {
        vec![Clip {
            name: "walk".into(),
            duration: 1.0,
            channels: vec![
                Channel {
                    joint: 0,
                    path: ChannelPath::Rotation,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 1.0],
                    values: vec![0., 0., 0., 1., 0., 0.6, 0., 0.8],
                    morph_targets: 0,
                },
                Channel {
                    joint: 1,
                    path: ChannelPath::Translation,
                    interpolation: Interpolation::Step,
                    times: vec![0.5],
                    values: vec![1., 2., 3.],
                    morph_targets: 0,
                },
            ],
        }]
    }

    #[test]
    fn round_trips_and_checks_joints() {
        let bytes = write(&sample());
        assert_eq!(bytes.len(), 16 + 2 + 4 + 4 + 4 + (12 + 2 * 20) + (12 + 16));
        assert_eq!(
            bytes[4..8],
            VERSION.to_le_bytes(),
            "joint channels only: v1"
        );
        assert_eq!(parse(&bytes, 2, 0).unwrap(), sample());
        assert!(
            matches!(parse(&bytes, 1, 0), Err(ReadError::OutOfBounds { .. })),
            "joint 1 outside a 1-joint skeleton"
        );
        for len in 0..bytes.len() {
            assert!(parse(&bytes[..len], 2, 0).is_err(), "prefix {len}");
        }
    }

    #[test]
    fn weight_channels_are_v2_and_checked_against_the_targets() {
        let mut clips = sample();
        clips[0].channels.push(Channel {
            joint: 1,
            path: ChannelPath::Weights,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5, 1.0],
            values: vec![0., 1., 0.5, 0.5, 1., 0.],
            morph_targets: 2,
        });
        let bytes = write(&clips);
        assert_eq!(bytes[4..8], VERSION_WEIGHTS.to_le_bytes());
        assert_eq!(parse(&bytes, 2, 3).unwrap(), clips);
        assert!(
            matches!(parse(&bytes, 2, 2), Err(ReadError::OutOfBounds { .. })),
            "targets 1..3 outside a 2-target mesh"
        );
        // A weight channel in a file that says v1 is not a v1 file.
        let mut v1 = bytes.clone();
        v1[4..8].copy_from_slice(&VERSION.to_le_bytes());
        assert!(parse(&v1, 2, 3).is_err());
        for len in 0..bytes.len() {
            assert!(parse(&bytes[..len], 2, 3).is_err(), "prefix {len}");
        }
    }
}
