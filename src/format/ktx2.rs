//! KTX 2.0 containers: header, level index, data format descriptor (DFD), key/value data,
//! and a writer. hearth writes its own KTX2 files (the `ktx2` crate only reads), checked in
//! tests against independent readers.
//!
//! File layout written here (KTX 2.0 §3):
//!
//! ```text
//! Header (80 B) | Level index (24 B x levelCount, level 0 first) | DFD (4-aligned)
//! | key/value data (4-aligned entries, sorted by key) | mip levels, smallest first
//! ```
//!
//! Mip levels are aligned to lcm(texel block size, 4) when not supercompressed, and not at all
//! (alignment 1) when supercompressed, as the spec requires. With zstd supercompression
//! (scheme 2) each level is one zstd frame and there is no supercompression global data.

use crate::format::error::{ReadBytes, ReadError};
use bytemuck::{Pod, Zeroable};

/// The 12-byte KTX 2.0 file identifier.
pub const IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];
/// Header size.
pub const HEADER_SIZE: usize = 80;
/// Level-index row size.
pub const LEVEL_INDEX_SIZE: usize = 24;
const FORMAT: &str = "KTX2";

/// The Vulkan formats hearth writes (`VkFormat` values).
pub mod vk {
    /// Block-compressed formats (UASTC) carry no Vulkan format.
    pub const UNDEFINED: u32 = 0;
    /// One 8-bit unsigned normalized channel.
    pub const R8_UNORM: u32 = 9;
    /// One 8-bit sRGB channel.
    pub const R8_SRGB: u32 = 15;
    /// Two 8-bit unsigned normalized channels.
    pub const R8G8_UNORM: u32 = 16;
    /// Two 8-bit sRGB channels.
    pub const R8G8_SRGB: u32 = 22;
    /// Four 8-bit unsigned normalized channels.
    pub const R8G8B8A8_UNORM: u32 = 37;
    /// Four 8-bit channels, sRGB color with linear alpha.
    pub const R8G8B8A8_SRGB: u32 = 43;
    /// Four 16-bit floats.
    pub const R16G16B16A16_SFLOAT: u32 = 97;
    /// Four 32-bit floats.
    pub const R32G32B32A32_SFLOAT: u32 = 109;
    /// BC1 (DXT1), opaque RGB: 8 bytes per 4x4 block.
    pub const BC1_RGB_UNORM_BLOCK: u32 = 131;
    /// BC1, opaque sRGB.
    pub const BC1_RGB_SRGB_BLOCK: u32 = 132;
    /// BC3 (DXT5): BC1 color after a BC4 alpha block, 16 bytes per block.
    pub const BC3_UNORM_BLOCK: u32 = 137;
    /// BC3, sRGB color.
    pub const BC3_SRGB_BLOCK: u32 = 138;
    /// BC4: one channel, 8 bytes per block.
    pub const BC4_UNORM_BLOCK: u32 = 139;
    /// BC5: two channels (normal maps), 16 bytes per block.
    pub const BC5_UNORM_BLOCK: u32 = 141;
    /// BC7, 16 bytes per block.
    pub const BC7_UNORM_BLOCK: u32 = 145;
    /// BC7, sRGB color.
    pub const BC7_SRGB_BLOCK: u32 = 146;
    /// ETC2 opaque RGB (ETC1-compatible), 8 bytes per block.
    pub const ETC2_R8G8B8_UNORM_BLOCK: u32 = 147;
    /// ETC2 opaque sRGB.
    pub const ETC2_R8G8B8_SRGB_BLOCK: u32 = 148;
    /// ETC2 RGB with EAC alpha, 16 bytes per block.
    pub const ETC2_R8G8B8A8_UNORM_BLOCK: u32 = 151;
    /// ETC2 sRGB with EAC alpha.
    pub const ETC2_R8G8B8A8_SRGB_BLOCK: u32 = 152;
    /// EAC: one 11-bit channel, 8 bytes per block.
    pub const EAC_R11_UNORM_BLOCK: u32 = 153;
    /// EAC: two 11-bit channels, 16 bytes per block.
    pub const EAC_R11G11_UNORM_BLOCK: u32 = 155;
    /// ASTC 4x4 blocks, 16 bytes each.
    pub const ASTC_4X4_UNORM_BLOCK: u32 = 157;
    /// ASTC 4x4, sRGB color.
    pub const ASTC_4X4_SRGB_BLOCK: u32 = 158;
}

