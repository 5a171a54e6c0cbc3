//! The files a tool writes (`hearth get -o`, `diff -o`, `report -o`, `render -o`, `bake
//! --timings`): one rule for all of them.

use crate::read::regular_file::replace_file;
use std::path::Path;

/// Writes a tool's output file `path`: refused when it is one of the command's `inputs` (a
/// file named on the command line, or for a folder, its packs and `assets.hman`); otherwise
/// written through a temporary file and a rename, so the old file, or a
/// mapping of it, never sees part of the new one. An output that exists and is not a regular
/// file (`/dev/null`, a FIFO) is written in place: the user chose it; a link to a regular file
/// replaces the file it leads to. Errors name `path`.
pub fn write_output(path: &Path, bytes: &[u8], inputs: &[&Path]) -> Result<(), String> {
    let fail = |why: String| format!("{}: {why}", path.display());
    let target = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(fail("a folder, not a file".into())),
        Ok(meta) if !meta.is_file() => {
            return std::fs::write(path, bytes).map_err(|e| fail(e.to_string()));
        }
        Ok(_) => {
            if let Some(input) = inputs.iter().find(|input| overwrites(path, input)) {
                return Err(fail(format!(
                    "is an input of this command ({}); write the output elsewhere",
                    input.display()
                )));
            }
            // A link is replaced where it leads, as a plain write through it would.
            std::fs::canonicalize(path).map_err(|e| fail(e.to_string()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(fail(e.to_string())),
    };
    replace_file(&target, bytes).map_err(|e| fail(e.to_string()))
}

/// Whether writing the existing file `output` would overwrite the input `input`: the same
/// file, or for a folder, one of the files a reader of the folder opens first (its packs at the
/// root, `assets.hman`).
fn overwrites(output: &Path, input: &Path) -> bool {
    if same_file(output, input) {
        return true;
    }
    if !input.is_dir() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(input) else {
        return false;
    };
    // Bounded: a folder's root entries, read once.
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        (name.ends_with(".hpack") || name == crate::format::hman::MANIFEST_PATH)
            && same_file(output, &entry.path())
    })
}

/// Whether two paths name one file (following links).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(a), Ok(b)) => {
            use std::os::unix::fs::MetadataExt;
            a.dev() == b.dev() && a.ino() == b.ino()
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_replaces_the_file_and_refuses_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.hpack");
        std::fs::write(&input, b"pack").unwrap();
        let out = dir.path().join("out.bin");
        write_output(&out, b"one", &[&input]).unwrap();
        write_output(&out, b"two", &[&input]).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        let error = write_output(&input, b"entry", &[&input]).unwrap_err();
        assert!(error.contains("is an input"), "{error}");
        let error = write_output(&input, b"entry", &[dir.path()]).unwrap_err();
        assert!(error.contains("is an input"), "a folder's pack: {error}");
        assert_eq!(std::fs::read(&input).unwrap(), b"pack");
        assert!(write_output(dir.path(), b"x", &[]).is_err(), "a folder");
        write_output(Path::new("/dev/null"), b"x", &[&input]).unwrap();
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&out, &link).unwrap();
            write_output(&link, b"three", &[]).unwrap();
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read(&out).unwrap(), b"three");
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            !left.iter().any(|n| n.to_string_lossy().ends_with(".tmp")),
            "{left:?}"
        );
    }
}
