//! Decoded pixels and the operations on them: decoding, resampling, mipmaps, color conversions.

use std::io::Cursor;

/// Largest width or height hearth accepts (the largest texture GPUs commonly sample).
pub const MAX_DIMENSION: u32 = 16384;

/// The default pixel budget of one source image (`texture.max_pixels`): 2^28 pixels, a
/// 16384 x 16384 image. Checked from the image's header, before any pixel is decoded.
pub const DEFAULT_MAX_PIXELS: u64 = 1 << 28;

/// Rows of RGBA `f32` pixels in `0..=1`, top row first: what [`encode`](super::encode) reads,
/// one row at a time, so a texture never needs a full-size `f32` copy of its source.
pub trait PixelSource {
    /// Width in pixels.
    fn width(&self) -> u32;
    /// Height in pixels.
    fn height(&self) -> u32;
    /// Writes row `y` (`< height`) into `out` (`width` pixels). A source decoded as it is
    /// read fails here when its data does (a PNG's image data cut short or corrupt).
    fn read_row(&self, y: u32, out: &mut [[f32; 4]]) -> Result<(), String>;

    /// Row `y` as the source's own 8-bit samples, where it has them: `out` is replaced by
    /// `width` pixels of `channels` samples (gray, gray + alpha, RGB or RGBA) and `channels`
    /// is returned; `None` for other sources (16-bit, float), which only [`read_row`] reads.
    /// [`read_row`] of the same row gives these samples as `f32`: `v / 255` for colour
    /// samples, `v * (1 / 255)` for gray and gray + alpha (as the `image` crate converts them;
    /// the two can differ in the last bit).
    ///
    /// [`read_row`]: PixelSource::read_row
    fn read_row_u8(&self, _y: u32, _out: &mut Vec<u8>) -> Option<Result<usize, String>> {
        None
    }
}

impl PixelSource for Pixels {
    fn width(&self) -> u32 {
        self.width
    }
    fn height(&self) -> u32 {
        self.height
    }
    fn read_row(&self, y: u32, out: &mut [[f32; 4]]) -> Result<(), String> {
        let w = self.width as usize;
        out.copy_from_slice(&self.rgba[y as usize * w..(y as usize + 1) * w]);
        Ok(())
    }
}

/// A decoded source image, read as `f32` row by row through [`PixelSource`].
///
/// A non-interlaced PNG is decoded as its rows are read, from the file's bytes, and is never
/// held decoded (a row and the decoder's window at a time); its rows are the samples the
/// `image` crate would decode, with the same decoder settings. Any other image (JPEG, TGA,
/// interlaced PNG) is decoded whole and kept in its own sample format (gray 8-bit is 1 byte
/// per pixel, RGBA 16-bit 8 bytes).
pub struct DecodedImage<'a> {
    samples: Samples<'a>,
    info: SourceInfo,
    width: u32,
    height: u32,
    /// Named in the errors of rows decoded as they are read (the pipelines set the file).
    name: Option<String>,
}

/// Where a [`DecodedImage`]'s rows come from.
enum Samples<'a> {
    Whole(image::DynamicImage),
    /// Boxed: the decoder's state is some hundred bytes.
    PngRows(Box<PngRows<'a>>),
}

impl std::fmt::Debug for DecodedImage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecodedImage")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("info", &self.info)
            .field("row_streamed", &self.is_row_streamed())
            .field("name", &self.name)
            .finish()
    }
}

impl<'a> DecodedImage<'a> {
    /// Decodes a PNG, JPEG or TGA file. PNG and JPEG are recognized by their header; TGA has
    /// none, so `extension` (the file's, lowercase) selects it.
    ///
    /// Before any pixel is decoded, the dimensions are read from the header and checked: not
    /// zero, at most [`MAX_DIMENSION`] on a side, at most `max_pixels` pixels in all (the
    /// budget, `texture.max_pixels`); and the file's structure is walked to its end (PNG
    /// chunks up to `IEND`, JPEG segments and scans up to the end-of-image marker, TGA pixel
    /// data or RLE packets), so a file cut short is an error ("truncated …") even where the
    /// decoder would fill the missing part with gray. The decoder then runs under explicit
    /// [`image::Limits`] sized for that image.
    ///
    /// A non-interlaced PNG borrows `bytes` and decodes its rows when they are read, so an
    /// error inside its image data (a corrupt or short zlib stream in well-formed chunks)
    /// comes from [`PixelSource::read_row`], not from here.
    pub fn decode(bytes: &'a [u8], extension: &str, max_pixels: u64) -> Result<Self, String> {
        Self::decode_with(bytes, extension, max_pixels, true)
    }

