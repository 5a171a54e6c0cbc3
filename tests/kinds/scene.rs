//! pak's asset files: `[blob]`, `[bitmap]`, `[bitmap-font]` and `[scene]` TOML files bake as their kinds
//! (scene refs resolved to asset hashes and checked), `SceneView` reads typed data, and mistakes are errors naming the file and the key.
#![cfg(feature = "bake")]

use crate::common;

use hearth::bake::{BakeError, Baker, Report};
use hearth::format::hscene::ValueKind;
use hearth::{hash_asset_ref, AssetKind, PakReader, SceneView};

/// pak's README scene example, with its mesh and material paths pointing at a model of ours.
const SCENE: &str = r#"
[scene]

[[scene.ref]]
id = 'EnemySpawn'
rotation = [0.0, 0.0, 0.0, 1.0]
translation = [-1.0, 0.1, -6.0]
tags = ['bot']
data.type = 'monster3'

[[scene.ref]]
id = 'red-door'
rotation = [0.0, 90.0, 0.0]
translation = [-0.9, 0.0, -12.0]
tags = ['door']
data.require = 'red-key'
data.joins = 'a,b'
data.hp = 30
data.locked = true
data.hinges = [[0.0, 1.0], [0.0, 2.0]]

[[scene.ref]]
mesh = '../models/cube.obj'
materials = ['/models/cube.obj']
rotation = [0.0, 0.0, -0.0, 1.0]
translation = [6.0, 0.0, -2.0]
scale = [2.0, 2.0, 2.0]

[[scene.geometry]]
id = 'a'
indices = [2, 0, 1, 1, 3, 2]
vertices = [
    -8.4, 0.0, 7.4,
    6.4, 0.0, 7.4,
    -8.4, 0.0, -7.4,
    6.4, 0.0, -7.4,
]
translation = [1.0, 0.1, -0.0]
tags = ['nav-mesh']

[[scene.ref]]
id = 'Camera'
rotation = [0.066, -0.870, 0.471, 0.122]
translation = [-19.0, 61.0, -53.0]
tags = ['camera']
data.type = 'persp'
data.z-near = 1.0
data.fov-y = 0.349344402551651
"#;

const CUBE: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 5 1 4 8\n";

fn bake(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Result<Report, BakeError>) {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(&dir.path().join("src"), files);
    let manifest = dir.path().join("src/hearth.toml");
    std::fs::write(
        &manifest,
        "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"**/*.toml\", \"**/*.mat\", \"models/*.obj\"]\nexclude = [\"hearth.toml\"]\n",
    )
    .unwrap();
    let report = Baker::new(manifest.as_path(), dir.path().join("out")).run();
    (dir, report)
}

fn pack(dir: &tempfile::TempDir) -> PakReader {
    PakReader::open(dir.path().join("out/game.hpack")).unwrap()
}

