//! The reader against damaged packs: every truncation and every bit flip of header and tables
//! is an error (at open, on access, or at the latest in `verify`), never a panic.
#![cfg(feature = "bake")]

use crate::common;

use hearth::bake::pack::PackFile;
use hearth::bake::Baker;
use hearth::{AssetKind, Codec, PakReader, ReadError};
use std::path::Path;

/// `[content]` lines baking the sample content into a v3 and a v4 (the default) pack.
const V3_ZSTD: &str = "compression = \"zstd\"\npack_version = 3";
const V4_ZSTD: &str = "compression = \"zstd\"";

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
fn every_truncation_of_a_v3_or_v4_pack_fails_at_open() {
    for extra in [
        V3_ZSTD,
        V4_ZSTD,
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
fn every_bit_flip_in_v3_and_v4_header_and_tables_is_caught() {
    // v4 accepts every kind byte, so a flipped kind is caught by the tables checksum.
    for extra in [V3_ZSTD, V4_ZSTD] {
        let bytes = real_pack(extra);
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
                    "{extra}: flip of bit {bit} in byte {byte} went unnoticed"
                );
            }
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
        let mut buffer = Vec::new();
        for entry in pak.entries() {
            let entry = entry.unwrap();
            let _ = entry.bytes(); // may fail (a zstd frame), must not panic
                                   // The reused buffer and the thread's reused zstd context: a failed frame leaves
                                   // the buffer empty, and the next entry reads right.
            if entry.bytes_into(&mut buffer).is_err() {
                assert!(buffer.is_empty());
            }
        }
        // Payload bytes are covered by their checksums, padding by the layout check.
        assert!(pak.verify().is_err(), "byte {byte}");
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
    let pak = hearth::include_pak!("../fixtures/tiny.hpack").unwrap();
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

/// Bakes `tests/fixtures/tiny` (its manifest plus `content_extra` in `[content]`) from
/// scratch and returns the pack's bytes.
fn bake_tiny(content_extra: &str) -> Vec<u8> {
    bake_tiny_signed(content_extra, None)
}

/// A fixed signing key for the v5 fixture (seed 32 × 0x07): tests only.
fn fixture_key() -> hearth::bake::signing::SigningKey {
    use hearth::format::key::{encode, SECRET_KEY_TAG};
    hearth::bake::signing::SigningKey::parse(&encode(SECRET_KEY_TAG, &[7; 32])).unwrap()
}

/// [`bake_tiny`], signed with `key` when given.
fn bake_tiny_signed(
    content_extra: &str,
    key: Option<hearth::bake::signing::SigningKey>,
) -> Vec<u8> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny");
    let src = tempfile::tempdir().unwrap();
    common::copy_dir(&fixture, src.path());
    let manifest = src.path().join("hearth.toml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("[content]\n", &format!("[content]\n{content_extra}\n"));
    std::fs::write(&manifest, text).unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut baker = Baker::new(manifest.as_path(), out.path());
    baker.cache(false);
    if let Some(key) = key {
        baker.sign(key);
    }
    let report = baker.run().unwrap();
    std::fs::read(report.pack_path).unwrap()
}

/// Compares a fresh bake with the committed fixture `name` (`HEARTH_UPDATE_FIXTURES=1`
/// rewrites it): a format change must update the fixtures on purpose.
fn assert_fixture(name: &str, content_extra: &str) {
    assert_fixture_bytes(name, bake_tiny(content_extra));
}

fn assert_fixture_bytes(name: &str, baked: Vec<u8>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    if std::env::var_os("HEARTH_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &baked).unwrap();
    }
    assert_eq!(
        baked,
        std::fs::read(&path).unwrap(),
        "{name}: pack bytes changed"
    );
}

#[test]
fn the_fixture_packs_are_what_the_baker_makes_today() {
    assert_fixture("tiny.hpack", "pack_version = 3");
    assert_fixture("tiny-v4.hpack", "");
    assert_fixture_bytes("tiny-v5.hpack", bake_tiny_signed("", Some(fixture_key())));
    let v3 = PakReader::from_static(include_bytes!("../fixtures/tiny.hpack")).unwrap();
    let v4 = PakReader::from_static(include_bytes!("../fixtures/tiny-v4.hpack")).unwrap();
    let v5 = PakReader::from_static_signed(
        include_bytes!("../fixtures/tiny-v5.hpack"),
        &fixture_key().public_key(),
    )
    .unwrap();
    assert_eq!((v3.version(), v4.version(), v5.version()), (3, 4, 5));
    // v3's kinds are assetc's extension table, which has no name table: a blob there.
    let mut v4_as_v3 = read_back(&v4);
    for (path, kind, _, _) in &mut v4_as_v3.0 {
        if path == "assets.hnames" {
            *kind = AssetKind::BLOB;
        }
    }
    assert_eq!(read_back(&v3), v4_as_v3);
    assert_eq!(read_back(&v4), read_back(&v5));
}

/// Every entry as (path, kind, codec, bytes), also found by path and by hash, plus the
/// manifest rows.
type ReadBack = (
    Vec<(String, AssetKind, Codec, Vec<u8>)>,
    Vec<hearth::ManifestRecord>,
);

fn read_back(pak: &PakReader) -> ReadBack {
    pak.verify().unwrap();
    // One buffer for every `get_into`: it reads what `get` reads, whatever the buffer held.
    let mut buffer = b"left over from before".to_vec();
    assert!(!pak.get_into("no/such/entry", &mut buffer).unwrap());
    assert_eq!(buffer, b"left over from before", "untouched when absent");
    let entries = pak
        .entries()
        .map(|entry| {
            let entry = entry.unwrap();
            let path = entry.path().into_owned();
            let bytes = entry.bytes().unwrap().into_owned();
            assert_eq!(*pak.get(&path).unwrap().unwrap(), *bytes, "{path}");
            assert!(pak.get_into(&path, &mut buffer).unwrap());
            assert_eq!(buffer, bytes, "{path}");
            let by_hash = pak.find_by_hash(entry.hash()).unwrap().unwrap();
            assert_eq!(by_hash.path(), path);
            (path, entry.kind(), entry.codec(), bytes)
        })
        .collect();
    (entries, pak.manifest().unwrap().to_vec())
}

#[test]
fn v2_v3_and_v4_packs_of_the_same_content_read_back_identically() {
    let read = |extra: &str| {
        let pak = PakReader::from_bytes(real_pack(extra)).unwrap();
        (pak.version(), read_back(&pak))
    };
    let none = "compression = \"none\"";
    let (v2, v2_back) = read("pack_version = 2");
    let (v3, v3_back) = read(&format!("{none}\npack_version = 3"));
    let (v4, mut v4_back) = read(none);
    assert_eq!((v2, v3, v4), (2, 3, 4));
    assert_eq!(v2_back, v3_back);
    assert_eq!(
        (v3_back.0.len(), v3_back.1.len()),
        (7, 5),
        "entries, manifest rows"
    );
    // v2/v3 kinds come from assetc's extension table, v4's from the manifest rows: they agree
    // on every file but the font and the name table, which assetc's table does not know.
    let kinds: Vec<(&str, AssetKind)> = v4_back
        .0
        .iter()
        .map(|(path, kind, _, _)| (path.as_str(), *kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("assets.hman", AssetKind::MANIFEST),
            ("assets.hnames", AssetKind::NAMES),
            ("data/levels/level1.txt", AssetKind::BLOB),
            ("data/levels/level2.txt", AssetKind::BLOB),
            ("fonts/ui.ttf", AssetKind::FONT),
            ("shaders/mesh.spv", AssetKind::SHADER),
            ("sounds/hit.ogg", AssetKind::BLOB),
        ]
    );
    for (path, kind, _, _) in &mut v4_back.0 {
        if path == "fonts/ui.ttf" || path == "assets.hnames" {
            *kind = AssetKind::BLOB;
        }
    }
    assert_eq!(v4_back, v3_back);
    // With compression, the v3 and v4 packs hold the same entries with the same codecs.
    let (_, v3_zstd) = read(V3_ZSTD);
    let (_, v4_zstd) = read(V4_ZSTD);
    let strip = |back: &ReadBack| -> Vec<(String, Codec, Vec<u8>)> {
        back.0
            .iter()
            .map(|(path, _, codec, bytes)| (path.clone(), *codec, bytes.clone()))
            .collect()
    };
    assert_eq!(strip(&v3_zstd), strip(&v4_zstd));
    assert!(strip(&v4_zstd)
        .iter()
        .any(|(_, codec, _)| *codec == Codec::Zstd));
    assert_eq!(v3_zstd.1, v4_zstd.1);
}

/// A v4 pack, written by the pack writer the baker uses, whose entries have game kinds (130,
/// 255) and a hearth kind newer than this reader (99), beside known ones.
pub fn game_kinds_pack() -> Vec<u8> {
    let level = "level data ".repeat(40);
    let files = [
        ("blob.bin", AssetKind::BLOB, &b"plain"[..], Codec::None),
        (
            "game/level.lvl",
            AssetKind(130),
            level.as_bytes(),
            Codec::Zstd,
        ),
        ("game/save.sav", AssetKind(255), &b"save"[..], Codec::None),
        (
            "newer/thing.x",
            AssetKind(99),
            &b"from the future"[..],
            Codec::None,
        ),
    ];
    let files: Vec<PackFile<'_>> = files
        .iter()
        .map(|(path, kind, bytes, codec)| PackFile {
            path,
            kind: *kind,
            bytes,
            codec: *codec,
            level: None,
        })
        .collect();
    hearth::bake::pack::build(4, &files)
}

#[test]
fn a_v4_pack_with_game_kinds_opens_lists_reads_and_verifies() {
    let pak = PakReader::from_bytes(game_kinds_pack()).unwrap();
    assert_eq!(pak.version(), 4);
    let (entries, manifest) = read_back(&pak);
    assert!(manifest.is_empty());
    let listed: Vec<(&str, AssetKind, Codec, usize)> = entries
        .iter()
        .map(|(path, kind, codec, bytes)| (path.as_str(), *kind, *codec, bytes.len()))
        .collect();
    assert_eq!(
        listed,
        [
            ("blob.bin", AssetKind::BLOB, Codec::None, 5),
            ("game/level.lvl", AssetKind(130), Codec::Zstd, 440),
            ("game/save.sav", AssetKind(255), Codec::None, 4),
            ("newer/thing.x", AssetKind(99), Codec::None, 15),
        ]
    );
    let names: Vec<String> = entries.iter().map(|e| e.1.to_string()).collect();
    assert_eq!(names, ["blob", "game(130)", "game(255)", "kind(99)"]);
    assert_eq!(
        &*pak.get("game/save.sav").unwrap().unwrap(),
        b"save",
        "a game kind reads like any entry"
    );
    let layout = hearth::read::inspect::pack_layout(&pak).unwrap();
    assert_eq!(
        layout.per_kind[&AssetKind(130)],
        (
            1,
            440,
            pak.find("game/level.lvl").unwrap().unwrap().stored_size()
        )
    );
    assert_eq!(layout.per_kind[&AssetKind(255)], (1, 4, 4));
}

/// A v4 pack of stored blobs, each holding its own path.
fn pack_of_paths(paths: &[impl AsRef<str>]) -> Vec<u8> {
    let files: Vec<PackFile<'_>> = paths
        .iter()
        .map(|path| PackFile {
            path: path.as_ref(),
            kind: AssetKind::BLOB,
            bytes: path.as_ref().as_bytes(),
            codec: Codec::None,
            level: None,
        })
        .collect();
    hearth::bake::pack::build(4, &files)
}

/// A pack with one corrupt row (a codec byte no reader knows) and one corrupt path (not
/// UTF-8): looking either up by hash or by path is an error or a miss naming no other entry,
/// never a panic or a wrong entry, and every other entry is still found both ways.
#[test]
fn lookups_in_a_pack_with_corrupt_rows_report_them_and_find_the_rest() {
    let paths = ["a/bad_codec.bin", "a/bad_name.bin", "a/good.bin", "top.bin"];
    let mut bytes = pack_of_paths(&paths);
    let header = *PakReader::from_bytes(&bytes).unwrap().v3_header().unwrap();
    let row = |index: usize| header.entries_offset as usize + index * 48;
    bytes[row(0) + 43] = 200; // codec
    let name_offset = u32::from_le_bytes(bytes[row(1) + 36..row(1) + 40].try_into().unwrap());
    bytes[header.strings_offset as usize + name_offset as usize] = 0xff;
    let pak = PakReader::from_bytes(&bytes).unwrap();
    let hash = hearth::format::hash::hash_runtime_path;

    assert!(matches!(
        pak.find_by_hash(hash(paths[0])),
        Err(ReadError::Invalid { what }) if what.contains("codec")
    ));
    assert!(pak.find(paths[0]).is_err());
    assert!(matches!(
        pak.find_by_hash(hash(paths[1])),
        Err(ReadError::Invalid { what }) if what.contains("UTF-8")
    ));
    assert!(
        pak.find(paths[1]).unwrap().is_none(),
        "its bytes no longer spell the path"
    );
    for path in &paths[2..] {
        assert_eq!(pak.find(path).unwrap().unwrap().path(), *path);
        assert_eq!(pak.find_by_hash(hash(path)).unwrap().unwrap().path(), *path);
    }
    assert!(pak.verify().is_err());
}

/// A crafted pack whose hash slots crowd into one probe run (hashes 1, 2, 3 …, still sorted,
/// each naming its entry): the reader falls back to searching the file's slots, and every
/// hash still finds its entry while other hashes find nothing.
#[test]
fn crowded_hashes_fall_back_to_a_search_and_still_find_every_entry() {
    let paths: Vec<String> = (0..300).map(|i| format!("dir/file_{i:03}.bin")).collect();
    let mut bytes = pack_of_paths(&paths);
    let header = *PakReader::from_bytes(&bytes).unwrap().v3_header().unwrap();
    let mut slot_entries = Vec::new();
    for slot in 0..paths.len() {
        let at = header.hash_index_offset as usize + slot * 16;
        bytes[at..at + 8].copy_from_slice(&(slot as u64 + 1).to_le_bytes());
        slot_entries.push(u32::from_le_bytes(
            bytes[at + 8..at + 12].try_into().unwrap(),
        ));
    }
    let pak = PakReader::from_bytes(&bytes).unwrap();
    for (slot, entry) in slot_entries.iter().enumerate() {
        let found = pak.find_by_hash(slot as u64 + 1).unwrap().unwrap();
        assert_eq!(found.index(), *entry as usize);
        assert_eq!(found.path(), paths[*entry as usize]);
    }
    assert!(pak.find_by_hash(0).unwrap().is_none());
    assert!(pak.find_by_hash(paths.len() as u64 + 1).unwrap().is_none());
    assert!(
        pak.verify().is_err(),
        "the slots no longer hash their paths"
    );
}

/// Lookups through the hash index: every path of a 20k-entry pack (v3 and v4, in nested
/// folders) is found by path and by hash, absent paths are not, and paths that differ only
/// in ASCII case (one asset hash, two entries) are told apart by the path comparison.
#[test]
fn lookups_by_path_and_hash_find_every_entry_and_no_other() {
    let mut paths: Vec<String> = (0..20_000)
        .map(|i| format!("d{}/e{}/file_{i}.bin", i % 37, i % 11))
        .collect();
    paths.extend(["Case/Name.txt", "case/name.txt", "root.txt", "Root.TXT"].map(str::to_owned));
    paths.sort();
    let bodies: Vec<Vec<u8>> = paths.iter().map(|p| p.as_bytes().to_vec()).collect();
    let files: Vec<PackFile<'_>> = paths
        .iter()
        .zip(&bodies)
        .map(|(path, bytes)| PackFile {
            path,
            kind: AssetKind::BLOB,
            bytes,
            codec: Codec::None,
            level: None,
        })
        .collect();
    for version in [3, 4] {
        let pak = PakReader::from_bytes(hearth::bake::pack::build(version, &files)).unwrap();
        for path in &paths {
            let entry = pak.find(path).unwrap().unwrap_or_else(|| panic!("{path}"));
            assert_eq!(entry.path(), path.as_str());
            assert_eq!(&*entry.bytes().unwrap(), path.as_bytes());
            let by_hash = pak
                .find_by_hash(hearth::format::hash::hash_runtime_path(path))
                .unwrap()
                .unwrap();
            // The two case variants share a hash: either is a right answer for the hash.
            assert!(by_hash.path().eq_ignore_ascii_case(path), "{path}");
        }
        for absent in [
            "",
            "d0",
            "d0/e0",
            "d0/e0/file_0.bi",
            "CASE/NAME.TXT",
            "ROOT.txt",
            "/root.txt",
            "d0/root.txt",
            "d0/e0/file_0.bin/",
            "/d0/e0/file_0.bin",
            "x/y/z",
        ] {
            assert!(pak.find(absent).unwrap().is_none(), "{absent:?}");
        }
        assert!(pak.find_by_hash(0x1234_5678).unwrap().is_none());
    }
}

/// Every pack size from 0 to 70 entries, as v3, v4 and signed v5: each entry is found by path
/// and by hash, and absent paths and hashes are misses, and every lookup returns. (The
/// in-memory hash table of a two-entry pack was once full, and a miss probed it forever.)
#[test]
fn lookups_return_for_every_small_pack_size() {
    let (done, finished) = std::sync::mpsc::channel();
    let lookups = std::thread::spawn(move || {
        for count in 0..=70usize {
            let mut paths: Vec<String> = (0..count)
                .map(|i| format!("dir{}/asset_{i}.bin", i % 3))
                .collect();
            paths.sort();
            let files: Vec<PackFile<'_>> = paths
                .iter()
                .map(|path| PackFile {
                    path,
                    kind: AssetKind::BLOB,
                    bytes: path.as_bytes(),
                    codec: Codec::None,
                    level: None,
                })
                .collect();
            let packs = [
                hearth::bake::pack::build(3, &files),
                hearth::bake::pack::build(4, &files),
                hearth::bake::pack::build_signed(&files, &fixture_key()),
            ];
            for bytes in packs {
                let pak = PakReader::from_bytes(bytes).unwrap();
                assert_small_pack_lookups(&pak, &paths);
            }
        }
        done.send(()).unwrap();
    });
    match finished.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(()) => lookups.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("a lookup never returned"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(lookups.join().unwrap_err())
        }
    }
}

/// Hits and misses by path and by hash in `pak`, which holds exactly `paths`.
fn assert_small_pack_lookups(pak: &PakReader, paths: &[String]) {
    let hash = hearth::format::hash::hash_runtime_path;
    for path in paths {
        assert_eq!(pak.find(path).unwrap().unwrap().path(), *path);
        assert_eq!(&*pak.get(path).unwrap().unwrap(), path.as_bytes());
        assert_eq!(pak.find_by_hash(hash(path)).unwrap().unwrap().path(), *path);
        assert!(pak.get_by_hash(hash(path)).unwrap().is_some());
    }
    let absent = ["missing.txt", "dir0/asset_999.bin", "dir1", ""];
    for path in absent {
        assert!(pak.find(path).unwrap().is_none(), "{path:?}");
        assert!(pak.get(path).unwrap().is_none(), "{path:?}");
        assert!(pak.find_by_hash(hash(path)).unwrap().is_none(), "{path:?}");
    }
    // Hashes spread over the whole range, so that misses start at every home slot.
    for i in 0..256u64 {
        let probe = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let expected = paths.iter().any(|p| hash(p) == probe);
        assert_eq!(pak.find_by_hash(probe).unwrap().is_some(), expected);
    }
}

/// A 64x32 RGBA8 KTX2 (7 levels, each filled with its own index), zstd-supercompressed or not,
/// and its levels.
fn streaming_ktx2(zstd: Option<i32>) -> (Vec<u8>, Vec<Vec<u8>>) {
    use hearth::format::ktx2::{self, channel, vk, BasicDfd, Ktx2Description};
    let desc = Ktx2Description {
        vk_format: vk::R8G8B8A8_UNORM,
        type_size: 1,
        width: 64,
        height: 32,
        depth: 0,
        layers: 0,
        faces: 1,
        block_bytes: 4,
        dfd: BasicDfd::uncompressed(
            &[channel::R, channel::G, channel::B, channel::A],
            8,
            false,
            false,
        ),
        key_values: Vec::new(),
        zstd_level: zstd,
    };
    let levels: Vec<Vec<u8>> = (0..7u32)
        .map(|level| {
            let (w, h) = ((64 >> level).max(1), (32 >> level).max(1));
            (0..w * h * 4).map(|i| (level * 40 + i % 7) as u8).collect()
        })
        .collect();
    (ktx2::write(&desc, &levels), levels)
}

/// `raw.ktx2` (no supercompression) and `zstd.ktx2` (supercompressed) stored, `whole.ktx2`
/// (no supercompression) compressed by the pack as a whole, and a text entry.
fn streaming_pack() -> (Vec<u8>, Vec<Vec<u8>>) {
    let (raw, levels) = streaming_ktx2(None);
    let (zstd, zstd_levels) = streaming_ktx2(Some(3));
    assert_eq!(levels, zstd_levels);
    let file = |path, bytes, codec| PackFile {
        path,
        kind: AssetKind::TEXTURE,
        bytes,
        codec,
        level: None,
    };
    // Sorted by path, as the pack writer wants.
    let files = [
        file("notes.txt", b"not a texture", Codec::None),
        file("raw.ktx2", &raw[..], Codec::None),
        file("whole.ktx2", &raw[..], Codec::Zstd),
        file("zstd.ktx2", &zstd[..], Codec::Zstd),
    ];
    (hearth::bake::pack::build(4, &files), levels)
}

#[test]
fn a_texture_streams_its_levels_smallest_first_from_a_pack() {
    let (bytes, levels) = streaming_pack();
    let pak = PakReader::from_bytes(&bytes).unwrap();
    let pack_range = pak.bytes().as_ptr_range();
    let raw = pak.find("raw.ktx2").unwrap().unwrap();
    let zstd = pak.find("zstd.ktx2").unwrap().unwrap();
    // The baker stores a supercompressed KTX2 as is, whatever the pack's codec.
    assert_eq!((raw.codec(), zstd.codec()), (Codec::None, Codec::None));
    for path in ["raw.ktx2", "zstd.ktx2"] {
        let stream = hearth::TextureStream::open(&pak, path).unwrap().unwrap();
        assert_eq!(
            (stream.width(), stream.height(), stream.level_count()),
            (64, 32, 7)
        );
        assert_eq!(stream.level_size(0), Some(64 * 32 * 4));
        assert_eq!(stream.level_size(7), None);
        let order: Vec<_> = stream
            .levels_smallest_first()
            .map(|mip| mip.unwrap())
            .collect();
        assert_eq!(
            order.iter().map(|mip| mip.level).collect::<Vec<_>>(),
            [6, 5, 4, 3, 2, 1, 0]
        );
        for mip in &order {
            assert_eq!(
                *mip.bytes, levels[mip.level as usize],
                "{path} {}",
                mip.level
            );
            assert_eq!(
                (mip.width, mip.height, mip.depth),
                ((64 >> mip.level), (32 >> mip.level).max(1), 1)
            );
            // Stored without supercompression: a slice of the pack itself, no copy.
            if path == "raw.ktx2" {
                let range = mip.bytes.as_ptr_range();
                assert!(matches!(mip.bytes, std::borrow::Cow::Borrowed(_)));
                assert!(pack_range.start <= range.start && range.end <= pack_range.end);
            }
        }
        // The tail: every level of at most 8 pixels a side (8x4 down to 1x1), smallest first.
        assert_eq!(stream.tail_start(8), 3);
        let tail = stream.tail(8).unwrap();
        assert_eq!(tail, order[..4]);
        assert_eq!(stream.tail(64).unwrap(), order);
        assert_eq!(stream.tail_start(0), 7);
        assert!(stream.tail(0).unwrap().is_empty());
        assert!(matches!(
            stream.level(7),
            Err(ReadError::OutOfBounds { .. })
        ));
    }

    // Compressed by the pack as a whole: refused, with the way out in the message, which works.
    let whole = pak.find("whole.ktx2").unwrap().unwrap();
    assert_eq!(whole.codec(), Codec::Zstd);
    let err = hearth::TextureStream::from_entry(&whole).unwrap_err();
    assert!(
        err.to_string().contains("compressed it as a whole"),
        "{err}"
    );
    let inflated = whole.bytes().unwrap();
    let stream = hearth::TextureStream::from_bytes(&inflated).unwrap();
    assert_eq!(*stream.level(2).unwrap().bytes, levels[2]);
    // Not a texture.
    assert!(matches!(
        hearth::TextureStream::open(&pak, "notes.txt"),
        Err(ReadError::BadMagic { .. })
    ));
    assert!(hearth::TextureStream::open(&pak, "missing.ktx2")
        .unwrap()
        .is_none());
}

/// Reading the tail reads nothing of the large levels: with level 0's stored bytes destroyed,
/// the stream still opens and serves every other level; level 0 itself is a zstd error when
/// supercompressed, or the damaged bytes as they are (KTX2 has no per-level checksum).
#[test]
fn a_texture_tail_reads_without_touching_level_0() {
    let (bytes, levels) = streaming_pack();
    for path in ["raw.ktx2", "zstd.ktx2"] {
        let mut damaged = bytes.clone();
        let (entry_offset, level_0) = {
            let pak = PakReader::from_bytes(&bytes).unwrap();
            let entry = pak.find(path).unwrap().unwrap();
            let info = hearth::format::ktx2::parse(entry.stored_bytes()).unwrap();
            (entry.offset() as usize, info.levels[0])
        };
        let start = entry_offset + level_0.byte_offset as usize;
        damaged[start..start + level_0.byte_length as usize].fill(0xA5);

        let pak = PakReader::from_bytes(&damaged).unwrap();
        let stream = hearth::TextureStream::open(&pak, path).unwrap().unwrap();
        for mip in stream.tail(32).unwrap() {
            assert_eq!(
                *mip.bytes, levels[mip.level as usize],
                "{path} {}",
                mip.level
            );
        }
        assert_eq!(stream.tail(32).unwrap().len(), 6);
        match (path, stream.level(0)) {
            ("zstd.ktx2", Err(ReadError::Invalid { what })) => assert!(what.contains("zstd")),
            ("raw.ktx2", Ok(mip)) => assert!(mip.bytes.iter().all(|&b| b == 0xA5)),
            (path, other) => panic!("{path}: {other:?}"),
        }
        // The pack's own check still sees the damage.
        assert!(pak.verify().is_err());
    }
}