    /// [`decode`](Self::decode), with PNG rows streamed or (`stream_png` false) the whole
    /// image decoded at once, as every format was before: the tests compare the two.
    pub(crate) fn decode_with(
        bytes: &'a [u8],
        extension: &str,
        max_pixels: u64,
        stream_png: bool,
    ) -> Result<Self, String> {
        let format = image_reader(bytes, extension)?
            .format()
            .ok_or("not a PNG, JPEG or TGA image (unrecognized header)")?;
        let (width, height) = image_reader(bytes, extension)?
            .into_dimensions()
            .map_err(|e| format!("cannot read the image header: {e}"))?;
        let pixels = width as u64 * height as u64;
        if pixels == 0 {
            return Err(format!("image has zero size ({width}x{height})"));
        }
        if width.max(height) > MAX_DIMENSION {
            return Err(format!(
                "image is {width}x{height}: larger than {MAX_DIMENSION} pixels on a side"
            ));
        }
        if pixels > max_pixels {
            return Err(format!(
                "image is {width}x{height} ({pixels} pixels), over the budget of {max_pixels} pixels (texture.max_pixels)"
            ));
        }
        super::truncation::check_complete(format, bytes)?;
        // The largest decoded buffer (16-bit RGBA) plus room for the decoder's own state; the
        // budget above is what keeps memory bounded, not this.
        let max_alloc = pixels * 8 + (64 << 20);
        let rows = (stream_png && format == image::ImageFormat::Png)
            .then(|| PngRows::open(bytes, max_alloc, (width, height)))
            .flatten();
        let (samples, info) = match rows {
            Some(rows) => {
                let info = rows.info();
                (Samples::PngRows(Box::new(rows)), info)
            }
            None => decode_whole(bytes, extension, (width, height), max_alloc)?,
        };
        Ok(Self {
            samples,
            info,
            width,
            height,
            name: None,
        })
    }

    /// Names the image (its file) in the errors of rows decoded as they are read.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// An error reading a row, naming the image where it is named.
    fn row_error(&self, error: String) -> String {
        match &self.name {
            Some(name) => format!("{name}: {error}"),
            None => error,
        }
    }

    /// Whether the rows are decoded as they are read (a non-interlaced PNG), rather than
    /// held decoded.
    pub fn is_row_streamed(&self) -> bool {
        matches!(self.samples, Samples::PngRows(_))
    }

    /// What the source looked like (bits and channels).
    pub fn info(&self) -> SourceInfo {
        self.info
    }

    /// All pixels as `f32` RGBA (16 bytes per pixel).
    pub fn to_pixels(&self) -> Result<Pixels, String> {
        let (width, height) = (self.width(), self.height());
        let mut rgba = vec![[0.0f32; 4]; width as usize * height as usize];
        for (y, row) in rgba.chunks_exact_mut(width as usize).enumerate() {
            self.read_row(y as u32, row)?;
        }
        Ok(Pixels {
            width,
            height,
            rgba,
        })
    }
}

/// An `image` reader of `bytes`: format guessed from the header, or TGA by `extension`.
fn image_reader<'b>(
    bytes: &'b [u8],
    extension: &str,
) -> Result<image::ImageReader<Cursor<&'b [u8]>>, String> {
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read image: {e}"))?;
    if reader.format().is_none() && extension == "tga" {
        reader.set_format(image::ImageFormat::Tga);
    }
    Ok(reader)
}

/// Decodes the whole image through the `image` crate (header checked already).
fn decode_whole<'a>(
    bytes: &[u8],
    extension: &str,
    (width, height): (u32, u32),
    max_alloc: u64,
) -> Result<(Samples<'a>, SourceInfo), String> {
    let mut reader = image_reader(bytes, extension)?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(max_alloc);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(e) => {
            format!("cannot decode image: over the decoder's memory limit ({e})")
        }
        e => format!("cannot decode image: {e}"),
    })?;
    if (image.width(), image.height()) != (width, height) {
        return Err(format!(
            "cannot decode image: the header says {width}x{height}, the decoder made {}x{}",
            image.width(),
            image.height()
        ));
    }
    let color = image.color();
    let info = SourceInfo {
        bits: (color.bits_per_pixel() / color.channel_count() as u16) as u8,
        channels: color.channel_count(),
    };
    // The `image` crate has more sample formats than its PNG, JPEG and TGA decoders make;
    // any other is widened once (never happens with those decoders).
    let image = match image {
        image::DynamicImage::ImageLuma8(_)
        | image::DynamicImage::ImageLumaA8(_)
        | image::DynamicImage::ImageRgb8(_)
        | image::DynamicImage::ImageRgba8(_)
        | image::DynamicImage::ImageLuma16(_)
        | image::DynamicImage::ImageLumaA16(_)
        | image::DynamicImage::ImageRgb16(_)
        | image::DynamicImage::ImageRgba16(_)
        | image::DynamicImage::ImageRgba32F(_) => image,
        other => image::DynamicImage::ImageRgba32F(other.into_rgba32f()),
    };
    Ok((Samples::Whole(image), info))
}

