//! Benchmark of webhooks against polling: GitHub requests per followed run, counted by the
//! loopback stand-in of the tests (`host/tests/common/github.rs`).
//!
//! ```text
//! cargo build --release -p deferral-host --bin deferral-host --example webhook_bench
//! target/release/examples/webhook_bench [--looks 5] [--dir DIR]
//! ```
//! Each case dispatches its runs with one `tick`; each run is then in progress for `--looks`
//! ticks (a cron minute each) and completes with no artifact.
//! * polling: `tick` every minute follows the runs (one list call of the workflow's runs, with
//!   its ETag, each tick; then each completed run's artifact list);
//! * webhooks: the real `deferral-host serve --github-webhook-secret-file` takes one signed
//!   `workflow_run` `completed` delivery per run, while `tick --follow-interval 10m` keeps
//!   running every minute as the reconciler.
//!
//! Ticks run in-process (`tick::tick`) with a real client over loopback HTTP; the store is
//! SQLite. Prints one JSON document on stdout.

#[allow(dead_code)]
#[path = "../tests/common/checks.rs"]
mod checks;
#[allow(dead_code)]
#[path = "../tests/common/gate.rs"]
mod gate;
#[allow(dead_code)]
#[path = "../tests/common/github.rs"]
mod github;
#[allow(dead_code)]
#[path = "../tests/common/signing.rs"]
mod signing;

// The start of a listening port the benchmarks share.
#[allow(dead_code)]
#[path = "common/serve.rs"]
mod serve;

use deferral_core::decision::Reserve;
use deferral_host::clock::now_ms;
use deferral_host::github::auth::Auth;
use deferral_host::github::client::GithubClient;
use deferral_host::github::quota::Quota;
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{SqliteStore, Store};
use deferral_host::tick::{tick, TickOptions};
use deferral_host_conformance::distinct_handoff;
use github::{Script, Standin, TARGET, TOKEN};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const HOUR: u64 = 3_600_000;
const SECRET: &str = "bench-webhook-secret-not-real";

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn run_tick(store: &dyn Store, standin: &Standin, follow_interval: Option<Duration>) {
    let options = TickOptions {
        limit: 10_000,
        github: Some(
            GithubClient::new(
                &standin.api,
                Auth::Token(TOKEN.into()),
                Duration::from_secs(30),
                Quota::new(Reserve::Absolute(0)),
            )
            .unwrap(),
        ),
        max_chain: 50,
        follow_interval,
        ..TickOptions::new(deferral_host::launch::Launchers::builtin())
    };
    tick(store, &options, now_ms).unwrap();
}

fn open(dir: &Path, name: &str, runs: usize, standin: &Standin, looks: u32) -> SqliteStore {
    let store = SqliteStore::open(&dir.join(format!("{name}.db")), IntegrityCheck::Quick).unwrap();
    let now = now_ms();
    for _ in 0..runs {
        let receipt = distinct_handoff(now, 0, HOUR);
        deferral_host::lifecycle::insert::insert_new(
            &store,
            receipt.to_json().as_bytes(),
            TARGET,
            2,
            now,
        )
        .unwrap();
        standin.script(Script {
            polls_in_progress: looks,
            ..Script::default()
        });
    }
    store
}

fn complete(store: &dyn Store) -> usize {
    store
        .list(&Default::default())
        .unwrap()
        .iter()
        .filter(|d| d.state.as_str() == "complete")
        .count()
}

/// API requests after the dispatch (304s apart) and blob downloads, per run.
fn per_run(standin: &Standin, from: usize, runs: usize) -> Value {
    let seen = standin.seen();
    let after = &seen[from..];
    let not_modified = after.iter().filter(|s| s.status == 304).count();
    let requests = after.len() - not_modified;
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for s in after {
        let path = s.path.split('?').next().unwrap_or_default();
        let kind = if path.ends_with("/artifacts") {
            "artifact lists"
        } else if path.ends_with("/runs") {
            "run lists"
        } else if path.contains("/actions/runs/") {
            "single runs"
        } else {
            "other"
        };
        *kinds
            .entry(format!(
                "{kind}{}",
                if s.status == 304 { " (304)" } else { "" }
            ))
            .or_default() += 1;
    }
    json!({
        "runs": runs,
        "requests_per_run": requests as f64 / runs as f64,
        "not_modified_per_run": not_modified as f64 / runs as f64,
        "requests": requests,
        "not_modified": not_modified,
        "by_kind": kinds,
    })
}

