//! hearth against the `pak` crate, in one run, on the same generated files: bake time, open
//! time, read-all time and pack size for the codecs both support (none, snap, brotli).
//!
//! See ../README.md for how to run it.

#[path = "../../data/mod.rs"]
mod data;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use hearth::bake::Baker;
use hearth::PakReader;
use pak::{Pak, PakBuf};
use std::hint::black_box;
use std::path::{Path, PathBuf};
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
}

fn bake_hearth(manifest: &Path, out: &Path, jobs: usize) -> hearth::bake::Report {
    Baker::new(manifest, out)
        .jobs(jobs)
        .cache(false)
        .run()
        .unwrap()
}

fn bake_pak(manifest: &Path, dst: &Path) {
    // The variant without `cargo:rerun-if-changed` lines (cargo sets CARGO for benches too).
    PakBuf::bake_with_dir_without_cargo_watches(manifest, dst, manifest.parent().unwrap()).unwrap();
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let files = data::mixed_files(45, usize::MAX, FILES, 256, 64 << 10);
        let total = data::total_bytes(&files);
        let content = tempfile::tempdir().unwrap();
        data::write_tree(content.path(), &files);
        let setup = Setup {
            content,
            packs: tempfile::tempdir().unwrap(),
            files,
            total,
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
            bake_pak(&setup.pak_manifest(codec), &setup.pak_pack(codec));
            let pak_time = started.elapsed();

            // Both packs hold every file, byte for byte.
            let hearth = PakReader::open(setup.hearth_pack(codec)).unwrap();
            hearth.verify().unwrap();
            let mut pak = PakBuf::open(setup.pak_pack(codec)).unwrap();
            assert!(pak.validate_hash().unwrap());
            assert_eq!(pak.blob_count(), setup.files.len());
            assert_eq!(hearth.len(), setup.files.len() + 1); // + assets.hman
            for (path, bytes) in &setup.files {
                assert_eq!(&*hearth.get(path).unwrap().unwrap(), bytes.as_slice());
                assert_eq!(&pak.read_blob(path).unwrap(), bytes);
            }
            let hearth_size = std::fs::metadata(setup.hearth_pack(codec)).unwrap().len();
            let pak_size = std::fs::metadata(setup.pak_pack(codec)).unwrap().len();
            println!(
                "SIZE {codec}: {} files, {total} bytes in; hearth {hearth_size} bytes ({:.3} of input), \
                 pak {pak_size} bytes ({:.3} of input), hearth/pak size {:.3}; \
                 first bake (untimed by criterion): hearth {hearth_time:.2?}, pak {pak_time:.2?}",
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
                b.iter_batched(
                    || tempfile::tempdir_in(parent).unwrap(),
                    |out| {
                        bake_pak(&setup.pak_manifest(codec), &out.path().join("out.pak"));
                        out
                    },
                    BatchSize::PerIteration,
                )
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
            b.iter(|| black_box(PakBuf::open(&pak_pack).unwrap()))
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
        let mut pak = PakBuf::open(setup.pak_pack(codec)).unwrap();
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
            b.iter(|| {
                let mut n = 0;
                for key in &keys {
                    n += black_box(pak.read_blob(key).unwrap()).len();
                }
                assert_eq!(n, total);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, open, read_all, bake);
criterion_main!(benches);