#[test]
fn pak_style_scene_bakes_with_checked_refs_and_typed_data() {
    let (dir, report) = bake(&[
        ("levels/dungeon.toml", SCENE.as_bytes()),
        ("models/cube.obj", CUBE.as_bytes()),
    ]);
    report.unwrap();
    let pack = pack(&dir);
    let entry = pack
        .find("levels/dungeon.hscene")
        .unwrap()
        .expect("scene baked");
    assert_eq!(entry.kind(), AssetKind::SCENE);
    let bytes = entry.bytes().unwrap();
    let scene = SceneView::parse(&bytes).unwrap();
    assert_eq!(scene.ref_count(), 4);
    assert_eq!(scene.geometry_count(), 1);

    let spawn = scene.find_ref("EnemySpawn").unwrap();
    assert_eq!(spawn.translation(), [-1.0, 0.1, -6.0]);
    assert_eq!(spawn.tags(), ["bot"]);
    assert_eq!(
        spawn.data().unwrap().get("type").unwrap().as_str(),
        Some("monster3")
    );

    let door = scene.find_ref("red-door").unwrap();
    // 90 degrees about Y as a quaternion.
    let [x, y, z, w] = door.rotation();
    let half = std::f32::consts::FRAC_1_SQRT_2;
    assert!(x.abs() < 1e-6 && (y - half).abs() < 1e-6 && z.abs() < 1e-6 && (w - half).abs() < 1e-6);
    let data = door.data().unwrap();
    assert_eq!(data.kind(), ValueKind::Table);
    assert_eq!(data.get("require").unwrap().as_str(), Some("red-key"));
    assert_eq!(data.get("hp").unwrap().as_i64(), Some(30));
    assert_eq!(data.get("locked").unwrap().as_bool(), Some(true));
    let hinges = data.get("hinges").unwrap();
    assert_eq!(hinges.len(), 2);
    assert_eq!(hinges.at(1).unwrap().at(1).unwrap().as_f64(), Some(2.0));
    let keys: Vec<&str> = data.iter().map(|v| v.key()).collect();
    assert_eq!(keys, ["hinges", "hp", "joins", "locked", "require"]);

    // The placed model: its mesh and material resolve through the manifest.
    let placed = scene.refs().find(|r| r.mesh().is_some()).unwrap();
    assert_eq!(placed.id(), "");
    assert_eq!(placed.mesh(), Some(hash_asset_ref("models/cube.hmesh")));
    let mesh = pack.resolve(placed.mesh().unwrap()).unwrap().unwrap();
    assert_eq!(
        (&*mesh.path, mesh.kind),
        ("models/cube.hmesh", AssetKind::MESH)
    );
    let materials: Vec<u64> = placed.materials().collect();
    assert_eq!(materials, [hash_asset_ref("models/cube.hmat")]);
    assert_eq!(
        pack.resolve(materials[0]).unwrap().unwrap().kind,
        AssetKind::MATERIAL
    );
    assert_eq!(placed.scale(), [2.0; 3]);

    let camera = scene.find_ref("Camera").unwrap();
    let camera_data = camera.data().unwrap();
    assert_eq!(camera_data.get("z-near").unwrap().as_f64(), Some(1.0));
    assert_eq!(
        camera_data.get("fov-y").unwrap().as_f64(),
        Some(0.349344402551651)
    );

    let nav = scene.geometry().next().unwrap();
    assert_eq!(nav.id(), "a");
    assert_eq!(nav.tags(), ["nav-mesh"]);
    assert_eq!(nav.vertex_count(), 4);
    assert_eq!(nav.vertex(3), Some([6.4, 0.0, -7.4]));
    assert_eq!(nav.indices().collect::<Vec<_>>(), [2, 0, 1, 1, 3, 2]);
    assert_eq!(nav.translation(), [1.0, 0.1, 0.0]);
}

#[test]
fn blob_and_bitmap_font_asset_files() {
    let fonts = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fonts");
    let read = |name: &str| std::fs::read(format!("{fonts}/{name}")).unwrap();
    let (dir, report) = bake(&[
        ("data/payload.toml", b"[blob]\nsrc = 'raw/payload.bin'\n"),
        ("data/raw/payload.bin", b"\x00\x01payload bytes"),
        ("data/hello.toml", b"[blob]\n"),
        ("data/hello", b"same name, no src"),
        ("data/rooted.toml", b"[blob]\nsrc = '/shared/common.txt'\n"),
        ("shared/common.txt", b"from the root"),
        (
            "ui/title.toml",
            b"[bitmap-font]\nsrc = '../fonts/dejavu.txt.fnt'\n",
        ),
        ("fonts/dejavu.txt.fnt", &read("dejavu.txt.fnt")),
        ("fonts/dejavu.png", &read("dejavu.png")),
        (
            "settings/game.toml",
            b"difficulty = 3\n[window]\nwidth = 800\n",
        ),
    ]);
    let report = report.unwrap();
    let pack = pack(&dir);
    let get = |path: &str| pack.get(path).unwrap().map(|b| b.into_owned());
    assert_eq!(get("data/payload").unwrap(), b"\x00\x01payload bytes");
    assert_eq!(get("data/hello").unwrap(), b"same name, no src");
    assert_eq!(get("data/rooted").unwrap(), b"from the root");
    assert!(
        get("data/payload.toml").is_none(),
        "the asset file itself is not shipped"
    );
    let font = get("ui/title.hfont").expect("[bitmap-font] baked");
    let font = hearth::FontView::parse(&font).unwrap();
    assert_eq!(font.glyph_count(), 14);
    assert_eq!(
        &*pack.resolve(font.page(0).unwrap()).unwrap().unwrap().path,
        "ui/title/page_0.ktx2"
    );
    // A TOML that is not an asset file is a blob, without a warning.
    assert_eq!(
        get("settings/game.toml").unwrap(),
        b"difficulty = 3\n[window]\nwidth = 800\n"
    );
    assert!(!report
        .warnings
        .iter()
        .any(|w| w.contains("settings/game.toml")));

    // What `src` names is an input: editing it re-bakes the asset file.
    common::write_files(
        &dir.path().join("src"),
        &[("data/raw/payload.bin", b"edited")],
    );
    let again = Baker::new(dir.path().join("src/hearth.toml"), dir.path().join("out"))
        .run()
        .unwrap();
    assert_eq!(again.baked, ["data/payload.toml"]);
    assert_eq!(pack_get(&dir, "data/payload"), b"edited");
}

