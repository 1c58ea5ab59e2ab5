//! What `record`, `serve` and `watch` take about pools, and what they refuse: a gate or resume
//! line records its `deferredReceipt` with its cost and rate state beside it; a bad pool name,
//! a bad cost, a bad rate state, a line that did not defer or whose receipt is invalid is a
//! stable code with nothing recorded; a report the pool does not believe is kept as evidence.

mod common;

use common::serve_client::Serve;
use common::{now, Host, HOUR};
use serde_json::Value;

/// A gate line deferred to `reset_s` with a valid receipt.
fn gate_line(limit: u64, remaining: u64, cost: u64, reset_s: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":{limit},"remaining":{remaining},"reserve":5,"plannedCost":{cost},"reset":{reset_s},"ok":false}},"graphql":{{"limit":5000,"remaining":4000,"reserve":500,"plannedCost":3,"reset":{reset_s},"ok":true}},"plan":{{"rest":{cost},"graphql":3,"contentCreating":2}},"deferredReceipt":{receipt}}}"#
    )
}

fn reset_s() -> u64 {
    now() / 1000 + 600
}

fn count(host: &Host) -> usize {
    host.expect(0, &["status", "--json"], "")["deferrals"]
        .as_array()
        .unwrap()
        .len()
}

fn pool<'a>(pools: &'a Value, name: &str) -> &'a Value {
    pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == name)
        .unwrap_or_else(|| panic!("pool {name} in {pools}"))
}

#[test]
fn record_takes_the_gate_line_its_receipt_cost_and_rate_state() {
    let host = Host::new();
    let line = gate_line(45, 3, 10, reset_s());
    let out = host.expect(
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
    let id = out["id"].as_str().unwrap();
    let receipt = serde_json::from_str::<Value>(&line).unwrap()["deferredReceipt"].clone();
    assert_eq!(
        out["receipt"]["bindings"], receipt["bindings"],
        "the receipt is the line's deferredReceipt"
    );
    let status = host.status(id);
    assert_eq!(status["pool"], "app-42");
    assert_eq!(status["cost"]["rest"], 10);
    assert_eq!(status["cost"]["graphql"], 3);
    assert_eq!(status["cost"]["content_creating"], 2);
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let app = pool(&pools, "app-42");
    assert_eq!(app["rest"]["limit"], 45);
    assert_eq!(app["rest"]["remaining"], 3);
    assert_eq!(app["rest"]["reserve"], 5);
    assert_eq!(app["graphql"]["remaining"], 4000);
    assert!(
        app["rest"]["source"].as_str().unwrap().contains(id),
        "{app}"
    );
    // A bare receipt still records, cost unknown, in the default pool.
    let bare = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let out = host.expect(0, &["record", "--launch", "exec:/bin/true", "-"], &bare);
    let status = host.status(out["id"].as_str().unwrap());
    assert_eq!(status["pool"], "default");
    assert_eq!(status["cost"], Value::Null);
}

#[test]
fn bad_input_is_a_stable_code_and_records_nothing() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    let reset = reset_s();
    let good = gate_line(45, 3, 10, reset);
    let long = "x".repeat(65);
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        (good.clone(), vec!["--pool", "a b"], "invalid-pool"),
        (good.clone(), vec!["--pool", ""], "invalid-pool"),
        (good.clone(), vec!["--pool", &long], "invalid-pool"),
        (good.clone(), vec!["--pool", "app/42"], "invalid-pool"),
        (
            good.replace("\"status\":\"deferred\"", "\"status\":\"ready\""),
            vec![],
            "gate-not-deferred",
        ),
        (gate_line(45, 3, 46, reset), vec![], "invalid-cost"),
        (
            good.replace("\"plannedCost\":10", "\"plannedCost\":-10"),
            vec![],
            "invalid-cost",
        ),
        (
            good.replace("\"plannedCost\":10", "\"plannedCost\":2.5"),
            vec![],
            "invalid-cost",
        ),
        (
            good.replace("\"contentCreating\":2", "\"contentCreating\":0.5"),
            vec![],
            "invalid-cost",
        ),
        (
            good.replace("\"remaining\":3", "\"remaining\":-3"),
            vec![],
            "invalid-rate-state",
        ),
        (
            good.replace("\"limit\":45", "\"limit\":\"45\""),
            vec![],
            "invalid-rate-state",
        ),
        // The receipt inside is validated by the core exactly as a bare one.
        (
            good.replace("\"version\":\"deferred-receipt-v1\"", "\"version\":\"v0\""),
            vec![],
            "unsupported-version",
        ),
    ];
    for (input, extra, code) in &cases {
        let mut args = vec!["record", "--launch", "exec:/bin/true"];
        args.extend(extra.iter().copied());
        args.push("-");
        let out = host.expect(2, &args, input);
        assert_eq!(out["error"]["code"], *code, "{args:?}: {out}");
    }
    assert_eq!(count(&host), 0, "nothing recorded");
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    assert!(
        pools["pools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["pool"] == "default"),
        "no pool was made: {pools}"
    );
    let out = host.expect(
        2,
        &[
            "watch",
            "octo/app",
            "--launch",
            "exec:/bin/true",
            "--pool",
            "no good",
        ],
        "",
    );
    assert_eq!(out["error"]["code"], "invalid-pool");
}

