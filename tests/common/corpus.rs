//! The repository's test corpus, `tests/corpus`. Its own file so that the benches can include
//! it alone (`#[path = "../tests/common/corpus.rs"]`).

use std::path::{Path, PathBuf};

/// `tests/corpus/<rel>`: a file or folder of the repository's test corpus
/// (`tests/corpus/README.md` names each file's source and licence). Panics, naming the path,
/// when it is missing: a test never skips for want of its data.
pub fn corpus(rel: &str) -> PathBuf {
    // The repository's root: this package's folder, or for the benches (a package in
    // `benches/`) the one above it.
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest_dir
        .ancestors()
        .find(|dir| dir.join("tests/corpus").is_dir())
        .unwrap_or(manifest_dir);
    let path = root.join("tests/corpus").join(rel);
    assert!(
        path.exists(),
        "missing test data: {} (tests/corpus/{rel}; see tests/corpus/README.md)",
        path.display()
    );
    path
}
