//! The asset resolver a USD import composes its stage through: every layer, payload and
//! texture it opens must be a regular file inside the content root (or an entry of a `.usdz`
//! that is), and every file it opens or looks for is logged, so the importer can record it as
//! a side-file input of both caches. openusd owns the resolver for the stage's lifetime
//! (`'static`), so it cannot borrow the bake's context: it logs, and the importer replays the
//! log into the context when the stage is done.

use crate::bake::pipeline::MAX_INPUT_BYTES;
use openusd::ar::{self, Asset, ResolvedPath, Resolver};
use std::collections::HashMap;
use std::io::{self, Cursor, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The most files (layers, payloads, textures, package entries) one import opens.
const MAX_OPENS: usize = 10_000;

/// The most bytes one import reads in all, packages counted once.
const MAX_TOTAL_BYTES: u64 = MAX_INPUT_BYTES;

/// What the resolver did, for the importer to record.
#[derive(Debug, Default)]
pub struct ResolverLog {
    /// Files read or looked for: (canonical path, xxh3-64 and length of the bytes read, or
    /// `None` when missing).
    pub inputs: Vec<(PathBuf, Option<(u64, u64)>)>,
    /// References refused by the containment policy, each naming the reference.
    pub refused: Vec<String>,
    packages: HashMap<PathBuf, Arc<[u8]>>,
    total_bytes: u64,
    opens: usize,
}

/// A resolver confined to one content root (see the module docs).
#[derive(Debug, Clone)]
pub struct ConfinedResolver {
    root: PathBuf,
    root_layer: (PathBuf, Arc<[u8]>),
    log: Arc<Mutex<ResolverLog>>,
}

impl ConfinedResolver {
    /// A resolver for content under `root` (canonical), whose root layer at `root_layer` has
    /// already been read (and recorded) by the bake as `bytes`.
    pub fn new(root: &Path, root_layer: PathBuf, bytes: &[u8]) -> Self {
        Self {
            root: root.to_path_buf(),
            root_layer: (root_layer, Arc::from(bytes)),
            log: Arc::default(),
        }
    }

    /// The shared log (the stage owns a clone of this resolver).
    pub fn log(&self) -> Arc<Mutex<ResolverLog>> {
        Arc::clone(&self.log)
    }

    /// The bytes at a resolved identifier: a file, or an entry of a package.
    pub fn read(&self, identifier: &str) -> io::Result<Vec<u8>> {
        if ar::is_package_relative_path(identifier) {
            let (outer, inner) = split_package(identifier)?;
            return self.read_packaged(Path::new(&outer), &inner);
        }
        let path = Path::new(identifier);
        if path == self.root_layer.0 {
            return Ok(self.root_layer.1.to_vec());
        }
        self.read_file(path)
    }

    fn with_log<T>(&self, f: impl FnOnce(&mut ResolverLog) -> T) -> T {
        // A poisoned log only means another reader panicked mid-push; the entries stay valid.
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut log)
    }

    fn refuse(&self, reference: &Path, why: &str) -> io::Error {
        let message = format!("refused to read {:?}: {why}", reference);
        self.with_log(|log| log.refused.push(message.clone()));
        io::Error::new(io::ErrorKind::PermissionDenied, message)
    }

    /// Counts one open of `len` bytes against the import's bounds.
    fn charge(&self, path: &Path, len: u64) -> io::Result<()> {
        let over = self.with_log(|log| {
            log.opens += 1;
            log.total_bytes = log.total_bytes.saturating_add(len);
            log.opens > MAX_OPENS || log.total_bytes > MAX_TOTAL_BYTES
        });
        if over {
            return Err(io::Error::other(format!(
                "{}: the import opens more than {MAX_OPENS} files or {MAX_TOTAL_BYTES} bytes",
                path.display()
            )));
        }
        Ok(())
    }

    /// `path` (absolute, lexically normal) inside the root, through symlinks too.
    fn confine(&self, path: &Path) -> io::Result<PathBuf> {
        if !path.starts_with(&self.root) {
            return Err(self.refuse(path, "it leads outside the content root"));
        }
        match path.canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(real) => Err(self.refuse(
                path,
                &format!("a symlink to {}, outside the content root", real.display()),
            )),
            Err(e) => {
                self.with_log(|log| log.inputs.push((path.to_path_buf(), None)));
                Err(e)
            }
        }
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        let real = self.confine(path)?;
        let meta = std::fs::metadata(&real)?;
        if !meta.is_file() {
            return Err(self.refuse(path, "not a regular file"));
        }
        if meta.len() > MAX_INPUT_BYTES {
            return Err(self.refuse(path, "over the input size limit"));
        }
        self.charge(path, meta.len())?;
        let mut bytes = Vec::new();
        std::fs::File::open(&real)?
            .take(MAX_INPUT_BYTES)
            .read_to_end(&mut bytes)?;
        let digest = (xxhash_rust::xxh3::xxh3_64(&bytes), bytes.len() as u64);
        self.with_log(|log| log.inputs.push((real, Some(digest))));
        Ok(bytes)
    }

    /// A package's bytes, read once per import.
    fn package(&self, outer: &Path) -> io::Result<Arc<[u8]>> {
        if outer == self.root_layer.0 {
            return Ok(Arc::clone(&self.root_layer.1));
        }
        if let Some(bytes) = self.with_log(|log| log.packages.get(outer).cloned()) {
            return Ok(bytes);
        }
        let bytes: Arc<[u8]> = Arc::from(self.read_file(outer)?);
        self.with_log(|log| log.packages.insert(outer.to_path_buf(), Arc::clone(&bytes)));
        Ok(bytes)
    }

    fn read_packaged(&self, outer: &Path, inner: &str) -> io::Result<Vec<u8>> {
        if ar::is_package_relative_path(inner) {
            return Err(self.refuse(outer, "a package inside a package is not supported"));
        }
        let bytes = self.package(outer)?;
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| io::Error::other(format!("{}: {e}", outer.display())))?;
        let mut entry = archive
            .by_name(inner)
            .map_err(|e| io::Error::new(io::ErrorKind::NotFound, format!("{inner}: {e}")))?;
        if entry.size() > MAX_INPUT_BYTES {
            return Err(self.refuse(outer, &format!("{inner} is over the input size limit")));
        }
        self.charge(outer, entry.size())?;
        let mut out = Vec::new();
        (&mut entry).take(MAX_INPUT_BYTES).read_to_end(&mut out)?;
        Ok(out)
    }

    fn package_contains(&self, outer: &Path, inner: &str) -> bool {
        let Ok(bytes) = self.package(outer) else {
            return false;
        };
        zip::ZipArchive::new(Cursor::new(bytes))
            .is_ok_and(|archive| archive.index_for_name(inner).is_some())
    }
}

