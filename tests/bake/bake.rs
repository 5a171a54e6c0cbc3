//! End-to-end: manifest -> Baker -> runtime tree + assets.hman + .hpack -> PakReader.
#![cfg(feature = "bake")]

use crate::common::*;
use hearth::bake::Baker;
use hearth::format::hman;
use hearth::format::hpack::PackKind;
use hearth::{hash_asset_ref, AssetKind, Codec, PakReader};
use std::sync::{Arc, Mutex};

#[test]
fn bakes_tree_manifest_and_pack_that_read_back() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let sink = warnings.clone();
    let report = Baker::new(manifest.as_path(), out.path())
        .on_warning(move |w| sink.lock().unwrap().push(w.to_owned()))
        .run()
        .unwrap();
    assert!(
        warnings.lock().unwrap().is_empty(),
        "{:?}",
        warnings.lock().unwrap()
    );

    // A file in two groups is baked once; wip and hidden files stay out.
    let expected = [
        "data/levels/level1.txt",
        "data/levels/level2.txt",
        "fonts/ui.ttf",
        "shaders/mesh.spv",
        "sounds/hit.ogg",
    ];
    assert_eq!(report.assets, expected.len());
    assert_eq!(report.cache_hits, 0);
    for rel in expected {
        assert_eq!(
            std::fs::read(out.path().join(rel)).unwrap(),
            std::fs::read(src.path().join(rel)).unwrap(),
            "{rel}"
        );
    }
    assert!(!out.path().join("data/wip").exists() && !out.path().join("data/.hidden").exists());

    // assets.hman lists every asset with its kind, sorted by hash.
    let manifest_bytes = std::fs::read(out.path().join("assets.hman")).unwrap();
    let rows = hman::parse(&manifest_bytes).unwrap();
    assert_eq!(rows.len(), expected.len());
    for rel in expected {
        let row = hman::find(&rows, hash_asset_ref(rel))
            .unwrap_or_else(|| panic!("{rel} not in manifest"));
        assert_eq!(row.path, rel);
        let kind = match rel {
            "shaders/mesh.spv" => AssetKind::SHADER,
            "fonts/ui.ttf" => AssetKind::FONT,
            _ => AssetKind::BLOB,
        };
        assert_eq!(row.kind, kind, "{rel}");
    }

    // The pack holds the tree, the manifest and the name table, verified, readable by path
    // and by hash.
    let pak = PakReader::open(out.path().join("game.hpack")).unwrap();
    assert_eq!(report.pack_path, out.path().join("game.hpack"));
    pak.verify().unwrap();
    assert_eq!(pak.version(), 4);
    assert_eq!(pak.len(), expected.len() + 2);
    for rel in expected.iter().chain(&["assets.hman", "assets.hnames"]) {
        let on_disk = std::fs::read(out.path().join(rel)).unwrap();
        assert_eq!(&*pak.get(rel).unwrap().unwrap(), &on_disk[..], "{rel}");
        assert_eq!(
            &*pak
                .get_by_hash(hearth::hash_runtime_path(rel))
                .unwrap()
                .unwrap(),
            &on_disk[..],
            "{rel}"
        );
    }
    assert!(pak.get("data/wip/secret.txt").unwrap().is_none());
    assert_eq!(
        &*pak
            .resolve(hash_asset_ref("sounds/hit.ogg"))
            .unwrap()
            .unwrap()
            .path,
        "sounds/hit.ogg"
    );
    // Compressible text is compressed, the .ogg is stored (zero-copy); entry kinds are the
    // manifest rows' kinds (the font is a font in v4, where v3 had only "other").
    let level = pak.find("data/levels/level1.txt").unwrap().unwrap();
    assert_eq!(level.codec(), Codec::Zstd);
    assert!(level.stored_size() < level.size());
    let ogg = pak.find("sounds/hit.ogg").unwrap().unwrap();
    assert_eq!(ogg.codec(), Codec::None);
    assert!(matches!(
        ogg.bytes().unwrap(),
        std::borrow::Cow::Borrowed(_)
    ));
    for (path, kind) in [
        ("shaders/mesh.spv", AssetKind::SHADER),
        ("fonts/ui.ttf", AssetKind::FONT),
        ("sounds/hit.ogg", AssetKind::BLOB),
        ("assets.hman", AssetKind::MANIFEST),
    ] {
        assert_eq!(pak.find(path).unwrap().unwrap().kind(), kind, "{path}");
        if path != "assets.hman" {
            assert_eq!(
                pak.resolve(hash_asset_ref(path)).unwrap().unwrap().kind,
                kind,
                "{path}: pack and manifest agree"
            );
        }
    }
    // Nothing else is left in the output folder: no temp files.
    let mut names: Vec<_> = mtimes(out.path())
        .into_keys()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.extend(
        [
            ".hearth-cache",
            ".hearth-lock",
            "assets.hman",
            "assets.hnames",
            "game.hpack",
        ]
        .map(String::from),
    );
    want.sort();
    assert_eq!(names, want);
}

