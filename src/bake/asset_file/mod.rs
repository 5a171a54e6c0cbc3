//! pak's asset files: a `.toml` whose one top-level table is an asset kind names what to bake
//! and how (as the `pak` crate 0.7.6 reads them; keys kebab-case, as pak spells them).
//!
//! The table picks the pipeline: each pipeline claims its tables
//! ([`Pipeline::asset_tables`](crate::bake::pipeline::Pipeline::asset_tables)) and bakes the file
//! ([`Pipeline::bake_asset_table`](crate::bake::pipeline::Pipeline::bake_asset_table)); [`AssetFile`] only routes. hearth's own:
//!
//! - `[blob]` → the file `src` names, as it is, at the TOML's path without `.toml`
//!   (`payload.toml` → `payload`; the blob pipeline).
//! - `[bitmap]` → `<name>.ktx2` (the image pipeline; pak's keys and hearth's).
//! - `[bitmap-font]` → `<name>.hfont` and its pages (the bitmap-font pipeline).
//! - `[scene]` → `<name>.hscene` ([`crate::bake::scene`]).
//! - `[material]` → `<name>.hmat` (one row) and its textures; assetc's `*.mat` files too
//!   ([`StandaloneMaterial`]).
//! - `[mesh]` → `<name>.hmesh` and its companions (the model pipeline; pak's keys).
//! - `[animation]` → `<name>.hanim` (one clip of a skinned glTF; the model pipeline).
//! - Any other `.toml` is a blob, as before; but one that declares one of these tables and is
//!   not valid TOML is an error giving the line.
//!
//! `src` is relative to the TOML file, or to the content root when it starts with `/`;
//! without `src`, the file of the same name (`chair.toml` → `chair`). What `src` names is a
//! side input of the asset (cache, rerun-if-changed, watch).

mod material;

pub use material::StandaloneMaterial;

use crate::bake::pipeline::{
    AssetTable, BakeContext, Claim, DynPipeline, Output, PipelineError, Registry, Source,
};
use crate::bake::settings;
use crate::bake::toml_depth::{line_of, parse_toml};
use crate::format::hman::AssetKind;

/// `*.toml` → the pipeline that claims its top-level table (see the module docs), or a blob.
#[derive(Debug, Clone, Copy, Default)]
pub struct AssetFile;

/// `asset-file = { … }` reads no settings; each kind reads its own table.
#[derive(Debug, Clone, Copy, Default, serde::Deserialize)]
pub struct AssetFileSettings {}

impl AssetFile {
    /// The name under which it bakes: the cache key and messages.
    const NAME: &'static str = "asset-file";
}

impl DynPipeline for AssetFile {
    fn name(&self) -> &str {
        Self::NAME
    }
    fn version(&self) -> u32 {
        // 2: `[mesh]` and `[animation]` are baked, no longer kept as blobs.
        // 3: pak's scene conventions (Euler order, tags), materials' height and transmission.
        // 4: `[mesh]` models apply KHR_texture_transform.
        // 5: `[mesh]` models keep morph targets and morph-weight clips.
        5
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.toml")]
    }
    fn settings_table(&self) -> &str {
        Self::NAME
    }
    fn check_table(
        &self,
        value: &toml::Value,
        unknown: &mut dyn FnMut(String),
    ) -> Result<(), String> {
        settings::deserialize_table::<AssetFileSettings>(Some(value), unknown).map(|_| ())
    }
    fn bake_dyn(
        &self,
        registry: &Registry,
        source: &Source<'_>,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let _: AssetFileSettings = cx.settings(Self::NAME)?;
        let tables: Vec<&str> = registry.asset_tables().collect();
        let Some((table, body)) = asset_table(source.bytes(), &tables)? else {
            let rel = source.rel();
            cx.emit(Output::new(
                rel,
                AssetKind::of_opaque_file(rel),
                source.bytes().to_vec(),
            ));
            return Ok(());
        };
        let file = AssetTable {
            rel: source.rel(),
            table: &table,
            body: &body,
        };
        match registry.table_owner(&table) {
            Some(owner) => owner.bake_asset_table_dyn(&file, cx),
            None => unreachable!("asset_table returns claimed tables only"),
        }
    }
    fn names_dependencies(&self) -> bool {
        true
    }
    fn dependencies(&self, registry: &Registry, source_rel: &str, bytes: &[u8]) -> Vec<String> {
        let tables: Vec<&str> = registry.asset_tables().collect();
        // A broken asset file names nothing; its bake reports why.
        let Ok(Some((table, body))) = asset_table(bytes, &tables) else {
            return Vec::new();
        };
        let file = AssetTable {
            rel: source_rel,
            table: &table,
            body: &body,
        };
        registry
            .table_owner(&table)
            .map_or_else(Vec::new, |owner| owner.asset_table_dependencies(&file))
    }
    fn asset_tables(&self) -> &[&str] {
        &[]
    }
    fn bake_asset_table_dyn(
        &self,
        file: &AssetTable<'_>,
        _: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        Err(format!(
            "`[{}]` is not an asset-file table of the router",
            file.table()
        )
        .into())
    }
    fn asset_table_dependencies(&self, _: &AssetTable<'_>) -> Vec<String> {
        Vec::new()
    }
}

