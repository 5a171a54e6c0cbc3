//! Runtime reader benches: open cost against entry count (v3 O(1), v2 O(n)), lookups by path
//! and by hash, read-all throughput per codec against each codec's own decoder, and the time
//! to a 4K texture's first visible levels (its mip tail) against reading all of it.
//!
//! `cargo bench -p hearth-benches --bench reader` (`-- names`: lookup by asset name at 100k
//! names; `-- layers`: a read through a base + patch mount against one pack, and the size of
//! a patch for an update of the example content).

#[path = "../tests/common/corpus.rs"]
mod corpus;
mod data;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use hearth::bake::pack::{self, PackFile};
use hearth::{Codec, PakReader};
use std::hint::black_box;
use std::io::Read;
use std::time::Duration;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const READ_TOTAL: usize = 32 << 20;

/// A pack of `n` tiny entries (16 bytes each), written at `version`.
fn tiny_pack(version: u32, paths: &[String]) -> Vec<u8> {
    let payloads: Vec<[u8; 16]> = paths
        .iter()
        .map(|p| {
            let h = hearth::hash_runtime_path(p).to_le_bytes();
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&h);
            b[8..].copy_from_slice(&h);
            b
        })
        .collect();
    let files: Vec<PackFile<'_>> = paths
        .iter()
        .zip(&payloads)
        .map(|(path, bytes)| PackFile {
            path,
            kind: hearth::AssetKind::BLOB,
            bytes,
            codec: Codec::None,
            level: None,
        })
        .collect();
    pack::build(version, &files)
}

fn open(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("open");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500));
    for n in SIZES {
        let paths = data::many_paths(n);
        for version in [3u32, 2] {
            let bytes = tiny_pack(version, &paths);
            let file = dir.path().join(format!("v{version}_{n}.hpack"));
            std::fs::write(&file, &bytes).unwrap();
            eprintln!(
                "open: v{version} pack with {n} entries is {} bytes",
                bytes.len()
            );
            let leaked: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            assert_eq!(PakReader::from_static(leaked).unwrap().len(), n);

            group.bench_with_input(
                BenchmarkId::new(format!("v{version}/open_mmap"), n),
                &file,
                |b, file| b.iter(|| black_box(PakReader::open(file).unwrap())),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("v{version}/from_static"), n),
                &leaked,
                |b, bytes| b.iter(|| black_box(PakReader::from_static(bytes).unwrap())),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("v{version}/from_bytes"), n),
                &leaked,
                |b, bytes| b.iter(|| black_box(PakReader::from_bytes(bytes).unwrap())),
            );
        }
    }
    group.finish();
}

fn lookup(c: &mut Criterion) {
    let n = *SIZES.last().unwrap();
    let paths = data::many_paths(n);
    // 4096 pseudo-random hits, looked up round-robin so the caches see a realistic spread.
    // The query strings sit side by side in one buffer, as the hash queries do in theirs, so
    // the figure is the lookup's own cost, not a cache miss on the caller's scattered strings
    // (which adds about 35 ns here).
    let mut rng = data::Rng::new(7);
    let picks: Vec<usize> = (0..4096).map(|_| rng.below(n as u64) as usize).collect();
    let buffer: &'static str = Box::leak(
        picks
            .iter()
            .map(|&i| paths[i].as_str())
            .collect::<String>()
            .into_boxed_str(),
    );
    let mut at = 0;
    let queries: Vec<&str> = picks
        .iter()
        .map(|&i| {
            let query = &buffer[at..at + paths[i].len()];
            at += paths[i].len();
            query
        })
        .collect();
    let hashes: Vec<u64> = queries
        .iter()
        .map(|p| hearth::hash_runtime_path(p))
        .collect();

    let mut group = c.benchmark_group("lookup_100k");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for version in [3u32, 2] {
        let bytes: &'static [u8] = Box::leak(tiny_pack(version, &paths).into_boxed_slice());
        let pak = PakReader::from_static(bytes).unwrap();
        // Correctness first: every query resolves to its own path, by path and by hash.
        for (q, h) in queries.iter().zip(&hashes).take(256) {
            assert_eq!(pak.find(q).unwrap().unwrap().path(), *q);
            assert_eq!(pak.find_by_hash(*h).unwrap().unwrap().path(), *q);
        }
        group.bench_function(format!("v{version}/find"), |b| {
            let mut i = 0usize;
            b.iter(|| {
                let q = queries[i & 4095];
                i += 1;
                black_box(pak.find(black_box(q)).unwrap().unwrap().index())
            })
        });
        if version == 3 {
            // The first lookup builds the in-memory hash index (one pass over the table).
            group.bench_function("v3/open_and_first_lookup", |b| {
                b.iter(|| {
                    let pak = PakReader::from_static(bytes).unwrap();
                    black_box(pak.find_by_hash(hashes[0]).unwrap().unwrap().index())
                })
            });
            // The floor under `find`: the format's FNV-1a of the path alone.
            group.bench_function("hash_path_only", |b| {
                let mut i = 0usize;
                b.iter(|| {
                    let q = queries[i & 4095];
                    i += 1;
                    black_box(hearth::hash_runtime_path(black_box(q)))
                })
            });
        }
        group.bench_function(format!("v{version}/find_by_hash"), |b| {
            let mut i = 0usize;
            b.iter(|| {
                let h = hashes[i & 4095];
                i += 1;
                black_box(pak.find_by_hash(black_box(h)).unwrap().unwrap().index())
            })
        });
    }
    group.finish();
}

