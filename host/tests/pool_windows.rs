//! The window ledger through a real `serve` (issue 26): runners' admissions and jobs' reports
//! of one GitHub window never over-admit, whatever the rounding or jitter of their resets; a
//! pool whose reports all say the reset has passed hands out one window, not one per cycle; a
//! runner never goes before the pool's due deferrals; a report of `limit: 0` holds the pool for
//! one window only; no answer carries a reserve above its limit.

mod common;

use common::serve_client::Serve;
use common::{now, Host};
use serde_json::{json, Value};

fn rest(limit: u64, remaining: u64, reserve: u64, reset_ms: u64) -> Value {
    json!({"limit": limit, "remaining": remaining, "reserve": reserve, "reset_ms": reset_ms})
}

fn ask(serve: &Serve, pool: &str, cost: u64, window: Value) -> (u16, Value) {
    let body = json!({"pool": pool, "cost": {"rest": cost}, "rate": {"observed_ms": now(), "rest": window}});
    serve.post("/v1/admissions", &body.to_string())
}

fn release(serve: &Serve, seq: &str, window: Option<Value>) -> u16 {
    let body = match window {
        Some(w) => json!({"rate": {"observed_ms": now(), "rest": w}}),
        None => json!({}),
    };
    serve
        .post(&format!("/v1/admissions/{seq}/release"), &body.to_string())
        .0
}

/// A gate's admission carries the reset to the millisecond, the job's report in whole seconds:
/// one window, the lowest remaining; the pool does not admit past what is left.
#[test]
fn a_report_in_whole_seconds_is_the_window_admitted_to_the_millisecond() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = (now() / 1000 + 600) * 1000 + 283;
    let (status, out) = ask(&serve, "app-42", 20, rest(45, 45, 5, reset));
    assert_eq!(status, 201, "{out}");
    let seq = out["admission"].as_str().unwrap().to_string();
    // The job spent 20 and reports the window as GitHub states it: whole seconds.
    assert_eq!(
        release(&serve, &seq, Some(rest(45, 25, 5, reset - 283))),
        200
    );
    let mut admitted = 0;
    for _ in 0..4 {
        let (status, _) = ask(&serve, "app-42", 10, rest(45, 45, 5, reset));
        if status == 201 {
            admitted += 10;
        }
    }
    assert_eq!(
        admitted, 20,
        "25 left less the reserve of 5: two of 10, no more"
    );
}

/// Runners whose resets differ by 300 to 700 ms, stale reports that raise remaining again,
/// releases without a rate: the window gives what it holds above the reserve, no more.
#[test]
fn jittered_resets_and_stale_reports_never_over_admit() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let base = (now() / 1000 + 600) * 1000;
    let mut admitted = 0;
    for i in 0..16u64 {
        let reset = base + 300 + (i % 5) * 100;
        // Every runner read the window when it was whole.
        let (status, out) = ask(&serve, "app-42", 5, rest(45, 45, 5, reset));
        if status == 201 {
            admitted += 5;
            let seq = out["admission"].as_str().unwrap();
            // Half release with a stale report of a full window, half with nothing.
            let stale = (i % 2 == 0).then(|| rest(45, 45, 5, reset + 200));
            assert_eq!(release(&serve, seq, stale), 200);
        }
    }
    assert_eq!(admitted, 40, "45 less the reserve of 5");
}

/// Every report says the reset has passed: the pool opens the next window once, charges what
/// it admits to it, and hands out one window, not one per admit/release cycle.
#[test]
fn reports_of_a_passed_reset_get_one_window_not_one_per_cycle() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let passed = (now() / 1000 - 5) * 1000;
    let mut admitted = 0;
    for _ in 0..5 {
        for _ in 0..5 {
            let (status, out) = ask(&serve, "app-42", 10, rest(45, 45, 5, passed));
            if status == 201 {
                admitted += 10;
                let seq = out["admission"].as_str().unwrap();
                assert_eq!(release(&serve, seq, None), 200);
            }
        }
    }
    assert_eq!(admitted, 40, "one window of 45 less the reserve of 5");
}

/// A reserve a runner reports is its own: it never lowers the pool's; and no answer carries a
/// reserve above the limit it gives (a larger credential's request in a smaller pool).
#[test]
fn the_reserve_never_falls_and_never_exceeds_the_limit_answered() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = (now() / 1000 + 600) * 1000;
    let (status, _) = ask(&serve, "p", 1, rest(45, 45, 5, reset));
    assert_eq!(status, 201);
    let (status, out) = ask(&serve, "p", 1, rest(45, 43, 0, reset));
    assert_eq!(status, 201, "{out}");
    assert_eq!(out["window"]["rest"]["reserve"], 5, "{out}");
    let (_, out) = ask(&serve, "p", 1, rest(5000, 4000, 500, reset));
    let w = &out["window"]["rest"];
    assert!(
        w["reserve"].as_u64().unwrap() <= w["limit"].as_u64().unwrap(),
        "no reserve above its limit: {out}"
    );
}

/// A gate line of a deferral due now in `pool`: `cost` REST, a window of `limit` with
/// `remaining` left and a reserve of 5, resetting at `reset_ms`.
fn record(host: &Host, pool: &str, cost: u64, limit: u64, remaining: u64, reset_ms: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, 3_600_000).to_json();
    let line = format!(
        r#"{{"status":"deferred","mode":"gate","rest":{{"limit":{limit},"remaining":{remaining},"reserve":5,"plannedCost":{cost},"reset":{},"ok":false}},"graphql":null,"plan":{{"rest":{cost},"graphql":0}},"deferredReceipt":{receipt}}}"#,
        reset_ms / 1000
    );
    let out = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "--pool", pool, "-"],
        &line,
    );
    out["id"].as_str().unwrap().to_string()
}

