//! Errors of the baker: each names the file and what is wrong with it.

use std::path::PathBuf;

/// Why a bake failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BakeError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The manifest is malformed or asks for something impossible.
    #[error("{}: {message}", file.display())]
    Config {
        /// The manifest file.
        file: PathBuf,
        /// What is wrong, naming the key.
        message: String,
    },
    /// One asset could not be baked.
    #[error("{}: {message}", file.display())]
    Asset {
        /// The source file.
        file: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// Two assets claim one runtime path or one asset hash.
    #[error("{message}")]
    Collision {
        /// Both claimants and the contested path or hash.
        message: String,
    },
    /// A pipeline could not be registered, or broke the pipeline contract.
    #[error("pipeline `{pipeline}`: {message}")]
    Pipeline {
        /// The pipeline's name.
        pipeline: String,
        /// What is wrong.
        message: String,
    },
    /// An asset refers to another asset that the bake does not produce.
    #[error("{}: `{from}` references `{reference}`, which this bake does not produce", file.display())]
    DanglingReference {
        /// The referring asset's source file.
        file: PathBuf,
        /// The referring asset (source-relative path).
        from: String,
        /// The reference as the pipeline wrote it.
        reference: String,
    },
    /// Several assets failed (keep-going mode reports them all).
    #[error("{} assets failed:\n{}", .0.len(), .0.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
    Failed(Vec<BakeError>),
    /// A cargo-provided input is missing (build-script mode).
    #[error("build script: {0}")]
    Cargo(String),
    /// With [`Baker::require_hits`](crate::bake::Baker::require_hits): assets that no cache
    /// holds, each with its shard when the bake knew the partition. Nothing was written.
    #[error("{} assets are in no cache (require hits: nothing was written):\n{}", .0.len(), .0.iter().map(|a| format!("  {a}")).collect::<Vec<_>>().join("\n"))]
    Missing(Vec<crate::bake::shard::MissingAsset>),
    /// A shard bake ([`Baker::shard`](crate::bake::Baker::shard)) could not store its work:
    /// no shared cache to store into, or a tier that failed.
    #[error("shard {shard}: {message}")]
    Shard {
        /// The shard, `K/N`.
        shard: String,
        /// What is wrong, naming the cache.
        message: String,
    },
    /// The bake was cancelled ([`Baker::cancel_when`](crate::bake::Baker::cancel_when)) before
    /// its commit; the output folder holds the previous bake.
    #[error("cancelled; the previous bake stands")]
    Cancelled,
}

impl BakeError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BakeError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn asset(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        BakeError::Asset {
            file: file.into(),
            message: message.into(),
        }
    }
}
