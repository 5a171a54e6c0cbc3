//! The published crate holds what a user builds and reads, and nothing of the repository's
//! own tests, benches, tools or CI (issue 42, item 13): `cargo package --list`, checked.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The files `cargo package` would publish, relative and `/`-separated.
fn packaged_files() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Offline: the list needs no registry, and CI's build has already fetched what the lock
    // file names.
    let output = std::process::Command::new(cargo)
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "-p",
            "hearth-assets",
        ])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo package --list: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `path` without `.` and `..` components (it names no link; the repository has none).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The files the library's and the CLI's code include by path (`include_str!`,
/// `include_bytes!`; doc comments' examples left out), relative to the repository.
fn included_by_code() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = BTreeSet::new();
    let mut folders = vec![root.join("src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                for call in ["include_str!(\"", "include_bytes!(\""] {
                    let Some((_, rest)) = line.split_once(call) else {
                        continue;
                    };
                    let target = rest.split('"').next().unwrap();
                    let full = normalize(&path.parent().unwrap().join(target));
                    let rel = full.strip_prefix(root).unwrap();
                    found.insert(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
    found
}

#[test]
fn the_package_holds_what_users_need_and_no_repository_only_files() {
    let files = packaged_files();
    let left_out = [
        "tests/",
        "tools/",
        "fuzz/",
        "benches/",
        ".ci/",
        ".cargo/",
        "examples/content/",
        "examples/game/",
        "examples/preview",
        "docs/renders/",
        "bevy_hearth/",
    ];
    let wrong: Vec<&String> = files
        .iter()
        .filter(|file| left_out.iter().any(|prefix| file.starts_with(prefix)))
        .collect();
    assert!(wrong.is_empty(), "published but repository-only: {wrong:?}");

    let included = included_by_code();
    // The guide's pages, the README (its doc-tests) and the preview renderer's shader.
    assert!(
        included.contains("docs/baking.md")
            && included.contains("README.md")
            && included.iter().any(|file| file.ends_with(".wgsl")),
        "{included:?}"
    );
    let mut needed: Vec<&str> = vec![
        "Cargo.toml",
        "README.md",
        "CHANGELOG.md",
        "build.rs",
        "src/lib.rs",
        "src/bin/hearth/main.rs",
        "examples/load_model.rs",
    ];
    needed.extend(included.iter().map(String::as_str));
    let missing: Vec<&&str> = needed
        .iter()
        .filter(|file| !files.contains(**file))
        .collect();
    assert!(missing.is_empty(), "needed but not published: {missing:?}");
}

/// Cargo builds every dev-dependency for any example, so `cargo run --example load_model`
/// built the benches' criterion and meshoptimizer and the preview's window crates (issue 42,
/// item 4): the benches are the `hearth-benches` package, the preview example the
/// `hearth-preview` one, and this one's dev-dependencies hold none of them.
#[test]
fn the_benches_and_previews_dependencies_are_not_dev_dependencies_of_the_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let package = |name: &str| {
        packages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no package {name}"))
    };
    let dev_dependencies: Vec<&str> = package("hearth-assets")["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "dev")
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    for heavy in ["criterion", "meshopt", "winit", "softbuffer"] {
        assert!(
            !dev_dependencies.contains(&heavy),
            "{heavy}: {dev_dependencies:?}"
        );
    }
    let has_target = |package: &serde_json::Value, kind: &str| {
        package["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["kind"][0] == kind)
    };
    assert!(!has_target(package("hearth-assets"), "bench"));
    assert!(has_target(package("hearth-benches"), "bench"));
    assert!(has_target(package("hearth-preview"), "example"));
}
