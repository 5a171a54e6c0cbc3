//! The incremental cache (`<out>/.hearth-cache`): bincode 2, behind a magic and a schema
//! version. An asset is re-baked only when its pipeline's name or version, one of the
//! settings tables its bake read, its source bytes or the bytes of a side file its bake read
//! changed, or one of its outputs went missing. Sizes + mtimes of the sources and recorded
//! side inputs are compared first; only when they differ are the bytes hashed. A no-op
//! re-bake therefore stats files and opens none.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::path::Path;

const MAGIC: &[u8; 8] = b"HEARTHC\0";
/// Bump when the cache's layout changes: old files are then discarded.
const SCHEMA: u32 = 8;
/// The most the decoder allocates for one cache, whatever lengths a damaged file claims.
const DECODE_LIMIT: usize = 1 << 30;
/// The largest cache file the format allows: magic, schema, the payload the decoder accepts,
/// its checksum. A longer file is refused before it is read whole.
const MAX_FILE_BYTES: u64 = (MAGIC.len() + 4 + DECODE_LIMIT + 8) as u64;
/// File name of the cache inside the output folder.
pub const FILE_NAME: &str = ".hearth-cache";

/// One output file of a cached asset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CachedOutput {
    /// Runtime path.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// xxh3-64 of the bytes.
    pub hash: u64,
    /// Manifest row: (asset hash, kind, color space).
    pub manifest: Option<(u64, u8, u8)>,
    /// Sub-asset names, by index (`assets.hnames`).
    pub sub_assets: Vec<String>,
}

/// What the cache remembers of one source asset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CachedAsset {
    /// Source path relative to the content root.
    pub rel: String,
    /// Total size of the sources and recorded side inputs.
    pub source_size: u64,
    /// Digest of every input's path, size and mtime (the fast-path check).
    pub source_stamp: u64,
    /// Digest of every input's name and bytes.
    pub source_hash: u64,
    /// Every settings table the bake read, with the fingerprint of its layered value, sorted.
    pub settings: Vec<(String, u64)>,
    /// Pipeline name and version.
    pub encoder: (String, u32),
    /// Side files the bake read (or tried to), sorted: inputs besides the sources.
    pub side_inputs: Vec<std::path::PathBuf>,
    /// References to other assets: (ref as written, hash).
    pub references: Vec<(String, u64)>,
    /// Output files.
    pub outputs: Vec<CachedOutput>,
}

/// The last pack written, to skip rewriting an identical one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CachedPack {
    /// Digest of everything that determines the pack's bytes.
    pub fingerprint: u64,
    /// Its size.
    pub size: u64,
    /// Its file name in the output folder (`content.name` + `.hpack`): a bake that names its
    /// pack otherwise removes this one, as it removes any previous output.
    pub file: String,
    /// Its version (2 to 5): entries are copied out of it only into a pack of the same.
    pub version: u32,
    /// Per entry, sorted: (hash of its runtime path, [`entry_key`](crate::bake::pack::entry_key)
    /// of what made its stored bytes). A re-bake copies an entry whose key is unchanged as it
    /// is stored, instead of compressing it again.
    pub entries: Vec<(u64, u64)>,
}

/// The whole cache file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct Cache {
    /// Assets, sorted by `rel`.
    pub assets: Vec<CachedAsset>,
    /// The last pack.
    pub pack: Option<CachedPack>,
    /// xxh3-64 of the `assets.hman` written with these assets.
    pub manifest_hash: Option<u64>,
    /// xxh3-64 of the `assets.hnames` written with these assets.
    pub names_hash: Option<u64>,
    /// Digest of what `assets.hnames` is built from besides the assets (`[content.names]`):
    /// with the same assets and this, the name table on disk is this bake's.
    pub names_input: Option<u64>,
}

