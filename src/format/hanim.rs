//! `.hanim` v1: the animation clips of a skinned glTF source, channels indexing the joints of
//! the companion `.hmesh` SKEL chunk.
//!
//! ```text
//! magic "HANM" | version u32 = 1 | clipCount u32 | reserved u32 = 0
//! per clip:    nameLen u16 | name [u8] | duration f32 (seconds) | channelCount u32
//! per channel: joint u32 | path u8 (0 T, 1 R xyzw, 2 S) | interp u8 (0 STEP, 1 LINEAR)
//!              | components u8 (3 or 4) | pad u8 = 0 | keyCount u32
//!              | keyCount x (time f32, value [f32; components])
//! ```

use crate::format::error::{ReadBytes, ReadError};

/// Magic bytes.
pub const MAGIC: [u8; 4] = *b"HANM";
/// Version.
pub const VERSION: u32 = 1;

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
}

impl ChannelPath {
    /// Values per key.
    pub fn components(self) -> usize {
        match self {
            Self::Rotation => 4,
            _ => 3,
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
    /// Joint index into SKEL.
    pub joint: u32,
    /// Animated property.
    pub path: ChannelPath,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, ascending.
    pub times: Vec<f32>,
    /// `times.len() * path.components()` values.
    pub values: Vec<f32>,
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

/// Serializes clips.
///
/// # Panics
/// When a name exceeds 65535 bytes or a channel's value count does not match its keys (caller
/// bugs; the baker builds consistent clips).
pub fn write(clips: &[Clip]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
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
            let components = channel.path.components();
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

/// Parses and validates clips: known paths and interpolations, components matching the path,
/// finite ascending key times, joints below `joint_count` (the SKEL size), no trailing bytes.
pub fn parse(bytes: &[u8], joint_count: u32) -> Result<Vec<Clip>, ReadError> {
    if bytes.slice_at(0, 16, ".hanim header")?[..4] != MAGIC {
        return Err(ReadError::BadMagic { format: ".hanim" });
    }
    let version = bytes.u32_at(4, ".hanim header")?;
    if version != VERSION {
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
            let joint = bytes.u32_at(at, ".hanim channel")?;
            let head = bytes.slice_at(at + 4, 4, ".hanim channel")?;
            let path = match head[0] {
                0 => ChannelPath::Translation,
                1 => ChannelPath::Rotation,
                2 => ChannelPath::Scale,
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
            if head[2] as usize != path.components() || head[3] != 0 {
                return Err(ReadError::Invalid {
                    what: ".hanim channel components",
                });
            }
            if joint >= joint_count {
                return Err(ReadError::OutOfBounds {
                    what: ".hanim channel joint (not in the skeleton)",
                });
            }
            let key_count = bytes.u32_at(at + 8, ".hanim channel")? as usize;
            at += 12;
            let key_size = 4 * (1 + path.components());
            bytes.slice_at(
                at,
                key_count
                    .checked_mul(key_size)
                    .ok_or(ReadError::Truncated {
                        what: ".hanim keys",
                    })?,
                ".hanim keys",
            )?;
            let (mut times, mut values) = (
                Vec::with_capacity(key_count),
                Vec::with_capacity(key_count * path.components()),
            );
            for _ in 0..key_count {
                let time = f32_at(at)?;
                if !time.is_finite() || times.last().is_some_and(|last| *last > time) {
                    return Err(ReadError::Invalid {
                        what: ".hanim key times (must be finite and ascending)",
                    });
                }
                times.push(time);
                for c in 0..path.components() {
                    values.push(f32_at(at + 4 + 4 * c)?);
                }
                at += key_size;
            }
            channels.push(Channel {
                joint,
                path,
                interpolation,
                times,
                values,
            });
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
                },
                Channel {
                    joint: 1,
                    path: ChannelPath::Translation,
                    interpolation: Interpolation::Step,
                    times: vec![0.5],
                    values: vec![1., 2., 3.],
                },
            ],
        }]
    }

    #[test]
    fn round_trips_and_checks_joints() {
        let bytes = write(&sample());
        assert_eq!(bytes.len(), 16 + 2 + 4 + 4 + 4 + (12 + 2 * 20) + (12 + 16));
        assert_eq!(parse(&bytes, 2).unwrap(), sample());
        assert!(
            matches!(parse(&bytes, 1), Err(ReadError::OutOfBounds { .. })),
            "joint 1 outside a 1-joint skeleton"
        );
        for len in 0..bytes.len() {
            assert!(parse(&bytes[..len], 2).is_err(), "prefix {len}");
        }
    }
}