fn pack_get(dir: &tempfile::TempDir, path: &str) -> Vec<u8> {
    pack(dir).get(path).unwrap().unwrap().into_owned()
}

#[test]
fn scene_mistakes_are_errors_naming_file_and_key() {
    let cases: [(&str, &str); 6] = [
        (
            "[scene]\n[[scene.ref]]\nrotaton = [0.0, 0.0, 0.0]\n",
            "`scene.ref[0].rotaton`: unknown key",
        ),
        (
            "[scene]\n[[scene.ref]]\nrotation = [0.0, 1.0]\n",
            "`scene.ref[0].rotation` has 2 numbers",
        ),
        (
            "[scene]\n[[scene.ref]]\nmesh = 'missing.glb'\n",
            "levels/missing.hmesh",
        ),
        (
            "[scene]\n[[scene.geometry]]\nvertices = [0.0, 0.0, 0.0]\nindices = [0, 1]\n",
            "index 1 is past the 1 vertices",
        ),
        (
            "[scene]\n[[scene.geometry]]\nvertices = [0.0, 0.0, 0.0, 0.0, 0.0]\n",
            "5 numbers: not a whole count of 2- or 3-number vertices",
        ),
        (
            "[scene]\n[[scene.ref]]\ndata.when = 1979-05-27\n",
            "`scene.ref[0].data.when`: dates are not supported",
        ),
    ];
    for (text, expect) in cases {
        let (_, report) = bake(&[("levels/broken.toml", text.as_bytes())]);
        let error = report.expect_err(text).to_string();
        assert!(error.contains("levels/broken.toml"), "{error}");
        assert!(error.contains(expect), "{expect:?} not in {error:?}");
    }
}

/// `hearth info` counts refs and geometry; `hearth check` follows the placed meshes.
#[cfg(feature = "cli")]
#[test]
fn info_counts_and_check_follows_refs() {
    let (dir, report) = bake(&[
        ("levels/dungeon.toml", SCENE.as_bytes()),
        ("models/cube.obj", CUBE.as_bytes()),
    ]);
    report.unwrap();
    let out = dir.path().join("out");
    let hearth = |args: &[&str]| common::hearth_on(args, &out);
    let (ok, text) = hearth(&["info"]);
    assert!(ok, "{text}");
    assert!(
        text.contains("4 refs (1 placing meshes), 1 geometry"),
        "{text}"
    );
    let scene = &common::info_files(&out)["levels/dungeon.hscene"];
    assert_eq!(
        (
            scene["kind"].as_str(),
            scene["refs"].as_u64(),
            scene["geometry"].as_u64()
        ),
        (Some("scene"), Some(4), Some(1))
    );
    let (ok, text) = hearth(&["check"]);
    assert!(ok, "{text}");
    std::fs::remove_file(out.join("models/cube.hmesh")).unwrap();
    let (ok, text) = hearth(&["check"]);
    assert!(!ok);
    assert!(
        text.contains("`levels/dungeon.hscene`: ref 2: `models/cube.hmesh` is missing"),
        "{text}"
    );
}

