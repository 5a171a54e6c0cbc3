//! One bake on many machines (issue 39): shards partition the assets (the same from any
//! checkout folder), bake into the shared cache (a real S3 API server on loopback, moto, as in
//! `shared_cache.rs`), and one assemble step writes the output from cache hits alone,
//! byte-identical to a one-machine bake. A shard killed mid-bake, a duplicated shard, a shard
//! with nowhere to store and an unreachable remote are each tried.
#![cfg(all(feature = "cli", feature = "remote-cache"))]

use crate::common;
use crate::shared_cache::{Moto, BUCKET};

use hearth::bake::shard::Shard;
use hearth::bake::shared_cache::SharedCacheConfig;
use hearth::bake::{BakeError, Baker};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// Every variable a shard or the shared cache reads: the tests set what they mean to.
pub(crate) const CLEARED: [&str; 16] = [
    "HEARTH_CACHE_DIR",
    "HEARTH_CACHE_URL",
    "HEARTH_CACHE_MODE",
    "HEARTH_SHARD",
    "HEARTH_SHARDS",
    "JOB_COMPLETION_INDEX",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB",
    "BUILDKITE_PARALLEL_JOB_COUNT",
    "FAILPOINTS",
    "NUM_JOBS",
];

/// A checkout of the example content plus twelve generated data files of different sizes, at
/// `dir/content`: its manifest.
pub(crate) fn checkout(dir: &Path) -> PathBuf {
    let root = dir.join("content");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/content"),
        &root,
    );
    for i in 0..12 {
        let body = format!("{{\"i\": {i}, \"pad\": \"{}\"}}", "x".repeat(i * 700 + 3));
        common::write_files(
            &root,
            &[(&format!("data/gen/{i:02}.json"), body.as_bytes())],
        );
    }
    root.join("hearth.toml")
}

/// The `hearth` command in `dir`, with a clean environment for the cache and the schedulers
/// (and its own user cache folder), plus `env`.
pub(crate) fn hearth(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hearth"));
    command.args(args).current_dir(dir);
    for name in CLEARED {
        command.env_remove(name);
    }
    command.env("XDG_CACHE_HOME", dir.join("user-cache"));
    command.envs(env.iter().map(|(k, v)| (k, v)));
    command
}

/// Runs it: (success, stdout, stderr).
pub(crate) fn run(dir: &Path, args: &[&str], env: &[(&str, String)]) -> (bool, String, String) {
    let output = hearth(dir, args, env).output().unwrap();
    text(output)
}

fn text(output: Output) -> (bool, String, String) {
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The last line of stdout as the `--json` summary.
pub(crate) fn summary(stdout: &str) -> Value {
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The output folder's files, less hearth's own dot files (the incremental cache records this
/// machine's paths and mtimes).
pub(crate) fn tree(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = common::contents(out);
    files.retain(|path, _| {
        !path
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    });
    files
}

/// `--shard K/N --list`: the shard's assets.
fn list(dir: &Path, manifest: &Path, shard: &str) -> Vec<String> {
    let manifest = manifest.to_str().unwrap();
    let (ok, stdout, stderr) = run(dir, &["bake", manifest, "--shard", shard, "--list"], &[]);
    assert!(ok, "{stderr}");
    stdout.lines().map(str::to_owned).collect()
}

/// A one-machine bake of `manifest` with no shared cache: its tree.
pub(crate) fn reference(dir: &Path, manifest: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let out = dir.join("reference");
    let args = [
        "bake",
        manifest.to_str().unwrap(),
        "--preset",
        "debug",
        "-o",
    ];
    let mut args = args.to_vec();
    args.push(out.to_str().unwrap());
    let (ok, _, stderr) = run(dir, &args, &[("HEARTH_CACHE_MODE", "off".into())]);
    assert!(ok, "{stderr}");
    tree(&out)
}

#[test]
fn shards_cover_every_asset_once_at_every_count_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let a = checkout(&dir.path().join("a"));
    let b = checkout(&dir.path().join("b/another/checkout"));
    let all = list(dir.path(), &a, "1/1");
    assert!(all.len() > 20, "{all:?}");
    assert!(all
        .iter()
        .all(|p| !p.starts_with('/') && !p.contains(dir.path().to_str().unwrap())));
    for n in 1..=8 {
        let mut seen = BTreeSet::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let here = list(dir.path(), &a, &shard);
            assert_eq!(
                here,
                list(dir.path(), &b, &shard),
                "{shard} differs by folder"
            );
            for path in here {
                assert!(seen.insert(path.clone()), "{path} in two shards of {n}");
            }
        }
        assert_eq!(
            seen,
            all.iter().cloned().collect(),
            "{n} shards miss assets"
        );
    }
    // The JSON listing: the same assets, their costs (source bytes) and the shard's total.
    let manifest = a.to_str().unwrap();
    let (ok, stdout, _) = run(
        dir.path(),
        &["bake", manifest, "--shard", "2/3", "--list", "--json"],
        &[],
    );
    assert!(ok);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (json["shard"].as_u64(), json["shards"].as_u64()),
        (Some(2), Some(3))
    );
    let assets = json["assets"].as_array().unwrap();
    let paths: Vec<&str> = assets.iter().map(|a| a["path"].as_str().unwrap()).collect();
    assert_eq!(paths, list(dir.path(), &a, "2/3"));
    let total: u64 = assets.iter().map(|a| a["cost"].as_u64().unwrap()).sum();
    assert_eq!(json["cost"].as_u64(), Some(total));
    assert_eq!(json["unit"], "bytes");
}