/// Decodes the Snappy frame format chunk by chunk with the raw block decoder, skipping the
/// CRC-32C checks that `snap::read::FrameDecoder` (and so hearth) performs.
fn snap_frames_no_crc(decoder: &mut snap::raw::Decoder, stored: &[u8], out: &mut [u8]) -> usize {
    let (mut at, mut pos) = (0usize, 0usize);
    while at + 4 <= stored.len() {
        let kind = stored[at];
        let len = u32::from_le_bytes([stored[at + 1], stored[at + 2], stored[at + 3], 0]) as usize;
        let body = &stored[at + 4..at + 4 + len];
        match kind {
            0x00 => {
                let block = &body[4..];
                let n = snap::raw::decompress_len(block).unwrap();
                decoder.decompress(block, &mut out[pos..pos + n]).unwrap();
                pos += n;
            }
            0x01 => {
                let raw = &body[4..];
                out[pos..pos + raw.len()].copy_from_slice(raw);
                pos += raw.len();
            }
            _ => {} // stream identifier, padding, skippable
        }
        at += 4 + len;
    }
    pos
}

fn read_all(c: &mut Criterion) {
    let files = data::mixed_files(42, READ_TOTAL, usize::MAX, 256, 256 << 10);
    let total = data::total_bytes(&files);
    let mut group = c.benchmark_group("read_all_32MiB");
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
        let started = std::time::Instant::now();
        let bytes = pack::build(3, &inputs);
        let build_time = started.elapsed();
        let pak = PakReader::from_bytes(&bytes).unwrap();
        drop(bytes);
        pak.verify().unwrap();
        let compressed = pak
            .entries()
            .filter(|e| e.as_ref().unwrap().codec() != Codec::None)
            .count();
        eprintln!(
            "read_all: {} files, {total} bytes; {} pack {} bytes (ratio {:.3}), {compressed} entries compressed, built in {:.2?}",
            files.len(),
            codec.name(),
            pak.bytes().len(),
            pak.bytes().len() as f64 / total as f64,
            build_time,
        );
        // Same bytes back, once, outside the timing.
        for (entry, (path, original)) in pak.entries().zip(&files) {
            let entry = entry.unwrap();
            assert_eq!(&*entry.path(), path.as_str());
            assert_eq!(&*entry.bytes().unwrap(), original.as_slice());
        }

        group.bench_function(format!("hearth/{}", codec.name()), |b| {
            b.iter(|| {
                let mut n = 0usize;
                for entry in pak.entries() {
                    let bytes = entry.unwrap().bytes().unwrap();
                    n += black_box(&bytes).len();
                }
                assert_eq!(n as u64, total);
            })
        });
        if codec != Codec::None {
            // One reused buffer for every entry (`Entry::bytes_into`): no allocation per entry.
            group.bench_function(format!("hearth/{}_into", codec.name()), |b| {
                let mut buffer = Vec::new();
                b.iter(|| {
                    let mut n = 0usize;
                    for entry in pak.entries() {
                        entry.unwrap().bytes_into(&mut buffer).unwrap();
                        n += black_box(&buffer).len();
                    }
                    assert_eq!(n as u64, total);
                })
            });
        }
        if codec == Codec::None {
            // Stored reads are zero-copy; this variant also copies every entry into an owned
            // buffer, to show what touching all 32 MiB costs.
            group.bench_function("hearth/none_to_vec", |b| {
                b.iter(|| {
                    let mut n = 0usize;
                    for entry in pak.entries() {
                        let bytes = entry.unwrap().bytes().unwrap().into_owned();
                        n += black_box(bytes).len();
                    }
                    assert_eq!(n as u64, total);
                })
            });
            continue;
        }

        // The floor: the codec's own decoder on the very same stored payloads, with the entry
        // table already walked (entries stored uncompressed are borrowed, as hearth does).
        let stored: Vec<(&[u8], usize)> = pak
            .entries()
            .map(|e| e.unwrap())
            .filter(|e| e.codec() != Codec::None)
            .map(|e| (e.stored_bytes(), e.size() as usize))
            .collect();
        let stored_total: usize = pak
            .entries()
            .map(|e| e.unwrap())
            .filter(|e| e.codec() == Codec::None)
            .map(|e| e.size() as usize)
            .sum();
        let check = move |n: usize| assert_eq!((n + stored_total) as u64, total);
        match codec {
            Codec::Zstd => {
                group.bench_function("raw/zstd_bulk", |b| {
                    let mut dctx = zstd::bulk::Decompressor::new().unwrap();
                    b.iter(|| {
                        let mut n = 0;
                        for (input, size) in &stored {
                            let mut out = Vec::with_capacity(*size);
                            dctx.decompress_to_buffer(input, &mut out).unwrap();
                            n += black_box(out).len();
                        }
                        check(n);
                    })
                });
            }
            Codec::Snap => {
                group.bench_function("raw/snap_frame_decoder", |b| {
                    b.iter(|| {
                        let mut n = 0;
                        for (input, size) in &stored {
                            let mut out = Vec::with_capacity(*size);
                            snap::read::FrameDecoder::new(*input)
                                .read_to_end(&mut out)
                                .unwrap();
                            n += black_box(out).len();
                        }
                        check(n);
                    })
                });
                group.bench_function("raw/snap_blocks_no_crc", |b| {
                    let mut decoder = snap::raw::Decoder::new();
                    b.iter(|| {
                        let mut n = 0;
                        for (input, size) in &stored {
                            let mut out = vec![0u8; *size];
                            let got = snap_frames_no_crc(&mut decoder, input, &mut out);
                            assert_eq!(got, *size);
                            n += black_box(out).len();
                        }
                        check(n);
                    })
                });
            }
            Codec::Brotli => {
                group.bench_function("raw/brotli_reader", |b| {
                    b.iter(|| {
                        let mut n = 0;
                        for (input, size) in &stored {
                            let mut out = Vec::with_capacity(*size);
                            brotli_decompressor::Decompressor::new(*input, 4096)
                                .read_to_end(&mut out)
                                .unwrap();
                            n += black_box(out).len();
                        }
                        check(n);
                    })
                });
                // The one-shot API (one call, output preallocated).
                group.bench_function("raw/brotli_decode", |b| {
                    b.iter(|| {
                        let mut n = 0;
                        for (input, size) in &stored {
                            let mut out = vec![0u8; *size];
                            let info = brotli_decompressor::brotli_decode(input, &mut out);
                            assert_eq!(info.decoded_size, *size);
                            n += black_box(out).len();
                        }
                        check(n);
                    })
                });
            }
            Codec::None => unreachable!(),
        }
    }
    group.finish();
}

