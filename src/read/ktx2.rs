//! [`Ktx2`]: a zero-copy view of a KTX2 texture, enough to upload it without another crate;
//! [`TextureStream`]: its mip levels one at a time, smallest first.

use crate::format::hpack::Codec;
use crate::format::ktx2::{self, model, supercompression, transfer, BasicDfd, Ktx2Info};
use crate::read::error::ReadError;
use crate::read::pak::{Entry, Limits, PakReader};
use std::borrow::Cow;

/// A validated KTX2 file: dimensions, format, levels, faces and layers, color space, and
/// each level's bytes (zstd-decompressed on demand).
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let bytes = pak.get("textures/bricks.ktx2")?.expect("baked");
/// let ktx = hearth::Ktx2::parse(&bytes)?;
/// let space = if ktx.is_srgb() { "sRGB" } else { "linear" };
/// println!("{}x{}, VkFormat {} ({space})", ktx.width(), ktx.height(), ktx.vk_format());
/// for level in 0..ktx.level_count() {
///     let (width, height, _) = ktx.level_dimensions(level);
///     let texels = ktx.level(level)?; // inflated when supercompressed
///     println!("level {level}: {width}x{height}, {} bytes to upload", texels.len());
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
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

/// One mip level handed out by [`TextureStream`]: its index, size and bytes.
///
/// ```no_run
/// let pak = hearth::PakReader::open("game.hpack")?;
/// let stream = hearth::TextureStream::open(&pak, "textures/bricks.ktx2")?.expect("baked");
/// let smallest: hearth::MipLevel = stream.level(stream.level_count() - 1)?;
/// println!("level {}: {}x{}, {} bytes", smallest.level, smallest.width, smallest.height, smallest.bytes.len());
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MipLevel<'a> {
    /// Level index (0 is the full size).
    pub level: u32,
    /// Width of this level in pixels.
    pub width: u32,
    /// Height of this level in pixels.
    pub height: u32,
    /// Depth of this level (1 unless 3D).
    pub depth: u32,
    /// The level's bytes (all layers, faces and slices, in KTX2 order): borrowed from the
    /// file (the mapped pack) when the KTX2 is not supercompressed, else inflated from the
    /// level's own zstd data alone.
    pub bytes: Cow<'a, [u8]>,
}

/// Mip levels one at a time, smallest first: a texture streams in as the camera nears it.
///
/// Opening reads only the KTX2's header, level index, DFD and key/value data; each level's
/// bytes are read (and, when supercompressed, inflated) only when that level is asked for, so
/// a game uploads the small mips (the *tail*, [`tail`](Self::tail)) at load time and fetches
/// the large ones later with [`level`](Self::level). Nothing of the levels not asked for is
/// touched: with a mapped pack, their pages need never be read from disk.
///
/// **Pack entries.** The baker stores every KTX2 it writes as is (`Codec::None`: hearth's
/// textures are zstd-supercompressed per level, and the pack never compresses a
/// supercompressed KTX2 again), so [`from_entry`](Self::from_entry) borrows the file from the
/// pack without a copy and each level costs one zstd inflate of that level's bytes. A KTX2
/// *without* supercompression costs nothing at all: its levels are slices of the mapped pack.
/// An entry the pack compressed as a whole (a foreign, uncompressed KTX2 in a pack with a
/// `compression` codec) cannot stream, since any level needs the whole entry inflated:
/// `from_entry` refuses it with a [`ReadError::Invalid`] rather than inflate the whole texture
/// behind the caller's back. Read such an entry with [`Entry::bytes`] and
/// [`from_bytes`](Self::from_bytes), or bake it with `compression = "none"`.
///
/// ```no_run
/// use hearth::{PakReader, TextureStream};
/// let pak = PakReader::open("assets/game.hpack")?;
/// let stream = TextureStream::open(&pak, "textures/rock.ktx2")?.expect("in the pack");
/// // At load: every level of at most 256 pixels a side, smallest first (1/256 of a 4K
/// // texture's bytes).
/// for mip in stream.tail(256)? {
///     // upload(mip.level, mip.width, mip.height, &mip.bytes);
/// }
/// // Later, as the camera nears the rock: the larger levels, one at a time.
/// for level in (0..stream.tail_start(256)).rev() {
///     let mip = stream.level(level)?;
///     // upload(mip.level, mip.width, mip.height, &mip.bytes);
/// }
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct TextureStream<'a> {
    texture: Ktx2<'a>,
}

impl<'a> TextureStream<'a> {
    /// A stream over a KTX2 file's bytes, validated with the default [`Limits`] (see
    /// [`Ktx2::parse`]: the metadata only, no level's data).
    ///
    /// ```
    /// use hearth::format::ktx2::{self, channel, vk, BasicDfd, Ktx2Description};
    /// # let rgba = [channel::R, channel::G, channel::B, channel::A];
    /// # let desc = Ktx2Description {
    /// #     vk_format: vk::R8G8B8A8_UNORM, type_size: 1, width: 8, height: 8, depth: 0,
    /// #     layers: 0, faces: 1, block_bytes: 4,
    /// #     dfd: BasicDfd::uncompressed(&rgba, 8, false, false),
    /// #     key_values: Vec::new(), zstd_level: Some(3),
    /// # };
    /// # let levels: Vec<Vec<u8>> = [8usize, 4, 2, 1].iter().map(|s| vec![7; s * s * 4]).collect();
    /// // An 8x8 RGBA8 texture with 4 levels, zstd-supercompressed.
    /// let bytes = ktx2::write(&desc, &levels);
    /// let stream = hearth::TextureStream::from_bytes(&bytes)?;
    /// let tail = stream.tail(2)?; // the 1x1 and 2x2 levels, smallest first
    /// assert_eq!(tail.iter().map(|mip| mip.width).collect::<Vec<_>>(), [1, 2]);
    /// assert_eq!(stream.level(0)?.bytes.len(), 8 * 8 * 4);
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, ReadError> {
        Self::from_bytes_with_limits(bytes, &Limits::default())
    }

