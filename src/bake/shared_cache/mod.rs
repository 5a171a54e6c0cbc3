//! The shared bake cache: content-addressed asset outputs that every checkout on a machine
//! (the local tier) and a whole team and its CI (the remote tier, feature `remote-cache`)
//! share, so an asset one of them baked is never encoded again by another.
//!
//! # Keys: two levels, BLAKE3
//! An asset's outputs depend on its pipeline (name, version), its source path and bytes, the
//! settings tables its bake read and the side files it read; which tables and side files
//! those are is only known after a bake. So:
//!
//! 1. The **recipe key** hashes what is known before a bake: pipeline name and version, the
//!    source's path relative to the content root, whether it is a folder, and every source
//!    file's name and BLAKE3. Its object, the *recipe*, lists the settings tables and side
//!    files (relative to the content root) the last bake of that key read. A recipe is only a
//!    hint: a stale one costs a miss, never a wrong output.
//! 2. The **object key** hashes the recipe key, each listed table's layered value (its
//!    fingerprint, as the incremental cache keys it) and each listed side file's name and
//!    BLAKE3 (or its absence). Its object holds the asset's output files, manifest rows,
//!    references and warnings. Objects are written once.
//!
//! # Objects
//! Both kinds are framed as magic, schema, the key they were stored under, the BLAKE3 of the
//! payload, then the payload (bincode). A reader checks all four before decoding a byte of
//! the payload, then checks every path in it as the incremental cache does: a corrupt,
//! truncated, foreign or hostile object is discarded with a warning naming the cache and the
//! key, the asset is baked locally, and (in read-write mode) the object is replaced.
//!
//! # Tiers and configuration
//! The local tier is a folder: `HEARTH_CACHE_DIR`, else the user cache folder
//! (`$XDG_CACHE_HOME/hearth`, `~/.cache/hearth`; `~/Library/Caches/hearth` on macOS,
//! `%LOCALAPPDATA%\hearth` on Windows). The remote tier is an `object_store` URL
//! (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`) from `HEARTH_CACHE_URL`, else the
//! manifest's `[cache] remote`. `HEARTH_CACHE_MODE` is `read-write` (the default), `read`
//! (the remote is only read: CI consumers) or `off` (no shared cache at all).
//!
//! Nothing here ever fails a bake: an unreachable, slow or refusing remote costs one warning
//! and is not called again for the rest of the bake.

pub mod local;
#[cfg(feature = "remote-cache")]
#[cfg_attr(docsrs, doc(cfg(feature = "remote-cache")))]
pub mod remote;

use crate::bake::pipeline::{Output, Recorded, SideInput, SourceFile, MAX_INPUT_BYTES};
use crate::bake::plan::Job;
use crate::bake::settings;
use crate::format::hman::{AssetKind, ColorSpace};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The local tier's folder (overrides the user cache folder).
pub const ENV_DIR: &str = "HEARTH_CACHE_DIR";
/// The remote tier's URL (overrides the manifest's `[cache] remote`).
pub const ENV_URL: &str = "HEARTH_CACHE_URL";
/// `read-write` | `read` | `off`.
pub const ENV_MODE: &str = "HEARTH_CACHE_MODE";
/// Every variable the shared cache reads (build scripts re-run when one changes).
pub const ENV_VARS: [&str; 3] = [ENV_DIR, ENV_URL, ENV_MODE];

/// Bump when the key derivation or the objects' layout changes: old objects are then never
/// looked up again (their keys differ) and age out of the local tier by `gc`.
const SCHEMA: u32 = 2;
const OBJECT_MAGIC: &[u8; 8] = b"HEARTHO\0";
const RECIPE_MAGIC: &[u8; 8] = b"HEARTHR\0";
/// The most the decoder allocates for one object, whatever lengths a damaged one claims.
const DECODE_LIMIT: usize = u32::MAX as usize;
/// The frame in front of an object's payload: magic, schema, key, payload hash.
const FRAME_BYTES: usize = 8 + 4 + 32 + 32;
/// The largest object the format allows (the frame and a payload the decoder accepts): every
/// tier stops reading there, so a runaway file or response costs an error, not the memory.
pub const MAX_OBJECT_BYTES: u64 = (FRAME_BYTES + DECODE_LIMIT) as u64;
/// Stands for the content root in stored warnings (a path differs from machine to machine).
const ROOT_MARKER: &str = "\u{1}ROOT\u{1}";