#[test]
fn bitmap_asset_files_take_paks_keys_and_hearths() {
    let png = |size: u32| {
        let mut bytes = Vec::new();
        image::RgbaImage::from_fn(size, size, |x, y| {
            image::Rgba([(x * 16) as u8, (y * 16) as u8, 128, 255])
        })
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
        bytes
    };
    let (dir, report) = bake(&[
        (
            "textures/bricks.toml",
            b"[bitmap]\nsrc = 'source/bricks-16.png'\ncolor = 'linear'\nmip-levels = false\nresize = 8\ncompress = false\n",
        ),
        ("textures/source/bricks-16.png", &png(16)),
        ("ui/icon.toml", b"[bitmap]\nquality = 'fastest'\n"),
        ("ui/icon.png", &png(8)),
    ]);
    report.unwrap();
    let pack = pack(&dir);
    let bricks = pack
        .get("textures/bricks.ktx2")
        .unwrap()
        .expect("[bitmap] baked");
    let bricks = hearth::Ktx2::parse(&bricks).unwrap();
    assert_eq!(
        (bricks.width(), bricks.height(), bricks.level_count()),
        (8, 8, 1)
    );
    assert!(!bricks.is_uastc() && !bricks.is_srgb());
    let icon = pack
        .get("ui/icon.ktx2")
        .unwrap()
        .expect("no src: the image of the same name");
    let icon = hearth::Ktx2::parse(&icon).unwrap();
    assert!(icon.is_uastc() && icon.is_srgb());
    assert_eq!(icon.level_count(), 4);

    for (text, expect) in [
        (
            "[bitmap]\ncolour = 'srgb'\n",
            "`bitmap.colour`: unknown key",
        ),
        (
            "[bitmap]\ncolor = 'rgb'\n",
            "`bitmap.color`: \"srgb\" or \"linear\"",
        ),
        ("[bitmap]\n", "none of broken.png"),
    ] {
        let (_, report) = bake(&[("ui/broken.toml", text.as_bytes())]);
        let error = report.expect_err(text).to_string();
        assert!(
            error.contains("ui/broken.toml") && error.contains(expect),
            "{expect:?} not in {error}"
        );
    }
}

fn gray_png(size: u32, value: u8) -> Vec<u8> {
    let mut bytes = Vec::new();
    image::GrayImage::from_pixel(size, size, image::Luma([value]))
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}

