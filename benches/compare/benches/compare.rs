//! hearth against the `pak` crate, in one run, on the same generated files: bake time, open
//! time, read-all time and pack size for the codecs both support (none, snap, brotli).
//!
//! pak runs in a process of its own (`pak-side/`, built here on first use): pak 0.7.6 and
//! hearth link two meshoptimizer versions whose C symbols clash. It times its own calls
//! (`iter_custom`), so process start-up is not in pak's figures. See ../README.md.

#[path = "../../data/mod.rs"]
mod data;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use hearth::bake::Baker;
use hearth::PakReader;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

const FILES: usize = 500;
const CODECS: [&str; 3] = ["none", "snap", "brotli"];
/// Brotli quality for both: pak's default (hearth's own default is 9).
const BROTLI_QUALITY: u32 = 8;
const ASSETS: &str = r#"assets = ["data/**/*.json", "data/**/*.vtx", "data/**/*.dat"]"#;

struct Setup {
    /// Content root: `data/...` plus one manifest per tool and codec.
    content: tempfile::TempDir,
    /// Baked packs, one per tool and codec.
    packs: tempfile::TempDir,
    files: Vec<(String, Vec<u8>)>,
    total: u64,
    /// The pak-side binary.
    pak_side: PathBuf,
}

impl Setup {
    fn hearth_manifest(&self, codec: &str) -> PathBuf {
        self.content.path().join(format!("hearth_{codec}.toml"))
    }
    fn pak_manifest(&self, codec: &str) -> PathBuf {
        self.content.path().join(format!("pak_{codec}.toml"))
    }
    fn hearth_pack(&self, codec: &str) -> PathBuf {
        self.packs
            .path()
            .join(format!("hearth_{codec}/hearth_{codec}.hpack"))
    }
    fn pak_pack(&self, codec: &str) -> PathBuf {
        self.packs.path().join(format!("pak_{codec}.pak"))
    }
    /// Every file's path, one per line (what pak-side reads and checks).
    fn list(&self) -> PathBuf {
        self.content.path().join("files.txt")
    }
    /// Runs pak-side with `args`; its output, the nanoseconds it timed.
    fn pak(&self, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Duration {
        let output = Command::new(&self.pak_side)
            .args(args.iter().map(|a| a.as_ref()))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "pak-side failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let nanos: u64 = String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .unwrap();
        Duration::from_nanos(nanos)
    }
}

/// Builds pak-side (release, its own lock, in the workspace target's `tmp/pak-side`) and
/// returns its binary.
fn build_pak_side() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("pak-side");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pak-side");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--manifest-path",
        ])
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .unwrap();
    assert!(status.success(), "building benches/compare/pak-side failed");
    target.join("release/hearth-compare-pak-side")
}

fn bake_hearth(manifest: &Path, out: &Path, jobs: usize) -> hearth::bake::Report {
    Baker::new(manifest, out)
        .jobs(jobs)
        .cache(false)
        .run()
        .unwrap()
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let files = data::mixed_files(45, usize::MAX, FILES, 256, 64 << 10);
        let total = data::total_bytes(&files);
        let content = tempfile::tempdir().unwrap();
        data::write_tree(content.path(), &files);
        let list: String = files.iter().map(|(path, _)| format!("{path}\n")).collect();
        std::fs::write(content.path().join("files.txt"), list).unwrap();
        let setup = Setup {
            content,
            packs: tempfile::tempdir().unwrap(),
            files,
            total,
            pak_side: build_pak_side(),
        };
        for codec in CODECS {
            let level = if codec == "brotli" {
                format!("compression_level = {BROTLI_QUALITY}\n")
            } else {
                String::new()
            };
            std::fs::write(
                setup.hearth_manifest(codec),
                format!(
                    "[content]\nname = \"hearth_{codec}\"\ncompression = \"{codec}\"\n{level}\n[[content.group]]\n{ASSETS}\n"
                ),
            )
            .unwrap();
            // pak has no "none": no compression key means uncompressed.
            let compression = match codec {
                "none" => String::new(),
                "brotli" => format!("compression = 'brotli'\nquality = {BROTLI_QUALITY}\n"),
                other => format!("compression = '{other}'\n"),
            };
            std::fs::write(
                setup.pak_manifest(codec),
                format!("[content]\n{compression}\n[[content.group]]\n{ASSETS}\n"),
            )
            .unwrap();

            let started = std::time::Instant::now();
            let report = bake_hearth(
                &setup.hearth_manifest(codec),
                &setup.packs.path().join(format!("hearth_{codec}")),
                1,
            );
            let hearth_time = started.elapsed();
            assert_eq!(report.pack_path, setup.hearth_pack(codec));
            let started = std::time::Instant::now();
            setup.pak(&[&"bake-once", &setup.pak_manifest(codec), &setup.pak_pack(codec)]);
            let pak_time = started.elapsed();

            // Both packs hold every file, byte for byte.
            let hearth = PakReader::open(setup.hearth_pack(codec)).unwrap();
            hearth.verify().unwrap();
            assert_eq!(hearth.len(), setup.files.len() + 2); // + assets.hman, assets.hnames
            for (path, bytes) in &setup.files {
                assert_eq!(&*hearth.get(path).unwrap().unwrap(), bytes.as_slice());
            }
            setup.pak(&[&"check", &setup.pak_pack(codec), &setup.content.path(), &setup.list()]);
            let hearth_size = std::fs::metadata(setup.hearth_pack(codec)).unwrap().len();
            let pak_size = std::fs::metadata(setup.pak_pack(codec)).unwrap().len();
            println!(
                "SIZE {codec}: {} files, {total} bytes in; hearth {hearth_size} bytes ({:.3} of input), \
                 pak {pak_size} bytes ({:.3} of input), hearth/pak size {:.3}; \
                 first bake (untimed by criterion): hearth {hearth_time:.2?}, pak {pak_time:.2?} \
                 (pak's with its process start)",
                setup.files.len(),
                hearth_size as f64 / total as f64,
                pak_size as f64 / total as f64,
                hearth_size as f64 / pak_size as f64,
            );
        }
        setup
    })
}

