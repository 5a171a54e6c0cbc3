//! `.hanim` on the read side: [`AnimClips`], parsed and validated, and [`Animations`], its
//! owned, shareable form. The byte layout, the writer and the parser are in
//! [`crate::format::hanim`].

use crate::format::hanim::{self, Clip};
use crate::read::asset::{AssetBytes, LoadAsset};
use crate::read::error::ReadError;
use std::sync::Arc;

/// Animation clips, validated against a skeleton's joint count and a mesh's morph targets.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let model = hearth::Model::load(&pak, "models/fox.hmesh")?;
/// if let Some(animations) = &model.animations {
///     let clips: &hearth::AnimClips = animations.clips();
///     for clip in &clips.clips {
///         println!("{}: {} s, {} channels", clip.name, clip.duration, clip.channels.len());
///     }
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AnimClips {
    /// The clips.
    pub clips: Vec<Clip>,
}

impl AnimClips {
    /// Parses clips whose joint channels must index a skeleton of `joint_count` joints and
    /// whose weight channels must fall within `morph_target_count` targets (the companion
    /// mesh's [`MeshView::morph_targets`](crate::MeshView::morph_targets) count).
    pub fn parse(
        bytes: &[u8],
        joint_count: u32,
        morph_target_count: u32,
    ) -> Result<Self, ReadError> {
        Ok(Self {
            clips: hanim::parse(bytes, joint_count, morph_target_count)?,
        })
    }
}

/// An owned `.hanim`: its clips, parsed once. Loaded alone, its joint and morph-weight
/// channels are checked for shape only; [`Model`](crate::Model) checks them against its
/// mesh's skeleton and morph targets too.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let clips: hearth::Animations = pak.load_by_name("Fox")?; // the animation named Fox
/// for clip in &clips.clips().clips {
///     println!("{}: {} s, {} channels", clip.name, clip.duration, clip.channels.len());
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Animations {
    clips: Arc<AnimClips>,
    path: Arc<str>,
}

impl Animations {
    /// The clips.
    pub fn clips(&self) -> &AnimClips {
        &self.clips
    }

    /// The runtime path it was loaded from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Checks that every channel fits a skeleton of `joint_count` joints and
    /// `morph_target_count` morph targets.
    pub fn check_against(
        &self,
        joint_count: u32,
        morph_target_count: u32,
    ) -> Result<(), ReadError> {
        let fits = self
            .clips
            .clips
            .iter()
            .flat_map(|c| &c.channels)
            .all(|channel| channel.fits(joint_count, morph_target_count));
        match fits {
            true => Ok(()),
            false => Err(ReadError::Invalid {
                what: ".hanim channel target (beyond the mesh's joints or morph targets)",
            }),
        }
    }
}

impl LoadAsset for Animations {
    const KIND: Option<crate::AssetKind> = Some(crate::AssetKind::ANIMATION);

    fn from_asset(path: &str, bytes: AssetBytes) -> Result<Self, ReadError> {
        Ok(Self {
            clips: Arc::new(AnimClips::parse(&bytes, u32::MAX, u32::MAX)?),
            path: path.into(),
        })
    }
}