/// The table name and body of an asset file: a TOML whose one top-level table is one of
/// `tables` (the ones the pipelines claim); `None` for anything else (a blob). A TOML that
/// does not parse is someone's data, unless it declares one of those tables (a `[bitmap]`,
/// `[[scene.ref]]` header line): then it is a broken asset file, and the error gives the line
/// and TOML's message.
fn asset_table(bytes: &[u8], tables: &[&str]) -> Result<Option<(String, toml::Table)>, String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(None);
    };
    let table = match parse_toml(text) {
        Ok(table) => table,
        Err((message, offset)) => {
            let Some((header_line, kind)) = asset_table_header(text, tables) else {
                return Ok(None);
            };
            let line = offset.map_or(header_line, |offset| line_of(text, offset));
            return Err(format!(
                "line {line}: not valid TOML ({message}), in an asset file that declares \
                 `[{kind}]` on line {header_line}"
            ));
        }
    };
    Ok(match (table.len(), table.into_iter().next()) {
        (1, Some((kind, toml::Value::Table(body)))) if tables.contains(&kind.as_str()) => {
            Some((kind, body))
        }
        _ => None,
    })
}

/// The first header line (1-based) of a claimed table (`[bitmap]`, `[ scene ]`,
/// `[[scene.ref]]`, `["material"]`), and the table: a line-by-line scan for text TOML refused.
fn asset_table_header<'t>(text: &str, tables: &[&'t str]) -> Option<(usize, &'t str)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let header = line.trim_start().strip_prefix('[')?;
        let header = header.strip_prefix('[').unwrap_or(header);
        let first_key = header.split(['.', ']']).next()?.trim();
        let first_key = first_key.trim_matches(['"', '\'']);
        tables
            .iter()
            .find(|table| **table == first_key)
            .map(|table| (i + 1, *table))
    })
}

/// `src` of an asset file (or the TOML's own name without `.toml`): the path to read, relative
/// to the TOML's folder, and the same file relative to the content root.
pub(crate) fn named_source(toml_rel: &str, body: &toml::Table) -> Result<(String, String), String> {
    let src = match body.get("src") {
        None => {
            let name = toml_rel.strip_suffix(".toml").unwrap_or(toml_rel);
            name.rsplit('/').next().unwrap_or(name).to_owned()
        }
        Some(toml::Value::String(src)) if !src.is_empty() => src.clone(),
        Some(other) => return Err(format!("`src` must be a path string, not {other}")),
    };
    resolve(toml_rel, &src)
}

/// `src` of a `[kind]` table, or else the file of the TOML's name with one of `extensions`
/// (`bricks.toml` → `bricks.png`, `.jpg`, …; `chair.glb.toml` → `chair.glb`): the path to read
/// and the same file relative to the content root, as [`resolve`] gives them. The candidates
/// tried are recorded through [`BakeContext::exists`].
pub(crate) fn source_of_kind(
    toml_rel: &str,
    kind: &str,
    body: &toml::Table,
    extensions: &[&str],
    cx: &mut BakeContext<'_>,
) -> Result<(String, String), PipelineError> {
    if let Some(src) = body.get("src") {
        let src = src
            .as_str()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("`{kind}.src` must be a path string"))?;
        return Ok(resolve(toml_rel, src)?);
    }
    let stem = toml_rel.strip_suffix(".toml").unwrap_or(toml_rel);
    let file = stem.rsplit('/').next().unwrap_or(stem);
    let has_extension = |name: &str| {
        name.rsplit_once('.')
            .is_some_and(|(_, ext)| extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
    };
    if has_extension(file) {
        return Ok(resolve(toml_rel, file)?);
    }
    // Each probe is an input of the asset (a candidate that appears later re-bakes it).
    for ext in extensions {
        let candidate = format!("{file}.{ext}");
        if cx.exists(&candidate)? {
            return Ok(resolve(toml_rel, &candidate)?);
        }
    }
    let names: Vec<String> = extensions.iter().map(|e| format!("{file}.{e}")).collect();
    Err(format!("no `src`, and none of {} beside the file", names.join(", ")).into())
}

