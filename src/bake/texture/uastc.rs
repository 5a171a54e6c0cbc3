//! UASTC encoding through Basis Universal (the `basis-universal` crate, basisu 1.16).
//!
//! The crate only returns `.basis` files, so hearth feeds every slice (each mip level of each
//! face or layer) as its own source image, with basisu's mipmap generation off, and takes the
//! raw UASTC blocks of each slice out of the `.basis` file to write KTX2 itself.

use basis_universal::sys;
use basis_universal::{BasisTextureFormat, ColorSpace, Compressor, CompressorParams};

/// UASTC pack levels (basisu's `cPackUASTCLevel*`): 0 fastest ... 4 very slow.
pub const LEVEL_FASTEST: u32 = 0;
/// basisu's `cPackUASTCLevelVerySlow`.
pub const LEVEL_VERY_SLOW: u32 = 4;
const LEVEL_MASK: i32 = sys::UastcPackFlags_PackUASTCLevelMask;

/// How to encode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UastcOptions {
    /// Pack level, [`LEVEL_FASTEST`]..=[`LEVEL_VERY_SLOW`].
    pub level: u32,
    /// RDO quality scalar (smaller zstd output, lower quality); `None` = off.
    pub rdo: Option<f32>,
    /// Perceptual (sRGB) error metrics; `false` for linear data.
    pub perceptual: bool,
    /// Tune for normal maps (linear metrics, no RDO on selectors/endpoints).
    pub normal_map: bool,
}

/// One encoded slice: `blocks_x * blocks_y` UASTC blocks of 16 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UastcSlice {
    /// Blocks across.
    pub blocks_x: u32,
    /// Blocks down.
    pub blocks_y: u32,
    /// The blocks, row-major.
    pub data: Vec<u8>,
}

/// Encodes RGBA8 slices (`(width, height, pixels)`), returning their UASTC blocks in the same
/// order and whether any slice has alpha below 255.
pub fn encode(
    slices: &[(u32, u32, &[u8])],
    options: &UastcOptions,
) -> Result<(Vec<UastcSlice>, bool), String> {
    encode_slices(
        slices
            .iter()
            .map(|(w, h, rgba)| (*w, *h, std::borrow::Cow::Borrowed(*rgba))),
        slices.len(),
        options,
    )
}

/// [`encode`] taking the pixels by value: each buffer is dropped as soon as basisu has copied
/// it, so the caller's copy and basisu's are not both held for long.
pub fn encode_owned(
    slices: Vec<(u32, u32, Vec<u8>)>,
    options: &UastcOptions,
) -> Result<(Vec<UastcSlice>, bool), String> {
    let count = slices.len();
    encode_slices(
        slices
            .into_iter()
            .map(|(w, h, rgba)| (w, h, std::borrow::Cow::Owned(rgba))),
        count,
        options,
    )
}

fn encode_slices<'a>(
    slices: impl Iterator<Item = (u32, u32, std::borrow::Cow<'a, [u8]>)>,
    count: usize,
    options: &UastcOptions,
) -> Result<(Vec<UastcSlice>, bool), String> {
    assert!(options.level <= LEVEL_VERY_SLOW, "UASTC level out of range");
    let mut params = CompressorParams::new();
    params.set_basis_format(BasisTextureFormat::UASTC4x4);
    params.set_generate_mipmaps(false);
    params.set_color_space(if options.perceptual {
        ColorSpace::Srgb
    } else {
        ColorSpace::Linear
    });
    params.set_mip_color_space(ColorSpace::Linear);
    if options.normal_map {
        params.tune_for_normal_maps();
    }
    params.set_rdo_uastc(options.rdo);
    params.set_print_status_to_stdout(false);
    // The crate's `set_uastc_quality_level` ORs the level into the existing flags (its default
    // level is 2, so asking for 0 gives 2 and asking for 4 gives the invalid 6): replace the
    // level bits ourselves.
    // SAFETY: `params.0` is the live CompressorParams this struct owns; the calls only read and
    // write its `m_pack_uastc_flags` integer.
    unsafe {
        let flags = sys::compressor_params_get_pack_uastc_flags(params.0);
        sys::compressor_params_set_pack_uastc_flags(
            params.0,
            (flags & !LEVEL_MASK) | options.level as i32,
        );
    }
    for (index, (width, height, rgba)) in slices.enumerate() {
        assert_eq!(
            rgba.len(),
            width as usize * height as usize * 4,
            "slice {index}: RGBA8 size"
        );
        params
            .source_image_mut(index as u32)
            .init(&rgba, width, height, 4);
    }
    // One encoder thread per texture: hearth runs textures in parallel on its own pool.
    let mut compressor = Compressor::new(1);
    // SAFETY: `init` and `process` are unsafe because basisu does not validate its parameters.
    // Ours are valid: UASTC format, a pack level in 0..=4 (checked above), an RDO scalar or
    // none, and source images initialized from buffers whose sizes match their dimensions.
    unsafe {
        if !compressor.init(&params) {
            return Err("basisu rejected the encoder parameters".into());
        }
        // `init` copied the parameters, source images included (basisu's `m_params =
        // params`): free ours before the encoder makes its own working copies.
        drop(params);
        compressor
            .process()
            .map_err(|e| format!("basisu failed to encode: {e:?}"))?;
    }
    let has_alpha = compressor.any_source_image_has_alpha();
    let slices = slices_of(compressor.basis_file(), count)?;
    Ok((slices, has_alpha))
}

