//! Hostile input (issue 9): each known panic has a regression test here, and the reader's
//! [`Limits`] stop a KTX2 level or a pack entry that claims a huge uncompressed size before
//! anything of that size is allocated.
#![cfg(feature = "bake")]

use crate::common;

use hearth::format::hpack::{self, PackInput};
use hearth::format::ktx2::{self, channel, vk, BasicDfd, Ktx2Description};
use hearth::{AssetKind, Codec, Ktx2, Limits, PakReader, ReadError};

/// Byte offset of level `i`'s row in the KTX2 level index.
fn level_row(i: usize) -> usize {
    ktx2::HEADER_SIZE + i * ktx2::LEVEL_INDEX_SIZE
}

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// An 8x8 UASTC texture with two levels (zeroed blocks), stored or zstd-supercompressed.
fn uastc(zstd: Option<i32>) -> Vec<u8> {
    let desc = Ktx2Description {
        vk_format: vk::UNDEFINED,
        type_size: 1,
        width: 8,
        height: 8,
        depth: 0,
        layers: 0,
        faces: 1,
        block_bytes: 16,
        dfd: BasicDfd::uastc(channel::UASTC_RGBA, true),
        key_values: vec![("KTXwriter".into(), b"hearth test\0".to_vec())],
        zstd_level: zstd,
    };
    // Level 0: 2x2 blocks; level 1 (4x4): one block.
    ktx2::write(&desc, &[vec![0; 4 * 16], vec![0; 16]])
}

/// A 4x4 RGBA8 texture, one level, stored.
fn rgba8() -> Vec<u8> {
    let desc = Ktx2Description {
        vk_format: vk::R8G8B8A8_UNORM,
        type_size: 1,
        width: 4,
        height: 4,
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
        zstd_level: None,
    };
    ktx2::write(&desc, &[(0..64).collect()])
}

/// Reads every level (and, with `transcode`, transcodes every image to every target): the
/// first error wins; nothing may panic.
fn read_all_levels(bytes: &[u8]) -> Result<(), ReadError> {
    let ktx = Ktx2::parse(bytes)?;
    for level in 0..ktx.level_count() {
        let data = ktx.level(level)?;
        std::hint::black_box(data.len());
        let _ = ktx.level_dimensions(level);
        #[cfg(feature = "transcode")]
        for target in [
            hearth::read::transcode::TranscodeTarget::Rgba8,
            hearth::read::transcode::TranscodeTarget::Bc7,
        ] {
            let _ = hearth::read::transcode::transcode(&ktx, level, 0, 0, target);
        }
    }
    let _ = ktx.level(ktx.level_count());
    let _ = ktx.level_dimensions(u32::MAX);
    Ok(())
}

#[test]
fn ktx2_stored_level_shorter_than_its_uncompressed_length_is_an_error() {
    let good = uastc(None);
    read_all_levels(&good).unwrap();
    // Level 0 stores 64 bytes; claim it stores 16 (the uncompressed length still says 64).
    // Before the fix `parse` accepted it and `transcode` sliced past the 16 bytes.
    let mut short = good.clone();
    put_u64(&mut short, level_row(0) + 8, 16);
    let err = Ktx2::parse(&short).unwrap_err();
    assert!(matches!(err, ReadError::Invalid { .. }), "{err}");
    assert!(err.to_string().contains("KTX2 level length"), "{err}");

    // The same for an uncompressed format.
    let mut short = rgba8();
    Ktx2::parse(&short).unwrap();
    put_u64(&mut short, level_row(0) + 8, 4);
    assert!(Ktx2::parse(&short).is_err());
}

