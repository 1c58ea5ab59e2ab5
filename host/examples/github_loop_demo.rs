//! The GitHub loop, played against the loopback stand-in of the tests: a scheduled run defers
//! and uploads its receipt, `watch` ingests it, `tick` dispatches the resume workflow, the
//! stand-in runs it, `tick` follows it to `complete`. Nothing leaves loopback.
//!
//! ```text
//! cargo run -q -p deferral-host --example github_loop_demo
//! ```
//! Prints one JSON line per step on stdout (`{"step","what",...}`), for `npm run demo` or a
//! person to read.

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
use deferral_core::receipt::{Bindings, Reason, Receipt};
use deferral_host::clock::now_ms;
use deferral_host::github::auth::Auth;
use deferral_host::github::client::GithubClient;
use deferral_host::github::quota::Quota;
use deferral_host::ops::ingest::{watch, WatchOptions};
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{SqliteStore, Store};
use deferral_host::tick::{tick, TickOptions};
use github::{Script, Standin, REPO, TARGET, TOKEN};
use serde_json::{json, Value};
use std::time::Duration;

fn client(standin: &Standin) -> GithubClient {
    GithubClient::new(
        &standin.api,
        Auth::Token(TOKEN.into()),
        Duration::from_secs(10),
        Quota::new(Reserve::default()),
    )
    .unwrap()
}

fn step(n: u32, what: &str, detail: Value) {
    println!("{}", json!({"step": n, "what": what, "detail": detail}));
}

fn run_tick(store: &dyn Store, standin: &Standin) -> Value {
    let options = TickOptions {
        limit: 100,
        http_timeout: Duration::from_secs(10),
        github: Some(client(standin)),
        ..TickOptions::new(deferral_host::launch::Launchers::builtin())
    };
    tick(store, &options, now_ms).unwrap().to_json()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("host.db"), IntegrityCheck::Full).unwrap();
    let standin = Standin::start();

    let t = now_ms();
    let receipt = Receipt::handoff(
        Reason::RestReserve,
        t,
        t,
        t + 3_600_000,
        Bindings {
            scope_digest: deferral_core::digest::sha256_hex(b"nightly-labels"),
            request_digest: deferral_core::digest::sha256_hex(b"label 200 issues"),
            plan_digest: None,
        },
        false,
    )
    .unwrap()
    .to_json();
    let (run_id, artifact_id) = standin.scheduled_run_with_artifact(&receipt, false);
    step(
        1,
        "a scheduled run's gate deferred and uploaded its receipt as the artifact deferred-receipt",
        json!({"run_id": run_id, "artifact_id": artifact_id}),
    );

    let options = WatchOptions {
        repo: REPO.into(),
        launch: TARGET.into(),
        artifact_name: "deferred-receipt".into(),
        max_reentries: 2,
        commit_status: None,
        pool: None,
        // Defaults: every workflow, the default branch, no pull request events; never a fork.
        trust: Default::default(),
    };
    let mut watched = watch(&store, &client(&standin), &options, &now_ms).unwrap();
    if let Some(entry) = watched["ingested"][0].as_object_mut() {
        entry.insert(
            "cancellation_handle".into(),
            json!("(shown once; kept by the operator)"),
        );
    }
    step(2, "deferral-host watch ingested it", watched);

    standin.script(Script::default());
    let dispatched = run_tick(&store, &standin);
    step(
        3,
        "deferral-host tick dispatched the resume workflow",
        dispatched["launched"].clone(),
    );
    step(
        4,
        "the resume run did the work and succeeded without a new receipt",
        json!({"runs": standin.state.lock().unwrap().runs.len()}),
    );

    let followed = run_tick(&store, &standin);
    step(
        5,
        "deferral-host tick followed the run to its outcome",
        followed["followed"].clone(),
    );
    let requests = standin.seen().iter().filter(|s| s.status != 304).count();
    step(
        6,
        "done: GitHub API requests for the whole loop (watch list, artifact, dispatch, runs, artifacts)",
        json!({"requests": requests, "blob_downloads_without_token": standin.blob_authorizations().is_empty()}),
    );
}