#[test]
fn shard_auto_reads_the_scheduler_s_variables() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let path = manifest.to_str().unwrap();
    let expected = list(dir.path(), &manifest, "2/3");
    for (var, value) in [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("JOB_COMPLETION_INDEX", "1"),
        ("CI_NODE_INDEX", "2"),
        ("BUILDKITE_PARALLEL_JOB", "1"),
    ] {
        let env = [(var, value.to_owned()), ("HEARTH_SHARDS", "3".to_owned())];
        let (ok, stdout, stderr) = run(
            dir.path(),
            &["bake", path, "--shard", "auto", "--list"],
            &env,
        );
        assert!(ok, "{var}: {stderr}");
        assert_eq!(stdout.lines().collect::<Vec<_>>(), expected, "{var}");
    }
    let env = [("HEARTH_SHARD", "2/3".to_owned())];
    let (_, stdout, _) = run(
        dir.path(),
        &["bake", path, "--shard", "auto", "--list"],
        &env,
    );
    assert_eq!(stdout.lines().collect::<Vec<_>>(), expected);
    // No index: the error names where it looked. An index without a count names HEARTH_SHARDS
    // (a resubmitted Slurm task sees SLURM_ARRAY_TASK_COUNT=1: it is not trusted).
    let (ok, _, stderr) = run(dir.path(), &["bake", path, "--shard", "auto"], &[]);
    assert!(!ok && stderr.contains("SLURM_ARRAY_TASK_ID"), "{stderr}");
    assert!(stderr.contains("JOB_COMPLETION_INDEX") && stderr.contains("HEARTH_SHARD"));
    let env = [
        ("SLURM_ARRAY_TASK_ID", "2".to_owned()),
        ("SLURM_ARRAY_TASK_COUNT", "1".to_owned()),
    ];
    let (ok, _, stderr) = run(dir.path(), &["bake", path, "--shard", "auto"], &env);
    assert!(!ok && stderr.contains("HEARTH_SHARDS"), "{stderr}");
}

/// The S3 environment of a "machine": the remote under `prefix`, its own local tier.
fn machine(moto: &Moto, dir: &Path, prefix: &str, local: &str) -> Vec<(&'static str, String)> {
    let mut env = moto.env();
    env.push(("HEARTH_CACHE_URL", format!("s3://{BUCKET}/{prefix}")));
    env.push(("HEARTH_CACHE_DIR", dir.join(local).display().to_string()));
    env
}

