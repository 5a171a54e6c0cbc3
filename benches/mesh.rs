//! Mesh processing throughput (triangles/s): hearth's whole path (corner expansion, normals,
//! dedup, cache/overdraw/fetch optimization, meshlets with bounds, two LODs, `.hmesh`
//! writing) against meshoptimizer's own calls alone on the same geometry (the floor), on a
//! generated 1M-triangle grid and on the corpus' SheenCloth (115k triangles, import
//! included); and gltfpack (npm) on the same model when it is installed.
//!
//! The `mesh_scale` group bakes generated models of N and 10 N objects through a full cold
//! `Baker` run (`tests/common/models.rs`): an OBJ with N objects sharing 8 materials, an OBJ
//! whose MTL has N materials used by N groups, and a GLB with N meshes on N nodes. At the end
//! it prints each shape's 10 N / N time ratio (medians of the measured samples): linear
//! import and processing give about 10.
//!
//! `cargo bench -p hearth-benches --bench mesh`
//! `cargo bench -p hearth-benches --bench mesh -- mesh_scale` (the scale group alone;
//! `MESH_SCALE_N=10000` in the environment bakes 10k and 100k instead of 1k and 10k)

#[path = "../tests/common/corpus.rs"]
mod corpus;
#[path = "../tests/common/models.rs"]
mod models;
use corpus::corpus;

use criterion::{criterion_group, Criterion, SamplingMode, Throughput};
use hearth::bake::mesh::gltf::{import, ImportOptions, Mat4, Primitive};
use hearth::bake::mesh::process::{
    build, SubmeshInput, MESHLET_CONE_WEIGHT, MESHLET_MAX_TRIANGLES, MESHLET_MAX_VERTICES,
};
use hearth::bake::settings::MeshSettings;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A wavy grid of `n` x `n` quads (2 n² triangles) with normals and UVs.
fn grid(n: u32) -> Primitive {
    let side = n + 1;
    let mut positions = Vec::with_capacity((side * side) as usize);
    let mut normals = Vec::with_capacity(positions.capacity());
    let mut uvs = Vec::with_capacity(positions.capacity());
    for y in 0..side {
        for x in 0..side {
            let (u, v) = (x as f32 / n as f32, y as f32 / n as f32);
            positions.push([u, v, 0.05 * (u * 40.0).sin() * (v * 30.0).cos()]);
            normals.push([0.0, 0.0, 1.0]);
            uvs.push([u, v]);
        }
    }
    let mut indices = Vec::with_capacity((n * n * 6) as usize);
    for y in 0..n {
        for x in 0..n {
            let i = y * side + x;
            indices.extend_from_slice(&[i, i + 1, i + side, i + 1, i + side + 1, i + side]);
        }
    }
    Primitive {
        positions,
        normals: Some(normals),
        tangents: None,
        uvs: Some(uvs),
        uvs1: None,
        colors: None,
        indices,
        material: None,
        skin: None,
        morph: None,
    }
}