/// What the shared cache may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Look up and store (the default).
    #[default]
    ReadWrite,
    /// Look up only: nothing is written to the remote tier (the local tier still fills).
    Read,
    /// No shared cache.
    Off,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "read-write" | "readwrite" | "rw" | "" => Ok(Mode::ReadWrite),
            "read" | "read-only" | "ro" => Ok(Mode::Read),
            "off" | "none" => Ok(Mode::Off),
            other => Err(format!(
                "{ENV_MODE}={other:?}: expected `read-write`, `read` or `off`"
            )),
        }
    }
}

/// Where a bake's shared cache lives and what it may do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedCacheConfig {
    /// The local tier's folder; `None`: no local tier.
    pub local_dir: Option<PathBuf>,
    /// The remote tier's URL; `None`: no remote tier.
    pub remote_url: Option<String>,
    /// Options for the remote store, over what it reads from the environment: the
    /// `object_store` builder's configuration keys (`aws_endpoint`, `aws_region`,
    /// `aws_allow_http`, `google_service_account`, `azure_storage_account_name`, …).
    pub remote_options: Vec<(String, String)>,
    /// Read-write, read or off.
    pub mode: Mode,
}

impl SharedCacheConfig {
    /// The configuration the environment gives, with `manifest_remote` (the manifest's
    /// `[cache] remote`) used when `HEARTH_CACHE_URL` is unset. The error is a bad
    /// `HEARTH_CACHE_MODE`.
    pub fn from_env(manifest_remote: Option<&str>) -> Result<Self, String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mode = match var(ENV_MODE) {
            Some(text) => text.parse()?,
            None => Mode::ReadWrite,
        };
        Ok(Self {
            local_dir: var(ENV_DIR).map(PathBuf::from).or_else(default_local_dir),
            remote_url: var(ENV_URL).or_else(|| manifest_remote.map(str::to_owned)),
            remote_options: Vec::new(),
            mode,
        })
    }
}

/// The user cache folder's `hearth` subfolder, when a home can be found.
pub fn default_local_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let base = if cfg!(windows) {
        var("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library/Caches"))
    } else {
        var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|home| home.join(".cache")))
    };
    base.map(|base| base.join("hearth"))
}

/// A 32-byte BLAKE3 key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// Lowercase hex, as in object names and warnings.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

/// The two kinds of object a tier stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// What a key's last bake read (tables, side files).
    Recipe,
    /// An asset's outputs.
    Object,
}

impl Kind {
    /// The folder (local) or prefix (remote) of this kind.
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Recipe => "recipes",
            Kind::Object => "objects",
        }
    }
    fn magic(self) -> &'static [u8; 8] {
        match self {
            Kind::Recipe => RECIPE_MAGIC,
            Kind::Object => OBJECT_MAGIC,
        }
    }
}

/// A place objects are kept: the local folder or a remote store.
pub trait Tier: Send + Sync {
    /// The tier's name in warnings (`local cache /home/me/.cache/hearth`).
    fn describe(&self) -> String;
    /// The stored bytes of `key`, `None` when there are none. Errors are the tier's failures
    /// (I/O, network), not a missing object.
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Vec<u8>>, String>;
    /// Stores `bytes` under `key`. `replace`: overwrite what is there (a recipe, or an object
    /// found corrupt); else write once, an existing object being success.
    fn put(&self, kind: Kind, key: &Key, bytes: &[u8], replace: bool) -> Result<(), String>;
}

/// What the last bake of a recipe key read besides its sources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Recipe {
    /// Settings tables read, sorted.
    pub tables: Vec<String>,
    /// Side files read (or looked for), relative to the content root, `/`-separated, sorted.
    pub side_inputs: Vec<String>,
}

/// One output file of a stored asset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredOutput {
    pub path: String,
    pub kind: u8,
    pub color_space: u8,
    pub bytes: Vec<u8>,
    /// Sub-asset names ([`Output::sub_assets`]).
    pub sub_assets: Vec<String>,
}

/// Everything a bake of one asset produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredAsset {
    /// Pipeline name and version (also in the key: a check, and for `hearth cache` tools).
    pub pipeline: (String, u32),
    pub recipe: Recipe,
    pub outputs: Vec<StoredOutput>,
    /// (ref as written, hash)
    pub references: Vec<(String, u64)>,
    /// With the content root replaced by a marker.
    pub warnings: Vec<String>,
}

