//! Idle pools cost nothing (issue 26): a pool with nothing waiting, nothing admitted and no
//! report for an hour is not visited by a tick and not listed by `status --pools`; one with a
//! deferral waiting is, however long ago it was written.

mod common;

use common::{now, Host};
use deferral_host::store::pools::{PoolRow, PoolWrite};
use deferral_host::store::PoolStore;

#[test]
fn idle_pools_are_neither_listed_nor_visited() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    let store = host.open();
    let long_ago = now() - 2 * 3_600_000;
    for i in 0..300 {
        let write = PoolWrite {
            expect_version: 0,
            row: PoolRow::empty(&format!("idle-{i}")),
            admit: Vec::new(),
            release: Vec::new(),
            observations: Vec::new(),
            at_ms: long_ago,
        };
        store.write_pool(&write).unwrap().expect("written");
    }
    let receipt = deferral_host_conformance::distinct_handoff(now(), 60_000, 3_600_000).to_json();
    host.expect(
        0,
        &[
            "record",
            "--launch",
            "exec:/bin/true",
            "--pool",
            "busy",
            "-",
        ],
        &receipt,
    );
    let listed = host.expect(0, &["status", "--pools", "--json"], "");
    let names: Vec<&str> = listed["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pool"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"busy"), "{names:?}");
    assert!(
        !names.iter().any(|n| n.starts_with("idle-")),
        "idle pools are not listed: {names:?}"
    );
    // Nothing is due: a pass visits no pool at all.
    assert!(store.pools_at_work(now()).unwrap().is_empty());
    assert_eq!(
        store.pools_at_work(now() + 120_000).unwrap(),
        vec!["busy".to_string()],
        "the pool with a due deferral"
    );
}
