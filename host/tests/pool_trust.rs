//! A ledger nobody can poison (issue 34): whatever one runner (`POST /v1/admissions` and its
//! release) or one `exec:` attempt reports, a pool never admits more than its window holds and
//! is never closed for more than one window; whatever GitHub or a proxy answers to the host's
//! own `GET /rate_limit`, the pool's window stays sane. On SQLite and PostgreSQL.

mod common;

use common::github::Standin;
use common::github_cli::run_host;
use common::serve_client::Serve;
use common::{now, script, Host, HOUR};
use serde_json::{json, Value};

fn rest(limit: u64, remaining: u64, reserve: u64, reset_ms: u64) -> Value {
    json!({"limit": limit, "remaining": remaining, "reserve": reserve, "reset_ms": reset_ms})
}

fn ask(serve: &Serve, pool: &str, cost: u64, window: Value) -> (u16, Value) {
    let body = json!({"pool": pool, "cost": {"rest": cost}, "rate": {"observed_ms": now(), "rest": window}});
    serve.post("/v1/admissions", &body.to_string())
}

fn release(serve: &Serve, seq: &str, window: Value) -> u16 {
    let body = json!({"rate": {"observed_ms": now(), "rest": window}});
    serve
        .post(&format!("/v1/admissions/{seq}/release"), &body.to_string())
        .0
}

/// A gate line of a deferral due now: `cost` REST of a window of `limit` with `remaining` left,
/// a reserve of `reserve`, resetting at `reset_s` (GitHub's epoch seconds).
fn gate_line(cost: u64, limit: u64, remaining: u64, reserve: u64, reset_s: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","rest":{{"limit":{limit},"remaining":{remaining},"reserve":{reserve},"plannedCost":{cost},"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":{cost},"graphql":0}},"deferredReceipt":{receipt}}}"#
    )
}

fn record(host: &Host, launch: &str, pool: &str, line: &str) -> String {
    let out = host.expect(
        0,
        &["record", "--launch", launch, "--pool", pool, "-"],
        line,
    );
    out["id"].as_str().unwrap().to_string()
}

fn tick(host: &Host) -> Value {
    host.tick(&["--pool-jitter", "0s", "--pool-buffer", "0s"])
}

fn launched(report: &Value) -> Vec<String> {
    report["launched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect()
}

/// Waits until the clock has passed `t` (a condition on time itself, polled).
fn until_past(t: u64) {
    while now() <= t {
        std::thread::yield_now();
    }
}

fn pool<'a>(pools: &'a Value, name: &str) -> &'a Value {
    pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == name)
        .unwrap_or_else(|| panic!("pool {name} listed: {pools}"))
}

/// How a runner reports its resets.
#[derive(Clone, Copy)]
enum Resets {
    /// All already past when sent, each a bit more than the tolerance after the one before.
    Past,
    /// Each a little ahead when sent, sent once the one before has passed.
    Passing,
}

/// The issue's burst: one runner reports resets ever closer together, each after the one
/// before, so the shortest gap the pool has seen falls to milliseconds. Then 20 deferrals of
/// 10 wait in a window of 45 with a reserve of 5 (4 fit). Pass after pass, the pool admits 4
/// and holds the rest: never 4 more per pass because it believes a window of milliseconds.
fn close_resets(host: &Host, resets: Resets) {
    let ids: Vec<String> = (0..20)
        .map(|_| {
            let line = gate_line(10, 45, 45, 5, 1);
            record(host, "exec:/bin/true", "app-42", &line)
        })
        .collect();
    let serve = Serve::start(host, &["exec:"]);
    // Each gap a bit more than the tolerance (half the length learned so far): every reset
    // reads as a later window, every gap as a window length.
    let mut reset = match resets {
        Resets::Past => now() - 120_000,
        Resets::Passing => now() + 20,
    };
    let mut gap = 2_100u64;
    for _ in 0..24 {
        if let Resets::Passing = resets {
            until_past(reset.saturating_sub(gap));
        }
        let (status, out) = ask(&serve, "app-42", 1, rest(45, 45, 5, reset));
        assert!(status == 200 || status == 201, "{status} {out}");
        if let Some(seq) = out["admission"].as_str() {
            assert_eq!(release(&serve, seq, rest(45, 44, 5, reset)), 200);
        }
        reset += gap;
        gap = (gap / 2 + 2).max(3);
    }
    drop(serve);
    until_past(reset);
    let mut all = Vec::new();
    for _ in 0..6 {
        let report = tick(host);
        all.extend(launched(&report));
    }
    assert_eq!(
        all.len(),
        4,
        "one window of 45 less the reserve of 5 holds 4 of 10: launched {all:?} of {ids:?}"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let length = pool(&pools, "app-42")["rest"]["window_length_ms"]
        .as_u64()
        .unwrap();
    assert!(
        length >= 60_000,
        "no window shorter than a minute is learned: {pools}"
    );
}

#[test]
fn a_burst_of_close_resets_never_makes_a_pool_admit_a_window_per_pass() {
    close_resets(&Host::new(), Resets::Past);
}

#[test]
fn postgres_a_burst_of_close_resets_never_makes_a_pool_admit_a_window_per_pass() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    close_resets(&Host::with_store(&schema.url).init(), Resets::Past);
}

/// The same with resets that really pass, a few milliseconds ahead of each report: the pool
/// learns no window shorter than a minute.
#[test]
fn close_resets_that_really_pass_teach_no_window_shorter_than_a_minute() {
    close_resets(&Host::new(), Resets::Passing);
}

#[test]
fn postgres_close_resets_that_really_pass_teach_no_window_shorter_than_a_minute() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    close_resets(&Host::with_store(&schema.url).init(), Resets::Passing);
}