#[test]
fn materials_from_mat_files_and_material_tables() {
    let (dir, report) = bake(&[
        (
            "materials/brick.mat",
            b"color = 'brick.png'\nnormal = 'brick.n.png'\nmetal = 0.0\nrough = 'rough.png'\n\
              emissive = '#ff8000'\ndouble-sided = true\nalpha-test = 0.3\ndisplacement = 0.1\n",
        ),
        ("materials/brick.png", &gray_png(8, 200)),
        ("materials/brick.n.png", &gray_png(8, 128)),
        ("materials/rough.png", &gray_png(8, 64)),
        (
            "materials/gold.toml",
            b"[material]\ncolor = '#ffd700'\nmetal = 1.0\nrough = 0.25\ntransmission = 'thin.png'\n",
        ),
        ("materials/thin.png", &gray_png(4, 90)),
        (
            "materials/ui.toml",
            b"[material]\ncolor = '/textures/panel.toml'\n",
        ),
        ("textures/panel.toml", b"[bitmap]\ncompress = false\n"),
        (
            "materials/small.toml",
            b"[material]\ncolor = { src = 'brick.png', resize = 2, compress = false }\n",
        ),
        ("textures/panel.png", &gray_png(4, 255)),
    ]);
    let report = report.unwrap();
    assert!(
        !report.warnings.iter().any(|w| w.contains("materials/")),
        "{:?}",
        report.warnings
    );
    let pack = pack(&dir);
    let table = |path: &str| {
        let bytes = pack.get(path).unwrap().unwrap().into_owned();
        let version = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
        let properties = hearth::MaterialTable::parse(&bytes)
            .unwrap()
            .properties
            .into_owned();
        (version, properties)
    };
    let row = |path: &str| {
        let bytes = pack
            .get(path)
            .unwrap()
            .unwrap_or_else(|| panic!("{path} missing"));
        let table = hearth::MaterialTable::parse(&bytes).unwrap();
        assert_eq!(table.rows.len(), 1);
        table.rows[0]
    };
    let resolve = |hash: u64| pack.resolve(hash).unwrap().map(|r| r.path.to_string());

    let brick = row("materials/brick.hmat");
    assert_eq!(
        resolve(brick.base_color_tex).as_deref(),
        Some("materials/brick/color.ktx2")
    );
    assert_eq!(
        resolve(brick.normal_tex).as_deref(),
        Some("materials/brick/normal.ktx2")
    );
    assert_eq!(
        resolve(brick.metallic_roughness_tex).as_deref(),
        Some("materials/brick/orm.ktx2")
    );
    assert_eq!(brick.metallic_factor, 0.0);
    assert_eq!(brick.roughness_factor, 1.0, "the image carries roughness");
    assert_eq!(brick.emissive_tex, 0);
    assert!(
        (brick.emissive_factor[0] - 1.0).abs() < 1e-6
            && (brick.emissive_factor[1] - 0.2159).abs() < 1e-3
    );
    assert!(brick.double_sided());
    assert_eq!((brick.alpha_mode(), brick.alpha_cutoff), (1, 0.3));
    let normal = hearth::Ktx2::parse(&pack.get("materials/brick/normal.ktx2").unwrap().unwrap())
        .unwrap()
        .is_srgb();
    assert!(!normal, "normal maps are linear");

    // Height (pak's README spells it `displacement`) and transmission have no v1 field: a
    // v2 property each; a material without them stays a v1 table.
    let (version, properties) = table("materials/brick.hmat");
    assert_eq!(version, 2);
    assert_eq!(properties.len(), 1);
    assert_eq!(properties[0].id, hearth::format::hmat::property::HEIGHT);
    assert_eq!((properties[0].value[0], properties[0].texture), (0.1, 0));
    let (version, properties) = table("materials/gold.hmat");
    assert_eq!(version, 2);
    let transmission = properties[0];
    assert_eq!(
        transmission.id,
        hearth::format::hmat::property::TRANSMISSION
    );
    assert_eq!(transmission.value[0], 1.0, "the texture carries it");
    assert_eq!(
        resolve(transmission.texture).as_deref(),
        Some("materials/gold/transmission.ktx2")
    );
    let thin = hearth::Ktx2::parse(
        &pack
            .get("materials/gold/transmission.ktx2")
            .unwrap()
            .unwrap(),
    )
    .unwrap()
    .is_srgb();
    assert!(!thin, "transmission maps are linear");
    assert_eq!(table("materials/ui.hmat"), (1, Vec::new()));

    let gold = row("materials/gold.hmat");
    assert_eq!(gold.texture_refs(), [0; 5]);
    assert_eq!((gold.metallic_factor, gold.roughness_factor), (1.0, 0.25));
    assert!((gold.base_color_factor[0] - 1.0).abs() < 1e-6 && gold.base_color_factor[3] == 1.0);
    assert!(gold.base_color_factor[2] < 0.001, "#ffd700 has no blue");

    // An inline bitmap takes [bitmap] keys: resized to 2 pixels, stored raw.
    assert_ne!(row("materials/small.hmat").base_color_tex, 0);
    let small = pack.get("materials/small/color.ktx2").unwrap().unwrap();
    let small = hearth::Ktx2::parse(&small).unwrap();
    assert_eq!((small.width(), small.height()), (2, 2));
    assert_ne!(small.vk_format(), 0, "compress = false: raw, not UASTC");

    // A [bitmap] file is referenced, not baked again.
    let ui = row("materials/ui.hmat");
    assert_eq!(
        resolve(ui.base_color_tex).as_deref(),
        Some("textures/panel.ktx2")
    );
    assert!(pack.get("materials/ui/color.ktx2").unwrap().is_none());

    for (file, text, expect) in [
        (
            "materials/bad.mat",
            "colour = '#fff'\n",
            "`material.colour`: unknown key",
        ),
        (
            "materials/bad.mat",
            "height = 0.1\ndisplacement = 0.2\n",
            "the same property",
        ),
        (
            "materials/bad.mat",
            "rough = { src = 'rough.png', resize = 4 }\n",
            "`material.rough.resize`: metal and rough images are packed",
        ),
        (
            "materials/bad.mat",
            "color = { src = 'brick.png', size = 4 }\n",
            "`material.color.size`: unknown key",
        ),
        (
            "materials/bad.mat",
            "color = '#12'\n",
            "a hex color is #rgb, #rrggbb or #rrggbbaa",
        ),
        (
            "materials/bad.toml",
            "[material]\nnormal = 0.5\n",
            "`material.normal` must be a texture",
        ),
        (
            "materials/bad.toml",
            "[material]\ncolor = 'missing.png'\n",
            "missing.png",
        ),
    ] {
        let (_, report) = bake(&[(file, text.as_bytes())]);
        let error = report.expect_err(text).to_string();
        assert!(
            error.contains(file) && error.contains(expect),
            "{expect:?} not in {error}"
        );
    }
}

