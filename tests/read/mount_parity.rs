//! A mount reads as NEW alone: every read of `LayeredPak` and of its `AssetSource` impl,
//! compared with NEW's, for patches with and without each bookkeeping table (unchanged,
//! changed, deleted), for entries whose kind changes, and for a seeded run of generated
//! base/patch chains and damaged patch layers (the `layered_mount` fuzz target's own code,
//! included here so that it runs in CI).

#[path = "../../fuzz/fuzz_targets/layered.rs"]
mod layered;

use hearth::bake::patch::diff;
use hearth::format::hnames::NAMES_PATH;
use hearth::{AssetKind, LayeredPak, PakReader};
use layered::{assert_reads_as_new, pack_with_tables, File};

/// Diffs OLD and NEW, mounts the patch over OLD and asserts the mount reads as NEW.
fn assert_patch_reads_as_new(old: &[u8], new: &[u8], what: &str) {
    let mut mount = LayeredPak::new(PakReader::from_bytes(old).unwrap(), "old.hpack").unwrap();
    let (old, new) = (
        PakReader::from_bytes(old).unwrap(),
        PakReader::from_bytes(new).unwrap(),
    );
    let patch = diff(&old, "old.hpack", &new, "new.hpack", None).unwrap();
    mount
        .mount(PakReader::from_bytes(&patch.bytes).unwrap(), "patch.hpack")
        .unwrap_or_else(|e| panic!("{what}: the patch diff wrote does not mount: {e}"));
    let probes: Vec<String> = old
        .entries()
        .map(|e| e.unwrap().path().into_owned())
        .collect();
    assert_reads_as_new(&mount, &new, &probes, what);
}

fn file(path: &str, kind: AssetKind, bytes: &[u8]) -> File {
    (path.into(), kind, bytes.to_vec())
}

/// A content-only fix (one texture changes): NEW's `assets.hnames` and `assets.hman` are
/// OLD's byte for byte, so the patch holds neither; the mount must still name and resolve
/// everything. Then every other combination: each table unchanged, changed, deleted, added,
/// absent from both.
#[test]
fn a_mount_reads_as_new_with_and_without_each_bookkeeping_table() {
    let old_files = vec![
        file("models/rock.ktx2", AssetKind::TEXTURE, b"rock texture"),
        file("levels/one.json", AssetKind::BLOB, b"{\"level\": 1}"),
        file("text/credits.txt", AssetKind::BLOB, b"credits"),
    ];
    let mut texture_fix = old_files.clone();
    texture_fix[0].2 = b"rock texture, fixed".to_vec();
    let mut renamed = texture_fix.clone();
    renamed.pop();
    let names_old = vec![
        ("Rock".to_string(), "models/rock.ktx2".to_string()),
        ("LevelOne".to_string(), "levels/one.json".to_string()),
        ("Credits".to_string(), "text/credits.txt".to_string()),
    ];
    let names_new = names_old[..2].to_vec();
    type Table<'a> = Option<&'a [(String, String)]>;
    /// (what, OLD names?, NEW names?, OLD manifest?, NEW manifest?, NEW's files)
    type Case<'a> = (&'a str, Table<'a>, Table<'a>, bool, bool, &'a [File]);
    let cases: [Case<'_>; 8] = [
        (
            "content only, tables unchanged",
            Some(&names_old),
            Some(&names_old),
            true,
            true,
            &texture_fix,
        ),
        (
            "names and manifest changed",
            Some(&names_old),
            Some(&names_new),
            true,
            true,
            &renamed,
        ),
        (
            "names deleted, manifest unchanged",
            Some(&names_old),
            None,
            true,
            true,
            &texture_fix,
        ),
        (
            "names unchanged, manifest deleted",
            Some(&names_old),
            Some(&names_old),
            true,
            false,
            &texture_fix,
        ),
        (
            "both deleted",
            Some(&names_old),
            None,
            true,
            false,
            &renamed,
        ),
        (
            "both added",
            None,
            Some(&names_old),
            false,
            true,
            &texture_fix,
        ),
        ("neither table", None, None, false, false, &renamed),
        (
            "names changed only",
            Some(&names_old),
            Some(&names_new),
            false,
            false,
            &texture_fix,
        ),
    ];
    for (what, old_names, new_names, old_manifest, new_manifest, new_files) in cases {
        for version in [3, 4] {
            let old = pack_with_tables(version, &old_files, old_names, old_manifest);
            let new = pack_with_tables(version, new_files, new_names, new_manifest);
            assert_patch_reads_as_new(&old, &new, &format!("{what} (v{version})"));
        }
    }
}

/// A kind change is a delete plus an add: `diff` records the path as deleted and stores
/// NEW's entry, and the patch mounts and reads as NEW.
#[test]
fn a_patch_whose_entry_changes_kind_mounts_and_reads_as_new() {
    // `grade.lut.cube` replaced by `grade.lut.png`: both bake to `grade.lut.ktx2`, a 3D LUT
    // before and a texture after.
    let names = vec![("Grade".to_string(), "grade.lut.ktx2".to_string())];
    let lut = [file("grade.lut.ktx2", AssetKind::LUT, b"cube lut")];
    let png = [file("grade.lut.ktx2", AssetKind::TEXTURE, b"png lut")];
    let old = pack_with_tables(4, &lut, Some(&names), true);
    let new = pack_with_tables(4, &png, Some(&names), true);
    assert_patch_reads_as_new(&old, &new, "LUT to texture");
    let (old_pak, new_pak) = (
        PakReader::from_bytes(&old).unwrap(),
        PakReader::from_bytes(&new).unwrap(),
    );
    let patch = diff(&old_pak, "old", &new_pak, "new", None).unwrap();
    assert!(
        patch
            .record
            .deleted
            .iter()
            .any(|p| &**p == "grade.lut.ktx2"),
        "{:?}",
        patch.record.deleted
    );

    // OLD baked at pack_version 3 (its `assets.hnames` a blob), NEW at 4 (a name table).
    let files = [file("levels/one.json", AssetKind::BLOB, b"{}")];
    let names = vec![("LevelOne".to_string(), "levels/one.json".to_string())];
    let old = pack_with_tables(3, &files, Some(&names), true);
    let new = pack_with_tables(4, &files, Some(&names), true);
    let kind_of_names = |bytes: &[u8]| {
        PakReader::from_bytes(bytes)
            .unwrap()
            .find(NAMES_PATH)
            .unwrap()
            .unwrap()
            .kind()
    };
    assert_eq!(kind_of_names(&old), AssetKind::BLOB);
    assert_eq!(kind_of_names(&new), AssetKind::NAMES);
    assert_patch_reads_as_new(&old, &new, "v3 to v4");
}

/// xorshift64*: a small deterministic PRNG, so the generated inputs are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 32 to 287 random bytes: a fuzz input.
    fn input(&mut self) -> Vec<u8> {
        let len = 32 + (self.next() % 256) as usize;
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// 200 seeded base/patch chains (1 to 4 patches each, tables and kinds changing): after each
/// patch the mount reads as that patch's NEW alone.
#[test]
fn generated_patch_chains_read_as_new() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..200 {
        layered::check_chain(&rng.input());
    }
}

/// 200 seeded damaged patch layers (flipped bytes of a real patch, or raw bytes): refused or
/// read with errors, never a panic.
#[test]
fn damaged_patch_layers_never_panic() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..200 {
        layered::mount_damaged(&rng.input());
    }
}
