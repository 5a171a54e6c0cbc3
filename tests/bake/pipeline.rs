//! The open pipeline contract, tested through a game-defined pipeline: claims, settings
//! layering, cache invalidation (version, settings, side inputs), references, contract
//! violations, and the no-op re-bake that opens no source.

use crate::common::write_files;
use hearth::bake::{
    AssetTable, BakeContext, BakeError, Baker, Claim, Output, Pipeline, PipelineError, Report,
    Source,
};
use hearth::{hash_runtime_path, AssetKind, PakReader};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const LEVEL: AssetKind = match AssetKind::game(130) {
    Some(kind) => kind,
    None => panic!("130 is a game kind"),
};

/// `*.level.toml` -> `<stem>.level`: the resolved settings and the text, with the first line
/// naming an optional side file to include and an optional asset to reference.
struct Level {
    version: u32,
    bakes: Arc<AtomicUsize>,
}

#[derive(serde::Deserialize, Default, Debug)]
#[serde(default)]
struct LevelSettings {
    scale: f32,
    title: String,
    fog: Fog,
}

#[derive(serde::Deserialize, Default, Debug)]
#[serde(default)]
struct Fog {
    density: f32,
    color: String,
}

impl Pipeline for Level {
    type Settings = LevelSettings;
    fn name(&self) -> &str {
        "level"
    }
    fn version(&self) -> u32 {
        self.version
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.level.toml")]
    }
    fn bake(
        &self,
        source: &Source<'_>,
        settings: &LevelSettings,
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        self.bakes.fetch_add(1, Ordering::SeqCst);
        let text = std::str::from_utf8(source.bytes())?;
        let mut out = format!(
            "scale={} title={} fog={}/{}\n",
            settings.scale, settings.title, settings.fog.density, settings.fog.color
        );
        for line in text.lines() {
            if let Some(side) = line.strip_prefix("include ") {
                out.push_str(&String::from_utf8_lossy(&cx.read(side)?));
            } else if let Some(side) = line.strip_prefix("optional ") {
                match cx.read(side) {
                    Ok(bytes) => out.push_str(&String::from_utf8_lossy(&bytes)),
                    Err(_) => out.push_str("(none)\n"),
                }
            } else if let Some(asset) = line.strip_prefix("uses ") {
                let hash = cx.reference(asset);
                out.push_str(&format!("ref {hash:016x}\n"));
            } else if line == "panic" {
                panic!("the level pipeline was told to panic");
            } else if let Some(path) = line.strip_prefix("emit ") {
                cx.emit(Output::new(path, LEVEL, Vec::new()));
            } else if line == "warn" {
                cx.warn("a level warning");
            } else if line == "fail" {
                return Err("this level is broken".into());
            }
        }
        let stem = source.stem().trim_end_matches(".level");
        cx.emit(Output::new(
            format!("{stem}.level"),
            LEVEL,
            out.into_bytes(),
        ));
        Ok(())
    }
}

struct Game {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    out: std::path::PathBuf,
    bakes: Arc<AtomicUsize>,
}

