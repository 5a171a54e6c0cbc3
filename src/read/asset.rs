//! Owned assets: [`AssetBytes`], an asset's bytes that outlive the call that read them, and
//! what every typed form builds on ([`LoadAsset`], [`AssetSource`]). Each kind's owned form
//! lives with its view: [`Mesh`](crate::Mesh), [`Materials`](crate::Materials),
//! [`Animations`](crate::Animations), [`Texture`](crate::Texture), [`Font`](crate::Font),
//! [`Scene`](crate::Scene).
//!
//! A stored entry of a mapped or embedded pack is shared, not copied: the asset keeps the
//! pack's mapping (or static bytes) alive. A compressed entry is decompressed once, when the
//! asset loads; a loose tree's file is read once. Each typed asset validates its bytes once
//! and then hands out its view for free ([`Mesh::view`](crate::Mesh::view)). Every type here is
//! `Send + Sync + 'static` and cheap to clone.
//!
//! ```
//! let pak = hearth::include_pak!("../../tests/fixtures/tiny.hpack")?;
//! let bytes: hearth::AssetBytes = pak.load("hello.txt")?;
//! drop(pak); // the asset outlives its reader
//! assert_eq!(&*bytes, b"hello from the fixture pack\n");
//! # Ok::<(), hearth::ReadError>(())
//! ```

use crate::format::hman::AssetKind;
use crate::read::aligned::AlignedBytes;
use crate::read::error::ReadError;
use crate::read::names::{named, NameRecord, NameTable};
use std::sync::Arc;
use yoke::Yoke;

/// Where a pack's bytes live. Shared (`Arc`) so that an owned asset of a stored entry
/// ([`AssetBytes`]) keeps the mapping or buffer alive without copying.
pub(crate) enum Backing {
    Mapped(memmap2::Mmap),
    Static(&'static [u8]),
    Owned(AlignedBytes),
}

impl Backing {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Backing::Mapped(map) => map,
            Backing::Static(bytes) => bytes,
            Backing::Owned(owned) => owned.as_slice(),
        }
    }
}

/// Where an owned asset's bytes live.
pub(crate) enum Storage {
    /// Inside a pack embedded in the binary.
    Static(&'static [u8]),
    /// Inside a mapped or owned pack, which the asset keeps alive.
    Pack {
        backing: Arc<Backing>,
        start: usize,
        len: usize,
    },
    /// Decompressed from a pack entry, or read from a loose tree.
    Heap(Vec<u8>),
}

impl Storage {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Storage::Static(bytes) => bytes,
            // The range was validated against the pack when the entry was made.
            Storage::Pack {
                backing,
                start,
                len,
            } => &backing.as_slice()[*start..*start + *len],
            Storage::Heap(bytes) => bytes,
        }
    }
}

/// An asset's bytes, owned or shared with the pack they came from: `Send + Sync + 'static`,
/// and cloning one shares it.
///
/// From a stored entry of a mapped or embedded pack it is zero-copy (the pack's mapping stays
/// alive while any `AssetBytes` of it does); from a compressed entry, the decompressed bytes;
/// from a loose tree, the file's bytes.
///
/// ```
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let hello: hearth::AssetBytes = pak.load("hello.txt")?;
/// let long: hearth::AssetBytes = pak.load("notes/long.txt")?;
/// drop(pak); // both outlive the reader
/// assert!(hello.is_shared_with_pack()); // stored: the pack's own bytes, no copy
/// assert!(!long.is_shared_with_pack()); // zstd: decompressed once, at the load
/// assert_eq!(long.len(), 6000);
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Clone)]
pub struct AssetBytes {
    storage: Arc<Storage>,
}