/// Side of the streamed texture, and the largest side of the levels in its mip tail.
const STREAM_SIDE: u32 = 4096;
const TAIL_SIDE: u32 = 256;

/// A real 2K albedo from the test corpus scaled to 4096², baked as the baker bakes a texture
/// (UASTC, zstd-supercompressed per level; `fastest` so the setup stays short in test mode),
/// into a pack on disk.
fn streaming_pack(dir: &std::path::Path) -> std::path::PathBuf {
    use hearth::bake::settings::{TextureQuality, TextureSettings};
    use hearth::bake::texture::pixels::Pixels;
    use hearth::bake::texture::{encode, TextureMode, TextureShape};
    let started = std::time::Instant::now();
    let bytes = std::fs::read(corpus::corpus("images/DamagedHelmet_albedo_2k.jpg")).unwrap();
    let (pixels, _) = Pixels::decode(&bytes, "jpg").expect("corpus image decodes");
    let pixels = pixels.resample(STREAM_SIDE, STREAM_SIDE);
    let settings = TextureSettings {
        quality: TextureQuality::Fastest,
        ..Default::default()
    };
    let texture = encode(
        &[pixels],
        TextureShape::Single,
        TextureMode::Color,
        &settings,
    )
    .unwrap();
    let file = PackFile {
        path: "textures/helmet.ktx2",
        kind: hearth::AssetKind::TEXTURE,
        bytes: &texture.ktx2,
        codec: Codec::Zstd,
        level: None,
    };
    let path = dir.join("stream.hpack");
    std::fs::write(&path, pack::build(4, &[file])).unwrap();
    eprintln!(
        "texture_stream: 4096² UASTC texture, {} bytes in the pack, baked in {:.1?}",
        texture.ktx2.len(),
        started.elapsed()
    );
    path
}

