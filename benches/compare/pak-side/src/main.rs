//! pak's half of `benches/compare`: the bench (hearth's half, built without pak) runs this
//! binary for each measurement, and it times only pak's own calls, `iters` times, printing
//! the total in nanoseconds. So the two crates never link together (pak 0.7.6 brings
//! meshoptimizer 0.6, hearth 0.7: their C symbols clash), and process start-up is not timed.
//!
//! ```text
//! pak-side bake MANIFEST OUT_PARENT ITERS   bakes into a fresh folder under OUT_PARENT
//! pak-side open PACK ITERS                  PakBuf::open
//! pak-side read-all PACK LIST ITERS         every blob LIST names (one path per line)
//! pak-side check PACK ROOT LIST             hash valid, one blob per listed file, bytes equal
//! pak-side bake-once MANIFEST PACK          one bake to PACK (the packs the others read)
//! pak-side read-style PACK BITMAPS BLOBS ITERS
//!     the pak-style content (see compare.rs): the scene and every mesh, material and color
//!     bitmap it names, the font, `bitmaps/bitmap_<i>` and `blobs/blob_<i>`, typed
//! ```

use pak::{Pak, PakBuf};
use std::path::Path;
use std::time::{Duration, Instant};

fn bake(manifest: &Path, dst: &Path) {
    // The variant without `cargo:rerun-if-changed` lines (cargo sets CARGO for benches too).
    PakBuf::bake_with_dir_without_cargo_watches(manifest, dst, manifest.parent().unwrap()).unwrap();
}

fn paths(list: &str) -> Vec<String> {
    std::fs::read_to_string(list)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let iters = |s: &str| -> u64 { s.parse().expect("an iteration count") };
    let mut total = Duration::ZERO;
    match args[..] {
        ["bake", manifest, parent, n] => {
            for _ in 0..iters(n) {
                let out = tempfile::tempdir_in(parent).unwrap();
                let dst = out.path().join("out.pak");
                let started = Instant::now();
                bake(Path::new(manifest), &dst);
                total += started.elapsed();
            }
        }
        ["bake-once", manifest, pack] => bake(Path::new(manifest), Path::new(pack)),
        ["open", pack, n] => {
            for _ in 0..iters(n) {
                let started = Instant::now();
                let opened = PakBuf::open(pack).unwrap();
                total += started.elapsed();
                std::hint::black_box(opened);
            }
        }
        ["read-all", pack, list, n] => {
            let keys = paths(list);
            let mut pak = PakBuf::open(pack).unwrap();
            for _ in 0..iters(n) {
                let started = Instant::now();
                let mut bytes = 0;
                for key in &keys {
                    bytes += std::hint::black_box(pak.read_blob(key).unwrap()).len();
                }
                total += started.elapsed();
                assert!(bytes > 0);
            }
        }
        ["read-style", pack, bitmaps, blobs, n] => {
            let mut pak = PakBuf::open(pack).unwrap();
            let (bitmaps, blobs) = (iters(bitmaps), iters(blobs));
            for _ in 0..iters(n) {
                let started = Instant::now();
                let scene = pak.read_scene("scene").unwrap();
                for reference in scene.refs() {
                    if let Some(mesh) = reference.mesh() {
                        std::hint::black_box(pak.read_mesh_id(mesh).unwrap());
                    }
                    for material in reference.materials() {
                        let info = pak.read_material_id(*material).unwrap();
                        std::hint::black_box(pak.read_bitmap_id(info.color).unwrap());
                    }
                }
                std::hint::black_box(pak.read_bitmap_font("font").unwrap());
                for i in 0..bitmaps {
                    std::hint::black_box(pak.read_bitmap(format!("bitmaps/bitmap_{i}")).unwrap());
                }
                for i in 0..blobs {
                    std::hint::black_box(pak.read_blob(format!("blobs/blob_{i}")).unwrap());
                }
                total += started.elapsed();
            }
        }
        ["check", pack, root, list] => {
            let keys = paths(list);
            let mut pak = PakBuf::open(pack).unwrap();
            assert!(pak.validate_hash().unwrap(), "pak's hash");
            assert_eq!(pak.blob_count(), keys.len(), "one blob per file");
            for key in &keys {
                let want = std::fs::read(Path::new(root).join(key)).unwrap();
                assert_eq!(pak.read_blob(key).unwrap(), want, "{key}");
            }
        }
        _ => {
            eprintln!("usage: see the module docs of benches/compare/pak-side/src/main.rs");
            std::process::exit(2);
        }
    }
    println!("{}", total.as_nanos());
}
