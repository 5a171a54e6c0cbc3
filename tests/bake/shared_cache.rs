//! The shared bake cache (issue 12): a local tier shared by checkouts, and a remote tier
//! tested against a real S3 API server on loopback (moto's server mode, started here; `.ci/run`
//! installs it). Machine A bakes and uploads; machine B, with another copy of the content, a
//! fresh output folder and an empty local tier, gets byte-identical output without running a
//! pipeline. Damaged objects, a server killed mid-bake and read-only mode never cost a wrong
//! output or a failed bake.
#![cfg(all(feature = "cli", feature = "remote-cache"))]

use crate::common;

use hearth::bake::shared_cache::{Mode, SharedCacheConfig};
use hearth::bake::{
    BakeContext, Baker, Claim, Output, Pipeline, PipelineError, Progress, Report, Source,
};
use hearth::AssetKind;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

pub(crate) const BUCKET: &str = "hearth-cache";
/// An `Authorization` header moto accepts as "someone signed in".
const FAKE_AUTHORIZATION: &str = "AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0";

// ---------------------------------------------------------------------------------------
// The S3 server.

/// A moto S3 server on a loopback port, killed on drop.
pub(crate) struct Moto {
    port: u16,
    child: Mutex<Option<Child>>,
}

impl Moto {
    fn start() -> Moto {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // Its request log goes to a file (a pipe nobody reads would fill and stall it).
        let log = std::env::temp_dir().join(format!("hearth-moto-{port}.log"));
        // The server exits when its standard input closes: when this test process ends,
        // however it ends (the shared server lives in a static, never dropped).
        let child = Command::new("python3")
            .args([
                "-c",
                "import os, sys, threading\n\
                 threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()\n\
                 from moto.server import main\n\
                 main(sys.argv[1:])",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("python3 is needed to run the S3 test server (moto)");
        let moto = Moto {
            port,
            child: Mutex::new(Some(child)),
        };
        let started = Instant::now();
        loop {
            let exited = moto.child.lock().unwrap().as_mut().unwrap().try_wait();
            if let Some(status) = exited.unwrap() {
                let stderr = std::fs::read_to_string(&log).unwrap_or_default();
                panic!(
                    "the S3 test server (moto) exited with {status}: is it installed? \
                     `python3 -m pip install 'moto[server]'` (.ci/run does it)\n{stderr}"
                );
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the S3 test server (moto) did not listen on port {port} within 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        // Started: the log is only needed for a failed start (the server keeps its open file).
        std::fs::remove_file(&log).ok();
        let (status, body) = moto.http("PUT", &format!("/{BUCKET}"), b"");
        assert_eq!(status, 200, "creating the bucket: {body}");
        moto
    }

    /// The one server most tests share.
    pub(crate) fn shared() -> &'static Moto {
        static MOTO: OnceLock<Moto> = OnceLock::new();
        MOTO.get_or_init(Moto::start)
    }

    pub(crate) fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The environment the CLI reads (`object_store`'s own variables).
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }

    /// A shared-cache configuration under `prefix` of the bucket, with local tier `local`.
    fn config(&self, prefix: &str, local: &Path, mode: Mode) -> SharedCacheConfig {
        SharedCacheConfig {
            local_dir: Some(local.to_path_buf()),
            remote_url: Some(format!("s3://{BUCKET}/{prefix}")),
            remote_options: self
                .env()
                .into_iter()
                .map(|(k, v)| {
                    (
                        k.to_ascii_lowercase().replace("endpoint_url", "endpoint"),
                        v,
                    )
                })
                .collect(),
            mode,
        }
    }

    /// One plain HTTP request with a made-up signature (moto checks that there is one, not
    /// what it says): (status, body).
    pub(crate) fn http(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\
             Authorization: {FAKE_AUTHORIZATION}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let text = String::from_utf8_lossy(&response).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
        (status, body)
    }

    /// Every object key under `prefix` in the bucket.
    pub(crate) fn list(&self, prefix: &str) -> Vec<String> {
        let (status, body) = self.http(
            "GET",
            &format!("/{BUCKET}?list-type=2&max-keys=1000&prefix={prefix}/"),
            b"",
        );
        assert_eq!(status, 200, "listing: {body}");
        body.split("<Key>")
            .skip(1)
            .map(|rest| rest.split("</Key>").next().unwrap().to_owned())
            .collect()
    }

    fn kill(&self) {
        let child = self.child.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut child) = child {
            child.kill().ok();
            child.wait().ok();
        }
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        self.kill();
    }
}

// ---------------------------------------------------------------------------------------
// Content, pipelines, bakes.

/// A game pipeline that counts its bakes: `*.count` holds the name of a side file, whose bytes
/// (reversed) are the output.
struct Counted(Arc<AtomicUsize>);

impl Pipeline for Counted {
    type Settings = ();
    fn name(&self) -> &str {
        "counted"
    }
    fn version(&self) -> u32 {
        1
    }
    fn claims(&self) -> Vec<Claim> {
        vec![Claim::file("*.count")]
    }
    fn bake(
        &self,
        source: &Source<'_>,
        _: &(),
        cx: &mut BakeContext<'_>,
    ) -> Result<(), PipelineError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let side = std::str::from_utf8(source.bytes())?.trim().to_owned();
        let mut bytes = cx.read(&side)?;
        bytes.reverse();
        cx.warn("counted a file");
        let path = format!("{}.out", source.stem());
        cx.emit(Output::new(path, AssetKind::game(130).unwrap(), bytes));
        Ok(())
    }
}

/// A copy of the example content (its texture, model, LUT and blobs) plus two counted assets
/// with side files, in a folder of its own: each "machine" has its own checkout path.
fn checkout(dir: &Path) -> PathBuf {
    let root = dir.join("content");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/content"),
        &root,
    );
    common::write_files(
        &root,
        &[
            ("counted/a.count", b"a.side"),
            ("counted/a.side", b"side file a"),
            ("counted/b.count", b"b.side"),
            ("counted/b.side", b"side file b"),
        ],
    );
    let manifest = root.join("hearth.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text = text.replace(
        "[default]",
        "[[content.group]]\nassets = [\"counted/*.count\"]\n\n[default]",
    );
    std::fs::write(&manifest, text).unwrap();
    manifest
}

