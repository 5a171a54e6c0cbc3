//! pak's asset files: a `.toml` whose one top-level table is an asset kind names what to bake
//! and how (`../shared/reference/pak-crate.txt`; keys kebab-case, as pak 0.7.6 spells them).
//!
//! - `[blob]` → the file `src` names, as it is, at the TOML's path without `.toml`
//!   (`payload.toml` → `payload`).
//! - `[bitmap]` → `<name>.ktx2` (the texture encoder; pak's keys and hearth's).
//! - `[bitmap-font]` → `<name>.hfont` and its pages (the bitmap-font pipeline).
//! - `[scene]` → `<name>.hscene` ([`crate::format::hscene`]).
//! - `[material]` → `<name>.hmat` (one row) and its textures; assetc's `*.mat` files too
//!   ([`StandaloneMaterial`]).
//! - `[mesh]` → `<name>.hmesh` and its companions (the model pipeline; pak's keys).
//! - `[animation]` → `<name>.hanim` (one clip of a skinned glTF).
//! - Any other `.toml` is a blob, as before; but one that declares one of these tables and is
//!   not valid TOML is an error giving the line.
//!
//! `src` is relative to the TOML file, or to the content root when it starts with `/`;
//! without `src`, the file of the same name (`chair.toml` → `chair`). What `src` names is a
//! side input of the asset (cache, rerun-if-changed, watch).

mod bitmap;
mod material;
mod model;
mod scene;

use crate::bake::blob;
use crate::bake::font::{self, FontSettings};
use crate::bake::pipeline::{BakeContext, Claim, Output, Pipeline, PipelineError, Source};
use crate::bake::toml_depth::{line_of, parse_toml};

/// pak's asset kinds, as top-level table names.
const KINDS: [&str; 7] = [
    "blob",
    "bitmap",
    "bitmap-font",
    "material",
    "scene",
    "mesh",
    "animation",
];

/// `*.toml` → by its top-level table (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct AssetFile;

/// `asset-file = { … }` reads no settings; fonts take the `font` table.
#[derive(Debug, Clone, Copy, Default, serde::Deserialize)]
pub struct AssetFileSettings {}

impl Pipeline for AssetFile {
    type Settings = AssetFileSettings;

    fn name(&self) -> &str {
        "asset-file"
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
    fn names_dependencies(&self) -> bool {
        true
    }
    fn dependencies(&self, source_rel: &str, bytes: &[u8]) -> Vec<String> {
        // A broken asset file names nothing; its bake reports why.
        let Ok(Some((kind, body))) = asset_table(bytes) else {
            return Vec::new();
        };
        match kind.as_str() {
            "scene" => scene::dependencies(source_rel, &body),
            "material" => material::dependencies(source_rel, &body),
            _ => Vec::new(),
        }
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &AssetFileSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let as_blob = |cx: &mut BakeContext<'_>| {
            cx.emit(Output::new(
                source.rel(),
                blob::kind_of(source.rel()),
                source.bytes().to_vec(),
            ));
            Ok(())
        };
        let Some((kind, body)) = asset_table(source.bytes())? else {
            return as_blob(cx);
        };
        let (kind, body) = (kind.as_str(), &body);
        let name = source.rel().strip_suffix(".toml").unwrap_or(source.rel());
        match kind {
            "blob" => {
                let (read_path, _) = named_source(source.rel(), body)?;
                let bytes = cx.read(&read_path)?;
                cx.emit(Output::new(name, blob::kind_of(name), bytes));
            }
            "bitmap-font" => {
                let (read_path, _) = named_source(source.rel(), body)?;
                let descriptor = cx.read(&read_path)?;
                let pages_dir = match read_path.rfind('/') {
                    Some(slash) => &read_path[..=slash],
                    None => "",
                };
                let settings: FontSettings = cx.settings("font")?;
                font::bake_descriptor(&descriptor, pages_dir, name, &settings, cx)?;
            }
            "bitmap" => bitmap::bake(source.rel(), name, body, cx)?,
            "material" => material::bake(source.rel(), name, body, cx)?,
            "scene" => scene::bake(source.rel(), name, body, cx)?,
            "mesh" => model::bake_mesh(source.rel(), name, body, cx)?,
            "animation" => model::bake_animation(source.rel(), name, body, cx)?,
            _ => unreachable!("kinds checked above"),
        }
        Ok(())
    }
}