/// The 4x4-block formats hearth writes, as Khronos' DFD utilities (`vk2dfd`) describe them.
struct BlockLayout {
    vk_format: u32,
    srgb: bool,
    model: u8,
    bytes: u8,
    /// (channel id, bit offset) of each sample; every sample spans the block's bytes
    /// divided among the samples (64 or 128 bits).
    samples: &'static [(u8, u16)],
}

const BLOCK_LAYOUTS: &[BlockLayout] = {
    use model::*;
    const fn layout(
        vk_format: u32,
        srgb: bool,
        model: u8,
        bytes: u8,
        samples: &'static [(u8, u16)],
    ) -> BlockLayout {
        BlockLayout {
            vk_format,
            srgb,
            model,
            bytes,
            samples,
        }
    }
    // Channel ids per model (khr_df.h): BC1A color 0; BC3 alpha 15, color 0; BC4 data 0;
    // BC5 red 0, green 1; BC7 color 0; ETC2 red 0, green 1, color 2, alpha 15; ASTC data 0.
    &[
        layout(vk::BC1_RGB_UNORM_BLOCK, false, BC1A, 8, &[(0, 0)]),
        layout(vk::BC1_RGB_SRGB_BLOCK, true, BC1A, 8, &[(0, 0)]),
        layout(vk::BC3_UNORM_BLOCK, false, BC3, 16, &[(15, 0), (0, 64)]),
        layout(vk::BC3_SRGB_BLOCK, true, BC3, 16, &[(15, 0), (0, 64)]),
        layout(vk::BC4_UNORM_BLOCK, false, BC4, 8, &[(0, 0)]),
        layout(vk::BC5_UNORM_BLOCK, false, BC5, 16, &[(0, 0), (1, 64)]),
        layout(vk::BC7_UNORM_BLOCK, false, BC7, 16, &[(0, 0)]),
        layout(vk::BC7_SRGB_BLOCK, true, BC7, 16, &[(0, 0)]),
        layout(vk::ETC2_R8G8B8_UNORM_BLOCK, false, ETC2, 8, &[(2, 0)]),
        layout(vk::ETC2_R8G8B8_SRGB_BLOCK, true, ETC2, 8, &[(2, 0)]),
        layout(
            vk::ETC2_R8G8B8A8_UNORM_BLOCK,
            false,
            ETC2,
            16,
            &[(15, 0), (2, 64)],
        ),
        layout(
            vk::ETC2_R8G8B8A8_SRGB_BLOCK,
            true,
            ETC2,
            16,
            &[(15, 0), (2, 64)],
        ),
        layout(vk::EAC_R11_UNORM_BLOCK, false, ETC2, 8, &[(0, 0)]),
        layout(
            vk::EAC_R11G11_UNORM_BLOCK,
            false,
            ETC2,
            16,
            &[(0, 0), (1, 64)],
        ),
        layout(vk::ASTC_4X4_UNORM_BLOCK, false, ASTC, 16, &[(0, 0)]),
        layout(vk::ASTC_4X4_SRGB_BLOCK, true, ASTC, 16, &[(0, 0)]),
    ]
};

