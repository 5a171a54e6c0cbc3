//! Every type and function at the crate root (`src/lib.rs`'s `pub use` lines) has an example
//! on its own page (issue 42, item 14); `cargo test --doc` compiles them.

use std::path::{Path, PathBuf};

/// The source file of module `path` (`read::pak`, `crate::format::kind`, `super::kind` from
/// `from`).
fn module_file(path: &str, from: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let relative = match path.strip_prefix("super::") {
        Some(rest) => {
            // `super` of `format/hman.rs` (or `format/hman/mod.rs`) is `format`.
            let module_dir = match from.file_name().is_some_and(|name| name == "mod.rs") {
                true => from.parent().unwrap().parent().unwrap(),
                false => from.parent().unwrap(),
            };
            module_dir
                .strip_prefix(&src)
                .unwrap()
                .join(rest.replace("::", "/"))
        }
        None if path.starts_with("crate::") || from.ends_with("src/lib.rs") => {
            PathBuf::from(path.trim_start_matches("crate::").replace("::", "/"))
        }
        // A child module of `from`'s (`pub use manifest::ManifestRecord;` in `read/pak/mod.rs`).
        None => {
            let module_dir = match from.file_name().is_some_and(|name| name == "mod.rs") {
                true => from.parent().unwrap().to_path_buf(),
                false => from.with_extension(""),
            };
            let child = path.trim_start_matches("self::").replace("::", "/");
            module_dir.strip_prefix(&src).unwrap().join(child)
        }
    };
    let file = src.join(&relative).with_extension("rs");
    match file.is_file() {
        true => file,
        false => src.join(relative).join("mod.rs"),
    }
}

/// The doc comment (with attributes) above the item `name` defines in `file`, following a
/// `pub use …::name;` to where it is defined; `None` when it is not found.
fn doc_of(name: &str, file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e} (looking for `{name}`)", file.display()));
    let lines: Vec<&str> = text.lines().collect();
    let defines = |line: &str| {
        let line = line.trim();
        let named = |rest: &str| {
            rest.strip_prefix(name)
                .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        };
        ["pub struct ", "pub enum ", "pub trait ", "pub fn ", "pub const fn ", "pub type "]
            .iter()
            .any(|keyword| line.strip_prefix(keyword).is_some_and(named))
            // An owned asset defined by `owned_view!(/// docs… Name, …)`.
            || line == format!("{name},")
    };
    if let Some(at) = lines.iter().position(|line| defines(line)) {
        let doc: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .take_while(|line| {
                let line = line.trim();
                line.starts_with("///") || line.starts_with("#[")
            })
            .copied()
            .collect();
        return (!doc.is_empty()).then(|| doc.join("\n"));
    }
    let reexport = lines.iter().find_map(|line| {
        let path = line.trim().strip_prefix("pub use ")?.strip_suffix(';')?;
        let module = path.strip_suffix(&format!("::{name}"))?;
        Some(module_file(module, file))
    })?;
    doc_of(name, &reexport)
}

#[test]
fn every_crate_root_item_has_an_example_on_its_page() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let mut checked = 0;
    let mut problems = Vec::new();
    for line in text.lines() {
        let Some(used) = line
            .strip_prefix("pub use ")
            .and_then(|l| l.strip_suffix(';'))
        else {
            continue;
        };
        let (module, names) = match used.split_once("::{") {
            Some((module, names)) => (module, names.trim_end_matches('}')),
            None => used.rsplit_once("::").unwrap(),
        };
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            checked += 1;
            match doc_of(name, &module_file(module, &lib)) {
                None => problems.push(format!("{name}: its definition was not found")),
                Some(doc) if !doc.contains("```") => {
                    problems.push(format!("{name}: no example on its page"))
                }
                Some(_) => {}
            }
        }
    }
    assert!(checked > 40, "{checked} items at the crate root");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
