//! One admission across runners, through a real `serve` over loopback on a real store
//! (SQLite; PostgreSQL where concurrency is the point): `POST /v1/admissions` answers exactly
//! what it admitted or why not and what is left; bad input is 400 with its code and writes
//! nothing; concurrent requests never admit together more than fits; a release is idempotent;
//! tick does not admit a deferral into what a runner took; a report that claims a larger window
//! or a reset far away never admits more than the pool's own limit allows.

mod common;

use common::serve_client::Serve;
use common::{now, Host, HOUR};
use deferral_host::clock::iso8601;
use deferral_host::store::pools::{PoolRow, PoolWrite, Resource};
use deferral_host::store::PoolStore;
use serde_json::{json, Value};

/// A reset ten minutes away, on a whole second (as GitHub states it).
fn reset_ms() -> u64 {
    (now() / 1000 + 600) * 1000
}

fn rest(limit: u64, remaining: u64, reserve: u64, reset_ms: u64) -> Value {
    json!({"limit": limit, "remaining": remaining, "reserve": reserve, "reset_ms": reset_ms})
}

fn ask(serve: &Serve, pool: &str, cost: Value, window: Value) -> (u16, Value) {
    let body = json!({"pool": pool, "cost": cost, "rate": {"observed_ms": now(), "rest": window}});
    serve.post("/v1/admissions", &body.to_string())
}

fn pool<'a>(pools: &'a Value, name: &str) -> Option<&'a Value> {
    pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == name)
}

#[test]
fn admitted_and_refused_answers_are_exact() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = reset_ms();
    let mut seqs = Vec::new();
    for left in [35, 25, 15, 5] {
        let (status, out) = ask(
            &serve,
            "app-42",
            json!({"rest": 10}),
            rest(45, 45, 5, reset),
        );
        assert_eq!(status, 201, "{out}");
        let seq = out["admission"]
            .as_str()
            .expect("the admission as a string")
            .to_string();
        let (number, secret) = seq.split_once('-').expect("SEQ-SECRET");
        assert!(number.bytes().all(|b| b.is_ascii_digit()), "{seq}");
        assert!(
            secret.len() == 32 && secret.bytes().all(|b| b.is_ascii_hexdigit()),
            "{seq}"
        );
        assert_eq!(
            out,
            json!({"admitted": true, "admission": seq, "pool": "app-42", "expires_ms": reset,
                   "window": {"rest": rest(45, left, 5, reset)}})
        );
        seqs.push(seq);
    }
    seqs.dedup();
    assert_eq!(seqs.len(), 4, "each admission has its own seq: {seqs:?}");
    let (status, out) = ask(
        &serve,
        "app-42",
        json!({"rest": 10}),
        rest(45, 45, 5, reset),
    );
    assert_eq!(status, 200, "{out}");
    let reason = format!(
        "pool app-42: 10 REST do not fit above the reserve 5 in the 5 left of the window that resets at {} (4 admitted, not reported)",
        iso8601(reset)
    );
    assert_eq!(
        out,
        json!({"admitted": false, "pool": "app-42", "reason": reason,
               "window": {"rest": rest(45, 5, 5, reset)}})
    );
    // What fits still fits: 5 left, a reserve of 5, a plan of 0 REST.
    let (status, out) = ask(&serve, "app-42", json!({}), rest(45, 45, 5, reset));
    assert_eq!((status, &out["admitted"]), (201, &json!(true)), "{out}");
    // The pool lists its open admissions, the runners' among them, and their cost.
    let (_, pools) = serve.get("/v1/pools");
    let app = pool(&pools, "app-42").expect("the pool has a row");
    assert_eq!(
        app["admissions"],
        json!({"open": 5, "runners": 5, "cost": {"rest": 40, "graphql": 0, "content_creating": 0}, "unknown_cost": 0}),
        "{app}"
    );
    assert_eq!(app["rest"]["remaining"], 45, "{app}");
    drop(serve);
    let text = host.run(&["status", "--pools"], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("5 (rest 40, graphql 0)"), "{text}");
}