impl Game {
    fn new(manifest: &str, files: &[(&str, &[u8])]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("content");
        write_files(&root, files);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("hearth.toml"), manifest).unwrap();
        let out = dir.path().join("out");
        Self {
            _dir: dir,
            root,
            out,
            bakes: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn baker(&self, version: u32) -> Baker {
        let mut baker = Baker::new(self.root.join("hearth.toml"), &self.out);
        baker.jobs(2).pipeline(Level {
            version,
            bakes: self.bakes.clone(),
        });
        baker
    }

    fn bake(&self) -> Result<Report, BakeError> {
        self.baker(1).run()
    }

    /// How many level bakes the last call ran.
    fn level_bakes(&self, run: impl FnOnce() -> Result<Report, BakeError>) -> (usize, Report) {
        let before = self.bakes.load(Ordering::SeqCst);
        let report = run().unwrap();
        (self.bakes.load(Ordering::SeqCst) - before, report)
    }

    fn read(&self, path: &str) -> String {
        String::from_utf8(std::fs::read(self.out.join(path)).unwrap()).unwrap()
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        write_files(&self.root, &[(path, bytes)]);
    }
}

const MANIFEST: &str = r#"
[content]
name = "game"
[[content.group]]
assets = ["levels/*"]
level = { title = "group" }
[default]
level = { scale = 2.0, title = "default", fog = { density = 0.5, color = "grey" } }
texture = { quality = "fastest" }
[[default.rules]]
match = "levels/b*"
level = { fog = { color = "red" } }
[presets.hard]
level = { scale = 3.0 }
[[presets.hard.rules]]
match = "levels/c*"
level = { title = "preset rule" }
"#;

fn sample() -> Game {
    Game::new(
        MANIFEST,
        &[
            ("levels/a.level.toml", b"name = 'a'\n"),
            ("levels/b.level.toml", b"include ../shared/fog.inc\n"),
            ("levels/c.level.toml", b"warn\n"),
            ("levels/notes.txt", b"a blob"),
            ("shared/fog.inc", b"fog from a side file\n"),
        ],
    )
}

#[test]
fn a_game_pipeline_claims_its_files_and_gets_layered_settings() {
    let game = sample();
    let report = game.bake().unwrap();
    assert_eq!(report.assets, 4);
    // [content] < [default] < preset < group < rules, tables merged key by key.
    assert_eq!(
        game.read("levels/a.level"),
        "scale=2 title=group fog=0.5/grey\n"
    );
    assert_eq!(
        game.read("levels/b.level"),
        "scale=2 title=group fog=0.5/red\nfog from a side file\n"
    );
    assert_eq!(
        game.read("levels/notes.txt"),
        "a blob",
        "the blob fallback still applies"
    );
    let warning = report
        .warnings
        .iter()
        .find(|w| w.contains("a level warning"));
    assert!(
        warning.is_some_and(|w| w.contains("c.level.toml")),
        "{:?}",
        report.warnings
    );

    let mut hard = game.baker(1);
    hard.preset("hard");
    hard.run().unwrap();
    assert_eq!(
        game.read("levels/a.level"),
        "scale=3 title=group fog=0.5/grey\n"
    );
    assert_eq!(
        game.read("levels/c.level"),
        "scale=3 title=preset rule fog=0.5/grey\n"
    );

    // The game kind is in the manifest and the pack, readable by any reader.
    let pak = PakReader::open(game.out.join("game.hpack")).unwrap();
    let row = pak
        .resolve(hash_runtime_path("levels/a.level"))
        .unwrap()
        .unwrap();
    assert_eq!(row.kind, LEVEL);
    assert!(row.kind.is_game());
    let bytes = pak.get("levels/a.level").unwrap().unwrap();
    assert_eq!(&*bytes, b"scale=3 title=group fog=0.5/grey\n");
}

#[test]
fn unknown_and_mistyped_keys_in_a_game_table_are_named() {
    let manifest = MANIFEST.replace(
        "[presets.hard]",
        "[[default.rules]]\nmatch = \"x\"\nlevel = { scael = 1.0, fog = { colour = \"blue\" } }\n[presets.hard]",
    );
    let game = Game::new(&manifest, &[("levels/a.level.toml", b"")]);
    let report = game.bake().unwrap();
    let all = report.warnings.join("\n");
    assert!(all.contains("`default.rules[1].level.scael`"), "{all}");
    assert!(all.contains("`default.rules[1].level.fog.colour`"), "{all}");

    let manifest = MANIFEST.replace("scale = 2.0", "scale = \"big\"");
    let game = Game::new(&manifest, &[("levels/a.level.toml", b"")]);
    let error = game.bake().unwrap_err().to_string();
    assert!(
        error.contains("`default.level.scale`") && error.contains("hearth.toml"),
        "{error}"
    );

    // Without the pipeline registered, its table is a table nobody reads.
    let game = Game::new(MANIFEST, &[("levels/a.level.toml", b"")]);
    let report = Baker::new(game.root.join("hearth.toml"), &game.out)
        .run()
        .unwrap();
    let all = report.warnings.join("\n");
    assert!(
        all.contains("`default.level`") && all.contains("no pipeline reads"),
        "{all}"
    );
}

#[test]
fn the_cache_follows_version_settings_and_side_inputs() {
    let game = sample();
    let (bakes, _) = game.level_bakes(|| game.bake());
    assert_eq!(bakes, 3);
    let (bakes, report) = game.level_bakes(|| game.bake());
    assert_eq!((bakes, report.cache_hits, report.files_written), (0, 4, 0));
    // The side file is an input of b's, for cargo too, even on a cache hit.
    let side = game.root.join("shared/fog.inc").canonicalize().unwrap();
    assert!(report.inputs.contains(&side), "{:?}", report.inputs);

    // A version bump re-bakes every asset of the pipeline, and nothing else.
    let (bakes, report) = game.level_bakes(|| game.baker(2).run());
    assert_eq!((bakes, report.cache_hits), (3, 1));

    // A settings change re-bakes the assets whose layered table changed.
    std::fs::write(
        game.root.join("hearth.toml"),
        MANIFEST.replace("color = \"red\"", "color = \"blue\""),
    )
    .unwrap();
    let (bakes, _) = game.level_bakes(|| game.baker(2).run());
    assert_eq!(bakes, 1);
    assert!(game.read("levels/b.level").contains("fog=0.5/blue"));
    // A table the pipeline does not read changes nothing.
    std::fs::write(
        game.root.join("hearth.toml"),
        MANIFEST
            .replace("color = \"red\"", "color = \"blue\"")
            .replace("quality = \"fastest\"", "quality = \"slower\""),
    )
    .unwrap();
    let (bakes, _) = game.level_bakes(|| game.baker(2).run());
    assert_eq!(bakes, 0);

    // A side input's content change re-bakes its asset alone.
    game.write("shared/fog.inc", b"thicker fog\n");
    let (bakes, _) = game.level_bakes(|| game.baker(2).run());
    assert_eq!(bakes, 1);
    assert!(game.read("levels/b.level").ends_with("thicker fog\n"));
    // A touch without a change re-bakes nothing.
    let file = std::fs::File::options()
        .write(true)
        .open(game.root.join("shared/fog.inc"))
        .unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let (bakes, _) = game.level_bakes(|| game.baker(2).run());
    assert_eq!(bakes, 0);
    // A deleted output is baked again.
    std::fs::remove_file(game.out.join("levels/c.level")).unwrap();
    let (bakes, report) = game.level_bakes(|| game.baker(2).run());
    assert_eq!((bakes, report.files_written), (1, 1));
}

#[test]
fn a_missing_side_file_is_an_input_too() {
    let game = Game::new(
        MANIFEST,
        &[("levels/a.level.toml", b"include ../shared/later.inc\n")],
    );
    let error = game.bake().unwrap_err().to_string();
    assert!(
        error.contains("a.level.toml: pipeline `level`: ") && error.contains("later.inc"),
        "{error}"
    );
    // A bake that tolerates the missing file records it: creating it re-bakes the asset.
    game.write("levels/a.level.toml", b"optional ../shared/later.inc\n");
    let (bakes, _) = game.level_bakes(|| game.bake());
    assert_eq!(bakes, 1);
    assert!(game.read("levels/a.level").ends_with("(none)\n"));
    let (bakes, _) = game.level_bakes(|| game.bake());
    assert_eq!(bakes, 0);
    game.write("shared/later.inc", b"now here\n");
    let (bakes, _) = game.level_bakes(|| game.bake());
    assert_eq!(bakes, 1);
    assert!(game.read("levels/a.level").ends_with("now here\n"));
}

#[test]
fn references_must_name_an_asset_of_the_bake() {
    let game = Game::new(
        MANIFEST,
        &[
            ("levels/a.level.toml", b"uses levels/b.level\n"),
            ("levels/b.level.toml", b""),
        ],
    );
    game.bake().unwrap();
    let hash = hearth::hash_asset_ref("levels/b.level");
    assert!(game
        .read("levels/a.level")
        .contains(&format!("ref {hash:016x}")));

    game.write("levels/a.level.toml", b"uses textures/missing\n");
    let error = game.bake().unwrap_err();
    assert!(matches!(error, BakeError::DanglingReference { .. }));
    let error = error.to_string();
    assert!(
        error.contains("levels/a.level.toml") && error.contains("`textures/missing`"),
        "{error}"
    );
    // The previous outputs survive.
    assert!(game
        .read("levels/a.level")
        .contains(&format!("ref {hash:016x}")));
}

#[test]
fn contract_violations_fail_the_asset_naming_file_and_pipeline() {
    let cases: [(&[u8], &str); 5] = [
        (
            b"panic\n",
            "pipeline `level` panicked: the level pipeline was told to panic",
        ),
        (b"fail\n", "pipeline `level`: this level is broken"),
        (b"emit ../outside\n", "outside the runtime tree"),
        (b"emit /abs\n", "must be relative"),
        (b"emit levels/x.level\n", "emitted `levels/x.level` twice"),
    ];
    for (text, expected) in cases {
        let game = Game::new(
            MANIFEST,
            &[("levels/x.level.toml", text), ("levels/y.level.toml", b"")],
        );
        let error = game.bake().unwrap_err().to_string();
        assert!(
            error.contains("levels/x.level.toml") && error.contains(expected),
            "{expected}: {error}"
        );
        // --keep-going bakes the rest and reports the failure.
        let mut baker = game.baker(1);
        baker.keep_going(true);
        let error = baker.run().unwrap_err().to_string();
        assert!(error.contains(expected), "{error}");
        assert_eq!(game.bakes.load(Ordering::SeqCst), 4, "{expected}");
    }
    // Two assets producing one path is a collision naming both.
    let game = Game::new(
        MANIFEST,
        &[
            ("levels/x.level.toml", b""),
            ("levels/y.level.toml", b"emit levels/x.level\n"),
        ],
    );
    let error = game.bake().unwrap_err().to_string();
    assert!(
        error.contains("x.level.toml") && error.contains("y.level.toml"),
        "{error}"
    );
}

#[test]
fn clashing_registrations_are_refused() {
    struct Glb;
    impl Pipeline for Glb {
        type Settings = ();
        fn name(&self) -> &str {
            "my-glb"
        }
        fn version(&self) -> u32 {
            1
        }
        fn claims(&self) -> Vec<Claim> {
            vec![Claim::file("*.glb")]
        }
        fn bake(
            &self,
            _: &Source<'_>,
            _: &(),
            _: &mut BakeContext<'_>,
        ) -> Result<(), PipelineError> {
            Ok(())
        }
    }
    let game = sample();
    let mut baker = game.baker(1);
    let error = baker.pipeline(Glb).run().unwrap_err().to_string();
    assert!(
        error.contains("`my-glb`") && error.contains("\"*.glb\"") && error.contains("`model`"),
        "{error}"
    );
    let mut registry = hearth::bake::Registry::with_builtins();
    assert!(registry.register(Glb).is_err());
}

/// A game pipeline that bakes pak-style asset files of its own table, `[dialogue]`.
struct Dialogue(&'static str);

impl Pipeline for Dialogue {
    type Settings = ();
    fn name(&self) -> &str {
        "dialogue"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        Vec::new()
    }
    fn bake(&self, _: &Source<'_>, _: &(), _: &mut BakeContext<'_>) -> Result<(), PipelineError> {
        Err("dialogue comes only as asset files".into())
    }
    fn asset_tables(&self) -> &[&str] {
        std::slice::from_ref(&self.0)
    }
    fn bake_asset_table(
        &self,
        file: &AssetTable<'_>,
        _: &(),
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        let line = file
            .body()
            .get("line")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let text = format!("[{}] {line}", file.table());
        cx.emit(Output::new(
            format!("{}.dialogue", file.name()),
            LEVEL,
            text.into_bytes(),
        ));
        Ok(())
    }
}

#[test]
fn a_pipeline_claims_asset_file_tables_through_the_registry() {
    let game = Game::new(
        MANIFEST,
        &[
            ("levels/hello.toml", b"[dialogue]\nline = 'hi'\n"),
            ("levels/other.toml", b"[chatter]\nline = 'hi'\n"),
        ],
    );
    let mut baker = game.baker(1);
    baker.pipeline(Dialogue("dialogue")).run().unwrap();
    assert_eq!(game.read("levels/hello.dialogue"), "[dialogue] hi");
    // A table no pipeline claims stays what it was: the TOML file, as a blob.
    assert_eq!(game.read("levels/other.toml"), "[chatter]\nline = 'hi'\n");

    let mut registry = hearth::bake::Registry::with_builtins();
    let tables: Vec<&str> = registry.asset_tables().collect();
    for table in [
        "blob",
        "bitmap",
        "bitmap-font",
        "material",
        "scene",
        "mesh",
        "animation",
    ] {
        assert!(tables.contains(&table), "{table} in {tables:?}");
    }
    // One table, one pipeline: a second claim of `[scene]` is refused, naming the owner.
    let error = registry
        .register(Dialogue("scene"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`dialogue`") && error.contains("`[scene]`") && error.contains("`scene`"),
        "{error}"
    );
}

/// A one-triangle glTF with an external buffer, made here.
fn triangle(root: &Path) {
    let positions: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let gltf = r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"tri.bin","byteLength":36}],
"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0}"#;
    write_files(
        root,
        &[
            ("models/tri.gltf", gltf.as_bytes()),
            ("models/tri.bin", &positions),
        ],
    );
}

#[test]
fn a_no_op_rebake_opens_no_model_source() {
    let game = Game::new("[[content.group]]\nassets = [\"models/*.gltf\"]\n", &[]);
    triangle(&game.root);
    let report = Baker::new(game.root.join("hearth.toml"), &game.out)
        .run()
        .unwrap();
    assert_eq!(report.assets, 1);
    let bin = game.root.join("models/tri.bin");
    assert!(
        report.inputs.contains(&bin),
        "the buffer is a recorded input"
    );

    // Garble the model in place, keeping its size and mtime: a bake that opened it would
    // fail to parse it. The no-op re-bake must not notice.
    let gltf = game.root.join("models/tri.gltf");
    let meta = std::fs::metadata(&gltf).unwrap();
    std::fs::write(&gltf, vec![b'#'; meta.len() as usize]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&gltf)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    let report = Baker::new(game.root.join("hearth.toml"), &game.out)
        .run()
        .unwrap();
    assert_eq!((report.cache_hits, report.files_written), (1, 0));
    assert!(report.inputs.contains(&bin), "still watched on a cache hit");

    // Restore the model; a change to its side file re-bakes it.
    triangle(&game.root);
    let moved: Vec<u8> = [0f32, 0., 0., 2., 0., 0., 0., 2., 0.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&bin, moved).unwrap();
    let report = Baker::new(game.root.join("hearth.toml"), &game.out)
        .run()
        .unwrap();
    assert_eq!(report.cache_hits, 0);
    let mesh = std::fs::read(game.out.join("models/tri.hmesh")).unwrap();
    let view = hearth::MeshView::parse(&mesh).unwrap();
    assert_eq!(view.bounds.aabb_max[0], 2.0);
}

/// Reports the size of the thread pool its bake runs on.
struct Threads;

impl Pipeline for Threads {
    type Settings = ();
    fn name(&self) -> &str {
        "threads"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.threads")]
    }
    fn bake(&self, _: &Source<'_>, _: &(), cx: &mut BakeContext<'_>) -> Result<(), PipelineError> {
        cx.warn(format!("pool of {}", rayon::current_num_threads()));
        Ok(())
    }
}

#[test]
fn jobs_are_clamped_to_the_documented_maximum() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("a.threads", b""),
            (
                "hearth.toml",
                b"[[content.group]]\nassets = [\"*.threads\"]\n",
            ),
        ],
    );
    for (asked, used) in [(100_000, hearth::bake::MAX_JOBS), (0, 1), (3, 3)] {
        let report = Baker::new(dir.path().join("hearth.toml"), dir.path().join("out"))
            .pipeline(Threads)
            .jobs(asked)
            .cache(false)
            .run()
            .unwrap();
        let warning = format!("pool of {used}");
        assert!(
            report.warnings.iter().any(|w| w.ends_with(&warning)),
            "jobs({asked}): {:?}",
            report.warnings
        );
    }
    assert_eq!(hearth::bake::MAX_JOBS, 256);
}