/// Time to a 4K texture's first visible levels: the mip tail (levels of at most 256 pixels a
/// side, what a game uploads at load) against every level, both through `TextureStream` from
/// a mapped pack (find, KTX2 metadata, then each level's zstd inflate).
fn texture_stream(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let pak = PakReader::open(streaming_pack(dir.path())).unwrap();
    let path = "textures/helmet.ktx2";
    let stream = hearth::TextureStream::open(&pak, path).unwrap().unwrap();
    let tail_bytes: usize = stream
        .tail(TAIL_SIDE)
        .unwrap()
        .iter()
        .map(|m| m.bytes.len())
        .sum();
    let all_bytes: usize = stream
        .levels_smallest_first()
        .map(|m| m.unwrap().bytes.len())
        .sum();
    eprintln!(
        "texture_stream: tail of {} levels is {tail_bytes} bytes, all {} levels {all_bytes}",
        stream.level_count() - stream.tail_start(TAIL_SIDE),
        stream.level_count()
    );
    let mut group = c.benchmark_group("texture_stream_4k");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("mip_tail_256", |b| {
        b.iter(|| {
            let stream = hearth::TextureStream::open(&pak, black_box(path))
                .unwrap()
                .unwrap();
            let tail = stream.tail(TAIL_SIDE).unwrap();
            black_box(tail.iter().map(|m| m.bytes.len()).sum::<usize>())
        })
    });
    group.bench_function("whole_texture", |b| {
        b.iter(|| {
            let stream = hearth::TextureStream::open(&pak, black_box(path))
                .unwrap()
                .unwrap();
            let levels = stream.levels_smallest_first();
            black_box(levels.map(|m| m.unwrap().bytes.len()).sum::<usize>())
        })
    });
    group.finish();
}

