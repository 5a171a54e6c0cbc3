//! Inspection and integrity checks of packs and runtime trees, for tools (`hearth info`,
//! `hearth check`, `hearth pack info`).

use crate::format::hash::hash_runtime_path;
use crate::format::hman::{self, AssetKind, MANIFEST_PATH};
use crate::format::hpack;
use crate::read::error::ReadError;
use crate::read::pak::PakReader;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a pack's bytes go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackLayout {
    /// Header bytes.
    pub header: u64,
    /// Table bytes: v2 TOC, or v3/v4 entry table + directory table + hash index.
    pub tables: u64,
    /// v3/v4 string table bytes (v2 keeps paths in its TOC).
    pub strings: u64,
    /// Stored payload bytes.
    pub payload: u64,
    /// v5: the entry digest table and the signature block.
    pub signature: u64,
    /// Alignment padding bytes.
    pub padding: u64,
    /// Uncompressed payload bytes.
    pub uncompressed: u64,
    /// Per kind ([`Entry::kind`](crate::Entry::kind), mapped for v2/v3): (entries,
    /// uncompressed bytes, stored bytes).
    pub per_kind: BTreeMap<AssetKind, (usize, u64, u64)>,
}

/// Breaks a pack down by region and by kind. Fails on the first invalid entry.
pub fn pack_layout(pak: &PakReader) -> Result<PackLayout, ReadError> {
    let mut layout = PackLayout::default();
    match pak.v3_header() {
        Some(h) => {
            layout.header = hpack::V3_HEADER_SIZE as u64;
            layout.tables = h.strings_offset.saturating_sub(h.entries_offset);
            layout.strings = h.strings_size;
            if pak.is_signed() {
                layout.signature =
                    (pak.len() * hpack::V5_DIGEST_SIZE + hpack::V5_SIGNATURE_SIZE) as u64;
            }
        }
        None => {
            layout.header = hpack::V2_HEADER_SIZE as u64;
            layout.tables = pak
                .bytes()
                .get(16..24)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes);
        }
    }
    for entry in pak.entries() {
        let entry = entry?;
        layout.payload = layout.payload.saturating_add(entry.stored_size());
        layout.uncompressed = layout.uncompressed.saturating_add(entry.size());
        let row = layout.per_kind.entry(entry.kind()).or_default();
        row.0 += 1;
        row.1 = row.1.saturating_add(entry.size());
        row.2 = row.2.saturating_add(entry.stored_size());
    }
    // Saturating: entries of a damaged pack may overlap, claiming more payload than the file.
    layout.padding = (pak.bytes().len() as u64)
        .saturating_sub(layout.header)
        .saturating_sub(layout.tables)
        .saturating_sub(layout.strings)
        .saturating_sub(layout.payload)
        .saturating_sub(layout.signature);
    Ok(layout)
}

/// The kind of a runtime file guessed from its path, for files no `assets.hman` row names:
/// `.ktx2` texture (`.lut.ktx2` LUT), `.hmesh` mesh, `.hmat` material, `.hanim` animation,
/// `.hman` manifest, `.spv .wgsl .glsl .hlsl` shader, `.ttf .otf .fnt` font, anything else blob.
/// The same extensions the baker gives these kinds.
pub fn kind_from_path(path: &str) -> AssetKind {
    let lower = path.to_ascii_lowercase();
    let extension = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match extension {
        "ktx2" if lower.ends_with(".lut.ktx2") => AssetKind::LUT,
        "ktx2" => AssetKind::TEXTURE,
        "hmesh" => AssetKind::MESH,
        "hmat" => AssetKind::MATERIAL,
        "hanim" => AssetKind::ANIMATION,
        "hman" => AssetKind::MANIFEST,
        "spv" | "wgsl" | "glsl" | "hlsl" => AssetKind::SHADER,
        "ttf" | "otf" | "fnt" | "hfont" => AssetKind::FONT,
        "hscene" => AssetKind::SCENE,
        _ => AssetKind::BLOB,
    }
}

