//! `deferral-host run` on PostgreSQL: two replicas on one store launch each deferral exactly
//! once with no leader (the claim is a compare-and-set), and a write by another process wakes a
//! sleeping replica through LISTEN/NOTIFY.

mod common;

use common::pg::schema_or_skip;
use common::run::{stamping_target, stamps, wait_for, Run};
use common::{now, Host, HOUR};
use std::collections::BTreeMap;
use std::time::Duration;

#[test]
fn two_replicas_launch_each_deferral_exactly_once() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url).init();
    let file = host.path("stamps");
    let target = stamping_target(&host, &file);
    let flags = [
        "--allow-launch",
        target.as_str(),
        "--follow-interval",
        "10m",
    ];
    let a = Run::start(&host, "a", &flags);
    let b = Run::start(&host, "b", &flags);
    let mut due = BTreeMap::new();
    for i in 0..60u64 {
        // Half through each port; due from 2 s to 8 s from now, several at the same moment.
        let run = if i % 2 == 0 { &a } else { &b };
        let after = 2000 + (i / 3) * 300;
        let answer = run.record(&target, after, after + HOUR);
        due.insert(
            answer["id"].as_str().unwrap().to_string(),
            answer["receipt"]["resume_after_ms"].as_u64().unwrap(),
        );
    }
    let last = *due.values().max().unwrap();
    let seen = wait_for(
        Duration::from_millis(last.saturating_sub(now()) + 30_000),
        || {
            let seen = stamps(&file);
            (seen.len() >= due.len()).then_some(seen)
        },
    )
    .unwrap_or_else(|| {
        panic!(
            "{} of {} launched\n{}\n{}",
            stamps(&file).len(),
            due.len(),
            a.log(),
            b.log()
        )
    });
    let mut launches: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, at) in &seen {
        *launches.entry(id.as_str()).or_default() += 1;
        assert!(*at >= due[id], "{id} launched before its time");
    }
    assert_eq!(launches.len(), due.len(), "every deferral launched");
    let twice: Vec<_> = launches.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "launched more than once: {twice:?}");
    let store = host.open_any();
    for id in due.keys() {
        assert_eq!(
            store.get(id).unwrap().unwrap().state.as_str(),
            "complete",
            "{id}"
        );
    }
}

#[test]
fn a_record_by_another_process_wakes_a_sleeping_replica() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url).init();
    let file = host.path("stamps");
    let target = stamping_target(&host, &file);
    // Nothing else would wake it for ten minutes.
    let run = Run::start(
        &host,
        "run",
        &["--allow-launch", &target, "--follow-interval", "10m"],
    );
    // Recorded by the command line, not through the port: only the store's NOTIFY tells `run`.
    let (id, _) = host.record(&target, 1500, HOUR, &[]);
    let due = host.open_any().get(&id).unwrap().unwrap().resume_after_ms;
    let (_, at) = wait_for(Duration::from_secs(20), || stamps(&file).pop())
        .unwrap_or_else(|| panic!("never launched\n{}", run.log()));
    assert!(
        at >= due && at - due <= 1000,
        "launched {} ms after its time\n{}",
        at as i64 - due as i64,
        run.log()
    );
}

#[test]
fn readyz_answers_503_when_the_store_does_not_answer() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url).init();
    let run = Run::start(&host, "run", &[]);
    let (status, answer) = run.call("GET", "/readyz", false, "");
    assert_eq!(
        (status, &answer["ready"]),
        (200, &serde_json::Value::Bool(true)),
        "{answer}"
    );
    // The store's tables go away under it: reads fail.
    schema
        .client()
        .batch_execute(&format!("DROP SCHEMA {} CASCADE", schema.name))
        .unwrap();
    let (status, answer) = run.call("GET", "/readyz", false, "");
    assert_eq!(
        (status, &answer["error"]["code"]),
        (503, &serde_json::Value::from("not-ready")),
        "{answer}"
    );
    // Alive all the same.
    assert_eq!(run.call("GET", "/healthz", false, "").0, 200);
}