/// meshoptimizer's calls alone on an indexed mesh: the floor of what hearth can reach.
fn meshopt_alone(p: &Primitive) -> usize {
    let vertices: Vec<[f32; 3]> = p.positions.clone();
    let (unique, remap) = meshopt::generate_vertex_remap(&vertices, Some(&p.indices));
    let mut indices = meshopt::remap_index_buffer(Some(&p.indices), vertices.len(), &remap);
    let vertices = meshopt::remap_vertex_buffer(&vertices, unique, &remap);
    let adapter =
        || meshopt::VertexDataAdapter::new(bytemuck::cast_slice(&vertices), 12, 0).unwrap();
    meshopt::optimize_vertex_cache_in_place(&mut indices, vertices.len());
    meshopt::optimize_overdraw_in_place(&mut indices, &adapter(), 1.05);
    let vertices = meshopt::optimize_vertex_fetch(&mut indices, &vertices);
    let adapter = meshopt::VertexDataAdapter::new(bytemuck::cast_slice(&vertices), 12, 0).unwrap();
    let meshlets = meshopt::build_meshlets(
        &indices,
        &adapter,
        MESHLET_MAX_VERTICES,
        MESHLET_MAX_TRIANGLES,
        MESHLET_CONE_WEIGHT,
    );
    let bounds: usize = meshlets
        .iter()
        .map(|m| meshopt::compute_meshlet_bounds(m, &adapter).radius as usize)
        .sum();
    let lod1 = meshopt::simplify(
        &indices,
        &adapter,
        indices.len() / 2 / 3 * 3,
        0.05,
        meshopt::SimplifyOptions::empty(),
        None,
    );
    let lod2 = meshopt::simplify(
        &indices,
        &adapter,
        indices.len() / 4 / 3 * 3,
        0.05,
        meshopt::SimplifyOptions::empty(),
        None,
    );
    meshlets.len() + lod1.len() + lod2.len() + bounds
}

/// hearth's import and build of a glTF's meshes (no materials).
fn import_and_build(
    bytes: &[u8],
    read: &mut hearth::bake::mesh::gltf::ReadSide<'_>,
    options: &ImportOptions<'_>,
    settings: &MeshSettings,
) -> Vec<u8> {
    let scene = import(bytes, read, options).unwrap();
    let inputs: Vec<SubmeshInput<'_>> = scene
        .primitives
        .iter()
        .map(|p| SubmeshInput {
            primitive: p,
            material_slot: u32::MAX,
            wants_tangents: false,
        })
        .collect();
    build(&inputs, &[], None, &[], settings).unwrap()
}

/// The primitive's positions deduplicated and in vertex cache and fetch order (what hearth
/// clusters), with their indices.
fn optimized_positions(p: &Primitive) -> (Vec<[f32; 3]>, Vec<u32>) {
    let (unique, remap) = meshopt::generate_vertex_remap(&p.positions, Some(&p.indices));
    let mut indices = meshopt::remap_index_buffer(Some(&p.indices), p.positions.len(), &remap);
    let vertices = meshopt::remap_vertex_buffer(&p.positions, unique, &remap);
    meshopt::optimize_vertex_cache_in_place(&mut indices, vertices.len());
    let vertices = meshopt::optimize_vertex_fetch(&mut indices, &vertices);
    (vertices, indices)
}

/// meshoptimizer's meshlets and their bounds alone, as hearth builds them.
fn meshlets_alone(vertices: &[[f32; 3]], indices: &[u32]) -> usize {
    let adapter = meshopt::VertexDataAdapter::new(bytemuck::cast_slice(vertices), 12, 0).unwrap();
    let meshlets = meshopt::build_meshlets(
        indices,
        &adapter,
        MESHLET_MAX_VERTICES,
        MESHLET_MAX_TRIANGLES,
        MESHLET_CONE_WEIGHT,
    );
    meshlets
        .iter()
        .map(|m| meshopt::compute_meshlet_bounds(m, &adapter).radius as usize)
        .sum::<usize>()
        + meshlets.len()
}

fn hearth_build(p: &Primitive) -> Vec<u8> {
    let input = [SubmeshInput {
        primitive: p,
        material_slot: u32::MAX,
        wants_tangents: false,
    }];
    build(&input, &[], None, &[], &MeshSettings::default()).unwrap()
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
    triangles: usize,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    g.throughput(Throughput::Elements(triangles as u64));
    g
}

fn grid_1m(c: &mut Criterion) {
    let p = grid(708); // 2 * 708² = 1,002,528 triangles
    let mut g = group(c, "mesh_grid_1M", p.indices.len() / 3);
    g.bench_function("hearth", |b| b.iter(|| hearth_build(black_box(&p))));
    g.bench_function("meshopt_alone", |b| b.iter(|| meshopt_alone(black_box(&p))));
    g.finish();
}