/// The `png` reader with the settings of the `image` crate's PNG decoder (text chunks read,
/// its memory limit, `EXPAND`: palette and bit depths under 8 widened to 8 bits, `tRNS` to
/// an alpha channel, 16 bits kept), ready at the first row.
fn open_png(
    bytes: &[u8],
    max_alloc: u64,
) -> Result<png::Reader<Cursor<&[u8]>>, png::DecodingError> {
    let limits = png::Limits {
        bytes: usize::try_from(max_alloc).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    decoder.set_ignore_text_chunk(false);
    decoder.read_header_info()?;
    decoder.set_transformations(png::Transformations::EXPAND);
    decoder.read_info()
}

/// A non-interlaced PNG decoded one row at a time, as rows are asked for.
struct PngRows<'a> {
    bytes: &'a [u8],
    max_alloc: u64,
    /// Samples per pixel after `EXPAND` (1 to 4), and whether they are 16-bit.
    channels: usize,
    sixteen: bool,
    height: u32,
    state: std::cell::RefCell<RowReader<'a>>,
}

/// A PNG reader and where it is.
struct RowReader<'a> {
    reader: png::Reader<Cursor<&'a [u8]>>,
    /// The row `reader` returns next.
    next: u32,
    /// One row of 16-bit samples in native order (reused).
    wide: Vec<u16>,
}

impl<'a> PngRows<'a> {
    /// The rows of the PNG in `bytes`, or `None` where they cannot come one at a time in
    /// order (Adam7 interlacing: the first passes hold every other row) or the header does not
    /// open as expected: the whole-image path decodes those, and words their errors as before.
    fn open(bytes: &'a [u8], max_alloc: u64, (width, height): (u32, u32)) -> Option<Self> {
        let reader = open_png(bytes, max_alloc).ok()?;
        if reader.info().interlaced || reader.info().size() != (width, height) {
            return None;
        }
        let channels = match reader.output_color_type() {
            (png::ColorType::Grayscale, _) => 1,
            (png::ColorType::GrayscaleAlpha, _) => 2,
            (png::ColorType::Rgb, _) => 3,
            (png::ColorType::Rgba, _) => 4,
            (png::ColorType::Indexed, _) => return None,
        };
        let sixteen = match reader.output_color_type().1 {
            png::BitDepth::Eight => false,
            png::BitDepth::Sixteen => true,
            _ => return None,
        };
        Some(Self {
            bytes,
            max_alloc,
            channels,
            sixteen,
            height,
            state: std::cell::RefCell::new(RowReader {
                reader,
                next: 0,
                wide: Vec::new(),
            }),
        })
    }

    fn info(&self) -> SourceInfo {
        SourceInfo {
            bits: if self.sixteen { 16 } else { 8 },
            channels: self.channels as u8,
        }
    }

    /// Decodes up to row `y` and converts it into `out`; after the last row, the rest of the
    /// image data is read as whole-image decoding does (its checksums checked). An earlier
    /// row than the last one read starts the decoder over (the pipelines read each row once,
    /// in order).
    fn read_row(&self, y: u32, out: &mut [[f32; 4]]) -> Result<(), String> {
        self.with_row(y, |data, wide| {
            if self.sixteen {
                wide.clear();
                wide.extend(
                    data.chunks_exact(2)
                        .map(|b| u16::from_be_bytes([b[0], b[1]])),
                );
                fill_channels(wide, self.channels, out, u16f, gray16);
            } else {
                fill_channels(data, self.channels, out, u8f, gray8);
            }
        })
    }

    /// [`PixelSource::read_row_u8`] of an 8-bit PNG.
    fn read_row_u8(&self, y: u32, out: &mut Vec<u8>) -> Option<Result<usize, String>> {
        if self.sixteen {
            return None;
        }
        let read = self.with_row(y, |data, _| {
            out.clear();
            out.extend_from_slice(data);
        });
        Some(read.map(|()| self.channels))
    }

    /// Decodes up to row `y` and hands it to `use_row` (its bytes, and a reusable buffer of
    /// 16-bit samples); see [`PngRows::read_row`].
    fn with_row(&self, y: u32, use_row: impl FnOnce(&[u8], &mut Vec<u16>)) -> Result<(), String> {
        let decoding = |e: png::DecodingError| format!("cannot decode image: {e}");
        let mut use_row = Some(use_row);
        let mut state = self.state.borrow_mut();
        if y < state.next {
            state.reader = open_png(self.bytes, self.max_alloc).map_err(decoding)?;
            state.next = 0;
        }
        let RowReader { reader, next, wide } = &mut *state;
        while *next <= y {
            let row = match reader.next_row() {
                Ok(Some(row)) => row,
                failed => {
                    let at = *next;
                    // Any later read starts over (and fails here again).
                    *next = u32::MAX;
                    return Err(match failed {
                        Err(e) => decoding(e),
                        _ => format!("cannot decode image: the PNG's image data ends at row {at}"),
                    });
                }
            };
            if *next == y {
                if let Some(use_row) = use_row.take() {
                    use_row(row.data(), wide);
                }
            }
            *next += 1;
        }
        if y + 1 == self.height {
            if let Err(e) = reader.next_row() {
                *next = u32::MAX;
                return Err(decoding(e));
            }
        }
        Ok(())
    }
}

