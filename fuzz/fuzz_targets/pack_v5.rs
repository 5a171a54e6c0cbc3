//! Arbitrary bytes opened as a signed pack v5 (the version field forced to 5): the plain
//! open and every read path, then the verifying open (`from_bytes_signed`) with the fixed
//! key the seeds are signed with (tests' fixture key, secret seed 32 x 0x07), so that inputs
//! derived from a validly signed seed reach the per-entry digest checks.
#![no_main]

#[path = "pack.rs"]
mod pack;

use hearth::{PakReader, PublicKey};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The public key of the fixture's signing key, read from the signed seed's signature block
/// once (`fuzz/corpus/pack_v5/tiny-v5.hpack`); a fallback key when the seed is absent.
fn key() -> &'static PublicKey {
    static KEY: OnceLock<PublicKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let seed = include_bytes!("../../tests/fixtures/tiny-v5.hpack");
        let stored = PakReader::from_bytes(seed)
            .ok()
            .and_then(|pak| pak.signer_key())
            .expect("the v5 fixture is signed");
        PublicKey::from_bytes(&stored).expect("the fixture's key is a valid Ed25519 key")
    })
}

fuzz_target!(|data: &[u8]| {
    let bytes = pack::with_version(data, 5);
    pack::open_all_ways(&bytes);
    if let Ok(pak) = PakReader::from_bytes_signed(&bytes, key()) {
        pack::exercise(&pak);
    }
    // Unforced: v5 and earlier versions through the signed open.
    if let Ok(pak) = PakReader::from_bytes_signed(data, key()) {
        pack::exercise(&pak);
    }
});