#[test]
fn a_graphql_plan_is_decided_on_its_own_window_and_a_plan_larger_than_the_pools_window_never_fits()
{
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = reset_ms();
    let body = json!({"pool": "p", "cost": {"rest": 1, "graphql": 400, "content": 2},
        "rate": {"observed_ms": now(), "rest": rest(5000, 4000, 500, reset),
                 "graphql": rest(5000, 900, 500, reset)}});
    let (status, out) = serve.post("/v1/admissions", &body.to_string());
    assert_eq!(status, 201, "{out}");
    assert_eq!(
        out["window"],
        json!({"rest": rest(5000, 3999, 500, reset), "graphql": rest(5000, 500, 500, reset)})
    );
    let (status, out) = serve.post("/v1/admissions", &body.to_string());
    assert_eq!(status, 200, "{out}");
    assert_eq!(
        out["reason"],
        format!(
            "pool p: 400 GraphQL points do not fit above the reserve 500 in the 500 left of the window that resets at {} (1 admitted, not reported)",
            iso8601(reset)
        )
    );
    // A report of a larger window does not raise the pool's limit: 4,600 never fits 5,000 - 500.
    let huge = json!({"pool": "p", "cost": {"rest": 4600},
        "rate": {"observed_ms": now(), "rest": rest(100_000, 100_000, 500, reset)}});
    let (status, out) = serve.post("/v1/admissions", &huge.to_string());
    assert_eq!(status, 200, "{out}");
    assert_eq!(
        out["reason"],
        "pool p: 4600 REST never fit above the reserve 500 in a whole window of 5000"
    );
}

fn count_observations(host: &Host) -> i64 {
    let conn = rusqlite::Connection::open(&host.db).unwrap();
    conn.query_row("SELECT COUNT(*) FROM pool_observations", [], |r| r.get(0))
        .unwrap()
}

fn count_admissions(host: &Host) -> i64 {
    let conn = rusqlite::Connection::open(&host.db).unwrap();
    conn.query_row("SELECT COUNT(*) FROM admissions", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn bad_input_is_400_with_its_code_and_writes_nothing() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = reset_ms();
    let window = rest(45, 45, 5, reset);
    let rate = json!({"observed_ms": now(), "rest": window});
    let good = json!({"pool": "app-42", "cost": {"rest": 10}, "rate": rate});
    let with = |key: &str, value: Value| {
        let mut body = good.clone();
        body[key] = value;
        body.to_string()
    };
    let without = |key: &str| {
        let mut body = good.clone();
        body.as_object_mut().unwrap().remove(key);
        body.to_string()
    };
    let window_with = |key: &str, value: Value| {
        let mut w = window.clone();
        w[key] = value;
        with("rate", json!({"observed_ms": now(), "rest": w}))
    };
    let window_without = |key: &str| {
        let mut w = window.clone();
        w.as_object_mut().unwrap().remove(key);
        with("rate", json!({"observed_ms": now(), "rest": w}))
    };
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "invalid-request"),
        ("[1]".into(), "invalid-request"),
        (with("launch", json!("exec:/bin/true")), "invalid-request"),
        (without("pool"), "invalid-pool"),
        (with("pool", json!("a b")), "invalid-pool"),
        (with("pool", json!("")), "invalid-pool"),
        (with("pool", json!("x".repeat(65))), "invalid-pool"),
        (with("pool", json!(42)), "invalid-pool"),
        (without("cost"), "invalid-cost"),
        (with("cost", json!(10)), "invalid-cost"),
        (with("cost", json!({"rest": -1})), "invalid-cost"),
        (with("cost", json!({"rest": 1.5})), "invalid-cost"),
        (with("cost", json!({"rest": "10"})), "invalid-cost"),
        (with("cost", json!({"writes": 1})), "invalid-cost"),
        (with("cost", json!({"content": -2})), "invalid-cost"),
        // 41 > 45 - 5: it never fits a window.
        (with("cost", json!({"rest": 41})), "invalid-cost"),
        (without("rate"), "invalid-rate-state"),
        (with("rate", json!("45")), "invalid-rate-state"),
        (with("rate", json!({"rest": window})), "invalid-rate-state"),
        (
            with("rate", json!({"observed_ms": now()})),
            "invalid-rate-state",
        ),
        (
            with("rate", json!({"observed_ms": -1, "rest": window})),
            "invalid-rate-state",
        ),
        (
            with("rate", json!({"observed_ms": now(), "core": window})),
            "invalid-rate-state",
        ),
        (window_without("reset_ms"), "invalid-rate-state"),
        (window_without("reserve"), "invalid-rate-state"),
        (window_with("remaining", json!(-3)), "invalid-rate-state"),
        (window_with("remaining", json!(46)), "invalid-rate-state"),
        (window_with("limit", json!("45")), "invalid-rate-state"),
        (window_with("reset_ms", json!(1.5e12)), "invalid-rate-state"),
        (window_with("used", json!(0)), "invalid-rate-state"),
    ];
    for (body, code) in &cases {
        let (status, out) = serve.post("/v1/admissions", body);
        assert_eq!(
            (status, out["error"]["code"].as_str()),
            (400, Some(*code)),
            "{body}: {out}"
        );
        assert!(
            !out["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .is_empty(),
            "{out}"
        );
    }
    let (_, pools) = serve.get("/v1/pools");
    assert!(
        pool(&pools, "app-42").is_none(),
        "no pool row was written: {pools}"
    );
    assert_eq!(count_observations(&host), 0, "no observation was kept");
    assert_eq!(count_admissions(&host), 0, "nothing was admitted");
    // Release: a bad seq or an unknown one is 404, a bad rate 400; the admission stays open.
    let (status, out) = serve.post("/v1/admissions", &good.to_string());
    assert_eq!(status, 201, "{out}");
    let seq = out["admission"].as_str().unwrap().to_string();
    for path in [
        "/v1/admissions/x/release".to_string(),
        "/v1/admissions/-1/release".to_string(),
        "/v1/admissions/99999/release".to_string(),
    ] {
        let (status, out) = serve.post(&path, "");
        assert_eq!(
            (status, out["error"]["code"].as_str()),
            (404, Some("not-found")),
            "{path}: {out}"
        );
    }
    let release = format!("/v1/admissions/{seq}/release");
    for (body, code) in [
        (
            json!({"rate": {"observed_ms": now()}}),
            "invalid-rate-state",
        ),
        (json!({"cost": {"rest": 1}}), "invalid-request"),
    ] {
        let (status, out) = serve.post(&release, &body.to_string());
        assert_eq!(
            (status, out["error"]["code"].as_str()),
            (400, Some(code)),
            "{out}"
        );
    }
    let (_, pools) = serve.get("/v1/pools");
    assert_eq!(pool(&pools, "app-42").unwrap()["admissions"]["open"], 1);
    assert_eq!(count_observations(&host), 1, "only the good request's");
}