/// The Vulkan name of a `vk_format` hearth writes, without `VK_FORMAT_` (`None` for others).
pub fn vk_format_name(vk_format: u32) -> Option<&'static str> {
    Some(match vk_format {
        vk::R8_UNORM => "R8_UNORM",
        vk::R8_SRGB => "R8_SRGB",
        vk::R8G8_UNORM => "R8G8_UNORM",
        vk::R8G8_SRGB => "R8G8_SRGB",
        vk::R8G8B8A8_UNORM => "R8G8B8A8_UNORM",
        vk::R8G8B8A8_SRGB => "R8G8B8A8_SRGB",
        vk::R16G16B16A16_SFLOAT => "R16G16B16A16_SFLOAT",
        vk::R32G32B32A32_SFLOAT => "R32G32B32A32_SFLOAT",
        vk::BC1_RGB_UNORM_BLOCK => "BC1_RGB_UNORM_BLOCK",
        vk::BC1_RGB_SRGB_BLOCK => "BC1_RGB_SRGB_BLOCK",
        vk::BC3_UNORM_BLOCK => "BC3_UNORM_BLOCK",
        vk::BC3_SRGB_BLOCK => "BC3_SRGB_BLOCK",
        vk::BC4_UNORM_BLOCK => "BC4_UNORM_BLOCK",
        vk::BC5_UNORM_BLOCK => "BC5_UNORM_BLOCK",
        vk::BC7_UNORM_BLOCK => "BC7_UNORM_BLOCK",
        vk::BC7_SRGB_BLOCK => "BC7_SRGB_BLOCK",
        vk::ETC2_R8G8B8_UNORM_BLOCK => "ETC2_R8G8B8_UNORM_BLOCK",
        vk::ETC2_R8G8B8_SRGB_BLOCK => "ETC2_R8G8B8_SRGB_BLOCK",
        vk::ETC2_R8G8B8A8_UNORM_BLOCK => "ETC2_R8G8B8A8_UNORM_BLOCK",
        vk::ETC2_R8G8B8A8_SRGB_BLOCK => "ETC2_R8G8B8A8_SRGB_BLOCK",
        vk::EAC_R11_UNORM_BLOCK => "EAC_R11_UNORM_BLOCK",
        vk::EAC_R11G11_UNORM_BLOCK => "EAC_R11G11_UNORM_BLOCK",
        vk::ASTC_4X4_UNORM_BLOCK => "ASTC_4x4_UNORM_BLOCK",
        vk::ASTC_4X4_SRGB_BLOCK => "ASTC_4x4_SRGB_BLOCK",
        _ => return None,
    })
}

/// Bytes per 4x4 block of a block-compressed `vk_format` hearth writes (`None` for others).
pub fn block_bytes(vk_format: u32) -> Option<u32> {
    BLOCK_LAYOUTS
        .iter()
        .find(|l| l.vk_format == vk_format)
        .map(|l| l.bytes as u32)
}

/// Supercompression schemes.
pub mod supercompression {
    /// None.
    pub const NONE: u32 = 0;
    /// BasisLZ (not written by hearth).
    pub const BASIS_LZ: u32 = 1;
    /// Zstandard, one frame per level.
    pub const ZSTD: u32 = 2;
    /// ZLIB (not written by hearth).
    pub const ZLIB: u32 = 3;
}

/// DFD color models.
pub mod model {
    /// Red, green, blue, stencil, depth, alpha.
    pub const RGBSDA: u8 = 1;
    /// UASTC blocks.
    pub const UASTC: u8 = 166;
    /// BC1 with optional punch-through alpha.
    pub const BC1A: u8 = 128;
    /// BC3 (DXT4/5).
    pub const BC3: u8 = 130;
    /// BC4.
    pub const BC4: u8 = 131;
    /// BC5.
    pub const BC5: u8 = 132;
    /// BC7.
    pub const BC7: u8 = 134;
    /// ETC2 and EAC.
    pub const ETC2: u8 = 161;
    /// ASTC.
    pub const ASTC: u8 = 162;
}

/// KTX2 header (little-endian host assumed, as everywhere in hearth).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct Header {
    /// [`IDENTIFIER`].
    pub identifier: [u8; 12],
    /// `VkFormat`.
    pub vk_format: u32,
    /// Size of the data type in bytes (1 for 8-bit and block formats).
    pub type_size: u32,
    /// Width in pixels.
    pub pixel_width: u32,
    /// Height in pixels (0 for 1D).
    pub pixel_height: u32,
    /// Depth in pixels (0 unless 3D).
    pub pixel_depth: u32,
    /// Array layers (0 when not an array).
    pub layer_count: u32,
    /// 1, or 6 for a cubemap.
    pub face_count: u32,
    /// Mip levels.
    pub level_count: u32,
    /// [`supercompression`] scheme.
    pub supercompression_scheme: u32,
    /// DFD offset.
    pub dfd_byte_offset: u32,
    /// DFD length.
    pub dfd_byte_length: u32,
    /// Key/value data offset.
    pub kvd_byte_offset: u32,
    /// Key/value data length.
    pub kvd_byte_length: u32,
    /// Supercompression global data offset.
    pub sgd_byte_offset: u64,
    /// Supercompression global data length.
    pub sgd_byte_length: u64,
}
const _: () = assert!(std::mem::size_of::<Header>() == HEADER_SIZE);