fn sheen_cloth(c: &mut Criterion) {
    let path = corpus("gltf/SheenCloth/SheenCloth.gltf");
    let bytes = std::fs::read(&path).unwrap();
    let base = path.parent().unwrap().to_path_buf();
    // Side files read straight from disk, as the baker's context does (minus the recording).
    let mut read = |rel: &str| std::fs::read(base.join(rel)).map_err(|e| e.to_string());
    let options = ImportOptions {
        merge: true,
        skins: true,
        user: Mat4::IDENTITY,
        scene_name: None,
        mesh_name: None,
    };
    let scene = import(&bytes, &mut read, &options).unwrap();
    let triangles: usize = scene.primitives.iter().map(|p| p.indices.len() / 3).sum();
    let mut g = group(c, "mesh_sheen_cloth", triangles);
    g.bench_function("hearth_import_and_build", |b| {
        b.iter(|| {
            import_and_build(
                black_box(&bytes),
                &mut read,
                &options,
                &MeshSettings::default(),
            )
        })
    });
    g.bench_function("meshopt_alone", |b| {
        b.iter(|| scene.primitives.iter().map(meshopt_alone).sum::<usize>())
    });
    // gltfpack's work (import, dedup, vertex cache and fetch order, write) plus the meshlets
    // hearth always builds: hearth without LODs, and the meshlets alone to subtract.
    let no_lods = MeshSettings {
        lod: hearth::bake::settings::LodSettings {
            levels: 0,
            ..MeshSettings::default().lod
        },
        ..MeshSettings::default()
    };
    g.bench_function("hearth_import_and_build_no_lods", |b| {
        b.iter(|| import_and_build(black_box(&bytes), &mut read, &options, &no_lods))
    });
    let optimized: Vec<(Vec<[f32; 3]>, Vec<u32>)> =
        scene.primitives.iter().map(optimized_positions).collect();
    g.bench_function("meshlets_alone", |b| {
        b.iter(|| {
            optimized
                .iter()
                .map(|(vertices, indices)| meshlets_alone(vertices, indices))
                .sum::<usize>()
        })
    });
    if let Some(gltfpack) = gltfpack() {
        let out = tempfile::tempdir().unwrap();
        g.bench_function("gltfpack_cli", |b| {
            b.iter(|| {
                let status = std::process::Command::new(&gltfpack)
                    .args([
                        "-i",
                        path.to_str().unwrap(),
                        "-o",
                        out.path().join("out.glb").to_str().unwrap(),
                        "-noq",
                    ])
                    .output()
                    .unwrap();
                assert!(
                    status.status.success(),
                    "{}",
                    String::from_utf8_lossy(&status.stderr)
                );
            })
        });
    } else {
        eprintln!("mesh bench: gltfpack not found (npm install gltfpack in ~/.asset-tools), comparison skipped");
    }
    g.finish();
}

/// `GLTFPACK` from the environment (a native build, say), else the npm one in
/// `~/.asset-tools`, else `gltfpack` on the PATH.
fn gltfpack() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GLTFPACK") {
        return Some(PathBuf::from(path));
    }
    let home = std::env::var_os("HOME")?;
    let local = Path::new(&home).join(".asset-tools/node_modules/.bin/gltfpack");
    if local.exists() {
        return Some(local);
    }
    std::process::Command::new("gltfpack")
        .arg("-h")
        .output()
        .ok()
        .map(|_| PathBuf::from("gltfpack"))
}

/// N for the scale group (`MESH_SCALE_N` in the environment overrides it); each shape is also
/// baked at 10 N.
fn scale_n() -> usize {
    std::env::var("MESH_SCALE_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000)
}
/// Samples per scale benchmark (criterion's minimum).
const SCALE_SAMPLES: usize = 10;

/// The generated shapes of the scale group: name and the files of a model with `n` objects.
type Shape = (&'static str, fn(usize) -> Vec<(&'static str, Vec<u8>)>);

