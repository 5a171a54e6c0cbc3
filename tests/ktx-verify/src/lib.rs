//! Test-only: an independent check of KTX2 files (hearth's own and the reference corpus)
//! through Khronos' **libktx** (KTX-Software v4.0.0, vendored and built with cmake by the
//! `libktx-rs-sys` crate, wrapped by `libktx-rs` 0.3.3).
//!
//! Every function here hands the file's bytes to libktx (`ktxTexture_CreateFromStream` via
//! `libktx_rs::Texture::new(StreamSource ..)`, with image data loaded, which undoes zstd
//! supercompression) and reports only what libktx itself made of them: header values from the
//! `ktxTexture2` struct, DFD fields from libktx's in-memory copy of the DFD, key/value pairs
//! from libktx's hash list, pixels from libktx's image buffer. Nothing re-parses the bytes.
//!
//! libktx v4.0.0 is a *loader*, not a validator: it checks the identifier, the dimensions,
//! face and level counts, that the DFD describes a format it can size, the length of
//! `KTXorientation` and `KTXanimData`, and that every zstd frame inflates; it does not compare
//! the DFD with `vkFormat`, nor the level index's `uncompressedByteLength` with what inflates,
//! nor alignment. A file it loads can still break the KTX 2.0 spec elsewhere. [`ktx2check`]
//! runs Khronos' validator, built from the same sources, for the rest.
//!
//! **Linking.** libktx carries its own copy of Basis Universal. A binary that also links
//! hearth with its `bake` or `transcode` feature (`basis-universal-sys`, another copy) fails
//! to link with duplicate C++ symbols, as `cargo test --workspace --all-features` would.
//! So the functions here are for binaries that do not link hearth. Tests that write files with
//! hearth use [`Probe`] instead: it runs the same functions in this crate's `libktx-probe`
//! program, which links libktx alone.

mod shared;
pub use shared::*;

use libktx_rs::{
    sources::StreamSource, sys, KtxError, RustKtxStream, Texture, TextureCreateFlags,
    TranscodeFlags, TranscodeFormat,
};
use std::io::Cursor;
use std::sync::{Arc, Mutex};

/// libktx's own error, as a message naming the call that failed, the `KTX_*` code and
/// libktx's text for it (`ktxErrorString`).
fn ktx_err(what: &str, err: KtxError) -> String {
    format!("libktx {what}: {err:?} ({err})")
}

/// Hands `bytes` to libktx: `ktxTexture_CreateFromStream` reading from an in-memory stream,
/// without loading image data (header, level index, DFD and key/value data only).
fn open_metadata(bytes: &[u8]) -> Result<Texture<'static>, String> {
    let stream = RustKtxStream::new(Box::new(Cursor::new(bytes.to_vec())))
        .map_err(|code| format!("libktx-rs: cannot create a stream (code {code})"))?;
    // libktx-rs's StreamSource takes an Arc<Mutex<..>>, though its stream holds raw pointers.
    #[allow(clippy::arc_with_non_send_sync)]
    let stream = Arc::new(Mutex::new(stream));
    let source = StreamSource::new(stream, TextureCreateFlags::empty());
    let mut texture =
        Texture::new(source).map_err(|e| ktx_err("ktxTexture_CreateFromStream", e))?;
    if texture.ktx2().is_none() {
        return Err("libktx loaded the bytes as KTX 1, not KTX 2".into());
    }
    Ok(texture)
}

/// A texture with its image data loaded, and the size of libktx's image buffer.
struct Loaded {
    texture: Texture<'static>,
    /// Bytes libktx allocated for the image data: `ktxTexture2_GetDataSizeUncompressed`
    /// taken before loading. libktx v4.0.0 lays inflated zstd levels out padded to
    /// lcm(texel block, 4) bytes but then sets `dataSize` to the *unpadded* sum, so
    /// `ktxTexture_GetDataSize` can fall short of where level 0 ends (an R8 texture with a
    /// 2-byte mip, say); its allocation does not.
    buffer_len: usize,
}

impl Loaded {
    /// libktx's whole image buffer.
    fn buffer(&self) -> &[u8] {
        let len = self.buffer_len.max(self.texture.data_size());
        // SAFETY: libktx allocated `buffer_len` bytes at `pData` in LoadImageData (or
        // `dataSize` when that is larger, e.g. after transcoding replaced the buffer), and
        // the texture keeps them alive while `self` is borrowed.
        unsafe {
            let data = sys::ktxTexture_GetData(self.texture.handle());
            std::slice::from_raw_parts(data, len)
        }
    }
}

/// Loads the image data of a texture from [`open_metadata`] (`ktxTexture2_LoadImageData`,
/// which inflates zstd and then reports the texture as not supercompressed).
fn load_images(texture: Texture<'static>) -> Result<Loaded, String> {
    let buffer_len = texture
        .get_data_size_uncompressed()
        .map_err(|e| ktx_err("GetDataSizeUncompressed", e))?;
    texture
        .load_image_data()
        .map_err(|e| ktx_err("ktxTexture2_LoadImageData", e))?;
    Ok(Loaded {
        texture,
        buffer_len,
    })
}

