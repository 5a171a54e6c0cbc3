//! Signed packs: `hearth keygen`, `hearth bake --sign`, `CargoBake::sign_from_env`,
//! `PakReader::open_signed` and `hearth pack verify`. Every byte of a signed pack is covered:
//! changing any one of them fails the verifying open or `verify()`.

use crate::common;

use hearth::bake::cargo::CargoBake;
use hearth::bake::signing::SigningKey;
use hearth::bake::Baker;
use hearth::{PakReader, PublicKey, ReadError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn hearth(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The sample content, baked signed with a fresh key: (temp dir, manifest, key path, pack).
fn signed_bake() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(&dir.path().join("content"), "");
    let key = dir.path().join("release.key");
    let (ok, stdout, stderr) = hearth(&["keygen", "-o", s(&key)]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("release.key.pub"), "{stdout}");
    let out = dir.path().join("out");
    let (ok, _, stderr) = hearth(&["bake", s(&manifest), "-o", s(&out), "--sign", s(&key)]);
    assert!(ok, "{stderr}");
    let pack = out.join("game.hpack");
    (dir, manifest, key, pack)
}

fn public_key(key: &Path) -> PublicKey {
    let text = std::fs::read_to_string(format!("{}.pub", key.display())).unwrap();
    PublicKey::parse(&text).unwrap()
}

#[test]
fn signed_bake_verifies_and_reads_like_any_pack() {
    let (_dir, _, key, pack) = signed_bake();
    let public = public_key(&key);
    let pak = PakReader::open_signed(&pack, &public).unwrap();
    assert_eq!(pak.version(), 5);
    assert!(pak.is_signed());
    pak.verify().unwrap();
    let level = pak.get("data/levels/level1.txt").unwrap().unwrap();
    assert!(level.starts_with(b"the quick brown fox"));
    // An ordinary open reads a signed pack too (checksums only, no key).
    let plain = PakReader::open(&pack).unwrap();
    assert_eq!(plain.signer_key(), Some(public.to_bytes()));
    assert_eq!(plain.get("data/levels/level1.txt").unwrap().unwrap(), level);

    let (ok, stdout, stderr) = hearth(&[
        "pack",
        "verify",
        "--key",
        &format!("{}.pub", key.display()),
        s(&pack),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains(&public.fingerprint()), "{stdout}");
    let (ok, stdout, _) = hearth(&["pack", "info", "--json", s(&pack)]);
    assert!(ok);
    let info: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(info["version"], 5);
    assert_eq!(info["signer_key"], public.fingerprint());
    let (ok, _, stderr) = hearth(&["check", s(pack.parent().unwrap())]);
    assert!(ok, "{stderr}");
}

#[test]
fn every_tampered_byte_and_every_wrong_key_is_refused() {
    let (_dir, _, key, pack) = signed_bake();
    let public = public_key(&key);
    let bytes = std::fs::read(&pack).unwrap();
    // Open, then check every entry (digests, checksums, layout), as `hearth pack verify` does.
    let verify = |bytes: &[u8]| -> Result<(), ReadError> {
        PakReader::from_bytes_signed(bytes, &public)?.verify()
    };
    verify(&bytes).unwrap();
    for at in 0..bytes.len() {
        let mut tampered = bytes.clone();
        tampered[at] ^= 0x01;
        assert!(
            verify(&tampered).is_err(),
            "flipping byte {at} of {} went unnoticed",
            bytes.len()
        );
    }

    let other = SigningKey::generate().unwrap().public_key();
    let error = PakReader::from_bytes_signed(&bytes, &other).unwrap_err();
    assert!(error.to_string().contains("another key"), "{error}");

    // A tampered payload byte through the CLI, and a key that is not the signer's.
    let payload_at = bytes.len() - 96 - 20; // inside the last payload, before the signature
    let mut tampered = bytes.clone();
    tampered[payload_at] ^= 0x55;
    let tampered_pack = pack.with_file_name("tampered.hpack");
    std::fs::write(&tampered_pack, &tampered).unwrap();
    let key_pub = format!("{}.pub", key.display());
    let (ok, _, stderr) = hearth(&["pack", "verify", "--key", &key_pub, s(&tampered_pack)]);
    assert!(!ok, "a tampered pack verified");
    assert!(stderr.contains("tampered.hpack"), "{stderr}");
    let other_pub = pack.with_file_name("other.pub");
    std::fs::write(
        &other_pub,
        hearth::format::key::encode(hearth::format::key::PUBLIC_KEY_TAG, &other.to_bytes()),
    )
    .unwrap();
    let (ok, stdout, _) = hearth(&["pack", "verify", "--json", "--key", s(&other_pub), s(&pack)]);
    assert!(!ok, "verified with another key");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert!(report["error"].as_str().unwrap().contains("another key"));
}

#[test]
fn unsigned_packs_are_refused_by_the_signed_open_and_open_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(&dir.path().join("content"), "");
    let out = dir.path().join("out");
    Baker::new(&manifest, &out).run().unwrap();
    let pack = out.join("game.hpack");
    let key = SigningKey::generate().unwrap();
    let error = PakReader::open_signed(&pack, &key.public_key()).unwrap_err();
    assert!(error.to_string().contains("not signed"), "{error}");
    let pak = PakReader::open(&pack).unwrap();
    assert_eq!(pak.version(), 4);
    assert!(!pak.is_signed() && pak.signer_key().is_none());
}

#[test]
fn signed_bakes_are_deterministic_and_incremental() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(&dir.path().join("content"), "");
    let key = SigningKey::generate().unwrap();
    let bake = |out: &Path, key: Option<&SigningKey>| {
        let mut baker = Baker::new(&manifest, out);
        if let Some(key) = key {
            baker.sign(key.clone());
        }
        baker.run().unwrap()
    };
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    bake(&a, Some(&key));
    bake(&b, Some(&key));
    let pack = |out: &Path| std::fs::read(out.join("game.hpack")).unwrap();
    assert_eq!(pack(&a), pack(&b), "same inputs and key, same bytes");
    let again = bake(&a, Some(&key));
    assert_eq!(
        again.files_written, 0,
        "a no-op signed re-bake writes nothing"
    );
    // Dropping the signature, or signing with another key, rewrites the pack.
    bake(&a, None);
    assert_eq!(PakReader::open(a.join("game.hpack")).unwrap().version(), 4);
    let other = SigningKey::generate().unwrap();
    bake(&a, Some(&other));
    PakReader::open_signed(a.join("game.hpack"), &other.public_key()).unwrap();

    // Old pack versions cannot carry a signature: a clear error naming the setting.
    let old = common::sample_content(&dir.path().join("old"), "");
    let text = std::fs::read_to_string(&old).unwrap();
    std::fs::write(
        &old,
        text.replace("[content]\n", "[content]\npack_version = 3\n"),
    )
    .unwrap();
    let error = Baker::new(&old, dir.path().join("c"))
        .sign(key.clone())
        .run()
        .unwrap_err();
    assert!(error.to_string().contains("pack_version"), "{error}");
}