/// One bake: (report, pipeline calls of the counted pipeline).
fn bake(
    manifest: &Path,
    out: &Path,
    shared: Option<SharedCacheConfig>,
    tweak: impl FnOnce(&mut Baker),
) -> (Report, usize) {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut baker = Baker::new(manifest, out);
    baker
        .preset("debug")
        .jobs(2)
        .pipeline(Counted(calls.clone()));
    if let Some(shared) = shared {
        baker.shared_cache(shared);
    }
    tweak(&mut baker);
    let report = baker.run().unwrap();
    let calls = calls.load(Ordering::SeqCst);
    (report, calls)
}

/// The output folder's files, less hearth's own dot files (the incremental cache records
/// this machine's paths and mtimes).
fn tree(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = common::contents(out);
    files.retain(|path, _| {
        !path
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    });
    files
}

/// Reference output: a bake of a fresh checkout with no shared cache at all.
fn reference() -> &'static BTreeMap<PathBuf, Vec<u8>> {
    static REFERENCE: OnceLock<BTreeMap<PathBuf, Vec<u8>>> = OnceLock::new();
    REFERENCE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let manifest = checkout(dir.path());
        let out = dir.path().join("out");
        let (report, calls) = bake(&manifest, &out, None, |_| {});
        assert_eq!((report.baked.len(), calls), (report.assets, 2));
        tree(&out)
    })
}

