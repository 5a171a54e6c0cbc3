//! Output-folder primitives under the write transaction (`transaction.rs`): unchanged-file
//! detection, symlink refusal, stale removal, and a lock that serializes bakes into one folder.

use crate::bake::error::BakeError;
use crate::read::pak::{Limits, PakReader};
use crate::read::regular_file::{open_regular, Links};
use std::fs::{self, File};
use std::path::Path;

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Atomic against a crash of the process (staged, then renamed by the transaction):
    /// runtime-tree files, which a later bake can always redo.
    Atomic,
    /// Also synced to disk before the commit, surviving a power loss: the pack, manifest and
    /// cache.
    /// Syncing every tree file made a 2000-file bake fsync-bound (measured in
    /// `benches/RESULTS.md`).
    Durable,
}

/// Whether `path` is a regular file holding exactly the bytes `parts` joined (then it is not
/// rewritten, so its mtime stays put and `include_bytes!` users do not recompile). A symlink
/// planted there is never read through: it is replaced.
pub(crate) fn same_file_parts(path: &Path, parts: &[&[u8]]) -> bool {
    let len: u64 = parts.iter().map(|part| part.len() as u64).sum();
    fs::symlink_metadata(path).is_ok_and(|meta| {
        meta.is_file()
            && meta.len() == len
            && open_regular(path, fs::OpenOptions::new().read(true), Links::Refuse)
                .is_ok_and(|file| reads_as(file, parts))
    })
}

/// Whether `file` holds exactly `parts` joined, read a chunk at a time and given up at the
/// first chunk that differs: a re-packed pack of the old one's size differs in its table, at
/// the front, so the rest is not read (30 ms of a 53 MB pack's re-bake when it was).
fn reads_as(mut file: File, parts: &[&[u8]]) -> bool {
    use std::io::Read;
    let total: usize = parts.iter().map(|part| part.len()).sum();
    let mut chunk = vec![0u8; (1 << 20).min(total.max(1))];
    for mut bytes in parts.iter().copied() {
        while !bytes.is_empty() {
            let want = chunk.len().min(bytes.len());
            if file.read_exact(&mut chunk[..want]).is_err() || chunk[..want] != bytes[..want] {
                return false;
            }
            bytes = &bytes[want..];
        }
    }
    // Nothing left to match: the file must end here too.
    matches!(file.read(&mut chunk[..1]), Ok(0))
}

/// Makes the renames inside `dir` durable (a no-op where folders cannot be synced).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    let _ = dir;
    Ok(())
}

/// Fails when a folder on the way from `root` to the file `rel` is a symlink.
pub(crate) fn no_symlinked_folder(root: &Path, rel: &str) -> Result<(), BakeError> {
    let folder = rel.rsplit_once('/').map_or("", |(folder, _)| folder);
    no_symlink_on_way(root, folder)
}

/// Fails, naming the link, when any folder from `root` down to `root/folder` (`/`-separated,
/// checked one component at a time without following links) is a symlink: every folder
/// hearth writes into goes through here. `root` is the folder the user named, taken as named;
/// a component not there yet is created later as a real folder.
pub(crate) fn no_symlink_on_way(root: &Path, folder: &str) -> Result<(), BakeError> {
    let mut path = root.to_path_buf();
    for part in folder.split('/').filter(|part| !part.is_empty()) {
        path.push(part);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(BakeError::asset(
                    &path,
                    "a symlink inside the output folder; hearth does not write through it",
                ))
            }
            Ok(_) => {}
            Err(_) => break, // not there yet: created as a real folder
        }
    }
    Ok(())
}

