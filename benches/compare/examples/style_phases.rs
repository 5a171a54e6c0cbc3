//! Where a cold bake of the pak-style folder (the `style` group of `benches/compare.rs`: pak's
//! scene fixture, a bitmap font, 16 bitmaps of 256², 64 blobs, snap) spends its time: the
//! phases of `Baker::run` timed from its progress events, over ROUNDS fresh output folders.
//!
//! `cargo run -p hearth-compare --release --example style_phases -- [ROUNDS] [DIR] [JOBS] [pack-only]`
#[path = "../../data/mod.rs"]
mod data;
use hearth::bake::{Baker, Progress};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let parent = args
        .get(2)
        .map(std::path::PathBuf::from)
        .unwrap_or(std::env::temp_dir());
    let jobs: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(2);
    let tree = args.get(4).map(String::as_str) != Some("pack-only");
    let content = tempfile::tempdir().unwrap();
    let manifest = style_content(content.path());
    let mut rows: Vec<[f64; 5]> = Vec::new();
    for _ in 0..rounds {
        let out = tempfile::tempdir_in(&parent).unwrap();
        let t0 = Instant::now();
        let marks: Arc<Mutex<[f64; 3]>> = Arc::new(Mutex::new([f64::NAN; 3]));
        let m = marks.clone();
        Baker::new(manifest.as_path(), out.path())
            .jobs(jobs)
            .cache(false)
            .tree(tree)
            .on_progress(move |p| {
                let t = t0.elapsed().as_secs_f64() * 1e3;
                let mut m = m.lock().unwrap();
                match p {
                    Progress::Planned { .. } => m[0] = t,
                    Progress::Asset { .. } => m[1] = t,
                    Progress::Packing { .. } => m[2] = t,
                    _ => {}
                }
            })
            .run()
            .unwrap();
        let total = t0.elapsed().as_secs_f64() * 1e3;
        let [planned, assets, packing] = *marks.lock().unwrap();
        rows.push([
            planned,
            assets - planned,
            packing - assets,
            total - packing,
            total,
        ]);
    }
    let names = [
        "plan",
        "assets",
        "tree+manifest",
        "pack+cache+commit",
        "total",
    ];
    for (i, name) in names.iter().enumerate() {
        let mut v: Vec<f64> = rows.iter().map(|r| r[i]).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        print!("{name} {:.1} ms | ", v[v.len() / 2]);
    }
    println!("(median of {rounds}, jobs {jobs}, {})", parent.display());
}

/// The `style` group's content folder, as `benches/compare.rs` makes it; returns the manifest.
fn style_content(root: &Path) -> std::path::PathBuf {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    for entry in std::fs::read_dir(fixtures.join("pak/scene")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), root.join(entry.file_name())).unwrap();
    }
    for file in ["dejavu.txt.fnt", "dejavu.png"] {
        std::fs::copy(fixtures.join("fonts").join(file), root.join(file)).unwrap();
    }
    std::fs::write(
        root.join("font.toml"),
        "[bitmap-font]\nsrc = 'dejavu.txt.fnt'\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("bitmaps")).unwrap();
    for i in 0..16 {
        let image = image::RgbaImage::from_fn(256, 256, |x, y| {
            let v = (x * 7 + y * 13 + i as u32 * 31) as u8;
            image::Rgba([x as u8, y as u8, v, 255 - (v / 2)])
        });
        image
            .save(root.join(format!("bitmaps/bitmap_{i}.png")))
            .unwrap();
        let toml = format!("[bitmap]\nsrc = 'bitmap_{i}.png'\n");
        std::fs::write(root.join(format!("bitmaps/bitmap_{i}.toml")), toml).unwrap();
    }
    std::fs::create_dir_all(root.join("blobs")).unwrap();
    let blobs = data::mixed_files(46, usize::MAX, 64, 256, 16 << 10);
    for (i, (_, bytes)) in blobs.iter().enumerate() {
        std::fs::write(root.join(format!("blobs/blob_{i}.bin")), bytes).unwrap();
        let toml = format!("[blob]\nsrc = 'blob_{i}.bin'\n");
        std::fs::write(root.join(format!("blobs/blob_{i}.toml")), toml).unwrap();
    }
    let manifest = root.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = 'style'\ncompression = 'snap'\n\n[[content.group]]\n\
         assets = ['scene.toml', 'font.toml', 'bitmaps/*.toml', 'blobs/*.toml']\n\n\
         [default]\ntexture = { compress = false, mips = false }\n",
    )
    .unwrap();
    manifest
}
