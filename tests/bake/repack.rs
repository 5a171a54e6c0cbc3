//! Re-packing costs what changed: after a one-asset edit, every other entry is copied out of
//! the previous pack as it is stored, and the pack is byte-identical to a cold bake of the same
//! content, for every codec, pack version, signed or not, tree or pack-only.
#![cfg(feature = "bake")]

use hearth::bake::signing::SigningKey;
use hearth::bake::Baker;
use std::path::Path;

/// Six compressible text assets of 12 KB each and one `.ogg` (stored: already compressed).
fn write_content(root: &Path, codec: &str, version: u32) {
    std::fs::create_dir_all(root.join("text")).unwrap();
    for i in 0..6 {
        let line = format!("asset {i}: the quick brown fox jumps over the lazy dog\n");
        std::fs::write(root.join(format!("text/t{i}.txt")), line.repeat(220)).unwrap();
    }
    let sound: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(root.join("text/sound.ogg"), sound).unwrap();
    let level = match codec {
        "brotli" => "compression_level = 11\n",
        "zstd" => "compression_level = 19\n",
        _ => "",
    };
    std::fs::write(
        root.join("hearth.toml"),
        format!(
            "[content]\npack_version = {version}\ncompression = \"{codec}\"\n{level}\
             [[content.group]]\nassets = [\"text/*\"]\n"
        ),
    )
    .unwrap();
}

fn bake(
    root: &Path,
    out: &Path,
    tree: bool,
    key: Option<&SigningKey>,
    cache: bool,
) -> hearth::bake::Report {
    let manifest = root.join("hearth.toml");
    let mut baker = Baker::new(manifest.as_path(), out);
    baker.tree(tree).cache(cache);
    if let Some(key) = key {
        baker.sign(key.clone());
    }
    baker.run().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_one_asset_edit_copies_every_other_entry_and_packs_what_a_cold_bake_packs() {
    let key = SigningKey::generate().unwrap();
    for codec in ["zstd", "snap", "brotli", "none"] {
        for (version, signed) in [(2, false), (3, false), (4, false), (4, true)] {
            // v2 stores every entry as it is: only `none` applies.
            if version == 2 && codec != "none" {
                continue;
            }
            for tree in [true, false] {
                let what = format!("{codec}, v{version}, signed {signed}, tree {tree}");
                let src = tempfile::tempdir().unwrap();
                write_content(src.path(), codec, version);
                let out = tempfile::tempdir().unwrap();
                let key = signed.then_some(&key);
                let first = bake(src.path(), out.path(), tree, key, true);
                assert_eq!(
                    first.pack_entries_copied, 0,
                    "{what}: a cold bake copies nothing"
                );
                // Edit one asset.
                let edited = src.path().join("text/t3.txt");
                let mut text = std::fs::read_to_string(&edited).unwrap();
                text.push('!');
                std::fs::write(&edited, text).unwrap();
                let again = bake(src.path(), out.path(), tree, key, true);
                let cold_out = tempfile::tempdir().unwrap();
                let cold = bake(src.path(), cold_out.path(), tree, key, false);
                assert_eq!(
                    std::fs::read(&again.pack_path).unwrap(),
                    std::fs::read(&cold.pack_path).unwrap(),
                    "{what}: the re-bake's pack is the cold bake's"
                );
                // At least the five unchanged texts and the sound; the edited text is encoded
                // again. A v2 pack keeps no checksums to trust: its entries are all stored
                // again (v2 compresses nothing, so that costs a copy).
                let expected = if version == 2 { 0 } else { 6 };
                assert!(
                    again.pack_entries_copied >= expected,
                    "{what}: {} entries copied of {}",
                    again.pack_entries_copied,
                    again.pack_entries
                );
                assert!(
                    again.pack_entries_copied < again.pack_entries,
                    "{what}: the edited entry is encoded again"
                );
            }
        }
    }
}

#[test]
fn a_changed_level_or_codec_encodes_again() {
    let src = tempfile::tempdir().unwrap();
    write_content(src.path(), "zstd", 4);
    let out = tempfile::tempdir().unwrap();
    bake(src.path(), out.path(), true, None, true);
    // A new level: nothing's stored bytes can be trusted to be the level's.
    let manifest = src.path().join("hearth.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("compression_level = 19", "compression_level = 5"),
    )
    .unwrap();
    let again = bake(src.path(), out.path(), true, None, true);
    let cold_out = tempfile::tempdir().unwrap();
    let cold = bake(src.path(), cold_out.path(), true, None, false);
    assert_eq!(again.pack_entries_copied, 0);
    assert_eq!(
        std::fs::read(&again.pack_path).unwrap(),
        std::fs::read(&cold.pack_path).unwrap()
    );
}

#[test]
fn a_damaged_previous_pack_is_not_copied_from() {
    let src = tempfile::tempdir().unwrap();
    write_content(src.path(), "zstd", 4);
    let out = tempfile::tempdir().unwrap();
    let first = bake(src.path(), out.path(), true, None, true);
    // Flip a byte inside one compressed text entry's stored bytes (same size, so the pack
    // still opens as the recorded one).
    let pack = hearth::PakReader::open(&first.pack_path).unwrap();
    let entry = pack.find("text/t0.txt").unwrap().unwrap();
    let at = entry.offset() as usize + entry.stored_size() as usize / 2;
    drop(pack);
    let mut bytes = std::fs::read(&first.pack_path).unwrap();
    bytes[at] ^= 0xFF;
    std::fs::write(&first.pack_path, bytes).unwrap();
    let edited = src.path().join("text/t3.txt");
    std::fs::write(&edited, "changed").unwrap();
    let again = bake(src.path(), out.path(), true, None, true);
    let cold_out = tempfile::tempdir().unwrap();
    let cold = bake(src.path(), cold_out.path(), true, None, false);
    assert_eq!(
        std::fs::read(&again.pack_path).unwrap(),
        std::fs::read(&cold.pack_path).unwrap(),
        "the damaged entry is encoded again from the tree"
    );
}