    /// [`from_bytes`](Self::from_bytes) with custom [`Limits`].
    pub fn from_bytes_with_limits(bytes: &'a [u8], limits: &Limits) -> Result<Self, ReadError> {
        Ktx2::parse_with_limits(bytes, limits).map(|texture| Self { texture })
    }

    /// A stream over a pack entry, borrowing the pack's bytes (zero-copy), validated with the
    /// pack's [`Limits`]. An entry the pack compressed as a whole is refused (see the type's
    /// documentation); one that is not a KTX2 is a [`ReadError::BadMagic`].
    pub fn from_entry(entry: &Entry<'a>) -> Result<Self, ReadError> {
        if entry.codec() != Codec::None {
            return Err(ReadError::Invalid {
                what: "KTX2 pack entry for streaming (the pack compressed it as a whole; \
                       read it with Entry::bytes and TextureStream::from_bytes)",
            });
        }
        Self::from_bytes_with_limits(entry.stored_bytes(), &entry.pack().limits())
    }

    /// The stream of the entry at runtime path `path` in `pak`, `None` when there is none.
    pub fn open(pak: &'a PakReader, path: &str) -> Result<Option<Self>, ReadError> {
        pak.find(path)?
            .map(|entry| Self::from_entry(&entry))
            .transpose()
    }

    /// The whole texture's metadata: format, color space, faces, layers, key/values.
    pub fn texture(&self) -> &Ktx2<'a> {
        &self.texture
    }
    /// Width of level 0.
    pub fn width(&self) -> u32 {
        self.texture.width()
    }
    /// Height of level 0.
    pub fn height(&self) -> u32 {
        self.texture.height()
    }
    /// `VkFormat` (0 for UASTC).
    pub fn vk_format(&self) -> u32 {
        self.texture.vk_format()
    }
    /// Mip levels.
    pub fn level_count(&self) -> u32 {
        self.texture.level_count()
    }

    /// Bytes of `level` once read (inflated), from the level index alone, for budgeting
    /// uploads before reading anything; `None` past the last level.
    pub fn level_size(&self, level: u32) -> Option<u64> {
        self.texture
            .info
            .levels
            .get(level as usize)
            .map(|row| row.uncompressed_byte_length)
    }

    /// The largest side (width, height or depth) of `level`.
    fn level_side(&self, level: u32) -> u32 {
        let (w, h, d) = self.texture.level_dimensions(level);
        w.max(h).max(d)
    }

    /// The first level of the tail: every level from it to the last has no side over
    /// `max_side` pixels. [`level_count`](Self::level_count) when even the last level is
    /// larger (a texture baked without mips), so the tail is empty.
    pub fn tail_start(&self, max_side: u32) -> u32 {
        // Sides shrink with the level, so the tail is a suffix: count the levels above it.
        (0..self.level_count())
            .find(|&level| self.level_side(level) <= max_side)
            .unwrap_or(self.level_count())
    }

    /// Level `level`, read on demand: borrowed when the KTX2 is not supercompressed, else one
    /// zstd inflate of that level's data. No other level is read.
    pub fn level(&self, level: u32) -> Result<MipLevel<'a>, ReadError> {
        let bytes = self.texture.level(level)?;
        let (width, height, depth) = self.texture.level_dimensions(level);
        Ok(MipLevel {
            level,
            width,
            height,
            depth,
            bytes,
        })
    }

    /// Every level, smallest first, each read when the iterator reaches it: the order a
    /// texture streams in.
    pub fn levels_smallest_first(
        &self,
    ) -> impl ExactSizeIterator<Item = Result<MipLevel<'a>, ReadError>> + '_ {
        (0..self.level_count()).rev().map(|level| self.level(level))
    }

    /// The mip tail: every level with no side over `max_side` pixels, smallest first, read
    /// now. What a game uploads at load time so that the texture shows at once; empty when
    /// even the smallest level is larger (see [`tail_start`](Self::tail_start)).
    pub fn tail(&self, max_side: u32) -> Result<Vec<MipLevel<'a>>, ReadError> {
        (self.tail_start(max_side)..self.level_count())
            .rev()
            .map(|level| self.level(level))
            .collect()
    }
}
crate::read::asset::owned_view!(
    /// An owned KTX2 texture: [`view`](Self::view) gives its [`Ktx2`] (levels, format,
    /// colour space). For streaming levels smallest first, see
    /// [`TextureStream`].
    ///
    /// ```no_run
    /// let pak = hearth::PakReader::open("game.hpack")?;
    /// let logo: hearth::Texture = pak.load("ui/logo.ktx2")?;
    /// let ktx = logo.view();
    /// println!("{}x{}, {} levels", ktx.width(), ktx.height(), ktx.level_count());
    /// # Ok::<(), hearth::ReadError>(())
    /// ```
    Texture,
    TextureHeld,
    Ktx2,
    Ktx2::parse,
    crate::AssetKind::TEXTURE
);