/// The current pack level of basisu parameters (to test that our setting reaches the encoder).
#[cfg(test)]
fn level_of(params: &CompressorParams) -> i32 {
    // SAFETY: reads an integer field of the live params `params` owns.
    unsafe { sys::compressor_params_get_pack_uastc_flags(params.0) & LEVEL_MASK }
}

/// Little-endian unsigned integer of `N` bytes at `at` (basisu's `packed_uint<N>`).
fn packed(bytes: &[u8], at: usize, n: usize) -> Result<u64, String> {
    let field = bytes.get(at..at + n).ok_or("basis file truncated")?;
    Ok(field
        .iter()
        .rev()
        .fold(0u64, |acc, b| (acc << 8) | *b as u64))
}

/// The UASTC slices of a `.basis` file, by image index (each image has one level here).
fn slices_of(basis: &[u8], expected: usize) -> Result<Vec<UastcSlice>, String> {
    // basis_file_header: sig 'sB' at 0, header size at 4, total slices at 14 (3 bytes),
    // tex format at 20 (1 = UASTC), slice descriptors' offset at 65; 77 bytes in all.
    if packed(basis, 0, 2)? != u64::from(u16::from_le_bytes(*b"sB")) || packed(basis, 4, 2)? != 77 {
        return Err("basisu returned an unexpected .basis header".into());
    }
    let total_slices = packed(basis, 14, 3)? as usize;
    if packed(basis, 20, 1)? != 1 || total_slices != expected {
        return Err(format!(
            "basisu returned {total_slices} slices, expected {expected} UASTC slices"
        ));
    }
    let descs = packed(basis, 65, 4)? as usize;
    let mut out: Vec<Option<UastcSlice>> = vec![None; expected];
    for i in 0..total_slices {
        // basis_slice_desc (23 bytes): image index u24, level u8, flags u8, orig w/h u16,
        // blocks x/y u16, file offset u32, file size u32, crc16.
        let d = descs + i * 23;
        let (image, level) = (packed(basis, d, 3)? as usize, packed(basis, d + 3, 1)?);
        let (blocks_x, blocks_y) = (
            packed(basis, d + 9, 2)? as u32,
            packed(basis, d + 11, 2)? as u32,
        );
        let (offset, size) = (
            packed(basis, d + 13, 4)? as usize,
            packed(basis, d + 17, 4)? as usize,
        );
        if level != 0 || image >= expected || size != blocks_x as usize * blocks_y as usize * 16 {
            return Err(format!("basisu slice {i} is not a plain UASTC slice"));
        }
        let data = basis
            .get(offset..offset + size)
            .ok_or("basis slice out of range")?
            .to_vec();
        out[image] = Some(UastcSlice {
            blocks_x,
            blocks_y,
            data,
        });
    }
    out.into_iter()
        .map(|s| s.ok_or_else(|| "basisu left out a slice".to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_reaches_the_encoder() {
        for level in 0..=LEVEL_VERY_SLOW {
            let params = CompressorParams::new();
            // SAFETY: as in `encode`.
            unsafe {
                let flags = sys::compressor_params_get_pack_uastc_flags(params.0);
                sys::compressor_params_set_pack_uastc_flags(
                    params.0,
                    (flags & !LEVEL_MASK) | level as i32,
                );
            }
            assert_eq!(level_of(&params), level as i32);
        }
        // The trap this module avoids: the crate's own setter ORs into the default (2).
        let mut params = CompressorParams::new();
        params.set_uastc_quality_level(0);
        assert_eq!(level_of(&params), 2);
    }

    #[test]
    fn encodes_slices_of_any_size_into_blocks() {
        let a: Vec<u8> = (0..8 * 8 * 4).map(|i| (i * 7 % 256) as u8).collect();
        let b = vec![200u8; 5 * 3 * 4];
        let options = UastcOptions {
            level: LEVEL_FASTEST,
            rdo: None,
            perceptual: true,
            normal_map: false,
        };
        let (slices, has_alpha) = encode(&[(8, 8, &a), (5, 3, &b)], &options).unwrap();
        assert_eq!(
            (slices[0].blocks_x, slices[0].blocks_y, slices[0].data.len()),
            (2, 2, 64)
        );
        assert_eq!(
            (slices[1].blocks_x, slices[1].blocks_y, slices[1].data.len()),
            (2, 1, 32)
        );
        assert!(has_alpha, "the first slice has alpha below 255");
        // Deterministic.
        assert_eq!(
            encode(&[(8, 8, &a), (5, 3, &b)], &options).unwrap().0,
            slices
        );
    }
}
