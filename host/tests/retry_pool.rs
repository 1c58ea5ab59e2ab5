//! A retry stays in its pool: `deferral-host retry` of a deferral recorded in pool `app-1` with
//! a planned cost of 10 REST records the new deferral in `app-1` with that cost, so it waits for
//! room there like any other deferral of the pool instead of landing in `default` (no cost) and
//! being launched at once while `app-1` has no room (issue 26, "ways around the pool"). On
//! SQLite, and on PostgreSQL when `DEFERRAL_TEST_POSTGRES_URL` is set.

mod common;

use common::{lines, now, script, sq, Host, HOUR};

/// A deferred gate line of a 10-REST plan, having seen `remaining` of a 45 window resetting at
/// `reset_s`.
fn gate_line(remaining: u64, reset_s: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":{remaining},"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0,"contentCreating":0}},"deferredReceipt":{receipt}}}"#
    )
}

/// A host on SQLite, and one on PostgreSQL when the test server is there.
fn hosts() -> Vec<(Host, Option<common::pg::TestSchema>)> {
    let mut hosts = vec![(Host::new(), None)];
    if std::env::var("DEFERRAL_TEST_POSTGRES_URL").is_ok_and(|u| !u.is_empty()) {
        let schema = common::pg::schema_or_skip().unwrap();
        hosts.push((Host::with_store(&schema.url).init(), Some(schema)));
    }
    hosts
}

#[test]
fn a_retry_keeps_its_pool_and_cost_and_is_held_when_the_pool_has_no_room() {
    for (host, _schema) in hosts() {
        retry_in_a_full_pool(&host);
    }
}

fn retry_in_a_full_pool(host: &Host) {
    let marker = host.path("launched");
    // Each launch leaves a line, then ends blocked (exit 3).
    let launch = script(
        &host.path("job.sh"),
        &format!("cat > /dev/null; echo launched >> {}; exit 3", sq(&marker)),
    );
    let reset_s = now() / 1000 + 1800;
    let recorded = host.expect(
        0,
        &["record", "--launch", &launch, "--pool", "app-1", "-"],
        &gate_line(45, reset_s),
    );
    let id = recorded["id"].as_str().unwrap().to_string();
    let handle = recorded["cancellation_handle"]
        .as_str()
        .unwrap()
        .to_string();
    host.tick(&[]);
    assert_eq!(lines(&marker).len(), 1, "the first attempt was launched");
    assert_eq!(host.status(&id)["state"], "blocked");

    // Another job of app-1 reports the window nearly spent: 3 left, below the reserve of 5.
    host.expect(
        0,
        &[
            "record",
            "--launch",
            "exec:/bin/true",
            "--pool",
            "app-1",
            "-",
        ],
        &gate_line(3, reset_s),
    );

    let retried = host.expect(0, &["retry", &id, "--handle", &handle], "");
    let new = retried["id"].as_str().unwrap().to_string();
    let shown = host.expect(0, &["show", "--json", &new], "");
    assert_eq!(
        shown["deferral"]["pool"], "app-1",
        "the retry stays in its pool: {}",
        shown["deferral"]
    );
    assert_eq!(
        shown["deferral"]["cost"]["rest"], 10,
        "the retry keeps its planned cost: {}",
        shown["deferral"]
    );

    let report = host.tick(&["--pool-buffer", "0s", "--pool-jitter", "0s"]);
    assert_eq!(
        lines(&marker).len(),
        1,
        "the retry is not launched while app-1 has no room: {report}"
    );
    assert_eq!(host.status(&new)["state"], "deferred", "{report}");
    let held = report["held"]
        .as_array()
        .and_then(|h| h.iter().find(|p| p["pool"] == "app-1"))
        .unwrap_or_else(|| panic!("app-1 holds its deferrals: {report}"));
    assert_eq!(
        held["held"], 2,
        "the retry and the other job wait: {report}"
    );
}