/// Frames a payload: magic, schema, key, BLAKE3 of the payload, payload.
pub(crate) fn encode<T: Serialize>(kind: Kind, key: &Key, value: &T) -> Vec<u8> {
    let payload =
        bincode::serde::encode_to_vec(value, bincode::config::standard()).expect("in-memory");
    let mut out = Vec::with_capacity(payload.len() + FRAME_BYTES);
    out.extend_from_slice(kind.magic());
    out.extend_from_slice(&SCHEMA.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(blake3::hash(&payload).as_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Checks a frame against `key` and decodes it; the error says what was wrong.
pub(crate) fn decode<T: DeserializeOwned>(
    kind: Kind,
    key: &Key,
    bytes: &[u8],
) -> Result<T, String> {
    let rest = bytes
        .strip_prefix(kind.magic().as_slice())
        .ok_or("not a hearth cache object")?;
    if rest.len() < 68 {
        return Err("truncated".into());
    }
    let schema = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes"));
    if schema != SCHEMA {
        return Err(format!("schema {schema}, expected {SCHEMA}"));
    }
    if rest[4..36] != key.0 {
        return Err("stored under another key".into());
    }
    let payload = &rest[68..];
    if blake3::hash(payload).as_bytes()[..] != rest[36..68] {
        return Err("content hash mismatch".into());
    }
    let config = bincode::config::standard().with_limit::<DECODE_LIMIT>();
    let (value, used): (T, usize) =
        bincode::serde::decode_from_slice(payload, config).map_err(|e| e.to_string())?;
    if used != payload.len() {
        return Err("trailing bytes".into());
    }
    Ok(value)
}

/// A side input's name relative to the content root: plain, `/`-separated components.
pub(crate) fn check_side_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name.starts_with('/')
        || name.contains(['\\', '\0'])
        || name
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..");
    match bad {
        true => Err(format!("invalid side input {name:?}")),
        false => Ok(()),
    }
}

impl Recipe {
    fn check(&self) -> Result<(), String> {
        self.side_inputs
            .iter()
            .try_for_each(|name| check_side_name(name))?;
        if !self.side_inputs.windows(2).all(|w| w[0] < w[1])
            || !self.tables.windows(2).all(|w| w[0] < w[1])
        {
            return Err("recipe out of order".into());
        }
        Ok(())
    }
}

impl StoredAsset {
    /// Every path must be one a bake could have emitted (as the incremental cache checks).
    fn check(&self, pipeline: (&str, u32)) -> Result<(), String> {
        if (self.pipeline.0.as_str(), self.pipeline.1) != pipeline {
            return Err(format!(
                "made by pipeline `{}` v{}",
                self.pipeline.0, self.pipeline.1
            ));
        }
        self.recipe.check()?;
        let mut seen = std::collections::BTreeSet::new();
        for output in &self.outputs {
            crate::bake::pipeline::check_output_path(&output.path)?;
            if !seen.insert(output.path.as_str()) {
                return Err(format!("output {:?} twice", output.path));
            }
        }
        if let Some((reference, _)) = (self.references.iter())
            .find(|(reference, hash)| crate::format::hash::hash_asset_ref(reference) != *hash)
        {
            return Err(format!("wrong hash for reference {reference:?}"));
        }
        Ok(())
    }
}

/// The recipe key of an asset: what is known before baking it.
pub(crate) fn recipe_key(
    pipeline: (&str, u32),
    rel: &str,
    folder: bool,
    sources: &[(&str, &[u8])],
) -> Key {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"hearth shared cache: recipe key\0");
    hasher.update(&SCHEMA.to_le_bytes());
    feed_str(&mut hasher, pipeline.0);
    hasher.update(&pipeline.1.to_le_bytes());
    feed_str(&mut hasher, rel);
    hasher.update(&[folder as u8]);
    hasher.update(&(sources.len() as u64).to_le_bytes());
    for (name, bytes) in sources {
        feed_str(&mut hasher, name);
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(blake3::hash(bytes).as_bytes());
    }
    Key(*hasher.finalize().as_bytes())
}

/// The object key: the recipe key, each read table's fingerprint, each side file's content.
pub(crate) fn object_key(
    recipe_key: &Key,
    tables: &[(&str, u64)],
    side_inputs: &[(&str, Option<blake3::Hash>)],
) -> Key {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"hearth shared cache: object key\0");
    hasher.update(&recipe_key.0);
    hasher.update(&(tables.len() as u64).to_le_bytes());
    for (name, fingerprint) in tables {
        feed_str(&mut hasher, name);
        hasher.update(&fingerprint.to_le_bytes());
    }
    hasher.update(&(side_inputs.len() as u64).to_le_bytes());
    for (name, hash) in side_inputs {
        feed_str(&mut hasher, name);
        match hash {
            Some(hash) => {
                hasher.update(&[1]);
                hasher.update(hash.as_bytes());
            }
            None => {
                hasher.update(&[2]);
            }
        }
    }
    Key(*hasher.finalize().as_bytes())
}