/// One row of the level index.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq, Eq)]
pub struct LevelIndex {
    /// Offset of the level's data.
    pub byte_offset: u64,
    /// Length as stored.
    pub byte_length: u64,
    /// Length once supercompression is undone.
    pub uncompressed_byte_length: u64,
}
const _: () = assert!(std::mem::size_of::<LevelIndex>() == LEVEL_INDEX_SIZE);

/// The fields of a Khronos basic data format descriptor block that hearth writes and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicDfd {
    /// Color model ([`model`]).
    pub color_model: u8,
    /// Color primaries (1 = BT.709 / sRGB).
    pub color_primaries: u8,
    /// Transfer function (1 linear, 2 sRGB).
    pub transfer_function: u8,
    /// Flags (0 = straight alpha).
    pub flags: u8,
    /// Texel block dimensions minus one.
    pub texel_block_dimensions: [u8; 4],
    /// Bytes per plane.
    pub bytes_planes: [u8; 8],
    /// Samples.
    pub samples: Vec<DfdSample>,
}

/// One DFD sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DfdSample {
    /// First bit.
    pub bit_offset: u16,
    /// Bit length minus one.
    pub bit_length: u8,
    /// Channel id (low 4 bits) and qualifiers (high 4 bits: 0x80 float, 0x40 signed,
    /// 0x20 exponent, 0x10 linear).
    pub channel_type: u8,
    /// Sample position.
    pub position: [u8; 4],
    /// Lower bound.
    pub lower: u32,
    /// Upper bound.
    pub upper: u32,
}

/// Channel ids of the RGBSDA model.
pub mod channel {
    /// Red.
    pub const R: u8 = 0;
    /// Green.
    pub const G: u8 = 1;
    /// Blue.
    pub const B: u8 = 2;
    /// Alpha.
    pub const A: u8 = 15;
    /// UASTC: RGB.
    pub const UASTC_RGB: u8 = 0;
    /// UASTC: RGBA.
    pub const UASTC_RGBA: u8 = 3;
    /// UASTC: RRR (grayscale).
    pub const UASTC_RRR: u8 = 4;
    /// UASTC: RG (two channels, e.g. normal maps).
    pub const UASTC_RG: u8 = 6;
    /// Qualifier: the sample is linear even when the transfer function is sRGB.
    pub const LINEAR: u8 = 0x10;
    /// Qualifier: floating point.
    pub const FLOAT: u8 = 0x80;
    /// Qualifier: signed.
    pub const SIGNED: u8 = 0x40;
}

/// Transfer functions.
pub mod transfer {
    /// Linear.
    pub const LINEAR: u8 = 1;
    /// sRGB.
    pub const SRGB: u8 = 2;
}

impl BasicDfd {
    /// An uncompressed format of `channels` (ids from [`channel`]) with `bits` bits each;
    /// `float` channels are IEEE floats (16 or 32 bits). With `srgb`, every channel but alpha
    /// is sRGB-encoded.
    pub fn uncompressed(channels: &[u8], bits: u8, float: bool, srgb: bool) -> Self {
        let bytes = channels.len() as u8 * bits / 8;
        let samples = channels
            .iter()
            .enumerate()
            .map(|(i, &id)| {
                let mut channel_type = id;
                if float {
                    channel_type |= channel::FLOAT | channel::SIGNED;
                }
                if srgb && id == channel::A {
                    channel_type |= channel::LINEAR;
                }
                let (lower, upper) = match (float, bits) {
                    (true, _) => (0xBF80_0000, 0x3F80_0000), // -1.0f, 1.0f
                    (false, bits) => (0, (1u32 << bits) - 1),
                };
                DfdSample {
                    bit_offset: i as u16 * bits as u16,
                    bit_length: bits - 1,
                    channel_type,
                    position: [0; 4],
                    lower,
                    upper,
                }
            })
            .collect();
        Self {
            color_model: model::RGBSDA,
            color_primaries: 1,
            transfer_function: if srgb {
                transfer::SRGB
            } else {
                transfer::LINEAR
            },
            flags: 0,
            texel_block_dimensions: [0; 4],
            bytes_planes: [bytes, 0, 0, 0, 0, 0, 0, 0],
            samples,
        }
    }