impl AssetBytes {
    /// Owns `bytes`.
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        Self::new(Storage::Heap(bytes))
    }

    /// Shares static `bytes` (no copy).
    pub fn from_static(bytes: &'static [u8]) -> Self {
        Self::new(Storage::Static(bytes))
    }

    /// `len` bytes of a pack's backing from `start`, shared without a copy.
    pub(crate) fn from_pack(backing: &Arc<Backing>, start: usize, len: usize) -> Self {
        match &**backing {
            Backing::Static(bytes) => Self::from_static(&bytes[start..start + len]),
            _ => Self::new(Storage::Pack {
                backing: Arc::clone(backing),
                start,
                len,
            }),
        }
    }

    pub(crate) fn from_storage(storage: Arc<Storage>) -> Self {
        Self { storage }
    }

    pub(crate) fn into_storage(self) -> Arc<Storage> {
        self.storage
    }

    fn new(storage: Storage) -> Self {
        Self {
            storage: Arc::new(storage),
        }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.storage.as_slice()
    }

    /// Whether the bytes are the pack's own (a stored entry of a mapped or embedded pack),
    /// not a copy.
    pub fn is_shared_with_pack(&self) -> bool {
        matches!(*self.storage, Storage::Static(_) | Storage::Pack { .. })
    }
}

impl std::ops::Deref for AssetBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for AssetBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl std::fmt::Debug for AssetBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AssetBytes")
            .field("len", &self.len())
            .field("shared_with_pack", &self.is_shared_with_pack())
            .finish()
    }
}

/// A type that a reader's `load` calls build from an asset's bytes: [`AssetBytes`] itself
/// and the typed assets of this module.
///
/// ```
/// use hearth::{AssetBytes, LoadAsset, ReadError};
///
/// /// A game's own asset: a level, here a UTF-8 text file.
/// struct Level {
///     text: String,
/// }
///
/// impl LoadAsset for Level {
///     fn from_asset(_path: &str, bytes: AssetBytes) -> Result<Self, ReadError> {
///         let text = std::str::from_utf8(&bytes)
///             .map_err(|_| ReadError::Invalid { what: "level (not UTF-8)" })?;
///         Ok(Level { text: text.to_owned() })
///     }
/// }
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let level: Level = pak.load("hello.txt")?; // and `load_by_hash`, `load_by_name`
/// assert!(level.text.starts_with("hello"));
/// # Ok::<(), hearth::ReadError>(())
/// ```
pub trait LoadAsset: Sized {
    /// The kind a load by name picks when several kinds share the name (a model's mesh,
    /// material table and clips are all `Chair`); `None`: the name's first row.
    const KIND: Option<AssetKind> = None;

    /// Builds the asset from the bytes at runtime path `path`, validating them. Errors need
    /// not name the asset: the reader's `load` wraps them in [`ReadError::Asset`].
    fn from_asset(path: &str, bytes: AssetBytes) -> Result<Self, ReadError>;
}

impl LoadAsset for AssetBytes {
    fn from_asset(_path: &str, bytes: AssetBytes) -> Result<Self, ReadError> {
        Ok(bytes)
    }
}

/// A view held next to the bytes it borrows.
pub(crate) type Held<V> = Yoke<V, Arc<Storage>>;

/// Defines an owned typed asset over a view type that borrows its bytes.
macro_rules! owned_view {
    ($(#[$doc:meta])* $name:ident, $wrapper:ident, $view:ident, $parse:expr, $kind:expr) => {
        /// The view, as `Yoke` needs it: a type whose lifetime it can prove covariant.
        #[derive(yoke::Yokeable, Clone)]
        struct $wrapper<'a>($view<'a>);

        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            held: $crate::read::asset::Held<$wrapper<'static>>,
            path: std::sync::Arc<str>,
        }

        impl $name {
            /// The validated view (validated once, when the asset loaded).
            pub fn view(&self) -> &$view<'_> {
                &self.held.get().0
            }

            /// The runtime path it was loaded from (empty when built from bare bytes).
            pub fn path(&self) -> &str {
                &self.path
            }

            /// Its bytes, shared.
            pub fn bytes(&self) -> $crate::AssetBytes {
                $crate::read::asset::AssetBytes::from_storage(std::sync::Arc::clone(
                    self.held.backing_cart(),
                ))
            }

            /// Validates `bytes` (the asset's whole file) and keeps them.
            pub fn from_bytes(bytes: $crate::AssetBytes) -> Result<Self, $crate::ReadError> {
                <Self as $crate::read::asset::LoadAsset>::from_asset("", bytes)
            }
        }

        impl $crate::read::asset::LoadAsset for $name {
            const KIND: Option<$crate::AssetKind> = Some($kind);

            fn from_asset(
                path: &str,
                bytes: $crate::AssetBytes,
            ) -> Result<Self, $crate::ReadError> {
                let storage = bytes.into_storage();
                let held = yoke::Yoke::try_attach_to_cart(storage, |storage: &$crate::read::asset::Storage| {
                    $parse(storage.as_slice()).map($wrapper)
                })?;
                Ok(Self {
                    held,
                    path: path.into(),
                })
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("path", &self.path)
                    .field("len", &self.bytes().len())
                    .finish()
            }
        }
    };
}
pub(crate) use owned_view;

