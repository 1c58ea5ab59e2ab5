//! `serve`'s record body takes `priority` and `fairness_key` (issue 28), refuses bad ones with
//! a stable code, answers the forecast, and `GET /v1/pools` has each pool's drain time.

mod common;

use common::server::{error_code, Server, TOKEN};
use common::{now, HOUR};
use serde_json::{json, Value};

fn gate_line(reset_s: u64, after_ms: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), after_ms, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":0,"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0,"contentCreating":10}},"deferredReceipt":{receipt}}}"#
    )
}

#[test]
fn the_record_body_takes_priority_and_fairness_key_and_answers_the_forecast() {
    let server = Server::start(&["--allow-launch", "exec:", "--no-check"]);
    let reset_s = now() / 1000 + 60;
    let after = reset_s * 1000 - now();
    let post = |extra: &str| {
        let body = format!(
            r#"{{"receipt":{},"launch":"exec:/bin/true","pool":"app-42"{extra}}}"#,
            gate_line(reset_s, after)
        );
        server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body)
    };
    for (extra, expected) in [
        (r#","priority":"high""#, (422, "invalid-priority")),
        (r#","priority":1.5"#, (422, "invalid-priority")),
        (r#","fairness_key":"""#, (422, "invalid-fairness-key")),
        (r#","fairness_key":"a\nb""#, (422, "invalid-fairness-key")),
    ] {
        let (status, out) = post(extra);
        assert_eq!((status, error_code(&out)), expected, "{extra}: {out}");
    }
    assert_eq!(server.count(), 0, "a refused body records nothing");
    let (status, out) = post(r#","priority":3,"fairness_key":"labeler""#);
    assert_eq!(status, 201, "{out}");
    assert_eq!(out["will_expire"], false, "{out}");
    let start = out["expected_start_ms"].as_u64().expect("a forecast start");
    assert!(start >= reset_s * 1000, "after the reset: {out}");
    let id = out["id"].as_str().unwrap();
    let (_, got) = server.call("GET", &format!("/v1/deferrals/{id}"), Value::Null);
    assert_eq!(
        (
            &got["priority"],
            &got["fairness_key"],
            &got["expected_start_ms"]
        ),
        (&json!(3), &json!("labeler"), &json!(start)),
        "{got}"
    );
    let (_, plain) = post("");
    let id = plain["id"].as_str().unwrap();
    let (_, got) = server.call("GET", &format!("/v1/deferrals/{id}"), Value::Null);
    assert_eq!(
        (&got["priority"], &got["fairness_key"]),
        (&json!(0), &json!("exec:/bin/true")),
        "the defaults: {got}"
    );
    let (status, pools) = server.call("GET", "/v1/pools", Value::Null);
    assert_eq!(status, 200);
    let pool = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "app-42")
        .expect("the pool is listed");
    assert_eq!(pool["expected_drain_ms"], json!(start), "{pool}");
    assert!(pool["expected_drain"].is_string(), "{pool}");
}