/// The kind and table of an asset file: a TOML whose one top-level table is one of pak's
/// kinds; `None` for anything else (a blob). A TOML that does not parse is someone's data,
/// unless it declares one of pak's tables (a `[bitmap]`, `[[scene.ref]]` header line): then it
/// is a broken asset file, and the error gives the line and TOML's message.
fn asset_table(bytes: &[u8]) -> Result<Option<(String, toml::Table)>, String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(None);
    };
    let table = match parse_toml(text) {
        Ok(table) => table,
        Err((message, offset)) => {
            let Some((header_line, kind)) = asset_table_header(text) else {
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
        (1, Some((kind, toml::Value::Table(body)))) if KINDS.contains(&kind.as_str()) => {
            Some((kind, body))
        }
        _ => None,
    })
}

/// The first header line (1-based) of a table of one of pak's kinds (`[bitmap]`, `[ scene ]`,
/// `[[scene.ref]]`, `["material"]`), and the kind: a line-by-line scan for text TOML refused.
fn asset_table_header(text: &str) -> Option<(usize, &'static str)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let header = line.trim_start().strip_prefix('[')?;
        let header = header.strip_prefix('[').unwrap_or(header);
        let first_key = header.split(['.', ']']).next()?.trim();
        let first_key = first_key.trim_matches(['"', '\'']);
        KINDS
            .iter()
            .find(|kind| **kind == first_key)
            .map(|kind| (i + 1, *kind))
    })
}

/// assetc's standalone materials: `*.mat`, TOML with the `[material]` schema (its keys at the
/// top level, or in one `[material]` table) → `<name>.hmat`.
#[derive(Debug, Clone, Copy, Default)]
pub struct StandaloneMaterial;

impl Pipeline for StandaloneMaterial {
    type Settings = AssetFileSettings;

    fn name(&self) -> &str {
        "material"
    }
    fn version(&self) -> u32 {
        // 2: height and transmission kept (`.hmat` v2), no longer dropped.
        2
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.mat")]
    }
    fn settings_table(&self) -> &str {
        "asset-file"
    }
    fn names_dependencies(&self) -> bool {
        true
    }
    fn dependencies(&self, source_rel: &str, bytes: &[u8]) -> Vec<String> {
        match std::str::from_utf8(bytes).map(parse_toml) {
            Ok(Ok(table)) => material::dependencies(source_rel, &material_body(table)),
            _ => Vec::new(),
        }
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &AssetFileSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let text =
            std::str::from_utf8(source.bytes()).map_err(|e| format!("not UTF-8 text: {e}"))?;
        let table = parse_toml(text).map_err(|(message, offset)| match offset {
            Some(offset) => format!("line {}: not TOML: {message}", line_of(text, offset)),
            None => format!("not TOML: {message}"),
        })?;
        material::bake(source.rel(), source.stem(), &material_body(table), cx)?;
        Ok(())
    }
}

/// A `.mat` file's material keys: at the top level, or in its one `[material]` table.
fn material_body(table: toml::Table) -> toml::Table {
    match table.get("material") {
        Some(toml::Value::Table(body)) if table.len() == 1 => body.clone(),
        _ => table,
    }
}

/// `src` of an asset file (or the TOML's own name without `.toml`): the path to read, relative
/// to the TOML's folder, and the same file relative to the content root.
fn named_source(toml_rel: &str, body: &toml::Table) -> Result<(String, String), String> {
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
    use super::{asset_table, resolve};

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