fn remote_warnings(report: &Report) -> Vec<&String> {
    report
        .warnings
        .iter()
        .filter(|w| w.contains("remote cache"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The remote tier, against the server.

#[test]
fn machine_b_gets_machine_a_s_outputs_without_baking() {
    let moto = Moto::shared();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());

    // Machine A: empty local tier, empty bucket prefix: bakes everything and uploads it.
    let manifest_a = checkout(a.path());
    let out_a = a.path().join("out");
    let config_a = moto.config("two-machines", &a.path().join("cache"), Mode::ReadWrite);
    let (report, calls) = bake(&manifest_a, &out_a, Some(config_a), |_| {});
    assert_eq!(calls, 2);
    assert_eq!(report.baked.len(), report.assets);
    assert_eq!(report.shared_stored, report.assets);
    assert!(
        report.warnings.iter().all(|w| !w.contains("cache")),
        "{:?}",
        report.warnings
    );
    let keys = moto.list("two-machines");
    let objects = keys.iter().filter(|k| k.contains("/v1/objects/")).count();
    let recipes = keys.iter().filter(|k| k.contains("/v1/recipes/")).count();
    assert_eq!(
        (objects, recipes),
        (report.assets, report.assets),
        "{keys:?}"
    );
    assert_eq!(&tree(&out_a), reference());

    // Machine B: another checkout path, fresh output folder, empty local tier: no pipeline
    // runs (the counted one included), and the output is byte for byte A's.
    let manifest_b = checkout(b.path());
    let out_b = b.path().join("out");
    let local_b = b.path().join("cache");
    let config_b = moto.config("two-machines", &local_b, Mode::ReadWrite);
    let (report, calls) = bake(&manifest_b, &out_b, Some(config_b.clone()), |_| {});
    assert_eq!(calls, 0);
    assert!(report.baked.is_empty(), "{:?}", report.baked);
    assert_eq!(report.shared_remote_hits.len(), report.assets);
    assert_eq!(report.cache_hits, 0);
    assert_eq!(&tree(&out_b), reference());
    // The asset's own warnings come along, naming this machine's checkout.
    let counted = report
        .warnings
        .iter()
        .filter(|w| w.ends_with("counted a file"))
        .collect::<Vec<_>>();
    assert_eq!(counted.len(), 2, "{:?}", report.warnings);
    let root_b = manifest_b.parent().unwrap().canonicalize().unwrap();
    assert!(
        counted
            .iter()
            .all(|w| w.starts_with(&*root_b.to_string_lossy())),
        "{counted:?}"
    );
    // The hits filled B's local tier: a second checkout on B needs no network.
    let out_b2 = b.path().join("out2");
    let offline = SharedCacheConfig {
        remote_url: None,
        remote_options: Vec::new(),
        ..config_b
    };
    let (report, calls) = bake(&manifest_b, &out_b2, Some(offline), |_| {});
    assert_eq!((calls, report.shared_local_hits.len()), (0, report.assets));
    assert_eq!(&tree(&out_b2), reference());

    // A side file edited on B: that asset alone is baked again.
    std::fs::write(
        manifest_b.parent().unwrap().join("counted/a.side"),
        "edited",
    )
    .unwrap();
    let out_b3 = b.path().join("out3");
    let config = moto.config("two-machines", &local_b, Mode::ReadWrite);
    let (report, calls) = bake(&manifest_b, &out_b3, Some(config), |_| {});
    assert_eq!(calls, 1);
    assert_eq!(report.baked, ["counted/a.count"]);
    assert_eq!(
        std::fs::read(out_b3.join("counted/a.out")).unwrap(),
        b"detide"
    );
}

#[test]
fn damaged_objects_are_discarded_baked_locally_and_replaced() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let config = |name: &str| moto.config("damaged", &dir.path().join(name), Mode::ReadWrite);
    let (report, _) = bake(
        &manifest,
        &dir.path().join("a"),
        Some(config("cache-a")),
        |_| {},
    );
    assert_eq!(report.shared_stored, report.assets);

    // Damage every object: garbage, a truncation, a foreign object (another key's bytes).
    let objects: Vec<String> = moto
        .list("damaged")
        .into_iter()
        .filter(|k| k.contains("/v1/objects/"))
        .collect();
    assert_eq!(objects.len(), report.assets);
    let (_, first) = moto.http("GET", &format!("/{BUCKET}/{}", objects[0]), b"");
    for (i, key) in objects.iter().enumerate() {
        let body: Vec<u8> = match i % 3 {
            0 => b"not an object at all".to_vec(),
            1 => b"HEARTHO\0\x01\0\0\0truncated".to_vec(),
            _ => first.as_bytes().to_vec(),
        };
        let (status, text) = moto.http("PUT", &format!("/{BUCKET}/{key}"), &body);
        assert_eq!(status, 200, "{text}");
    }

    // Machine B: every asset baked locally, each with a warning naming cache and key.
    let out_b = dir.path().join("b");
    let (report, calls) = bake(&manifest, &out_b, Some(config("cache-b")), |_| {});
    assert_eq!(calls, 2);
    assert_eq!(report.baked.len(), report.assets);
    assert_eq!(&tree(&out_b), reference());
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), report.assets, "{:?}", report.warnings);
    for warning in &warnings {
        assert!(
            warning.contains(&format!("remote cache s3://{BUCKET}/damaged"))
                && warning.contains("discarded"),
            "{warning}"
        );
        let key = warning
            .split("object ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        assert!(objects.iter().any(|o| o.ends_with(key)), "{warning}");
    }

    // ...and replaced in read-write mode: machine C finds them whole.
    let out_c = dir.path().join("c");
    let (report, calls) = bake(&manifest, &out_c, Some(config("cache-c")), |_| {});
    assert_eq!((calls, report.shared_remote_hits.len()), (0, report.assets));
    assert!(remote_warnings(&report).is_empty(), "{:?}", report.warnings);
    assert_eq!(&tree(&out_c), reference());
}

