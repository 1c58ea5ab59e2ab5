//! The same receipt recorded by several `record` processes at the same moment, on a store none
//! of them has seen before (a new SQLite file, an empty PostgreSQL schema), still becomes one
//! deferral: every process exits 0 and names it.

mod common;

use common::{now, Host, HOUR};
use std::sync::{Arc, Barrier};

const PROCESSES: usize = 8;

#[test]
fn eight_processes_recording_one_receipt_on_a_fresh_store_make_one_deferral() {
    record_at_once(Host::new());
}

#[test]
fn eight_processes_recording_one_receipt_on_a_fresh_postgres_schema_make_one_deferral() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    record_at_once(Host::with_store(&schema.url).init());
}

fn record_at_once(host: Host) {
    let host = Arc::new(host);
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let start = Arc::new(Barrier::new(PROCESSES));
    let answers: Vec<serde_json::Value> = (0..PROCESSES)
        .map(|_| {
            let (host, receipt, start) = (host.clone(), receipt.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                host.expect(0, &["record", "--launch", "exec:/bin/true", "-"], &receipt)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("a record process failed"))
        .collect();

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
