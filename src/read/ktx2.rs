//! [`Ktx2`]: a zero-copy view of a KTX2 texture, enough to upload it without another crate.

use crate::format::ktx2::{self, model, supercompression, transfer, BasicDfd, Ktx2Info};
use crate::read::error::ReadError;
use crate::read::pak::Limits;
use std::borrow::Cow;

/// A validated KTX2 file: dimensions, format, levels, faces and layers, color space, and
/// each level's bytes (zstd-decompressed on demand).
#[derive(Debug, Clone)]
pub struct Ktx2<'a> {
    bytes: &'a [u8],
    info: Ktx2Info<'a>,
}

impl<'a> Ktx2<'a> {
    /// Parses and validates the header, level index, DFD and key/value data, with the
    /// default [`Limits`]. Level sizes are checked against the format for the formats hearth
    /// writes; a level that is not supercompressed must store exactly its uncompressed length.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        Self::parse_with_limits(bytes, &Limits::default())
    }

    /// [`parse`](Self::parse) with custom [`Limits`]: a level whose declared uncompressed size
    /// is over [`Limits::max_ktx2_level_size`] is a [`ReadError::LimitExceeded`], before any
    /// of it is read or inflated.
    pub fn parse_with_limits(bytes: &'a [u8], limits: &Limits) -> Result<Self, ReadError> {
        let info = ktx2::parse(bytes)?;
        let view = Self { bytes, info };
        if !matches!(
            view.supercompression(),
            supercompression::NONE | supercompression::ZSTD
        ) {
            return Err(ReadError::Invalid {
                what: "KTX2 supercompression (hearth reads none and zstd)",
            });
        }
        for (level, row) in (0u32..).zip(&view.info.levels) {
            if row.uncompressed_byte_length > limits.max_ktx2_level_size {
                return Err(ReadError::LimitExceeded {
                    what: "KTX2 level size",
                });
            }
            if view.supercompression() == supercompression::NONE
                && row.byte_length != row.uncompressed_byte_length
            {
                return Err(ReadError::Invalid {
                    what: "KTX2 level length (stored and uncompressed lengths differ without supercompression)",
                });
            }
            match view.expected_level_size(level) {
                Ok(Some(expected)) if row.uncompressed_byte_length != expected => {
                    return Err(ReadError::Invalid {
                        what: "KTX2 level size (does not match format and dimensions)",
                    })
                }
                Ok(_) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(view)
    }

    /// `VkFormat` (0 for UASTC).
    pub fn vk_format(&self) -> u32 {
        self.info.header.vk_format
    }
    /// Width of level 0.
    pub fn width(&self) -> u32 {
        self.info.header.pixel_width
    }
    /// Height of level 0 (at least 1).
    pub fn height(&self) -> u32 {
        self.info.header.pixel_height.max(1)
    }
    /// Depth of level 0 (1 unless 3D).
    pub fn depth(&self) -> u32 {
        self.info.header.pixel_depth.max(1)
    }
    /// Array layers (1 unless an array).
    pub fn layers(&self) -> u32 {
        self.info.header.layer_count.max(1)
    }
    /// Whether the texture is an array.
    pub fn is_array(&self) -> bool {
        self.info.header.layer_count > 0
    }
    /// Faces: 6 for a cubemap, else 1.
    pub fn faces(&self) -> u32 {
        self.info.header.face_count
    }
    /// Mip levels.
    pub fn level_count(&self) -> u32 {
        self.info.levels.len() as u32
    }
    /// Supercompression scheme (0 none, 2 zstd).
    pub fn supercompression(&self) -> u32 {
        self.info.header.supercompression_scheme
    }
    /// Whether the blocks are UASTC (transcode them, or upload as ASTC 4x4 where supported).
    pub fn is_uastc(&self) -> bool {
        self.info.dfd.color_model == model::UASTC
    }
    /// Whether color channels are sRGB-encoded.
    pub fn is_srgb(&self) -> bool {
        self.info.dfd.transfer_function == transfer::SRGB
    }
    /// The data format descriptor.
    pub fn dfd(&self) -> &BasicDfd {
        &self.info.dfd
    }
    /// A key/value entry's value (strings keep their trailing NUL).
    pub fn key_value(&self, key: &str) -> Option<&'a [u8]> {
        self.info
            .key_values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
    /// Width, height and depth of `level` (1 x 1 x 1 past the last possible level).
    pub fn level_dimensions(&self, level: u32) -> (u32, u32, u32) {
        let m = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
        (m(self.width()), m(self.height()), m(self.depth()))
    }

    /// The bytes a level must hold for the formats hearth writes (`None` for others); an
    /// error when the header's dimensions make that size overflow.
    fn expected_level_size(&self, level: u32) -> Result<Option<u64>, ReadError> {
        let (w, h, d) = self.level_dimensions(level);
        let overflow = ReadError::Invalid {
            what: "KTX2 dimensions (level size overflows)",
        };
        let images = self.layers() as u64 * self.faces() as u64;
        let blocks = |block_bytes: u64| {
            [h.div_ceil(4) as u64, d as u64, block_bytes, images]
                .iter()
                .try_fold(w.div_ceil(4) as u64, |size, n| size.checked_mul(*n))
                .map(Some)
                .ok_or(overflow.clone())
        };
        let per_texel = match self.vk_format() {
            ktx2::vk::R8_UNORM | ktx2::vk::R8_SRGB => 1,
            ktx2::vk::R8G8_UNORM | ktx2::vk::R8G8_SRGB => 2,
            ktx2::vk::R8G8B8A8_UNORM | ktx2::vk::R8G8B8A8_SRGB => 4,
            ktx2::vk::R16G16B16A16_SFLOAT => 8,
            ktx2::vk::R32G32B32A32_SFLOAT => 16,
            // 4x4 blocks: UASTC's 16 bytes (VK_FORMAT_UNDEFINED) or a GPU format's.
            ktx2::vk::UNDEFINED if self.is_uastc() => return blocks(16),
            format => match ktx2::block_bytes(format) {
                Some(bytes) => return blocks(bytes as u64),
                None => return Ok(None),
            },
        };
        [h as u64, d as u64, per_texel, images]
            .iter()
            .try_fold(w as u64, |size, n| size.checked_mul(*n))
            .map(Some)
            .ok_or(overflow)
    }

    /// Level `level`'s bytes (all layers, faces and slices, in KTX2 order), decompressed when
    /// supercompressed; borrowed otherwise.
    pub fn level(&self, level: u32) -> Result<Cow<'a, [u8]>, ReadError> {
        let row = self
            .info
            .levels
            .get(level as usize)
            .ok_or(ReadError::OutOfBounds { what: "KTX2 level" })?;
        // Range validated by `ktx2::parse`; `get` keeps a bad one an error all the same.
        let stored = usize::try_from(row.byte_offset)
            .ok()
            .zip(usize::try_from(row.byte_length).ok())
            .and_then(|(offset, length)| self.bytes.get(offset..offset.checked_add(length)?))
            .ok_or(ReadError::OutOfBounds {
                what: "KTX2 level data",
            })?;
        match self.supercompression() {
            supercompression::ZSTD => {
                // The declared size is under `Limits::max_ktx2_level_size` (checked in
                // `parse_with_limits`); memory follows what really inflates, up to it.
                let mut out = Vec::new();
                if !super::zstd_context::inflate(stored, row.uncompressed_byte_length, &mut out) {
                    return Err(ReadError::Invalid {
                        what: "KTX2 level (zstd data does not inflate to its size)",
                    });
                }
                Ok(Cow::Owned(out))
            }
            _ => Ok(Cow::Borrowed(stored)),
        }
    }
}