/// The independent reader (`tools/spec_check.py`) accepts a tree of asset files: standalone
/// materials, scenes, fonts.
#[test]
fn the_spec_checker_accepts_asset_file_outputs() {
    let fonts = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fonts");
    let read = |name: &str| std::fs::read(format!("{fonts}/{name}")).unwrap();
    let (dir, report) = bake(&[
        ("levels/dungeon.toml", SCENE.as_bytes()),
        ("models/cube.obj", CUBE.as_bytes()),
        (
            "materials/stone.mat",
            b"color = 'stone.png'\nrough = 0.8\nheight = 'bump.png'\n",
        ),
        ("materials/stone.png", &gray_png(4, 90)),
        ("materials/bump.png", &gray_png(4, 30)),
        (
            "ui/title.toml",
            b"[bitmap-font]\nsrc = '../fonts/dejavu.txt.fnt'\n",
        ),
        ("fonts/dejavu.txt.fnt", &read("dejavu.txt.fnt")),
        ("fonts/dejavu.png", &read("dejavu.png")),
    ]);
    report.unwrap();
    let out = dir.path().join("out");
    let (ok, text) = common::spec_check(&out);
    assert!(ok && text.contains("0 problems"), "{text}");
    // A geometry record with 4 components: the checker, reading the README's layout, says so.
    let scene = out.join("levels/dungeon.hscene");
    let mut bytes = std::fs::read(&scene).unwrap();
    let geometry = 48 + 80 * 4;
    bytes[geometry + 16..geometry + 20].copy_from_slice(&4u32.to_le_bytes());
    std::fs::write(&scene, &bytes).unwrap();
    let (ok, text) = common::spec_check(&out);
    assert!(!ok, "{text}");
    assert!(
        text.contains("levels/dungeon.hscene: geometry 0: 4 components"),
        "{text}"
    );
    // A v2 material property moved to a row the table does not have.
    let material = out.join("materials/stone.hmat");
    let mut bytes = std::fs::read(&material).unwrap();
    let property = 16 + 96 + 8;
    bytes[property..property + 4].copy_from_slice(&3u32.to_le_bytes());
    std::fs::write(&material, &bytes).unwrap();
    let (ok, text) = common::spec_check(&out);
    assert!(!ok, "{text}");
    assert!(
        text.contains("materials/stone.hmat: property 1 of row 3: no such row"),
        "{text}"
    );
}

/// Bakes `src/` of `dir` into `out` with the incremental cache and a local shared cache at
/// `dir/shared` (both off with `cached = false`), and reads `output` from the pack.
fn bake_into(dir: &std::path::Path, out: &str, cached: bool, output: &str) -> Vec<u8> {
    let mut baker = Baker::new(dir.join("src/hearth.toml"), dir.join(out));
    baker.cache(cached);
    if cached {
        baker.shared_cache(hearth::bake::shared_cache::SharedCacheConfig {
            local_dir: Some(dir.join("shared")),
            ..Default::default()
        });
    }
    baker.run().unwrap_or_else(|e| panic!("{out}: {e}"));
    let pack = PakReader::open(dir.join(out).join("game.hpack")).unwrap();
    pack.get(output).unwrap().expect(output).to_vec()
}