fn start_shard(dir: &Path, manifest: &Path, shard: &str, env: &[(&str, String)]) -> Child {
    let args = [
        "bake",
        manifest.to_str().unwrap(),
        "--preset",
        "debug",
        "-j",
        "1",
        "--shard",
        shard,
        "--json",
    ];
    hearth(dir, &args, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `hearth bake --require-hits` into `out`: (success, its JSON summary, stderr).
fn assemble(
    dir: &Path,
    manifest: &Path,
    out: &Path,
    env: &[(&str, String)],
) -> (bool, Value, String) {
    let args = [
        "bake",
        manifest.to_str().unwrap(),
        "--preset",
        "debug",
        "--require-hits",
        "--shards",
        "3",
        "--json",
        "-o",
        out.to_str().unwrap(),
    ];
    let (ok, stdout, stderr) = run(dir, &args, env);
    (ok, summary(&stdout), stderr)
}

#[test]
fn shards_on_s3_killed_rerun_and_assembled_equal_a_one_machine_bake() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(&dir.path().join("farm"));
    let expected = reference(dir.path(), &manifest);
    // Three machines at once; the second is killed (aborted, as `kill -9`) after storing two
    // assets.
    let shards: Vec<Child> = (1..=3)
        .map(|k| {
            let mut env = machine(moto, dir.path(), "farm", &format!("cache-{k}"));
            if k == 2 {
                env.push((
                    "FAILPOINTS",
                    "shared_cache::stored=1*off->return(abort)".into(),
                ));
            }
            start_shard(dir.path(), &manifest, &format!("{k}/3"), &env)
        })
        .collect();
    let outputs: Vec<_> = shards
        .into_iter()
        .map(|c| text(c.wait_with_output().unwrap()))
        .collect();
    for k in [1, 3] {
        let (ok, stdout, stderr) = &outputs[k - 1];
        assert!(ok, "shard {k}: {stderr}");
        let json = summary(stdout);
        assert_eq!(json["shard"], format!("{k}/3"));
        assert_eq!(json["baked"], json["assets"], "{json}");
        assert_eq!(json["stored"], json["assets"], "{json}");
    }
    assert!(!outputs[1].0, "shard 2 was to be killed");
    assert!(
        !dir.path().join("runtime").exists(),
        "a shard wrote an output folder"
    );
    let second = list(dir.path(), &manifest, "2/3");
    assert!(second.len() > 3, "{second:?}");

    // The assemble, on another machine: it names every asset shard 2 did not store, with its
    // shard, and writes nothing.
    let elsewhere = checkout(&dir.path().join("assembler"));
    let out = dir.path().join("assembler/out");
    let env = machine(moto, dir.path(), "farm", "cache-assembler");
    let (ok, json, stderr) = assemble(dir.path(), &elsewhere, &out, &env);
    assert!(!ok, "{json}");
    let missing = json["missing"].as_array().unwrap();
    assert_eq!(missing.len(), second.len() - 2, "{json}");
    for asset in missing {
        let path = asset["path"].as_str().unwrap();
        assert!(second.iter().any(|p| p == path), "{path} is not shard 2's");
        assert_eq!(asset["shard"], 2);
        assert!(stderr.contains(&format!("{path} (shard 2/3)")), "{stderr}");
    }
    assert!(!out.exists(), "a refused assemble wrote its output folder");

    // Shard 2 again: it bakes only what is missing.
    let env2 = machine(moto, dir.path(), "farm", "cache-2");
    let rerun = start_shard(dir.path(), &manifest, "2/3", &env2);
    let (ok, stdout, stderr) = text(rerun.wait_with_output().unwrap());
    assert!(ok, "{stderr}");
    let json = summary(&stdout);
    assert_eq!(json["baked"].as_u64(), Some(missing.len() as u64), "{json}");
    assert_eq!(json["local_hits"].as_u64(), Some(2), "{json}");

    // Assembled: no pipeline runs, and the tree and the pack are the one-machine bake's.
    let (ok, json, stderr) = assemble(dir.path(), &elsewhere, &out, &env);
    assert!(ok, "{stderr}");
    assert_eq!(json["baked"], 0, "{json}");
    // (The refused assemble filled its local tier with what it found.)
    let hits = json["local_hits"].as_u64().unwrap() + json["remote_hits"].as_u64().unwrap();
    assert_eq!(json["assets"].as_u64(), Some(hits), "{json}");
    assert_eq!(
        json["assets"].as_u64(),
        Some(list(dir.path(), &manifest, "1/1").len() as u64)
    );
    assert_eq!(tree(&out), expected);
}

#[test]
fn concurrent_shards_on_s3_store_every_asset_once_at_every_count() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let total = list(dir.path(), &manifest, "1/1").len();
    for n in 1..=8 {
        let prefix = format!("count-{n}");
        let shards: Vec<Child> = (1..=n)
            .map(|k| {
                let env = machine(moto, dir.path(), &prefix, &format!("cache-{n}-{k}"));
                start_shard(dir.path(), &manifest, &format!("{k}/{n}"), &env)
            })
            .collect();
        let (mut assets, mut stored) = (0, 0);
        for (k, shard) in shards.into_iter().enumerate() {
            let (ok, stdout, stderr) = text(shard.wait_with_output().unwrap());
            assert!(ok, "shard {}/{n}: {stderr}", k + 1);
            let json = summary(&stdout);
            assets += json["assets"].as_u64().unwrap() as usize;
            stored += json["stored"].as_u64().unwrap() as usize;
        }
        // Each asset baked and stored by exactly one shard: one object and one recipe each.
        assert_eq!((assets, stored), (total, total), "{n} shards");
        let names = objects(moto, &prefix);
        let count = |kind: &str| names.keys().filter(|k| k.contains(kind)).count();
        assert_eq!(
            (count("/objects/"), count("/recipes/")),
            (total, total),
            "{n} shards"
        );
    }
}