#[cfg(feature = "transcode")]
#[test]
fn transcoding_a_uastc_model_with_another_vk_format_is_an_error_not_a_panic() {
    use hearth::read::transcode::{transcode, TranscodeTarget};
    // DFD says UASTC, but the header's format says R8: the level size is then checked as R8
    // (64 texels = 64 bytes, which level 0 holds), and UASTC's images must be range-checked
    // by `transcode` itself. Level 1 (4x4, 16 bytes) is 16 bytes as UASTC and as R8 alike.
    let mut bytes = uastc(None);
    bytes[12..16].copy_from_slice(&vk::R8_UNORM.to_le_bytes());
    let mut wide = bytes.clone();
    // 16x16 pixels at level 0 need 256 bytes as R8 and 16 blocks (256 bytes) as UASTC: make
    // the header claim 16x8 instead, where R8 wants 128 bytes and UASTC 8 blocks (128).
    wide[20..24].copy_from_slice(&16u32.to_le_bytes());
    for bytes in [bytes, wide] {
        if let Ok(ktx) = Ktx2::parse(&bytes) {
            for level in 0..ktx.level_count() {
                let _ = transcode(&ktx, level, 0, 0, TranscodeTarget::Rgba8);
            }
        }
    }
}

#[test]
fn every_bit_flip_of_a_ktx2_header_and_index_is_an_error_or_reads_safely() {
    for bytes in [uastc(None), uastc(Some(3)), rgba8()] {
        let metadata = ktx2::HEADER_SIZE + 2 * ktx2::LEVEL_INDEX_SIZE;
        for byte in 0..metadata.min(bytes.len()) {
            for bit in 0..8 {
                let mut damaged = bytes.clone();
                damaged[byte] ^= 1 << bit;
                let _ = read_all_levels(&damaged);
            }
        }
        for len in 0..bytes.len() {
            assert!(Ktx2::parse(&bytes[..len]).is_err(), "prefix {len}");
        }
    }
}

#[test]
fn ktx2_level_claiming_a_huge_size_is_limited_before_allocating() {
    // A zstd level whose declared uncompressed size is 1 TiB: over the default limit.
    let mut huge = uastc(Some(3));
    put_u64(&mut huge, level_row(0) + 16, 1 << 40);
    let err = Ktx2::parse(&huge).unwrap_err();
    assert!(
        matches!(err, ReadError::LimitExceeded { what } if what.contains("KTX2 level")),
        "{err}"
    );
    // A custom limit below the real level size.
    let good = uastc(Some(3));
    let tight = Limits {
        max_ktx2_level_size: 32,
        ..Limits::default()
    };
    assert!(matches!(
        Ktx2::parse_with_limits(&good, &tight),
        Err(ReadError::LimitExceeded { .. })
    ));
    let enough = Limits {
        max_ktx2_level_size: 64,
        ..Limits::default()
    };
    let ktx = Ktx2::parse_with_limits(&good, &enough).unwrap();
    assert_eq!(ktx.level(0).unwrap().len(), 64);
    // Huge dimensions whose level size overflows u64 are an error too.
    let mut wide = uastc(None);
    wide[20..24].copy_from_slice(&u32::MAX.to_le_bytes()); // width
    wide[24..28].copy_from_slice(&u32::MAX.to_le_bytes()); // height
    wide[32..36].copy_from_slice(&u32::MAX.to_le_bytes()); // layers
    assert!(Ktx2::parse(&wide).is_err());
    // Found by the `ktx2` fuzz target: huge width, height *and* depth overflowed the UASTC
    // block count (2^30 x 2^30 x 2^31) before the checked multiplications began.
    let mut deep = uastc(None);
    for field in [20, 24, 28] {
        deep[field..field + 4].copy_from_slice(&0x7000_0000u32.to_le_bytes());
    }
    assert!(Ktx2::parse(&deep).is_err());
}

/// A v4 pack whose one zstd entry declares `size` uncompressed bytes.
fn pack_claiming(size: u64) -> Vec<u8> {
    let stored = zstd::bulk::compress(&[7u8; 1000], 3).unwrap();
    hpack::write_v4(&[PackInput {
        path: "big.bin",
        kind: AssetKind::BLOB,
        codec: Codec::Zstd,
        stored: &stored,
        size,
    }])
}