#[test]
fn a_release_is_idempotent_and_teaches_the_pool() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = reset_ms();
    let admit = |cost: u64| {
        let (status, out) = ask(&serve, "p", json!({"rest": cost}), rest(45, 45, 5, reset));
        assert_eq!(status, 201, "{out}");
        out["admission"].as_str().unwrap().to_string()
    };
    let first = admit(10);
    let second = admit(20);
    // Released with what the run saw after its work: the pool learns it.
    let seen = json!({"rate": {"observed_ms": now(), "rest": rest(45, 33, 5, reset)}});
    let path = format!("/v1/admissions/{first}/release");
    let (status, out) = serve.post(&path, &seen.to_string());
    assert_eq!((status, out), (200, json!({"released": true})));
    let (status, out) = serve.post(&path, &seen.to_string());
    assert_eq!(
        (status, out),
        (200, json!({"released": false, "already": true}))
    );
    let (_, pools) = serve.get("/v1/pools");
    let p = pool(&pools, "p").unwrap();
    assert_eq!(p["rest"]["remaining"], 33, "{p}");
    assert_eq!(p["admissions"]["open"], 1, "{p}");
    // Released without a rate state: its cost is taken as spent.
    let path = format!("/v1/admissions/{second}/release");
    let (status, out) = serve.post(&path, "");
    assert_eq!((status, out), (200, json!({"released": true})));
    let (status, out) = serve.post(&path, "{}");
    assert_eq!(
        (status, out),
        (200, json!({"released": false, "already": true}))
    );
    let (_, pools) = serve.get("/v1/pools");
    let p = pool(&pools, "p").unwrap();
    assert_eq!(p["rest"]["remaining"], 13, "33 less the 20 taken: {p}");
    assert_eq!(p["admissions"]["open"], 0, "{p}");
    // What is left now: 13 - 5 = 8.
    let (status, out) = ask(&serve, "p", json!({"rest": 8}), rest(45, 45, 5, reset));
    assert_eq!(
        (status, &out["window"]["rest"]["remaining"]),
        (201, &json!(5))
    );
}