#[test]
fn a_server_killed_mid_bake_costs_one_warning_and_no_asset() {
    // A server of its own, to kill.
    let moto = Moto::start();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let out = dir.path().join("out");
    let config = moto.config("killed", &dir.path().join("cache"), Mode::ReadWrite);
    let moto = Arc::new(moto);
    let killer = moto.clone();
    let uploaded = Arc::new(AtomicUsize::new(0));
    let uploads = uploaded.clone();
    let (report, calls) = bake(&manifest, &out, Some(config), move |baker| {
        let uploaded = uploads;
        baker.jobs(1).on_progress(move |event| {
            if let Progress::Asset { done: 2, .. } = event {
                uploaded.store(killer.list("killed").len(), Ordering::SeqCst);
                killer.kill();
            }
        });
    });
    assert_eq!(calls, 2);
    assert_eq!(report.baked.len(), report.assets);
    assert_eq!(&tree(&out), reference());
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        warnings[0].contains("not used for the rest of this bake"),
        "{}",
        warnings[0]
    );
    // The server was in use until the kill: the first assets' objects and recipes were up.
    assert_eq!(uploaded.load(Ordering::SeqCst), 4);
}

#[test]
fn read_mode_never_writes_to_the_remote() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let local = dir.path().join("cache");
    let (report, calls) = bake(
        &manifest,
        &dir.path().join("out"),
        Some(moto.config("read-only", &local, Mode::Read)),
        |_| {},
    );
    assert_eq!((calls, report.baked.len()), (2, report.assets));
    assert!(
        report.warnings.iter().all(|w| !w.contains("cache")),
        "{:?}",
        report.warnings
    );
    assert_eq!(moto.list("read-only"), Vec::<String>::new());
    // The local tier still fills: a CI consumer's next checkout is warm.
    let stats = hearth::bake::shared_cache::local::stats(&local).unwrap();
    assert_eq!(stats.objects as usize, report.assets);
}

#[test]
fn the_cli_reads_the_store_from_the_environment() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let run = |out: &str, cache: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(["bake", "--preset", "debug", "-o", out])
            .arg(&manifest)
            .current_dir(dir.path())
            .envs(moto.env())
            .env("HEARTH_CACHE_URL", format!("s3://{BUCKET}/cli"))
            .env("HEARTH_CACHE_DIR", dir.path().join(cache))
            .env("HEARTH_CACHE_MODE", "read-write")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stdout}\n{stderr}");
        (stdout, stderr)
    };
    // The CLI knows no `*.count` pipeline: those are blobs here.
    let (stdout, _) = run("a", "cache-a");
    assert!(stdout.contains("0 from the remote tier"), "{stdout}");
    let (stdout, stderr) = run("b", "cache-b");
    let assets = tree(&dir.path().join("a")).len();
    assert!(assets > 10);
    assert!(stdout.contains("0 from the local tier"), "{stdout}");
    // The headline adds up: every asset came from the remote tier.
    assert!(
        stdout.contains("(0 from the cache, ")
            && stdout.contains(" from the shared cache's remote tier, 0 baked)"),
        "{stdout}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(tree(&dir.path().join("a")), tree(&dir.path().join("b")));
    // A wrong mode is a warning, and the bake goes on without the shared cache.
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["bake", "--preset", "debug", "-o", "c"])
        .arg(&manifest)
        .current_dir(dir.path())
        .env("HEARTH_CACHE_MODE", "sometimes")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("HEARTH_CACHE_MODE"));
}

// ---------------------------------------------------------------------------------------
// The local tier alone.

fn local_only(dir: &Path) -> SharedCacheConfig {
    SharedCacheConfig {
        local_dir: Some(dir.to_path_buf()),
        ..SharedCacheConfig::default()
    }
}

