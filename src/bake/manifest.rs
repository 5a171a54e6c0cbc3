//! The TOML manifest: content groups (pak-style) and layered settings (assetc-style).
//!
//! ```toml
//! preset = "desktop"                 # used when none is chosen
//! [content]
//! name = "assets"                    # the pack is <name>.hpack
//! pack_version = 3                   # 2 = assetc's format, uncompressed
//! compression = "zstd"               # none | snap | brotli | zstd
//! compression_level = 19
//! [[content.group]]
//! assets = ["textures/**/*.png", "models/*.glb"]
//! exclude = ["**/wip/**"]
//! [default]
//! texture = { compress = true }
//! [[default.rules]]
//! match = "ui/*"
//! texture = { compress = false }
//! [presets.mobile]
//! output = "mobile"
//! [[presets.mobile.rules]]
//! match = "decals/*"
//! texture = { compress = false }
//! [presets.release]
//! tree = false                       # the pack only: no loose runtime tree
//! ```

use crate::bake::error::BakeError;
use crate::bake::pipeline::Registry;
use crate::bake::settings::{key_path, qualify, CodecName, Settings, SettingsLayer};
use crate::bake::toml_depth::{on_parser_stack, parse_here};
use crate::format::hpack::Codec;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Glob options for `match` and `exclude`: `*` spans `/` (as in assetc), `?` is one character.
pub(crate) const MATCH_OPTIONS: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: false,
    require_literal_leading_dot: false,
};

/// Any settings-bearing table. One struct for all of them; keys that are valid only in some
/// tables (`match`, `rules`, `output`, `assets`, `exclude`) are checked by the caller, and
/// every other key is a pipeline's settings table, checked against the registered pipelines
/// by [`Config::check_tables`].
#[derive(Debug, Default, Deserialize)]
struct RawTable {
    compression: Option<CodecName>,
    compression_level: Option<i32>,
    #[serde(rename = "match")]
    match_glob: Option<String>,
    rules: Option<Vec<RawTable>>,
    output: Option<String>,
    tree: Option<bool>,
    assets: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    #[serde(flatten)]
    tables: toml::Table,
}

