//! The remote tier (feature `remote-cache`): any store the `object_store` crate reaches by
//! URL, driven by a small current-thread tokio runtime owned by the tier (the baker's worker
//! threads take turns driving it).
//!
//! Objects live under the URL's path: `<prefix>/v1/objects/<64 hex>` and
//! `<prefix>/v1/recipes/<64 hex>`. Objects are written with a conditional put (create only):
//! "already exists" is success, since the key names the content. A store without
//! conditional puts (plain HTTP/WebDAV) gets an overwrite, identical in content.
//!
//! Credentials, region and endpoint come from the environment the crate reads for each store
//! (for S3: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`; for GCS `GOOGLE_*`; for Azure `AZURE_*`).

use super::{Key, Kind, Tier, MAX_OBJECT_BYTES};
use object_store::path::Path as StorePath;
use object_store::{
    ClientOptions, GetOptions, ObjectStore, ObjectStoreScheme, PutMode, PutOptions, PutPayload,
    RetryConfig,
};
use std::time::Duration;

/// The longest one request may take, connection included, before the remote counts as
/// failed for the bake.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest one get or put may take, its retries included.
const OPERATION_TIMEOUT: Duration = Duration::from_secs(60);

/// The remote tier.
pub struct RemoteTier {
    url: String,
    store: Box<dyn ObjectStore>,
    prefix: StorePath,
    runtime: tokio::runtime::Runtime,
}

impl std::fmt::Debug for RemoteTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTier")
            .field("url", &self.url)
            .finish()
    }
}

impl RemoteTier {
    /// Opens the store at `url`, configured from the environment and then `options` (the
    /// builder's configuration keys). Nothing is sent yet: an unreachable store shows at the
    /// first request.
    pub fn open(url: &str, options: &[(String, String)]) -> Result<Self, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("not a URL: {e}"))?;
        let (scheme, prefix) = ObjectStoreScheme::parse(&parsed).map_err(|e| e.to_string())?;
        let settings = options;
        let options = ClientOptions::new()
            .with_timeout(REQUEST_TIMEOUT)
            .with_connect_timeout(CONNECT_TIMEOUT);
        let retry = RetryConfig {
            max_retries: 2,
            retry_timeout: Duration::from_secs(10),
            ..RetryConfig::default()
        };
        let error = |e: object_store::Error| e.to_string();
        // A cloud store's builder: timeouts first, then the environment (`PREFIX*` variables),
        // then `options`, so each may change what came before.
        macro_rules! cloud_store {
            ($builder:ty, $env_prefix:literal) => {{
                let mut builder = <$builder>::new()
                    .with_client_options(options)
                    .with_retry(retry);
                for (key, value) in from_env($env_prefix) {
                    if let Ok(key) = config_key(&key) {
                        builder = builder.with_config(key, value);
                    }
                }
                for (key, value) in settings {
                    builder = builder.with_config(config_key(key)?, value);
                }
                let store = builder.with_url(url).build().map_err(error)?;
                (Box::new(store) as Box<dyn ObjectStore>, prefix)
            }};
        }
        let (store, prefix): (Box<dyn ObjectStore>, StorePath) = match scheme {
            ObjectStoreScheme::Local => {
                let dir = parsed
                    .to_file_path()
                    .map_err(|()| "not a local path".to_owned())?;
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                let store =
                    object_store::local::LocalFileSystem::new_with_prefix(&dir).map_err(error)?;
                (Box::new(store), StorePath::default())
            }
            ObjectStoreScheme::AmazonS3 => cloud_store!(object_store::aws::AmazonS3Builder, "AWS_"),
            ObjectStoreScheme::GoogleCloudStorage => {
                cloud_store!(object_store::gcp::GoogleCloudStorageBuilder, "GOOGLE_")
            }
            ObjectStoreScheme::MicrosoftAzure => {
                cloud_store!(object_store::azure::MicrosoftAzureBuilder, "AZURE_")
            }
            ObjectStoreScheme::Http if !settings.is_empty() => {
                return Err("an http(s) store takes no options".into())
            }
            ObjectStoreScheme::Http => {
                let store = object_store::http::HttpBuilder::new()
                    .with_url(url)
                    .with_client_options(options)
                    .with_retry(retry)
                    .build()
                    .map_err(error)?;
                (Box::new(store), StorePath::default())
            }
            other => return Err(format!("unsupported store {other:?}")),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the I/O runtime: {e}"))?;
        Ok(Self {
            url: url.to_owned(),
            store,
            prefix,
            runtime,
        })
    }

    fn location(&self, kind: Kind, key: &Key) -> StorePath {
        self.prefix
            .clone()
            .join("v1")
            .join(kind.dir())
            .join(key.hex())
    }

    /// The object at `location`, `None` when there is none; one over `cap` bytes (as the
    /// store claims it, or as it streams in) is an error, and no more of it is read.
    fn fetch(&self, location: &StorePath, cap: u64) -> Result<Option<Vec<u8>>, String> {
        let too_big = |size: u64| format!("an object of {size}+ bytes, over the {cap}-byte limit");
        self.block_on(async {
            let result = match self.store.get_opts(location, GetOptions::default()).await {
                Ok(result) => result,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(e.to_string()),
            };
            if result.meta.size > cap {
                return Err(too_big(result.meta.size));
            }
            let mut bytes = Vec::with_capacity(usize::try_from(result.meta.size).unwrap_or(0));
            let mut stream = result.into_stream();
            // A server may send more than it announced: counted as it arrives. (`poll_next`
            // is the stream's own method: no stream crate is needed to drive it.)
            while let Some(chunk) = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
                let chunk = chunk.map_err(|e| e.to_string())?;
                let size = (bytes.len() + chunk.len()) as u64;
                if size > cap {
                    return Err(too_big(size));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(Some(bytes))
        })
    }

    fn block_on<T>(
        &self,
        operation: impl std::future::Future<Output = Result<T, String>>,
    ) -> Result<T, String> {
        self.runtime.block_on(async {
            match tokio::time::timeout(OPERATION_TIMEOUT, operation).await {
                Ok(result) => result,
                Err(_) => Err(format!("no answer in {} s", OPERATION_TIMEOUT.as_secs())),
            }
        })
    }
}