/// Twelve clients at once over one pool whose window holds 40 above its reserve, each asking
/// for 10: exactly 4 are admitted, never 5. Ten rounds, a fresh pool each, so that twelve
/// requests race for the last place again and again.
fn concurrent_requests_never_over_admit(host: &Host) {
    let serve = Serve::start(host, &["exec:"]);
    let reset = reset_ms();
    let rounds = 10;
    let start = std::sync::Barrier::new(12);
    let answers: Vec<(usize, u16, Value)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..12)
            .map(|_| {
                scope.spawn(|| {
                    (0..rounds)
                        .map(|round| {
                            start.wait();
                            let pool = format!("shared-{round}");
                            let (status, out) =
                                ask(&serve, &pool, json!({"rest": 10}), rest(45, 45, 5, reset));
                            (round, status, out)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect()
    });
    assert!(
        answers.iter().all(|(_, s, _)| *s == 201 || *s == 200),
        "every request answered: {answers:?}"
    );
    let (_, pools) = serve.get("/v1/pools");
    for round in 0..rounds {
        let admitted: Vec<&str> = answers
            .iter()
            .filter(|(r, status, _)| *r == round && *status == 201)
            .map(|(_, _, out)| out["admission"].as_str().unwrap())
            .collect();
        assert_eq!(
            admitted.len(),
            4,
            "round {round}: 4 x 10 fit 40, 5 x 10 do not: {answers:?}"
        );
        let p = pool(&pools, &format!("shared-{round}")).unwrap();
        assert_eq!(p["admissions"]["cost"]["rest"], 40, "{p}");
        assert_eq!(p["admissions"]["open"], 4, "{p}");
    }
}

#[test]
fn concurrent_requests_never_over_admit_sqlite() {
    concurrent_requests_never_over_admit(&Host::new());
}

#[test]
fn concurrent_requests_never_over_admit_postgres() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    concurrent_requests_never_over_admit(&Host::with_store(&schema.url).init());
}

/// A gate line of a deferral due now, cost `cost`, that saw the window `(limit, remaining)`.
fn gate_line(cost: u64, remaining: u64, reset_ms: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","rest":{{"limit":45,"remaining":{remaining},"reserve":5,"plannedCost":{cost},"reset":{},"ok":false}},"graphql":null,"plan":{{"rest":{cost},"graphql":0}},"deferredReceipt":{receipt}}}"#,
        reset_ms / 1000
    )
}

fn tick_with_runner_admission(runner_cost: u64) -> (Host, String, Value) {
    let host = Host::new();
    let reset = reset_ms();
    // The runner asks first: a deferral recorded before it would go first (a runner never
    // goes before the pool's due deferrals).
    let serve = Serve::start(&host, &["exec:"]);
    let (status, out) = ask(
        &serve,
        "app-42",
        json!({"rest": runner_cost}),
        rest(45, 45, 5, reset),
    );
    assert_eq!(status, 201, "{out}");
    drop(serve);
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
        &gate_line(10, 45, reset),
    );
    let id = out["id"].as_str().unwrap().to_string();
    let report = host.tick(&["--pool-jitter", "0s"]);
    (host, id, report)
}

#[test]
fn tick_does_not_admit_a_deferral_into_what_a_runner_admission_took() {
    // 40 above the reserve; a runner took 35: the deferral's 10 do not fit.
    let (host, id, report) = tick_with_runner_admission(35);
    assert_eq!(report["launched"], json!([]), "{report}");
    assert_eq!(report["held"][0]["ids"], json!([id]), "{report}");
    let status = host.status(&id);
    assert_eq!(status["state"], "deferred", "not claimed: {status}");
    assert_eq!(status["reentries"], 0, "no re-entry counted: {status}");
    assert!(
        status["held"]["why"]
            .as_str()
            .unwrap_or_default()
            .contains("0 of 1"),
        "{status}"
    );
    // A runner that took 25 leaves room for it: it launches.
    let (host, id, report) = tick_with_runner_admission(25);
    assert_eq!(report["launched"][0]["id"], id, "{report}");
    assert_eq!(host.status(&id)["state"], "complete");
}

#[test]
fn a_holding_pool_admits_nothing_until_a_later_window_is_reported() {
    let host = Host::new();
    let reset = reset_ms();
    let serve = Serve::start(&host, &["exec:"]);
    let (status, _) = ask(&serve, "p", json!({"rest": 1}), rest(45, 45, 5, reset));
    assert_eq!(status, 201);
    // The pool holds its waiting deferrals for the next window, as tick leaves it.
    let store = host.open();
    let row = store.pool("p").unwrap().unwrap();
    let mut held = row.clone();
    held.hold_until_ms = Some(reset + 1000);
    held.hold_reason = Some("pool p: 0 of 3 fit the window that resets at then".into());
    let write = PoolWrite {
        expect_version: row.version,
        row: held,
        admit: Vec::new(),
        release: Vec::new(),
        observations: Vec::new(),
        at_ms: now(),
    };
    store.write_pool(&write).unwrap().expect("written");
    let (status, out) = ask(&serve, "p", json!({"rest": 1}), rest(45, 40, 5, reset));
    assert_eq!(status, 200, "{out}");
    assert_eq!(
        out,
        json!({"admitted": false, "pool": "p",
               "reason": format!("pool p holds until {}: 0 of 3 fit the window that resets at then", iso8601(reset + 1000)),
               "window": {"rest": rest(45, 0, 5, reset)}})
    );
    let after: PoolRow = store.pool("p").unwrap().unwrap();
    assert_eq!(after.hold_until_ms, Some(reset + 1000), "the hold stands");
    assert_eq!(
        after.window(Resource::Rest).unwrap().remaining,
        40,
        "the report was learned"
    );
    // A later window claimed while this one still runs (its reset ten minutes away) is not
    // believed: two windows cannot both be current; the hold stands (pool_ledger.rs shows a
    // later window reported after the reset).
    let (status, out) = ask(
        &serve,
        "p",
        json!({"rest": 1}),
        rest(45, 45, 5, reset + HOUR / 2),
    );
    assert_eq!(status, 200, "{out}");
    let after: PoolRow = store.pool("p").unwrap().unwrap();
    assert_eq!(
        after.window(Resource::Rest).unwrap().reset_ms,
        reset,
        "{out}"
    );
}