fn limit_exceeded(pak: &PakReader) -> bool {
    matches!(pak.entry(0), Err(ReadError::LimitExceeded { .. }))
        && matches!(pak.get("big.bin"), Err(ReadError::LimitExceeded { .. }))
}

#[test]
fn pack_entry_claiming_a_huge_size_is_limited_in_every_open() {
    let huge = pack_claiming(1 << 40);
    let real = pack_claiming(1000);
    let tight = Limits {
        max_entry_size: 999,
        ..Limits::default()
    };
    // Owned bytes.
    assert!(limit_exceeded(&PakReader::from_bytes(&huge).unwrap()));
    assert!(limit_exceeded(
        &PakReader::from_bytes_with_limits(&real, tight).unwrap()
    ));
    let pak = PakReader::from_bytes(&real).unwrap();
    assert_eq!(&*pak.get("big.bin").unwrap().unwrap(), &[7u8; 1000][..]);
    assert_eq!(pak.limits(), Limits::default());
    // Static bytes.
    let huge_static: &'static [u8] = Box::leak(huge.clone().into_boxed_slice());
    let real_static: &'static [u8] = Box::leak(real.clone().into_boxed_slice());
    assert!(limit_exceeded(
        &PakReader::from_static(huge_static).unwrap()
    ));
    let pak = PakReader::from_static_with_limits(real_static, tight).unwrap();
    assert_eq!(pak.limits(), tight);
    assert!(limit_exceeded(&pak));
    // Memory-mapped.
    let dir = tempfile::tempdir().unwrap();
    let (huge_path, real_path) = (dir.path().join("huge.hpack"), dir.path().join("real.hpack"));
    std::fs::write(&huge_path, &huge).unwrap();
    std::fs::write(&real_path, &real).unwrap();
    assert!(limit_exceeded(&PakReader::open(&huge_path).unwrap()));
    assert!(limit_exceeded(
        &PakReader::open_with_limits(&real_path, tight).unwrap()
    ));
    PakReader::open_verified(&real_path).unwrap();
}

/// Bakes one glTF as `rig.gltf`.
fn bake_model(gltf: &str) -> Result<hearth::bake::Report, hearth::bake::BakeError> {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("rig.gltf"), gltf).unwrap();
    std::fs::write(
        src.path().join("hearth.toml"),
        "[[content.group]]\nassets = [\"*.gltf\"]\n",
    )
    .unwrap();
    hearth::bake::Baker::new(src.path().join("hearth.toml"), out.path()).run()
}

#[test]
fn a_100k_character_animation_name_is_an_error_naming_the_file() {
    // The same model with a short name bakes, with its clip.
    let report = bake_model(&common::animated_gltf("walk")).unwrap();
    assert_eq!(report.assets, 1);
    // `.hanim` stores a name's length in 16 bits: 100,000 characters panicked the bake.
    let error = bake_model(&common::animated_gltf(&"x".repeat(100_000)))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("rig.gltf") && error.contains("name is 100000 bytes long"),
        "{}",
        &error[..error.len().min(400)]
    );
}

#[test]
fn an_output_path_over_65535_bytes_is_an_error_naming_the_source() {
    use hearth::bake::{BakeContext, Claim, Output, Pipeline, PipelineError, Source};
    /// Emits one output whose path is 70,000 bytes of short folders.
    struct Deep;
    impl Pipeline for Deep {
        type Settings = ();
        fn name(&self) -> &str {
            "deep"
        }
        fn version(&self) -> u32 {
            1
        }
        fn claims(&self) -> Vec<Claim> {
            vec![Claim::file("*.deep")]
        }
        fn bake(
            &self,
            _: &Source<'_>,
            _: &(),
            cx: &mut BakeContext<'_>,
        ) -> Result<(), PipelineError> {
            let path = format!("{}x.bin", "ab/".repeat(70_000 / 3));
            cx.emit(Output::new(path, AssetKind::BLOB, b"deep".to_vec()));
            Ok(())
        }
    }
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    common::write_files(
        src.path(),
        &[
            ("level.deep", b"x"),
            (
                "hearth.toml",
                b"[[content.group]]\nassets = [\"*.deep\"]\n" as &[u8],
            ),
        ],
    );
    let error = hearth::bake::Baker::new(src.path().join("hearth.toml"), out.path())
        .pipeline(Deep)
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("level.deep") && error.contains("longer than 65535 bytes"),
        "{}",
        &error[..error.len().min(400)]
    );
}