impl Tier for RemoteTier {
    fn describe(&self) -> String {
        format!("remote cache {}", self.url)
    }

    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Vec<u8>>, String> {
        self.fetch(&self.location(kind, key), MAX_OBJECT_BYTES)
    }

    fn put(&self, kind: Kind, key: &Key, bytes: &[u8], replace: bool) -> Result<(), String> {
        let location = self.location(kind, key);
        let payload = PutPayload::from(bytes.to_vec());
        self.block_on(async {
            let mode = match replace {
                true => PutMode::Overwrite,
                false => PutMode::Create,
            };
            let options = PutOptions {
                mode,
                ..PutOptions::default()
            };
            match self
                .store
                .put_opts(&location, payload.clone(), options)
                .await
            {
                Ok(_) => Ok(()),
                // Written once already: the key names the content.
                Err(object_store::Error::AlreadyExists { .. })
                | Err(object_store::Error::Precondition { .. }) => Ok(()),
                // No conditional puts here: an overwrite, identical in content.
                Err(object_store::Error::NotImplemented { .. }) => self
                    .store
                    .put_opts(&location, payload, PutOptions::default())
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        })
    }
}

/// The variables of the environment starting with `prefix` that name a configuration key of
/// the store (as the builders' own `from_env` reads them).
fn from_env(prefix: &str) -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(key, _)| key.starts_with(prefix))
        .collect()
}

/// A builder configuration key, named as `object_store` names it (case-insensitive).
fn config_key<K: std::str::FromStr>(name: &str) -> Result<K, String> {
    name.to_ascii_lowercase()
        .parse()
        .map_err(|_| format!("unknown store option {name:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_over_the_cap_is_an_error_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let url = url::Url::from_directory_path(dir.path()).unwrap();
        let tier = RemoteTier::open(url.as_str(), &[]).unwrap();
        let key = Key([5; 32]);
        tier.put(Kind::Object, &key, &[7; 100], false).unwrap();
        let location = tier.location(Kind::Object, &key);
        assert_eq!(tier.fetch(&location, 100).unwrap(), Some(vec![7; 100]));
        let error = tier.fetch(&location, 99).unwrap_err();
        assert!(error.contains("over the 99-byte limit"), "{error}");
        assert_eq!(tier.get(Kind::Object, &Key([6; 32])).unwrap(), None);
    }
}