impl PixelSource for DecodedImage<'_> {
    fn width(&self) -> u32 {
        self.width
    }
    fn height(&self) -> u32 {
        self.height
    }
    /// Converts exactly as `image`'s `into_rgba32f` does (so bakes are the same bytes as when
    /// hearth called it): color samples `v / MAX`, gray ones `v * (1 / MAX)` (its gray path
    /// goes through another routine, which differs in the last bit), gray copied to R, G and
    /// B, a missing alpha 1.
    fn read_row(&self, y: u32, out: &mut [[f32; 4]]) -> Result<(), String> {
        use image::DynamicImage as D;
        let image = match &self.samples {
            Samples::PngRows(rows) => return rows.read_row(y, out).map_err(|e| self.row_error(e)),
            Samples::Whole(image) => image,
        };
        let w = self.width as usize;
        let row = |raw_len: usize| {
            let n = raw_len / (w * self.height as usize);
            y as usize * w * n..(y as usize + 1) * w * n
        };
        match image {
            D::ImageLuma8(i) => fill::<_, 1>(&i.as_raw()[row(i.len())], out, gray8),
            D::ImageLumaA8(i) => fill::<_, 2>(&i.as_raw()[row(i.len())], out, gray8),
            D::ImageRgb8(i) => fill::<_, 3>(&i.as_raw()[row(i.len())], out, u8f),
            D::ImageRgba8(i) => fill::<_, 4>(&i.as_raw()[row(i.len())], out, u8f),
            D::ImageLuma16(i) => fill::<_, 1>(&i.as_raw()[row(i.len())], out, gray16),
            D::ImageLumaA16(i) => fill::<_, 2>(&i.as_raw()[row(i.len())], out, gray16),
            D::ImageRgb16(i) => fill::<_, 3>(&i.as_raw()[row(i.len())], out, u16f),
            D::ImageRgba16(i) => fill::<_, 4>(&i.as_raw()[row(i.len())], out, u16f),
            D::ImageRgba32F(i) => fill::<_, 4>(&i.as_raw()[row(i.len())], out, |v: f32| v),
            // `decode` widened every other format to RGBA32F.
            _ => unreachable!("DecodedImage holds 8-bit, 16-bit or RGBA32F samples"),
        }
        Ok(())
    }

    fn read_row_u8(&self, y: u32, out: &mut Vec<u8>) -> Option<Result<usize, String>> {
        use image::DynamicImage as D;
        let image = match &self.samples {
            Samples::PngRows(rows) => {
                return rows
                    .read_row_u8(y, out)
                    .map(|read| read.map_err(|e| self.row_error(e)))
            }
            Samples::Whole(image) => image,
        };
        let (raw, channels) = match image {
            D::ImageLuma8(i) => (i.as_raw(), 1),
            D::ImageLumaA8(i) => (i.as_raw(), 2),
            D::ImageRgb8(i) => (i.as_raw(), 3),
            D::ImageRgba8(i) => (i.as_raw(), 4),
            _ => return None,
        };
        let len = self.width as usize * channels;
        out.clear();
        out.extend_from_slice(&raw[y as usize * len..(y as usize + 1) * len]);
        Some(Ok(channels))
    }
}

/// An 8-bit colour sample as `image`'s `into_rgba32f` makes it.
pub(super) fn u8f(v: u8) -> f32 {
    (v as f32 / u8::MAX as f32).clamp(0.0, 1.0)
}
fn u16f(v: u16) -> f32 {
    (v as f32 / u16::MAX as f32).clamp(0.0, 1.0)
}
/// An 8-bit gray sample as `image`'s `into_rgba32f` makes it (another routine, which can
/// differ from [`u8f`] in the last bit).
pub(super) fn gray8(v: u8) -> f32 {
    v as f32 * (1.0 / u8::MAX as f32)
}
fn gray16(v: u16) -> f32 {
    v as f32 * (1.0 / u16::MAX as f32)
}

/// One row of `N`-sample pixels as RGBA `f32` (gray to R, G and B; a missing alpha 1).
fn fill<T: Copy, const N: usize>(row: &[T], out: &mut [[f32; 4]], to_f32: impl Fn(T) -> f32) {
    for (o, p) in out.iter_mut().zip(row.chunks_exact(N)) {
        *o = match N {
            1 => {
                let l = to_f32(p[0]);
                [l, l, l, 1.0]
            }
            2 => {
                let l = to_f32(p[0]);
                [l, l, l, to_f32(p[1])]
            }
            3 => [to_f32(p[0]), to_f32(p[1]), to_f32(p[2]), 1.0],
            _ => [to_f32(p[0]), to_f32(p[1]), to_f32(p[2]), to_f32(p[3])],
        };
    }
}

/// [`fill`] for `channels` samples a pixel: `gray` converts gray samples, `color` the others.
fn fill_channels<T: Copy>(
    row: &[T],
    channels: usize,
    out: &mut [[f32; 4]],
    color: fn(T) -> f32,
    gray: fn(T) -> f32,
) {
    match channels {
        1 => fill::<_, 1>(row, out, gray),
        2 => fill::<_, 2>(row, out, gray),
        3 => fill::<_, 3>(row, out, color),
        _ => fill::<_, 4>(row, out, color),
    }
}

