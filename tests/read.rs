//! The reader against damaged packs: every truncation and every bit flip of header and tables
//! is an error (at open, on access, or at the latest in `verify`), never a panic.
#![cfg(feature = "bake")]

mod common;

use hearth::bake::Baker;
use hearth::{PakReader, ReadError};

/// Bakes the sample content with `extra` manifest lines and returns the pack's bytes.
fn real_pack(extra: &str) -> Vec<u8> {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(src.path(), "");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("compression = \"zstd\"", extra);
    std::fs::write(&manifest, text).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    std::fs::read(report.pack_path).unwrap()
}

/// Opens, walks, reads and verifies everything; the first error wins.
fn read_everything(bytes: &[u8]) -> Result<(), ReadError> {
    let pak = PakReader::from_bytes(bytes)?;
    for entry in pak.entries() {
        let entry = entry?;
        entry.bytes()?;
        pak.find(&entry.path())?;
    }
    pak.find_by_hash(hearth::hash_asset_ref("sounds/hit.ogg"))?;
    pak.manifest()?;
    pak.verify()
}

#[test]
fn every_truncation_of_a_v3_pack_fails_at_open() {
    for extra in [
        "compression = \"zstd\"",
        "compression = \"brotli\"",
        "compression = \"snap\"",
    ] {
        let bytes = real_pack(extra);
        read_everything(&bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(
                PakReader::from_bytes(&bytes[..len]).is_err(),
                "{extra}: prefix of {len} bytes opened"
            );
        }
    }
}

#[test]
fn every_truncation_of_a_v2_pack_is_an_error_or_loses_only_padding() {
    let bytes = real_pack("pack_version = 2");
    let full = PakReader::from_bytes(&bytes).unwrap();
    let last = full.entry(full.len() - 1).unwrap();
    let payload_end = (last.offset() + last.size()) as usize;
    for len in 0..bytes.len() {
        let result = read_everything(&bytes[..len]);
        // v2 has no file size in its header: cutting trailing padding leaves a valid pack.
        assert_eq!(
            result.is_ok(),
            len >= payload_end,
            "prefix of {len} bytes: {result:?}"
        );
    }
}

#[test]
fn every_bit_flip_in_v3_header_and_tables_is_caught() {
    let bytes = real_pack("compression = \"zstd\"");
    let data_offset = PakReader::from_bytes(&bytes)
        .unwrap()
        .v3_header()
        .unwrap()
        .data_offset as usize;
    for byte in 0..data_offset {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[byte] ^= 1 << bit;
            assert!(
                read_everything(&damaged).is_err(),
                "flip of bit {bit} in byte {byte} went unnoticed"
            );
        }
    }
}

#[test]
fn payload_damage_is_caught_by_checksums_and_never_panics() {
    let bytes = real_pack("compression = \"zstd\"");
    let data_offset = PakReader::from_bytes(&bytes)
        .unwrap()
        .v3_header()
        .unwrap()
        .data_offset as usize;
    for byte in (data_offset..bytes.len()).step_by(7) {
        let mut damaged = bytes.clone();
        damaged[byte] ^= 0x5a;
        let pak = PakReader::from_bytes(&damaged).expect("payload damage does not affect open");
        for entry in pak.entries() {
            let _ = entry.unwrap().bytes(); // may fail (a zstd frame), must not panic
        }
        // Padding bytes are not covered by any checksum; every payload byte is.
        let in_payload = pak.entries().any(|e| {
            let e = e.unwrap();
            (e.offset()..e.offset() + e.stored_size()).contains(&(byte as u64))
        });
        assert_eq!(pak.verify().is_err(), in_payload, "byte {byte}");
    }
}

#[test]
fn bit_flips_in_v2_tables_never_panic() {
    let bytes = real_pack("pack_version = 2");
    let toc_end = 24 + u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    for byte in 0..toc_end {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[byte] ^= 1 << bit;
            let _ = read_everything(&damaged);
        }
    }
}

#[test]
fn hostile_counts_are_limited_not_allocated() {
    let mut bytes = real_pack("compression = \"zstd\"");
    bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes()); // entry count
    assert!(PakReader::from_bytes(&bytes).is_err());
    let limits = hearth::Limits {
        max_entries: 2,
        ..Default::default()
    };
    let ok = real_pack("compression = \"zstd\"");
    assert!(matches!(
        PakReader::from_bytes_with_limits(&ok, limits),
        Err(ReadError::LimitExceeded { .. })
    ));
    let limits = hearth::Limits {
        max_entry_size: 100,
        ..Default::default()
    };
    let pak = PakReader::from_bytes_with_limits(&ok, limits).unwrap();
    assert!(pak
        .entries()
        .any(|e| matches!(e, Err(ReadError::LimitExceeded { .. }))));
}

#[test]
fn embedded_and_owned_packs_are_aligned_for_zero_copy() {
    let pak = hearth::include_pak!("fixtures/tiny.hpack").unwrap();
    assert_eq!(pak.bytes().as_ptr() as usize % 16, 0);
    for entry in pak.entries() {
        let entry = entry.unwrap();
        if let std::borrow::Cow::Borrowed(bytes) = entry.bytes().unwrap() {
            assert_eq!(bytes.as_ptr() as usize % 16, 0, "{}", entry.path());
        }
    }
    pak.verify().unwrap();
    let owned = PakReader::from_bytes(pak.bytes()).unwrap();
    assert_eq!(owned.bytes().as_ptr() as usize % 16, 0);
    assert_eq!(
        &*owned.get("hello.txt").unwrap().unwrap(),
        b"hello from the fixture pack\n"
    );
    assert!(PakReader::open("/nonexistent/pack.hpack").is_err());
}

#[test]
fn the_fixture_pack_is_what_the_baker_makes_today() {
    // tests/fixtures/tiny.hpack is committed; a format change must update it on purpose
    // (HEARTH_UPDATE_FIXTURES=1 rewrites it).
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let out = tempfile::tempdir().unwrap();
    let report = Baker::new(fixture.join("tiny/hearth.toml").as_path(), out.path())
        .cache(false)
        .run()
        .unwrap();
    let baked = std::fs::read(report.pack_path).unwrap();
    if std::env::var_os("HEARTH_UPDATE_FIXTURES").is_some() {
        std::fs::write(fixture.join("tiny.hpack"), &baked).unwrap();
    }
    assert_eq!(
        baked,
        std::fs::read(fixture.join("tiny.hpack")).unwrap(),
        "pack bytes changed"
    );
}