    /// UASTC 4x4 blocks (16 bytes) holding `uastc_channel` ([`channel`]`::UASTC_*`).
    pub fn uastc(uastc_channel: u8, srgb: bool) -> Self {
        Self {
            color_model: model::UASTC,
            color_primaries: 1,
            transfer_function: if srgb {
                transfer::SRGB
            } else {
                transfer::LINEAR
            },
            flags: 0,
            texel_block_dimensions: [3, 3, 0, 0],
            bytes_planes: [16, 0, 0, 0, 0, 0, 0, 0],
            samples: vec![DfdSample {
                bit_offset: 0,
                bit_length: 127,
                channel_type: uastc_channel,
                position: [0; 4],
                lower: 0,
                upper: u32::MAX,
            }],
        }
    }

    /// The DFD of a 4x4 block-compressed `vk_format` ([`block_bytes`] knows it), exactly as
    /// Khronos' `vk2dfd` writes it (`None` for other formats).
    pub fn block_compressed(vk_format: u32) -> Option<Self> {
        let layout = BLOCK_LAYOUTS.iter().find(|l| l.vk_format == vk_format)?;
        let bits = layout.bytes as u16 * 8 / layout.samples.len() as u16;
        Some(Self {
            color_model: layout.model,
            color_primaries: 1,
            transfer_function: if layout.srgb {
                transfer::SRGB
            } else {
                transfer::LINEAR
            },
            flags: 0,
            texel_block_dimensions: [3, 3, 0, 0],
            bytes_planes: [layout.bytes, 0, 0, 0, 0, 0, 0, 0],
            samples: layout
                .samples
                .iter()
                .map(|&(channel_id, bit_offset)| DfdSample {
                    bit_offset,
                    bit_length: (bits - 1) as u8,
                    // As vk2dfd: an sRGB format's alpha sample is marked linear.
                    channel_type: if layout.srgb && channel_id == channel::A {
                        channel_id | channel::LINEAR
                    } else {
                        channel_id
                    },
                    position: [0; 4],
                    lower: 0,
                    upper: u32::MAX,
                })
                .collect(),
        })
    }

    /// The whole DFD: `dfdTotalSize` followed by this one basic block.
    pub fn to_bytes(&self) -> Vec<u8> {
        let block_size = 24 + 16 * self.samples.len() as u32;
        let mut out = Vec::with_capacity(4 + block_size as usize);
        out.extend_from_slice(&(4 + block_size).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes()); // vendorId 0 (Khronos), descriptorType 0 (basic)
        out.extend_from_slice(&(2u32 | (block_size << 16)).to_le_bytes()); // versionNumber 2
        out.extend_from_slice(&[
            self.color_model,
            self.color_primaries,
            self.transfer_function,
            self.flags,
        ]);
        out.extend_from_slice(&self.texel_block_dimensions);
        out.extend_from_slice(&self.bytes_planes);
        for s in &self.samples {
            out.extend_from_slice(&s.bit_offset.to_le_bytes());
            out.push(s.bit_length);
            out.push(s.channel_type);
            out.extend_from_slice(&s.position);
            out.extend_from_slice(&s.lower.to_le_bytes());
            out.extend_from_slice(&s.upper.to_le_bytes());
        }
        out
    }