fn bake(c: &mut Criterion) {
    let setup = setup();
    // Disk: the temp folder (ext4 here). tmpfs: /dev/shm, where fsync is free, to separate the
    // CPU work from hearth's per-file fsync of its runtime tree (pak writes one file, no fsync).
    let mut targets = vec![("disk", std::env::temp_dir())];
    if Path::new("/dev/shm").is_dir() {
        targets.push(("tmpfs", PathBuf::from("/dev/shm")));
    }
    let mut group = c.benchmark_group("bake");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(setup.total));
    for codec in CODECS {
        for (target, parent) in &targets {
            let jobs: &[usize] = if *target == "disk" { &[1] } else { &[1, 2] };
            for &jobs in jobs {
                group.bench_function(format!("{codec}/{target}/hearth_jobs_{jobs}"), |b| {
                    b.iter_batched(
                        || tempfile::tempdir_in(parent).unwrap(),
                        |out| {
                            black_box(bake_hearth(&setup.hearth_manifest(codec), out.path(), jobs));
                            out
                        },
                        BatchSize::PerIteration,
                    )
                });
            }
            group.bench_function(format!("{codec}/{target}/pak"), |b| {
                b.iter_custom(|iters| {
                    let n = iters.to_string();
                    setup.pak(&[&"bake", &setup.pak_manifest(codec), parent, &n])
                })
            });
        }
    }
    group.finish();
}

fn open(c: &mut Criterion) {
    let setup = setup();
    let mut group = c.benchmark_group("open");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    for codec in CODECS {
        let (hearth_pack, pak_pack) = (setup.hearth_pack(codec), setup.pak_pack(codec));
        group.bench_function(format!("{codec}/hearth"), |b| {
            b.iter(|| black_box(PakReader::open(&hearth_pack).unwrap()))
        });
        group.bench_function(format!("{codec}/pak"), |b| {
            b.iter_custom(|iters| setup.pak(&[&"open", &pak_pack, &iters.to_string()]))
        });
    }
    group.finish();
}

fn read_all(c: &mut Criterion) {
    let setup = setup();
    let keys: Vec<&str> = setup.files.iter().map(|(p, _)| p.as_str()).collect();
    let total = setup.total as usize;
    let mut group = c.benchmark_group("read_all");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Bytes(setup.total));
    for codec in CODECS {
        // Both readers opened once, outside the timing; every file read by its path.
        let hearth = PakReader::open(setup.hearth_pack(codec)).unwrap();
        let (pak_pack, list) = (setup.pak_pack(codec), setup.list());
        group.bench_function(format!("{codec}/hearth"), |b| {
            b.iter(|| {
                let mut n = 0;
                for key in &keys {
                    n += black_box(hearth.get(key).unwrap().unwrap()).len();
                }
                assert_eq!(n, total);
            })
        });
        group.bench_function(format!("{codec}/pak"), |b| {
            b.iter_custom(|iters| setup.pak(&[&"read-all", &pak_pack, &list, &iters.to_string()]))
        });
    }
    group.finish();
}

