//! Baker benches: pack write throughput per codec (`hearth::bake::pack::build`, in memory), a
//! full cold `Baker` bake of ~2000 generated files with 1 and 2 worker threads, and a no-op
//! re-bake of 10k files against `find` stat-ing the same tree (the floor).
//!
//! `cargo bench -p hearth-benches --bench bake`

mod data;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use hearth::bake::pack::{self, PackFile};
use hearth::bake::Baker;
use hearth::{Codec, PakReader};
use std::hint::black_box;
use std::time::Duration;

const WRITE_TOTAL: usize = 8 << 20;
const BAKE_FILES: usize = 2000;

fn pack_write(c: &mut Criterion) {
    let files = data::mixed_files(43, WRITE_TOTAL, usize::MAX, 256, 256 << 10);
    let total = data::total_bytes(&files);
    eprintln!(
        "pack_write: {} files, {total} bytes, rayon pool of {} threads",
        files.len(),
        rayon_threads()
    );
    let mut group = c.benchmark_group("pack_write_8MiB");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(total));
    for codec in [Codec::None, Codec::Snap, Codec::Zstd, Codec::Brotli] {
        let inputs: Vec<PackFile<'_>> = files
            .iter()
            .map(|(path, bytes)| PackFile {
                path,
                kind: hearth::AssetKind::BLOB,
                bytes,
                codec,
                level: None,
            })
            .collect();
        let bytes = pack::build(3, &inputs);
        eprintln!(
            "pack_write: {} pack {} bytes (ratio {:.3})",
            codec.name(),
            bytes.len(),
            bytes.len() as f64 / total as f64
        );
        PakReader::from_bytes(&bytes).unwrap().verify().unwrap();
        group.bench_function(codec.name(), |b| {
            b.iter(|| black_box(pack::build(3, black_box(&inputs))))
        });
    }
    group.finish();
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

fn full_bake(c: &mut Criterion) {
    let content = tempfile::tempdir().unwrap();
    let files = data::mixed_files(44, usize::MAX, BAKE_FILES, 256, 16 << 10);
    let total = data::total_bytes(&files);
    data::write_tree(content.path(), &files);
    let manifest = content.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"bench\"\ncompression = \"zstd\"\n\n[[content.group]]\nassets = [\"data/**/*\"]\n",
    )
    .unwrap();
    eprintln!("full_bake: {} files, {total} bytes, zstd", files.len());

    // One checked bake first: every file is in the pack (plus assets.hman) and reads back.
    let out = tempfile::tempdir().unwrap();
    let report = Baker::new(manifest.as_path(), out.path())
        .cache(false)
        .run()
        .unwrap();
    assert_eq!(report.assets, files.len());
    let pak = PakReader::open(&report.pack_path).unwrap();
    pak.verify().unwrap();
    assert_eq!(pak.len(), files.len() + 2); // + assets.hman, assets.hnames
    for (path, bytes) in files.iter().step_by(97) {
        assert_eq!(&*pak.get(path).unwrap().unwrap(), bytes.as_slice());
    }
    eprintln!(
        "full_bake: pack {} bytes, {} files written",
        report.pack_bytes, report.files_written
    );

    // The baker fsyncs every file it writes (2000 tree files + manifest + pack + cache), one
    // after another on the calling thread, so on a real disk the bake is I/O-bound. The same
    // bakes into tmpfs (where fsync costs nothing) show how the CPU work scales with jobs.
    let shm = std::path::Path::new("/dev/shm");
    let mut targets = vec![("disk", std::env::temp_dir())];
    if shm.is_dir() {
        targets.push(("tmpfs", shm.to_path_buf()));
    }

    let mut group = c.benchmark_group("full_bake_2000_files");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Bytes(total));
    for (target, parent) in &targets {
        for jobs in [1usize, 2] {
            // A cold bake each time: a fresh, empty output folder (made and removed untimed).
            group.bench_function(format!("{target}/jobs_{jobs}"), |b| {
                b.iter_batched(
                    || tempfile::tempdir_in(parent).unwrap(),
                    |out| {
                        let report = Baker::new(manifest.as_path(), out.path())
                            .jobs(jobs)
                            .cache(false)
                            .run()
                            .unwrap();
                        black_box(report.pack_bytes);
                        out
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

const NOOP_FILES: usize = 10_000;

/// A re-bake with nothing changed: the cache's fast path stats every source and opens none.
/// The floor is `find DIR -type f -printf '%s %T@\n'` over the same tree, which also stats
/// every file (and walks the folders, as the planner's globs do).
fn noop_rebake(c: &mut Criterion) {
    let content = tempfile::tempdir().unwrap();
    let files = data::mixed_files(45, usize::MAX, NOOP_FILES, 64, 2 << 10);
    data::write_tree(content.path(), &files);
    let manifest = content.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"bench\"\n\n[[content.group]]\nassets = [\"data/**/*\"]\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let first = Baker::new(manifest.as_path(), out.path()).run().unwrap();
    assert_eq!(first.assets, files.len());
    let again = Baker::new(manifest.as_path(), out.path()).run().unwrap();
    assert_eq!((again.cache_hits, again.files_written), (files.len(), 0));
    eprintln!("noop_rebake: {} files", files.len());
    // The same content baked pack-only (`tree = false`): its cache hits are found in the pack.
    let pack_out = tempfile::tempdir().unwrap();
    let pack_only = || {
        Baker::new(manifest.as_path(), pack_out.path())
            .jobs(2)
            .tree(false)
            .run()
            .unwrap()
    };
    pack_only();
    let again = pack_only();
    assert_eq!((again.cache_hits, again.files_written), (files.len(), 0));

    let data_dir = content.path().join("data");
    let mut group = c.benchmark_group("noop_rebake_10k_files");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for jobs in [1usize, 2] {
        group.bench_function(format!("hearth/jobs_{jobs}"), |b| {
            b.iter(|| {
                let report = Baker::new(manifest.as_path(), out.path())
                    .jobs(jobs)
                    .run()
                    .unwrap();
                black_box(report.files_written)
            })
        });
    }
    group.bench_function("hearth/pack_only_jobs_2", |b| {
        b.iter(|| black_box(pack_only().files_written))
    });
    group.bench_function("find_floor", |b| {
        b.iter(|| {
            let output = std::process::Command::new("find")
                .arg(&data_dir)
                .args(["-type", "f", "-printf", "%s %T@\\n"])
                .output()
                .unwrap();
            assert!(output.status.success());
            black_box(output.stdout.len())
        })
    });
    group.finish();
}

criterion_group!(benches, pack_write, full_bake, noop_rebake);
criterion_main!(benches);