/// What a typed load reads from: a pack, a loose tree, either ([`Assets`](crate::Assets)), or
/// a hot-reloaded pack's current generation. Implemented by the readers; a game calls their
/// `load*` methods, or [`Model::load`](crate::Model::load) with any of them.
///
/// ```
/// use hearth::{AssetSource, ReadError};
///
/// /// A text file from any reader: a pack, a tree, `Assets`, a hot-reloaded pack.
/// fn read_text(source: &impl AssetSource, path: &str) -> Result<Option<String>, ReadError> {
///     let bytes = source.asset_bytes(path)?;
///     Ok(bytes.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
/// }
/// # let game_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
/// let pak = hearth::PakReader::open(game_hpack)?;
/// let text = read_text(&pak, "hello.txt")?;
/// assert_eq!(text.as_deref(), Some("hello from the fixture pack\n"));
/// let hash = hearth::hash_runtime_path("hello.txt");
/// assert_eq!(pak.path_of_hash(hash)?.as_deref(), Some("hello.txt"));
/// # Ok::<(), hearth::ReadError>(())
/// ```
pub trait AssetSource {
    /// The bytes at runtime path `path`, owned (`None` when there is no such asset).
    fn asset_bytes(&self, path: &str) -> Result<Option<AssetBytes>, ReadError>;

    /// The runtime path of the asset whose hash is `hash`.
    fn path_of_hash(&self, hash: u64) -> Result<Option<String>, ReadError>;

    /// The name table (`assets.hnames`; empty for a source baked before names existed).
    fn names(&self) -> Result<NameTable<'_>, ReadError> {
        Ok(NameTable::empty())
    }

    /// The name-table row named `name` of `kind` (any kind when `None`), which `load_by_name`
    /// loads: from [`names`](Self::names) unless the source has more than one table (a
    /// layered mount looks through each layer's).
    fn lookup_name_of_kind(
        &self,
        name: &str,
        kind: Option<AssetKind>,
    ) -> Result<Option<NameRecord>, ReadError> {
        let table = self.names().map_err(named(name))?;
        let row = match kind {
            Some(kind) => table.lookup_kind(name, kind),
            None => table.lookup(name),
        };
        Ok(row.map(NameRecord::from))
    }
}