impl RawTable {
    fn layer(&self) -> SettingsLayer {
        SettingsLayer {
            compression: self.compression,
            compression_level: self.compression_level,
            tables: self.tables.clone(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct RawContent {
    name: Option<String>,
    pack_version: Option<u32>,
    compression: Option<CodecName>,
    compression_level: Option<i32>,
    tree: Option<bool>,
    #[serde(default)]
    group: Vec<RawTable>,
    #[serde(default)]
    names: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct RawManifest {
    preset: Option<String>,
    content: Option<RawContent>,
    default: Option<RawTable>,
    #[serde(default)]
    presets: BTreeMap<String, RawTable>,
    cache: Option<RawCache>,
}

/// `[cache]`: the shared bake cache.
#[derive(Debug, Default, Deserialize)]
struct RawCache {
    remote: Option<String>,
}

/// Warns about structural keys (`match`, `rules`, …) used in a table where they mean nothing.
fn misplaced_keys(
    table: &RawTable,
    at: &str,
    allowed: &[&str],
    file: &Path,
    warnings: &mut Vec<String>,
) {
    let present = [
        ("match", table.match_glob.is_some()),
        ("rules", table.rules.is_some()),
        ("output", table.output.is_some()),
        ("tree", table.tree.is_some()),
        ("assets", table.assets.is_some()),
        ("exclude", table.exclude.is_some()),
    ];
    for (key, _) in present
        .iter()
        .filter(|(key, set)| *set && !allowed.contains(key))
    {
        warnings.push(format!(
            "{}: key `{at}.{key}` is not valid there; ignored",
            file.display()
        ));
    }
}

/// A `[[content.group]]`: globs relative to the content root, with optional settings.
#[derive(Debug, Clone)]
pub struct Group {
    /// Globs of files to bake.
    pub assets: Vec<String>,
    /// Globs of files to leave out.
    pub exclude: Vec<glob::Pattern>,
    /// The group's own settings.
    pub layer: SettingsLayer,
}

/// A `[[default.rules]]` or `[[presets.NAME.rules]]` entry.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The `match` glob over the source-relative path.
    pub pattern: glob::Pattern,
    /// Settings applied when it matches.
    pub layer: SettingsLayer,
}

/// A `[presets.NAME]` table.
#[derive(Debug, Clone, Default)]
pub struct Preset {
    /// Output subfolder, relative to the bake's output folder.
    pub output: Option<String>,
    /// Whether the bake writes the loose runtime tree besides the pack (`tree`); `None`
    /// keeps `[content]`'s.
    pub tree: Option<bool>,
    /// The preset's globals.
    pub layer: SettingsLayer,
    /// The preset's rules, in file order.
    pub rules: Vec<Rule>,
}

/// Checks a preset's `output` folder by the rule for emitted paths: relative, normal
/// components, none hidden (hearth's own `.hearth-txn`, `.hearth-cache` and `.hearth-lock`
/// live at the top of an output folder) and not reserved. The message names the key.
pub(crate) fn check_preset_output(preset: &str, output: &str) -> Result<(), String> {
    match crate::bake::pipeline::output_path_problem(output) {
        Some(why) => Err(format!(
            "`presets.{preset}.output` = {output:?} {why}; it must name a folder inside the \
             output folder"
        )),
        None => Ok(()),
    }
}

/// A parsed, validated manifest.
#[derive(Debug, Clone)]
pub struct Config {
    /// The manifest file, for messages.
    pub file: PathBuf,
    /// The content root: globs and rules are relative to it (the manifest's folder).
    pub root: PathBuf,
    /// Preset used when the baker selects none.
    pub default_preset: Option<String>,
    /// The pack's file stem (`<name>.hpack`).
    pub pack_name: String,
    /// The pack format version written (2, 3 or 4).
    pub pack_version: u32,
    /// `[content] tree`: whether the bake writes the loose runtime tree (every output a file,
    /// plus `assets.hman` and `assets.hnames`) besides the pack. `true` unless set; a pack-only
    /// bake (`false`) writes the pack alone, for builds that embed or map it.
    pub tree: bool,
    /// `[content]` compression.
    pub content: SettingsLayer,
    /// Content groups, in file order.
    pub groups: Vec<Group>,
    /// `[default]` globals.
    pub default: SettingsLayer,
    /// `[[default.rules]]`, in file order.
    pub rules: Vec<Rule>,
    /// Presets by name.
    pub presets: BTreeMap<String, Preset>,
    /// `[cache] remote`: the shared bake cache's remote tier URL (`HEARTH_CACHE_URL` wins).
    pub cache_remote: Option<String>,
    /// `[content.names]`: names set by hand, by source path relative to the content root
    /// (`"ui/logo.png" = "Logo"`); see `docs/names.md`.
    pub names: BTreeMap<String, String>,
    /// Unknown or misplaced keys, each naming the key and the file.
    pub warnings: Vec<String>,
}

/// The manifest's tables, on the TOML parser's stack ([`on_parser_stack`]): first refused when
/// nested deeper than [`MAX_TOML_DEPTH`](crate::bake::toml_depth::MAX_TOML_DEPTH) levels, which
/// bounds serde's recursion here and the settings walkers' later ([`merge`](super::settings),
/// [`key_path`], fingerprints). Unknown keys go to `warnings`.
fn deserialize_manifest(
    text: &str,
    file: &Path,
    warnings: &mut Vec<String>,
) -> Result<RawManifest, String> {
    let syntax_error = match parse_here(text) {
        Ok(_) => None,
        Err((message, None)) => return Err(message),
        // Not TOML: the deserializer's message below shows the line and column.
        Err((message, Some(_))) => Some(message),
    };
    let deserializer = toml::Deserializer::parse(text).map_err(|e| e.to_string())?;
    if let Some(message) = syntax_error {
        return Err(message);
    }
    // A misspelled table at the top or in `[content]` would leave nothing to bake: an error.
    let mut misspelled = Vec::new();
    let manifest = serde_ignored::deserialize(deserializer, |key| {
        let path = key_path(&key);
        let (table, leaf) = path.rsplit_once('.').unwrap_or(("", &path));
        let known: &[&str] = match table {
            "" => &TOP_LEVEL_KEYS,
            "content" => &CONTENT_KEYS,
            _ => &[],
        };
        let suggestion = nearest_key(leaf, known)
            .map(|k| match table {
                "" => format!(" (did you mean `{k}`?)"),
                table => format!(" (did you mean `{table}.{k}`?)"),
            })
            .unwrap_or_default();
        match known.is_empty() {
            false => misspelled.push(format!("unknown key `{path}`{suggestion}")),
            true => warnings.push(format!("{}: unknown key `{path}` ignored", file.display())),
        }
    })
    .map_err(|e| e.to_string())?;
    match misspelled.first() {
        Some(first) => Err(first.clone()),
        None => Ok(manifest),
    }
}

/// The manifest's top-level keys.
const TOP_LEVEL_KEYS: [&str; 5] = ["preset", "content", "default", "presets", "cache"];

/// `[content]`'s keys.
const CONTENT_KEYS: [&str; 7] = [
    "name",
    "pack_version",
    "compression",
    "compression_level",
    "tree",
    "group",
    "names",
];

/// The known key closest to `key` by edit distance, when close enough to be a slip (at most a
/// third of its length, at least 2).
pub(crate) fn nearest_key<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let distance = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut previous = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let substitution = previous + usize::from(ca != *cb);
                previous = row[j + 1];
                row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
            }
        }
        row[b.len()]
    };
    let bound = (key.chars().count() / 3).max(2);
    known
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, _)| *d <= bound)
        .min()
        .map(|(_, k)| k)
}