#[test]
fn checkouts_on_one_machine_share_the_local_tier() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    let manifest_a = checkout(&dir.path().join("a"));
    let manifest_b = checkout(&dir.path().join("b"));
    let (report, calls) = bake(
        &manifest_a,
        &dir.path().join("out-a"),
        Some(local_only(&local)),
        |_| {},
    );
    assert_eq!((calls, report.baked.len()), (2, report.assets));
    let (report, calls) = bake(
        &manifest_b,
        &dir.path().join("out-b"),
        Some(local_only(&local)),
        |_| {},
    );
    assert_eq!(calls, 0);
    assert_eq!(report.shared_local_hits.len(), report.assets);
    assert_eq!(&tree(&dir.path().join("out-b")), reference());
    // The incremental cache of B's output holds the hits: a re-bake there touches nothing.
    let (report, calls) = bake(
        &manifest_b,
        &dir.path().join("out-b"),
        Some(local_only(&local)),
        |_| {},
    );
    assert_eq!(
        (calls, report.cache_hits, report.files_written),
        (0, report.assets, 0)
    );
    // A settings change is a different key.
    let text = std::fs::read_to_string(&manifest_b).unwrap();
    std::fs::write(
        &manifest_b,
        text.replace("quality = \"fastest\"", "quality = \"faster\""),
    )
    .unwrap();
    let (report, _) = bake(
        &manifest_b,
        &dir.path().join("out-b2"),
        Some(local_only(&local)),
        |_| {},
    );
    assert!(
        report.baked.iter().any(|a| a.ends_with(".png")),
        "{:?}",
        report.baked
    );
    assert!(
        report
            .baked
            .iter()
            .all(|a| !a.starts_with("counted/") && !a.starts_with("text/")),
        "{:?}",
        report.baked
    );
}

#[test]
fn damaged_local_objects_are_discarded_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    let manifest = checkout(dir.path());
    let (report, _) = bake(
        &manifest,
        &dir.path().join("a"),
        Some(local_only(&local)),
        |_| {},
    );
    let mut damaged = 0;
    for shard in std::fs::read_dir(local.join("v1/objects")).unwrap() {
        for file in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let mut bytes = std::fs::read(&path).unwrap();
            let at = bytes.len() - 1;
            bytes[at] ^= 0x55;
            std::fs::write(&path, bytes).unwrap();
            damaged += 1;
        }
    }
    assert_eq!(damaged, report.assets);
    let (report, calls) = bake(
        &manifest,
        &dir.path().join("b"),
        Some(local_only(&local)),
        |_| {},
    );
    assert_eq!((calls, report.baked.len()), (2, report.assets));
    assert_eq!(&tree(&dir.path().join("b")), reference());
    let warnings: Vec<_> = report
        .warnings
        .iter()
        .filter(|w| w.contains("discarded"))
        .collect();
    assert_eq!(warnings.len(), report.assets, "{:?}", report.warnings);
    assert!(warnings
        .iter()
        .all(|w| w.contains(&format!("local cache {}", local.display()))
            && w.contains("content hash mismatch")));
    let (report, calls) = bake(
        &manifest,
        &dir.path().join("c"),
        Some(local_only(&local)),
        |_| {},
    );
    assert_eq!((calls, report.shared_local_hits.len()), (0, report.assets));
    assert!(report.warnings.iter().all(|w| !w.contains("discarded")));
}

#[test]
fn hearth_cache_stats_gc_clear() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    let manifest = checkout(dir.path());
    let (report, _) = bake(
        &manifest,
        &dir.path().join("a"),
        Some(local_only(&local)),
        |_| {},
    );
    let cli = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(args)
            .env("HEARTH_CACHE_DIR", &local)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let stats: serde_json::Value =
        serde_json::from_str(&cli(&["cache", "stats", "--json"])).unwrap();
    assert_eq!(stats["objects"], report.assets);
    assert_eq!(stats["recipes"], report.assets);
    let bytes = stats["bytes"].as_u64().unwrap();
    assert!(bytes > 10_000, "{stats}");
    assert!(cli(&["cache", "stats"]).contains(&format!("{} objects", report.assets)));
    // gc to half the size: the least recently used go first, and the tier fits.
    let half = (bytes / 2).to_string();
    let text = cli(&["cache", "gc", "--max-size", &half]);
    assert!(text.starts_with("removed "), "{text}");
    let stats: serde_json::Value =
        serde_json::from_str(&cli(&["cache", "stats", "--json"])).unwrap();
    assert!(stats["bytes"].as_u64().unwrap() <= bytes / 2, "{stats}");
    assert!(cli(&["cache", "clear"]).starts_with("removed "));
    let stats: serde_json::Value =
        serde_json::from_str(&cli(&["cache", "stats", "--json"])).unwrap();
    assert_eq!(
        (stats["objects"].as_u64(), stats["bytes"].as_u64()),
        (Some(0), Some(0))
    );
    // A bad size is a usage error.
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["cache", "gc", "--max-size", "lots"])
        .env("HEARTH_CACHE_DIR", &local)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// `hearth cache …` against the local tier in `local`: (exit code, stdout, stderr).
