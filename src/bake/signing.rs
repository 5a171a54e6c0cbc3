//! Signing keys for packs: `hearth keygen` writes a pair, `hearth bake --sign KEY` and
//! [`CargoBake::sign_from_env`](crate::bake::cargo::CargoBake::sign_from_env) sign with one
//! (pack v5; see [`crate::read::signed`] for what a signature covers and the threat model).

use crate::bake::error::BakeError;
use crate::format::hpack::PackSigner;
use crate::format::key;
use crate::read::regular_file::{open_regular, read_named, Links};
use crate::read::signed::PublicKey;
use ed25519_dalek::Signer;
use std::path::Path;

/// The longest key file read: one line of a tag and 64 hex digits, with room for whitespace.
pub const MAX_KEY_FILE_BYTES: u64 = 4096;

/// An Ed25519 secret key. Its `Debug` shows the public key's fingerprint only.
#[derive(Clone)]
pub struct SigningKey(ed25519_dalek::SigningKey);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey(public {})", self.public_key().fingerprint())
    }
}

impl SigningKey {
    /// A new key from the operating system's random source.
    pub fn generate() -> Result<Self, BakeError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed)
            .map_err(|e| BakeError::Cargo(format!("no random source for a new key: {e}")))?;
        Ok(Self(ed25519_dalek::SigningKey::from_bytes(&seed)))
    }

    /// The key in a file written by [`write_pair`](Self::write_pair) (`hearth keygen`); errors
    /// name the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, BakeError> {
        let path = path.as_ref();
        let text = read_key_file(path)?;
        Self::parse(&text).ok_or_else(|| {
            BakeError::asset(
                path,
                format!(
                    "not a hearth secret key (expected `{} <64 hex digits>`; is this the .pub file?)",
                    key::SECRET_KEY_TAG
                ),
            )
        })
    }

    /// The key from its text form (`hearth-secret-key-v1 <64 hex digits>`).
    pub fn parse(text: &str) -> Option<Self> {
        key::decode(key::SECRET_KEY_TAG, text)
            .map(|seed| Self(ed25519_dalek::SigningKey::from_bytes(&seed)))
    }

    /// The public half, which readers check packs against.
    pub fn public_key(&self) -> PublicKey {
        PublicKey::of(&self.0)
    }

    /// Writes the secret key to `path` (readable by its owner only, on Unix) and the public key
    /// to `path.pub`. Refuses to overwrite either file or to write through a link (even a
    /// dangling one): both names are checked before anything is written.
    pub fn write_pair(&self, path: impl AsRef<Path>) -> Result<(), BakeError> {
        let path = path.as_ref();
        let public = path.with_file_name(format!(
            "{}.pub",
            path.file_name().unwrap_or_default().to_string_lossy()
        ));
        for target in [path, public.as_path()] {
            if std::fs::symlink_metadata(target).is_ok() {
                return Err(BakeError::asset(target, "already exists; not overwritten"));
            }
        }
        let write = |target: &Path, text: &str, owner_only: bool| {
            use std::io::Write;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            if owner_only {
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            }
            #[cfg(not(unix))]
            let _ = owner_only;
            open_regular(target, &mut options, Links::Refuse)
                .and_then(|mut file| file.write_all(text.as_bytes()))
                .map_err(|e| BakeError::io(target, e))
        };
        write(
            path,
            &key::encode(key::SECRET_KEY_TAG, &self.0.to_bytes()),
            true,
        )?;
        let public_text = key::encode(key::PUBLIC_KEY_TAG, &self.public_key().to_bytes());
        if let Err(e) = write(&public, &public_text, false) {
            // Appeared since the check: no half pair is left behind.
            let _ = std::fs::remove_file(path);
            return Err(e);
        }
        Ok(())
    }
}

/// The public key in a file written by [`SigningKey::write_pair`] (`KEY.pub`); errors name
/// the file. A link the user named is followed; the file must be a regular one of key size.
pub fn load_public_key(path: impl AsRef<Path>) -> Result<PublicKey, BakeError> {
    let path = path.as_ref();
    let text = read_key_file(path)?;
    PublicKey::parse(&text).map_err(|e| BakeError::asset(path, e.to_string()))
}

/// A key file's text: a regular file (a link the user named is followed), at most
/// [`MAX_KEY_FILE_BYTES`].
fn read_key_file(path: &Path) -> Result<String, BakeError> {
    let bytes = read_named(path, MAX_KEY_FILE_BYTES).map_err(|e| BakeError::io(path, e))?;
    String::from_utf8(bytes).map_err(|_| BakeError::asset(path, "not UTF-8 text"))
}

impl PackSigner for SigningKey {
    fn public_key(&self) -> [u8; 32] {
        self.0.verifying_key().to_bytes()
    }

    fn sign(&self, message: &[u8]) -> [u8; 64] {
        // Ed25519 (RFC 8032) signatures are deterministic: the same pack, the same bytes.
        self.0.sign(message).to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_pair_round_trips_through_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("release.key");
        let key = SigningKey::generate().unwrap();
        key.write_pair(&path).unwrap();
        let loaded = SigningKey::load(&path).unwrap();
        assert_eq!(loaded.public_key(), key.public_key());
        let public = std::fs::read_to_string(dir.path().join("release.key.pub")).unwrap();
        assert_eq!(PublicKey::parse(&public).unwrap(), key.public_key());
        assert!(key.write_pair(&path).is_err(), "never overwrites");
        let error = SigningKey::load(dir.path().join("release.key.pub")).unwrap_err();
        assert!(error.to_string().contains("release.key.pub"), "{error}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "secret key readable by its owner only");
        }
    }
}