/// [`open_metadata`] then [`load_images`].
fn open(bytes: &[u8]) -> Result<Loaded, String> {
    load_images(open_metadata(bytes)?)
}

/// Loads `bytes` with libktx (image data included, so a zstd frame that fails to inflate is an
/// error here) and reports what libktx made of the file. `Err` carries libktx's error code and
/// message.
pub fn load(bytes: &[u8]) -> Result<LibktxInfo, String> {
    let mut texture = open_metadata(bytes)?;
    let supercompression = texture
        .ktx2()
        .expect("checked by open_metadata")
        .supercompression_scheme()
        .into();
    let Loaded {
        mut texture,
        buffer_len: _,
    } = load_images(texture)?;
    let image_sizes = {
        // SAFETY: `handle` is a live ktxTexture2 owned by `texture`.
        let levels = unsafe { (*texture.handle()).numLevels };
        (0..levels)
            .map(|level| {
                texture
                    .get_image_size(level)
                    .map_err(|e| ktx_err("GetImageSize", e))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let element_size = texture.element_size();
    let data_size = texture.data_size();
    let ktx2 = texture.ktx2().expect("checked by open");
    let handle = ktx2.handle();
    // SAFETY: `handle` is a live, loaded ktxTexture2; libktx owns every pointer read below
    // (DFD, hash list entries) until `texture` drops at the end of this function.
    unsafe {
        let t = &*handle;
        // pDfd[0] is dfdTotalSize; the basic block follows: word 2 of the block holds
        // colorModel | colorPrimaries << 8 | transferFunction << 16 | flags << 24.
        let bdb = t.pDfd.add(1);
        let dfd_word = *bdb.add(2);
        let color_model = dfd_word & 0xFF;
        // Word 1 of the block: versionNumber | descriptorBlockSize << 16; samples (4 words
        // each) start at word 6 and their first word ends with the channelType byte.
        let samples = ((*bdb.add(1) >> 16) as usize).saturating_sub(24) / 16;
        let sample_channel_types: Vec<u8> = (0..samples)
            .map(|i| (*bdb.add(6 + 4 * i) >> 24) as u8)
            .collect();
        const MODEL_UASTC: u32 = 166;
        let num_components = match (color_model, sample_channel_types.first()) {
            (MODEL_UASTC, Some(id)) if ![0, 3, 4, 5].contains(&(id & 0xF)) => None,
            _ => Some(ktx2.num_components()),
        };
        let mut key_values = Vec::new();
        let mut entry = t.kvDataHead;
        while !entry.is_null() {
            let (mut key_len, mut key) = (0, std::ptr::null_mut());
            let (mut value_len, mut value) = (0, std::ptr::null_mut());
            let e1 = sys::ktxHashListEntry_GetKey(entry, &mut key_len, &mut key);
            let e2 = sys::ktxHashListEntry_GetValue(entry, &mut value_len, &mut value);
            if e1 != sys::ktx_error_code_e_KTX_SUCCESS || e2 != sys::ktx_error_code_e_KTX_SUCCESS {
                return Err("libktx: cannot read a key/value entry".into());
            }
            let key = std::slice::from_raw_parts(key as *const u8, key_len as usize);
            let key = key.strip_suffix(&[0]).unwrap_or(key);
            let value = if value.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(value as *const u8, value_len as usize).to_vec()
            };
            key_values.push((String::from_utf8_lossy(key).into_owned(), value));
            entry = sys::ktxHashList_Next(entry);
        }
        let letters = [t.orientation.x, t.orientation.y, t.orientation.z];
        let orientation = letters[..t.numDimensions.clamp(1, 3) as usize]
            .iter()
            .map(|&c| char::from(c as u8))
            .collect();
        Ok(LibktxInfo {
            vk_format: t.vkFormat,
            width: t.baseWidth,
            height: t.baseHeight,
            depth: t.baseDepth,
            dimensions: t.numDimensions,
            levels: t.numLevels,
            layers: t.numLayers,
            faces: t.numFaces,
            is_array: t.isArray,
            is_cubemap: t.isCubemap,
            is_compressed: t.isCompressed,
            generate_mipmaps: t.generateMipmaps,
            supercompression,
            needs_transcoding: ktx2.needs_transcoding(),
            color_model,
            color_primaries: (dfd_word >> 8) & 0xFF,
            transfer_function: ktx2.oetf(),
            premultiplied_alpha: ktx2.premultiplied_alpha(),
            num_components,
            sample_channel_types,
            component_info: ktx2.component_info(),
            element_size,
            orientation,
            key_values,
            data_size,
            image_sizes,
        })
    }
}

/// For UASTC and ETC1S/BasisLZ files: libktx transcodes the whole texture to RGBA32
/// (`ktxTexture2_TranscodeBasis(KTX_TTF_RGBA32)`), and this returns every level of layer 0,
/// face 0 (level 0 first). Errors for files that need no transcoding.
pub fn decode_rgba8(bytes: &[u8]) -> Result<Vec<Rgba8Image>, String> {
    decode_rgba8_at(bytes, 0, 0)
}

/// [`decode_rgba8`] for array layer `layer` and cubemap face `face` (or, for a 3D texture,
/// depth slice `face` of each level).
pub fn decode_rgba8_at(bytes: &[u8], layer: u32, face: u32) -> Result<Vec<Rgba8Image>, String> {
    let mut loaded = open(bytes)?;
    {
        let mut ktx2 = loaded.texture.ktx2().expect("checked by open");
        if !ktx2.needs_transcoding() {
            return Err("not a UASTC or ETC1S texture: libktx says it needs no transcoding".into());
        }
        ktx2.transcode_basis(TranscodeFormat::Rgba32, TranscodeFlags::empty())
            .map_err(|e| ktx_err("ktxTexture2_TranscodeBasis(RGBA32)", e))?;
    }
    // SAFETY: `handle` is a live ktxTexture2 owned by `loaded`.
    let (levels, width, height) = unsafe {
        let t = &*loaded.texture.handle();
        (t.numLevels, t.baseWidth, t.baseHeight)
    };
    // Transcoding replaced libktx's image buffer with one of exactly `dataSize` bytes.
    loaded.buffer_len = 0;
    (0..levels)
        .map(|level| {
            let pixels = image_slice(&loaded, level, layer, face)?.to_vec();
            Ok(((width >> level).max(1), (height >> level).max(1), pixels))
        })
        .collect()
}

/// One image of a loaded texture, as libktx locates it: `GetImageOffset(level, layer,
/// face_slice)` into `ktxTexture_GetData`, `GetImageSize(level)` long.
fn image_slice(loaded: &Loaded, level: u32, layer: u32, face_slice: u32) -> Result<&[u8], String> {
    let texture = &loaded.texture;
    let offset = texture
        .get_image_offset(level, layer, face_slice)
        .map_err(|e| {
            ktx_err(
                &format!("GetImageOffset({level}, {layer}, {face_slice})"),
                e,
            )
        })?;
    let size = texture
        .get_image_size(level)
        .map_err(|e| ktx_err("GetImageSize", e))?;
    loaded
        .buffer()
        .get(offset..offset + size)
        .ok_or_else(|| format!("libktx image ({level}, {layer}, {face_slice}) lies past its data"))
}

/// For formats that need no transcoding (uncompressed or block-compressed): the bytes of one
/// image as libktx holds them after loading (zstd undone): mip `level`, array `layer`, and
/// cubemap face `face` — for a 3D texture, `face` picks the depth slice. One image is
/// `GetImageSize(level)` bytes: one face of one layer, or one depth slice.
pub fn image_bytes(bytes: &[u8], level: u32, layer: u32, face: u32) -> Result<Vec<u8>, String> {
    let loaded = open(bytes)?;
    Ok(image_slice(&loaded, level, layer, face)?.to_vec())
}

/// The whole of mip `level` as libktx hands it out through `ktxTexture_IterateLevels` (after
/// loading, zstd undone): every layer, face and depth slice, in KTX2 order.
pub fn level_bytes(bytes: &[u8], level: u32) -> Result<Vec<u8>, String> {
    let loaded = open(bytes)?;
    let mut out: Option<Vec<u8>> = None;
    loaded
        .texture
        .iterate_levels(|mip, _face, _w, _h, _d, pixels| {
            if mip as u32 == level {
                out.get_or_insert_with(Vec::new).extend_from_slice(pixels);
            }
            Ok(())
        })
        .map_err(|e| ktx_err("ktxTexture_IterateLevels", e))?;
    out.ok_or_else(|| format!("libktx iterated no level {level}"))
}

/// [`image_bytes`] for every image of the texture from one load: `(level, layer, face_slice,
/// bytes)` for each mip level (level 0 first), each array layer, and each cubemap face or, for
/// a 3D texture, each depth slice of that level.
pub fn all_image_bytes(bytes: &[u8]) -> Result<Vec<IndexedImage>, String> {
    let loaded = open(bytes)?;
    // SAFETY: `handle` is a live ktxTexture2 owned by `loaded`.
    let (levels, layers, faces, depth) = unsafe {
        let t = &*loaded.texture.handle();
        (t.numLevels, t.numLayers, t.numFaces, t.baseDepth)
    };
    let mut out = Vec::new();
    for level in 0..levels {
        let slices = faces.max((depth >> level).max(1));
        for layer in 0..layers {
            for face_slice in 0..slices {
                let image = image_slice(&loaded, level, layer, face_slice)?.to_vec();
                out.push((level, layer, face_slice, image));
            }
        }
    }
    Ok(out)
}

/// [`level_bytes`] for every level from one load, level 0 first.
pub fn all_level_bytes(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let loaded = open(bytes)?;
    let mut out: Vec<Vec<u8>> = Vec::new();
    loaded
        .texture
        .iterate_levels(|mip, _face, _w, _h, _d, pixels| {
            let mip = mip as usize;
            if out.len() <= mip {
                out.resize(mip + 1, Vec::new());
            }
            out[mip].extend_from_slice(pixels);
            Ok(())
        })
        .map_err(|e| ktx_err("ktxTexture_IterateLevels", e))?;
    Ok(out)
}
