//! What a bake may read and write: side files and sources inside the content root only,
//! regular files only; outputs inside the output folder only, never through a symlink.

#![cfg(unix)]

use crate::common;

use crate::common::write_files;
use hearth::bake::{BakeError, Baker, Report};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// A content folder inside a parent that also holds a "secret" outside the content root.
struct Site {
    _dir: tempfile::TempDir,
    parent: PathBuf,
    root: PathBuf,
    out: PathBuf,
}

const SECRET: &[u8] = b"ssh-ed25519 AAAA secret key material, 36 bytes";

impl Site {
    fn new(globs: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let parent = dir.path().canonicalize().unwrap();
        let root = parent.join("content");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(parent.join("secret.bin"), SECRET).unwrap();
        std::fs::write(
            root.join("hearth.toml"),
            format!("[[content.group]]\nassets = [{globs}]\n"),
        )
        .unwrap();
        Self {
            _dir: dir,
            out: parent.join("out"),
            parent,
            root,
        }
    }

    fn bake(&self) -> Result<Report, BakeError> {
        Baker::new(self.root.join("hearth.toml"), &self.out).run()
    }

    fn write(&self, files: &[(&str, &[u8])]) {
        write_files(&self.root, files);
    }

    /// Every byte of every file under the output folder.
    fn output_holds(&self, needle: &[u8]) -> bool {
        common::contents(&self.out)
            .values()
            .any(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
    }
}

/// A glTF whose one buffer is `uri` (36 bytes: one triangle's positions).
fn gltf_with_buffer(uri: &str) -> String {
    format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"{uri}","byteLength":36}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#
    )
}

fn refused(site: &Site, model: &str, reference: &str, why: &str) {
    let error = site.bake().unwrap_err().to_string();
    assert!(
        error.contains(model)
            && error.contains("pipeline `model`")
            && error.contains(&format!("refused to read {reference:?}"))
            && error.contains(why),
        "{error}"
    );
    assert!(!site.output_holds(SECRET), "the secret reached the output");
}

#[test]
fn gltf_references_cannot_leave_the_content_root() {
    let site = Site::new("\"models/*.gltf\"");
    let secret = site.parent.join("secret.bin");
    let absolute = secret.to_str().unwrap().to_owned();
    let cases = [
        (absolute.clone(), absolute.clone(), "an absolute path"),
        (
            "../../secret.bin".into(),
            "../../secret.bin".into(),
            "outside the content root",
        ),
        (
            format!("file://{absolute}"),
            absolute.clone(),
            "an absolute path",
        ),
        ("/dev/zero".into(), "/dev/zero".into(), "an absolute path"),
    ];
    for (uri, reference, why) in cases {
        site.write(&[("models/evil.gltf", gltf_with_buffer(&uri).as_bytes())]);
        refused(&site, "models/evil.gltf", &reference, why);
    }
}

#[test]
fn symlinks_and_special_files_are_not_side_files() {
    let site = Site::new("\"models/*.gltf\"");
    std::fs::create_dir_all(site.root.join("models")).unwrap();
    symlink(
        site.parent.join("secret.bin"),
        site.root.join("models/link.bin"),
    )
    .unwrap();
    site.write(&[("models/a.gltf", gltf_with_buffer("link.bin").as_bytes())]);
    refused(&site, "models/a.gltf", "link.bin", "a symlink to");

    symlink("/dev/zero", site.root.join("models/zero.bin")).unwrap();
    site.write(&[("models/a.gltf", gltf_with_buffer("zero.bin").as_bytes())]);
    refused(
        &site,
        "models/a.gltf",
        "zero.bin",
        "outside the content root",
    );

    let fifo = site.root.join("models/pipe.bin");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo failed");
    site.write(&[("models/a.gltf", gltf_with_buffer("pipe.bin").as_bytes())]);
    refused(&site, "models/a.gltf", "pipe.bin", "not a regular file");
}