/// RGBA pixels as `f32` in `0..=1`, row-major, top row first. Values are as stored in the
/// source: sRGB-encoded for color images (see [`to_linear`] / [`to_srgb`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Pixels {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` pixels.
    pub rgba: Vec<[f32; 4]>,
}

/// What a source image looked like before decoding, for warnings and modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceInfo {
    /// Bits per channel (8 or 16; 32 for float images).
    pub bits: u8,
    /// Channels in the source (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).
    pub channels: u8,
}

impl Pixels {
    /// A `width` x `height` image filled with `value`.
    pub fn filled(width: u32, height: u32, value: [f32; 4]) -> Self {
        Self {
            width,
            height,
            rgba: vec![value; width as usize * height as usize],
        }
    }

    /// Pixels from 8-bit RGBA bytes (`width * height * 4` of them).
    pub fn from_rgba8(width: u32, height: u32, bytes: &[u8]) -> Self {
        assert_eq!(
            bytes.len(),
            width as usize * height as usize * 4,
            "RGBA8 buffer size"
        );
        let rgba = bytes
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]].map(|c| c as f32 / 255.0))
            .collect();
        Self {
            width,
            height,
            rgba,
        }
    }

    /// Decodes a PNG, JPEG or TGA file (any bit depth and channel count the `image` crate
    /// reads) into `f32` pixels, under the default pixel budget ([`DEFAULT_MAX_PIXELS`]). PNG
    /// and JPEG are recognized by their header; TGA has none, so `extension` (the file's,
    /// lowercase) selects it. See [`DecodedImage::decode`] for the checks; the pipelines use
    /// that directly, which keeps the source's own sample format (1 to 8 bytes per pixel
    /// instead of 16).
    pub fn decode(bytes: &[u8], extension: &str) -> Result<(Self, SourceInfo), String> {
        let image = DecodedImage::decode(bytes, extension, DEFAULT_MAX_PIXELS)?;
        Ok((image.to_pixels()?, image.info()))
    }

    /// Resamples to `width` x `height` with an area-weighted box filter: each output pixel is
    /// the exact average of the source area it covers (a plain 2x2 average when halving an
    /// even size; odd sizes and arbitrary ratios weigh partial pixels by their overlap).
    pub fn resample(&self, width: u32, height: u32) -> Self {
        let horizontal = resample_axis(
            &self.rgba,
            self.width as usize,
            self.height as usize,
            width as usize,
            true,
        );
        let rgba = resample_axis(
            &horizontal,
            width as usize,
            self.height as usize,
            height as usize,
            false,
        );
        Self {
            width,
            height,
            rgba,
        }
    }

    /// Applies `f` to every pixel.
    pub fn map(&self, f: impl Fn([f32; 4]) -> [f32; 4]) -> Self {
        Self {
            width: self.width,
            height: self.height,
            rgba: self.rgba.iter().map(|p| f(*p)).collect(),
        }
    }

    /// Quantizes to 8 bits per channel (round to nearest), RGBA.
    pub fn to_rgba8(&self) -> Vec<u8> {
        self.rgba.iter().flat_map(|p| p.map(quantize8)).collect()
    }
}