const SHAPES: [Shape; 3] = [
    ("obj_objects", |n| {
        let (obj, mtl) = models::obj_objects(n);
        vec![("objects.obj", obj.into()), ("shared.mtl", mtl.into())]
    }),
    ("obj_materials", |n| {
        let (obj, mtl) = models::obj_materials(n);
        vec![("materials.obj", obj.into()), ("materials.mtl", mtl.into())]
    }),
    ("gltf_meshes", |n| {
        vec![("meshes.glb", models::glb_meshes(n))]
    }),
];

/// Seconds per bake, by benchmark id: what each `iter_custom` call measured, in order.
static SCALE_TIMES: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

/// A full cold bake (cache off, one job, a fresh output folder on tmpfs when there is one) of
/// each shape at N and 10 N objects.
fn mesh_scale(c: &mut Criterion) {
    let shm = Path::new("/dev/shm");
    let parent = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let mut g = c.benchmark_group("mesh_scale");
    g.sample_size(SCALE_SAMPLES)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (shape, files) in SHAPES {
        for n in [scale_n(), 10 * scale_n()] {
            let id = format!("{shape}/{n}");
            // Written and baked once (checked, and the files in the page cache), on the first
            // call: criterion only calls benchmarks its filter selects.
            let mut prepared: Option<(tempfile::TempDir, PathBuf)> = None;
            g.bench_function(&id, |b| {
                let (_, manifest) = prepared.get_or_insert_with(|| {
                    let content = tempfile::tempdir().unwrap();
                    for (name, bytes) in files(n) {
                        std::fs::write(content.path().join(name), bytes).unwrap();
                    }
                    let manifest = content.path().join("hearth.toml");
                    std::fs::write(
                        &manifest,
                        "[[content.group]]\nassets = [\"*.obj\", \"*.glb\"]\n",
                    )
                    .unwrap();
                    drop(bake(&manifest, &parent));
                    (content, manifest)
                });
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let start = Instant::now();
                        let out = bake(manifest, &parent);
                        total += start.elapsed();
                        drop(out); // removing the output is not timed
                    }
                    SCALE_TIMES
                        .lock()
                        .unwrap()
                        .entry(id.clone())
                        .or_default()
                        .push(total.as_secs_f64() / iters as f64);
                    total
                })
            });
        }
    }
    g.finish();
}

/// One cold bake of `manifest` (cache off, one job) into a fresh folder under `parent`.
fn bake(manifest: &Path, parent: &Path) -> tempfile::TempDir {
    let out = tempfile::tempdir_in(parent).unwrap();
    let report = hearth::bake::Baker::new(manifest, out.path())
        .jobs(1)
        .cache(false)
        .run()
        .unwrap();
    assert_eq!(report.assets, 1, "{}", manifest.display());
    out
}

/// Prints each shape's 10 N / N ratio from the medians of the measured samples (the last
/// `SCALE_SAMPLES` calls; the earlier ones were criterion's warm-up).
fn scale_report() {
    let times = SCALE_TIMES.lock().unwrap();
    let median = |id: &str| {
        let all = times.get(id)?;
        let mut samples = all[all.len().saturating_sub(SCALE_SAMPLES)..].to_vec();
        samples.sort_by(f64::total_cmp);
        Some(samples[samples.len() / 2])
    };
    let n = scale_n();
    for (shape, _) in SHAPES {
        let (small, large) = (format!("{shape}/{n}"), format!("{shape}/{}", 10 * n));
        if let (Some(a), Some(b)) = (median(&small), median(&large)) {
            println!(
                "mesh_scale {shape}: {n} -> {:.3} s, {} -> {:.3} s, ratio {:.2} (linear: 10)",
                a,
                10 * n,
                b,
                b / a
            );
        }
    }
}

criterion_group!(benches, grid_1m, sheen_cloth, mesh_scale);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    scale_report();
}
