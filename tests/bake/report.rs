//! The bake report (`hearth bake --report`, `hearth report`) opened in a real browser: headless
//! Chromium (Debian `chromium`, installed by `.ci/run`) renders it to a screenshot, which must
//! not be blank, and dumps its DOM, which must list every file of the runtime tree, draw the
//! size charts and texture thumbnails, and load nothing from outside the page; the page must
//! log nothing to the console (a control page that does proves the check sees it).
#![cfg(feature = "cli")]

use crate::common;
use crate::common::{copy_dir, corpus};
use std::path::Path;
use std::process::Command;

/// Runs headless Chromium with `args` on `page`; returns (stdout, stderr).
fn chromium(profile: &Path, args: &[&str], page: &Path) -> (String, String) {
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (Debian: chromium; .ci/run installs it)");
    assert!(
        output.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

#[test]
fn the_report_renders_in_chromium_and_lists_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let content = common::sample_content(
        &dir.path().join("src"),
        "[[content.group]]\nassets = [\"box/*.gltf\"]\n",
    );
    copy_dir(&corpus("gltf/BoxTextured"), &dir.path().join("src/box"));
    let out = dir.path().join("out");
    let hearth = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let baked = dir.path().join("baked.html");
    let after = dir.path().join("after.html");
    hearth(&[
        "bake",
        content.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--report",
        baked.to_str().unwrap(),
    ]);
    hearth(&[
        "report",
        out.to_str().unwrap(),
        "-o",
        after.to_str().unwrap(),
    ]);
    let files = hearth::read::inspect::tree_files(&out).unwrap();
    assert!(files.len() > 5, "{files:?}");

    // The control: the check sees a page's console output.
    let control = dir.path().join("control.html");
    std::fs::write(
        &control,
        "<html><body><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let (_, stderr) = chromium(
        &dir.path().join("profile-control"),
        &["--dump-dom"],
        &control,
    );
    assert_eq!(console_lines(&stderr).len(), 1, "{stderr}");

    for (name, page) in [("bake --report", &baked), ("report", &after)] {
        let html = std::fs::read_to_string(page).unwrap();
        let (dom, stderr) = chromium(
            &dir.path().join(format!("profile-{name}")),
            &["--dump-dom"],
            page,
        );
        assert!(console_lines(&stderr).is_empty(), "{name}: {stderr}");
        for (rel, _) in &files {
            assert!(
                dom.contains(&format!("<code>{rel}</code>")),
                "{name}: {rel} is not listed"
            );
        }
        assert_eq!(
            dom.matches("<svg").count(),
            2,
            "{name}: the two size charts"
        );
        assert!(dom.contains("Size by kind") && dom.contains("Size by folder"));
        assert!(
            dom.contains("data:image/png;base64,"),
            "{name}: texture thumbnails"
        );
        assert!(
            dom.contains("triangles") && dom.contains("meshlets"),
            "{name}: mesh counts"
        );
        assert!(
            dom.contains("zstd") || dom.contains("none"),
            "{name}: pack codecs"
        );
        // Self-contained: every src is a data URI, no stylesheet or script is fetched.
        for src in html.split("src=\"").skip(1) {
            assert!(
                src.starts_with("data:"),
                "{name}: loads {}",
                &src[..40.min(src.len())]
            );
        }
        assert!(
            !html.contains("<link") && !html.contains("<script"),
            "{name}"
        );
        let shot = dir.path().join(format!("{}.png", name.replace(' ', "_")));
        chromium(
            &dir.path().join(format!("profile-shot-{name}")),
            &[
                &format!("--screenshot={}", shot.display()),
                "--window-size=1200,900",
            ],
            page,
        );
        let image = image::open(&shot).unwrap().to_rgba8();
        let background = *image.get_pixel(image.width() - 1, image.height() - 1);
        let drawn = image.pixels().filter(|p| **p != background).count();
        assert!(
            drawn > (image.width() * image.height()) as usize / 20,
            "{name}: the screenshot is nearly blank ({drawn} pixels drawn)"
        );
    }
    // Only a bake knows times and cache hits.
    let baked_html = std::fs::read_to_string(&baked).unwrap();
    let after_html = std::fs::read_to_string(&after).unwrap();
    assert!(
        baked_html.contains(" ms</td><td>baked</td>"),
        "bake times and origins"
    );
    assert!(
        after_html.contains("hearth bake --report"),
        "the post-hoc report says what it lacks"
    );
    // A folder that is not a bake is an error, not an empty page.
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["report", dir.path().join("nothing").to_str().unwrap(), "-o"])
        .arg(dir.path().join("x.html"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(!dir.path().join("x.html").exists());
}

/// A file name holding bidi overrides, isolates and marks (`invoice\u{202E}fdp.exe` displays as
/// `invoiceexe.pdf`) shows each as a visible marker: the report holds none of them raw, in the
/// file table, the folder chart or the source column.
#[test]
fn bidi_controls_in_names_are_shown_not_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    let controls = [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
        '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
    ];
    let folder: String = format!("dir{}x", '\u{2067}');
    common::write_files(
        &root,
        &[
            ("data/invoice\u{202E}fdp.exe", b"not a pdf"),
            (
                &format!("data/{folder}/all{}.txt", String::from_iter(controls)),
                b"x",
            ),
        ],
    );
    let manifest = root.join("hearth.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"data/**/*\"]\n").unwrap();
    let out = dir.path().join("out");
    let report = hearth::bake::Baker::new(manifest.as_path(), &out)
        .run()
        .unwrap();
    for bake in [Some(&report), None] {
        let html = hearth::bake::report::html(&out, bake).unwrap();
        let raw: Vec<char> = html.chars().filter(|c| controls.contains(c)).collect();
        assert!(raw.is_empty(), "raw controls {raw:?} in the report");
        assert!(
            html.contains("<code>data/invoice<span class=\"ctl\">U+202E</span>fdp.exe</code>"),
            "the override is shown where it is"
        );
        assert!(
            html.contains(">data/dir[U+2067]x<"),
            "the folder chart label"
        );
    }
}

/// The report gives each mesh's vertex count, each asset's 64-bit hash (the one a game
/// looks it up by: its runtime path's), as 16 hex digits, and its name.
#[test]
fn the_report_lists_vertex_counts_and_asset_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("content");
    common::write_files(
        &root,
        &[(
            "tri.obj",
            b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n",
        )],
    );
    let manifest = root.join("hearth.toml");
    std::fs::write(&manifest, "[[content.group]]\nassets = [\"*.obj\"]\n").unwrap();
    let out = dir.path().join("out");
    let report = hearth::bake::Baker::new(manifest.as_path(), &out)
        .run()
        .unwrap();
    let html = hearth::bake::report::html(&out, Some(&report)).unwrap();
    assert!(html.contains("<th>asset hash</th>"), "{html}");
    assert!(html.contains("4 vertices, 2 triangles"), "{html}");
    let hash = format!(
        "<code>{:016x}</code>",
        hearth::hash_runtime_path("tri.hmesh")
    );
    assert!(html.contains(&hash), "{hash} in {html}");
    // And its name (the runtime path's stem), and the name table itself as a file.
    assert!(html.contains("<th>name</th>"), "{html}");
    assert!(
        html.contains(&format!("<td>{hash}</td><td>tri</td>")),
        "{html}"
    );
    assert!(html.contains("<code>assets.hnames</code>"), "{html}");
}