/// `hearth … | head`: the reader closes the pipe before the CLI has written; the CLI exits 0
/// without a word on stderr (it used to panic in `println!`).
#[cfg(feature = "cli")]
#[test]
fn a_closed_stdout_pipe_exits_quietly() {
    use std::process::{Command, Stdio};
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let pack = fixture.join("tiny.hpack");
    let pack = pack.to_str().unwrap();
    for args in [
        vec!["pack", "info", pack],
        vec!["pack", "info", "--json", pack],
        vec![
            "presets",
            fixture.join("tiny/hearth.toml").to_str().unwrap(),
        ],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end before the child writes anything.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{args:?}: {:?} {stderr}",
            output.status
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn pack_layout_of_overlapping_entries_does_not_underflow() {
    let (a, b) = (vec![1u8; 1000], vec![2u8; 1000]);
    let input = |path, stored| PackInput {
        path,
        kind: AssetKind::BLOB,
        codec: Codec::None,
        stored,
        size: 1000,
    };
    let mut bytes = hpack::write_v4(&[input("a.bin", &a), input("b.bin", &b)]);
    // Entry 0 (offset, stored size, size at 0, 8, 16 of its 48-byte row) grows to cover
    // entry 1's payload too: the entries claim 1000 bytes more payload than the file holds.
    let row = hpack::V3_HEADER_SIZE;
    let offset =
        |i: usize| u64::from_le_bytes(bytes[row + 48 * i..row + 48 * i + 8].try_into().unwrap());
    let covering = offset(1) + 1000 - offset(0);
    put_u64(&mut bytes, row + 8, covering);
    put_u64(&mut bytes, row + 16, covering);
    let pak = PakReader::from_bytes(&bytes).unwrap();
    assert_eq!(pak.entry(0).unwrap().size(), covering);
    // `hearth pack info` used to subtract the payload from the file size and underflow.
    let layout = hearth::read::inspect::pack_layout(&pak).unwrap();
    assert_eq!(layout.padding, 0);
    assert!(pak.verify().is_err(), "overlapping payloads fail verify");
}

/// Runs `f` on another thread; a test fails, rather than hangs, when it blocks for 60 s.
#[cfg(unix)]
fn within_60_s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("hung: still blocked after 60 s")
}

/// A FIFO, a link to `/dev/zero` or a link out of the output folder planted in place of one
/// of hearth's own files (`.hearth-cache`, `.hearth-lock`) is never waited on, read or
/// written through: the cache is discarded with a warning, the lock is an error naming it.
#[cfg(unix)]
#[test]
fn bookkeeping_files_planted_as_fifos_or_links_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(&dir.path().join("content"), "");
    let bake = move |out: std::path::PathBuf| {
        let manifest = manifest.clone();
        within_60_s(move || hearth::bake::Baker::new(&manifest, &out).run())
    };
    // A FIFO cache: opening it for reading used to wait for a writer forever.
    let out = dir.path().join("fifo");
    std::fs::create_dir_all(&out).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(out.join(".hearth-cache"))
        .status();
    assert!(made.unwrap().success(), "mkfifo");
    let report = bake(out.clone()).unwrap();
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains(".hearth-cache") && w.contains("not a regular file")),
        "{:?}",
        report.warnings
    );
    assert!(std::fs::symlink_metadata(out.join(".hearth-cache"))
        .unwrap()
        .is_file());
    // A cache linked to /dev/zero: it used to be read until memory ran out.
    let out = dir.path().join("zero");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink("/dev/zero", out.join(".hearth-cache")).unwrap();
    let report = bake(out.clone()).unwrap();
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains(".hearth-cache") && w.contains("symbolic link")),
        "{:?}",
        report.warnings
    );
    // A lock linked out of the folder: it used to create the file it points to.
    let out = dir.path().join("lock");
    let outside = dir.path().join("outside.txt");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&outside, out.join(".hearth-lock")).unwrap();
    let error = bake(out.clone()).unwrap_err().to_string();
    assert!(
        error.contains(".hearth-lock") && error.contains("symbolic link"),
        "{error}"
    );
    assert!(!outside.exists(), "created through the link");
}