impl Cache {
    /// Loads the cache in `dir`. A missing file is an empty cache; a corrupt, truncated or
    /// foreign one is discarded with the returned warning, never trusted; so is a link, a FIFO
    /// or a device planted in its place (never followed, waited on or read).
    pub fn load(dir: &Path) -> (Cache, Option<String>) {
        let path = dir.join(FILE_NAME);
        let bytes = match crate::read::regular_file::read_regular(&path, MAX_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Cache::default(), None),
            Err(e) => {
                return (
                    Cache::default(),
                    Some(format!(
                        "{}: cache unreadable ({e}); rebuilding",
                        path.display()
                    )),
                )
            }
        };
        match Self::decode(&bytes) {
            Ok(cache) => (cache, None),
            Err(why) => (
                Cache::default(),
                Some(format!(
                    "{}: cache discarded ({why}); rebuilding",
                    path.display()
                )),
            ),
        }
    }

    fn decode(bytes: &[u8]) -> Result<Cache, String> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or("not a hearth cache")?;
        let schema = rest.get(..4).ok_or("truncated")?;
        let schema = u32::from_le_bytes([schema[0], schema[1], schema[2], schema[3]]);
        if schema != SCHEMA {
            return Err(format!("schema {schema}, expected {SCHEMA}"));
        }
        // Payload, then its xxh3-64: any damage is caught before a byte of it is trusted.
        let body = &rest[4..];
        let split = body.len().checked_sub(8).ok_or("truncated")?;
        let (payload, checksum) = body.split_at(split);
        let mut expected = [0u8; 8];
        expected.copy_from_slice(checksum);
        if xxhash_rust::xxh3::xxh3_64(payload) != u64::from_le_bytes(expected) {
            return Err("checksum mismatch".into());
        }
        let config = bincode::config::standard().with_limit::<DECODE_LIMIT>();
        // bincode's own derives, not serde's visitors: the same bytes (a test checks), an
        // eighth less work to decode 10k records.
        let (cache, used): (Cache, usize) =
            bincode::decode_from_slice(payload, config).map_err(|e| e.to_string())?;
        if used != payload.len() {
            return Err("trailing bytes".into());
        }
        if !cache.assets.windows(2).all(|w| w[0].rel < w[1].rel) {
            return Err("assets out of order".into());
        }
        for asset in &cache.assets {
            cache_paths_are_valid(asset)?;
        }
        if let Some(pack) = &cache.pack {
            pack_file_is_valid(&pack.file)?;
        }
        Ok(cache)
    }

    /// Serializes the cache (deterministic: same cache, same bytes), followed by the
    /// payload's xxh3-64.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&SCHEMA.to_le_bytes());
        let payload =
            bincode::encode_to_vec(self, bincode::config::standard()).expect("in-memory encode");
        out.extend_from_slice(&payload);
        out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
        out
    }

    /// The cached record of source `rel`, looked for at `hint` first: the plan's jobs and the
    /// cache are both sorted by path, so job `i` of an unchanged plan is record `i` (a binary
    /// search per job was a twentieth of a no-op re-bake).
    pub fn get_near(&self, rel: &str, hint: usize) -> Option<&CachedAsset> {
        match self.assets.get(hint) {
            Some(asset) if asset.rel == rel => Some(asset),
            _ => self.get(rel),
        }
    }

    /// The cached record of source `rel`.
    pub fn get(&self, rel: &str) -> Option<&CachedAsset> {
        self.assets
            .binary_search_by(|a| a.rel.as_str().cmp(rel))
            .ok()
            .map(|i| &self.assets[i])
    }
}

/// A cache is only data: every path in it must be one hearth could have written, or it is
/// discarded (a tampered cache must not make a bake delete or read outside its folders).
fn cache_paths_are_valid(asset: &CachedAsset) -> Result<(), String> {
    let rel = &asset.rel;
    let bad_rel = rel.is_empty()
        || rel.starts_with('/')
        || rel.contains(['\\', '\0'])
        || rel
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..");
    if bad_rel {
        return Err(format!("invalid source path {rel:?}"));
    }
    for output in &asset.outputs {
        crate::bake::pipeline::check_output_path(&output.path)?;
        if let Some((hash, _, _)) = output.manifest {
            if hash != crate::format::hash::hash_runtime_path(&output.path) {
                return Err(format!("wrong hash for {:?}", output.path));
            }
        }
    }
    if let Some(side) = asset.side_inputs.iter().find(|p| !p.is_absolute()) {
        return Err(format!("relative side input {}", side.display()));
    }
    Ok(())
}

