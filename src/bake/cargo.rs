//! build.rs integration: bake into `OUT_DIR`, tell cargo what to watch, route warnings.
//!
//! ```no_run
//! // in the game's build.rs, inside `fn main`:
//! hearth::bake::cargo::bake("assets/hearth.toml");
//! ```
//!
//! and in the game: `let pak = hearth::include_pak!(env!("HEARTH_PACK"))?;`
//!
//! Environment read (each also declared with `rerun-if-env-changed` where it can change):
//! `CARGO_MANIFEST_DIR` (relative manifest paths), `OUT_DIR` (output: `$OUT_DIR/hearth`),
//! `PROFILE` (preset choice), `NUM_JOBS` (threads), `CARGO_PKG_RUST_VERSION` (directive
//! syntax), `HEARTH_PRESET` (overrides the preset), `HEARTH_OUT_DIR` (a stable output folder,
//! [`SHARED_OUT_ENV`]), and the variable named by [`CargoBake::sign_from_env`] (the signing
//! key's path).
//!
//! Set for the game's code (`env!`): `HEARTH_PACK` (the pack), `HEARTH_OUT` (the runtime
//! tree; for a pack-only preset, `tree = false`, the folder holding the pack alone, which
//! [`Assets::open`](crate::Assets::open) reads as that pack), `HEARTH_BAKED_PRESET` (the
//! preset used, empty for none).
//!
//! **Preset from the profile**: `HEARTH_PRESET` if set; else the preset named like cargo's
//! `PROFILE` (`debug` or `release`) if the manifest defines one; else the manifest's `preset`.
//! So a manifest with `[presets.debug]` gets fast bakes in debug builds.

use crate::bake::baker::{Baker, Report};
use crate::bake::error::BakeError;
use crate::bake::manifest::Config;
use crate::bake::pipeline::{Pipeline, Registry};
use crate::bake::signing::SigningKey;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable carrying the pack's absolute path to the game's code.
pub const PACK_ENV: &str = "HEARTH_PACK";
/// The environment variable carrying the runtime tree's absolute path.
pub const OUT_ENV: &str = "HEARTH_OUT";
/// Overrides the preset choice.
pub const PRESET_ENV: &str = "HEARTH_PRESET";
/// A stable output folder (relative to `CARGO_MANIFEST_DIR`) instead of `$OUT_DIR/hearth`,
/// which moves with the package's features and profile: set it in the game's
/// `.cargo/config.toml` (`[env]`) so the build script, `hearth watch` and a debug build reading
/// from disk share one folder (the output lock keeps them from fighting).
pub const SHARED_OUT_ENV: &str = "HEARTH_OUT_DIR";
/// `HEARTH_VERBOSE=1`: the build script says what it baked, in one `cargo::warning` line
/// (cargo shows a build script's warnings; its other output only on failure).
pub const VERBOSE_ENV: &str = "HEARTH_VERBOSE";
/// Carries the preset the build script baked with (empty for none) to the game's code, so a
/// watch tool in the game's crate can bake the same way.
pub const BAKED_PRESET_ENV: &str = "HEARTH_BAKED_PRESET";

/// Whether this copy of hearth was compiled without optimizations (build-dependencies are,
/// unless the game's Cargo.toml says otherwise).
pub const UNOPTIMIZED: bool = cfg!(hearth_unoptimized);

/// The one cargo warning hearth gives when it runs unoptimized.
pub const UNOPTIMIZED_HINT: &str = "hearth is baking without optimizations (build-dependencies default to opt-level 0); \
add `[profile.dev.build-override] opt-level = 3` and `[profile.release.build-override] opt-level = 3` \
to your Cargo.toml for much faster bakes";

/// Bakes for a build script and exits the process with a message on error (no panic, no
/// backtrace). See [`CargoBake`] to override cargo's inputs or to handle the error yourself.
///
/// It bakes into `$OUT_DIR/hearth/` (or `HEARTH_OUT_DIR`), emits the `rerun-if-changed` lines
/// for every input, turns warnings into `cargo::warning` lines and sets `HEARTH_PACK` and
/// `HEARTH_OUT` for the game's code (the guide's `baking` page has the details).
///
/// ```no_run
/// // In build.rs's `fn main`:
/// hearth::bake::cargo::bake("assets/hearth.toml");
/// ```
pub fn bake(manifest: impl AsRef<Path>) -> Report {
    CargoBake::new(manifest).run_or_exit()
}