fn cache_cli(local: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("cache")
        .args(args)
        .env("HEARTH_CACHE_DIR", local)
        .env_remove("FAILPOINTS")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// A local tier holding one object and one recipe (10 bytes each), made as a bake would.
fn small_local_tier(local: &Path) {
    use hearth::bake::shared_cache::{local::LocalTier, Key, Kind, Tier};
    let tier = LocalTier::open(local).unwrap();
    tier.put(Kind::Object, &Key([0xab; 32]), &[1; 10], false)
        .unwrap();
    tier.put(Kind::Recipe, &Key([0xcd; 32]), &[2; 10], false)
        .unwrap();
}

#[cfg(unix)]
#[test]
fn cache_gc_and_clear_never_go_through_a_link_or_touch_a_stranger() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    small_local_tier(&local);
    // A victim folder behind a shard-named link, its files named as that shard's keys.
    let victim = dir.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let precious = victim.join("ee".repeat(32));
    std::fs::write(&precious, [7; 5000]).unwrap();
    std::os::unix::fs::symlink(&victim, local.join("v1/objects/ee")).unwrap();
    // A stranger's file in a real shard, and one beside the shards.
    let strays = [
        local.join("v1/objects/ab/notes.txt"),
        local.join("v1/recipes/README"),
    ];
    for stray in &strays {
        std::fs::write(stray, [0; 3000]).unwrap();
    }
    let (code, stdout, stderr) = cache_cli(&local, &["stats", "--json"], &[]);
    assert_eq!(code, 0, "{stderr}");
    let stats: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (stats["objects"].as_u64(), stats["recipes"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(stats["bytes"], 20, "{stats}");
    let (code, stdout, stderr) = cache_cli(&local, &["gc", "--max-size", "0"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("removed 2 files"), "{stdout}");
    small_local_tier(&local);
    let (code, stdout, stderr) = cache_cli(&local, &["clear"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("removed 2 files"), "{stdout}");
    assert_eq!(std::fs::read(&precious).unwrap(), [7; 5000]);
    assert!(strays.iter().all(|stray| stray.is_file()));
}

/// A removal that fails (a read-only cache folder; a fault point stands in, as root writes
/// read-only folders) is an error naming the file, with a non-zero exit: it used to print
/// "removed 0 files" and succeed.
#[cfg(feature = "failpoints")]
#[test]
fn cache_gc_that_cannot_remove_reports_it_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    small_local_tier(&local);
    let fault = [("FAILPOINTS", "shared_cache::remove=return")];
    for args in [&["gc", "--max-size", "0"][..], &["clear"]] {
        let (code, stdout, stderr) = cache_cli(&local, args, &fault);
        assert_eq!(code, 1, "{args:?}: {stdout}");
        assert!(
            stderr.contains("could not remove 2 files") && stderr.contains("v1/"),
            "{args:?}: {stderr}"
        );
    }
    let (_, stdout, _) = cache_cli(&local, &["stats", "--json"], &[]);
    let stats: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(stats["bytes"], 20, "{stats}");
}

/// A FIFO in place of every local object: each lookup is a miss at once (it used to wait
/// for a writer forever), the assets are baked, and the store replaces the FIFOs.
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_local_object_is_a_miss_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    let manifest = checkout(dir.path());
    let (report, _) = bake(
        &manifest,
        &dir.path().join("a"),
        Some(local_only(&local)),
        |_| {},
    );
    let mut fifos = Vec::new();
    for shard in std::fs::read_dir(local.join("v1/objects")).unwrap() {
        for file in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            std::fs::remove_file(&path).unwrap();
            let made = Command::new("mkfifo").arg(&path).status();
            assert!(made.unwrap().success(), "mkfifo");
            fifos.push(path);
        }
    }
    assert_eq!(fifos.len(), report.assets);
    let (send, receive) = std::sync::mpsc::channel();
    let (second, out) = (manifest.clone(), dir.path().join("b"));
    let config = local_only(&local);
    std::thread::spawn(move || {
        let _ = send.send(bake(&second, &out, Some(config), |_| {}));
    });
    let (report, calls) = receive
        .recv_timeout(Duration::from_secs(120))
        .expect("the bake hung on a FIFO object");
    assert_eq!((calls, report.baked.len()), (2, report.assets));
    assert_eq!(&tree(&dir.path().join("b")), reference());
    assert!(fifos
        .iter()
        .all(|path| std::fs::symlink_metadata(path).unwrap().is_file()));
}

#[test]
fn the_manifest_names_the_remote_and_the_environment_wins() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let store = dir.path().join("team-store");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let url = format!("file://{}", store.display());
    std::fs::write(&manifest, format!("{text}\n[cache]\nremote = \"{url}\"\n")).unwrap();
    let run = |out: &str, cache: &str, env_url: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hearth"));
        command
            .args(["bake", "--preset", "debug", "-o", out])
            .arg(&manifest)
            .current_dir(dir.path())
            .env("HEARTH_CACHE_DIR", dir.path().join(cache))
            .env("HEARTH_CACHE_MODE", "read-write")
            .env_remove("HEARTH_CACHE_URL");
        if let Some(env_url) = env_url {
            command.env("HEARTH_CACHE_URL", env_url);
        }
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(!stderr.contains("warning: "), "{stderr}");
        stdout
    };
    let stdout = run("a", "cache-a", None);
    assert!(stdout.contains("0 from the remote tier"), "{stdout}");
    assert!(
        store.join("v1/objects").is_dir(),
        "nothing written to {url}"
    );
    // Another machine: the manifest's store serves every asset.
    let stdout = run("b", "cache-b", None);
    assert!(
        stdout.contains("0 from the local tier") && stdout.contains(", 0 stored"),
        "{stdout}"
    );
    assert!(!stdout.contains(" 0 from the remote tier"), "{stdout}");
    assert_eq!(tree(&dir.path().join("a")), tree(&dir.path().join("b")));
    // HEARTH_CACHE_URL wins over the manifest: an empty store, so nothing comes from a tier.
    let other = format!("file://{}", dir.path().join("other-store").display());
    let stdout = run("c", "cache-c", Some(&other));
    assert!(
        stdout.contains("0 from the local tier, 0 from the remote tier"),
        "{stdout}"
    );
    assert!(dir.path().join("other-store/v1/objects").is_dir());
}

