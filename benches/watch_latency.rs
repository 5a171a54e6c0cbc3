//! Edit-to-reload latency of the working loop: `Watch` (as `hearth watch` runs it) re-bakes a
//! content folder of 500 small files and one texture, and a `HotPack` (as a game holds it)
//! waits for the new bytes. Each sample is the time from the source file's write to the moment
//! the reloaded pack returns the new bytes, so it covers notify, the debounce, the
//! incremental bake, the commit, the reload and the read.
//!
//! `cargo bench -p hearth-benches --bench watch_latency`
//!
//! Prints p50/p95/max over 25 edits of a small blob, and over 21 edits of a 1024² texture next
//! to the same texture's encoder time alone (a cold bake of that one file, same settings).

use hearth::bake::watch::{Watch, WatchEvent};
use hearth::bake::Baker;
use hearth::read::hot::HotPack;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

const BLOB_EDITS: usize = 25;
const TEXTURE_EDITS: usize = 21;
const FILES: usize = 500;
const TEXTURE: &str = "../examples/content/models/spot/spot_texture.png";
const MANIFEST: &str = "[content]\nname = \"bench\"\ncompression = \"zstd\"\n\
    [[content.group]]\nassets = [\"data/*.txt\", \"textures/*.png\"]\n\
    [default]\ntexture = { quality = \"fastest\" }\n";

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("content");
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::create_dir_all(root.join("textures")).unwrap();
    for i in 0..FILES {
        let text = format!("file {i}: {}\n", "some level data ".repeat(i % 40));
        std::fs::write(root.join(format!("data/f{i:03}.txt")), text).unwrap();
    }
    let texture = image::open(Path::new(env!("CARGO_MANIFEST_DIR")).join(TEXTURE))
        .unwrap()
        .to_rgba8();
    texture.save(root.join("textures/spot.png")).unwrap();
    let manifest = root.join("hearth.toml");
    std::fs::write(&manifest, MANIFEST).unwrap();
    let out = dir.path().join("out");

    let encoder_alone = encoder_time(&texture, dir.path());

    // The watch loop on its own thread, as `hearth watch` would be in its own process.
    let stop = Arc::new(AtomicBool::new(false));
    let (baked, bakes) = mpsc::channel();
    let watcher = {
        let (stop, manifest, out) = (stop.clone(), manifest.clone(), out.clone());
        std::thread::spawn(move || {
            let mut baker = Baker::new(&manifest, &out);
            baker.jobs(2);
            Watch::new(baker, &manifest, &out)
                .run(stop, |event| {
                    if let WatchEvent::Baked { .. } = event {
                        let _ = baked.send(());
                    }
                })
                .unwrap();
        })
    };
    bakes.recv_timeout(Duration::from_secs(300)).unwrap();
    let mut hot = HotPack::open(out.join("bench.hpack")).unwrap();

    let mut blob = Vec::new();
    for edit in 0..BLOB_EDITS {
        let bytes = format!("edited {edit}\n").into_bytes();
        blob.push(edit_and_reload(
            &mut hot,
            &root.join("data/f007.txt"),
            "data/f007.txt",
            &bytes,
        ));
    }
    let mut textured = Vec::new();
    for edit in 0..TEXTURE_EDITS {
        let mut image = texture.clone();
        image.put_pixel(edit as u32, 0, image::Rgba([edit as u8, 0, 255, 255]));
        let mut png = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let before = hot
            .pack()
            .get("textures/spot.ktx2")
            .unwrap()
            .unwrap()
            .into_owned();
        let took = edit_and_reload_changed(
            &mut hot,
            &root.join("textures/spot.png"),
            "textures/spot.ktx2",
            &png,
            &before,
        );
        textured.push(took);
    }
    stop.store(true, Ordering::Relaxed);
    watcher.join().unwrap();

    report("blob edit -> new bytes in the reloaded pack", &mut blob);
    report(
        "1024² texture edit -> new KTX2 in the reloaded pack",
        &mut textured,
    );
    println!(
        "texture encoder alone (cold bake of that one PNG): {:.1} ms; texture p50 minus encoder: {:.1} ms",
        ms(encoder_alone),
        ms(percentile(&textured, 50)) - ms(encoder_alone)
    );
}

/// Writes `bytes` to `source` and waits until the pack returns them at `entry`.
fn edit_and_reload(hot: &mut HotPack, source: &Path, entry: &str, bytes: &[u8]) -> Duration {
    let start = Instant::now();
    write_like_an_editor(source, bytes);
    wait_for(hot, start, |pack| {
        pack.get(entry).unwrap().as_deref() == Some(bytes)
    })
}

/// Writes `bytes` to `source` and waits until the pack's `entry` differs from `before`.
fn edit_and_reload_changed(
    hot: &mut HotPack,
    source: &Path,
    entry: &str,
    bytes: &[u8],
    before: &[u8],
) -> Duration {
    let start = Instant::now();
    write_like_an_editor(source, bytes);
    wait_for(hot, start, |pack| {
        pack.get(entry).unwrap().as_deref() != Some(before)
    })
}

fn wait_for(
    hot: &mut HotPack,
    start: Instant,
    done: impl Fn(&hearth::PakReader) -> bool,
) -> Duration {
    loop {
        hot.wait(Duration::from_secs(1)).unwrap();
        if done(&hot.pack()) {
            let took = start.elapsed();
            // Let the watcher settle before the next edit, so edits are not batched together.
            std::thread::sleep(Duration::from_millis(150));
            return took;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no reload");
    }
}

/// Temp file + rename, as editors save.
fn write_like_an_editor(path: &Path, bytes: &[u8]) {
    let temp: PathBuf = path.with_extension("saving~");
    std::fs::write(&temp, bytes).unwrap();
    std::fs::rename(&temp, path).unwrap();
}

/// A cold bake of the texture alone, with the same settings: the encoder's share.
fn encoder_time(texture: &image::RgbaImage, dir: &Path) -> Duration {
    let root = dir.join("alone");
    std::fs::create_dir_all(root.join("textures")).unwrap();
    texture.save(root.join("textures/spot.png")).unwrap();
    std::fs::write(root.join("hearth.toml"), MANIFEST).unwrap();
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        Baker::new(root.join("hearth.toml"), root.join("out"))
            .jobs(2)
            .cache(false)
            .run()
            .unwrap();
        best = best.min(start.elapsed());
    }
    best
}

fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) * p + 50) / 100]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(what: &str, samples: &mut [Duration]) {
    println!(
        "{what}: n = {}, p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        samples.len(),
        ms(percentile(samples, 50)),
        ms(percentile(samples, 95)),
        ms(samples.iter().copied().max().unwrap())
    );
}