/// A finite number (a TOML float or integer) for the key at `at`.
pub(crate) fn number(value: &toml::Value, at: &str) -> Result<f32, String> {
    let v = match value {
        toml::Value::Float(f) => *f as f32,
        toml::Value::Integer(i) => *i as f32,
        _ => return Err(format!("`{at}` must be a number")),
    };
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{at}` = {v} is not finite"))
    }
}

/// A path an asset file names (relative to it, or rooted at the content folder with `/`) as
/// (relative to the TOML's folder, relative to the content root); `..` may not climb out.
pub(crate) fn resolve(toml_rel: &str, path: &str) -> Result<(String, String), String> {
    let dir: Vec<&str> = toml_rel.split('/').collect();
    let dir = &dir[..dir.len() - 1];
    let (mut parts, rest): (Vec<&str>, &str) = match path.strip_prefix('/') {
        Some(rooted) => (Vec::new(), rooted),
        None => (dir.to_vec(), path),
    };
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts
                    .pop()
                    .ok_or_else(|| format!("`{path}` leads outside the content folder"))?;
            }
            part => parts.push(part),
        }
    }
    let root_rel = parts.join("/");
    let up = "../".repeat(dir.len());
    Ok((format!("{up}{root_rel}"), root_rel))
}

#[cfg(test)]
mod tests {
    use super::{resolve, Registry};

    fn asset_table(bytes: &[u8]) -> Result<Option<(String, toml::Table)>, String> {
        let registry = Registry::with_builtins();
        let tables: Vec<&str> = registry.asset_tables().collect();
        super::asset_table(bytes, &tables)
    }

    #[test]
    fn broken_toml_declaring_an_asset_table_is_an_error_other_broken_toml_a_blob() {
        let error = asset_table(b"# pak\n[bitmap]\nsrc = 'a.png\ncolor = 'srgb'\n").unwrap_err();
        assert!(
            error.starts_with("line 3: ") && error.contains("`[bitmap]` on line 2"),
            "{error}"
        );
        let error = asset_table(b"[[ scene.ref ]]\nid = \n").unwrap_err();
        assert!(error.contains("`[scene]` on line 1"), "{error}");
        let error = asset_table(b"[\"material\"]\nbase-color = [1.0, \n").unwrap_err();
        assert!(error.contains("`[material]`"), "{error}");
        for data in [
            &b"key = = 1\n"[..],
            b"[bitmaps]\nx = \n",
            b"x = '[bitmap]\n",
            b"\xff[bitmap]",
        ] {
            assert_eq!(
                asset_table(data),
                Ok(None),
                "{:?}",
                String::from_utf8_lossy(data)
            );
        }
        assert!(asset_table(b"[bitmap]\nsrc = 'a.png'\n").unwrap().is_some());
    }

    #[test]
    fn paths_resolve_against_the_toml_or_the_root() {
        let r = |toml: &str, path: &str| resolve(toml, path).unwrap();
        assert_eq!(
            r("a/b/x.toml", "y.bin"),
            ("../../a/b/y.bin".into(), "a/b/y.bin".into())
        );
        assert_eq!(
            r("a/b/x.toml", "../c/y.bin"),
            ("../../a/c/y.bin".into(), "a/c/y.bin".into())
        );
        assert_eq!(
            r("a/x.toml", "/z/y.bin"),
            ("../z/y.bin".into(), "z/y.bin".into())
        );
        assert_eq!(r("x.toml", "y.bin"), ("y.bin".into(), "y.bin".into()));
        assert!(resolve("a/x.toml", "../../y").is_err());
    }
}