/// A FIFO planted as `.hearth-lock` is refused as "not a regular file", naming it, as a FIFO
/// `.hearth-cache` is (opening it for writing used to fail with "No such device or address").
#[cfg(unix)]
#[test]
fn a_fifo_lock_is_refused_as_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(&dir.path().join("content"), "");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(out.join(".hearth-lock"))
        .status();
    assert!(made.unwrap().success(), "mkfifo");
    let error = within_60_s(move || hearth::bake::Baker::new(&manifest, &out).run())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(".hearth-lock") && error.contains("not a regular file"),
        "{error}"
    );
}

/// A content folder with one file and a `mobile` preset whose `output` is `output`.
fn preset_site(output: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(&dir.path().join("content"), &[("data/a.txt", b"a")]);
    let manifest = dir.path().join("content/hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[content.group]]\nassets = [\"data/*\"]\n[presets.mobile]\noutput = {}\n",
            toml_string(output)
        ),
    )
    .unwrap();
    (dir, manifest)
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[test]
fn a_preset_output_that_is_not_a_visible_relative_folder_is_an_error_naming_the_key() {
    for (output, why) in [
        (".hearth-txn", "is hidden"),
        (".hidden", "is hidden"),
        ("a/.hearth-cache", "is hidden"),
        (".", "outside the runtime tree"),
        ("..", "outside the runtime tree"),
        ("a/../b", "outside the runtime tree"),
        ("a//b", "outside the runtime tree"),
        ("", "is empty"),
        ("/abs", "must be relative"),
        ("a\\b", "must be relative"),
        ("assets.hman", "reserved for the manifest"),
    ] {
        let (dir, manifest) = preset_site(output);
        let out = dir.path().join("out");
        let error = hearth::bake::Baker::new(manifest.as_path(), &out)
            .preset("mobile")
            .run()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("hearth.toml")
                && error.contains("`presets.mobile.output`")
                && error.contains(&format!("{output:?}"))
                && error.contains(why),
            "{output:?}: {error}"
        );
        assert!(!out.exists(), "{output:?}: nothing is written");
    }
}

#[test]
fn a_preset_output_set_in_code_is_checked_too() {
    let (dir, manifest) = preset_site("mobile");
    let mut config = hearth::bake::Config::load(&manifest).unwrap();
    config.presets.get_mut("mobile").unwrap().output = Some(".hearth-txn".into());
    let out = dir.path().join("out");
    let error = hearth::bake::Baker::new(config, &out)
        .preset("mobile")
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`presets.mobile.output`") && error.contains("is hidden"),
        "{error}"
    );
    assert!(!out.exists());
}

