//! Texture encode throughput (megapixels/s) per mode and UASTC quality; the share of time
//! spent outside basisu (mips, conversions, zstd, KTX2 writing) against basisu called
//! directly on the same pixels at the same settings; and a bake of several textures with
//! one worker thread against all of them. Then the run-time side: UASTC transcoded to BC7 by
//! hearth against the `basis-universal` crate's own slice transcoder on the same levels.
//!
//! `cargo bench -p hearth-benches --bench texture`

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use hearth::bake::settings::{TextureQuality, TextureSettings};
use hearth::bake::texture::pixels::Pixels;
use hearth::bake::texture::{encode, uastc, TextureMode, TextureShape};
use hearth::bake::Baker;
use hearth::read::transcode::{transcode_rows, TranscodeTarget};
use hearth::Ktx2;
use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/corpus.rs"]
mod corpus;
use corpus::corpus;

const SIZE: u32 = 512;

/// A real 2K albedo from the test corpus (`tests/corpus`) scaled to 512².
fn source() -> Pixels {
    let bytes = std::fs::read(corpus("images/DamagedHelmet_albedo_2k.jpg")).unwrap();
    let (pixels, _) = Pixels::decode(&bytes, "jpg").expect("corpus image decodes");
    pixels.resample(SIZE, SIZE)
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group
}

/// Full encode (mips, conversions, UASTC, zstd, KTX2) of one 512² image, single-threaded.
fn encode_per_mode(c: &mut Criterion) {
    let pixels = source();
    let mut g = group(c, "texture_encode_512");
    g.throughput(Throughput::Elements((SIZE * SIZE) as u64));
    for (mode_name, mode) in [
        ("color", TextureMode::Color),
        ("normal", TextureMode::Normal),
        ("gray", TextureMode::Grayscale),
    ] {
        for (quality_name, quality) in [
            ("fastest", TextureQuality::Fastest),
            ("faster", TextureQuality::Faster),
        ] {
            let settings = TextureSettings {
                quality,
                ..Default::default()
            };
            g.bench_function(BenchmarkId::new(mode_name, quality_name), |b| {
                b.iter(|| {
                    encode(
                        black_box(std::slice::from_ref(&pixels)),
                        TextureShape::Single,
                        mode,
                        &settings,
                    )
                    .unwrap()
                })
            });
        }
        let raw = TextureSettings {
            compress: false,
            ..Default::default()
        };
        g.bench_function(BenchmarkId::new(mode_name, "raw"), |b| {
            b.iter(|| {
                encode(
                    black_box(std::slice::from_ref(&pixels)),
                    TextureShape::Single,
                    mode,
                    &raw,
                )
                .unwrap()
            })
        });
    }
    g.finish();
}

/// hearth's encode of level 0 only against basisu alone on the same RGBA8 pixels: the
/// difference is what hearth adds around the encoder.
fn against_basisu(c: &mut Criterion) {
    let pixels = source();
    let rgba = pixels.to_rgba8();
    let mut g = group(c, "texture_vs_basisu_512");
    g.throughput(Throughput::Elements((SIZE * SIZE) as u64));
    for (name, quality) in [
        ("fastest", TextureQuality::Fastest),
        ("faster", TextureQuality::Faster),
    ] {
        let settings = TextureSettings {
            quality,
            mips: false,
            ..Default::default()
        };
        g.bench_function(BenchmarkId::new("hearth_level0", name), |b| {
            b.iter(|| {
                encode(
                    black_box(std::slice::from_ref(&pixels)),
                    TextureShape::Single,
                    TextureMode::Color,
                    &settings,
                )
                .unwrap()
            })
        });
        let options = uastc::UastcOptions {
            level: quality.level(),
            rdo: None,
            perceptual: true,
            normal_map: false,
        };
        g.bench_function(BenchmarkId::new("basisu_alone", name), |b| {
            b.iter(|| uastc::encode(&[(SIZE, SIZE, black_box(&rgba[..]))], &options).unwrap())
        });
    }
    g.finish();
}