/// Removes a file this baker wrote earlier and no longer produces, then any folders that
/// became empty up to (not including) `root`. Returns whether a file was removed.
pub fn remove_stale(root: &Path, rel: &str) -> Result<bool, BakeError> {
    // The cache was validated on load; checked again because a delete cannot be undone. The
    // manifest and the name table are no output's paths, but a pack-only bake removes a tree
    // bake's.
    let bookkeeping =
        rel == crate::format::hman::MANIFEST_PATH || rel == crate::format::hnames::NAMES_PATH;
    if !bookkeeping {
        crate::bake::pipeline::check_output_path(rel).map_err(|e| BakeError::asset(root, e))?;
    }
    no_symlinked_folder(root, rel)?;
    let path = root.join(rel);
    match fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(BakeError::io(path, e)),
    }
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if fs::remove_dir(d).is_err() {
            break; // not empty
        }
        dir = d.parent();
    }
    Ok(true)
}

/// An exclusive lock on an output folder, held for the whole bake (cargo runs build scripts
/// concurrently, and two crates may bake into one folder). Released on drop.
#[derive(Debug)]
pub struct OutputLock {
    _file: File,
}

impl OutputLock {
    /// Blocks until the folder's lock file is ours. A link or a special file in its place is
    /// an error: the lock is never created or opened through a link.
    pub fn acquire(dir: &Path) -> Result<Self, BakeError> {
        let path = dir.join(".hearth-lock");
        let mut options = fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let file = open_regular(&path, &mut options, Links::Refuse)
            .map_err(|e| BakeError::io(&path, e))?;
        file.lock().map_err(|e| BakeError::io(&path, e))?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_and_stale_removal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/a.bin");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, b"one").unwrap();
        assert!(same_file_parts(&path, &[b"one"]));
        assert!(same_file_parts(&path, &[b"o", b"", b"ne"]));
        assert!(!same_file_parts(&path, &[b"two"]));
        assert!(!same_file_parts(&path, &[b"on"]), "a prefix");
        assert!(!same_file_parts(&dir.path().join("none"), &[b""]));
        assert!(remove_stale(dir.path(), "sub/a.bin").unwrap());
        assert!(!dir.path().join("sub").exists(), "empty folder pruned");
        assert!(!remove_stale(dir.path(), "sub/a.bin").unwrap());
    }

    #[test]
    fn files_of_several_chunks_compare_to_the_last_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        let bytes: Vec<u8> = (0..(5 << 20) / 2 + 7).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &bytes).unwrap();
        assert!(same_file_parts(&path, &[&bytes]));
        // In parts that do not line up with the chunks.
        let (a, rest) = bytes.split_at(7);
        let (b, c) = rest.split_at((3 << 20) / 2);
        assert!(same_file_parts(&path, &[a, b, c]));
        for at in [0, 1 << 20, bytes.len() - 1] {
            let mut other = bytes.clone();
            other[at] ^= 1;
            assert!(!same_file_parts(&path, &[&other]), "a difference at {at}");
            let (a, rest) = other.split_at(7);
            let (b, c) = rest.split_at((3 << 20) / 2);
            assert!(!same_file_parts(&path, &[a, b, c]), "a difference at {at}");
        }
        fs::write(&path, b"").unwrap();
        assert!(same_file_parts(&path, &[b""]));
        assert!(same_file_parts(&path, &[]));
    }
}

/// The files of an output tree (hidden entries left out), listed once per bake: their paths
/// relative to the tree in one buffer, found by hash. A `HashSet<String>` of 10k paths was a
/// tenth of a no-op re-bake.
#[derive(Debug, Default)]
pub(crate) struct TreeListing {
    /// Every path, one after another.
    paths: String,
    /// Per file: the xxh3-64 of its path and where the path is in `paths`; sorted.
    index: Vec<(u64, usize, usize)>,
}