#[test]
fn obj_material_libraries_and_maps_stay_inside() {
    let site = Site::new("\"models/*.obj\"");
    std::fs::write(site.parent.join("evil.mtl"), "newmtl m\nKd 1 0 0\n").unwrap();
    let obj = "mtllib ../../evil.mtl\nusemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    site.write(&[("models/a.obj", obj.as_bytes())]);
    refused(
        &site,
        "models/a.obj",
        "../../evil.mtl",
        "outside the content root",
    );

    // A map the importer only warns about when unreadable still fails the asset when refused.
    let secret = site.parent.join("secret.bin");
    let mtl = format!("newmtl m\nKd 1 1 1\nmap_Kd {}\n", secret.display());
    let obj = "mtllib a.mtl\nusemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n";
    site.write(&[
        ("models/a.mtl", mtl.as_bytes()),
        ("models/a.obj", obj.as_bytes()),
    ]);
    refused(
        &site,
        "models/a.obj",
        secret.to_str().unwrap(),
        "an absolute path",
    );

    // Inside the root, `..` is fine.
    std::fs::create_dir_all(site.root.join("materials")).unwrap();
    std::fs::write(site.root.join("materials/ok.mtl"), "newmtl m\nKd 0 1 0\n").unwrap();
    let obj = "mtllib ../materials/ok.mtl\nusemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    site.write(&[("models/a.obj", obj.as_bytes())]);
    let report = site.bake().unwrap();
    let mtl = site.root.join("materials/ok.mtl");
    assert!(report.inputs.contains(&mtl), "{:?}", report.inputs);
}

#[test]
fn the_walk_does_not_follow_symlinks_out_and_ends_on_loops() {
    let site = Site::new("\"data/**/*\"");
    site.write(&[("data/a.txt", b"a")]);
    std::fs::create_dir_all(site.parent.join("elsewhere")).unwrap();
    std::fs::write(site.parent.join("elsewhere/b.txt"), SECRET).unwrap();
    symlink(
        site.parent.join("secret.bin"),
        site.root.join("data/key.txt"),
    )
    .unwrap();
    symlink(site.parent.join("elsewhere"), site.root.join("data/etc")).unwrap();
    let error = site.bake().unwrap_err().to_string();
    assert!(
        error.contains("data/key.txt") && error.contains("data/etc"),
        "both escapes are named: {error}"
    );
    assert!(
        error.contains("symlink leads outside the content root"),
        "{error}"
    );
    assert!(!site.out.join("data/key.txt").exists());

    // Links inside the root are followed, and a loop ends.
    std::fs::remove_file(site.root.join("data/key.txt")).unwrap();
    std::fs::remove_file(site.root.join("data/etc")).unwrap();
    symlink(site.root.join("data"), site.root.join("data/again")).unwrap();
    symlink(
        site.root.join("data/a.txt"),
        site.root.join("data/alias.txt"),
    )
    .unwrap();
    let report = site.bake().unwrap();
    assert!(site.out.join("data/alias.txt").is_file());
    assert!(report.assets >= 2, "{}", report.assets);
}