#[test]
fn a_report_the_pool_does_not_believe_is_kept_as_evidence_only() {
    let host = Host::new();
    let reset = reset_s();
    host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "--pool", "p", "-"],
        &gate_line(45, 30, 10, reset),
    );
    // A larger window than the pool's limit, and a reset ten days away.
    let far = now() / 1000 + 10 * 24 * 3600;
    let out = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "--pool", "p", "-"],
        &gate_line(1_000_000, 999_999, 10, far),
    );
    let id = out["id"].as_str().unwrap();
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let p = pool(&pools, "p");
    assert_eq!(
        p["rest"]["limit"], 45,
        "the pool's limit is not raised: {p}"
    );
    assert!(p["rest"]["remaining"].as_u64().unwrap() <= 45, "{p}");
    let reset_ms = p["rest"]["reset_ms"].as_u64().unwrap();
    assert!(
        reset_ms <= now() + 3_600_000,
        "a reset far away is believed an hour away: {p}"
    );
    let show = host.expect(0, &["show", "--json", id], "");
    let seen = &show["observations"];
    assert_eq!(
        seen[0]["limit"], 1_000_000,
        "the report is kept as it came: {show}"
    );
    assert_eq!(seen[0]["reset_ms"], far * 1000);
}

#[test]
fn serve_records_a_gate_line_in_a_pool_and_lists_the_pools() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let line: Value = serde_json::from_str(&gate_line(45, 3, 10, reset_s())).unwrap();
    let body = serde_json::json!({"receipt": line, "launch": "exec:/bin/true", "pool": "app-7"});
    let (status, out) = serve.post("/v1/deferrals", &body.to_string());
    assert_eq!(status, 201, "{out}");
    let id = out["id"].as_str().unwrap().to_string();
    let (status, pools) = serve.get("/v1/pools");
    assert_eq!(status, 200, "{pools}");
    assert_eq!(pool(&pools, "app-7")["rest"]["remaining"], 3);
    for (body, code) in [
        (
            serde_json::json!({"receipt": line, "launch": "exec:/bin/true", "pool": "a b"}),
            "invalid-pool",
        ),
        (
            serde_json::json!({"receipt": line, "launch": "exec:/bin/true", "pool": 7}),
            "invalid-pool",
        ),
    ] {
        let (status, out) = serve.post("/v1/deferrals", &body.to_string());
        assert_eq!(out["error"]["code"], code, "{out}");
        assert!(status == 422 || status == 400, "{status}");
    }
    let mut ready = line.clone();
    ready["status"] = "ready".into();
    let (status, out) = serve.post(
        "/v1/deferrals",
        &serde_json::json!({"receipt": ready, "launch": "exec:/bin/true"}).to_string(),
    );
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (422, Some("gate-not-deferred"))
    );
    drop(serve);
    assert_eq!(count(&host), 1, "only the first was recorded");
    assert_eq!(host.status(&id)["pool"], "app-7");
}
