//! The blob pipeline: any file no other pipeline claims, copied as it is into the tree and
//! the pack. Its kind comes from the extension: shaders and fonts are named as such in
//! `assets.hman`, everything else is a blob.

use crate::bake::asset_file::named_source;
use crate::bake::pipeline::{
    AssetTable, BakeContext, Claim, Output, Pipeline, PipelineError, Source,
};
use crate::format::hman::AssetKind;

/// Copies a file unchanged (the fallback: it claims `*`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Blob;

/// The blob pipeline reads no settings (`blob = { … }` would be warned about key by key).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize)]
pub struct BlobSettings {}

impl Pipeline for Blob {
    type Settings = BlobSettings;

    fn name(&self) -> &str {
        "blob"
    }

    fn version(&self) -> u32 {
        1
    }

    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*")]
    }

    fn bake(
        &self,
        source: &Source<'_>,
        _: &BlobSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        cx.emit(Output::new(
            source.rel(),
            AssetKind::of_opaque_file(source.rel()),
            source.bytes().to_vec(),
        ));
        Ok(())
    }

    fn asset_tables(&self) -> &[&str] {
        &["blob"]
    }

    /// pak's `[blob]` asset files: the file `src` names, as it is, at the TOML's path without
    /// `.toml`.
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        _: &BlobSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let (read_path, _) = named_source(file.rel(), file.body())?;
        let bytes = cx.read(&read_path)?;
        cx.emit(Output::new(
            file.name(),
            AssetKind::of_opaque_file(file.name()),
            bytes,
        ));
        Ok(())
    }
}