/// Cargo's directives, captured.
#[derive(Clone, Default)]
struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn build_scripts_sign_with_a_key_named_by_an_environment_variable() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("game");
    common::sample_content(&src, "");
    let key_path = dir.path().join("ci.key");
    let key = SigningKey::generate().unwrap();
    key.write_pair(&key_path).unwrap();
    // A name no other test reads; Rust's own env access is serialized by std.
    const VAR: &str = "HEARTH_TEST_SIGNING_KEY_PATH";
    let cargo_bake = |value: Option<&Path>| {
        match value {
            Some(path) => std::env::set_var(VAR, path),
            None => std::env::remove_var(VAR),
        }
        let sink = Sink::default();
        let result = CargoBake::new("hearth.toml")
            .manifest_dir(&src)
            .out_dir(dir.path().join("out"))
            .profile("release")
            .rust_version("1.80")
            .sign_from_env(VAR)
            .output(sink.clone())
            .run();
        std::env::remove_var(VAR);
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        (result, text.lines().map(String::from).collect::<Vec<_>>())
    };

    let (result, lines) = cargo_bake(Some(&key_path));
    let report = result.unwrap();
    PakReader::open_signed(&report.pack_path, &key.public_key()).unwrap();
    assert!(
        lines.contains(&format!("cargo::rerun-if-env-changed={VAR}")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&format!("cargo::rerun-if-changed={}", key_path.display())),
        "the key file is an input: {lines:?}"
    );

    // Without the variable the pack is unsigned, and the variable is still watched.
    let (result, lines) = cargo_bake(None);
    assert!(!PakReader::open(&result.unwrap().pack_path)
        .unwrap()
        .is_signed());
    assert!(
        lines.contains(&format!("cargo::rerun-if-env-changed={VAR}")),
        "{lines:?}"
    );

    // A file that is not a secret key fails the build, naming it.
    let public = dir.path().join("ci.key.pub");
    let (result, _) = cargo_bake(Some(&public));
    let error = result.unwrap_err();
    assert!(error.to_string().contains("ci.key.pub"), "{error}");
}