/// Lookup by name in an `assets.hnames` of 100k names (built in memory with the format's
/// writer): the no-winner names the baker gives (`Rock^a`, `Fox#Survey` style), looked up in
/// a scattered order.
fn names(c: &mut Criterion) {
    use hearth::format::hnames::{self, NameRow};
    const N: usize = 100_000;
    let paths = data::many_paths(N);
    let names: Vec<String> = (0..N)
        .map(|i| match i % 3 {
            0 => format!("Rock^folder_{i}"),
            1 => format!("Character_{i}#Material.{}", i % 17),
            _ => format!("tex_{i}"),
        })
        .collect();
    let rows: Vec<NameRow<'_>> = names
        .iter()
        .zip(&paths)
        .map(|(name, path)| NameRow {
            name,
            kind: hearth::AssetKind::TEXTURE,
            hash: hearth::hash_runtime_path(path),
            path,
            sub: None,
        })
        .collect();
    let bytes = hnames::write(&rows);
    // What a reader keeps: validated once, indexed by name hash.
    let names_owned = hearth::Names::from_bytes(&bytes).unwrap();
    let table = names_owned.table();
    let unindexed = hearth::NameTable::parse(&bytes).unwrap();
    // 4096 queries spread over the table, in a scattered order.
    let queries: Vec<&str> = (0..4096).map(|i| names[(i * 7919) % N].as_str()).collect();
    for q in &queries {
        assert_eq!(table.lookup(q).unwrap().name, *q);
    }
    let mut group = c.benchmark_group("names");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("lookup_100k", |b| {
        let mut i = 0usize;
        b.iter(|| {
            let q = queries[i & 4095];
            i += 1;
            black_box(table.lookup(black_box(q)).unwrap().hash)
        })
    });
    // The same names held by the caller (a game's own strings, allocated together), rather
    // than picked out of the 100k strings the table was generated from.
    let own: Vec<String> = queries.iter().map(|q| q.to_string()).collect();
    group.bench_function("lookup_100k_own_queries", |b| {
        let mut i = 0usize;
        b.iter(|| {
            let q = own[i & 4095].as_str();
            i += 1;
            black_box(table.lookup(black_box(q)).unwrap().hash)
        })
    });
    group.bench_function("binary_search_100k", |b| {
        let mut i = 0usize;
        b.iter(|| {
            let q = queries[i & 4095];
            i += 1;
            black_box(unindexed.lookup(black_box(q)).unwrap().hash)
        })
    });
    group.finish();
}

/// Copies a folder tree (the example content) into `to`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The example content baked with its release preset, then updated as a game's fix would be
/// (one texture re-encoded, one level edited, the credits deleted) and baked again: the patch
/// between the two packs against the entries that changed, as stored (printed).
fn example_patch_size() {
    use hearth::bake::Baker;
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    copy_tree(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/content"),
        &content,
    );
    let manifest = content.join("hearth.toml");
    let out = dir.path().join("out");
    Baker::new(&manifest, &out).run().unwrap();
    let old = std::fs::read(out.join("example.hpack")).unwrap();
    let bricks = content.join("textures/bricks.png");
    let mut image = image::open(&bricks).unwrap().to_rgba8();
    image.get_pixel_mut(0, 0).0[0] ^= 0x40;
    image.save(&bricks).unwrap();
    let level = content.join("data/levels/level1.json");
    let text = std::fs::read_to_string(&level).unwrap();
    std::fs::write(&level, text.replace("\"Level 1\"", "\"Level One\"")).unwrap();
    std::fs::remove_file(content.join("text/credits.txt")).unwrap();
    Baker::new(&manifest, &out).run().unwrap();
    let new = std::fs::read(out.join("example.hpack")).unwrap();
    let (old, new) = (
        PakReader::from_bytes(&old).unwrap(),
        PakReader::from_bytes(&new).unwrap(),
    );
    let patch = hearth::bake::patch::diff(&old, "old", &new, "new", None).unwrap();
    let stats = &patch.stats;
    let changed = stats.added_bytes + stats.changed_bytes;
    let patch_pak = PakReader::from_bytes(&patch.bytes).unwrap();
    let tables = patch_pak.v3_header().unwrap().data_offset;
    let record = patch.record.to_bytes().len();
    eprintln!(
        "layers: example content update (1 texture re-encoded, 1 blob edited, 1 deleted; \
         release preset): new pack {} B, patch {} B = {:.3}x the {} changed entries as stored \
         ({changed} B) + {tables} B of tables (with the {record} B patch record); {} deleted",
        new.bytes().len(),
        patch.bytes.len(),
        (patch.bytes.len() as u64 - tables) as f64 / changed as f64,
        stats.added + stats.changed,
        stats.deleted,
    );
}