    /// Parses the first (Khronos basic) block of a DFD.
    pub fn parse(dfd: &[u8]) -> Result<Self, ReadError> {
        let total = dfd.u32_at(0, "KTX2 DFD")? as usize;
        if total != dfd.len() {
            return Err(ReadError::Invalid {
                what: "KTX2 DFD total size",
            });
        }
        let vendor_and_type = dfd.u32_at(4, "KTX2 DFD")?;
        let version_and_size = dfd.u32_at(8, "KTX2 DFD")?;
        if vendor_and_type != 0 || version_and_size & 0xFFFF != 2 {
            return Err(ReadError::Invalid {
                what: "KTX2 DFD (not a Khronos basic block, version 2)",
            });
        }
        let block_size = (version_and_size >> 16) as usize;
        if block_size < 24 || !(block_size - 24).is_multiple_of(16) || 4 + block_size > dfd.len() {
            return Err(ReadError::Invalid {
                what: "KTX2 DFD block size",
            });
        }
        let b = dfd.slice_at(4, block_size, "KTX2 DFD")?;
        let samples = (0..(block_size - 24) / 16)
            .map(|i| {
                let s = &b[24 + 16 * i..40 + 16 * i];
                DfdSample {
                    bit_offset: u16::from_le_bytes([s[0], s[1]]),
                    bit_length: s[2],
                    channel_type: s[3],
                    position: [s[4], s[5], s[6], s[7]],
                    lower: u32::from_le_bytes([s[8], s[9], s[10], s[11]]),
                    upper: u32::from_le_bytes([s[12], s[13], s[14], s[15]]),
                }
            })
            .collect();
        Ok(Self {
            color_model: b[8],
            color_primaries: b[9],
            transfer_function: b[10],
            flags: b[11],
            texel_block_dimensions: [b[12], b[13], b[14], b[15]],
            bytes_planes: [b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23]],
            samples,
        })
    }
}

/// Everything needed to write one KTX2 file.
#[derive(Debug, Clone)]
pub struct Ktx2Description {
    /// `VkFormat` ([`vk`]).
    pub vk_format: u32,
    /// Data type size.
    pub type_size: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Depth (0 unless 3D).
    pub depth: u32,
    /// Array layers (0 when not an array).
    pub layers: u32,
    /// 1 or 6.
    pub faces: u32,
    /// Bytes of one texel block (4 for RGBA8, 16 for UASTC), for level alignment.
    pub block_bytes: u32,
    /// The DFD.
    pub dfd: BasicDfd,
    /// Key/value pairs; written sorted by key. Values are raw bytes (strings NUL-terminated).
    pub key_values: Vec<(String, Vec<u8>)>,
    /// `Some(level)`: zstd-supercompress every mip level.
    pub zstd_level: Option<i32>,
}

/// Writes a KTX2 file. `levels[i]` holds mip level `i` (level 0 = full size), each the
/// concatenation of its layers, faces and depth slices in KTX2 order.
pub fn write(desc: &Ktx2Description, levels: &[Vec<u8>]) -> Vec<u8> {
    write_levels(
        desc,
        levels
            .iter()
            .map(|level| std::borrow::Cow::Borrowed(level.as_slice()))
            .collect(),
    )
}

/// [`write`](fn@write) taking the levels by value: each uncompressed level is dropped as soon as it is
/// compressed, and each compressed one as soon as it is copied into the file, so large
/// textures are not held twice over.
pub fn write_owned(desc: &Ktx2Description, levels: Vec<Vec<u8>>) -> Vec<u8> {
    write_levels(
        desc,
        levels.into_iter().map(std::borrow::Cow::Owned).collect(),
    )
}