/// Every object under `prefix`: name (less the prefix) -> ETag (the MD5 of its bytes).
fn objects(moto: &Moto, prefix: &str) -> BTreeMap<String, String> {
    let (status, body) = moto.http(
        "GET",
        &format!("/{BUCKET}?list-type=2&max-keys=1000&prefix={prefix}/"),
        b"",
    );
    assert_eq!(status, 200, "{body}");
    body.split("<Contents>")
        .skip(1)
        .map(|entry| {
            let field = |name: &str| {
                let open = format!("<{name}>");
                let rest = entry.split(&open).nth(1).unwrap();
                rest.split(&format!("</{name}>")).next().unwrap().to_owned()
            };
            (field("Key")[prefix.len()..].to_owned(), field("ETag"))
        })
        .collect()
}

#[test]
fn a_duplicated_shard_succeeds_twice_and_stores_what_one_copy_stores() {
    let moto = Moto::shared();
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    // Two copies of shard 1/3 at once (a CI retry), each with its own local tier.
    let copies: Vec<Child> = ["twice-a", "twice-b"]
        .iter()
        .map(|local| {
            let env = machine(moto, dir.path(), "twice", local);
            start_shard(dir.path(), &manifest, "1/3", &env)
        })
        .collect();
    for copy in copies {
        let (ok, _, stderr) = text(copy.wait_with_output().unwrap());
        assert!(ok, "{stderr}");
    }
    let env = machine(moto, dir.path(), "once", "once");
    let (ok, _, stderr) = text(
        start_shard(dir.path(), &manifest, "1/3", &env)
            .wait_with_output()
            .unwrap(),
    );
    assert!(ok, "{stderr}");
    let twice = objects(moto, "twice");
    assert!(!twice.is_empty());
    assert_eq!(twice, objects(moto, "once"));
    // Run again: every asset a hit, no object changed.
    let env = machine(moto, dir.path(), "twice", "twice-c");
    let (ok, stdout, stderr) = text(
        start_shard(dir.path(), &manifest, "1/3", &env)
            .wait_with_output()
            .unwrap(),
    );
    assert!(ok, "{stderr}");
    assert_eq!(summary(&stdout)["baked"], 0);
    assert_eq!(objects(moto, "twice"), twice);
}

#[test]
fn a_shard_with_nowhere_to_store_or_an_unreachable_remote_fails() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let path = manifest.to_str().unwrap();
    let shard = ["bake", path, "--preset", "debug", "--shard", "1/2"];
    // No shared cache (the user cache folder is this machine's alone).
    let (ok, _, stderr) = run(dir.path(), &shard, &[]);
    assert!(!ok && stderr.contains("needs a shared cache"), "{stderr}");
    // Read-only.
    let env = [
        (
            "HEARTH_CACHE_DIR",
            dir.path().join("c").display().to_string(),
        ),
        ("HEARTH_CACHE_MODE", "read".to_owned()),
    ];
    let (ok, _, stderr) = run(dir.path(), &shard, &env);
    assert!(!ok && stderr.contains("HEARTH_CACHE_MODE=read"), "{stderr}");
    // A remote nobody answers on: the shard fails naming it, and bakes nothing.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let env = [
        ("HEARTH_CACHE_URL", format!("s3://{BUCKET}/nowhere")),
        ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".to_owned()),
        ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
    ];
    let mut json_args = shard.to_vec();
    json_args.push("--json");
    let (ok, stdout, stderr) = run(dir.path(), &json_args, &env);
    assert!(!ok, "{stdout}");
    assert!(
        stderr.contains("shard 1/2") && stderr.contains("s3://hearth-cache/nowhere"),
        "{stderr}"
    );
    let json = summary(&stdout);
    assert_eq!(json["ok"], false);
    assert!(
        json["errors"][0].as_str().unwrap().contains("nowhere"),
        "{json}"
    );
}