#[test]
fn two_bakes_racing_on_the_same_keys_both_leave_valid_objects() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("cache");
    let manifests: Vec<PathBuf> = (0..2)
        .map(|i| checkout(&dir.path().join(format!("checkout-{i}"))))
        .collect();
    // Same local tier, same bucket prefix, at the same time.
    let reports: Vec<Report> = std::thread::scope(|scope| {
        let handles: Vec<_> = manifests
            .iter()
            .enumerate()
            .map(|(i, manifest)| {
                let config = moto.config("race", &local, Mode::ReadWrite);
                let out = dir.path().join(format!("out-{i}"));
                scope.spawn(move || bake(manifest, &out, Some(config), |_| {}).0)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, report) in reports.iter().enumerate() {
        assert!(
            report.warnings.iter().all(|w| !w.contains("cache")),
            "{:?}",
            report.warnings
        );
        assert_eq!(&tree(&dir.path().join(format!("out-{i}"))), reference());
    }
    // Whoever won each key, both tiers now serve every asset, whole.
    let fresh_local = dir.path().join("cache-2");
    let (report, calls) = bake(
        &manifests[0],
        &dir.path().join("out-remote"),
        Some(moto.config("race", &fresh_local, Mode::ReadWrite)),
        |_| {},
    );
    assert_eq!((calls, report.shared_remote_hits.len()), (0, report.assets));
    let (report, calls) = bake(
        &manifests[1],
        &dir.path().join("out-local"),
        Some(local_only(&local)),
        |_| {},
    );
    assert_eq!((calls, report.shared_local_hits.len()), (0, report.assets));
    assert!(report.warnings.iter().all(|w| !w.contains("discarded")));
}

#[test]
fn an_unreachable_remote_costs_one_warning() {
    // A loopback port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let out = dir.path().join("out");
    let config = SharedCacheConfig {
        local_dir: Some(dir.path().join("cache")),
        remote_url: Some(format!("s3://{BUCKET}/nowhere")),
        remote_options: vec![
            ("aws_endpoint".into(), format!("http://127.0.0.1:{port}")),
            ("aws_allow_http".into(), "true".into()),
            ("aws_access_key_id".into(), "testing".into()),
            ("aws_secret_access_key".into(), "testing".into()),
            ("aws_region".into(), "us-east-1".into()),
        ],
        mode: Mode::ReadWrite,
    };
    let started = Instant::now();
    let (report, calls) = bake(&manifest, &out, Some(config), |_| {});
    assert_eq!((calls, report.baked.len()), (2, report.assets));
    assert_eq!(&tree(&out), reference());
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{:?}", report.warnings);
    // Refused connections fail fast: the retries do not stretch the bake by minutes.
    assert!(started.elapsed() < Duration::from_secs(60));
    // The local tier still filled.
    let stats = hearth::bake::shared_cache::local::stats(&dir.path().join("cache")).unwrap();
    assert_eq!(stats.objects as usize, report.assets);
}

/// A remote at `endpoint` (an S3 API on loopback), with a short request timeout.
fn remote_at(dir: &Path, endpoint: String) -> SharedCacheConfig {
    SharedCacheConfig {
        local_dir: Some(dir.join("cache")),
        remote_url: Some(format!("s3://{BUCKET}/team")),
        remote_options: vec![
            ("aws_endpoint".into(), endpoint),
            ("aws_allow_http".into(), "true".into()),
            ("aws_access_key_id".into(), "testing".into()),
            ("aws_secret_access_key".into(), "testing".into()),
            ("aws_region".into(), "us-east-1".into()),
            ("timeout".into(), "1s".into()),
        ],
        mode: Mode::ReadWrite,
    }
}

/// A server on loopback that answers every connection with `respond` (run on its own
/// thread per connection) until the test ends.
fn serve(respond: fn(TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || respond(stream));
        }
    });
    endpoint
}

