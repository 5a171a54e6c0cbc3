//! Opening files that must be regular files reached without a link: hearth's own files (the
//! incremental cache, the output lock, the transaction journal and its staged files, the
//! shared cache's objects and temporaries, signing keys) and the files of a runtime tree
//! ([`TreeReader`](crate::TreeReader)). Every such open goes through here, so the rule lives
//! in one place.
//!
//! - A link is never followed (`O_NOFOLLOW`; elsewhere a `symlink_metadata` check first): a
//!   planted link must not make hearth read or write outside its folders.
//! - Only a regular file is used, judged from the *opened* file's metadata (no race between a
//!   check and the open). The open itself does not block (`O_NONBLOCK`), so a FIFO is refused,
//!   not waited on; the flag changes nothing for a regular file.
//! - Every read stops at the most bytes its format allows, so `/dev/zero` or a runaway file
//!   costs an error, not the machine's memory.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// How an open treats a link in the last component of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Refused: the file is hearth's own, at a place hearth chose.
    Refuse,
    /// Followed: the user named this path (a key file mounted through a link).
    Follow,
}

/// Opens `path` with `options`, refusing a link (per `links`) and anything but a regular file.
pub(crate) fn open_regular(
    path: &Path,
    options: &mut OpenOptions,
    links: Links,
) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = match links {
            Links::Refuse => libc::O_NOFOLLOW,
            Links::Follow => 0,
        };
        options.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    #[cfg(not(unix))]
    if links == Links::Refuse {
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if meta.file_type().is_symlink() {
                return Err(is_a_link());
            }
        }
    }
    let file = match options.open(path) {
        Ok(file) => file,
        // `O_NOFOLLOW` answers a link with ELOOP (EMLINK on some BSDs): say what it means.
        Err(_) if links == Links::Refuse && is_link(path) => return Err(is_a_link()),
        // A FIFO opened for writing without a reader answers ENXIO, a socket ENXIO too:
        // say what the file is, as for one that opens.
        Err(_) if is_special(path, links) => return Err(not_a_regular_file()),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(not_a_regular_file());
    }
    Ok(file)
}

/// The bytes of the regular file `path` (a link is refused), at most `cap` of them: a longer
/// file is an error.
pub(crate) fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    read_capped(path, cap, Links::Refuse)
}

/// [`read_regular`] for a file the user named (a key given on the command line): a link is
/// followed, the rest of the rule holds.
#[cfg_attr(not(feature = "bake"), allow(dead_code))]
pub(crate) fn read_named(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    read_capped(path, cap, Links::Follow)
}

fn read_capped(path: &Path, cap: u64, links: Links) -> io::Result<Vec<u8>> {
    let file = open_regular(path, OpenOptions::new().read(true), links)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(cap);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    // One byte over the cap tells a file at the limit from one past it.
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than the {cap}-byte limit of this file"),
        ));
    }
    Ok(bytes)
}

/// Creates the new regular file `path` for writing: never through a link, never over
/// anything already there.
#[cfg_attr(not(feature = "bake"), allow(dead_code))]
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    open_regular(
        path,
        OpenOptions::new().write(true).create_new(true),
        Links::Refuse,
    )
}

/// Replaces the file at `path` with `bytes`: they are written to a new temporary file beside
/// it (created, never opened through a link) and renamed over it, so a reader of the old file,
/// or a mapping of it (`hearth get PACK ENTRY -o PACK`), never sees part of the new one, and a
/// failure leaves the old file as it was.
#[cfg_attr(not(any(feature = "inspect", feature = "render")), allow(dead_code))]
pub(crate) fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = create_new(&temp)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Whether `path` itself is a link (not followed).
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether `path` is there and neither a regular file, a folder nor (when links are
/// refused) a link: a FIFO, a socket or a device.
fn is_special(path: &Path, links: Links) -> bool {
    let meta = match links {
        Links::Refuse => std::fs::symlink_metadata(path),
        Links::Follow => std::fs::metadata(path),
    };
    meta.is_ok_and(|m| !m.is_file() && !m.is_dir() && !m.file_type().is_symlink())
}

fn not_a_regular_file() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "not a regular file; hearth uses only regular files for its own data",
    )
}

fn is_a_link() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "a symbolic link; hearth does not follow links to its own files or a runtime tree's",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_special_files_and_oversized_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_regular(&file, 5).unwrap(), b"12345");
        let err = read_regular(&file, 4).unwrap_err();
        assert!(err.to_string().contains("4-byte limit"), "{err}");
        assert!(read_regular(dir.path(), 5).is_err(), "a folder");
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            let err = read_regular(&link, 5).unwrap_err();
            assert!(err.to_string().contains("symbolic link"), "{err}");
            assert_eq!(read_named(&link, 5).unwrap(), b"12345");
            let zero = dir.path().join("zero");
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            assert!(read_named(&zero, 5).is_err(), "a device, even when named");
            // A link to a place that does not exist is not created through.
            let dangling = dir.path().join("dangling");
            std::os::unix::fs::symlink(dir.path().join("victim"), &dangling).unwrap();
            assert!(create_new(&dangling).is_err());
            assert!(!dir.path().join("victim").exists());
        }
    }

    /// A FIFO opened for writing with no reader fails with ENXIO ("No such device or
    /// address"): the error says what the file is instead.
    #[cfg(unix)]
    #[test]
    fn a_fifo_opened_for_writing_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let err = open_regular(&fifo, &mut options, Links::Refuse).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
}