/// Rounds a `0..=1` value to the nearest 8-bit step.
pub fn quantize8(value: f32) -> u8 {
    (value.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// The area-weighted box filter from `in_len` samples to `out_len`: per output sample, the
/// source indices it covers (ascending) and their weights (overlap / scale).
pub(crate) fn box_taps(in_len: usize, out_len: usize) -> Vec<Vec<(usize, f32)>> {
    let scale = in_len as f64 / out_len as f64;
    (0..out_len)
        .map(|o| {
            let (start, end) = (o as f64 * scale, (o + 1) as f64 * scale);
            (start.floor() as usize..(end.ceil() as usize).min(in_len))
                .map(|i| {
                    let overlap = (end.min(i as f64 + 1.0) - start.max(i as f64)).max(0.0);
                    (i, (overlap / scale) as f32)
                })
                .filter(|(_, w)| *w > 0.0)
                .collect()
        })
        .collect()
}

/// The box filter of [`Pixels::resample`], one source row at a time: rows go in top to bottom
/// and each output row comes out as soon as its last source row is in, bit for bit what
/// `resample` makes (the same taps, summed in the same order). Holds a few rows, never an
/// image.
pub(crate) struct RowResampler {
    out_width: usize,
    out_height: usize,
    columns: Vec<Vec<(usize, f32)>>,
    /// Per source row: (output row, weight), ascending.
    by_source: Vec<Vec<(usize, f32)>>,
    /// Per output row: its last source row.
    last_source: Vec<usize>,
    /// Sums of output rows `next..`.
    pending: std::collections::VecDeque<Vec<[f32; 4]>>,
    next: usize,
    horizontal: Vec<[f32; 4]>,
}

impl RowResampler {
    /// From `width` x `height` to `out_width` x `out_height`.
    pub(crate) fn new(width: u32, height: u32, out_width: u32, out_height: u32) -> Self {
        let rows = box_taps(height as usize, out_height as usize);
        let mut by_source = vec![Vec::new(); height as usize];
        let mut last_source = Vec::with_capacity(rows.len());
        for (o, taps) in rows.iter().enumerate() {
            for &(i, w) in taps {
                by_source[i].push((o, w));
            }
            last_source.push(taps.last().map_or(0, |t| t.0));
        }
        Self {
            out_width: out_width as usize,
            out_height: out_height as usize,
            columns: box_taps(width as usize, out_width as usize),
            by_source,
            last_source,
            pending: Default::default(),
            next: 0,
            horizontal: vec![[0.0; 4]; out_width as usize],
        }
    }

    /// Takes source row `y` (rows in order, from 0) and hands every output row it completes
    /// to `emit`, in order.
    pub(crate) fn push(
        &mut self,
        y: usize,
        row: &[[f32; 4]],
        emit: &mut dyn FnMut(usize, Vec<[f32; 4]>),
    ) {
        for (out, taps) in self.horizontal.iter_mut().zip(&self.columns) {
            let mut acc = [0.0f32; 4];
            for &(i, w) in taps {
                let p = row[i];
                for c in 0..4 {
                    acc[c] += p[c] * w;
                }
            }
            *out = acc;
        }
        for &(o, w) in &self.by_source[y] {
            let slot = o - self.next;
            while self.pending.len() <= slot {
                self.pending.push_back(vec![[0.0; 4]; self.out_width]);
            }
            for (acc, p) in self.pending[slot].iter_mut().zip(&self.horizontal) {
                for c in 0..4 {
                    acc[c] += p[c] * w;
                }
            }
        }
        while self.next < self.out_height && self.last_source[self.next] <= y {
            let row = self
                .pending
                .pop_front()
                .unwrap_or_else(|| vec![[0.0; 4]; self.out_width]);
            emit(self.next, row);
            self.next += 1;
        }
    }
}

/// One pass of the separable box filter along x (`horizontal`) or y.
fn resample_axis(
    src: &[[f32; 4]],
    width: usize,
    height: usize,
    out_len: usize,
    horizontal: bool,
) -> Vec<[f32; 4]> {
    let in_len = if horizontal { width } else { height };
    let other = if horizontal { height } else { width };
    let taps = box_taps(in_len, out_len);
    let (out_w, out_h) = if horizontal {
        (out_len, height)
    } else {
        (width, out_len)
    };
    let mut out = vec![[0.0f32; 4]; out_w * out_h];
    for line in 0..other {
        for (o, taps) in taps.iter().enumerate() {
            let mut acc = [0.0f32; 4];
            for &(i, w) in taps {
                let p = if horizontal {
                    src[line * width + i]
                } else {
                    src[i * width + line]
                };
                for c in 0..4 {
                    acc[c] += p[c] * w;
                }
            }
            let at = if horizontal {
                line * out_w + o
            } else {
                o * out_w + line
            };
            out[at] = acc;
        }
    }
    out
}

/// sRGB-encoded value to linear light (IEC 61966-2-1). An 8-bit value (`v as f32 / 255.0`,
/// as decoded) is looked up in a table of the formula's own results: the same bits, without
/// a `powf` per channel (two thirds of a bake of small uncompressed sRGB textures).
pub fn srgb_to_linear(c: f32) -> f32 {
    let k = c * 255.0 + 0.5;
    if (0.0..256.0).contains(&k) && ((k as u8) as f32 / 255.0).to_bits() == c.to_bits() {
        return srgb_tables().to_linear[k as usize];
    }
    srgb_to_linear_formula(c)
}

/// Linear light to sRGB encoding. A value that is exactly the linear light of an 8-bit sRGB
/// value (an unfiltered pixel on its way back) is looked up, with the formula's own result.
pub fn linear_to_srgb(c: f32) -> f32 {
    let tables = srgb_tables();
    if (0.0..1.0).contains(&c) {
        // The first 8-bit value whose linear light is in c's bucket or later; the buckets are
        // narrower than the steps between values, so c is that value or the next, or none.
        let first = tables.bucket_start[(c * BUCKETS as f32) as usize] as usize;
        for k in first..(first + 2).min(256) {
            if tables.to_linear[k].to_bits() == c.to_bits() {
                return tables.back[k];
            }
        }
    }
    linear_to_srgb_formula(c)
}

/// Buckets of `[0, 1)` for finding the 8-bit value of a linear light: narrower than the
/// smallest step between two values' linear lights (1 / 255 / 12.92).
const BUCKETS: usize = 4096;

/// For each 8-bit sRGB value: its linear light, and that converted back, both computed by the
/// formulas (so a lookup returns exactly what the formula would).
struct SrgbTables {
    to_linear: [f32; 256],
    back: [f32; 256],
    /// Per bucket `b`: the first value whose linear light is at least `b / BUCKETS`.
    bucket_start: Vec<u16>,
}

fn srgb_tables() -> &'static SrgbTables {
    static TABLES: std::sync::OnceLock<SrgbTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let to_linear: [f32; 256] =
            std::array::from_fn(|k| srgb_to_linear_formula(k as f32 / 255.0));
        let bucket_start = (0..BUCKETS)
            .map(|b| to_linear.partition_point(|&v| v < b as f32 / BUCKETS as f32) as u16)
            .collect();
        SrgbTables {
            back: to_linear.map(linear_to_srgb_formula),
            to_linear,
            bucket_start,
        }
    })
}

