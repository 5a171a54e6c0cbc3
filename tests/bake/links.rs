//! Every link a reader follows resolves: relative links in the README, the guide
//! (`docs/*.md`), the Bevy README and the corpus README point at files of the repository;
//! docs.rs and crates.io links name this project's crates; nothing points outside the
//! repository (`../shared/…`); the CLI's starter manifest links the published guide.

use std::path::{Path, PathBuf};

/// The Markdown files a reader of the repository, docs.rs or crates.io opens.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![
        root.join("README.md"),
        root.join("CHANGELOG.md"),
        root.join("bevy_hearth/README.md"),
        root.join("tests/corpus/README.md"),
    ];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    assert!(guide.len() > 10, "the guide's pages");
    files.extend(guide);
    files
}

/// Markdown link targets: `[text](target)`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            let target = rest[..end].split_whitespace().next().unwrap_or_default();
            out.push(target.to_string());
        }
    }
    out
}

/// A web link that should name this project: docs.rs and crates.io pages of its crates.
fn web_link_problem(link: &str) -> Option<String> {
    let ours = ["hearth-assets", "bevy_hearth", "bevy-hearth"];
    for host in ["https://docs.rs/", "https://crates.io/crates/"] {
        if let Some(path) = link.strip_prefix(host) {
            let krate = path.split(['/', '#', '?']).next().unwrap_or_default();
            // Other crates' docs are fine; `hearth` alone is someone else's crate.
            if krate == "hearth" || (krate.starts_with("hearth") && !ours.contains(&krate)) {
                return Some(format!("{link}: `{krate}` is not this project's crate"));
            }
        }
    }
    None
}

/// The address prefixes of this repository's files on the web, from `package.repository`:
/// GitHub's page of a file (`…/blob/main/PATH`) and its raw bytes (for images).
fn repository_prefixes() -> [String; 2] {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|line| line.strip_prefix("repository = "))
        .expect("Cargo.toml names the repository")
        .trim_matches('"');
    let raw = repository.replace("https://github.com/", "https://raw.githubusercontent.com/");
    [format!("{repository}/blob/main/"), format!("{raw}/main/")]
}

/// A link to one of this repository's files on the web names a file that exists.
fn repository_link_problem(link: &str) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    repository_prefixes().iter().find_map(|prefix| {
        let path = link.strip_prefix(prefix.as_str())?.split('#').next()?;
        match root.join(path).is_file() {
            true => None,
            false => Some(format!("{link}: `{path}` is not a file of the repository")),
        }
    })
}

#[test]
fn every_link_in_the_documents_resolves() {
    let mut problems = Vec::new();
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.display();
        if text.contains("../shared/") {
            problems.push(format!(
                "{name}: names `../shared/…`, which is not in the repository"
            ));
        }
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                problems.extend(web_link_problem(&link).map(|p| format!("{name}: {p}")));
                problems.extend(repository_link_problem(&link).map(|p| format!("{name}: {p}")));
                continue;
            }
            if link.starts_with('#') || link.starts_with("mailto:") || link.starts_with("crate::") {
                continue;
            }
            let path = link.split('#').next().unwrap_or_default();
            if path.is_empty() {
                continue;
            }
            let target = file.parent().unwrap().join(path);
            if !target.exists() {
                problems.push(format!("{name}: link `{link}` leads nowhere"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_starter_manifest_links_the_published_guide() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["init", "hearth.toml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let starter = std::fs::read_to_string(dir.path().join("hearth.toml")).unwrap();
    let link = starter
        .split_whitespace()
        .find(|w| w.starts_with("https://"))
        .expect("a link");
    assert_eq!(web_link_problem(link), None);
    assert!(link.starts_with("https://docs.rs/hearth-assets/"), "{link}");
    // And what `init` prints.
    let printed = String::from_utf8_lossy(&output.stdout);
    for word in printed
        .split_whitespace()
        .filter(|w| w.starts_with("https://"))
    {
        assert_eq!(web_link_problem(word), None, "{printed}");
    }
}

/// The README is the crate's page on crates.io and docs.rs, and docs/*.md are the guide's
/// pages on docs.rs: neither site resolves a link to a file relative to the repository
/// (issue 42, item 13), so those links are absolute (to the repository on GitHub).
#[test]
fn the_published_pages_link_files_by_absolute_address() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    let pages = documents().into_iter().filter(|file| {
        file == &root.join("README.md") || file.parent() == Some(&root.join("docs"))
    });
    for file in pages {
        let text = std::fs::read_to_string(&file).unwrap();
        for link in links(&text) {
            let relative = !link.contains("://")
                && !link.starts_with('#')
                && !link.starts_with("mailto:")
                && !link.starts_with("crate::");
            if relative {
                problems.push(format!("{}: `{link}` is relative", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // And one such link resolves, so the check above has something to check.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let [blob, raw] = repository_prefixes();
    assert!(
        readme.contains(&blob) && readme.contains(&raw),
        "{blob} {raw}"
    );
}