/// An asset file without `src` finds its source by trying extensions; which ones it tried
/// are inputs of the asset: a higher-priority candidate added later (`bricks.png` beside
/// `bricks.jpg`) re-bakes it, through the incremental cache and the shared cache alike.
#[test]
fn a_source_found_by_probing_is_rebaked_when_a_better_candidate_appears() {
    let jpg = {
        let mut bytes = Vec::new();
        image::RgbImage::from_pixel(8, 8, image::Rgb([200, 30, 30]))
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Jpeg,
            )
            .unwrap();
        bytes
    };
    let box_glb = common::models::glb_meshes(1);
    let walk = common::animated_gltf("walk");
    let run = common::glb_of(&common::animated_gltf("run"));
    // (asset file and text, the source found first, a better candidate added later, output)
    type File<'a> = (&'a str, &'a [u8]);
    let cases: [(&str, &str, File<'_>, File<'_>, &str); 3] = [
        (
            "textures/bricks.toml",
            "[bitmap]\ncompress = false\nmip-levels = false\n",
            ("textures/bricks.jpg", &jpg),
            ("textures/bricks.png", &gray_png(8, 90)),
            "textures/bricks.ktx2",
        ),
        (
            "models/box.toml",
            "[mesh]\n",
            ("models/box.obj", CUBE.as_bytes()),
            ("models/box.glb", &box_glb),
            "models/box.hmesh",
        ),
        (
            "rigs/rig.toml",
            "[animation]\n",
            ("rigs/rig.gltf", walk.as_bytes()),
            ("rigs/rig.glb", &run),
            "rigs/rig.hanim",
        ),
    ];
    let mut stale = Vec::new();
    for (toml, text, first, better, output) in cases {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        common::write_files(&root.join("src"), &[(toml, text.as_bytes()), first]);
        std::fs::write(
            root.join("src/hearth.toml"),
            "[content]\nname = \"game\"\n[[content.group]]\nassets = [\"**/*.toml\"]\nexclude = [\"hearth.toml\"]\n",
        )
        .unwrap();
        let before = bake_into(root, "out", true, output);
        common::write_files(&root.join("src"), &[better]);
        let expected = bake_into(root, "uncached", false, output);
        assert!(before != expected, "{toml}: the two sources bake alike");
        if bake_into(root, "out", true, output) != expected {
            stale.push(format!(
                "{toml}: the incremental cache served the old source"
            ));
        }
        if bake_into(root, "fresh", true, output) != expected {
            stale.push(format!("{toml}: the shared cache served the old source"));
        }
    }
    assert!(stale.is_empty(), "{stale:#?}");
}

/// An asset file that declares one of pak's tables but is not valid TOML is an error naming
/// the file and line, not a blob baked without a word; a scene naming a broken material gets
/// the material's syntax error, not a misleading missing reference. TOML that declares no
/// asset table stays a blob, broken or not.
#[test]
fn broken_toml_declaring_an_asset_table_is_an_error_naming_file_and_line() {
    let (_, report) = bake(&[(
        "ui/icon.toml",
        b"[bitmap]\nsrc = 'icon.png\nquality = 'fastest'\n",
    )]);
    let error = report.expect_err("a broken [bitmap]").to_string();
    assert!(
        error.contains("ui/icon.toml") && error.contains("line 2"),
        "{error}"
    );

    let (_, report) = bake(&[
        (
            "levels/one.toml",
            b"[scene]\n[[scene.ref]]\nmaterials = ['../mats/wood.toml']\n",
        ),
        ("mats/wood.toml", b"[material]\nbase-color = [1.0, 0.5\n"),
    ]);
    let error = report.expect_err("a broken [material]").to_string();
    assert!(
        error.contains("mats/wood.toml") && error.contains("line 2"),
        "{error}"
    );

    let (dir, report) = bake(&[("data/notes.toml", b"key = = 1\n")]);
    report.unwrap();
    assert_eq!(pack_get(&dir, "data/notes.toml"), b"key = = 1\n");
}

/// Scene data nested through dotted keys inside inline tables (the `toml` parser's own limits
/// allow thousands of levels, and it recurses on each) is an error naming the file, never a
/// stack overflow; so is the same nesting in a `.mat` file.
#[test]
fn deeply_nested_asset_file_values_are_errors_not_aborts() {
    let n = 40;
    let key = |first: &str| format!("{first}{}", ".a".repeat(n));
    let mut value = String::new();
    for _ in 0..n {
        value += &format!("{{ {} = ", key("b"));
    }
    value += "1";
    value += &" }".repeat(n);
    let scene = format!("[scene]\n[[scene.ref]]\n{} = {value}\n", key("data"));
    let material = format!("{} = {value}\n", key("extra"));
    for (file, text) in [("levels/deep.toml", &scene), ("mats/deep.mat", &material)] {
        let (_, report) = bake(&[(file, text.as_bytes())]);
        let error = report.expect_err(file).to_string();
        assert!(
            error.contains(file) && error.contains("nested deeper than"),
            "{error}"
        );
    }
}