/// The kind of each file an output folder's `assets.hman` lists, by runtime path (empty when
/// the folder has no readable manifest).
pub fn manifest_kinds(root: &Path) -> BTreeMap<String, AssetKind> {
    let Ok(bytes) = std::fs::read(root.join(MANIFEST_PATH)) else {
        return BTreeMap::new();
    };
    hman::parse(&bytes)
        .map(|rows| {
            rows.iter()
                .map(|row| (row.path.to_owned(), row.kind))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether [`file_counts`] reports anything for `kind` (so a tool need not read other files).
pub fn has_counts(kind: AssetKind) -> bool {
    matches!(
        kind,
        AssetKind::TEXTURE
            | AssetKind::LUT
            | AssetKind::MESH
            | AssetKind::MATERIAL
            | AssetKind::ANIMATION
            | AssetKind::MANIFEST
            | AssetKind::SHADER
            | AssetKind::FONT
            | AssetKind::SCENE
    )
}

/// The numbers a tool reports for a baked file of `kind`, by name, parsed the way the runtime
/// reads the file:
///
/// - texture, LUT: `width`, `height`, `depth`, `levels`, `layers`, `faces`, `vk_format` (0 for
///   UASTC);
/// - mesh: `vertices`, `indices`, `triangles`, `submeshes`, `meshlets`, `materials`, `joints`,
///   `lods`, `shadow_vertices` (0 without a `SHDW` chunk), `uv_sets` (1, or 2 with `UVS1`),
///   `colors` (1 with `COLR`, else 0);
/// - material table: `materials`;
/// - animation: `clips`, `channels`;
/// - manifest: `entries`;
/// - font: for `.hfont`, `glyphs`, `pages`, `kernings`; for other fonts (TTF), none;
/// - scene: `refs`, `geometry`;
/// - shader: for SPIR-V, `stages` (distinct execution models) and `entry_points`; for text
///   shaders (WGSL, GLSL), none;
/// - every other kind: none (an empty list).
pub fn file_counts(kind: AssetKind, bytes: &[u8]) -> Result<Vec<(&'static str, u64)>, ReadError> {
    Ok(match kind {
        AssetKind::TEXTURE | AssetKind::LUT => {
            let ktx = crate::read::ktx2::Ktx2::parse(bytes)?;
            vec![
                ("width", ktx.width().into()),
                ("height", ktx.height().into()),
                ("depth", ktx.depth().into()),
                ("levels", ktx.level_count().into()),
                ("layers", ktx.layers().into()),
                ("faces", ktx.faces().into()),
                ("vk_format", ktx.vk_format().into()),
            ]
        }
        AssetKind::MESH => {
            let mesh = crate::read::mesh::MeshView::parse(bytes)?;
            let d = &mesh.desc;
            vec![
                ("vertices", d.vertex_count.into()),
                ("indices", d.index_count.into()),
                ("triangles", (d.index_count / 3).into()),
                ("submeshes", d.submesh_count.into()),
                ("meshlets", d.meshlet_count.into()),
                ("materials", d.material_count.into()),
                (
                    "joints",
                    mesh.skeleton.as_ref().map_or(0, |s| s.len() as u64),
                ),
                (
                    "lods",
                    mesh.lods.as_ref().map_or(0, |l| l.header.lod_count.into()),
                ),
                (
                    "shadow_vertices",
                    mesh.shadow.as_ref().map_or(0, |s| s.positions.len() as u64),
                ),
                ("uv_sets", 1 + u64::from(mesh.uvs1.is_some())),
                ("colors", u64::from(mesh.colors.is_some())),
                (
                    "morph_targets",
                    mesh.morph_targets
                        .as_ref()
                        .map_or(0, |m| m.targets.len() as u64),
                ),
            ]
        }
        AssetKind::MATERIAL => {
            let table = crate::read::mesh::MaterialTable::parse(bytes)?;
            vec![("materials", table.rows.len() as u64)]
        }
        AssetKind::ANIMATION => {
            let clips = crate::format::hanim::parse(bytes, u32::MAX, u32::MAX)?;
            let channels: usize = clips.iter().map(|c| c.channels.len()).sum();
            vec![("clips", clips.len() as u64), ("channels", channels as u64)]
        }
        AssetKind::MANIFEST => vec![("entries", hman::parse(bytes)?.len() as u64)],
        AssetKind::FONT if bytes.starts_with(&crate::format::hfont::MAGIC) => {
            let font = crate::format::hfont::FontView::parse(bytes)?;
            vec![
                ("glyphs", font.glyph_count() as u64),
                ("pages", font.page_count() as u64),
                ("kernings", font.kerning_count() as u64),
            ]
        }
        AssetKind::SCENE => {
            let scene = crate::format::hscene::SceneView::parse(bytes)?;
            vec![
                ("refs", scene.ref_count() as u64),
                ("geometry", scene.geometry_count() as u64),
            ]
        }
        AssetKind::SHADER if is_spirv(bytes) => {
            let info = crate::format::spirv::check_read(bytes)?;
            let mut stages: Vec<_> = info.entry_points.iter().map(|e| e.stage).collect();
            stages.sort();
            stages.dedup();
            vec![
                ("stages", stages.len() as u64),
                ("entry_points", info.entry_points.len() as u64),
            ]
        }
        _ => Vec::new(),
    })
}

/// Whether `dir` holds a bake of its own (a preset's `output` subfolder): its own
/// `assets.hman` next to hearth's bookkeeping (`.hearth-lock`, `.hearth-cache`), which every
/// bake writes into its output folder and no runtime tree contains (runtime paths have no
/// dot-leading components).
pub fn is_bake_folder(dir: &Path) -> bool {
    dir.join(MANIFEST_PATH).is_file()
        && (dir.join(".hearth-lock").is_file() || dir.join(".hearth-cache").is_file())
}

/// Files of a runtime tree, relative and `/`-separated, sorted. Left out: hearth's own
/// bookkeeping files (cache, lock, temp files: every dot-leading name), the packs (`.hpack`
/// files at the root that the root's `assets.hman` does not list: a baked `levels.hpack` blob
/// is a tree file), and subfolders holding a bake of their own ([`is_bake_folder`]; see
/// [`nested_bakes`]).
pub fn tree_files(root: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    Ok(walk_tree(root)?.0)
}

/// The subfolders of `root` (at any depth) that hold a bake of their own, such as a preset's
/// `output = "mobile"`, relative and `/`-separated, sorted. [`check_output`] checks each of
/// them as its own output folder.
pub fn nested_bakes(root: &Path) -> std::io::Result<Vec<String>> {
    Ok(walk_tree(root)?.1)
}

fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A runtime tree's files (relative path, path on disk) and its nested bake folders.
type Walk = (Vec<(String, PathBuf)>, Vec<String>);

/// (tree files, nested bake folders), both sorted.
fn walk_tree(root: &Path) -> std::io::Result<Walk> {
    let listed = manifest_kinds(root);
    let mut files = Vec::new();
    let mut nested = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type()?.is_dir() {
                if name.starts_with('.') {
                    continue; // the baker's own (staging), never part of the tree
                }
                if is_bake_folder(&path) {
                    nested.push(rel_path(root, &path));
                } else {
                    stack.push(path);
                }
            } else if !name.starts_with('.') {
                let rel = rel_path(root, &path);
                let is_pack = dir == root
                    && name.to_ascii_lowercase().ends_with(".hpack")
                    && !listed.contains_key(&rel);
                if !is_pack {
                    files.push((rel, path));
                }
            }
        }
    }
    files.sort();
    nested.sort();
    Ok((files, nested))
}

/// A one-line description of a KTX2 file: dimensions, format, levels, faces or layers,
/// color space, supercompression.
pub fn describe_ktx2(bytes: &[u8]) -> Result<String, crate::ReadError> {
    let ktx = crate::read::ktx2::Ktx2::parse(bytes)?;
    let format = if ktx.is_uastc() {
        "UASTC".to_owned()
    } else {
        match crate::format::ktx2::vk_format_name(ktx.vk_format()) {
            Some(name) => name.to_owned(),
            None => format!("vk {}", ktx.vk_format()),
        }
    };
    let mut shape = format!("{}x{}", ktx.width(), ktx.height());
    if ktx.depth() > 1 {
        shape += &format!("x{}", ktx.depth());
    }
    if ktx.faces() == 6 {
        shape += " cube";
    }
    if ktx.is_array() {
        shape += &format!(" [{}]", ktx.layers());
    }
    let space = if ktx.is_srgb() { "sRGB" } else { "linear" };
    let supercompression = match ktx.supercompression() {
        0 => "none",
        2 => "zstd",
        _ => "other",
    };
    Ok(format!(
        "{shape} {format} {space}, {} mips, {supercompression}",
        ktx.level_count()
    ))
}

/// Whether `bytes` start like a SPIR-V module (its magic, in either byte order).
pub fn is_spirv(bytes: &[u8]) -> bool {
    let magic = crate::format::spirv::MAGIC;
    bytes.len() >= 4 && {
        let first = [bytes[0], bytes[1], bytes[2], bytes[3]];
        u32::from_le_bytes(first) == magic || u32::from_be_bytes(first) == magic
    }
}

/// A one-line description of a shader: a SPIR-V module's version and entry points
/// (`SPIR-V 1.0: vertex main`), or a text shader's line count.
pub fn describe_shader(bytes: &[u8]) -> Result<String, crate::ReadError> {
    if !is_spirv(bytes) {
        let lines = bytes.iter().filter(|&&b| b == b'\n').count();
        return Ok(format!("text shader, {lines} lines"));
    }
    let info = crate::format::spirv::check(bytes).map_err(|_| crate::ReadError::Invalid {
        what: "SPIR-V module",
    })?;
    let entries: Vec<String> = info
        .entry_points
        .iter()
        .map(|e| format!("{} {}", e.stage.name(), e.name))
        .collect();
    Ok(format!(
        "SPIR-V {}.{}: {}",
        info.version.0,
        info.version.1,
        entries.join(", ")
    ))
}

/// A one-line description of a font: an `.hfont`'s glyphs, pages, kerning pairs and line
/// metrics, or another font file's size.
pub fn describe_font(bytes: &[u8]) -> Result<String, crate::ReadError> {
    if !bytes.starts_with(&crate::format::hfont::MAGIC) {
        return Ok(format!("font file, {} bytes", bytes.len()));
    }
    let font = crate::format::hfont::FontView::parse(bytes)?;
    let h = font.header;
    Ok(format!(
        "{} glyphs, {} pages ({}x{}), {} kerning pairs, line height {}, base {}",
        font.glyph_count(),
        font.page_count(),
        h.scale_w,
        h.scale_h,
        font.kerning_count(),
        h.line_height,
        h.base
    ))
}

/// A one-line description of an `.hscene`: its refs (with how many place meshes) and
/// geometry records.
pub fn describe_scene(bytes: &[u8]) -> Result<String, crate::ReadError> {
    let scene = crate::format::hscene::SceneView::parse(bytes)?;
    let meshes = scene.refs().filter(|r| r.mesh().is_some()).count();
    Ok(format!(
        "{} refs ({meshes} placing meshes), {} geometry",
        scene.ref_count(),
        scene.geometry_count()
    ))
}

/// A baked scene: it parses, and every mesh and material it places is in the tree.
fn check_scene(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    manifest: &BTreeMap<u64, &str>,
    problems: &mut Vec<String>,
) {
    let scene = match crate::format::hscene::SceneView::parse(bytes) {
        Ok(scene) => scene,
        Err(e) => return problems.push(format!("`{rel}`: {e}")),
    };
    for (index, placed) in scene.refs().enumerate() {
        for hash in placed.mesh().into_iter().chain(placed.materials()) {
            match manifest.get(&hash) {
                Some(path) if root.join(path).is_file() => {}
                Some(path) => problems.push(format!("`{rel}`: ref {index}: `{path}` is missing")),
                None => problems.push(format!(
                    "`{rel}`: ref {index}: {hash:#018x} is not in {MANIFEST_PATH}"
                )),
            }
        }
    }
}

/// A baked font: it parses, and every page it names is a texture of the tree.
fn check_font(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    manifest: &BTreeMap<u64, &str>,
    problems: &mut Vec<String>,
) {
    let font = match crate::format::hfont::FontView::parse(bytes) {
        Ok(font) => font,
        Err(e) => return problems.push(format!("`{rel}`: {e}")),
    };
    for (index, page) in font.pages().enumerate() {
        match manifest.get(&page) {
            Some(path) if root.join(path).is_file() => {}
            Some(path) => problems.push(format!("`{rel}`: page {index} `{path}` is missing")),
            None => problems.push(format!(
                "`{rel}`: page {index} ({page:#018x}) is not in {MANIFEST_PATH}"
            )),
        }
    }
}

/// Checks a KTX2 file the way the runtime reads it: header, level index, DFD, key/value data,
/// every level inflating to the size its format and dimensions require.
pub fn check_ktx2(bytes: &[u8]) -> Result<(), crate::ReadError> {
    let ktx = crate::read::ktx2::Ktx2::parse(bytes)?;
    for level in 0..ktx.level_count() {
        ktx.level(level)?;
    }
    Ok(())
}

/// A one-line description of an `.hmesh`: vertices, triangles, indices, meshlets, submeshes,
/// materials, LODs and bounds.
pub fn describe_hmesh(bytes: &[u8]) -> Result<String, crate::ReadError> {
    let mesh = crate::read::mesh::MeshView::parse(bytes)?;
    let d = &mesh.desc;
    let lods = mesh.lods.as_ref().map(|l| l.header.lod_count).unwrap_or(0);
    let b = &mesh.bounds;
    Ok(format!(
        "{} verts, {} tris, {} idx (u{}), {} meshlets, {} submeshes, {} materials, {} LODs{}, bounds [{:.3} {:.3} {:.3}]..[{:.3} {:.3} {:.3}]",
        d.vertex_count,
        d.index_count / 3,
        d.index_count,
        d.index_width as u32 * 8,
        d.meshlet_count,
        d.submesh_count,
        d.material_count,
        lods,
        if mesh.skin.is_some() { ", skinned" } else { "" },
        b.aabb_min[0],
        b.aabb_min[1],
        b.aabb_min[2],
        b.aabb_max[0],
        b.aabb_max[1],
        b.aabb_max[2]
    ))
}

/// A one-line description of an `.hmat`: rows, texture-slot usage, alpha modes, double-sided.
pub fn describe_hmat(bytes: &[u8]) -> Result<String, crate::ReadError> {
    let table = crate::read::mesh::MaterialTable::parse(bytes)?;
    let slots = ["baseColor", "metalRough", "normal", "occlusion", "emissive"];
    let used: Vec<String> = slots
        .iter()
        .enumerate()
        .map(|(i, name)| {
            (
                name,
                table
                    .rows
                    .iter()
                    .filter(|r| r.texture_refs()[i] != 0)
                    .count(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let modes = ["opaque", "mask", "blend"]
        .iter()
        .enumerate()
        .map(|(m, name)| {
            let n = table
                .rows
                .iter()
                .filter(|r| r.alpha_mode() == m as u32)
                .count();
            format!("{name} {n}")
        });
    Ok(format!(
        "{} materials; textures: {}; alpha: {}; double-sided {}",
        table.rows.len(),
        if used.is_empty() {
            "none".to_owned()
        } else {
            used.join(", ")
        },
        modes.collect::<Vec<_>>().join(", "),
        table.rows.iter().filter(|r| r.double_sided()).count()
    ))
}

/// A one-line description of an `.hanim`: clips, channels, longest duration. (Joint indices
/// are checked against the skeleton by [`check_output`], not here.)
pub fn describe_hanim(bytes: &[u8]) -> Result<String, crate::ReadError> {
    let clips = crate::format::hanim::parse(bytes, u32::MAX, u32::MAX)?;
    let channels: usize = clips.iter().map(|c| c.channels.len()).sum();
    let duration = clips.iter().map(|c| c.duration).fold(0.0f32, f32::max);
    let names: Vec<&str> = clips
        .iter()
        .map(|c| {
            if c.name.is_empty() {
                "(unnamed)"
            } else {
                c.name.as_str()
            }
        })
        .collect();
    Ok(format!(
        "{} clips ({}), {channels} channels, longest {duration:.3} s",
        clips.len(),
        names.join(", ")
    ))
}

/// Checks a mesh and its companion material table the way assetc's check does: both valid,
/// the mesh's material count equal to the table's rows, every nonzero texture ref listed in the
/// manifest and present on disk.
fn check_mesh(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    manifest: &BTreeMap<u64, &str>,
    problems: &mut Vec<String>,
) {
    let mesh = match crate::read::mesh::MeshView::parse(bytes) {
        Ok(mesh) => mesh,
        Err(e) => return problems.push(format!("`{rel}`: {e}")),
    };
    let anim_rel = format!("{}.hanim", rel.trim_end_matches(".hmesh"));
    if let Ok(anim) = std::fs::read(root.join(&anim_rel)) {
        let joints = mesh.skeleton.as_ref().map(|s| s.len() as u32).unwrap_or(0);
        let targets = mesh
            .morph_targets
            .as_ref()
            .map(|m| m.targets.len() as u32)
            .unwrap_or(0);
        if let Err(e) = crate::read::mesh::AnimClips::parse(&anim, joints, targets) {
            problems.push(format!(
                "`{anim_rel}`: {e} (`{rel}` has {joints} joints and {targets} morph targets)"
            ));
        }
    }
    let hmat_rel = format!("{}.hmat", rel.trim_end_matches(".hmesh"));
    let Ok(hmat) = std::fs::read(root.join(&hmat_rel)) else {
        return problems.push(format!("`{rel}`: companion `{hmat_rel}` is missing"));
    };
    match crate::read::mesh::MaterialTable::parse(&hmat) {
        Err(e) => problems.push(format!("`{hmat_rel}`: {e}")),
        Ok(table) => {
            if table.rows.len() != mesh.materials.len() {
                problems.push(format!(
                    "`{hmat_rel}`: {} rows, but `{rel}` has {} materials",
                    table.rows.len(),
                    mesh.materials.len()
                ));
            }
            check_texture_refs(root, &hmat_rel, &table, manifest, problems);
        }
    }
}

/// Every texture ref of a material table (rows and v2 properties) resolves through the
/// manifest to an existing file.
fn check_texture_refs(
    root: &Path,
    hmat_rel: &str,
    table: &crate::read::mesh::MaterialTable<'_>,
    manifest: &BTreeMap<u64, &str>,
    problems: &mut Vec<String>,
) {
    for reference in table.texture_refs() {
        match manifest.get(&reference) {
            Some(path) if root.join(path).is_file() => {}
            Some(path) => problems.push(format!("`{hmat_rel}`: texture `{path}` is missing")),
            None => problems.push(format!(
                "`{hmat_rel}`: texture ref {reference:#018x} is not in {MANIFEST_PATH}"
            )),
        }
    }
}

/// Cross-file integrity of an output folder: `assets.hman` parses and every row points at an
/// existing file whose path hashes to the row's hash; every file is in the manifest; every
/// pack (a root `.hpack` the manifest does not list) verifies and matches the tree file for
/// file (and a v4 pack's entry kinds match the manifest rows); every `.ktx2` is valid; every
/// `.hmesh` is valid, with a companion `.hmat` whose rows match its materials and whose
/// texture refs resolve through the manifest to existing files. A subfolder holding a bake of
/// its own (a preset's `output`, see [`is_bake_folder`]) is not part of the tree: it is
/// checked the same way on its own, its problems prefixed with its path (`mobile/: …`); a
/// folder holding only such bakes (no file of its own) is checked through them.
/// Returns the problems found (empty when all is well) and the number of files checked.
pub fn check_output(root: &Path) -> (Vec<String>, usize) {
    let (files, nested) = match walk_tree(root) {
        Ok(walk) => walk,
        Err(e) => return (vec![format!("{}: {e}", root.display())], 0),
    };
    // Only bakes in subfolders and no file of its own (manifest, pack or tree file): a folder
    // of presets' outputs.
    let own_file_at_root = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_type().is_ok_and(|t| !t.is_dir())
                && !e.file_name().to_string_lossy().starts_with('.')
        });
    let container = !nested.is_empty() && files.is_empty() && !own_file_at_root;
    let (mut problems, mut count) = if container {
        (Vec::new(), 0)
    } else {
        check_tree(root, &files)
    };
    for sub in nested {
        let (sub_problems, sub_count) = check_output(&root.join(&sub));
        problems.extend(sub_problems.into_iter().map(|p| format!("{sub}/: {p}")));
        count += sub_count;
    }
    (problems, count)
}

/// [`check_output`] of one output folder whose tree is `files`.
fn check_tree(root: &Path, files: &[(String, PathBuf)]) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let journal = root
        .join(crate::format::STAGING_DIR)
        .join(crate::format::JOURNAL_FILE);
    if journal.exists() {
        problems.push(format!(
            "{}: an interrupted bake's commit is pending (`hearth check` or the next bake finishes it)",
            journal.display()
        ));
    }
    let manifest_bytes = match std::fs::read(root.join(MANIFEST_PATH)) {
        Ok(bytes) => bytes,
        Err(e) => {
            return (
                vec![format!("{}: {e}", root.join(MANIFEST_PATH).display())],
                files.len(),
            )
        }
    };
    match hman::parse(&manifest_bytes) {
        Err(e) => problems.push(format!("{MANIFEST_PATH}: {e}")),
        Ok(rows) => {
            let listed: BTreeMap<&str, u64> = rows.iter().map(|r| (r.path, r.hash)).collect();
            let by_hash: BTreeMap<u64, &str> = rows.iter().map(|r| (r.hash, r.path)).collect();
            for row in &rows {
                if !root.join(row.path).is_file() {
                    problems.push(format!("{MANIFEST_PATH}: `{}` does not exist", row.path));
                }
                if hash_runtime_path(row.path) != row.hash {
                    problems.push(format!(
                        "{MANIFEST_PATH}: hash {:#018x} does not match `{}`",
                        row.hash, row.path
                    ));
                }
            }
            for (rel, path) in files {
                if rel != MANIFEST_PATH && !listed.contains_key(rel.as_str()) {
                    problems.push(format!("`{rel}` is not listed in {MANIFEST_PATH}"));
                }
                if rel.ends_with(".hmesh") {
                    match std::fs::read(path) {
                        Ok(bytes) => check_mesh(root, rel, &bytes, &by_hash, &mut problems),
                        Err(e) => problems.push(format!("`{rel}`: {e}")),
                    }
                }
                // A standalone material (no companion mesh, which checks it): its refs.
                let companion = format!("{}.hmesh", rel.trim_end_matches(".hmat"));
                if rel.ends_with(".hmat") && !listed.contains_key(companion.as_str()) {
                    let bytes = std::fs::read(path);
                    match bytes
                        .as_deref()
                        .map(crate::read::mesh::MaterialTable::parse)
                    {
                        Ok(Ok(table)) => {
                            check_texture_refs(root, rel, &table, &by_hash, &mut problems)
                        }
                        Ok(Err(e)) => problems.push(format!("`{rel}`: {e}")),
                        Err(e) => problems.push(format!("`{rel}`: {e}")),
                    }
                }
                if rel.ends_with(".hscene") {
                    match std::fs::read(path) {
                        Ok(bytes) => check_scene(root, rel, &bytes, &by_hash, &mut problems),
                        Err(e) => problems.push(format!("`{rel}`: {e}")),
                    }
                }
                if rel.ends_with(".hfont") {
                    match std::fs::read(path) {
                        Ok(bytes) => check_font(root, rel, &bytes, &by_hash, &mut problems),
                        Err(e) => problems.push(format!("`{rel}`: {e}")),
                    }
                }
                if rel.ends_with(".spv") {
                    match std::fs::read(path) {
                        Ok(bytes) => {
                            if let Err(e) = crate::format::spirv::check(&bytes) {
                                problems.push(format!("`{rel}`: {e}"));
                            }
                        }
                        Err(e) => problems.push(format!("`{rel}`: {e}")),
                    }
                }
                if rel.ends_with(".ktx2") {
                    match std::fs::read(path) {
                        Ok(bytes) => {
                            if let Err(e) = check_ktx2(&bytes) {
                                problems.push(format!("`{rel}`: {e}"));
                            }
                        }
                        Err(e) => problems.push(format!("`{rel}`: {e}")),
                    }
                }
            }
        }
    }
    // v4 entry kinds must be the manifest rows' (manifest itself: MANIFEST; no row: BLOB).
    let listed_kinds = manifest_kinds(root);
    // The packs: root `.hpack` files the manifest does not list (a listed one is a baked file).
    let packs = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("hpack"))
        })
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_none_or(|n| !n.starts_with('.') && !listed_kinds.contains_key(&n))
        });
    for pack_path in packs {
        let name = pack_path.display();
        let pak = match PakReader::open_verified(&pack_path) {
            Ok(pak) => pak,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let mut in_pack = 0;
        for entry in pak.entries().flatten() {
            in_pack += 1;
            let path = entry.path();
            if pak.version() >= 4 {
                let want = match listed_kinds.get(&*path) {
                    Some(kind) => *kind,
                    None if path == MANIFEST_PATH => AssetKind::MANIFEST,
                    None => AssetKind::BLOB,
                };
                if entry.kind() != want {
                    problems.push(format!(
                        "{name}: `{path}` has kind {}, but {MANIFEST_PATH} says {want}",
                        entry.kind()
                    ));
                }
            }
            match (std::fs::read(root.join(&*path)), entry.bytes()) {
                (Ok(on_disk), Ok(packed)) if on_disk == *packed => {}
                (Ok(_), Ok(_)) => problems.push(format!(
                    "{name}: `{path}` differs from the file in the tree"
                )),
                (Err(_), _) => problems.push(format!("{name}: `{path}` is not in the tree")),
                (_, Err(e)) => problems.push(format!("{name}: `{path}`: {e}")),
            }
        }
        if in_pack != files.len() {
            problems.push(format!(
                "{name}: {in_pack} entries, but the tree has {} files",
                files.len()
            ));
        }
    }
    (problems, files.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hman::{ColorSpace, ManifestEntry};

    #[test]
    fn kinds_from_paths_follow_the_bakers_extensions() {
        for (path, kind) in [
            ("models/chair/tex_0.ktx2", AssetKind::TEXTURE),
            ("grading/warm.lut.ktx2", AssetKind::LUT),
            ("models/chair.HMESH", AssetKind::MESH),
            ("models/chair.hmat", AssetKind::MATERIAL),
            ("models/chair.hanim", AssetKind::ANIMATION),
            ("assets.hman", AssetKind::MANIFEST),
            ("shaders/a.wgsl", AssetKind::SHADER),
            ("shaders/a.spv", AssetKind::SHADER),
            ("fonts/ui.otf", AssetKind::FONT),
            ("data/level.json", AssetKind::BLOB),
            ("no-extension", AssetKind::BLOB),
        ] {
            assert_eq!(kind_from_path(path), kind, "{path}");
        }
    }

    #[test]
    fn counts_per_kind() {
        let manifest = hman::write(&[ManifestEntry {
            hash: 1,
            kind: AssetKind(200),
            color_space: ColorSpace::Linear,
            path: "x.lvl",
        }]);
        assert_eq!(
            file_counts(AssetKind::MANIFEST, &manifest).unwrap(),
            [("entries", 1)]
        );
        assert!(file_counts(AssetKind::TEXTURE, b"not a ktx2").is_err());
        assert!(file_counts(AssetKind::MESH, b"not a mesh").is_err());
        for value in 0..=255u8 {
            let kind = AssetKind(value);
            if !has_counts(kind) {
                assert_eq!(file_counts(kind, b"any bytes").unwrap(), [], "{kind}");
            }
        }
        assert!(has_counts(AssetKind::LUT) && !has_counts(AssetKind::BLOB));
    }
}
