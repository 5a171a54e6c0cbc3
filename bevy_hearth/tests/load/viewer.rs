//! `examples/viewer` in a real window: Xvfb (started here) and Mesa's lavapipe (`.ci/run`
//! installs both), touring every model of a baked pack.

use std::path::{Path, PathBuf};

/// The `viewer` example's executable, which `cargo test --features viewer` builds.
fn viewer_example() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let viewer = deps
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/viewer");
    assert!(
        viewer.is_file(),
        "{} is missing: `cargo test -p bevy_hearth --features viewer` builds it",
        viewer.display()
    );
    viewer
}

/// How much of a screenshot differs from its corner pixel (the clear colour), 0 to 1.
fn coverage(png_path: &Path) -> f64 {
    let file =
        std::fs::File::open(png_path).unwrap_or_else(|e| panic!("{}: {e}", png_path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let channels = frame.color_type.samples();
    let pixels: Vec<&[u8]> = pixels[..frame.buffer_size()].chunks(channels).collect();
    let corner = pixels[0];
    pixels.iter().filter(|p| **p != corner).count() as f64 / pixels.len() as f64
}

/// The viewer opens the pack, shows each of its six models in turn (CesiumMan and MorphAnim
/// playing their first clip) and writes one screenshot per model, each with the model on it.
#[test]
fn the_viewer_tours_every_model_of_a_pack_in_a_window() {
    let (dir, pack) = crate::bake();
    let shots = dir.path().join("shots");
    let xvfb = crate::xvfb::Xvfb::start();
    let output = std::process::Command::new(viewer_example())
        .arg(&pack)
        .arg("--tour")
        .arg(&shots)
        .env("DISPLAY", &xvfb.display)
        // Mesa's software Vulkan driver: the same picture on every machine.
        .env("VK_ICD_FILENAMES", lavapipe_icd())
        .output()
        .unwrap();
    drop(xvfb);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let reader = hearth::PakReader::open(&pack).unwrap();
    let mut models: Vec<String> = reader
        .entries()
        .map(|entry| entry.unwrap().path().into_owned())
        .filter(|path| path.ends_with(".hmesh"))
        .collect();
    models.sort();
    assert_eq!(models.len(), 8, "{models:?}");
    for (i, model) in models.iter().enumerate() {
        assert!(
            stdout.contains(&format!("viewer: showed {model} ({i})")),
            "{model} not shown:\n{stdout}"
        );
        let covered = coverage(&shots.join(format!("{i}.png")));
        assert!(
            covered > 0.01,
            "{model}: the model covers {covered:.4} of the window"
        );
    }
}

/// Mesa's lavapipe ICD file (`.ci/run` installs mesa-vulkan-drivers).
fn lavapipe_icd() -> PathBuf {
    let folder = Path::new("/usr/share/vulkan/icd.d");
    std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e} (install mesa-vulkan-drivers)", folder.display()))
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("lvp_icd")
        })
        .unwrap_or_else(|| panic!("no lvp_icd*.json in {}", folder.display()))
}