fn write_levels(desc: &Ktx2Description, levels: Vec<std::borrow::Cow<'_, [u8]>>) -> Vec<u8> {
    let mut key_values = desc.key_values.clone();
    key_values.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let lengths: Vec<usize> = levels.iter().map(|level| level.len()).collect();
    let mut stored: Vec<std::borrow::Cow<'_, [u8]>> = levels
        .into_iter()
        .map(|level| match desc.zstd_level {
            Some(l) => std::borrow::Cow::Owned(super::zstd_frame::compress(&level, l)),
            None => level,
        })
        .collect();

    let dfd = desc.dfd.to_bytes();
    let dfd_offset = HEADER_SIZE + LEVEL_INDEX_SIZE * lengths.len();
    let kvd_offset = dfd_offset + dfd.len();
    let mut kvd = Vec::new();
    for (key, value) in &key_values {
        let length = (key.len() + 1 + value.len()) as u32;
        kvd.extend_from_slice(&length.to_le_bytes());
        kvd.extend_from_slice(key.as_bytes());
        kvd.push(0);
        kvd.extend_from_slice(value);
        kvd.resize(kvd.len().next_multiple_of(4), 0);
    }
    let alignment = if desc.zstd_level.is_some() {
        1
    } else {
        lcm(desc.block_bytes.max(1) as usize, 4)
    };

    // Levels go smallest first; compute their offsets from the end of the metadata.
    let mut offsets = vec![0usize; lengths.len()];
    let mut at = kvd_offset + kvd.len();
    for i in (0..lengths.len()).rev() {
        at = at.next_multiple_of(alignment);
        offsets[i] = at;
        at += stored[i].len();
    }
    let header = Header {
        identifier: IDENTIFIER,
        vk_format: desc.vk_format,
        type_size: desc.type_size,
        pixel_width: desc.width,
        pixel_height: desc.height,
        pixel_depth: desc.depth,
        layer_count: desc.layers,
        face_count: desc.faces,
        level_count: lengths.len() as u32,
        supercompression_scheme: if desc.zstd_level.is_some() {
            supercompression::ZSTD
        } else {
            supercompression::NONE
        },
        dfd_byte_offset: dfd_offset as u32,
        dfd_byte_length: dfd.len() as u32,
        kvd_byte_offset: if kvd.is_empty() { 0 } else { kvd_offset as u32 },
        kvd_byte_length: kvd.len() as u32,
        sgd_byte_offset: 0,
        sgd_byte_length: 0,
    };
    let mut out = Vec::with_capacity(at);
    out.extend_from_slice(bytemuck::bytes_of(&header));
    for (i, length) in lengths.iter().enumerate() {
        let row = LevelIndex {
            byte_offset: offsets[i] as u64,
            byte_length: stored[i].len() as u64,
            uncompressed_byte_length: *length as u64,
        };
        out.extend_from_slice(bytemuck::bytes_of(&row));
    }
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
    for i in (0..lengths.len()).rev() {
        out.resize(offsets[i], 0);
        out.extend_from_slice(&std::mem::take(&mut stored[i]));
    }
    out
}

fn lcm(a: usize, b: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

/// A parsed, validated KTX2 header with its level index, DFD and key/value pairs.
#[derive(Debug, Clone)]
pub struct Ktx2Info<'a> {
    /// The header.
    pub header: Header,
    /// Level index, level 0 first; every range lies inside the file.
    pub levels: Vec<LevelIndex>,
    /// The basic DFD block.
    pub dfd: BasicDfd,
    /// Key/value pairs.
    pub key_values: Vec<(&'a str, &'a [u8])>,
}