/// Bakes the checkout against the broken remote at `endpoint`: every asset is still baked
/// (no remote hit) into the reference tree, with exactly one warning about the remote.
/// Returns the test's folder, the report and that warning.
fn bake_against_broken_remote(endpoint: String) -> (tempfile::TempDir, Report, String) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let out = dir.path().join("out");
    let (report, calls) = bake(
        &manifest,
        &out,
        Some(remote_at(dir.path(), endpoint)),
        |_| {},
    );
    assert_eq!((calls, report.baked.len()), (2, report.assets));
    assert_eq!(&tree(&out), reference());
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{:?}", report.warnings);
    let warning = warnings[0].clone();
    (dir, report, warning)
}

#[test]
fn a_remote_that_never_answers_costs_one_warning_after_its_timeout() {
    // Accepts, reads, and never says a word: every request runs into the 1 s timeout.
    let endpoint = serve(|mut stream| {
        let mut buffer = [0u8; 4096];
        while matches!(stream.read(&mut buffer), Ok(n) if n > 0) {}
    });
    let started = Instant::now();
    bake_against_broken_remote(endpoint);
    // One timed-out request (and its retries), not one per asset.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_remote_that_denies_access_costs_one_warning() {
    // Every request: 403 AccessDenied, as S3 answers a key without permission.
    let endpoint = serve(|mut stream| {
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buffer) {
                Ok(n) if n > 0 => request.extend_from_slice(&buffer[..n]),
                _ => return,
            }
        }
        let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>\
                    <Message>Access Denied</Message></Error>";
        let _ = write!(
            stream,
            "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let (dir, report, warning) = bake_against_broken_remote(endpoint);
    assert!(
        warning.contains("403") || warning.to_lowercase().contains("denied"),
        "the warning says why: {warning:?}"
    );
    // The local tier still filled.
    let stats = hearth::bake::shared_cache::local::stats(&dir.path().join("cache")).unwrap();
    assert_eq!(stats.objects as usize, report.assets);
}