/// A build-script bake with every cargo-provided input overridable (for tests and unusual
/// setups); unset inputs fall back to cargo's environment variables.
///
/// ```no_run
/// // build.rs: the game's own asset kinds, a signed pack when the release CI sets the key's
/// // path, and the error handled here instead of exiting.
/// use hearth::bake::cargo::CargoBake;
/// # struct Levels;
/// # impl hearth::bake::Pipeline for Levels {
/// #     type Settings = ();
/// #     fn name(&self) -> &str { "level" }
/// #     fn version(&self) -> u32 { 1 }
/// #     fn claims(&self) -> Vec<hearth::bake::Claim> { vec![hearth::bake::Claim::file("*.level.toml")] }
/// #     fn bake(&self, _: &hearth::bake::Source<'_>, _: &(), _: &mut hearth::bake::BakeContext<'_>)
/// #         -> Result<(), hearth::bake::PipelineError> { Ok(()) }
/// # }
/// fn main() {
///     let result = CargoBake::new("assets/hearth.toml")
///         .pipeline(Levels) // a `hearth::bake::Pipeline` of the game's
///         .sign_from_env("GAME_SIGNING_KEY")
///         .run();
///     if let Err(error) = result {
///         eprintln!("hearth: {error}");
///         std::process::exit(1);
///     }
/// }
/// ```
pub struct CargoBake {
    manifest: PathBuf,
    out_dir: Option<PathBuf>,
    manifest_dir: Option<PathBuf>,
    profile: Option<String>,
    preset: Option<String>,
    jobs: Option<usize>,
    rust_version: Option<String>,
    output: Box<dyn Write>,
    registry: Registry,
    registration_error: Option<BakeError>,
    sign_env: Option<String>,
    shared_out: Option<PathBuf>,
    shared_cache: bool,
    verbose: Option<bool>,
}

impl std::fmt::Debug for CargoBake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CargoBake")
            .field("manifest", &self.manifest)
            .field("out_dir", &self.out_dir)
            .finish_non_exhaustive()
    }
}

impl CargoBake {
    /// A bake of `manifest` (relative paths are relative to `CARGO_MANIFEST_DIR`).
    pub fn new(manifest: impl AsRef<Path>) -> Self {
        Self {
            manifest: manifest.as_ref().to_path_buf(),
            out_dir: None,
            manifest_dir: None,
            profile: None,
            preset: None,
            jobs: None,
            rust_version: None,
            output: Box::new(std::io::stdout()),
            registry: Registry::with_builtins(),
            registration_error: None,
            sign_env: None,
            shared_out: None,
            shared_cache: true,
            verbose: None,
        }
    }

    /// Whether the build script says what it baked in one `cargo::warning` line; by default
    /// when `HEARTH_VERBOSE=1` ([`VERBOSE_ENV`]).
    pub fn verbose(&mut self, on: bool) -> &mut Self {
        self.verbose = Some(on);
        self
    }

    /// Whether the bake uses the shared bake cache the environment describes
    /// (`HEARTH_CACHE_DIR`, `HEARTH_CACHE_URL`, `HEARTH_CACHE_MODE`, the manifest's `[cache]
    /// remote`; see [`crate::bake::shared_cache`]). On by default; the variables are declared
    /// with `rerun-if-env-changed` either way.
    pub fn shared_cache(&mut self, on: bool) -> &mut Self {
        self.shared_cache = on;
        self
    }

    /// Signs the pack (v5) with the secret key file whose path is in the environment variable
    /// `var`, so the key stays out of the repository: a release CI sets it, and without it the
    /// pack is unsigned. The variable is declared with `rerun-if-env-changed` and the key file
    /// with `rerun-if-changed`; a key that cannot be read fails the build, naming the file.
    pub fn sign_from_env(&mut self, var: impl Into<String>) -> &mut Self {
        self.sign_env = Some(var.into());
        self
    }

    /// Adds a game pipeline to the built-in ones (see
    /// [`Baker::pipeline`](crate::bake::Baker::pipeline)); a clash is reported by `run`.
    pub fn pipeline<P: Pipeline>(&mut self, pipeline: P) -> &mut Self {
        if let Err(error) = self.registry.register(pipeline) {
            self.registration_error.get_or_insert(error);
        }
        self
    }

    /// [`run`](Self::run), and on error print it and exit the process (as [`bake`] does).
    pub fn run_or_exit(&mut self) -> Report {
        match self.run() {
            Ok(report) => report,
            Err(error) => {
                eprintln!("hearth: {error}");
                std::process::exit(1);
            }
        }
    }

