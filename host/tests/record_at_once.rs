//! Several `init` processes at the same moment on a store none of them has seen before (a new
//! SQLite file, an empty PostgreSQL schema) all succeed on one store, and the same receipt then
//! recorded by several `record` processes at the same moment still becomes one deferral: every
//! process exits 0 and names it. (Only `init` creates a store.)

mod common;

use common::{now, Host, HOUR};
use std::sync::{Arc, Barrier};

const PROCESSES: usize = 8;

#[test]
fn eight_processes_recording_one_receipt_on_a_fresh_store_make_one_deferral() {
    record_at_once(Host::uncreated());
}

#[test]
fn eight_processes_recording_one_receipt_on_a_fresh_postgres_schema_make_one_deferral() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    record_at_once(Host::with_store(&schema.url));
}

/// Runs `args` in `PROCESSES` processes started together; answers their last lines.
fn at_once(host: &Arc<Host>, args: &'static [&'static str], stdin: &str) -> Vec<serde_json::Value> {
    let start = Arc::new(Barrier::new(PROCESSES));
    (0..PROCESSES)
        .map(|_| {
            let (host, stdin, start) = (host.clone(), stdin.to_string(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                host.expect(0, args, &stdin)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("a process failed"))
        .collect()
}

fn record_at_once(host: Host) {
    let host = Arc::new(host);
    let inits = at_once(&host, &["init"], "");
    assert!(
        inits.iter().any(|a| a["created"] == true),
        "one of them created it: {inits:?}"
    );
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let answers = at_once(
        &host,
        &["record", "--launch", "exec:/bin/true", "-"],
        &receipt,
    );

    let first = answers[0]["id"].as_str().expect("an id").to_string();
    assert!(
        answers.iter().all(|a| a["id"] == first.as_str()),
        "{answers:?}"
    );
    let fresh = answers
        .iter()
        .filter(|a| a.get("cancellation_handle").is_some())
        .count();
    assert_eq!(fresh, 1, "exactly one process gets the handle: {answers:?}");
    let already = answers
        .iter()
        .filter(|a| a["already_recorded"] == true)
        .count();
    assert_eq!(already, PROCESSES - 1, "{answers:?}");
    let listed = host.expect(0, &["status", "--json"], "");
    assert_eq!(listed["deferrals"].as_array().unwrap().len(), 1, "{listed}");
}
