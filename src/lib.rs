//! hearth bakes game assets at build time and reads them back at run time.
//!
//! **Build time** (feature `bake`): a game's `build.rs` bakes the content its TOML manifest
//! lists into a runtime tree, an `assets.hman` manifest and one `.hpack`:
//!
//! ```no_run
//! # #[cfg(feature = "bake")]
//! // in build.rs
//! hearth::bake::cargo::bake("assets/hearth.toml");
//! ```
//!
//! **Run time** (default features, no encoders): open the pack, or embed it with
//! [`include_pak!`], and read entries by path or by 64-bit asset hash:
//!
//! ```
//! let pak = hearth::include_pak!("../tests/fixtures/tiny.hpack")?;
//! let hello = pak.get("hello.txt")?.expect("in the pack");
//! assert_eq!(&*hello, b"hello from the fixture pack\n");
//! let hash = hearth::hash_asset_ref("notes/long.txt");
//! assert_eq!(&*pak.resolve(hash)?.unwrap().path, "notes/long.txt");
//! assert_eq!(pak.get_by_hash(hash)?.unwrap().len(), 6000); // zstd in the pack
//! # Ok::<(), hearth::ReadError>(())
//! ```
//!
//! A game's `main` usually opens its pack with [`load_pak!`], which maps the pack from disk
//! in a debug build (a re-bake needs no recompile) and embeds it in a release build, and
//! reads a whole model (mesh, material table, textures, clips) with [`Model::load`]:
//!
//! ```no_run
//! # // build.rs sets HEARTH_PACK for the game; in this doc-test a path stands in for it.
//! # macro_rules! env { ($name:literal) => { "assets.hpack" } }
//! let pak = hearth::load_pak!(env!("HEARTH_PACK"))?;
//! let model = hearth::Model::load(&pak, "models/chair.hmesh")?;
//! println!("{} vertices", model.mesh.view().vertex_count());
//! for part in &model.submeshes {
//!     let Some(material) = &part.material else { continue };
//!     if let Some(base) = &material.base_color {
//!         println!("{}: base colour {}", material.name, base.path);
//!     }
//! }
//! # Ok::<(), hearth::ReadError>(())
//! ```
//!
//! Environment variables read: by the baker, `NUM_JOBS` (thread count when none is set); in
//! build-script mode also `CARGO_MANIFEST_DIR`, `OUT_DIR`, `PROFILE`,
//! `CARGO_PKG_RUST_VERSION`, `HEARTH_PRESET`, `HEARTH_OUT_DIR` and the variable passed to
//! `CargoBake::sign_from_env` (see [`bake::cargo`]); where the shared bake cache is on
//! (`hearth bake`, build scripts), `HEARTH_CACHE_DIR` (else `XDG_CACHE_HOME` or `HOME`;
//! `LOCALAPPDATA` on Windows), `HEARTH_CACHE_URL`, `HEARTH_CACHE_MODE` and the remote store's
//! own credentials ([`guide::shared_cache`]). The reader reads none.
//!
//! **The [guide]** has the rest, one page per topic: the build.rs recipe
//! ([`guide::baking`]), the manifest reference ([`guide::manifest`]), textures, meshes and
//! the other asset kinds, the working loop (watch, hot reload, previews, the CLI), the shared
//! bake cache, signed packs, shipping, and every byte layout ([`guide::formats`]).
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// Every hearth format is little-endian, and the zero-copy views cast file bytes directly.
#[cfg(not(target_endian = "little"))]
compile_error!("hearth supports little-endian targets only");

pub mod format;
pub mod read;

// Its Rust examples bake, so a doc-test run without `bake` leaves the guide out (as it does
// the README's).
#[cfg(any(not(doctest), feature = "bake"))]
pub mod guide;

#[cfg(feature = "bake")]
#[cfg_attr(docsrs, doc(cfg(feature = "bake")))]
pub mod bake;

#[cfg(feature = "render")]
#[cfg_attr(docsrs, doc(cfg(feature = "render")))]
pub mod render;

#[cfg(feature = "export")]
#[cfg_attr(docsrs, doc(cfg(feature = "export")))]
pub mod export;

/// The README's Rust examples that are not marked `ignore` compile (and `no_run` ones are not
/// run) as doc-tests.
#[cfg(all(doctest, feature = "bake"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use format::hash::{hash_asset_ref, hash_runtime_path};
pub use format::hman::{AssetKind, ColorSpace};
pub use format::hmat::{AlphaMode, GpuMaterial, MaterialProperty};
pub use format::hmesh::{GpuSkinVertex, GpuVertex, MeshBounds, MeshDesc, SubMesh};
pub use format::hpack::Codec;
pub use read::aligned::AlignedBytes;
pub use read::animation::{AnimClips, Animations};
pub use read::asset::{AssetBytes, AssetSource, LoadAsset};
pub use read::assets::{AssetInfo, Assets, TreeReader};
pub use read::error::ReadError;
pub use read::font::{Font, FontView};
pub use read::ktx2::{Ktx2, MipLevel, Texture, TextureStream};
pub use read::layers::LayeredPak;
pub use read::material::{MaterialTable, Materials, TextureUv};
pub use read::mesh::{Mesh, MeshView, ShadowGeometry};
pub use read::model::{Model, ModelMaterial, ModelSubmesh, ModelTexture};
pub use read::names::{NameRecord, NameTable, Names};
pub use read::pak::{Entry, Limits, ManifestRecord, PakReader};
pub use read::scene::{Scene, SceneView};
#[cfg(feature = "verify")]
pub use read::signed::PublicKey;