/// Eight textures baked through the Baker with one worker thread and with all cores.
fn parallel_bake(c: &mut Criterion) {
    let src = tempfile::tempdir().unwrap();
    let pixels = source();
    for i in 0..8u8 {
        // Vary the pixels so no two textures are the same work.
        let image = image::RgbaImage::from_raw(
            SIZE,
            SIZE,
            pixels
                .map(|p| [p[0], p[1], (p[2] + i as f32 / 64.0).min(1.0), p[3]])
                .to_rgba8(),
        )
        .unwrap();
        image.save(src.path().join(format!("t{i}.png"))).unwrap();
    }
    let manifest = src.path().join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"*.png\"]\n[default]\ntexture = { quality = \"fastest\" }\n",
    )
    .unwrap();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mut g = group(c, "texture_bake_8x512");
    g.throughput(Throughput::Elements(8 * (SIZE * SIZE) as u64));
    for jobs in [1, cores] {
        g.bench_function(BenchmarkId::new("jobs", jobs), |b| {
            b.iter(|| {
                let out = tempfile::tempdir().unwrap();
                Baker::new(manifest.as_path(), out.path())
                    .jobs(jobs)
                    .cache(false)
                    .run()
                    .unwrap()
            })
        });
    }
    g.finish();
}

/// Every level of a 1024² UASTC texture (its mip chain, 87,381 blocks) transcoded to BC7, the
/// levels decompressed beforehand: hearth's `transcode_rows` against the `basis-universal`
/// crate's `LowLevelUastcTranscoder` alone (hearth's own transcoder writes the same bytes). Two
/// corpus textures: a photographic albedo (3 % of its blocks repeat the one before) and a
/// base-color atlas with flat regions (20 %; hearth reuses a repeated block's result).
fn transcode_to_bc7(c: &mut Criterion) {
    use basis_universal::{
        DecodeFlags, LowLevelUastcTranscoder, SliceParametersUastc, TranscoderBlockFormat,
    };
    let mut g = group(c, "texture_transcode_bc7_1024");
    for (name, file) in [
        ("albedo", "images/DamagedHelmet_albedo_2k.jpg"),
        (
            "flat_regions",
            "images/FlightHelmet_GlassPlastic_BaseColor_2k.png",
        ),
    ] {
        let bytes = std::fs::read(corpus(file)).unwrap();
        let extension = file.rsplit('.').next().unwrap();
        let (pixels, _) = Pixels::decode(&bytes, extension).expect("corpus image decodes");
        let settings = TextureSettings {
            quality: TextureQuality::Fastest,
            ..Default::default()
        };
        let pixels = [pixels.resample(1024, 1024)];
        let encoded = encode(&pixels, TextureShape::Single, TextureMode::Color, &settings);
        let ktx2 = encoded.unwrap().ktx2;
        let ktx = Ktx2::parse(&ktx2).unwrap();
        let levels: Vec<(Vec<u8>, u32, u32)> = (0..ktx.level_count())
            .map(|level| {
                let (w, h, _) = ktx.level_dimensions(level);
                (ktx.level(level).unwrap().into_owned(), w, h)
            })
            .collect();
        let blocks: u32 = levels
            .iter()
            .map(|(_, w, h)| w.div_ceil(4) * h.div_ceil(4))
            .sum();
        g.throughput(Throughput::Elements(blocks as u64));
        g.bench_function(BenchmarkId::new("hearth", name), |b| {
            b.iter(|| {
                for (level, (data, _, h)) in levels.iter().enumerate() {
                    let rows = 0..h.div_ceil(4);
                    black_box(transcode_rows(
                        &ktx,
                        data,
                        level as u32,
                        rows,
                        TranscodeTarget::Bc7,
                    ))
                    .unwrap();
                }
            })
        });
        let transcoder = LowLevelUastcTranscoder::new();
        g.bench_function(BenchmarkId::new("basisu_alone", name), |b| {
            b.iter(|| {
                for (data, w, h) in &levels {
                    let slice = SliceParametersUastc {
                        num_blocks_x: w.div_ceil(4),
                        num_blocks_y: h.div_ceil(4),
                        has_alpha: false,
                        original_width: *w,
                        original_height: *h,
                    };
                    let flags = DecodeFlags::HIGH_QUALITY;
                    let format = TranscoderBlockFormat::BC7;
                    black_box(transcoder.transcode_slice(data, slice, flags, format)).unwrap();
                }
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    encode_per_mode,
    against_basisu,
    parallel_bake,
    transcode_to_bc7
);
criterion_main!(benches);