/// The pak-style content folder: pak's own scene fixture (a scene naming a `[mesh]` of a
/// glTF, a `[material]` and an image used as a material), a `[bitmap-font]`, `[bitmap]` files
/// and `[blob]` files, one manifest each. Textures raw without mips in both (pak's default).
const STYLE_BITMAPS: usize = 16;
const STYLE_BLOBS: usize = 64;
const STYLE_ASSETS: &str = "assets = ['scene.toml', 'font.toml', 'bitmaps/*.toml', 'blobs/*.toml']";

struct Style {
    content: tempfile::TempDir,
    packs: tempfile::TempDir,
}

impl Style {
    fn hearth_manifest(&self) -> PathBuf {
        self.content.path().join("hearth.toml")
    }
    fn pak_manifest(&self) -> PathBuf {
        self.content.path().join("pak.toml")
    }
    fn hearth_pack(&self) -> PathBuf {
        self.packs.path().join("hearth/style.hpack")
    }
    fn pak_pack(&self) -> PathBuf {
        self.packs.path().join("style.pak")
    }
}

fn style() -> &'static Style {
    static STYLE: OnceLock<Style> = OnceLock::new();
    STYLE.get_or_init(|| {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let content = tempfile::tempdir().unwrap();
        let root = content.path();
        for entry in std::fs::read_dir(fixtures.join("pak/scene")).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), root.join(entry.file_name())).unwrap();
        }
        for file in ["dejavu.txt.fnt", "dejavu.png"] {
            std::fs::copy(fixtures.join("fonts").join(file), root.join(file)).unwrap();
        }
        std::fs::write(root.join("font.toml"), "[bitmap-font]\nsrc = 'dejavu.txt.fnt'\n").unwrap();
        std::fs::create_dir_all(root.join("bitmaps")).unwrap();
        for i in 0..STYLE_BITMAPS {
            // 256² RGBA, a different gradient and pattern each (no two alike).
            let image = image::RgbaImage::from_fn(256, 256, |x, y| {
                let v = (x * 7 + y * 13 + i as u32 * 31) as u8;
                image::Rgba([x as u8, y as u8, v, 255 - (v / 2)])
            });
            image.save(root.join(format!("bitmaps/bitmap_{i}.png"))).unwrap();
            std::fs::write(
                root.join(format!("bitmaps/bitmap_{i}.toml")),
                format!("[bitmap]\nsrc = 'bitmap_{i}.png'\n"),
            )
            .unwrap();
        }
        std::fs::create_dir_all(root.join("blobs")).unwrap();
        let blobs = data::mixed_files(46, usize::MAX, STYLE_BLOBS, 256, 16 << 10);
        for (i, (_, bytes)) in blobs.iter().enumerate() {
            std::fs::write(root.join(format!("blobs/blob_{i}.bin")), bytes).unwrap();
            std::fs::write(
                root.join(format!("blobs/blob_{i}.toml")),
                format!("[blob]\nsrc = 'blob_{i}.bin'\n"),
            )
            .unwrap();
        }
        std::fs::write(
            root.join("pak.toml"),
            format!("[content]\ncompression = 'snap'\n\n[[content.group]]\n{STYLE_ASSETS}\n"),
        )
        .unwrap();
        std::fs::write(
            root.join("hearth.toml"),
            format!(
                "[content]\nname = 'style'\ncompression = 'snap'\n\n[[content.group]]\n{STYLE_ASSETS}\n\n\
                 [default]\ntexture = {{ compress = false, mips = false }}\n"
            ),
        )
        .unwrap();
        let style = Style {
            content,
            packs: tempfile::tempdir().unwrap(),
        };
        let report = bake_hearth(&style.hearth_manifest(), &style.packs.path().join("hearth"), 1);
        assert_eq!(report.pack_path, style.hearth_pack());
        let setup = setup();
        setup.pak(&[&"bake-once", &style.pak_manifest(), &style.pak_pack()]);
        // Both read everything back (pak-side panics otherwise).
        assert!(read_style_hearth(&PakReader::open(style.hearth_pack()).unwrap()) > 0);
        let (bitmaps, blobs) = (STYLE_BITMAPS.to_string(), STYLE_BLOBS.to_string());
        setup.pak(&[&"read-style", &style.pak_pack(), &bitmaps, &blobs, &"1"]);
        let input: u64 = walk_size(style.content.path());
        let hearth_size = std::fs::metadata(style.hearth_pack()).unwrap().len();
        let pak_size = std::fs::metadata(style.pak_pack()).unwrap().len();
        println!(
            "SIZE style (snap): {input} bytes of sources; hearth {hearth_size} bytes, \
             pak {pak_size} bytes, hearth/pak size {:.3}",
            hearth_size as f64 / pak_size as f64
        );
        style
    })
}

