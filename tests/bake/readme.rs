//! bevy_hearth's README opens with a Bevy app (its dependency lines and its `main`), and
//! `examples/bevy-app` is that app, built by CI as a workspace member: the two must agree line
//! for line, so the snippet a newcomer copies is the one that builds.

use std::path::Path;

/// The text of the first fenced block of `kind` (```` ```toml ````, ```` ```rust,no_run ````) in
/// `markdown`.
fn first_block<'a>(markdown: &'a str, kind: &str) -> &'a str {
    let fence = format!("```{kind}\n");
    let start = markdown
        .find(&fence)
        .unwrap_or_else(|| panic!("no {fence:?} block"))
        + fence.len();
    let end = start + markdown[start..].find("```\n").expect("the block ends");
    &markdown[start..end]
}

#[test]
fn the_bevy_readme_app_is_the_app_ci_builds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("bevy_hearth/README.md")).unwrap();
    let main = std::fs::read_to_string(root.join("examples/bevy-app/src/main.rs")).unwrap();
    assert_eq!(
        first_block(&readme, "rust,no_run"),
        main,
        "bevy_hearth/README.md's app differs from examples/bevy-app/src/main.rs"
    );
    let manifest = std::fs::read_to_string(root.join("examples/bevy-app/Cargo.toml")).unwrap();
    let bevy_line = manifest.find("bevy = {").expect("the app depends on bevy");
    let readme_toml = first_block(&readme, "toml");
    assert_eq!(
        readme_toml,
        format!(
            "[dependencies]\nbevy_hearth = \"0.1\"\n{}",
            &manifest[bevy_line..]
        ),
        "bevy_hearth/README.md's dependency lines differ from examples/bevy-app/Cargo.toml's"
    );
    // The app CI builds depends on the workspace's bevy_hearth at the README's version.
    assert!(manifest.contains("bevy_hearth = { path = \"../../bevy_hearth\", version = \"0.1\" }"));
}