#[test]
fn rebake_with_nothing_changed_writes_no_file() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let before = mtimes(out.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(report.cache_hits, report.assets);
    assert_eq!(report.files_written, 0);
    assert_eq!(mtimes(out.path()), before, "a no-op re-bake touched files");

    // Without the cache everything is re-baked, but identical bytes are still not rewritten.
    let report = Baker::new(manifest.as_path(), out.path())
        .cache(false)
        .run()
        .unwrap();
    assert_eq!(report.cache_hits, 0);
    assert_eq!(report.files_written, 0);
    assert_eq!(mtimes(out.path()), before);

    // Touching a source without changing it re-hashes it and still writes no output.
    let touched = src.path().join("fonts/ui.ttf");
    std::fs::write(&touched, std::fs::read(&touched).unwrap()).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(report.cache_hits, report.assets);
    let after = mtimes(out.path());
    for (path, time) in &before {
        if path.as_os_str() != ".hearth-cache" {
            assert_eq!(after[path], *time, "{}", path.display());
        }
    }
}

#[test]
fn changes_rebake_only_what_changed_and_remove_stale_outputs() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    std::fs::write(src.path().join("data/levels/level2.txt"), b"edited level").unwrap();
    std::fs::remove_file(src.path().join("fonts/ui.ttf")).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(report.assets, 4);
    assert_eq!(report.cache_hits, 3);
    assert_eq!(report.files_removed, 1);
    assert!(
        !out.path().join("fonts").exists(),
        "stale output and its empty folder removed"
    );
    let pak = PakReader::open(out.path().join("game.hpack")).unwrap();
    assert_eq!(
        &*pak.get("data/levels/level2.txt").unwrap().unwrap(),
        b"edited level"
    );
    assert!(pak.get("fonts/ui.ttf").unwrap().is_none());
    assert!(pak
        .resolve(hash_asset_ref("fonts/ui.ttf"))
        .unwrap()
        .is_none());

    // A settings change that only affects packing rewrites the pack, not the tree.
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("compression = \"zstd\"", "compression = \"brotli\"");
    std::fs::write(&manifest, text).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(report.cache_hits, 4);
    assert_eq!(report.files_written, 1, "only the pack");
    let pak = PakReader::open(out.path().join("game.hpack")).unwrap();
    assert_eq!(
        pak.find("data/levels/level1.txt").unwrap().unwrap().codec(),
        Codec::Brotli
    );
    pak.verify().unwrap();
}

#[test]
fn output_is_byte_identical_whatever_the_thread_count() {
    let src = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..60 {
        files.push((
            format!("many/{}/f{i}.bin", i % 7),
            format!("{i} ").repeat(i * 13 + 1).into_bytes(),
        ));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    write_files(src.path(), &refs);
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\ncompression = \"brotli\"\n[[content.group]]\nassets = [\"many/**/*\"]\n",
    )
    .unwrap();
    let mut outputs = Vec::new();
    for jobs in [1, 2, 8] {
        let out = tempfile::tempdir().unwrap();
        outputs.push(bake_cold(&manifest, out.path(), jobs));
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

#[test]
fn a_failed_bake_keeps_the_previous_pack_and_manifest() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let before = contents(out.path());
    // Asset hashes fold case: two files differing only in case collide, and the bake fails.
    write_files(src.path(), &[("data/levels/LEVEL1.txt", b"shouting")]);
    let error = Baker::bake(manifest.as_path(), out.path())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("data/levels/LEVEL1.txt") && error.contains("data/levels/level1.txt"),
        "{error}"
    );
    assert_eq!(
        contents(out.path()),
        before,
        "a failed bake changed the output"
    );
}