fn feed_str(hasher: &mut blake3::Hasher, text: &str) {
    hasher.update(&(text.len() as u64).to_le_bytes());
    hasher.update(text.as_bytes());
}

/// A stored warning: the content root replaced by a marker.
pub(crate) fn portable_warning(root: &Path, warning: &str) -> String {
    match root.as_os_str().is_empty() {
        true => warning.to_owned(),
        false => warning.replace(&*root.to_string_lossy(), ROOT_MARKER),
    }
}

/// A stored warning for this machine.
pub(crate) fn local_warning(root: &Path, warning: &str) -> String {
    warning.replace(ROOT_MARKER, &root.to_string_lossy())
}

/// Which tier an asset came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierKind {
    /// The machine's folder.
    Local,
    /// The remote store.
    Remote,
}

/// The tiers of one bake, and what happened to them.
pub(crate) struct SharedCache {
    local: Option<Box<dyn Tier>>,
    remote: Option<Box<dyn Tier>>,
    remote_writes: bool,
    /// Set at the first remote failure: no more remote calls this bake.
    remote_failed: AtomicBool,
    /// Bake-level warnings (a failed remote), drained by the baker.
    notes: Mutex<Vec<String>>,
    /// The first failed write to the local tier (a shard whose only tier is local fails).
    local_write_failed: Mutex<Option<String>>,
    pub stored: AtomicUsize,
}

/// One asset's answer from the shared cache.
pub(crate) struct Hit {
    pub asset: StoredAsset,
    pub tier: TierKind,
}

impl SharedCache {
    /// Opens the tiers `config` names. Problems (an unusable folder or URL) are warnings and
    /// leave that tier out.
    pub fn open(config: &SharedCacheConfig) -> (Option<SharedCache>, Vec<String>) {
        let mut warnings = Vec::new();
        if config.mode == Mode::Off {
            return (None, warnings);
        }
        let local = config
            .local_dir
            .as_ref()
            .and_then(|dir| match local::LocalTier::open(dir) {
                Ok(tier) => Some(Box::new(tier) as Box<dyn Tier>),
                Err(e) => {
                    warnings.push(format!(
                        "local cache {}: unusable ({e}); baking without it",
                        dir.display()
                    ));
                    None
                }
            });
        let remote = config.remote_url.as_ref().and_then(|url| {
            match open_remote(url, &config.remote_options) {
                Ok(tier) => Some(tier),
                Err(e) => {
                    warnings.push(format!(
                        "remote cache {url}: unusable ({e}); baking without it"
                    ));
                    None
                }
            }
        });
        if local.is_none() && remote.is_none() {
            return (None, warnings);
        }
        let cache = SharedCache {
            local,
            remote,
            remote_writes: config.mode == Mode::ReadWrite,
            remote_failed: AtomicBool::new(false),
            notes: Mutex::new(Vec::new()),
            local_write_failed: Mutex::new(None),
            stored: AtomicUsize::new(0),
        };
        (Some(cache), warnings)
    }

    /// Asks the remote tier for an object no bake stores: `Err` names the tier and says why
    /// when it cannot be reached (a shard fails then, before baking anything).
    pub fn probe(&self) -> Result<(), String> {
        match &self.remote {
            Some(remote) => match remote.get(Kind::Recipe, &Key([0; 32])) {
                Ok(_) => Ok(()),
                Err(error) => Err(format!("{}: {error}", remote.describe())),
            },
            None => Ok(()),
        }
    }

    /// Why what this bake baked may not be in the cache: the remote tier failed, or with no
    /// remote tier a write to the local one did. `None` when every store went through.
    pub fn failure(&self) -> Option<String> {
        if let (Some(remote), true) = (&self.remote, self.remote_failed.load(Ordering::Relaxed)) {
            return Some(format!("{} failed during the bake", remote.describe()));
        }
        match self.remote {
            Some(_) => None,
            None => self.local_write_failed.lock().expect("failure").clone(),
        }
    }