fn srgb_to_linear_formula(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb_formula(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// Converts RGB (not alpha) from sRGB encoding to linear light.
pub fn to_linear(p: [f32; 4]) -> [f32; 4] {
    [
        srgb_to_linear(p[0]),
        srgb_to_linear(p[1]),
        srgb_to_linear(p[2]),
        p[3],
    ]
}

/// Converts RGB (not alpha) from linear light to sRGB encoding.
pub fn to_srgb(p: [f32; 4]) -> [f32; 4] {
    [
        linear_to_srgb(p[0]),
        linear_to_srgb(p[1]),
        linear_to_srgb(p[2]),
        p[3],
    ]
}

/// The size of level `level` of a mip chain starting at `size` (never below 1).
pub fn mip_size(size: u32, level: u32) -> u32 {
    (size >> level).max(1)
}

/// Number of levels of a full mip chain down to 1x1.
pub fn full_mip_count(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// PNG files for the tests: written by the `png` crate, or by hand where it cannot (Adam7
/// interlacing, image data cut short inside well-formed chunks).
#[cfg(test)]
pub(crate) mod test_png;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_even_sizes_is_a_2x2_average() {
        let mut p = Pixels::filled(4, 2, [0.0; 4]);
        for (i, px) in p.rgba.iter_mut().enumerate() {
            *px = [i as f32; 4];
        }
        let half = p.resample(2, 1);
        // (0 + 1 + 4 + 5) / 4 and (2 + 3 + 6 + 7) / 4
        assert_eq!(half.rgba, vec![[2.5; 4], [4.5; 4]]);
    }

    #[test]
    fn odd_sizes_weigh_every_source_pixel_equally_overall() {
        let mut p = Pixels::filled(3, 1, [0.0; 4]);
        p.rgba = vec![[0.0; 4], [3.0; 4], [6.0; 4]];
        assert_eq!(p.resample(1, 1).rgba, vec![[3.0; 4]]);
        let two = p.resample(2, 1);
        let mean = (two.rgba[0][0] + two.rgba[1][0]) / 2.0;
        assert!((mean - 3.0).abs() < 1e-5, "mean preserved: {two:?}");
    }

    #[test]
    fn rows_match_into_rgba32f_bit_for_bit_for_every_sample_format() {
        let (w, h) = (7u32, 3u32);
        let v8 = |x: u32, y: u32, c: u32| ((x * 37 + y * 101 + c * 53) % 256) as u8;
        let v16 = |x: u32, y: u32, c: u32| ((x * 9001 + y * 40503 + c * 7919) % 65536) as u16;
        use image::{ImageBuffer, Luma, LumaA, Rgb, Rgba};
        let images: Vec<image::DynamicImage> = vec![
            ImageBuffer::from_fn(w, h, |x, y| Luma([v8(x, y, 0)])).into(),
            ImageBuffer::from_fn(w, h, |x, y| LumaA([v8(x, y, 0), v8(x, y, 1)])).into(),
            ImageBuffer::from_fn(w, h, |x, y| Rgb([v8(x, y, 0), v8(x, y, 1), v8(x, y, 2)])).into(),
            ImageBuffer::from_fn(w, h, |x, y| {
                Rgba([v8(x, y, 0), v8(x, y, 1), v8(x, y, 2), v8(x, y, 3)])
            })
            .into(),
            ImageBuffer::from_fn(w, h, |x, y| Luma([v16(x, y, 0)])).into(),
            ImageBuffer::from_fn(w, h, |x, y| LumaA([v16(x, y, 0), v16(x, y, 1)])).into(),
            ImageBuffer::from_fn(w, h, |x, y| Rgb([v16(x, y, 0), v16(x, y, 1), v16(x, y, 2)]))
                .into(),
            ImageBuffer::from_fn(w, h, |x, y| {
                Rgba([v16(x, y, 0), v16(x, y, 1), v16(x, y, 2), v16(x, y, 3)])
            })
            .into(),
        ];
        for image in images {
            let color = image.color();
            let mut png = Vec::new();
            image
                .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
                .unwrap();
            let want: Vec<u32> = image
                .into_rgba32f()
                .into_raw()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            for stream in [true, false] {
                let decoded = DecodedImage::decode_with(&png, "png", 1 << 20, stream).unwrap();
                assert_eq!(decoded.is_row_streamed(), stream);
                let got: Vec<u32> = decoded
                    .to_pixels()
                    .unwrap()
                    .rgba
                    .iter()
                    .flatten()
                    .map(|v| v.to_bits())
                    .collect();
                assert_eq!(got, want, "{color:?}, streamed {stream}");
            }
        }
    }

    /// The lookups return exactly the formulas' bits, for 8-bit values and any other input.
    #[test]
    fn srgb_lookups_give_the_formulas_bits() {
        let mut inputs: Vec<f32> = (0..=255).map(|v| v as f32 / 255.0).collect();
        inputs.extend((0..=255).map(|v| srgb_to_linear_formula(v as f32 / 255.0)));
        inputs.extend((0..=65535).map(|v| v as f32 / 65535.0));
        inputs.extend([-0.0, -1.0, 1.5, 1e-9, f32::NAN, f32::INFINITY, 0.5 + 1e-7]);
        for c in inputs {
            let (fast, formula) = (srgb_to_linear(c), srgb_to_linear_formula(c));
            assert_eq!(fast.to_bits(), formula.to_bits(), "to linear {c:?}");
            let (fast, formula) = (linear_to_srgb(c), linear_to_srgb_formula(c));
            assert_eq!(fast.to_bits(), formula.to_bits(), "to sRGB {c:?}");
        }
    }

    #[test]
    fn the_row_resampler_matches_resample_bit_for_bit() {
        for (w, h, ow, oh) in [
            (7, 5, 3, 2),
            (8, 8, 4, 4),
            (5, 9, 5, 4),
            (13, 3, 1, 1),
            (3, 1, 2, 1),
        ] {
            let mut p = Pixels::filled(w, h, [0.0; 4]);
            for (i, px) in p.rgba.iter_mut().enumerate() {
                let v = (i as f32 * 0.37).sin();
                *px = [v, v * 0.5, 1.0 - v, i as f32 / 100.0];
            }
            let want = p.resample(ow, oh);
            let mut got = vec![Vec::new(); oh as usize];
            let mut order = Vec::new();
            let mut r = RowResampler::new(w, h, ow, oh);
            for y in 0..h {
                let row = &p.rgba[(y * w) as usize..((y + 1) * w) as usize];
                r.push(y as usize, row, &mut |o, row| {
                    order.push(o);
                    got[o] = row;
                });
            }
            assert_eq!(order, (0..oh as usize).collect::<Vec<_>>());
            assert_eq!(got.concat(), want.rgba, "{w}x{h} -> {ow}x{oh}");
        }
    }

    #[test]
    fn srgb_round_trips_and_mip_counts() {
        for i in 0..=255 {
            let c = i as f32 / 255.0;
            assert_eq!(quantize8(linear_to_srgb(srgb_to_linear(c))), i as u8);
        }
        assert_eq!(full_mip_count(1, 1), 1);
        assert_eq!(full_mip_count(256, 64), 9);
        assert_eq!(full_mip_count(5, 3), 3);
        assert_eq!(mip_size(5, 2), 1);
    }

    #[test]
    fn decode_errors_are_clear() {
        assert!(Pixels::decode(b"not an image at all", "png")
            .unwrap_err()
            .contains("not a PNG"));
        let mut png = Vec::new();
        image::RgbaImage::from_pixel(4, 4, image::Rgba([1, 2, 3, 4]))
            .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let (p, info) = Pixels::decode(&png, "png").unwrap();
        assert_eq!(
            (p.width, p.height, info),
            (
                4,
                4,
                SourceInfo {
                    bits: 8,
                    channels: 4
                }
            )
        );
        assert_eq!(p.to_rgba8()[..4], [1, 2, 3, 4]);
        let err = Pixels::decode(&png[..png.len() / 2], "png").unwrap_err();
        assert!(err.contains("truncated"), "{err}");
    }

    #[test]
    fn a_png_cut_short_inside_its_image_data_fails_on_a_row_naming_the_file() {
        // Large enough for many deflate blocks: the first rows decode from the data kept.
        let (w, h) = (512u32, 512u32);
        let rgb = test_png::data(h as usize, test_png::row_bytes(w, 3, 8));
        let whole = test_png::encode(
            (w, h),
            (png::ColorType::Rgb, png::BitDepth::Eight),
            None,
            None,
            &rgb,
        );
        let cut = test_png::idat_cut(&whole, 0.5);
        // The whole-image decoder fails at once; the row stream opens and fails at a row past
        // the first ones (the data for those is there), naming the file.
        let err = DecodedImage::decode_with(&cut, "png", 1 << 20, false).unwrap_err();
        assert!(err.contains("cannot decode image"), "{err}");
        let image = DecodedImage::decode(&cut, "png", 1 << 20)
            .unwrap()
            .named("dir/cut.png");
        assert!(image.is_row_streamed());
        let mut row = vec![[0.0f32; 4]; w as usize];
        image.read_row(0, &mut row).unwrap();
        let err = image.to_pixels().unwrap_err();
        assert!(err.starts_with("dir/cut.png: cannot decode image"), "{err}");
        // Every row up to the failing one is read, the failing one and later are errors.
        let failing = (0..h)
            .find(|y| image.read_row(*y, &mut row).is_err())
            .unwrap();
        assert!(failing > h / 8 && failing < h, "fails at row {failing}");
        assert!(image.read_row(h - 1, &mut row).is_err());
        // The uncut file reads whole (the stream's final check of the rest of the data passes).
        let fine = DecodedImage::decode(&whole, "png", 1 << 20).unwrap();
        assert_eq!(fine.to_pixels().unwrap().to_rgba8()[..3], rgb[..3]);
    }
}