#[test]
fn warns_for_globs_that_match_nothing_and_unknown_keys() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(
        src.path(),
        "[[content.group]]\nassets = [\"music/*.mp3\"]\nmystery = 1\n",
    );
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    let all = report.warnings.join("\n");
    assert!(all.contains("\"music/*.mp3\" matched no file"), "{all}");
    assert!(
        all.contains("`content.group[2].mystery`") && all.contains("hearth.toml"),
        "{all}"
    );
}

#[test]
fn presets_redirect_output_and_change_settings() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(
        src.path(),
        "[presets.fast]\noutput = \"fast\"\ncompression = \"none\"\n[presets.small]\noutput = \"small\"\ncompression = \"brotli\"\ncompression_level = 11\n",
    );
    let fast = Baker::new(manifest.as_path(), out.path())
        .preset("fast")
        .run()
        .unwrap();
    let small = Baker::new(manifest.as_path(), out.path())
        .preset("small")
        .run()
        .unwrap();
    assert_eq!(fast.pack_path, out.path().join("fast/game.hpack"));
    assert_eq!(small.pack_path, out.path().join("small/game.hpack"));
    assert!(small.pack_bytes < fast.pack_bytes);
    let pak = PakReader::open(&fast.pack_path).unwrap();
    assert!(pak.entries().all(|e| e.unwrap().codec() == Codec::None));
    let error = Baker::new(manifest.as_path(), out.path())
        .preset("nope")
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("unknown preset `nope`") && error.contains("fast, small"),
        "{error}"
    );
}

#[test]
fn corrupt_cache_is_discarded_with_a_warning() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let cache = out.path().join(".hearth-cache");
    let mut bytes = std::fs::read(&cache).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&cache, bytes).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(report.cache_hits, 0);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("cache discarded")),
        "{:?}",
        report.warnings
    );
    PakReader::open_verified(out.path().join("game.hpack")).unwrap();
}

#[test]
fn concurrent_bakes_into_one_folder_do_not_corrupt_it() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (manifest, out) = (manifest.clone(), out.path().to_path_buf());
            std::thread::spawn(move || {
                Baker::new(manifest.as_path(), out)
                    .cache(false)
                    .run()
                    .map(|_| ())
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap().unwrap();
    }
    PakReader::open_verified(out.path().join("game.hpack")).unwrap();
}

#[test]
fn pack_version_2_follows_the_assetc_spec_to_the_byte() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("compression = \"zstd\"", "pack_version = 2");
    std::fs::write(&manifest, text).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    let bytes = std::fs::read(&report.pack_path).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    assert_eq!(&bytes[0..4], b"HPAK");
    assert_eq!(u32_at(4), 2);
    assert_eq!(u32_at(8) as usize, report.pack_entries);
    assert_eq!(u32_at(12), 0);
    let toc_bytes = u64_at(16) as usize;
    let mut at = 24;
    let mut previous_path = String::new();
    let mut expected_offset = (24 + toc_bytes).div_ceil(16) * 16;
    for _ in 0..report.pack_entries {
        let (offset, size) = (u64_at(at) as usize, u64_at(at + 8) as usize);
        let kind = bytes[at + 16];
        let path_len = u16::from_le_bytes([bytes[at + 17], bytes[at + 18]]) as usize;
        let path = std::str::from_utf8(&bytes[at + 19..at + 19 + path_len])
            .unwrap()
            .to_owned();
        assert!(path > previous_path, "TOC sorted by path");
        assert_eq!(
            offset, expected_offset,
            "payloads are packed in TOC order at 16-byte alignment"
        );
        assert_eq!(
            &bytes[offset..offset + size],
            std::fs::read(out.path().join(&path)).unwrap().as_slice()
        );
        let padded_end = (offset + size).div_ceil(16) * 16;
        assert!(
            bytes[offset + size..padded_end].iter().all(|b| *b == 0),
            "zeroed padding"
        );
        assert_eq!(kind, PackKind::from_path(&path) as u8);
        expected_offset = padded_end;
        previous_path = path;
        at += 19 + path_len;
    }
    assert_eq!(at, 24 + toc_bytes);
    assert!(bytes[at..(24 + toc_bytes).div_ceil(16) * 16]
        .iter()
        .all(|b| *b == 0));
    assert_eq!(bytes.len(), expected_offset);
    let pak = PakReader::open(&report.pack_path).unwrap();
    assert_eq!(pak.version(), 2);
    pak.verify().unwrap();
    assert_eq!(
        &*pak
            .get_by_hash(hash_asset_ref("sounds/hit.ogg"))
            .unwrap()
            .unwrap(),
        &std::fs::read(src.path().join("sounds/hit.ogg")).unwrap()[..]
    );
}