    /// Overrides `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Overrides `HEARTH_OUT_DIR` ([`SHARED_OUT_ENV`]): bake into `dir` (relative to the
    /// manifest dir) instead of `$OUT_DIR/hearth`.
    pub fn shared_out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.shared_out = Some(dir.into());
        self
    }

    /// Overrides `CARGO_MANIFEST_DIR`.
    pub fn manifest_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.manifest_dir = Some(dir.into());
        self
    }

    /// Overrides `PROFILE`.
    pub fn profile(&mut self, profile: impl Into<String>) -> &mut Self {
        self.profile = Some(profile.into());
        self
    }

    /// Chooses the preset, bypassing the profile mapping.
    pub fn preset(&mut self, preset: impl Into<String>) -> &mut Self {
        self.preset = Some(preset.into());
        self
    }

    /// Overrides `NUM_JOBS`.
    pub fn jobs(&mut self, jobs: usize) -> &mut Self {
        self.jobs = Some(jobs);
        self
    }

    /// Overrides `CARGO_PKG_RUST_VERSION` (picks `cargo::` vs `cargo:` directives).
    pub fn rust_version(&mut self, version: impl Into<String>) -> &mut Self {
        self.rust_version = Some(version.into());
        self
    }

    /// Sends cargo directives to `writer` instead of stdout.
    pub fn output(&mut self, writer: impl Write + 'static) -> &mut Self {
        self.output = Box::new(writer);
        self
    }

    fn env(name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    /// Bakes, then prints the cargo directives.
    pub fn run(&mut self) -> Result<Report, BakeError> {
        let (manifest_dir, out_dir) = self.cargo_dirs()?;
        let manifest = manifest_dir.join(&self.manifest);
        let profile = self.profile.clone().or_else(|| Self::env("PROFILE"));
        let prefix = self.directive_prefix();
        let (mut lines, signing_key) = self.watch_settings(prefix, &manifest_dir, &manifest)?;
        if let Some(error) = self.registration_error.take() {
            self.emit(&lines)?;
            return Err(error);
        }
        let config = match Config::load(&manifest) {
            Ok(config) => config,
            Err(error) => {
                // Keep watching the manifest so fixing it re-runs the build script.
                self.emit(&lines)?;
                return Err(error);
            }
        };
        let preset = self
            .preset
            .clone()
            .or_else(|| Self::env(PRESET_ENV))
            .or_else(|| profile.filter(|p| config.presets.contains_key(p)))
            .or_else(|| config.default_preset.clone());
        let tree = self.tree(&manifest_dir, &out_dir);
        let baked_preset = preset.clone().unwrap_or_default();
        let result = self.baker(config, tree, preset, signing_key).run();
        let report = match result {
            Ok(report) => report,
            Err(error) => {
                self.emit(&lines)?;
                return Err(error);
            }
        };
        report_directives(prefix, &report, &baked_preset, &mut lines)?;
        let verbose = self
            .verbose
            .unwrap_or_else(|| Self::env(VERBOSE_ENV).is_some_and(|v| v == "1"));
        if verbose {
            lines.push(format!("{prefix}warning={}", summary_line(&report)));
        }
        self.emit(&lines)?;
        Ok(report)
    }

    /// The package's folder and cargo's `OUT_DIR`, as overridden or from cargo's environment.
    fn cargo_dirs(&self) -> Result<(PathBuf, PathBuf), BakeError> {
        let missing = |name: &str| {
            BakeError::Cargo(format!(
                "{name} is not set (is this running from build.rs?)"
            ))
        };
        let manifest_dir = match &self.manifest_dir {
            Some(dir) => dir.clone(),
            None => Self::env("CARGO_MANIFEST_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| missing("CARGO_MANIFEST_DIR"))?,
        };
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => Self::env("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| missing("OUT_DIR"))?,
        };
        Ok((manifest_dir, out_dir))
    }

    /// `cargo::` or `cargo:`, as the package's rust-version allows.
    fn directive_prefix(&self) -> &'static str {
        let rust_version = self
            .rust_version
            .clone()
            .or_else(|| Self::env("CARGO_PKG_RUST_VERSION"))
            .unwrap_or_default();
        if supports_double_colon(&rust_version) {
            "cargo::"
        } else {
            "cargo:"
        }
    }

    /// The directives that hold whatever the bake goes (the manifest and the environment
    /// variables it reads, the signing key's file), and the signing key. A key that cannot
    /// be loaded becomes the registration error, reported after these directives.
    fn watch_settings(
        &mut self,
        prefix: &str,
        manifest_dir: &Path,
        manifest: &Path,
    ) -> Result<(Vec<String>, Option<SigningKey>), BakeError> {
        let mut lines = Vec::new();
        lines.push(format!(
            "{prefix}rerun-if-changed={}",
            checked_path(manifest)?
        ));
        lines.push(format!("{prefix}rerun-if-env-changed={PRESET_ENV}"));
        lines.push(format!("{prefix}rerun-if-env-changed={SHARED_OUT_ENV}"));
        lines.push(format!("{prefix}rerun-if-env-changed={VERBOSE_ENV}"));
        for var in crate::bake::shared_cache::ENV_VARS {
            lines.push(format!("{prefix}rerun-if-env-changed={var}"));
        }

        let mut signing_key = None;
        if let Some(var) = &self.sign_env {
            lines.push(format!("{prefix}rerun-if-env-changed={var}"));
            if let Some(path) = std::env::var_os(var).filter(|p| !p.is_empty()) {
                let path = manifest_dir.join(path);
                lines.push(format!("{prefix}rerun-if-changed={}", checked_path(&path)?));
                match SigningKey::load(&path) {
                    Ok(key) => signing_key = Some(key),
                    Err(error) => self.registration_error = Some(error),
                }
            }
        }
        Ok((lines, signing_key))
    }

    /// The runtime tree's folder: [`SHARED_OUT_ENV`]'s (or the override's) inside the
    /// package, else `$OUT_DIR/hearth`.
    fn tree(&self, manifest_dir: &Path, out_dir: &Path) -> PathBuf {
        let shared_out = self.shared_out.clone().or_else(|| {
            Self::env(SHARED_OUT_ENV)
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from)
        });
        match shared_out {
            Some(shared) => manifest_dir.join(shared),
            None => out_dir.join("hearth"),
        }
    }

    /// The baker for this build script's bake.
    fn baker(
        &self,
        config: Config,
        tree: PathBuf,
        preset: Option<String>,
        signing_key: Option<SigningKey>,
    ) -> Baker {
        let mut baker = Baker::new(config, tree);
        baker.preset_opt(preset).registry(self.registry.clone());
        if let Some(jobs) = self.jobs {
            baker.jobs(jobs);
        }
        if let Some(key) = signing_key {
            baker.sign(key);
        }
        if self.shared_cache {
            baker.shared_cache_from_env();
        }
        baker
    }

    fn emit(&mut self, lines: &[String]) -> Result<(), BakeError> {
        let io = |e| BakeError::Cargo(format!("cannot write cargo directives: {e}"));
        for line in lines {
            writeln!(self.output, "{line}").map_err(io)?;
        }
        self.output.flush().map_err(io)
    }
}

