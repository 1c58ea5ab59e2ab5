//! Reads that cost what they show (issue 34, item 4), through the real binary: every read that
//! forecasts a pool answers in bounded time with a 2-second learned window, a deferral 29 days
//! away and 10,000 fairness keys; one tenant's many keys get one tenant's turns; a deferral its
//! pool can never start is flagged `will_expire`.
//!
//! The 10,000 deferrals are recorded through the library's `record` (the path the CLI takes),
//! each in its own transaction, to keep the test short; everything read is read from `serve`'s
//! port or the CLI. The bound is generous (the benchmark, `bench/host/forecast.sh`, carries
//! the figure): an older host takes minutes here.

mod common;

use common::server::{request, Server, TOKEN};
use common::{now, Host, HOUR};
use deferral_host::lifecycle::insert::{insert_once, Insertion};
use deferral_host::pools::expect::BACKLOG_LOOK;
use deferral_host::store::pools::{Cost, Observation, PoolTag, Resource, Window};
use deferral_host::store::RecordKeys;
use serde_json::Value;
use std::io::Write;
use std::time::{Duration, Instant};

const DAY: u64 = 24 * HOUR;
/// Far above what a read takes now (milliseconds), far below what it took before (minutes).
const BOUND: Duration = Duration::from_secs(20);

/// A report of the pool's REST window, as a gate saw it at `now`.
fn seen(reset_ms: u64, reserve: u64, at: u64) -> Observation {
    Observation {
        resource: Resource::Rest,
        window: Window {
            limit: 45,
            remaining: 0,
            reserve,
            reset_ms,
        },
        observed_ms: at,
        source: "record".into(),
        deferral_id: None,
    }
}

/// Records a deferral in pool `app-42` with the library's `record` (the CLI's path).
#[allow(clippy::too_many_arguments)]
fn put(
    store: &dyn deferral_host::store::Store,
    launch: &str,
    key: &str,
    priority: i64,
    after_ms: u64,
    by_ms: u64,
    seen: Vec<Observation>,
) -> String {
    let t = now();
    // A receipt's window is at most a day from when it was issued: one due days away was
    // issued then (the host takes the receipt's own times).
    let issued = t + after_ms.saturating_sub(HOUR);
    let receipt = deferral_host_conformance::distinct_handoff(
        issued,
        t + after_ms - issued,
        t + by_ms - issued,
    )
    .to_json();
    let keys = RecordKeys {
        pool: Some(PoolTag {
            pool: Some("app-42".into()),
            cost: Some(Cost::default().with(Resource::Rest, 10)),
            seen,
            priority: Some(priority),
            fairness_key: Some(key.into()),
        }),
        ..RecordKeys::default()
    };
    match insert_once(store, receipt.as_bytes(), launch, 2, keys, t).unwrap() {
        Insertion::New(r) => r.deferral.id,
        Insertion::Existing(d) => panic!("recorded twice: {}", d.id),
    }
}

/// `GET path` (or a POST with `body`) on a new connection: status, body and how long it took,
/// or the error when no answer came within [`BOUND`].
fn timed(server: &Server, method: &str, path: &str, body: &str) -> (u16, String, Duration) {
    let started = Instant::now();
    let mut stream = server.connect();
    stream.set_read_timeout(Some(BOUND)).unwrap();
    stream
        .write_all(request(method, path, body, false).as_bytes())
        .unwrap();
    let mut text = Vec::new();
    let read = std::io::Read::read_to_end(&mut stream, &mut text);
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&text).to_string();
    assert!(
        read.is_ok() && text.starts_with("HTTP/1.1"),
        "{method} {path}: no answer within {BOUND:?} ({read:?}, {} bytes)",
        text.len()
    );
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").map_or("", |b| b.1).to_string();
    (status, body, took)
}