/// Sources that cannot be read: symlinks to /proc/self/mem look like regular files but fail
/// with EIO on read (even for root, which ignores file permissions).
#[cfg(target_os = "linux")]
fn unreadable_sources(root: &std::path::Path, names: &[&str]) {
    for name in names {
        std::os::unix::fs::symlink("/proc/self/mem", root.join(name)).unwrap();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_asset_error_names_the_file_and_keep_going_reports_them_all() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let before = contents(out.path());
    unreadable_sources(
        &src.path().join("data/levels"),
        &["broken_a.txt", "broken_b.txt"],
    );

    let error = Baker::bake(manifest.as_path(), out.path())
        .unwrap_err()
        .to_string();
    assert!(error.contains("broken_a.txt"), "{error}");
    assert_eq!(
        contents(out.path()),
        before,
        "a failed bake changed the output"
    );

    let error = Baker::new(manifest.as_path(), out.path())
        .keep_going(true)
        .run()
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("2 assets failed"), "{error}");
    assert!(
        error.contains("broken_a.txt") && error.contains("broken_b.txt"),
        "{error}"
    );
    assert_eq!(contents(out.path()), before);
}

#[test]
fn a_deleted_manifest_or_a_damaged_cache_is_repaired_and_changes_no_output() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    let before = contents(out.path());

    std::fs::remove_file(out.path().join("assets.hman")).unwrap();
    let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
    assert_eq!(
        report.files_written, 1,
        "only the manifest is written again"
    );
    assert_eq!(contents(out.path()), before);

    // Every bit flip of the cache is caught by its checksum: the cache is discarded with a
    // warning, everything re-bakes, and the outputs (the cache included) come out the same.
    let cache_path = out.path().join(".hearth-cache");
    let cache = std::fs::read(&cache_path).unwrap();
    for at in (0..cache.len()).step_by(cache.len() / 7) {
        let mut flipped = cache.clone();
        flipped[at] ^= 0x10;
        std::fs::write(&cache_path, &flipped).unwrap();
        let report = Baker::bake(manifest.as_path(), out.path()).unwrap();
        assert_eq!(report.cache_hits, 0, "flip at {at} trusted");
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.contains("cache discarded")),
            "{:?}",
            report.warnings
        );
        assert_eq!(contents(out.path()), before, "flip at {at}");
    }
}

#[test]
fn a_tampered_cache_cannot_delete_outside_the_output_folder() {
    let src = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    let out = parent.path().join("out");
    let manifest = sample_content(src.path(), "");
    Baker::bake(manifest.as_path(), &out).unwrap();
    let victim = parent.path().join("victim.txt");
    std::fs::write(&victim, b"not hearth's").unwrap();

    // A cache whose output paths leave the folder, with a valid checksum: refused as a whole.
    let absolute = victim.to_str().unwrap().to_owned();
    for path in ["../victim.txt", absolute.as_str()] {
        let (mut cache, _) = hearth::bake::cache::Cache::load(&out);
        cache.assets[0].outputs[0].path = path.into();
        std::fs::write(out.join(".hearth-cache"), cache.encode()).unwrap();
        // The sources changed too, so the tampered record would be treated as stale.
        write_files(src.path(), &[("data/levels/level2.txt", b"changed")]);
        let report = Baker::bake(manifest.as_path(), &out).unwrap();
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.contains("cache discarded") && w.contains("output path")),
            "{:?}",
            report.warnings
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"not hearth's");
    }
}

