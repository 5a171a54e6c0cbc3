//! The hearth guide: one page per topic, from a first bake to the byte layouts.
//!
//! The pages are the repository's `docs/*.md` files, so the same text reads on docs.rs and on
//! GitHub. Their Rust examples compile as doc-tests (with the `bake` feature, as the README's
//! test command `cargo test --workspace --all-features` builds them).
//!
//! **Making a game's content**
//!
//! - [`baking`]: the `build.rs` recipe, baking from code, what a bake writes (runtime tree,
//!   `assets.hman`, `.hpack`, cache) and what it may read.
//! - [`manifest`]: the manifest reference: content groups, presets, settings layers, globs,
//!   asset refs and hashes.
//! - [`textures`]: images, cubemaps, arrays and LUTs to KTX2: UASTC, GPU block formats, raw.
//! - [`meshes`]: glTF, GLB and OBJ models to `.hmesh`, `.hmat` and `.hanim`.
//! - [`usd`]: USD layers (`.usda`, `.usdc`, `.usd`, `.usdz`) as models.
//! - [`asset_files`]: pak's asset files (`[blob]`, `[bitmap]`, `[scene]`, `[material]`,
//!   `[mesh]`, `[animation]`, `[bitmap-font]`).
//! - [`fonts_scenes_shaders`]: bitmap fonts, scenes and shaders.
//! - [`writing_a_pipeline`]: a game's own asset kinds.
//!
//! **Working with it**
//!
//! - [`reading`]: reading assets at run time: the readers, `get`/`find`/`load`, owned typed
//!   assets, a model in one call.
//! - [`names`]: readable asset names (`Rock^a`, `Fox#Survey`), their rules and their table.
//! - [`working_loop`]: `hearth watch`, hot reload, previews, the bake report and the CLI.
//! - [`shared_cache`]: one bake cache for every checkout, teammate and CI runner.
//! - [`signed_packs`]: packs a game can trust (mods, DLC, patches).
//! - [`shipping`]: shipping packs, streaming texture mips, patches and DLC (layered mounting).
//!
//! **Reference**
//!
//! - [`formats`]: every byte layout (`.hmesh`, `.hmat`, `.hanim`, `.hfont`, `.hscene`,
//!   `assets.hman`, `.hpack` v2 to v5, `assets.hpatch`) and the asset kinds.
//! - [`figures`]: build times, bake and read speeds, measured.
//! - [`layout`]: how the code is laid out.
//!
//! To read this guide and the API docs locally with every feature, run
//! `cargo doc --all-features --no-deps --open` in a checkout of hearth (a game crate cannot
//! pass features to a dependency's `cargo doc`).

// A build.rs example needs its `fn main`.
#[allow(clippy::needless_doctest_main)]
#[doc = include_str!("../docs/baking.md")]
pub mod baking {}

#[doc = include_str!("../docs/manifest.md")]
pub mod manifest {}

#[doc = include_str!("../docs/textures.md")]
pub mod textures {}

#[doc = include_str!("../docs/meshes.md")]
pub mod meshes {}

#[doc = include_str!("../docs/usd.md")]
pub mod usd {}

#[doc = include_str!("../docs/asset-files.md")]
pub mod asset_files {}

#[doc = include_str!("../docs/fonts-scenes-shaders.md")]
pub mod fonts_scenes_shaders {}

#[doc = include_str!("../docs/writing-a-pipeline.md")]
pub mod writing_a_pipeline {}

#[doc = include_str!("../docs/working-loop.md")]
pub mod working_loop {}

#[doc = include_str!("../docs/reading.md")]
pub mod reading {}

#[doc = include_str!("../docs/names.md")]
pub mod names {}

#[doc = include_str!("../docs/shared-cache.md")]
pub mod shared_cache {}

#[doc = include_str!("../docs/signed-packs.md")]
pub mod signed_packs {}

#[doc = include_str!("../docs/shipping.md")]
pub mod shipping {}

#[doc = include_str!("../docs/formats.md")]
pub mod formats {}

#[doc = include_str!("../docs/figures.md")]
pub mod figures {}

#[doc = include_str!("../docs/layout.md")]
pub mod layout {}