/// A reserve at or above the limit holds its window, as `limit: 0` does, and is unlearned when
/// the window resets: from a runner's release (reserve = limit), from a runner whose credential
/// is larger than the pool's (reserve 500 in a pool of 45), and from an `exec:` attempt's
/// report line (reserve 50 of 45). A limit of 1 reported of the window holds it alone too.
fn a_reserve_at_the_limit(host: &Host) {
    let reset = (now() / 1000 + 5) * 1000;
    let reset_s = reset / 1000;
    let waiting = |pool: &str| {
        record(
            host,
            "exec:/bin/true",
            pool,
            &gate_line(10, 45, 45, 5, reset_s),
        )
    };
    let released = waiting("released");
    let larger = waiting("larger");
    let lowered = waiting("lowered");
    let serve = Serve::start(host, &["exec:"]);
    // A runner's admission, released with a reserve equal to the limit.
    let (status, out) = ask(&serve, "released", 1, rest(45, 35, 5, reset));
    assert_eq!(status, 201, "{out}");
    let seq = out["admission"].as_str().unwrap();
    assert_eq!(release(&serve, seq, rest(45, 35, 45, reset)), 200);
    // A runner's admission, released with a limit of 1 (nothing of 10 fits a window of 1).
    let (status, out) = ask(&serve, "lowered", 1, rest(45, 35, 5, reset));
    assert_eq!(status, 201, "{out}");
    let seq = out["admission"].as_str().unwrap();
    assert_eq!(release(&serve, seq, rest(1, 0, 0, reset)), 200);
    // A runner of a larger credential asks in the pool of 45: its reserve of 500.
    let (_, out) = ask(&serve, "larger", 1, rest(5000, 4000, 500, reset));
    assert!(out["pool"] == "larger", "{out}");
    drop(serve);
    // An exec: attempt of pool "exec" reports a reserve above its limit; another waits behind.
    let poison = script(
        &host.path("poison.sh"),
        &format!(
            "echo '{{\"status\":\"ready\",\"mode\":\"resume\",\"rest\":{{\"limit\":45,\"remaining\":30,\"reserve\":50,\"plannedCost\":10,\"reset\":{reset_s},\"ok\":true}},\"graphql\":null,\"plan\":{{\"rest\":10,\"graphql\":0}}}}'"
        ),
    );
    record(host, &poison, "exec", &gate_line(10, 45, 45, 5, reset_s));
    let first = tick(host);
    assert_eq!(launched(&first).len(), 1, "the exec: attempt: {first}");
    let exec_waits = waiting("exec");
    let report = tick(host);
    assert!(
        now() < reset,
        "the held tick ran inside the window (reset {reset})"
    );
    assert_eq!(
        launched(&report),
        Vec::<String>::new(),
        "the window that reported a reserve at its limit holds: {report}"
    );
    until_past(reset + 100);
    let mut after = Vec::new();
    for _ in 0..3 {
        after.extend(launched(&tick(host)));
    }
    after.sort();
    let mut expected = vec![released, larger, lowered, exec_waits];
    expected.sort();
    assert_eq!(
        after, expected,
        "the next window admits again in every pool"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    for name in ["released", "larger", "lowered", "exec"] {
        let w = &pool(&pools, name)["rest"];
        assert!(
            w["reserve"].as_u64().unwrap() < w["limit"].as_u64().unwrap(),
            "the reserve is below the limit again in {name}: {w}"
        );
    }
}

#[test]
fn a_reserve_at_or_above_the_limit_holds_one_window_only() {
    a_reserve_at_the_limit(&Host::new());
}

#[test]
fn postgres_a_reserve_at_or_above_the_limit_holds_one_window_only() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    a_reserve_at_the_limit(&Host::with_store(&schema.url).init());
}

/// The loopback stand-in answers `GET /rate_limit` as a broken proxy might: `core` with a
/// remaining above its limit and a reset half a century ago, `graphql` with a reset decades
/// ahead. The pool's windows stay sane (remaining within the limit, a reset within the hour
/// ahead), and the tick's report says what was clamped.
#[test]
fn absurd_rate_limit_answers_are_clamped_and_said_so() {
    let host = Host::new();
    let standin = Standin::start();
    let decades = now() / 1000 + 40 * 365 * 86_400;
    standin.state.lock().unwrap().rate_limit_answer = Some((
        200,
        json!({"resources": {
            "core": {"limit": 5000, "used": 0, "remaining": 9000, "reset": 5},
            "graphql": {"limit": 5000, "used": 10, "remaining": 4990, "reset": decades}}}),
    ));
    host.record("exec:/bin/true", 0, HOUR, &["--pool", "user-octo"]);
    let args = [
        "tick",
        "--http-timeout",
        "5s",
        "--pool-jitter",
        "0s",
        "--rate-limit-pool",
        "user-octo",
    ];
    let before = now();
    let (out, text) = run_host(&host, &standin, &args);
    assert!(out.status.success(), "{text}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let clamped = report["rate_limit"]["clamped"].to_string();
    assert!(
        clamped.contains("remaining") && clamped.contains("past") && clamped.contains("ahead"),
        "the report says what was clamped: {report}"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let p = pool(&pools, "user-octo");
    for r in ["rest", "graphql"] {
        let w = &p[r];
        let reset = w["reset_ms"].as_u64().unwrap();
        assert!(
            reset >= before && reset <= now() + HOUR + 2_000,
            "{r}: a window's end is between now and an hour ahead: {w}"
        );
        assert!(
            w["reported_remaining"].as_u64().unwrap() <= w["limit"].as_u64().unwrap(),
            "{r}: remaining within the limit: {w}"
        );
        assert!(
            w["source"].as_str().unwrap().contains("clamped"),
            "{r}: the window says it was clamped: {w}"
        );
    }
}