fn split_package(identifier: &str) -> io::Result<(String, String)> {
    ar::split_package_relative_path_outer(identifier).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{identifier}: a malformed package path"),
        )
    })
}

/// `path` with `.` dropped and `..` applied lexically (never above the file system's root).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A path inside a package, relative to its root: `..` that climbs out of it is kept, so
/// the entry is not found rather than silently re-rooted.
fn normalize_inner(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::ParentDir if parts.last().is_some_and(|p| p != "..") => {
                parts.pop();
            }
            Component::ParentDir => parts.push("..".into()),
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// USD's legacy value type aliases (the C++ type names), which OpenUSD's text reader accepts
/// and openusd 0.6's does not, with their canonical names.
const TYPE_ALIASES: [(&str, &str); 18] = [
    ("Vec2f", "float2"),
    ("Vec3f", "float3"),
    ("Vec4f", "float4"),
    ("Vec2d", "double2"),
    ("Vec3d", "double3"),
    ("Vec4d", "double4"),
    ("Vec2h", "half2"),
    ("Vec3h", "half3"),
    ("Vec4h", "half4"),
    ("Vec2i", "int2"),
    ("Vec3i", "int3"),
    ("Vec4i", "int4"),
    ("Quatf", "quatf"),
    ("Quatd", "quatd"),
    ("Quath", "quath"),
    ("Matrix2d", "matrix2d"),
    ("Matrix3d", "matrix3d"),
    ("Matrix4d", "matrix4d"),
];

/// A text layer with legacy type aliases in attribute declarations (`Vec3f[] extent`)
/// spelled canonically; other bytes (binary layers, packages) as they are. Lines inside a
/// `"""` string are left alone.
fn canonical_type_names(bytes: Vec<u8>) -> Vec<u8> {
    if !bytes.starts_with(b"#usda") {
        return bytes;
    }
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return bytes;
    };
    if !TYPE_ALIASES.iter().any(|(alias, _)| text.contains(alias)) {
        return bytes;
    }
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    for line in text.split_inclusive('\n') {
        let was_in_string = in_string;
        in_string ^= line.matches("\"\"\"").count() % 2 == 1;
        if was_in_string {
            out.push_str(line);
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let mut rest = &line[indent..];
        let mut keywords = 0;
        for keyword in ["custom ", "uniform ", "varying ", "config "] {
            if let Some(after) = rest.strip_prefix(keyword) {
                keywords += keyword.len() + (after.len() - after.trim_start().len());
                rest = after.trim_start();
            }
        }
        let alias = TYPE_ALIASES.iter().find(|(alias, _)| {
            rest.strip_prefix(alias)
                .is_some_and(|after| after.starts_with(' ') || after.starts_with('['))
        });
        match alias {
            Some((alias, canonical)) => {
                out.push_str(&line[..indent + keywords]);
                out.push_str(canonical);
                out.push_str(&rest[alias.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// Refuses a layer (or a package's layers) with a prim name that is not an identifier:
/// openusd 0.6 reads `{` and `}` in a name as a variant selection's, and its instancing code
/// then recurses without end on such a path (a stack overflow, which no caller can catch).
/// The layer is parsed by openusd's own readers here, before the stage composes it.
fn check_layer_names(bytes: &[u8], identifier: &str) -> io::Result<()> {
    let invalid =
        |e: String| io::Error::new(io::ErrorKind::InvalidData, format!("{identifier}: {e}"));
    if bytes.starts_with(b"PK") {
        let mut archive =
            zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| invalid(e.to_string()))?;
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(|e| invalid(e.to_string()))?;
            let name = entry.name().to_ascii_lowercase();
            if name.ends_with(".usdz") {
                return Err(invalid(format!(
                    "{name}: a package inside a package is not supported"
                )));
            }
            if [".usd", ".usda", ".usdc"].iter().any(|e| name.ends_with(e)) {
                if entry.size() > MAX_INPUT_BYTES {
                    return Err(invalid(format!("{name} is over the input size limit")));
                }
                let mut layer = Vec::new();
                (&mut entry).take(MAX_INPUT_BYTES).read_to_end(&mut layer)?;
                check_layer_names(&canonical_type_names(layer), identifier)?;
            }
        }
        return Ok(());
    }
    let paths: Vec<openusd::sdf::Path> = if bytes.starts_with(b"PXR-USDC") {
        use openusd::sdf::AbstractData;
        super::crate_bounds::check(bytes).map_err(invalid)?;
        openusd::usdc::CrateData::open(Cursor::new(bytes), true)
            .map_err(|e| invalid(format!("{e:#}")))?
            .spec_paths()
    } else {
        let text = std::str::from_utf8(bytes).map_err(|e| invalid(e.to_string()))?;
        let data = openusd::usda::parse(text).map_err(|e| invalid(format!("{e:#}")))?;
        data.iter().map(|(path, _)| path.clone()).collect()
    };
    match paths.iter().find(|p| !valid_prim_names(p.as_str())) {
        Some(bad) => Err(invalid(format!(
            "{bad:?}: a prim name that is not an identifier"
        ))),
        None => Ok(()),
    }
}

/// Whether every prim name of `path` (its part before a property) is an identifier, variant
/// selections (`{set=selection}`) allowed between names.
fn valid_prim_names(path: &str) -> bool {
    let identifier = |name: &str| {
        let mut chars = name.chars();
        chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && chars.all(|c| c == '_' || c.is_alphanumeric())
    };
    // Each selection is checked and becomes a separator; what is left are the names.
    let mut names = String::with_capacity(path.len());
    let mut selection: Option<String> = None;
    for c in path.chars() {
        match (&mut selection, c) {
            (None, '{') => selection = Some(String::new()),
            (None, '}') | (Some(_), '{') => return false,
            (None, '.') => break,
            (None, c) => names.push(c),
            (Some(inner), '}') => {
                let Some((set, choice)) = inner.split_once('=') else {
                    return false;
                };
                let choice_ok = choice
                    .chars()
                    .all(|c| c == '_' || c == '-' || c == '.' || c.is_alphanumeric());
                if !identifier(set) || !choice_ok {
                    return false;
                }
                names.push('/');
                selection = None;
            }
            (Some(inner), c) => inner.push(c),
        }
    }
    selection.is_none() && names.split('/').filter(|e| !e.is_empty()).all(identifier)
}

impl Resolver for ConfinedResolver {
    fn create_identifier(&self, asset_path: &str, anchor: Option<&ResolvedPath>) -> String {
        if asset_path.is_empty() {
            return String::new();
        }
        if ar::is_package_relative_path(asset_path) {
            if let Some((outer, inner)) = ar::split_package_relative_path_outer(asset_path) {
                let outer = self.create_identifier(&outer, anchor);
                return ar::join_package_relative_path(&outer, &inner);
            }
        }
        let path = Path::new(asset_path);
        if path.is_absolute() {
            return normalize(path).to_string_lossy().into_owned();
        }
        let anchor = anchor.and_then(|a| a.to_str()).unwrap_or_default();
        if ar::is_package_relative_path(anchor) {
            // Inside a package, a relative path names another entry of the same package.
            if let Some((outer, inner)) = ar::split_package_relative_path_outer(anchor) {
                let folder = Path::new(&inner).parent().unwrap_or(Path::new(""));
                return ar::join_package_relative_path(
                    &outer,
                    &normalize_inner(&folder.join(path)),
                );
            }
        }
        let folder = match Path::new(anchor).parent() {
            Some(folder) if !anchor.is_empty() => folder.to_path_buf(),
            _ => self.root.clone(),
        };
        normalize(&folder.join(path)).to_string_lossy().into_owned()
    }

    fn resolve(&self, asset_path: &str) -> Option<ResolvedPath> {
        if asset_path.is_empty() {
            return None;
        }
        if ar::is_package_relative_path(asset_path) {
            let (outer, inner) = split_package(asset_path).ok()?;
            return self
                .package_contains(Path::new(&outer), &inner)
                .then(|| ResolvedPath::new(asset_path));
        }
        let path = Path::new(asset_path);
        if path == self.root_layer.0 {
            return Some(ResolvedPath::new(path));
        }
        let real = self.confine(path).ok()?;
        if std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
            Some(ResolvedPath::new(path))
        } else {
            self.with_log(|log| log.inputs.push((real, None)));
            None
        }
    }

    fn resolve_for_new_asset(&self, _asset_path: &str) -> Option<ResolvedPath> {
        // The importer never writes.
        None
    }

    fn open_asset(&self, resolved_path: &ResolvedPath) -> io::Result<Box<dyn Asset>> {
        let identifier = resolved_path.to_str().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "a path that is not UTF-8")
        })?;
        let bytes = canonical_type_names(self.read(identifier)?);
        check_layer_names(&bytes, identifier)?;
        Ok(Box::new(Cursor::new(bytes)))
    }

    fn get_modification_timestamp(
        &self,
        _asset_path: &str,
        _resolved_path: &ResolvedPath,
    ) -> Option<std::time::SystemTime> {
        // Time stamps are not an input of a bake: the bytes are.
        None
    }

    fn identity(&self) -> String {
        format!("hearth-confined:{:?}", self.root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_type_aliases_are_spelled_canonically_in_declarations_only() {
        let layer = "#usda 1.0\n\
            def Xform \"A\" {\n\
            \tVec3f xformOp:translate = (0, 0, 0)\n\
            \tuniform Matrix4d m = ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1))\n\
            \tcustom  Vec3f[] extent = [(0, 0, 0)]\n\
            \tstring doc = \"\"\"\nVec3f stays in a string\n\"\"\"\n\
            \tfloat3 Vec3f = (1, 2, 3)\n\
            }\n";
        let out = String::from_utf8(canonical_type_names(layer.as_bytes().to_vec())).unwrap();
        assert!(out.contains("\tfloat3 xformOp:translate"), "{out}");
        assert!(out.contains("\tuniform matrix4d m"), "{out}");
        assert!(out.contains("\tcustom  float3[] extent"), "{out}");
        assert!(out.contains("\nVec3f stays in a string\n"), "{out}");
        assert!(out.contains("\tfloat3 Vec3f = (1, 2, 3)"), "{out}");
        // Binary layers pass through.
        let crate_bytes = b"PXR-USDC\0\x08\0Vec3f ".to_vec();
        assert_eq!(canonical_type_names(crate_bytes.clone()), crate_bytes);
    }

    #[test]
    fn prim_names_must_be_identifiers() {
        for good in [
            "/",
            "/A",
            "/A/B_2",
            "/A{v=s}B",
            "/A{v=}",
            "/A{v=s}{w=t-1}C/D.attr",
            "/Ünïcode",
        ] {
            assert!(valid_prim_names(good), "{good}");
        }
        for bad in ["/protot}pes", "/A/b{c", "/A{v}", "/1A", "/A{v=s}x}", "/A/-"] {
            assert!(!valid_prim_names(bad), "{bad}");
        }
    }
}