/// The directives of a bake that succeeded, after `lines`: every input and walked folder
/// watched, the warnings, and the paths and preset set for the game's code.
fn report_directives(
    prefix: &str,
    report: &Report,
    baked_preset: &str,
    lines: &mut Vec<String>,
) -> Result<(), BakeError> {
    for path in report.inputs.iter().chain(&report.watched_dirs) {
        lines.push(format!("{prefix}rerun-if-changed={}", checked_path(path)?));
    }
    for warning in &report.warnings {
        lines.push(format!(
            "{prefix}warning={}",
            warning.replace(['\n', '\r'], " ")
        ));
    }
    if UNOPTIMIZED && report.cache_hits < report.assets {
        lines.push(format!("{prefix}warning={UNOPTIMIZED_HINT}"));
    }
    lines.push(format!(
        "{prefix}rustc-env={PACK_ENV}={}",
        checked_path(&absolute(&report.pack_path))?
    ));
    lines.push(format!(
        "{prefix}rustc-env={OUT_ENV}={}",
        checked_path(&absolute(&report.out_dir))?
    ));
    lines.push(format!(
        "{prefix}rustc-env={BAKED_PRESET_ENV}={}",
        baked_preset.replace(['\n', '\r'], "")
    ));
    Ok(())
}

/// The one-line summary `HEARTH_VERBOSE=1` asks for: counts by origin, the assets baked (the
/// first few by name) and the time.
fn summary_line(report: &Report) -> String {
    let shared = report.shared_local_hits.len() + report.shared_remote_hits.len();
    let mut baked: Vec<&str> = report.baked.iter().take(5).map(String::as_str).collect();
    if report.baked.len() > baked.len() {
        baked.push("…");
    }
    let names = match baked.is_empty() {
        true => String::new(),
        false => format!(": {}", baked.join(", ")),
    };
    format!(
        "hearth: {} assets in {:.2?} ({} from the cache, {shared} from the shared cache, {} baked{names}); {} files written",
        report.assets,
        report.elapsed,
        report.cache_hits,
        report.baked.len(),
        report.files_written
    )
    .replace(['\n', '\r'], " ")
}

/// `cargo::` directives need cargo 1.77; older toolchains only read `cargo:`. An unknown
/// rust-version gets the form every cargo reads.
fn supports_double_colon(rust_version: &str) -> bool {
    let mut parts = rust_version
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 77)
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A path cargo can take in a directive: UTF-8 and without newlines.
fn checked_path(path: &Path) -> Result<String, BakeError> {
    match path.to_str() {
        Some(text) if !text.contains(['\n', '\r']) => Ok(text.to_owned()),
        _ => Err(BakeError::Cargo(format!(
            "path {} cannot be passed to cargo (not UTF-8, or a newline)",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directive_syntax_follows_rust_version() {
        assert!(supports_double_colon("1.77"));
        assert!(supports_double_colon("1.89.0"));
        assert!(!supports_double_colon("1.70"));
        assert!(!supports_double_colon(""));
    }
}