#[test]
fn names_that_are_not_utf8_are_left_out_with_a_warning() {
    use std::os::unix::ffi::OsStrExt;
    let site = Site::new("\"data/**/*\"");
    site.write(&[("data/ok.txt", b"ok")]);
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.txt");
    std::fs::write(site.root.join("data").join(name), b"x").unwrap();
    let report = site.bake().unwrap();
    assert_eq!(report.assets, 1);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("not valid UTF-8")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn outputs_are_never_written_through_a_symlink() {
    let site = Site::new("\"data/**/*\"");
    site.write(&[("data/a.txt", b"first")]);
    site.bake().unwrap();
    // Someone replaces the output's `data` folder with a link to a folder outside it.
    let outside = site.parent.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::remove_dir_all(site.out.join("data")).unwrap();
    symlink(&outside, site.out.join("data")).unwrap();
    site.write(&[("data/a.txt", b"second")]);
    let error = site.bake().unwrap_err().to_string();
    assert!(
        error.contains("symlink inside the output folder"),
        "{error}"
    );
    assert!(
        std::fs::read_dir(&outside).unwrap().next().is_none(),
        "wrote outside"
    );

    // A symlink planted where an output file goes is replaced, not written through.
    std::fs::remove_file(site.out.join("data")).unwrap();
    site.bake().unwrap();
    let target = site.parent.join("target.txt");
    std::fs::write(&target, b"keep me").unwrap();
    std::fs::remove_file(site.out.join("data/a.txt")).unwrap();
    symlink(&target, site.out.join("data/a.txt")).unwrap();
    site.write(&[("data/a.txt", b"third")]);
    site.bake().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    assert_eq!(
        std::fs::read(site.out.join("data/a.txt")).unwrap(),
        b"third"
    );
    assert!(!Path::new(&site.out.join("data/a.txt")).is_symlink());
}

#[test]
fn a_preset_output_folder_is_never_written_through_a_symlink() {
    for (output, link) in [("mobile", "mobile"), ("deep/mobile", "deep")] {
        let site = Site::new("\"data/*\"");
        let manifest = site.root.join("hearth.toml");
        let mut text = std::fs::read_to_string(&manifest).unwrap();
        text.push_str(&format!("[presets.mobile]\noutput = {output:?}\n"));
        std::fs::write(&manifest, text).unwrap();
        site.write(&[("data/a.txt", b"baked")]);
        // The victim holds a file where the bake's output would go, and one of its own.
        let victim = site.parent.join("victim");
        let victim_tree: &[(&str, &[u8])] = match link {
            "mobile" => &[("data/a.txt", b"victim's own"), ("notes.txt", b"keep")],
            _ => &[
                ("mobile/data/a.txt", b"victim's own"),
                ("notes.txt", b"keep"),
            ],
        };
        write_files(&victim, victim_tree);
        let before = common::contents(&victim);
        std::fs::create_dir_all(&site.out).unwrap();
        symlink("../victim", site.out.join(link)).unwrap();

        let error = Baker::new(&manifest, &site.out)
            .preset("mobile")
            .run()
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("symlink inside the output folder")
                && error.contains(&format!("out/{link}")),
            "{output}: {error}"
        );
        // Nothing written there: no output, lock, cache, pack or staging folder.
        assert_eq!(common::contents(&victim), before, "{output}");
        assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 2, "{output}");
    }
}

/// A 4x4 PNG of one shade.
fn png(shade: u8) -> Vec<u8> {
    let image = image::RgbaImage::from_pixel(4, 4, image::Rgba([shade, shade, shade, 255]));
    let mut out = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

fn shader_fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/shaders")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("missing test data {}: {e}", path.display()))
}

/// A folder asset's member: its name and bytes.
type Member = (String, Vec<u8>);

#[test]
fn folder_asset_members_that_link_out_or_nowhere_fail_the_bake_naming_the_link() {
    let faces = ["px", "nx", "py", "ny", "nz"].map(|face| (format!("{face}.png"), png(9)));
    let vertex = shader_fixture("vertex.spv");
    // Each folder asset kind: its real members, and the member that is a link.
    let kinds: [(&str, Vec<Member>, &str); 3] = [
        ("textures/x.array", vec![("a.png".into(), png(1))], "b.png"),
        ("textures/sky.env", faces.to_vec(), "pz.png"),
        (
            "shaders/lit.shader",
            vec![("vertex.spv".into(), vertex)],
            "fragment.spv",
        ),
    ];
    for (folder, members, link) in kinds {
        for (target, why) in [
            ("secret.bin", "symlink leads outside the content root"),
            ("missing.bin", "symlink cannot be followed"),
        ] {
            let site = Site::new("\"textures/*\", \"shaders/*\"");
            for (name, bytes) in &members {
                site.write(&[(&format!("{folder}/{name}"), bytes)]);
            }
            let link_path = site.root.join(folder).join(link);
            symlink(site.parent.join(target), &link_path).unwrap();
            let error = site.bake().unwrap_err().to_string();
            assert!(
                error.contains(&link_path.display().to_string()) && error.contains(why),
                "{folder}/{link} -> {target}: {error}"
            );
            assert!(!site.output_holds(SECRET), "{folder}");
        }
    }
}

#[test]
fn a_folder_asset_member_linking_inside_the_root_is_followed() {
    let site = Site::new("\"shaders/*\"");
    site.write(&[
        (
            "shaders/lit.shader/vertex.spv",
            &shader_fixture("vertex.spv"),
        ),
        ("stages/fragment.spv", &shader_fixture("fragment.spv")),
    ]);
    symlink(
        site.root.join("stages/fragment.spv"),
        site.root.join("shaders/lit.shader/fragment.spv"),
    )
    .unwrap();
    site.bake().unwrap();
    assert_eq!(
        std::fs::read(site.out.join("shaders/lit.shader/fragment.spv")).unwrap(),
        shader_fixture("fragment.spv"),
        "the linked stage is baked, not left out"
    );
}
