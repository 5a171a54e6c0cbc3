//! Errors of reading any hearth format, and the bounds-checked byte helpers the parsers use.
//!
//! Defined here, with the formats, so that `format/` depends on nothing else in the crate;
//! the reader's `read::error` re-exports them.
//!
//! Reader errors never allocate (apart from the I/O error of `open` and [`ReadError::Named`],
//! which carries the name asked for): a corrupt pack is an
//! ordinary, cheap error value, never a panic.

use std::fmt;
use std::sync::Arc;

/// Why a pack, manifest or other baked file could not be read.
///
/// ```
/// use hearth::{PakReader, ReadError};
/// match PakReader::open("no/such.hpack") {
///     Err(ReadError::Io(error)) => assert_eq!(error.kind(), std::io::ErrorKind::NotFound),
///     other => panic!("{other:?}"),
/// }
/// let error = PakReader::from_bytes([b'x'; 256]).unwrap_err();
/// assert!(matches!(error, ReadError::BadMagic { .. }), "{error}");
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = PakReader::open(game_hpack)?;
/// // A missing asset is `NotFound`; any other error of a load names the asset.
/// let missing = pak.load::<hearth::Mesh>("absent.hmesh");
/// assert!(matches!(missing, Err(ReadError::NotFound { .. })));
/// let error = pak.load::<hearth::Mesh>("hello.txt").unwrap_err();
/// assert!(error.to_string().contains("hello.txt"), "{error}");
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be opened or mapped.
    Io(Arc<std::io::Error>),
    /// The file does not start with the expected magic bytes.
    BadMagic {
        /// Which format was expected.
        format: &'static str,
    },
    /// The file's version is not one this reader knows.
    UnsupportedVersion {
        /// Which format.
        format: &'static str,
        /// The version found in the file.
        version: u32,
    },
    /// The data ends before a structure it declares.
    Truncated {
        /// Which structure.
        what: &'static str,
    },
    /// An offset, size or index points outside the data it refers to.
    OutOfBounds {
        /// Which field.
        what: &'static str,
    },
    /// A field that must be aligned is not.
    Misaligned {
        /// Which field.
        what: &'static str,
    },
    /// A field holds a value the format does not allow.
    Invalid {
        /// Which field, and what is wrong with it.
        what: &'static str,
    },
    /// A checksum does not match the bytes it covers.
    ChecksumMismatch {
        /// What the checksum covers.
        what: &'static str,
        /// The entry index, for per-entry checksums.
        entry: Option<u32>,
    },
    /// A compressed payload could not be decompressed to its declared size.
    Decompress {
        /// The codec's name.
        codec: &'static str,
        /// The entry index.
        entry: u32,
    },
    /// The data exceeds a reader limit (`hearth::Limits`).
    LimitExceeded {
        /// Which limit.
        what: &'static str,
    },
    /// A signed open failed: the pack is unsigned, signed by another key, its signature does
    /// not verify, or an entry's bytes do not match their signed digest.
    Signature {
        /// What failed.
        what: &'static str,
        /// The entry index, for an entry's digest.
        entry: Option<u32>,
    },
    /// No asset at this path, hash or name.
    NotFound {
        /// The asset asked for (a runtime path, a hash as 16 hex digits, or a name).
        asset: Arc<str>,
    },
    /// An error reading one asset, naming it.
    Asset {
        /// The asset (its runtime path, or its name).
        asset: Arc<str>,
        /// What went wrong.
        error: Arc<ReadError>,
    },
    /// A background load was cancelled before it ran.
    Cancelled,
    /// An error reading the asset a name (`assets.hnames`) names, or the name table while
    /// looking the name up.
    Named {
        /// The name asked for.
        name: Box<str>,
        /// What went wrong.
        error: Box<ReadError>,
    },
    /// An error of one layer of a mount ([`LayeredPak`](crate::LayeredPak)): opening its
    /// file, checking its signature, or reading its patch record. Names the file.
    Layer {
        /// The layer's file (as the caller named it).
        file: Arc<str>,
        /// What went wrong.
        error: Arc<ReadError>,
    },
    /// Layers of a mount that do not fit together: a patch made for another base, or an
    /// entry whose kind differs between two layers. Names both files.
    LayerConflict {
        /// The layer being mounted, then the layer below it (one allocation: the error
        /// stays as small as the others).
        files: Arc<[Box<str>; 2]>,
        /// What does not fit.
        what: Box<str>,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(err) => write!(f, "I/O error: {err}"),
            ReadError::BadMagic { format } => write!(f, "not a {format} file (bad magic)"),
            ReadError::UnsupportedVersion { format, version } => {
                write!(f, "unsupported {format} version {version}")
            }
            ReadError::Truncated { what } => write!(f, "truncated: {what} runs past the end"),
            ReadError::OutOfBounds { what } => write!(f, "out of bounds: {what}"),
            ReadError::Misaligned { what } => write!(f, "misaligned: {what}"),
            ReadError::Invalid { what } => write!(f, "invalid {what}"),
            ReadError::ChecksumMismatch {
                what,
                entry: Some(index),
            } => write!(f, "checksum mismatch: {what} of entry {index}"),
            ReadError::ChecksumMismatch { what, entry: None } => {
                write!(f, "checksum mismatch: {what}")
            }
            ReadError::Decompress { codec, entry } => {
                write!(
                    f,
                    "entry {entry}: {codec} payload does not decompress to its declared size"
                )
            }
            ReadError::LimitExceeded { what } => write!(f, "limit exceeded: {what}"),
            ReadError::Signature {
                what,
                entry: Some(index),
            } => write!(f, "signature check failed: {what} of entry {index}"),
            ReadError::Signature { what, entry: None } => {
                write!(f, "signature check failed: {what}")
            }
            ReadError::NotFound { asset } => write!(f, "{asset}: no such asset"),
            ReadError::Cancelled => write!(f, "the load was cancelled"),
            ReadError::Asset { asset, error } => write!(f, "{asset}: {error}"),
            ReadError::Named { name, error } => write!(f, "asset named `{name}`: {error}"),
            ReadError::Layer { file, error } => write!(f, "{file}: {error}"),
            ReadError::LayerConflict { files, what } => {
                let [upper, lower] = &**files;
                write!(f, "{upper} cannot be mounted over {lower}: {what}")
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(err) => Some(&**err),
            ReadError::Asset { error, .. } => Some(&**error),
            ReadError::Named { error, .. } => Some(&**error),
            ReadError::Layer { error, .. } => Some(&**error),
            _ => None,
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(err: std::io::Error) -> Self {
        ReadError::Io(Arc::new(err))
    }
}

/// Bounds-checked little-endian field reads over untrusted bytes.
pub(crate) trait ReadBytes {
    /// `len` bytes at `offset`, or `Truncated { what }`.
    fn slice_at(&self, offset: usize, len: usize, what: &'static str) -> Result<&[u8], ReadError>;
    /// A little-endian `u16` at `offset`.
    fn u16_at(&self, offset: usize, what: &'static str) -> Result<u16, ReadError> {
        let b = self.slice_at(offset, 2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    /// A little-endian `u32` at `offset`.
    fn u32_at(&self, offset: usize, what: &'static str) -> Result<u32, ReadError> {
        let b = self.slice_at(offset, 4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// A little-endian `u64` at `offset`.
    fn u64_at(&self, offset: usize, what: &'static str) -> Result<u64, ReadError> {
        let b = self.slice_at(offset, 8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

impl ReadBytes for [u8] {
    fn slice_at(&self, offset: usize, len: usize, what: &'static str) -> Result<&[u8], ReadError> {
        offset
            .checked_add(len)
            .and_then(|end| self.get(offset..end))
            .ok_or(ReadError::Truncated { what })
    }
}

/// Converts a `u64` from a file to `usize`, failing on 32-bit targets when it does not fit.
pub(crate) fn to_usize(value: u64, what: &'static str) -> Result<usize, ReadError> {
    usize::try_from(value).map_err(|_| ReadError::OutOfBounds { what })
}