    /// Bake-level warnings so far.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().expect("notes"))
    }

    fn remote(&self) -> Option<&dyn Tier> {
        match self.remote_failed.load(Ordering::Relaxed) {
            true => None,
            false => self.remote.as_deref(),
        }
    }

    /// A remote failure: one warning for the bake, and the remote is left alone after it.
    fn remote_failure(&self, tier: &dyn Tier, error: &str) {
        if !self.remote_failed.swap(true, Ordering::Relaxed) {
            self.notes.lock().expect("notes").push(format!(
                "{}: {error}; not used for the rest of this bake (assets are baked locally)",
                tier.describe()
            ));
        }
    }

    /// Reads `key` from one tier: `Ok(None)` when absent, `Err(warning)` when damaged. A
    /// tier failure counts as absent (and, for the remote, ends its use).
    fn read<T: DeserializeOwned>(
        &self,
        tier: &dyn Tier,
        remote: bool,
        kind: Kind,
        key: &Key,
        check: impl Fn(&T) -> Result<(), String>,
    ) -> Result<Option<T>, String> {
        let bytes = match tier.get(kind, key) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(error) => {
                if remote {
                    self.remote_failure(tier, &error);
                }
                return Ok(None);
            }
        };
        decode(kind, key, &bytes)
            .and_then(|value| check(&value).map(|()| value))
            .map(Some)
            .map_err(|why| {
                format!(
                    "{}: {} {key} discarded ({why}); baking it again",
                    tier.describe(),
                    match kind {
                        Kind::Recipe => "recipe",
                        Kind::Object => "object",
                    }
                )
            })
    }

    fn write(
        &self,
        tier: &dyn Tier,
        remote: bool,
        kind: Kind,
        key: &Key,
        bytes: &[u8],
        replace: bool,
    ) {
        if remote && !self.remote_writes {
            return;
        }
        if let Err(error) = tier.put(kind, key, bytes, replace) {
            if remote {
                self.remote_failure(tier, &error);
            } else {
                // A full or read-only local folder only costs the hit next time (but fails a
                // shard that stores nowhere else).
                let mut first = self.local_write_failed.lock().expect("failure");
                first.get_or_insert_with(|| format!("{}: {error}", tier.describe()));
            }
        }
    }

    /// The tiers to try, in order: local first.
    fn tiers(&self) -> Vec<(&dyn Tier, bool)> {
        let mut tiers = Vec::new();
        if let Some(local) = &self.local {
            tiers.push((&**local, false));
        }
        if let Some(remote) = self.remote() {
            tiers.push((remote, true));
        }
        tiers
    }

    /// Looks an asset up: its recipe, then (with the side files' and tables' hashes that
    /// `key_for` computes from the recipe) its object. Damaged objects add a warning to
    /// `warnings` and are remembered in `damaged` so that the store replaces them.
    pub fn lookup(
        &self,
        recipe_key: &Key,
        pipeline: (&str, u32),
        key_for: &mut dyn FnMut(&Recipe) -> Option<Key>,
        warnings: &mut Vec<String>,
        damaged: &mut Vec<(TierKind, Kind)>,
    ) -> Option<Hit> {
        for (tier, remote) in self.tiers() {
            if remote && self.remote().is_none() {
                continue;
            }
            let tier_kind = if remote {
                TierKind::Remote
            } else {
                TierKind::Local
            };
            let recipe: Recipe =
                match self.read(tier, remote, Kind::Recipe, recipe_key, Recipe::check) {
                    Ok(Some(recipe)) => recipe,
                    Ok(None) => continue,
                    Err(warning) => {
                        warnings.push(warning);
                        damaged.push((tier_kind, Kind::Recipe));
                        continue;
                    }
                };
            let Some(key) = key_for(&recipe) else {
                continue;
            };
            if remote && self.remote().is_none() {
                continue;
            }
            let check = |asset: &StoredAsset| {
                asset.check(pipeline)?;
                match asset.recipe == recipe {
                    true => Ok(()),
                    false => Err("recipe differs from its key's".to_owned()),
                }
            };
            match self.read(tier, remote, Kind::Object, &key, check) {
                Ok(Some(asset)) => {
                    if remote {
                        // Fill the local tier so the next checkout on this machine needs no
                        // network.
                        if let Some(local) = &self.local {
                            self.write(
                                &**local,
                                false,
                                Kind::Recipe,
                                recipe_key,
                                &encode(Kind::Recipe, recipe_key, &recipe),
                                true,
                            );
                            self.write(
                                &**local,
                                false,
                                Kind::Object,
                                &key,
                                &encode(Kind::Object, &key, &asset),
                                true,
                            );
                        }
                    }
                    return Some(Hit {
                        asset,
                        tier: tier_kind,
                    });
                }
                Ok(None) => {}
                Err(warning) => {
                    warnings.push(warning);
                    damaged.push((tier_kind, Kind::Object));
                }
            }
        }
        None
    }

    /// Stores a freshly baked asset in every tier that lacks it (and replaces what `damaged`
    /// found broken).
    pub fn store(
        &self,
        recipe_key: &Key,
        key: &Key,
        asset: &StoredAsset,
        damaged: &[(TierKind, Kind)],
    ) {
        let recipe_bytes = encode(Kind::Recipe, recipe_key, &asset.recipe);
        let object_bytes = encode(Kind::Object, key, asset);
        for (tier, remote) in self.tiers() {
            let tier_kind = if remote {
                TierKind::Remote
            } else {
                TierKind::Local
            };
            let replace_object = damaged.contains(&(tier_kind, Kind::Object));
            // The recipe is a hint, replaced by the latest bake; the object is written once.
            self.write(tier, remote, Kind::Recipe, recipe_key, &recipe_bytes, true);
            self.write(
                tier,
                remote,
                Kind::Object,
                key,
                &object_bytes,
                replace_object,
            );
        }
        self.stored.fetch_add(1, Ordering::Relaxed);
        // Tests kill a shard here, between whole objects.
        let _ = crate::bake::fault::point("shared_cache::stored");
    }
}

