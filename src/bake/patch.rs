//! Patch packs (`hearth diff OLD NEW -o PATCH`): an ordinary pack holding the entries that
//! are new or changed in NEW, byte for byte as NEW stores them (same codec, no re-encoding),
//! and `assets.hpatch` ([`crate::format::hpatch`]): the identities of OLD and NEW and the
//! paths NEW no longer has. Mounted over OLD ([`LayeredPak`](crate::LayeredPak)), it reads
//! as NEW.
//!
//! A kind change is a delete plus an add: a path whose kind differs between OLD and NEW is
//! both in the deletion records and stored as NEW has it, so the mount, which refuses kind
//! conflicts, accepts it (see [`crate::read::layers`]). No format change: older readers
//! already let a layer's own entries win over its own deletion records.

use crate::bake::pack::build_encoded;
use crate::bake::signing::SigningKey;
use crate::format::hman::AssetKind;
use crate::format::hpack::{Codec, PackInput};
use crate::format::hpatch::{pack_identity, PatchRecord, PATCH_PATH};
use crate::read::error::ReadError;
use crate::read::pak::{Entry, PakReader};
use std::sync::Arc;

/// What a patch holds, in counts and stored bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatchStats {
    /// Entries NEW has and OLD lacks.
    pub added: usize,
    /// Their stored bytes.
    pub added_bytes: u64,
    /// Entries whose stored bytes, codec or kind differ.
    pub changed: usize,
    /// Their stored bytes (NEW's).
    pub changed_bytes: u64,
    /// Entries OLD has and NEW lacks (the deletion records also list, uncounted here, the
    /// paths whose kind changed: those are counted as changed).
    pub deleted: usize,
    /// Their stored bytes in OLD (what the patch saves the game from reading).
    pub deleted_bytes: u64,
    /// Entries left as they are.
    pub unchanged: usize,
}

/// A patch pack's bytes and what it holds.
#[derive(Debug, Clone)]
pub struct Patch {
    /// The pack (v4, or v5 when signed).
    pub bytes: Vec<u8>,
    /// Its `assets.hpatch` record.
    pub record: PatchRecord,
    /// Counts and bytes.
    pub stats: PatchStats,
}

/// An error about the pack `file`.
fn in_file(file: &str) -> impl Fn(ReadError) -> ReadError + '_ {
    move |error| ReadError::Layer {
        file: file.into(),
        error: Arc::new(error),
    }
}

/// Refuses a pack that is itself a patch (diff full packs: the patch's base would be a layer,
/// not a pack).
fn full_pack(pak: &PakReader, file: &str) -> Result<(), ReadError> {
    match pak.find(PATCH_PATH).map_err(in_file(file))? {
        Some(_) => Err(in_file(file)(ReadError::Invalid {
            what: "pack for a diff (it is a patch pack; diff the full packs)",
        })),
        None => Ok(()),
    }
}

/// Whether NEW's entry differs from OLD's: stored bytes, codec or kind.
fn differs(old: &Entry<'_>, new: &Entry<'_>) -> bool {
    old.kind() != new.kind()
        || old.codec() != new.codec()
        || old.size() != new.size()
        || old.stored_bytes() != new.stored_bytes()
}

/// The patch that turns `old` into `new` (`old_file` and `new_file` name them in errors):
/// both are verified first (every checksum), so nothing damaged is copied. Signed with `key`
/// when given. Deterministic: the same packs and key give the same bytes.
pub fn diff(
    old: &PakReader,
    old_file: &str,
    new: &PakReader,
    new_file: &str,
    key: Option<&SigningKey>,
) -> Result<Patch, ReadError> {
    old.verify().map_err(in_file(old_file))?;
    new.verify().map_err(in_file(new_file))?;
    full_pack(old, old_file)?;
    full_pack(new, new_file)?;
    let mut stats = PatchStats::default();
    let mut copied: Vec<Entry<'_>> = Vec::new();
    for entry in new.entries() {
        let entry = entry.map_err(in_file(new_file))?;
        match old.find(&entry.path()).map_err(in_file(old_file))? {
            None => {
                stats.added += 1;
                stats.added_bytes += entry.stored_size();
                copied.push(entry);
            }
            Some(before) if differs(&before, &entry) => {
                stats.changed += 1;
                stats.changed_bytes += entry.stored_size();
                copied.push(entry);
            }
            Some(_) => stats.unchanged += 1,
        }
    }
    let mut deleted = Vec::new();
    for entry in old.entries() {
        let entry = entry.map_err(in_file(old_file))?;
        let path = entry.path();
        match new.find(&path).map_err(in_file(new_file))? {
            None => {
                stats.deleted += 1;
                stats.deleted_bytes += entry.stored_size();
                deleted.push(Box::<str>::from(&*path));
            }
            // A kind change is a delete plus an add: NEW's entry (copied above) wins over
            // the layer's own deletion record, and the record lets the mount accept the
            // new kind over OLD's.
            Some(after) if after.kind() != entry.kind() => deleted.push(Box::<str>::from(&*path)),
            Some(_) => {}
        }
    }
    // Old's entries are in path order (verified), so the deleted paths are sorted already.
    let record = PatchRecord {
        base: pack_identity(old.bytes()).map_err(in_file(old_file))?,
        result: pack_identity(new.bytes()).map_err(in_file(new_file))?,
        deleted,
    };
    let record_bytes = record.to_bytes();
    let paths: Vec<_> = copied.iter().map(|e| e.path()).collect();
    let mut inputs: Vec<PackInput<'_>> = copied
        .iter()
        .zip(&paths)
        .map(|(entry, path)| PackInput {
            path,
            kind: entry.kind(),
            codec: entry.codec(),
            stored: entry.stored_bytes(),
            size: entry.size(),
        })
        .collect();
    inputs.push(PackInput {
        path: PATCH_PATH,
        kind: AssetKind::BLOB,
        codec: Codec::None,
        stored: &record_bytes,
        size: record_bytes.len() as u64,
    });
    inputs.sort_by(|a, b| a.path.cmp(b.path));
    let bytes = build_encoded(&inputs, key);
    Ok(Patch {
        bytes,
        record,
        stats,
    })
}