#[test]
fn a_report_of_a_larger_window_or_a_far_reset_never_admits_more_than_the_pools_limit() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = reset_ms();
    let (status, _) = ask(
        &serve,
        "app-42",
        json!({"rest": 10}),
        rest(45, 45, 5, reset),
    );
    assert_eq!(status, 201);
    let far = now() + 10 * 24 * HOUR;
    let mut admitted = 10;
    for _ in 0..10 {
        let body = json!({"pool": "app-42", "cost": {"rest": 10},
            "rate": {"observed_ms": far, "rest": rest(1_000_000, 999_999, 5, far)}});
        let (status, out) = serve.post("/v1/admissions", &body.to_string());
        if status == 201 {
            admitted += 10;
            assert!(
                out["expires_ms"].as_u64().unwrap() <= now() + HOUR,
                "counted at most an hour: {out}"
            );
        }
    }
    assert_eq!(
        admitted, 40,
        "the pool's own 45 less its reserve of 5, no more"
    );
    let (_, pools) = serve.get("/v1/pools");
    let p = pool(&pools, "app-42").unwrap();
    assert_eq!(p["rest"]["limit"], 45, "{p}");
    assert!(
        p["rest"]["reset_ms"].as_u64().unwrap() <= now() + HOUR,
        "a reset believed at most an hour away: {p}"
    );
    assert_eq!(p["admissions"]["cost"]["rest"], 40, "{p}");
}

#[test]
fn serve_keeps_a_refused_runners_cost_and_rate_beside_its_receipt() {
    let host = Host::new();
    let serve = Serve::start(&host, &["exec:"]);
    let reset = reset_ms();
    let receipt: Value = serde_json::from_str(
        &deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json(),
    )
    .unwrap();
    let rate = json!({"observed_ms": now(), "rest": rest(45, 12, 5, reset)});
    let body = json!({"receipt": receipt, "launch": "exec:/bin/true", "pool": "app-42",
        "cost": {"rest": 10, "content": 1}, "rate": rate});
    for (key, value, code) in [
        ("cost", json!({"rest": -1}), "invalid-cost"),
        ("cost", json!({"rest": 41}), "invalid-cost"),
        ("rate", json!({"observed_ms": now()}), "invalid-rate-state"),
    ] {
        let mut bad = body.clone();
        bad[key] = value;
        let (status, out) = serve.post("/v1/deferrals", &bad.to_string());
        assert_eq!(
            (status, out["error"]["code"].as_str()),
            (422, Some(code)),
            "{out}"
        );
    }
    let (status, out) = serve.post("/v1/deferrals", &body.to_string());
    assert_eq!(status, 201, "{out}");
    let id = out["id"].as_str().unwrap().to_string();
    // A bare receipt still records as before.
    let (status, out) = serve.record("exec:/bin/true");
    assert_eq!(status, 201, "{out}");
    drop(serve);
    let status = host.status(&id);
    assert_eq!(status["pool"], "app-42");
    assert_eq!(
        status["cost"],
        json!({"rest": 10, "graphql": 0, "content_creating": 1})
    );
    let show = host.expect(0, &["show", "--json", &id], "");
    assert_eq!(show["observations"][0]["remaining"], 12, "{show}");
    assert_eq!(show["observations"][0]["reset_ms"], reset, "{show}");
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    assert_eq!(pool(&pools, "app-42").unwrap()["rest"]["remaining"], 12);
    let all = host.expect(0, &["status", "--json"], "");
    assert_eq!(
        all["deferrals"].as_array().unwrap().len(),
        2,
        "only the two good ones"
    );
}