/// A read through a two-layer mount (a 100k-entry base and a patch changing 64 entries and
/// deleting 16) against the same read from the base alone: find, then the bytes.
fn layers(c: &mut Criterion) {
    use hearth::LayeredPak;
    example_patch_size();
    let n = *SIZES.last().unwrap();
    let paths = data::many_paths(n);
    let base_bytes: &'static [u8] = Box::leak(tiny_pack(4, &paths).into_boxed_slice());
    let base = PakReader::from_static(base_bytes).unwrap();
    // NEW: every 1563rd entry changed, every 6250th deleted (the rest as `tiny_pack` has them).
    let changed: Vec<(String, [u8; 16])> = paths
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 6250 != 0)
        .map(|(i, p)| {
            let mut bytes = [0u8; 16];
            let hash = hearth::hash_runtime_path(p).to_le_bytes();
            bytes[..8].copy_from_slice(&hash);
            bytes[8..].copy_from_slice(&hash);
            if i % 1563 == 0 {
                bytes[8] ^= 0xFF;
            }
            (p.clone(), bytes)
        })
        .collect();
    let files: Vec<PackFile<'_>> = changed
        .iter()
        .map(|(path, bytes)| PackFile {
            path,
            kind: hearth::AssetKind::BLOB,
            bytes,
            codec: Codec::None,
            level: None,
        })
        .collect();
    let new = PakReader::from_bytes(pack::build(4, &files)).unwrap();
    let patch = hearth::bake::patch::diff(&base, "base", &new, "new", None).unwrap();
    eprintln!(
        "layers: patch of {} changed and {} deleted entries over a 100k-entry base: {} B",
        patch.stats.changed,
        patch.stats.deleted,
        patch.bytes.len()
    );
    let mut mount = LayeredPak::new(base, "base").unwrap();
    mount
        .mount(PakReader::from_bytes(&patch.bytes).unwrap(), "patch")
        .unwrap();
    let mut rng = data::Rng::new(11);
    let queries: Vec<&str> = (0..4096)
        .map(|_| paths[rng.below(n as u64) as usize].as_str())
        .filter(|p| new.find(p).unwrap().is_some())
        .collect();
    for q in &queries {
        assert_eq!(mount.get(q).unwrap(), new.get(q).unwrap(), "{q}");
    }
    let count = queries.len();
    // The machine may be shared: alternate the two in rounds and keep each one's fastest
    // round, so that load from elsewhere does not favour either.
    let (_, base) = mount.layers().next().unwrap();
    let round = |read: &dyn Fn(&str) -> usize| {
        let started = std::time::Instant::now();
        for q in &queries {
            black_box(read(black_box(q)));
        }
        started.elapsed().as_nanos() as f64 / count as f64
    };
    let (mut single, mut layered) = (f64::MAX, f64::MAX);
    for _ in 0..50 {
        single = single.min(round(&|q| base.get(q).unwrap().unwrap().len()));
        layered = layered.min(round(&|q| mount.get(q).unwrap().unwrap().len()));
    }
    eprintln!(
        "layers: fastest of 50 alternating rounds of {count} reads: one pack {single:.0} ns, \
         two layers {layered:.0} ns ({:.2}x)",
        layered / single
    );
    let mut group = c.benchmark_group("layers");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("two_layers/get_100k", |b| {
        let mut i = 0usize;
        b.iter(|| {
            let q = queries[i % count];
            i += 1;
            black_box(mount.get(black_box(q)).unwrap().unwrap().len())
        })
    });
    // `base` is the mount's own base reader: both read through the same in-memory index.
    group.bench_function("single_pack/get_100k", |b| {
        let mut i = 0usize;
        b.iter(|| {
            let q = queries[i % count];
            i += 1;
            black_box(base.get(black_box(q)).unwrap().unwrap().len())
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    open,
    lookup,
    read_all,
    texture_stream,
    names,
    layers
);
criterion_main!(benches);