#[test]
fn the_library_shards_into_a_shared_folder_and_assembles_from_hits_only() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let expected = reference(dir.path(), &manifest);
    let folder = |name: &str| SharedCacheConfig {
        local_dir: Some(dir.path().join(name)),
        ..SharedCacheConfig::default()
    };
    let unused = dir.path().join("unused");
    let mut assets = 0;
    for k in 1..=3 {
        let report = Baker::new(&manifest, &unused)
            .preset("debug")
            .shared_cache(folder("shared"))
            .shard(k, 3)
            .run()
            .unwrap();
        assert_eq!(report.shard, Some(Shard::new(k, 3).unwrap()));
        assert_eq!(report.baked.len(), report.assets);
        assets += report.assets;
    }
    assert!(!unused.exists(), "a shard wrote an output folder");
    // An empty cache: every asset is missing, each with its shard; nothing is written.
    let out = dir.path().join("out/nested");
    let error = Baker::new(&manifest, &out)
        .preset("debug")
        .shared_cache(folder("empty"))
        .require_hits(true)
        .shards(3)
        .run()
        .unwrap_err();
    let BakeError::Missing(missing) = error else {
        panic!("{error}")
    };
    assert_eq!(missing.len(), assets);
    assert!(missing
        .iter()
        .all(|m| m.shard.is_some_and(|s| s.count() == 3)));
    assert!(!dir.path().join("out").exists());
    let report = Baker::new(&manifest, &out)
        .preset("debug")
        .shared_cache(folder("shared"))
        .require_hits(true)
        .run()
        .unwrap();
    assert!(report.baked.is_empty());
    assert_eq!(report.shared_local_hits.len(), assets);
    assert_eq!(tree(&out), expected);
    // A changed source is in no cache: the assemble names it and leaves the previous output,
    // hearth's own files included, as it was.
    let before = common::contents(&out);
    let changed = manifest.parent().unwrap().join("data/gen/03.json");
    std::fs::write(&changed, b"{\"changed\": true}").unwrap();
    let error = Baker::new(&manifest, &out)
        .preset("debug")
        .shared_cache(folder("shared"))
        .require_hits(true)
        .run()
        .unwrap_err();
    let BakeError::Missing(missing) = &error else {
        panic!("{error}")
    };
    let names: Vec<&str> = missing.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(names, ["data/gen/03.json"]);
    assert!(error.to_string().contains("data/gen/03.json"), "{error}");
    assert_eq!(common::contents(&out), before);
    // Out of range.
    let error = Baker::new(&manifest, &unused)
        .shard(4, 3)
        .run()
        .unwrap_err();
    assert!(error.to_string().contains("4 of 3"), "{error}");
}

#[test]
fn balance_partitions_by_recorded_seconds_and_json_sums_up_any_bake() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checkout(dir.path());
    let path = manifest.to_str().unwrap();
    let out = dir.path().join("out");
    let timings = dir.path().join("timings.json");
    let args = [
        "bake",
        path,
        "--preset",
        "debug",
        "-o",
        out.to_str().unwrap(),
        "--json",
        "--timings",
        timings.to_str().unwrap(),
    ];
    let env = [("HEARTH_CACHE_MODE", "off".to_owned())];
    let (ok, stdout, stderr) = run(dir.path(), &args, &env);
    assert!(ok, "{stderr}");
    let json = summary(&stdout);
    for key in [
        "assets",
        "baked",
        "incremental_hits",
        "local_hits",
        "remote_hits",
        "stored",
        "warnings",
        "seconds",
    ] {
        assert!(json.get(key).is_some(), "{key}: {json}");
    }
    assert_eq!(json["baked"], json["assets"]);
    assert_eq!(
        stdout.lines().count(),
        1,
        "--json prints one line: {stdout}"
    );
    // Again: everything from the incremental cache.
    let (_, stdout, _) = run(dir.path(), &args[..7], &env);
    let again = summary(&stdout);
    assert_eq!(
        (again["baked"].as_u64(), &again["incremental_hits"]),
        (Some(0), &json["assets"])
    );

    let mut seen = BTreeSet::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let args = [
            "bake",
            path,
            "--shard",
            &shard,
            "--list",
            "--json",
            "--balance",
        ];
        let mut args = args.to_vec();
        args.push(timings.to_str().unwrap());
        let (ok, stdout, stderr) = run(dir.path(), &args, &[]);
        assert!(ok, "{stderr}");
        let listed: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(listed["unit"], "seconds");
        for asset in listed["assets"].as_array().unwrap() {
            assert!(seen.insert(asset["path"].as_str().unwrap().to_owned()));
            assert!(asset["cost"].as_f64().unwrap() >= 0.0);
        }
    }
    assert_eq!(seen.len() as u64, json["assets"].as_u64().unwrap());
    // A bake that cannot begin still prints its one object, naming what is wrong.
    let args = ["bake", path, "--json", "--balance", "no-such-timings.json"];
    let (ok, stdout, _) = run(dir.path(), &args, &[]);
    let json = summary(&stdout);
    assert!(!ok && json["ok"] == false, "{stdout}");
    assert!(
        json["error"]
            .as_str()
            .unwrap()
            .contains("no-such-timings.json"),
        "{json}"
    );
}