#[test]
fn check_accepts_preset_subfolders_and_baked_hpack_files() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    write_files(
        src.path(),
        &[
            ("levels.hpack", b"a game's own archive, baked as a blob"),
            ("data/more.hpack", b"another one, in a folder"),
            (
                "data/assets.hman",
                b"a blob named like a manifest, in a folder",
            ),
            ("readme.txt", b"text"),
        ],
    );
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"**/*\"]\nexclude = [\"*.toml\"]\n[presets.mobile]\noutput = \"mobile\"\ncompression = \"none\"\n",
    )
    .unwrap();
    Baker::bake(manifest.as_path(), out.path()).unwrap();
    Baker::new(manifest.as_path(), out.path())
        .preset("mobile")
        .run()
        .unwrap();
    assert!(out.path().join("mobile/assets.hman").is_file());
    let (problems, files) = hearth::read::inspect::check_output(out.path());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        files,
        2 * 6,
        "4 baked files, the manifest and the name table, twice"
    );
    assert_eq!(
        hearth::read::inspect::nested_bakes(out.path()).unwrap(),
        ["mobile"]
    );
    let tree: Vec<String> = hearth::read::inspect::tree_files(out.path())
        .unwrap()
        .into_iter()
        .map(|(rel, _)| rel)
        .collect();
    assert_eq!(
        tree,
        [
            "assets.hman",
            "assets.hnames",
            "data/assets.hman",
            "data/more.hpack",
            "levels.hpack",
            "readme.txt"
        ]
    );

    // The preset's folder is checked on its own: damage there is named with its path.
    std::fs::write(out.path().join("mobile/readme.txt"), b"edited").unwrap();
    let (problems, _) = hearth::read::inspect::check_output(out.path());
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("mobile/: ") && p.contains("readme.txt")),
        "{problems:?}"
    );
    // A folder holding only a preset's output checks through it; a bake folder without its
    // manifest is still a problem.
    let only = tempfile::tempdir().unwrap();
    copy_dir(&out.path().join("mobile"), &only.path().join("mobile"));
    std::fs::write(only.path().join("mobile/readme.txt"), b"text").unwrap();
    let (problems, files) = hearth::read::inspect::check_output(only.path());
    assert!(problems.is_empty() && files == 6, "{problems:?} {files}");
    std::fs::remove_file(out.path().join("assets.hman")).unwrap();
    let (problems, _) = hearth::read::inspect::check_output(out.path());
    assert!(
        problems.iter().any(|p| p.contains("assets.hman")),
        "{problems:?}"
    );
}

#[test]
fn a_source_named_like_the_pack_or_the_manifest_is_a_clear_error() {
    for (name, what) in [
        ("game.hpack", "the pack's file name"),
        ("GAME.HPack", "the pack's file name"),
        ("Assets.HMAN", "the manifest's file name"),
    ] {
        let src = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        write_files(src.path(), &[(name, b"x"), ("ok.txt", b"fine")]);
        let manifest = src.path().join("hearth.toml");
        std::fs::write(
            &manifest,
            "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"*\"]\nexclude = [\"*.toml\"]\n",
        )
        .unwrap();
        let error = Baker::bake(manifest.as_path(), out.path())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(&format!("`{name}` produces `{name}`")) && error.contains(what),
            "{name}: {error}"
        );
        assert!(error.contains("hearth.toml"), "{error}");
        assert!(!out.path().join("game.hpack").exists(), "nothing written");
    }
    // The exact manifest name is refused where the output is emitted, naming the source.
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    write_files(src.path(), &[("assets.hman", b"x")]);
    let manifest = src.path().join("hearth.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"*.hman\"]\n").unwrap();
    let error = Baker::bake(manifest.as_path(), out.path())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("assets.hman") && error.contains("reserved for the manifest"),
        "{error}"
    );
}