fn walk_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| match p.is_dir() {
            true => walk_size(&p),
            false => std::fs::metadata(&p).unwrap().len(),
        })
        .sum()
}

/// hearth's side of `read-style`: the scene and every mesh, material and color texture it
/// names, the font, the bitmaps and the blobs, each parsed by its view. Returns bytes seen.
fn read_style_hearth(pack: &PakReader) -> usize {
    let get = |path: &str| pack.get(path).unwrap().unwrap();
    let by_hash = |hash: u64| {
        let path = pack.resolve(hash).unwrap().unwrap().path.to_string();
        pack.get(&path).unwrap().unwrap()
    };
    let mut seen = 0;
    let scene_bytes = get("scene.hscene");
    let scene = hearth::SceneView::parse(&scene_bytes).unwrap();
    for reference in scene.refs() {
        if let Some(mesh) = reference.mesh() {
            let bytes = by_hash(mesh);
            seen += black_box(hearth::MeshView::parse(&bytes).unwrap())
                .vertices
                .len();
        }
        for material in reference.materials() {
            let bytes = by_hash(material);
            let table = hearth::MaterialTable::parse(&bytes).unwrap();
            let color = by_hash(table.rows[0].base_color_tex);
            seen += black_box(hearth::Ktx2::parse(&color).unwrap().level(0).unwrap()).len();
        }
    }
    let font = get("font.hfont");
    seen += black_box(hearth::FontView::parse(&font).unwrap()).glyph_count();
    for i in 0..STYLE_BITMAPS {
        let bytes = get(&format!("bitmaps/bitmap_{i}.ktx2"));
        seen += black_box(hearth::Ktx2::parse(&bytes).unwrap().level(0).unwrap()).len();
    }
    for i in 0..STYLE_BLOBS {
        seen += black_box(get(&format!("blobs/blob_{i}"))).len();
    }
    seen
}

fn style_bench(c: &mut Criterion) {
    let style = style();
    let setup = setup();
    let mut group = c.benchmark_group("style");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let mut targets = vec![("disk", std::env::temp_dir())];
    if Path::new("/dev/shm").is_dir() {
        targets.push(("tmpfs", PathBuf::from("/dev/shm")));
    }
    for (target, parent) in &targets {
        // pak bakes on a tokio runtime with a thread per core: hearth with 1 and 2 jobs.
        for jobs in [1, 2] {
            group.bench_function(format!("bake/{target}/hearth_jobs_{jobs}"), |b| {
                b.iter_batched(
                    || tempfile::tempdir_in(parent).unwrap(),
                    |out| {
                        black_box(bake_hearth(&style.hearth_manifest(), out.path(), jobs));
                        out
                    },
                    BatchSize::PerIteration,
                )
            });
        }
        // The pack alone (`tree = false`): what pak writes.
        group.bench_function(format!("bake/{target}/hearth_pack_only_jobs_2"), |b| {
            b.iter_batched(
                || tempfile::tempdir_in(parent).unwrap(),
                |out| {
                    let report = Baker::new(style.hearth_manifest(), out.path())
                        .jobs(2)
                        .cache(false)
                        .tree(false)
                        .run()
                        .unwrap();
                    black_box(report);
                    out
                },
                BatchSize::PerIteration,
            )
        });
        group.bench_function(format!("bake/{target}/pak"), |b| {
            b.iter_custom(|iters| {
                let n = iters.to_string();
                setup.pak(&[&"bake", &style.pak_manifest(), parent, &n])
            })
        });
    }
    let (hearth_pack, pak_pack) = (style.hearth_pack(), style.pak_pack());
    group.bench_function("open/hearth", |b| {
        b.iter(|| black_box(PakReader::open(&hearth_pack).unwrap()))
    });
    group.bench_function("open/pak", |b| {
        b.iter_custom(|iters| setup.pak(&[&"open", &pak_pack, &iters.to_string()]))
    });
    let hearth = PakReader::open(&hearth_pack).unwrap();
    group.bench_function("read_all/hearth", |b| b.iter(|| read_style_hearth(&hearth)));
    let (bitmaps, blobs) = (STYLE_BITMAPS.to_string(), STYLE_BLOBS.to_string());
    group.bench_function("read_all/pak", |b| {
        b.iter_custom(|iters| {
            let n = iters.to_string();
            setup.pak(&[&"read-style", &pak_pack, &bitmaps, &blobs, &n])
        })
    });
    group.finish();
}

criterion_group!(benches, open, read_all, bake, style_bench);
criterion_main!(benches);