/// One asset's dealings with the shared cache during a bake: the lookup before its pipeline
/// runs, the store after.
pub(crate) struct AssetEntry<'a> {
    cache: &'a SharedCache,
    lookups: bool,
    recipe_key: Key,
    pipeline: (&'a str, u32),
    tables: &'a toml::Table,
    /// The content root, canonical.
    root: &'a Path,
    /// The content root as the manifest's path gave it (sources' paths in warnings start so).
    display_root: PathBuf,
    /// (tier, kind) found damaged: replaced by the store.
    damaged: Vec<(TierKind, Kind)>,
    /// Warnings about damaged objects, for the asset.
    pub warnings: Vec<String>,
}

impl<'a> AssetEntry<'a> {
    /// `lookups` false: only store (a bake with the cache off still fills the shared cache).
    pub fn new(
        cache: &'a SharedCache,
        lookups: bool,
        pipeline: (&'a str, u32),
        job: &'a Job,
        files: &[SourceFile],
        root: &'a Path,
    ) -> Self {
        let mut display_root = job.source.clone();
        for _ in job.rel.split('/') {
            display_root.pop();
        }
        // A relative root (`.`, `assets`) is left alone in warnings: as text it could be part
        // of anything, and relative paths travel as they are.
        if !display_root.is_absolute() {
            display_root = root.to_path_buf();
        }
        let sources: Vec<(&str, &[u8])> = files
            .iter()
            .map(|f| (f.name(), f.bytes.as_slice()))
            .collect();
        Self {
            cache,
            lookups,
            recipe_key: recipe_key(pipeline, &job.rel, job.folder, &sources),
            pipeline,
            tables: &job.settings.tables,
            root,
            display_root,
            damaged: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The side file `name` of a recipe, if it is a regular file inside the content root (or
    /// missing): its path and bytes.
    fn side_file(&self, name: &str) -> Result<(PathBuf, Option<Vec<u8>>), ()> {
        let path = self.root.join(name);
        match path.canonicalize() {
            Ok(real) if !real.starts_with(self.root) => Err(()),
            Ok(_) => match std::fs::metadata(&path) {
                Ok(meta) if !meta.is_file() || meta.len() > MAX_INPUT_BYTES => Err(()),
                _ => Ok((path.clone(), std::fs::read(&path).ok())),
            },
            Err(_) => Ok((path, None)),
        }
    }

    /// The outputs, references, tables and side inputs of the asset, as its pipeline would
    /// have recorded them, when a tier has them.
    pub fn lookup(&mut self) -> Option<(Recorded, TierKind)> {
        if !self.lookups {
            return None;
        }
        let mut side_inputs = Vec::new();
        let mut key_for = |recipe: &Recipe| {
            side_inputs.clear();
            let mut hashes = Vec::with_capacity(recipe.side_inputs.len());
            for name in &recipe.side_inputs {
                let (path, bytes) = self.side_file(name).ok()?;
                hashes.push((name.as_str(), bytes.as_deref().map(blake3::hash)));
                let digest = bytes
                    .as_deref()
                    .map(|b| (xxhash_rust::xxh3::xxh3_64(b), b.len() as u64));
                side_inputs.push(SideInput { path, digest });
            }
            let tables: Vec<(&str, u64)> = recipe
                .tables
                .iter()
                .map(|t| (t.as_str(), settings::fingerprint(self.tables.get(t))))
                .collect();
            Some(object_key(&self.recipe_key, &tables, &hashes))
        };
        let mut warnings = Vec::new();
        let mut damaged = Vec::new();
        let hit = self.cache.lookup(
            &self.recipe_key,
            self.pipeline,
            &mut key_for,
            &mut warnings,
            &mut damaged,
        );
        self.warnings.extend(warnings);
        self.damaged.extend(damaged);
        let Hit { asset, tier } = hit?;
        let recorded = Recorded {
            outputs: asset
                .outputs
                .into_iter()
                .map(|o| Output {
                    path: o.path,
                    kind: AssetKind(o.kind),
                    color_space: match o.color_space {
                        1 => ColorSpace::Srgb,
                        _ => ColorSpace::Linear,
                    },
                    bytes: o.bytes,
                    sub_assets: o.sub_assets,
                })
                .collect(),
            side_inputs,
            references: asset.references,
            tables: asset
                .recipe
                .tables
                .iter()
                .map(|t| (t.clone(), settings::fingerprint(self.tables.get(t))))
                .collect(),
            warnings: (asset.warnings.iter())
                .map(|w| local_warning(&self.display_root, w))
                .chain(self.warnings.iter().cloned())
                .collect(),
            refused: Vec::new(),
        };
        Some((recorded, tier))
    }

    /// What a fresh bake recorded, as a stored asset under its object key; `None` when it
    /// cannot be shared (a side file changed since the bake read it, or lies outside the
    /// content root).
    pub fn stored_asset(&self, recorded: &Recorded) -> Option<(Key, StoredAsset)> {
        let mut sides: Vec<(String, Option<blake3::Hash>)> = Vec::new();
        for side in &recorded.side_inputs {
            let name = side.path.strip_prefix(self.root).ok()?.to_str()?;
            let name = name.replace(std::path::MAIN_SEPARATOR, "/");
            check_side_name(&name).ok()?;
            if sides.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let (_, bytes) = self.side_file(&name).ok()?;
            let digest = bytes
                .as_deref()
                .map(|b| (xxhash_rust::xxh3::xxh3_64(b), b.len() as u64));
            if digest != side.digest {
                return None;
            }
            sides.push((name, bytes.as_deref().map(blake3::hash)));
        }
        sides.sort_by(|a, b| a.0.cmp(&b.0));
        let mut tables: Vec<String> = recorded.tables.iter().map(|t| t.0.clone()).collect();
        tables.sort();
        tables.dedup();
        let fingerprints: Vec<(&str, u64)> = tables
            .iter()
            .map(|t| (t.as_str(), settings::fingerprint(self.tables.get(t))))
            .collect();
        let hashes: Vec<(&str, Option<blake3::Hash>)> =
            sides.iter().map(|(n, h)| (n.as_str(), *h)).collect();
        let key = object_key(&self.recipe_key, &fingerprints, &hashes);
        let mut references = recorded.references.clone();
        references.sort();
        references.dedup();
        let asset = StoredAsset {
            pipeline: (self.pipeline.0.to_owned(), self.pipeline.1),
            recipe: Recipe {
                tables,
                side_inputs: sides.into_iter().map(|(n, _)| n).collect(),
            },
            outputs: (recorded.outputs.iter())
                .map(|o| StoredOutput {
                    path: o.path.clone(),
                    kind: o.kind.0,
                    color_space: o.color_space as u8,
                    bytes: o.bytes.clone(),
                    sub_assets: o.sub_assets.clone(),
                })
                .collect(),
            references,
            warnings: (recorded.warnings.iter())
                .map(|w| portable_warning(&self.display_root, &portable_warning(self.root, w)))
                .collect(),
        };
        Some((key, asset))
    }

    /// Stores what [`stored_asset`](Self::stored_asset) made.
    pub fn store(&self, (key, asset): (Key, StoredAsset)) {
        self.cache
            .store(&self.recipe_key, &key, &asset, &self.damaged);
    }
}

#[cfg(feature = "remote-cache")]
fn open_remote(url: &str, options: &[(String, String)]) -> Result<Box<dyn Tier>, String> {
    remote::RemoteTier::open(url, options).map(|tier| Box::new(tier) as Box<dyn Tier>)
}

#[cfg(not(feature = "remote-cache"))]
fn open_remote(_url: &str, _options: &[(String, String)]) -> Result<Box<dyn Tier>, String> {
    Err("this hearth was built without the `remote-cache` feature".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StoredAsset {
        StoredAsset {
            pipeline: ("blob".into(), 1),
            recipe: Recipe {
                tables: vec!["blob".into()],
                side_inputs: vec!["a/side.bin".into()],
            },
            outputs: vec![StoredOutput {
                path: "a.bin".into(),
                kind: 5,
                color_space: 0,
                bytes: b"hello".to_vec(),
                sub_assets: vec![],
            }],
            references: vec![],
            warnings: vec![format!("{ROOT_MARKER}/a.bin: odd")],
        }
    }

    #[test]
    fn objects_round_trip_and_every_damage_is_caught() {
        let key = Key([7; 32]);
        let bytes = encode(Kind::Object, &key, &sample());
        let back: StoredAsset = decode(Kind::Object, &key, &bytes).unwrap();
        assert_eq!(back, sample());
        assert!(decode::<StoredAsset>(Kind::Object, &Key([8; 32]), &bytes)
            .unwrap_err()
            .contains("another key"));
        assert!(decode::<Recipe>(Kind::Recipe, &key, &bytes).is_err());
        for len in 0..bytes.len() {
            assert!(decode::<StoredAsset>(Kind::Object, &key, &bytes[..len]).is_err());
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert!(
                decode::<StoredAsset>(Kind::Object, &key, &flipped).is_err(),
                "{at}"
            );
        }
    }

    #[test]
    fn hostile_paths_are_refused() {
        let mut asset = sample();
        assert!(asset.check(("blob", 1)).is_ok());
        assert!(asset.check(("blob", 2)).is_err());
        asset.outputs[0].path = "../x".into();
        assert!(asset.check(("blob", 1)).is_err());
        let mut asset = sample();
        asset.recipe.side_inputs = vec!["../../etc/passwd".into()];
        assert!(asset.check(("blob", 1)).is_err());
    }

    #[test]
    fn keys_depend_on_every_input() {
        let base = recipe_key(("blob", 1), "a.bin", false, &[("a.bin", b"x")]);
        assert_eq!(
            base,
            recipe_key(("blob", 1), "a.bin", false, &[("a.bin", b"x")])
        );
        for other in [
            recipe_key(("blob", 2), "a.bin", false, &[("a.bin", b"x")]),
            recipe_key(("blob2", 1), "a.bin", false, &[("a.bin", b"x")]),
            recipe_key(("blob", 1), "b.bin", false, &[("a.bin", b"x")]),
            recipe_key(("blob", 1), "a.bin", true, &[("a.bin", b"x")]),
            recipe_key(("blob", 1), "a.bin", false, &[("a.bin", b"y")]),
        ] {
            assert_ne!(base, other);
        }
        let object = object_key(&base, &[("blob", 1)], &[("s", None)]);
        assert_ne!(object, object_key(&base, &[("blob", 2)], &[("s", None)]));
        assert_ne!(
            object,
            object_key(&base, &[("blob", 1)], &[("s", Some(blake3::hash(b"")))])
        );
        assert_ne!(object, object_key(&base, &[("blob", 1)], &[]));
    }

    #[test]
    fn warnings_travel_without_the_machines_paths() {
        let root = Path::new("/home/a/game/assets");
        let stored = portable_warning(root, "/home/a/game/assets/x.png: too big");
        assert!(!stored.contains("/home/a"));
        assert_eq!(
            local_warning(Path::new("/ci/w/assets"), &stored),
            "/ci/w/assets/x.png: too big"
        );
    }
}
