//! A held deferral waits for the resource that binds it: a REST-only job is held until REST's
//! reset, not until a later reset of a GraphQL window it spends nothing of, and `tick --dry-run`
//! says when the held are due again instead of "no wake-up is scheduled".

mod common;

use common::{now, Host, HOUR};

/// A gate line deferred with REST spent (resetting at `rest_reset` s) and a full GraphQL window
/// that resets at `graphql_reset` s; the plan costs 10 REST and no GraphQL.
fn rest_only_line(rest_reset: u64, graphql_reset: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":3,"reserve":5,"plannedCost":10,"reset":{rest_reset},"ok":false}},"graphql":{{"limit":5000,"remaining":5000,"reserve":500,"plannedCost":0,"reset":{graphql_reset},"ok":true}},"plan":{{"rest":10,"graphql":0,"contentCreating":10}},"deferredReceipt":{receipt}}}"#
    )
}

#[test]
fn a_rest_only_job_is_held_until_rests_reset_and_the_dry_run_says_so() {
    let host = Host::new();
    let rest_reset_s = now() / 1000 + 600;
    let line = rest_only_line(rest_reset_s, rest_reset_s + 2400);
    host.expect(
        0,
        &[
            "record",
            "--launch",
            "exec:/bin/true",
            "--pool",
            "app-42",
            "-",
        ],
        &line,
    );
    let out = host.run(
        &[
            "tick",
            "--dry-run",
            "--pool-buffer",
            "1s",
            "--pool-jitter",
            "0s",
        ],
        "",
    );
    let report: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    let held = &report["held"][0];
    assert_eq!(held["held"], 1, "{report}");
    let until = held["until"].as_str().unwrap();
    let why = held["why"].as_str().unwrap();
    let rest_reset = deferral_host::clock::iso8601(rest_reset_s * 1000);
    assert!(
        why.ends_with(&format!("resets at {rest_reset}")),
        "the reason names REST's reset ({rest_reset}): {why}"
    );
    assert_eq!(
        until,
        deferral_host::clock::iso8601(rest_reset_s * 1000 + 1000),
        "held until REST's reset plus the buffer, not GraphQL's"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 held") && stderr.contains(&format!("due again at {until}")),
        "{stderr}"
    );
    assert!(!stderr.contains("no wake-up is scheduled"), "{stderr}");
}
