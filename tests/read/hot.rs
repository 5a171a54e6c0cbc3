//! Hot reload (`read::hot::HotPack`): a re-bake's changes are reported (changed, added,
//! removed, by path and hash), reads through a held generation never see the next bake, a
//! no-op re-bake reports nothing, and a broken or vanished pack keeps the last good one.
#![cfg(all(feature = "bake", feature = "watch"))]

use crate::common;

use hearth::bake::Baker;
use hearth::hash_runtime_path;
use hearth::read::hot::{AssetChange, HotPack};
use std::path::Path;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

fn bake(manifest: &Path, out: &Path) {
    Baker::new(manifest, out).jobs(2).run().unwrap();
}

fn change(path: &str) -> AssetChange {
    AssetChange {
        path: path.to_owned(),
        hash: hash_runtime_path(path),
    }
}

#[test]
fn a_rebake_reports_what_changed_and_held_generations_stay_whole() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(src.path(), "");
    bake(&manifest, out.path());
    let mut hot = HotPack::open(out.path().join("game.hpack")).unwrap();
    assert_eq!(hot.poll().unwrap(), None);
    let first = hot.pack();
    let level2 = |pack: &hearth::PakReader| {
        pack.get("data/levels/level2.txt")
            .unwrap()
            .unwrap()
            .into_owned()
    };
    assert_eq!(level2(&first), b"short level");

    // Edit one file, add one, delete one; re-bake.
    common::write_files(
        src.path(),
        &[
            ("data/levels/level2.txt", b"a longer level now"),
            ("data/levels/level3.txt", b"new level"),
        ],
    );
    std::fs::remove_file(src.path().join("sounds/hit.ogg")).unwrap();
    bake(&manifest, out.path());
    let reload = hot.wait(WAIT).unwrap().expect("the re-bake is seen");
    assert_eq!(reload.generation, 1);
    // assets.hman and assets.hnames change with the rows they list.
    assert_eq!(
        reload.changed,
        [
            change("assets.hman"),
            change("assets.hnames"),
            change("data/levels/level2.txt")
        ]
    );
    assert_eq!(reload.added, [change("data/levels/level3.txt")]);
    assert_eq!(reload.removed, [change("sounds/hit.ogg")]);
    assert_eq!(hot.generation(), 1);
    assert_eq!(level2(&hot.pack()), b"a longer level now");
    // Whoever held the first generation still reads the first bake, whole.
    assert_eq!(level2(&first), b"short level");
    assert!(first.get("sounds/hit.ogg").unwrap().is_some());
    first.verify().unwrap();
    hot.pack().verify().unwrap();

    // A no-op re-bake writes nothing, so nothing is reloaded.
    bake(&manifest, out.path());
    assert_eq!(hot.wait(Duration::from_millis(300)).unwrap(), None);
    assert_eq!(hot.poll().unwrap(), None);
    assert_eq!(hot.generation(), 1);
}

#[test]
fn a_broken_pack_keeps_the_last_good_generation_and_a_vanished_folder_is_followed() {
    let src = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let manifest = common::sample_content(src.path(), "");
    bake(&manifest, &out);
    let pack_path = out.join("game.hpack");
    let mut hot = HotPack::open(&pack_path).unwrap();

    // Another tool writes garbage over the pack (through a rename, as an editor would).
    std::fs::write(out.join("garbage.tmp"), b"not a pack at all").unwrap();
    std::fs::rename(out.join("garbage.tmp"), &pack_path).unwrap();
    assert!(
        hot.wait(WAIT).is_err(),
        "an invalid pack is an error, not a reload"
    );
    assert_eq!(hot.generation(), 0);
    assert_eq!(
        hot.pack().get("data/levels/level2.txt").unwrap().unwrap(),
        &b"short level"[..]
    );
    // Said once: the same broken file is not reported again.
    assert_eq!(hot.wait(Duration::from_millis(1200)).unwrap(), None);

    // The whole output folder goes, then a bake makes it again: followed (the folder's watch
    // is re-armed by the rescan).
    std::fs::remove_dir_all(&out).unwrap();
    assert_eq!(
        hot.poll().unwrap(),
        None,
        "a missing pack keeps the current one"
    );
    common::write_files(src.path(), &[("data/levels/level2.txt", b"rebuilt")]);
    bake(&manifest, &out);
    let reload = hot
        .wait(WAIT)
        .unwrap()
        .expect("the new folder's pack is seen");
    assert_eq!(reload.generation, 1);
    assert!(
        reload.changed.contains(&change("data/levels/level2.txt")),
        "{reload:?}"
    );
    assert_eq!(
        hot.pack().get("data/levels/level2.txt").unwrap().unwrap(),
        &b"rebuilt"[..]
    );
}

#[test]
fn poll_sees_a_rebake_without_blocking() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let manifest = common::sample_content(src.path(), "");
    bake(&manifest, out.path());
    let mut hot = HotPack::open(out.path().join("game.hpack")).unwrap();
    common::write_files(src.path(), &[("fonts/ui.ttf", b"another font")]);
    bake(&manifest, out.path());
    // A game polls once per frame: the event arrives within a few frames.
    let start = std::time::Instant::now();
    let reload = loop {
        if let Some(reload) = hot.poll().unwrap() {
            break reload;
        }
        assert!(start.elapsed() < WAIT, "no reload seen by polling");
        std::thread::sleep(Duration::from_millis(16));
    };
    assert_eq!(reload.changed, [change("fonts/ui.ttf")]);
}