fn polling(dir: &Path, runs: usize, looks: u32) -> Value {
    let standin = Standin::start();
    standin.state.lock().unwrap().remaining = 1_000_000;
    let store = open(dir, &format!("polling-{runs}"), runs, &standin, looks);
    run_tick(&store, &standin, None);
    let dispatched = standin.seen().len();
    let mut ticks = 0;
    while complete(&store) < runs {
        run_tick(&store, &standin, None);
        ticks += 1;
        assert!(ticks < 1000, "polling never completed the runs");
    }
    let mut out = per_run(&standin, dispatched, runs);
    out["ticks_after_dispatch"] = json!(ticks);
    out
}

struct Serve(Child, String);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(bin: &Path, dir: &Path, store: &Path, standin: &Standin) -> Serve {
    use std::os::unix::fs::PermissionsExt;
    let secrets = dir.join("secret");
    std::fs::write(&secrets, format!("{SECRET}\n")).unwrap();
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o600)).unwrap();
    serve::init(bin, &format!("sqlite:{}", store.display()));
    let (child, addr) = serve::spawn_listening(
        Command::new(bin)
            .arg("--store")
            .arg(format!("sqlite:{}", store.display()))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--github-webhook-secret-file",
            ])
            .arg(&secrets)
            .env(
                "DEFERRAL_SERVE_TOKEN",
                "bench-serve-token-not-real-0123456789",
            )
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_API_URL", &standin.api),
    );
    Serve(child, addr)
}

fn deliver(addr: &str, delivery: &str, body: &[u8]) -> u16 {
    let signature = signing::sign(SECRET, body);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-GitHub-Event: workflow_run\r\nX-GitHub-Delivery: {delivery}\r\nX-Hub-Signature-256: {signature}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(body).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn webhooks(bin: &Path, dir: &Path, runs: usize, looks: u32) -> Value {
    let standin = Standin::start();
    standin.state.lock().unwrap().remaining = 1_000_000;
    let name = format!("webhooks-{runs}");
    let store = open(dir, &name, runs, &standin, looks);
    let every = Some(Duration::from_secs(600));
    run_tick(&store, &standin, every);
    let dispatched = standin.seen().len();
    let serve = serve(bin, dir, &dir.join(format!("{name}.db")), &standin);
    // While the runs are in progress, cron ticks as before: the reconciler lists nothing yet.
    for _ in 0..looks {
        run_tick(&store, &standin, every);
    }
    let run_ids: Vec<u64> = standin
        .state
        .lock()
        .unwrap()
        .runs
        .iter()
        .map(|r| r.id)
        .collect();
    let started = Instant::now();
    for (n, run) in run_ids.iter().enumerate() {
        let body = standin.completed_delivery(*run).to_string();
        assert_eq!(
            deliver(&serve.1, &format!("bench-{n}"), body.as_bytes()),
            200
        );
    }
    let answered = started.elapsed();
    while complete(&store) < runs {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the deliveries did not end the runs"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let ended = started.elapsed();
    // And a later cron tick: nothing left to follow.
    run_tick(&store, &standin, every);
    drop(serve);
    let mut out = per_run(&standin, dispatched, runs);
    out["deliveries_answered_ms"] = json!(answered.as_millis());
    out["all_complete_after_first_delivery_ms"] = json!(ended.as_millis());
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let looks: u32 = arg(&args, "--looks").map_or(5, |n| n.parse().unwrap());
    let base = arg(&args, "--dir").unwrap_or_else(|| ".".into());
    let bin = serve::host_bin();
    let dir = tempfile::Builder::new()
        .prefix("webhook-bench")
        .tempdir_in(base)
        .unwrap();
    let cases: Vec<Value> = [1, 50]
        .into_iter()
        .map(|runs| {
            json!({
                "runs": runs,
                "polling": polling(dir.path(), runs, looks),
                "webhooks": webhooks(&bin, dir.path(), runs, looks),
            })
        })
        .collect();
    println!("{}", json!({"looks_in_progress": looks, "cases": cases}));
}