impl TreeListing {
    /// Lists the regular files under `dir`: one directory listing per folder and no stat per
    /// file (the listing's file types are enough). Symlinks are not followed: hearth never
    /// writes one, so one is not an output.
    pub(crate) fn list(dir: &Path) -> Result<Self, BakeError> {
        let mut listing = Self::default();
        let mut stack = vec![(dir.to_path_buf(), String::new())];
        while let Some((dir, rel)) = stack.pop() {
            let io = |e| BakeError::io(&dir, e);
            for entry in fs::read_dir(&dir).map_err(io)? {
                let entry = entry.map_err(io)?;
                let file_name = entry.file_name();
                let Some(name) = file_name.to_str().filter(|n| !n.starts_with('.')) else {
                    continue;
                };
                let kind = entry.file_type().map_err(io)?;
                if kind.is_dir() {
                    stack.push((entry.path(), crate::bake::plan::join_rel(&rel, name)));
                } else if kind.is_file() {
                    let start = listing.paths.len();
                    if !rel.is_empty() {
                        listing.paths.push_str(&rel);
                        listing.paths.push('/');
                    }
                    listing.paths.push_str(name);
                    let hash = xxhash_rust::xxh3::xxh3_64(&listing.paths.as_bytes()[start..]);
                    listing.index.push((hash, start, listing.paths.len()));
                }
            }
        }
        listing.index.sort_unstable();
        Ok(listing)
    }

    /// Whether the tree has a file at `rel`.
    pub(crate) fn contains(&self, rel: &str) -> bool {
        let hash = xxhash_rust::xxh3::xxh3_64(rel.as_bytes());
        let first = self.index.partition_point(|(h, _, _)| *h < hash);
        self.index[first..]
            .iter()
            .take_while(|(h, _, _)| *h == hash)
            .any(|&(_, start, end)| &self.paths[start..end] == rel)
    }
}

/// Where a bake finds the previous bake's outputs, to prove its cache hits current: the output
/// tree's files, or for a pack-only bake (see [`Baker::tree`](crate::bake::Baker::tree)) the
/// entries of the previous pack.
#[derive(Debug, Default)]
pub(crate) struct PreviousOutputs {
    /// The output tree's files (not listed when the cache knows no asset and the bake writes a
    /// tree). A pack-only bake removes the previous bake's outputs it finds here.
    pub(crate) tree: TreeListing,
    /// A pack-only bake's previous pack, mapped: the one the cache recorded, when it is there.
    pub(crate) pack: Option<PakReader>,
    /// Whether this bake writes the pack alone.
    pub(crate) pack_only: bool,
}

impl PreviousOutputs {
    /// Whether the previous bake's output `rel` is where this bake keeps outputs: in the tree,
    /// or in the previous pack for a pack-only bake.
    pub(crate) fn contains(&self, rel: &str) -> bool {
        match (self.pack_only, &self.pack) {
            (false, _) => self.tree.contains(rel),
            (true, Some(pack)) => pack.find(rel).is_ok_and(|entry| entry.is_some()),
            (true, None) => false,
        }
    }
}

/// The previous pack at `path`, when it is the one the cache recorded (`size` bytes): opened
/// without following a link and mapped, not read (a no-op re-bake touches none of its pages
/// but the index's). Missing: `Ok(None)`; a link, a special file, another size or a pack that
/// does not parse: an error saying why, and the bake bakes those assets again.
pub(crate) fn open_previous_pack(path: &Path, size: u64) -> Result<Option<PakReader>, String> {
    let file = match open_regular(path, fs::OpenOptions::new().read(true), Links::Refuse) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len != size {
        return Err(format!(
            "{len} bytes where the cache recorded {size} (replaced outside hearth?)"
        ));
    }
    PakReader::map_file(file, Limits::default())
        .map(Some)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod listing_tests {
    use super::TreeListing;

    #[test]
    fn lists_files_not_folders_hidden_entries_or_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        for file in [
            "top.bin",
            "a/one.ktx2",
            "a/b/two.hmesh",
            ".hearth-cache",
            "a/.hidden",
        ] {
            std::fs::write(root.join(file), b"x").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("top.bin"), root.join("link.bin")).unwrap();
        let listing = TreeListing::list(root).unwrap();
        for file in ["top.bin", "a/one.ktx2", "a/b/two.hmesh"] {
            assert!(listing.contains(file), "{file}");
        }
        for absent in [
            "a",
            "a/b",
            ".hearth-cache",
            "a/.hidden",
            "link.bin",
            "two.hmesh",
            "",
            "a/",
        ] {
            assert!(!listing.contains(absent), "{absent}");
        }
        assert!(!TreeListing::default().contains("top.bin"));
    }
}
