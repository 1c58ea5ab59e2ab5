//! Benchmark of the GitHub loop against the loopback stand-in of the tests
//! (`host/tests/common/github.rs`): GitHub requests per followed deferral, and the time of the
//! `tick` that follows 1,000 dispatched attempts.
//!
//! ```text
//! cargo run --release -p deferral-host --example follow_bench -- [--attempts 1000] [--dir DIR]
//! ```
//! Prints one JSON document on stdout. Each tick runs in-process (`tick::tick`) with a real
//! `GithubClient` over loopback HTTP and a SQLite store (WAL, `synchronous=FULL`).

#[allow(dead_code)]
#[path = "../tests/common/checks.rs"]
mod checks;
#[allow(dead_code)]
#[path = "../tests/common/gate.rs"]
mod gate;
#[allow(dead_code)]
#[path = "../tests/common/github.rs"]
mod github;

use deferral_core::decision::Reserve;
use deferral_host::clock::now_ms;
use deferral_host::github::auth::Auth;
use deferral_host::github::client::GithubClient;
use deferral_host::github::quota::Quota;
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{SqliteStore, Store};
use deferral_host::tick::{tick, TickOptions, TickReport};
use deferral_host_conformance::distinct_handoff;
use github::{Script, Standin, TARGET, TOKEN};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

const HOUR: u64 = 3_600_000;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn client(standin: &Standin) -> GithubClient {
    GithubClient::new(
        &standin.api,
        Auth::Token(TOKEN.into()),
        Duration::from_secs(30),
        Quota::new(Reserve::Absolute(0)),
    )
    .unwrap()
}

fn run_tick(store: &dyn Store, standin: &Standin) -> (TickReport, Duration) {
    let options = TickOptions {
        limit: 10_000,
        github: Some(client(standin)),
        ..TickOptions::new(deferral_host::launch::Launchers::builtin())
    };
    let start = Instant::now();
    let report = tick(store, &options, now_ms).unwrap();
    (report, start.elapsed())
}

fn record(store: &dyn Store, n: usize) {
    let now = now_ms();
    for _ in 0..n {
        let receipt = distinct_handoff(now, 0, HOUR);
        deferral_host::lifecycle::insert::insert_new(
            store,
            receipt.to_json().as_bytes(),
            TARGET,
            2,
            now,
        )
        .unwrap();
    }
}

/// API requests apart from 304s, and the 304s, since `from`.
fn counted(standin: &Standin, from: usize) -> (usize, usize) {
    let seen = standin.seen();
    let new = &seen[from..];
    let not_modified = new.iter().filter(|s| s.status == 304).count();
    (new.len() - not_modified, not_modified)
}

/// One deferral through dispatch and follow; `polls` list calls see its run in progress.
fn per_deferral(dir: &Path, name: &str, script: Script, ticks: usize) -> Value {
    let standin = Standin::start();
    let store = SqliteStore::open(&dir.join(format!("{name}.db")), IntegrityCheck::Quick).unwrap();
    record(&store, 1);
    standin.script(script);
    for _ in 0..ticks {
        run_tick(&store, &standin);
    }
    let state = store.list(&Default::default()).unwrap()[0].state;
    let (requests, not_modified) = counted(&standin, 0);
    let blob = standin.state.lock().unwrap().blob_requests;
    json!({"case": name, "final_state": state.as_str(), "requests": requests,
           "not_modified": not_modified, "blob_downloads": blob, "ticks": ticks})
}

fn follow_many(dir: &Path, attempts: usize, in_progress: bool) -> Value {
    let standin = Standin::start();
    standin.state.lock().unwrap().remaining = 1_000_000;
    let store = SqliteStore::open(
        &dir.join(format!("many-{in_progress}.db")),
        IntegrityCheck::Quick,
    )
    .unwrap();
    record(&store, attempts);
    for _ in 0..attempts {
        standin.script(Script {
            polls_in_progress: if in_progress { 1_000_000 } else { 0 },
            ..Script::default()
        });
    }
    let (report, dispatch_time) = run_tick(&store, &standin);
    assert_eq!(report.launched.len(), attempts);
    let before = standin.seen().len();
    let (report, first) = run_tick(&store, &standin);
    let (first_requests, first_304) = counted(&standin, before);
    let followed = report.follow.as_ref().map_or(0, |f| f.followed.len());
    let before = standin.seen().len();
    let (_, second) = run_tick(&store, &standin);
    let (second_requests, second_304) = counted(&standin, before);
    json!({
        "attempts": attempts,
        "runs": if in_progress { "all in progress" } else { "all completed, no artifact" },
        "dispatch_tick_ms": dispatch_time.as_millis(),
        "follow_tick_ms": first.as_millis(),
        "follow_tick_requests": first_requests,
        "follow_tick_not_modified": first_304,
        "followed_to_an_outcome": followed,
        "next_tick_ms": second.as_millis(),
        "next_tick_requests": second_requests,
        "next_tick_not_modified": second_304,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let attempts: usize = arg(&args, "--attempts").map_or(1000, |n| n.parse().unwrap());
    let base = arg(&args, "--dir").unwrap_or_else(|| ".".into());
    let dir = tempfile::Builder::new()
        .prefix("follow-bench")
        .tempdir_in(base)
        .unwrap();
    let receipt = {
        let t = now_ms();
        deferral_core::receipt::Receipt::handoff(
            deferral_core::receipt::Reason::RestReserve,
            t,
            t,
            t + HOUR,
            deferral_core::receipt::Bindings {
                scope_digest: "a".repeat(64),
                request_digest: "b".repeat(64),
                plan_digest: None,
            },
            true,
        )
        .unwrap()
        .to_json()
    };
    let per = vec![
        per_deferral(
            dir.path(),
            "completes before the first look",
            Script::default(),
            2,
        ),
        per_deferral(
            dir.path(),
            "in progress for 3 looks, then completes",
            Script {
                polls_in_progress: 3,
                ..Script::default()
            },
            5,
        ),
        per_deferral(
            dir.path(),
            "defers again (artifact), then completes",
            Script {
                artifact: Some(receipt),
                ..Script::default()
            },
            4,
        ),
    ];
    let many = vec![
        follow_many(dir.path(), attempts, true),
        follow_many(dir.path(), attempts, false),
    ];
    let out = json!({
        "bench": "deferral-host GitHub loop",
        "command": "cargo run --release -p deferral-host --example follow_bench",
        "per_followed_deferral": per,
        "tick_following_many": many,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