/// A manifest nesting 40 x 40 levels through dotted keys inside inline tables (the `toml`
/// parser recurses on each and overflowed the caller's stack, aborting the process) is an
/// error naming the file, for `Config::load` and for a bake; this process survives.
#[test]
fn a_deeply_nested_manifest_is_an_error_not_an_abort() {
    let n = 40;
    let key = |first: &str| format!("{first}{}", ".a".repeat(n));
    let mut value = String::new();
    for _ in 0..n {
        value += &format!("{{ {} = ", key("b"));
    }
    value += "1";
    value += &" }".repeat(n);
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[content.group]]\nassets = [\"*.txt\"]\n[default]\n{} = {value}\n",
            key("texture")
        ),
    )
    .unwrap();
    let loaded = hearth::bake::Config::load(&manifest).map(|_| ());
    let baked = hearth::bake::Baker::new(manifest.as_path(), out.path())
        .run()
        .map(|_| ());
    for result in [loaded, baked] {
        let error = result.unwrap_err().to_string();
        assert!(
            error.contains(&manifest.display().to_string()) && error.contains("nested deeper than"),
            "{error}"
        );
    }
    // Nesting within the bound still parses.
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"*.txt\"]\n[default]\ntexture = { a = { b = { c = 1 } } }\n",
    )
    .unwrap();
    hearth::bake::Config::load(&manifest).unwrap();
}

/// A cached output is read back to re-pack it as hearth's own file: a symlink planted in its
/// place after the tree was listed (here, as packing starts) is an error naming it, not
/// followed (even to identical bytes outside the output folder); the next bake re-bakes it
/// and loses nothing.
#[test]
fn a_link_planted_over_a_cached_output_is_not_followed_when_packing() {
    use hearth::bake::{Baker, Progress};
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    let text = b"kept in the pack\n".repeat(20);
    common::write_files(
        &src,
        &[
            ("data/a.txt", &text),
            ("data/b.txt", b"first"),
            (
                "hearth.toml",
                b"[[content.group]]\nassets = [\"data/*.txt\"]\n",
            ),
        ],
    );
    let manifest = src.join("hearth.toml");
    Baker::new(manifest.as_path(), &out).run().unwrap();
    // b changes, so the pack is rebuilt; a is a cache hit. With the previous pack there, a's
    // entry is copied out of it and its tree file is not read at all; the link planted below
    // is then neither followed nor packed.
    std::fs::write(src.join("data/b.txt"), b"second").unwrap();
    let plant = |baker: &mut Baker, planted: std::path::PathBuf, link: std::path::PathBuf| {
        baker.on_progress(move |event| {
            if let Progress::Packing { .. } = event {
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&planted, &link).unwrap();
            }
        });
    };
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, b"outside").unwrap();
    let output = out.join("data/a.txt");
    let mut baker = Baker::new(manifest.as_path(), &out);
    plant(&mut baker, outside.clone(), output.clone());
    let report = baker.run().unwrap();
    assert!(report.pack_entries_copied > 0);
    let pack = hearth::PakReader::open(out.join("assets.hpack")).unwrap();
    assert_eq!(&*pack.get("data/a.txt").unwrap().unwrap(), &text[..]);
    drop(pack);
    // The next bake finds the link where a's output was: a is baked again.
    let report = Baker::new(manifest.as_path(), &out).run().unwrap();
    assert!(report.baked.iter().any(|rel| rel == "data/a.txt"));
    assert!(!output.is_symlink());
    // Without the previous pack, a's output is read back from the tree: a link planted there
    // is an error naming it.
    std::fs::write(src.join("data/b.txt"), b"third").unwrap();
    std::fs::remove_file(out.join("assets.hpack")).unwrap();
    std::fs::write(&outside, &text).unwrap();
    let mut baker = Baker::new(manifest.as_path(), &out);
    plant(&mut baker, outside.clone(), output.clone());
    let error = baker.run().unwrap_err().to_string();
    assert!(
        error.contains(&output.display().to_string()) && error.contains("symbolic link"),
        "{error}"
    );

    let report = Baker::new(manifest.as_path(), &out).run().unwrap();
    assert!(
        report.baked.iter().any(|rel| rel == "data/a.txt"),
        "{:?}",
        report.baked
    );
    assert!(!output.is_symlink());
    assert_eq!(std::fs::read(&output).unwrap(), text);
    let pack = hearth::PakReader::open(out.join("assets.hpack")).unwrap();
    assert_eq!(&*pack.get("data/a.txt").unwrap().unwrap(), &text[..]);
    assert_eq!(&*pack.get("data/b.txt").unwrap().unwrap(), b"third");
}