/// Parses and validates a KTX2 file's metadata; level data is checked for range only.
pub fn parse(bytes: &[u8]) -> Result<Ktx2Info<'_>, ReadError> {
    // The identifier first, so that a short file of another kind says so, not "truncated".
    if !bytes
        .iter()
        .zip(&IDENTIFIER)
        .all(|(byte, expected)| byte == expected)
    {
        return Err(ReadError::BadMagic { format: FORMAT });
    }
    let header: Header =
        bytemuck::pod_read_unaligned(bytes.slice_at(0, HEADER_SIZE, "KTX2 header")?);
    if header.identifier != IDENTIFIER {
        return Err(ReadError::BadMagic { format: FORMAT });
    }
    if header.pixel_width == 0 || (header.face_count != 1 && header.face_count != 6) {
        return Err(ReadError::Invalid {
            what: "KTX2 dimensions or face count",
        });
    }
    if header.face_count == 6
        && (header.pixel_width != header.pixel_height || header.pixel_depth != 0)
    {
        return Err(ReadError::Invalid {
            what: "KTX2 cubemap (faces must be square 2D)",
        });
    }
    let level_count = header.level_count.max(1) as usize;
    let max_levels = 32
        - header
            .pixel_width
            .max(header.pixel_height)
            .max(header.pixel_depth)
            .leading_zeros();
    if level_count > max_levels as usize {
        return Err(ReadError::Invalid {
            what: "KTX2 level count",
        });
    }
    let mut levels = Vec::with_capacity(level_count);
    for i in 0..level_count {
        let row: LevelIndex = bytemuck::pod_read_unaligned(bytes.slice_at(
            HEADER_SIZE + i * LEVEL_INDEX_SIZE,
            LEVEL_INDEX_SIZE,
            "KTX2 level index",
        )?);
        let end = row.byte_offset.checked_add(row.byte_length);
        if end.is_none_or(|end| end > bytes.len() as u64) {
            return Err(ReadError::OutOfBounds {
                what: "KTX2 level data",
            });
        }
        levels.push(row);
    }
    let dfd = bytes.slice_at(
        header.dfd_byte_offset as usize,
        header.dfd_byte_length as usize,
        "KTX2 DFD",
    )?;
    let dfd = BasicDfd::parse(dfd)?;
    let kvd = bytes.slice_at(
        header.kvd_byte_offset as usize,
        header.kvd_byte_length as usize,
        "KTX2 key/value data",
    )?;
    let mut key_values = Vec::new();
    let mut at = 0;
    while at < kvd.len() {
        let length = kvd.u32_at(at, "KTX2 key/value entry")? as usize;
        let entry = kvd.slice_at(at + 4, length, "KTX2 key/value entry")?;
        let nul = entry
            .iter()
            .position(|b| *b == 0)
            .ok_or(ReadError::Invalid {
                what: "KTX2 key (no NUL)",
            })?;
        let key = std::str::from_utf8(&entry[..nul]).map_err(|_| ReadError::Invalid {
            what: "KTX2 key (not UTF-8)",
        })?;
        key_values.push((key, &entry[nul + 1..]));
        at = (at + 4 + length).next_multiple_of(4);
    }
    Ok(Ktx2Info {
        header,
        levels,
        dfd,
        key_values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba8(zstd: Option<i32>) -> (Ktx2Description, Vec<Vec<u8>>) {
        let desc = Ktx2Description {
            vk_format: vk::R8G8B8A8_SRGB,
            type_size: 1,
            width: 4,
            height: 2,
            depth: 0,
            layers: 0,
            faces: 1,
            block_bytes: 4,
            dfd: BasicDfd::uncompressed(
                &[channel::R, channel::G, channel::B, channel::A],
                8,
                false,
                true,
            ),
            key_values: vec![
                ("KTXwriter".into(), b"hearth test\0".to_vec()),
                ("KTXorientation".into(), b"rd\0".to_vec()),
            ],
            zstd_level: zstd,
        };
        let levels = vec![
            (0..32).collect(),
            (100..108).collect(),
            (200..204).collect(),
        ];
        (desc, levels)
    }

    #[test]
    fn writes_levels_smallest_first_and_parses_back() {
        for zstd in [None, Some(3)] {
            let (desc, levels) = rgba8(zstd);
            let bytes = write(&desc, &levels);
            let info = parse(&bytes).unwrap();
            assert_eq!(info.header.level_count, 3);
            assert!(info.levels[2].byte_offset < info.levels[1].byte_offset);
            assert!(info.levels[1].byte_offset < info.levels[0].byte_offset);
            for (i, row) in info.levels.iter().enumerate() {
                let stored =
                    &bytes[row.byte_offset as usize..(row.byte_offset + row.byte_length) as usize];
                let data = match zstd {
                    None => {
                        assert_eq!(row.byte_offset % 4, 0, "aligned to lcm(4, 4)");
                        stored.to_vec()
                    }
                    Some(_) => zstd::bulk::decompress(stored, 1 << 20).unwrap(),
                };
                assert_eq!(data, levels[i]);
                assert_eq!(row.uncompressed_byte_length as usize, levels[i].len());
            }
            assert_eq!(info.dfd, desc.dfd);
            // Keys sorted by their bytes.
            assert_eq!(info.key_values[0].0, "KTXorientation");
            assert_eq!(info.key_values[1], ("KTXwriter", &b"hearth test\0"[..]));
            assert_eq!(
                info.dfd.samples[3].channel_type,
                channel::A | channel::LINEAR
            );
        }
    }

    #[test]
    fn every_truncation_fails() {
        let (desc, levels) = rgba8(Some(3));
        let bytes = write(&desc, &levels);
        for len in 0..bytes.len() {
            assert!(parse(&bytes[..len]).is_err(), "prefix {len}");
        }
    }
}