/// A manifest error naming the manifest.
fn config_error(file: &Path, message: String) -> BakeError {
    BakeError::Config {
        file: file.to_path_buf(),
        message,
    }
}

/// `glob`, compiled; an invalid one is an error naming its key.
fn compile_glob(glob: &str, key: String, file: &Path) -> Result<glob::Pattern, BakeError> {
    glob::Pattern::new(glob)
        .map_err(|e| config_error(file, format!("`{key}` = {glob:?}: invalid glob: {}", e.msg)))
}

/// The `[[content.group]]` tables: their globs compiled and kept inside the content root (a
/// leading `/` names the root, as in pak: `/blob/payload.toml`).
fn parse_groups(
    tables: &[RawTable],
    file: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<Group>, BakeError> {
    let mut groups = Vec::new();
    for (index, table) in tables.iter().enumerate() {
        let at = format!("content.group[{index}]");
        misplaced_keys(table, &at, &["assets", "exclude"], file, warnings);
        let rooted = |glob: &String| glob.strip_prefix('/').unwrap_or(glob).to_owned();
        let assets: Vec<String> = table.assets.iter().flatten().map(rooted).collect();
        if assets.is_empty() {
            warnings.push(format!("{}: `{at}` lists no assets", file.display()));
        }
        for (i, glob) in assets.iter().enumerate() {
            compile_glob(glob, format!("{at}.assets[{i}]"), file)?;
            if Path::new(glob).is_absolute() || glob.split(['/', '\\']).any(|part| part == "..") {
                return Err(config_error(
                    file,
                    format!(
                        "`{at}.assets[{i}]` = {glob:?}: globs must stay inside the content root"
                    ),
                ));
            }
        }
        let exclude = (table.exclude.iter().flatten().map(rooted).enumerate())
            .map(|(i, glob)| compile_glob(&glob, format!("{at}.exclude[{i}]"), file))
            .collect::<Result<_, _>>()?;
        groups.push(Group {
            assets,
            exclude,
            layer: table.layer(),
        });
    }
    if groups.is_empty() {
        warnings.push(format!(
            "{}: no [[content.group]]: nothing to bake",
            file.display()
        ));
    }
    Ok(groups)
}

/// The `rules` of a settings table at key `at` (`default`, `presets.NAME`), each with its
/// `match` glob compiled; keys a rule does not take are warned about.
fn parse_rules(
    table: &RawTable,
    at: &str,
    file: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<Rule>, BakeError> {
    let mut rules = Vec::new();
    for (index, rule) in table.rules.iter().flatten().enumerate() {
        let at = format!("{at}.rules[{index}]");
        misplaced_keys(rule, &at, &["match"], file, warnings);
        let Some(glob) = &rule.match_glob else {
            return Err(config_error(file, format!("`{at}` has no `match` glob")));
        };
        rules.push(Rule {
            pattern: compile_glob(glob, format!("{at}.match"), file)?,
            layer: rule.layer(),
        });
    }
    Ok(rules)
}

impl Config {
    /// Reads and parses the manifest at `path`; its folder is the content root.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, BakeError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| BakeError::io(path, e))?;
        let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let root = if root.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            root
        };
        Self::parse(&text, path, &root)
    }

    /// Parses manifest text. `file` names it in messages; `root` is the content root.
    pub fn parse(
        text: &str,
        file: impl Into<PathBuf>,
        root: impl Into<PathBuf>,
    ) -> Result<Self, BakeError> {
        let file = file.into();
        let config_error = |message: String| BakeError::Config {
            file: file.clone(),
            message,
        };
        let mut warnings = Vec::new();
        let raw = on_parser_stack(text, || deserialize_manifest(text, &file, &mut warnings))
            .map_err(|(message, _)| message)
            .and_then(|raw| raw)
            .map_err(config_error)?;

        let content = raw.content.unwrap_or_default();
        let pack_version = content.pack_version.unwrap_or(4);
        if !matches!(pack_version, 2..=4) {
            return Err(config_error(format!(
                "`content.pack_version` = {pack_version}: hearth writes versions 2, 3 and 4"
            )));
        }
        let pack_name = content.name.unwrap_or_else(|| "assets".to_owned());
        if pack_name.is_empty() || pack_name.contains(['/', '\\']) || pack_name.starts_with('.') {
            return Err(config_error(format!(
                "`content.name` = {pack_name:?}: must be a plain file stem"
            )));
        }
        let content_layer = SettingsLayer {
            compression: content.compression,
            compression_level: content.compression_level,
            ..Default::default()
        };

        let groups = parse_groups(&content.group, &file, &mut warnings)?;
        for (source, name) in &content.names {
            if name.is_empty()
                || name.contains('#')
                || name.chars().any(char::is_control)
                || name.len() > u16::MAX as usize
            {
                return Err(config_error(format!(
                    "`content.names.{source:?}` = {name:?}: a name is not empty and holds no \
                     `#` (it separates a model's sub-assets) and no control character (tab, \
                     newline, escape, NUL)"
                )));
            }
        }
        let default = raw.default.unwrap_or_default();
        misplaced_keys(&default, "default", &["rules"], &file, &mut warnings);
        let default_rules = parse_rules(&default, "default", &file, &mut warnings)?;
        let mut presets = BTreeMap::new();
        for (name, table) in &raw.presets {
            let at = format!("presets.{name}");
            misplaced_keys(
                table,
                &at,
                &["rules", "output", "tree"],
                &file,
                &mut warnings,
            );
            if let Some(output) = &table.output {
                check_preset_output(name, output).map_err(config_error)?;
            }
            let preset = Preset {
                output: table.output.clone(),
                tree: table.tree,
                layer: table.layer(),
                rules: parse_rules(table, &at, &file, &mut warnings)?,
            };
            presets.insert(name.clone(), preset);
        }

        let config = Config {
            file,
            root: root.into(),
            default_preset: raw.preset,
            pack_name,
            pack_version,
            tree: content.tree.unwrap_or(true),
            content: content_layer,
            groups,
            default: default.layer(),
            rules: default_rules,
            presets,
            cache_remote: raw
                .cache
                .and_then(|c| c.remote)
                .filter(|r| !r.trim().is_empty()),
            names: content.names,
            warnings,
        };
        if let Some(name) = &config.default_preset {
            config.preset(Some(name))?;
        }
        Ok(config)
    }

    /// The preset called `name`; an unknown name is an error listing the defined ones.
    pub fn preset(&self, name: Option<&str>) -> Result<Option<&Preset>, BakeError> {
        let Some(name) = name else { return Ok(None) };
        self.presets
            .get(name)
            .map(Some)
            .ok_or_else(|| BakeError::Config {
                file: self.file.clone(),
                message: format!(
                    "unknown preset `{name}`; defined presets: {}",
                    self.preset_list()
                ),
            })
    }

    /// The defined preset names, comma-separated (or "none").
    pub fn preset_list(&self) -> String {
        if self.presets.is_empty() {
            "none".to_owned()
        } else {
            self.presets.keys().cloned().collect::<Vec<_>>().join(", ")
        }
    }

    /// Every settings layer with its key path (`default`, `presets.mobile.rules[0]`).
    fn layers(&self) -> Vec<(String, &SettingsLayer)> {
        let mut layers = vec![("content".to_owned(), &self.content)];
        for (i, group) in self.groups.iter().enumerate() {
            layers.push((format!("content.group[{i}]"), &group.layer));
        }
        layers.push(("default".to_owned(), &self.default));
        for (i, rule) in self.rules.iter().enumerate() {
            layers.push((format!("default.rules[{i}]"), &rule.layer));
        }
        for (name, preset) in &self.presets {
            layers.push((format!("presets.{name}"), &preset.layer));
            for (i, rule) in preset.rules.iter().enumerate() {
                layers.push((format!("presets.{name}.rules[{i}]"), &rule.layer));
            }
        }
        layers
    }

    /// Checks every settings table of every layer against the pipelines that read it: a table
    /// no pipeline reads, or a key none of them knows, is a warning naming its key path; a
    /// value of the wrong type, or out of its range (hearth's `texture` and `mesh` tables
    /// validate theirs as they are read), is an error naming it
    /// (`` `presets.mobile.texture.rdo` = NaN: … ``).
    pub fn check_tables(&self, registry: &Registry) -> Result<Vec<String>, BakeError> {
        let mut warnings = Vec::new();
        for (at, layer) in self.layers() {
            for (key, value) in &layer.tables {
                let readers: Vec<_> = registry
                    .all()
                    .filter(|p| p.settings_table() == key)
                    .collect();
                if readers.is_empty() {
                    warnings.push(format!(
                        "{}: unknown key `{at}.{key}` ignored (no pipeline reads a `{key}` table)",
                        self.file.display()
                    ));
                    continue;
                }
                // A key is unknown when every pipeline reading the table ignores it.
                let mut unknown: Option<Vec<String>> = None;
                for pipeline in readers {
                    let mut ignored = Vec::new();
                    pipeline
                        .check_table(value, &mut |path| ignored.push(path))
                        .map_err(|message| BakeError::Config {
                            file: self.file.clone(),
                            message: qualify(&format!("{at}.{key}"), &message),
                        })?;
                    unknown = Some(match unknown {
                        None => ignored,
                        Some(before) => {
                            before.into_iter().filter(|k| ignored.contains(k)).collect()
                        }
                    });
                }
                for path in unknown.unwrap_or_default() {
                    warnings.push(format!(
                        "{}: unknown key `{at}.{key}.{path}` ignored",
                        self.file.display()
                    ));
                }
            }
        }
        Ok(warnings)
    }

    /// The settings of the asset at source-relative path `rel`, baked in `group` under `preset`.
    pub fn resolve(
        &self,
        preset: Option<&Preset>,
        group: Option<&Group>,
        rel: &str,
    ) -> Result<Settings, BakeError> {
        let mut settings = Settings::default();
        if self.pack_version == 2 {
            settings.compression = Codec::None;
        }
        let mut layers: Vec<&SettingsLayer> = vec![&self.content, &self.default];
        layers.extend(preset.map(|p| &p.layer));
        layers.extend(group.map(|g| &g.layer));
        let rules = self
            .rules
            .iter()
            .chain(preset.into_iter().flat_map(|p| &p.rules));
        layers.extend(
            rules
                .filter(|r| r.pattern.matches_with(rel, MATCH_OPTIONS))
                .map(|r| &r.layer),
        );
        for layer in layers {
            settings.apply(layer);
        }
        self.check_compression(&settings, rel)?;
        Ok(settings)
    }

    fn check_compression(&self, settings: &Settings, rel: &str) -> Result<(), BakeError> {
        let error = |message: String| {
            Err(BakeError::Config {
                file: self.file.clone(),
                message,
            })
        };
        if self.pack_version == 2 && settings.compression != Codec::None {
            return error(format!(
                "`content.pack_version = 2` stores entries uncompressed, but `{rel}` resolves to compression = \"{}\"; \
                 use pack_version = 3 or compression = \"none\"",
                settings.compression.name()
            ));
        }
        let valid = match (settings.compression, settings.compression_level) {
            (_, None) => true,
            (Codec::Zstd, Some(level)) => (-7..=22).contains(&level),
            (Codec::Brotli, Some(level)) => (0..=11).contains(&level),
            (Codec::None | Codec::Snap, Some(_)) => false,
        };
        if !valid {
            return error(format!(
                "`compression_level = {}` is not valid for \"{}\" (zstd: -7..=22, brotli: 0..=11, snap and none: no level) at `{rel}`",
                settings.compression_level.unwrap_or_default(),
                settings.compression.name()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bake::texture::settings::TextureSettings;

    const ISSUE_EXAMPLE: &str = r#"
preset = "desktop"
[content]
compression = "zstd"
[[content.group]]
assets = ["textures/**/*.png", "models/*.glb", "sounds/*.ogg"]
exclude = ["**/wip/**"]
[default]
texture = { compress = true }
mesh = { merge = true }
[[default.rules]]
match = "ui/*"
texture = { compress = false }
[presets.desktop]
[presets.mobile]
output = "mobile"
[[presets.mobile.rules]]
match = "decals/*"
texture = { compress = false }
"#;

    fn parse(text: &str) -> Result<Config, BakeError> {
        Config::parse(text, "hearth.toml", ".")
    }

    #[test]
    fn a_misspelled_table_at_the_top_or_in_content_is_an_error_with_a_suggestion() {
        for (text, suggestion) in [
            (
                "[[content.grup]]\nassets = [\"*.png\"]\n",
                "did you mean `content.group`?",
            ),
            (
                "[content]\ncompresion = \"zstd\"\n",
                "did you mean `content.compression`?",
            ),
            ("[defualt]\ntexture = {}\n", "did you mean `default`?"),
            (
                "[presets.a]\n[cahce]\nremote = \"s3://b\"\n",
                "did you mean `cache`?",
            ),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(
                error.contains("hearth.toml") && error.contains(suggestion),
                "{error}"
            );
        }
        // Nothing near: the key is named without a guess.
        let error = parse("[zzzzzzzzzz]\n").unwrap_err().to_string();
        assert!(error.contains("unknown key `zzzzzzzzzz`") && !error.contains("did you mean"));
        // Deeper unknown keys keep warning (`unknown_keys_warn_with_their_name`).
        assert_eq!(nearest_key("grup", &["group", "names"]), Some("group"));
        assert_eq!(nearest_key("xyz", &["group"]), None);
    }

    #[test]
    fn parses_the_documented_example() {
        let config = parse(ISSUE_EXAMPLE).unwrap();
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
        assert_eq!(config.default_preset.as_deref(), Some("desktop"));
        assert_eq!(config.groups[0].assets.len(), 3);
        let mobile = config.preset(Some("mobile")).unwrap();
        assert_eq!(mobile.unwrap().output.as_deref(), Some("mobile"));
        let group = Some(&config.groups[0]);
        assert!(
            config
                .resolve(None, group, "decals/x.png")
                .unwrap()
                .table::<TextureSettings>("texture")
                .unwrap()
                .compress
        );
        assert!(
            !config
                .resolve(mobile, group, "decals/x.png")
                .unwrap()
                .table::<TextureSettings>("texture")
                .unwrap()
                .compress
        );
        // `*` spans '/', as in assetc.
        assert!(
            !config
                .resolve(None, group, "ui/icons/a.png")
                .unwrap()
                .table::<TextureSettings>("texture")
                .unwrap()
                .compress
        );
    }

    #[test]
    fn precedence_is_content_default_preset_group_rules() {
        let config = parse(
            r#"
[content]
compression = "snap"
[[content.group]]
assets = ["a/*"]
compression = "brotli"
[[content.group]]
assets = ["b/*"]
[default]
compression = "zstd"
[[default.rules]]
match = "a/keep*"
compression = "none"
[presets.p]
compression = "snap"
[[presets.p.rules]]
match = "*"
texture = { compress = false }
"#,
        )
        .unwrap();
        let (a, b) = (Some(&config.groups[0]), Some(&config.groups[1]));
        let p = config.preset(Some("p")).unwrap();
        assert_eq!(
            config.resolve(None, b, "b/x").unwrap().compression,
            Codec::Zstd
        );
        assert_eq!(
            config.resolve(p, b, "b/x").unwrap().compression,
            Codec::Snap
        );
        assert_eq!(
            config.resolve(p, a, "a/x").unwrap().compression,
            Codec::Brotli
        );
        assert_eq!(
            config.resolve(p, a, "a/keep").unwrap().compression,
            Codec::None
        );
        assert!(
            !config
                .resolve(p, a, "a/keep")
                .unwrap()
                .table::<TextureSettings>("texture")
                .unwrap()
                .compress
        );
    }

    #[test]
    fn unknown_keys_warn_with_their_name() {
        let config = parse(
            "[[content.group]]\nassets = [\"*\"]\n[default]\ntexture = { compres = true }\nmesh = { lod = { levls = 3 } }\noutput = \"x\"\n",
        )
        .unwrap();
        let checked = config.check_tables(&Registry::with_builtins()).unwrap();
        let all = [config.warnings.clone(), checked].concat().join("\n");
        assert!(all.contains("`default.texture.compres`"), "{all}");
        assert!(all.contains("`default.mesh.lod.levls`"), "{all}");
        assert!(all.contains("`default.output`"), "{all}");
        assert!(all.contains("hearth.toml"), "{all}");
    }

    #[test]
    fn tables_no_pipeline_reads_and_wrong_types_are_named() {
        let config = parse(
            "[default]\ntextur = { compress = true }\n[[default.rules]]\nmatch = \"*\"\ntexture = { quality = 3 }\n",
        )
        .unwrap();
        let err = config
            .check_tables(&Registry::with_builtins())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "`default.rules[0].texture.quality`: expected one of \"fastest\", \"faster\", \
                 \"default\", \"slower\", \"veryslow\", got 3"
            ),
            "{err}"
        );
        let config = parse("[default]\ntextur = { compress = true }\n").unwrap();
        let warnings = config.check_tables(&Registry::with_builtins()).unwrap();
        assert!(warnings[0].contains("`default.textur`"), "{warnings:?}");
    }

    /// A wrong type in each settings table the built-in pipelines read: the error names the
    /// key path, and a choice lists the accepted values.
    #[test]
    fn wrong_types_in_every_settings_table_name_the_key_and_the_expected_values() {
        let cases = [
            (
                "texture",
                "texture = { quality = 3 }",
                "`default.texture.quality`: expected one of \"fastest\", \"faster\", \
                 \"default\", \"slower\", \"veryslow\", got 3",
            ),
            (
                "texture",
                "texture = { format = true }",
                "`default.texture.format`: expected one of \"uastc\", \"bcn\", \"bc7\"",
            ),
            (
                "mesh",
                "mesh = { lod = { levels = \"x\" } }",
                "`default.mesh.lod.levels`: invalid type: string \"x\", expected u32",
            ),
            (
                "font",
                "font = { compress = \"yes\" }",
                "`default.font.compress`: invalid type: string \"yes\", expected a boolean",
            ),
            (
                "shader",
                "shader = { spirv = 1 }",
                "`default.shader.spirv`: invalid type: integer `1`, expected a boolean",
            ),
            (
                "asset-file",
                "asset-file = 3",
                "`default.asset-file`: invalid type: integer `3`, expected struct",
            ),
            (
                "blob",
                "blob = \"all\"",
                "`default.blob`: invalid type: string \"all\", expected struct",
            ),
        ];
        let registry = Registry::with_builtins();
        for table in registry.all().map(|p| p.settings_table()) {
            assert!(
                cases.iter().any(|(t, _, _)| *t == table),
                "no wrong-type case for the `{table}` table"
            );
        }
        for (_, line, needle) in cases {
            let err = parse(&format!("[default]\n{line}\n"))
                .unwrap()
                .check_tables(&registry)
                .unwrap_err()
                .to_string();
            assert!(err.contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn out_of_range_settings_are_errors_naming_the_key_path() {
        for (text, needle) in [
            (
                "[presets.mobile]\ntexture = { rdo = nan }\n",
                "`presets.mobile.texture.rdo` = NaN",
            ),
            (
                "[default]\ntexture = { zstd_level = 100 }\n",
                "`default.texture.zstd_level` = 100",
            ),
            (
                "[[default.rules]]\nmatch = \"*\"\nmesh = { lod = { target_error = inf } }\n",
                "`default.rules[0].mesh.lod.target_error` = inf",
            ),
            (
                "[[content.group]]\nassets = [\"*\"]\nmesh = { scale = [1, nan, 1] }\n",
                "`content.group[0].mesh.scale`",
            ),
        ] {
            let err = parse(text)
                .unwrap()
                .check_tables(&Registry::with_builtins())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(needle) && err.contains("hearth.toml"),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn unknown_preset_lists_the_defined_ones() {
        let err = parse("preset = \"nope\"\n[presets.a]\n[presets.b]\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown preset `nope`") && err.contains("a, b"),
            "{err}"
        );
    }

    #[test]
    fn rejects_impossible_settings() {
        let v2 = parse("[content]\npack_version = 2\ncompression = \"zstd\"\n[[content.group]]\nassets=[\"*\"]").unwrap();
        let err = v2
            .resolve(None, Some(&v2.groups[0]), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("pack_version = 2"), "{err}");
        // v2 without an explicit codec defaults to none.
        let v2 = parse("[content]\npack_version = 2\n").unwrap();
        assert_eq!(
            v2.resolve(None, None, "x").unwrap().compression,
            Codec::None
        );
        let level = parse("[content]\ncompression = \"brotli\"\ncompression_level = 40\n").unwrap();
        assert!(level
            .resolve(None, None, "x")
            .unwrap_err()
            .to_string()
            .contains("compression_level = 40"));
        assert!(parse("[content]\npack_version = 9\n").is_err());
        assert!(parse("[content]\ncompression = \"lzma\"\n")
            .unwrap_err()
            .to_string()
            .contains("lzma"));
        assert!(parse("[[content.group]]\nassets = [\"../x/*\"]\n").is_err());
        assert!(parse("[[content.group]]\nassets = [\"[\"]\n")
            .unwrap_err()
            .to_string()
            .contains("content.group[0].assets[0]"));
        assert!(parse("[[default.rules]]\ntexture = {}\n")
            .unwrap_err()
            .to_string()
            .contains("no `match`"));
    }
}
