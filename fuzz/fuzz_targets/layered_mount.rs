//! A layered mount (`LayeredPak`): the input's bytes choose a base pack and a chain of NEW
//! packs (entries appearing, going, changing bytes or kind; name tables and manifests kept,
//! changed, added or deleted; v3 and v4), each patch made by `hearth::bake::patch::diff`;
//! after each patch the mount must read as that NEW alone (entries, `get`, `find_by_hash`,
//! names, `resolve`, the `AssetSource` methods and typed loads). Then the same bytes as a
//! damaged patch layer (flipped bytes of a real patch, or raw bytes): it may be refused,
//! never panic. `tests/read/mount_parity.rs` runs the same code on 200 seeded inputs.
#![no_main]

#[path = "layered.rs"]
mod layered;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    layered::check_chain(data);
    layered::mount_damaged(data);
});
