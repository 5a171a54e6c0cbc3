//! Signed packs (feature `verify`): the public key type and the checks behind
//! [`PakReader::open_signed`](crate::PakReader::open_signed).
//!
//! A v5 pack's signature block holds an Ed25519 public key and the signature of
//! [`V5_SIGNATURE_CONTEXT`] followed by the pack's bytes `[0, data_offset)`: the header, the
//! tables and one BLAKE3 digest per entry. A verifying open checks the signature against the
//! caller's key; each entry's stored bytes are then checked against their digest before the
//! reader hands out an [`Entry`](crate::Entry) for them. Threat model: authenticity and
//! integrity (the pack came from the holder of the secret key, unmodified), not secrecy
//! (payloads are not encrypted) and not freshness (an older pack signed with the same key
//! verifies too: version your packs if rollback matters).

use crate::format::error::ReadError;
use crate::format::hpack::{V3Layout, V5_DIGEST_SIZE, V5_SIGNATURE_CONTEXT};
use crate::format::key;

/// An Ed25519 public key that packs are checked against.
///
/// ```
/// use hearth::{PakReader, PublicKey};
/// // In a game, the `KEY.pub` that `hearth keygen` wrote, built in:
/// // `PublicKey::parse(include_str!("../keys/release.pub"))?`.
/// let key = PublicKey::parse(
///     "hearth-public-key-v1 ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c",
/// )?;
/// # let signed_hpack = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny-v5.hpack");
/// // The signature is checked at open, each entry's digest when the entry is read.
/// let pak = PakReader::open_signed(signed_hpack, &key)?;
/// assert!(pak.is_signed());
/// assert_eq!(pak.signer_key(), Some(key.to_bytes()));
/// # Ok::<(), hearth::ReadError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(ed25519_dalek::VerifyingKey);

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({})", self.fingerprint())
    }
}

impl PublicKey {
    /// The key from its 32 bytes; an error when they are not a valid Ed25519 point.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, ReadError> {
        ed25519_dalek::VerifyingKey::from_bytes(bytes)
            .map(Self)
            .map_err(|_| ReadError::Signature {
                what: "public key (not an Ed25519 key)",
                entry: None,
            })
    }

    /// The key from the text of a `KEY.pub` file written by `hearth keygen`
    /// (`hearth-public-key-v1 <64 hex digits>`), e.g. `include_str!("../keys/release.pub")`.
    pub fn parse(text: &str) -> Result<Self, ReadError> {
        let bytes = key::decode(key::PUBLIC_KEY_TAG, text).ok_or(ReadError::Signature {
            what: "public key text (expected `hearth-public-key-v1 <64 hex digits>`)",
            entry: None,
        })?;
        Self::from_bytes(&bytes)
    }

    /// The public half of a signing key.
    #[cfg(feature = "bake")]
    pub(crate) fn of(key: &ed25519_dalek::SigningKey) -> Self {
        Self(key.verifying_key())
    }

    /// The key's 32 bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// A short name for the key: the first 8 bytes of its BLAKE3 hash, in hex.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.to_bytes())
    }
}

/// The fingerprint of a key's bytes (see [`PublicKey::fingerprint`]).
pub fn fingerprint(key: &[u8; 32]) -> String {
    blake3::hash(key).as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Checks a pack's signature block against `expected`.
pub(crate) fn check_signature(
    layout: &V3Layout,
    bytes: &[u8],
    expected: &PublicKey,
) -> Result<(), ReadError> {
    let fail = |what| ReadError::Signature { what, entry: None };
    let (signed, key, signature) = layout
        .signature_parts(bytes)
        .ok_or(fail("the pack is not signed (pack v5 carries signatures)"))?;
    if *key != expected.to_bytes() {
        return Err(fail("the pack is signed by another key"));
    }
    let mut message = Vec::with_capacity(V5_SIGNATURE_CONTEXT.len() + signed.len());
    message.extend_from_slice(V5_SIGNATURE_CONTEXT);
    message.extend_from_slice(signed);
    let signature = ed25519_dalek::Signature::from_bytes(signature);
    expected
        .0
        .verify_strict(&message, &signature)
        .map_err(|_| fail("the signature does not match the pack's header and tables"))
}

/// Whether `stored` hashes to the signed digest.
pub(crate) fn digest_matches(expected: &[u8; V5_DIGEST_SIZE], stored: &[u8]) -> bool {
    blake3::hash(stored) == blake3::Hash::from_bytes(*expected)
}