/// The typed loads of a source, `load`, `load_by_hash` and `load_by_name`, written once for
/// every reader as inherent methods, so that a game calls them without importing
/// [`AssetSource`]. Expanded inside each reader's `impl` block.
macro_rules! typed_loads {
    () => {
        /// The asset at runtime path `path`, owned and typed: [`AssetBytes`](crate::AssetBytes),
        /// or a validated [`Mesh`](crate::Mesh), [`Materials`](crate::Materials),
        /// [`Texture`](crate::Texture), [`Font`](crate::Font), [`Scene`](crate::Scene),
        /// [`Animations`](crate::Animations). A pack's stored entry is shared with the pack (no
        /// copy), a compressed one decompressed once. A missing asset is
        /// [`ReadError::NotFound`](crate::ReadError::NotFound); any other error names the asset
        /// ([`ReadError::Asset`](crate::ReadError::Asset)).
        ///
        /// ```
        /// let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny.hpack");
        /// let pak = hearth::PakReader::open(fixture)?;
        /// let hello: hearth::AssetBytes = pak.load("hello.txt")?;
        /// assert!(hello.is_shared_with_pack());
        /// assert!(matches!(
        ///     pak.load::<hearth::AssetBytes>("absent.txt"),
        ///     Err(hearth::ReadError::NotFound { .. })
        /// ));
        /// # Ok::<(), hearth::ReadError>(())
        /// ```
        pub fn load<T: crate::read::asset::LoadAsset>(
            &self,
            path: &str,
        ) -> Result<T, crate::ReadError> {
            crate::read::asset::load(self, path)
        }

        /// [`load`](Self::load) by asset hash (through `assets.hman`).
        pub fn load_by_hash<T: crate::read::asset::LoadAsset>(
            &self,
            hash: u64,
        ) -> Result<T, crate::ReadError> {
            crate::read::asset::load_by_hash(self, hash)
        }

        /// [`load`](Self::load) by name (`assets.hnames`): the row of `T`'s kind, so
        /// `load_by_name::<Mesh>("Chair")` and `load_by_name::<Materials>("Chair")` pick the
        /// model's `.hmesh` and `.hmat`; a sub-asset's name (`Chair#wood`) loads its file.
        /// Errors name `name`.
        pub fn load_by_name<T: crate::read::asset::LoadAsset>(
            &self,
            name: &str,
        ) -> Result<T, crate::ReadError> {
            crate::read::asset::load_by_name(self, name)
        }
    };
}
pub(crate) use typed_loads;

/// `source.load::<T>(path)`.
pub(crate) fn load<T: LoadAsset>(source: &impl AssetSource, path: &str) -> Result<T, ReadError> {
    load_from(path, source.asset_bytes(path))
}

/// `source.load_by_hash::<T>(hash)`.
pub(crate) fn load_by_hash<T: LoadAsset>(
    source: &impl AssetSource,
    hash: u64,
) -> Result<T, ReadError> {
    let hex = || format!("{hash:016x}");
    let path = source
        .path_of_hash(hash)
        .map_err(|e| in_asset(&hex(), e))?
        .ok_or_else(|| ReadError::NotFound {
            asset: hex().into(),
        })?;
    load(source, &path)
}

/// `source.load_by_name::<T>(name)`: the row of `T`'s kind named `name` (any kind when `T`
/// has none), then its file.
pub(crate) fn load_by_name<T: LoadAsset>(
    source: &impl AssetSource,
    name: &str,
) -> Result<T, ReadError> {
    let row = source
        .lookup_name_of_kind(name, T::KIND)?
        .ok_or_else(|| ReadError::NotFound { asset: name.into() })?;
    load(source, &row.path).map_err(named(name))
}

/// Wraps an error about the asset at `path` so that it names it.
pub(crate) fn in_asset(path: &str, error: ReadError) -> ReadError {
    match error {
        already @ (ReadError::Asset { .. }
        | ReadError::NotFound { .. }
        | ReadError::Named { .. }) => already,
        error => ReadError::Asset {
            asset: path.into(),
            error: Arc::new(error),
        },
    }
}

/// Builds `T` from the bytes at `path`, naming the asset in any error.
pub(crate) fn load_from<T: LoadAsset>(
    path: &str,
    bytes: Result<Option<AssetBytes>, ReadError>,
) -> Result<T, ReadError> {
    let bytes = bytes
        .map_err(|e| in_asset(path, e))?
        .ok_or_else(|| ReadError::NotFound { asset: path.into() })?;
    T::from_asset(path, bytes).map_err(|e| in_asset(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Animations, Font, Materials, Mesh, Scene, Texture};

    fn assert_send_sync_static<T: Send + Sync + 'static>() {}

    #[test]
    fn every_owned_asset_is_send_sync_static() {
        assert_send_sync_static::<AssetBytes>();
        assert_send_sync_static::<Mesh>();
        assert_send_sync_static::<Materials>();
        assert_send_sync_static::<Animations>();
        assert_send_sync_static::<Texture>();
        assert_send_sync_static::<Font>();
        assert_send_sync_static::<Scene>();
    }
}