/// A recorded pack is a plain `.hpack` file at the top of the output folder, or the cache is
/// discarded: the next bake may delete it.
fn pack_file_is_valid(file: &str) -> Result<(), String> {
    let plain = !file.contains('/')
        && file.len() > ".hpack".len()
        && file.ends_with(".hpack")
        && crate::bake::pipeline::check_output_path(file).is_ok();
    match plain {
        true => Ok(()),
        false => Err(format!("invalid pack file name {file:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Cache {
        Cache {
            assets: vec![CachedAsset {
                rel: "a.bin".into(),
                source_size: 3,
                source_stamp: 12345,
                source_hash: 99,
                settings: vec![("texture".into(), 7)],
                encoder: ("blob".into(), 1),
                side_inputs: vec!["/content/a.side".into()],
                references: vec![("b".into(), 3)],
                outputs: vec![CachedOutput {
                    path: "a.bin".into(),
                    size: 3,
                    hash: 5,
                    manifest: Some((crate::format::hash::hash_runtime_path("a.bin"), 5, 0)),
                    sub_assets: vec!["x".into()],
                }],
            }],
            pack: Some(CachedPack {
                fingerprint: 4,
                size: 128,
                file: "game.hpack".into(),
                version: 4,
                entries: vec![(9, 10)],
            }),
            manifest_hash: Some(6),
            names_hash: Some(7),
            names_input: Some(8),
        }
    }

    /// The cache is written and read with bincode's own derives; the files of schema 6 were
    /// written through serde. The bytes are the same, so those files still read.
    #[test]
    fn own_encoding_is_the_serde_encodings_bytes() {
        let mut cache = sample();
        cache.assets.push(CachedAsset {
            rel: "z/é.glb".into(),
            side_inputs: Vec::new(),
            outputs: Vec::new(),
            ..cache.assets[0].clone()
        });
        cache.pack = None;
        let config = bincode::config::standard();
        let own = bincode::encode_to_vec(&cache, config).unwrap();
        assert_eq!(own, bincode::serde::encode_to_vec(&cache, config).unwrap());
        let (back, _): (Cache, usize) = bincode::serde::decode_from_slice(&own, config).unwrap();
        assert_eq!(back, cache);
    }

    /// Re-encodes a tampered cache with a valid checksum: only validation can refuse it.
    fn tampered(edit: impl FnOnce(&mut Cache)) -> Result<Cache, String> {
        let mut cache = sample();
        edit(&mut cache);
        Cache::decode(&cache.encode())
    }

    #[test]
    fn paths_a_bake_could_not_have_written_are_refused() {
        assert!(tampered(|_| {}).is_ok());
        for path in ["../x", "/etc/passwd", "a/../../x", ".hearth-cache", ""] {
            let err = tampered(|c| c.assets[0].outputs[0].path = path.into()).unwrap_err();
            assert!(err.contains("output path"), "{path}: {err}");
        }
        assert!(tampered(|c| c.assets[0].rel = "../src.png".into()).is_err());
        assert!(tampered(|c| c.assets[0].side_inputs[0] = "rel/side".into()).is_err());
        let err = tampered(|c| c.assets[0].outputs[0].manifest = Some((7, 5, 0))).unwrap_err();
        assert!(err.contains("wrong hash"), "{err}");
        // The recorded pack is a file the next bake may delete: only a `.hpack` at the top.
        for file in [
            "../game.hpack",
            "sub/game.hpack",
            ".hearth-cache",
            "assets.hman",
            ".hpack",
        ] {
            let err = tampered(|c| c.pack.as_mut().unwrap().file = file.into()).unwrap_err();
            assert!(err.contains("invalid pack file name"), "{file}: {err}");
        }
        // Lengths beyond the decoder's budget fail before any allocation.
        let mut bytes = sample().encode();
        let claimed_len = MAGIC.len() + 4; // the asset count, a varint
        bytes[claimed_len] = 0xFD; // u64 follows
        bytes.splice(claimed_len + 1..claimed_len + 1, u64::MAX.to_le_bytes());
        let split = bytes.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes[MAGIC.len() + 4..split]);
        bytes[split..].copy_from_slice(&sum.to_le_bytes());
        assert!(Cache::decode(&bytes).is_err());
    }

    #[test]
    fn round_trips_and_rejects_damage() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = sample().encode();
        std::fs::write(dir.path().join(FILE_NAME), &bytes).unwrap();
        assert_eq!(Cache::load(dir.path()), (sample(), None));
        assert_eq!(sample().get("a.bin").unwrap().source_hash, 99);
        for len in 0..bytes.len() {
            std::fs::write(dir.path().join(FILE_NAME), &bytes[..len]).unwrap();
            let (cache, warning) = Cache::load(dir.path());
            assert_eq!(cache, Cache::default(), "prefix {len} trusted");
            assert!(warning.unwrap().contains("cache discarded"));
        }
        // Every single-bit flip is caught (magic, schema, payload or checksum), never trusted.
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[at] ^= 1 << bit;
                assert!(
                    Cache::decode(&flipped).is_err(),
                    "flip at {at} bit {bit} trusted"
                );
            }
        }
        std::fs::write(dir.path().join(FILE_NAME), b"PK\x03\x04 some zip").unwrap();
        assert!(Cache::load(dir.path())
            .1
            .unwrap()
            .contains("not a hearth cache"));
    }
}