/// A large texture baked without mips has no level of thumbnail size: its thumbnail is
/// downscaled to at most 64 px a side (it used to be embedded whole, a 4096² texture making
/// an 89 MB page), keeping its aspect.
#[test]
fn a_large_texture_without_mips_gets_a_small_thumbnail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    std::fs::create_dir_all(&root).unwrap();
    // Noise, so that a full-size PNG could not compress to a small page.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let noise = image::RgbaImage::from_fn(2048, 1024, |_, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        image::Rgba(state.to_le_bytes()[..4].try_into().unwrap())
    });
    noise.save(root.join("big.png")).unwrap();
    let manifest = root.join("hearth.toml");
    std::fs::write(
        &manifest,
        "[[content.group]]\nassets = [\"*.png\"]\n\
         [default]\ntexture = { compress = false, mips = false }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    hearth::bake::Baker::new(&manifest, &out).run().unwrap();
    let html = hearth::bake::report::html(&out, None).unwrap();
    assert!(html.len() < 200_000, "a {}-byte page", html.len());
    let uris: Vec<&str> = html
        .split("data:image/png;base64,")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(uris.len(), 1, "one texture, one thumbnail");
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(uris[0])
        .unwrap();
    let thumbnail = image::load_from_memory(&png).unwrap();
    assert_eq!((thumbnail.width(), thumbnail.height()), (64, 32));
}