/// 10,000 deferrals due now in one pool, each with its own fairness key (one tenant), behind a
/// window learned 3 s long (the shortest the ledger learns), and one deferral 29 days away: `POST /v1/deferrals`' answer,
/// `GET /v1/pools`, `GET /v1/deferrals/ID`, the status page, `/metrics` and
/// `status --pools --json` each answer within the bound, and the forecast they give is the
/// one the pool's rule gives (4 jobs of 10 a window of 45 less a reserve of 5).
#[test]
fn every_read_that_forecasts_answers_with_a_short_window_a_far_deferral_and_10000_keys() {
    let host = Host::new();
    let store = host.open();
    let t = now();
    // Two reports read while their windows were still ahead, the second after the first's
    // reset had passed by the host's clock, of resets 3 s apart: what the ledger learns a
    // length from (a runner cannot claim time that has not passed; resets within 2 s of each
    // other are one window), so the pool learns a 3 s window, the shortest a pool can learn.
    let first = t + 1_500;
    put(
        &store,
        "exec:/bin/true",
        "learn-0",
        0,
        0,
        HOUR,
        vec![seen(first, 5, now())],
    );
    while now() <= first {
        std::thread::sleep(Duration::from_millis(20));
    }
    put(
        &store,
        "exec:/bin/true",
        "learn-1",
        0,
        0,
        HOUR,
        vec![seen(first + 3_000, 5, now())],
    );
    let far = put(
        &store,
        "exec:/bin/true",
        "far",
        1,
        29 * DAY,
        29 * DAY + 2 * HOUR,
        vec![],
    );
    for i in 0..10_000 {
        put(
            &store,
            "exec:/bin/true",
            &format!("job-{i}"),
            0,
            0,
            2 * HOUR,
            vec![],
        );
    }
    drop(store);
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let pool = &pools["pools"][0];
    assert_eq!(pool["rest"]["learned_window_length_ms"], 3_000, "{pool}");

    let server = Server::start_on(host, &["--allow-launch", "exec:", "--no-check"]);
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let body = format!(
        r#"{{"receipt":{receipt},"launch":"exec:/bin/true","pool":"app-42","cost":{{"rest":10}},"fairness_key":"one-more","priority":1}}"#
    );
    let (status, answer, took) = timed(&server, "POST", "/v1/deferrals", &body);
    assert_eq!(status, 201, "{answer}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert!(answer["expected_start_ms"].is_u64(), "{answer}");
    eprintln!("record answer: {took:?}");

    let (status, body, took) = timed(&server, "GET", "/v1/pools", "");
    assert_eq!(status, 200, "{body}");
    let listed: Value = serde_json::from_str(&body).unwrap();
    let pool = &listed["pools"][0];
    eprintln!("GET /v1/pools: {took:?}");
    // The forecast's look (the far one first: priority 1) at 4 a 2-second window.
    assert_eq!(pool["held_forecast"], BACKLOG_LOOK, "{pool}");
    let drain = pool["expected_drain_ms"].as_u64().expect("a drain time");
    assert!(
        drain >= t + 29 * DAY,
        "the far deferral drains last: {pool}"
    );

    let (status, body, took) = timed(&server, "GET", &format!("/v1/deferrals/{far}"), "");
    assert_eq!(status, 200, "{body}");
    let view: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(view["expected_start_ms"].as_u64(), Some(drain), "{view}");
    assert_eq!(view["will_expire"], false, "{view}");
    eprintln!("GET /v1/deferrals/ID: {took:?}");

    for path in ["/", "/metrics"] {
        let (status, body, took) = timed(&server, "GET", path, "");
        assert_eq!(status, 200, "{path}: {body}");
        assert!(body.contains("app-42"), "{path}: {body}");
        eprintln!("GET {path}: {took:?}");
    }
    let started = Instant::now();
    server.host.expect(0, &["status", "--pools", "--json"], "");
    assert!(
        started.elapsed() < BOUND,
        "status --pools: {:?}",
        started.elapsed()
    );
}

/// One tenant (`exec:/bin/true`) gives each of its 12 jobs its own fairness key; another
/// (`exec:/bin/echo`) records 4 after them under one key. 4 fit the window: the tick admits 2
/// of each tenant (the tenants take turns; each key taking a turn of its own would admit the
/// first tenant's 4), and the forecast starts the second tenant's 4 in the first two windows.
#[test]
fn one_tenants_many_keys_get_one_tenants_turns() {
    let server = Server::start(&["--allow-launch", "exec:", "--no-check"]);
    let reset_s = now() / 1000 + 600;
    let line = |cost: u64| {
        let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
        format!(
            r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":45,"reserve":5,"plannedCost":{cost},"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":{cost},"graphql":0,"contentCreating":0}},"deferredReceipt":{receipt}}}"#
        )
    };
    let post = |launch: &str, key: &str| {
        let body = format!(
            r#"{{"receipt":{},"launch":"{launch}","pool":"app-42","fairness_key":"{key}"}}"#,
            line(10)
        );
        let (status, out) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body);
        assert_eq!(status, 201, "{out}");
        out["id"].as_str().unwrap().to_string()
    };
    let many: Vec<String> = (0..12)
        .map(|i| post("exec:/bin/true", &format!("run-{i}")))
        .collect();
    let few: Vec<String> = (0..4).map(|_| post("exec:/bin/echo", "echo")).collect();
    let start = |id: &str| {
        let (status, view) = server.call("GET", &format!("/v1/deferrals/{id}"), Value::Null);
        assert_eq!(status, 200, "{view}");
        view["expected_start_ms"]
            .as_u64()
            .expect("a forecast start")
    };
    let first_window = start(&many[0]);
    let second_window = start(&many[2]);
    assert!(second_window > first_window, "2 of each tenant a window");
    for id in &few {
        assert!(
            start(id) <= second_window,
            "the second tenant's 4 start within two windows: {} > {second_window}",
            start(id)
        );
    }
    let report = server.host.tick(&[]);
    let launched: Vec<String> = report["launched"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"))
        .iter()
        .map(|l| l["id"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(launched.len(), 4, "{report}");
    let of_few = launched.iter().filter(|id| few.contains(id)).count();
    assert_eq!(of_few, 2, "2 of each tenant: {report}");
}

/// A pool whose reserve takes its whole window holds that window (as `limit: 0` does), and a
/// deferral whose resume-by falls before the next window can never start: the record answer
/// and the deferral's view say `will_expire`, and its start is the next window's, after it.
#[test]
fn a_deferral_the_pool_can_never_start_will_expire() {
    let server = Server::start(&["--allow-launch", "exec:", "--no-check"]);
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, 30_000).to_json();
    let reset = now() + 60_000;
    let rate = format!(
        r#"{{"observed_ms":{},"rest":{{"limit":45,"remaining":45,"reserve":45,"reset_ms":{reset}}}}}"#,
        now()
    );
    let body = format!(
        r#"{{"receipt":{receipt},"launch":"exec:/bin/true","pool":"app-42","rate":{rate}}}"#
    );
    let (status, out) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body);
    assert_eq!(status, 201, "{out}");
    assert_eq!(
        out["will_expire"], true,
        "never started before its resume-by: {out}"
    );
    assert!(
        out["expected_start_ms"]
            .as_u64()
            .is_none_or(|at| at >= reset),
        "not before the held window ends: {out}"
    );
    let id = out["id"].as_str().unwrap();
    let (_, view) = server.call("GET", &format!("/v1/deferrals/{id}"), Value::Null);
    assert_eq!(view["will_expire"], true, "{view}");
}