/// Waits until the clock has passed `t` (a condition on time itself, polled).
fn until_past(t: u64) {
    while now() <= t {
        std::thread::yield_now();
    }
}

/// Deferrals held for the next window go before a runner that reports that window: the runner
/// is refused with its place, and the next tick admits the held deferrals into the room the
/// runner did not take.
#[test]
fn a_runner_never_jumps_the_queue_of_held_deferrals() {
    let host = Host::new();
    let reset = (now() / 1000 + 1) * 1000;
    let ids: Vec<String> = (0..3)
        .map(|_| record(&host, "app-42", 20, 45, 0, reset))
        .collect();
    until_past(reset + 100);
    let serve = Serve::start(&host, &["exec:"]);
    let next = reset + 3_600_000;
    let (status, out) = ask(&serve, "app-42", 10, rest(45, 45, 5, next));
    assert_eq!(
        status, 200,
        "the runner waits behind the held deferrals: {out}"
    );
    assert!(
        out["reason"]
            .as_str()
            .unwrap()
            .contains("3 deferral(s) recorded earlier wait"),
        "{out}"
    );
    drop(serve);
    let report = host.tick(&["--pool-jitter", "0s", "--pool-buffer", "0s"]);
    let launched: Vec<&str> = report["launched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        launched,
        ids[..2].iter().map(String::as_str).collect::<Vec<_>>(),
        "{report}"
    );
    assert_eq!(report["held"][0]["ids"], json!([ids[2]]), "{report}");
}

/// One report of `limit: 0` (a runner's read of a GitHub answer that glitched once) holds the
/// pool for that window only: once its reset passes, the next window opens with the limit the
/// pool knew.
#[test]
fn a_report_of_limit_zero_holds_one_window_not_for_ever() {
    let host = Host::new();
    let reset = (now() / 1000 + 4) * 1000;
    let id = record(&host, "app-42", 10, 45, 45, reset);
    let serve = Serve::start(&host, &["exec:"]);
    let (status, out) = ask(&serve, "app-42", 1, rest(45, 35, 5, reset));
    assert_eq!(status, 201, "{out}");
    let seq = out["admission"].as_str().unwrap();
    assert_eq!(release(&serve, seq, Some(rest(0, 0, 0, reset))), 200);
    drop(serve);
    let report = host.tick(&["--pool-jitter", "0s", "--pool-buffer", "0s"]);
    assert!(now() < reset, "the first tick ran inside the window");
    assert_eq!(
        report["launched"],
        json!([]),
        "a limit of 0 this window: {report}"
    );
    until_past(reset + 100);
    let report = host.tick(&["--pool-jitter", "0s", "--pool-buffer", "0s"]);
    assert_eq!(
        report["launched"][0]["id"],
        id.as_str(),
        "the next window holds 40: {report}"
    );
}

/// Admission figures are bounded as the gate's are (2^53-1): a larger one is refused with its
/// code and writes nothing.
#[test]
fn figures_above_two_to_the_53_are_refused() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = (now() / 1000 + 600) * 1000;
    let body = json!({"pool": "p", "cost": {"rest": 1u64 << 60},
        "rate": {"observed_ms": now(), "rest": rest(45, 45, 5, reset)}});
    let (status, out) = serve.post("/v1/admissions", &body.to_string());
    assert_eq!(
        (status, &out["error"]["code"]),
        (400, &json!("invalid-cost")),
        "{out}"
    );
    let body = json!({"pool": "p", "cost": {"rest": 1},
        "rate": {"observed_ms": now(), "rest": rest(u64::MAX, 45, 5, reset)}});
    let (status, out) = serve.post("/v1/admissions", &body.to_string());
    assert_eq!(
        (status, &out["error"]["code"]),
        (400, &json!("invalid-rate-state")),
        "{out}"
    );
    let (_, pools) = serve.get("/v1/pools");
    assert!(
        !pools["pools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["pool"] == "p"),
        "nothing written: {pools}"
    );
}

/// Only the runner that was admitted releases its admission (issue 29 item 8): the number
/// alone, or the number with another secret, is 403 `wrong-handle` and leaves it open.
#[test]
fn a_release_needs_the_admissions_own_secret() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = (now() / 1000 + 600) * 1000;
    let (status, out) = ask(&serve, "app-42", 40, rest(45, 45, 5, reset));
    assert_eq!(status, 201, "{out}");
    let admission = out["admission"].as_str().unwrap().to_string();
    let (seq, _) = admission.split_once('-').unwrap();
    for forged in [seq.to_string(), format!("{seq}-{}", "0".repeat(32))] {
        let (status, out) = serve.post(&format!("/v1/admissions/{forged}/release"), "");
        assert_eq!(
            (status, &out["error"]["code"]),
            (403, &json!("wrong-handle")),
            "{out}"
        );
    }
    let (status, _) = ask(&serve, "app-42", 10, rest(45, 45, 5, reset));
    assert_eq!(
        status, 200,
        "still admitted: nothing left for another runner"
    );
    assert_eq!(release(&serve, &admission, None), 200);
}
