//! `deferral-host serve` as a client sees it: the built binary on port 0, HTTP spoken by hand
//! over a std TcpStream, the store checked through the library after each call.

mod common;

use common::server::{error_code, Server, TOKEN};
use common::{now, Host, HOUR};
use deferral_core::receipt::validate_str;
use deferral_host::handle::handle_digest;
use deferral_host::lifecycle;
use deferral_host::store::{AttemptStatus, Store};
use serde_json::{json, Value};
use std::net::TcpStream;

#[test]
fn every_request_needs_the_token() {
    let server = Server::start(&[]);
    let (status, head, body) = server.raw(b"GET /v1/deferrals/dx HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!((status, error_code(&body)), (401, "unauthorized"));
    assert!(
        head.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{head}"
    );
    for token in [
        "wrong-token-0123456789abcdef",
        &TOKEN[..TOKEN.len() - 1],
        "",
    ] {
        let (status, body) = server.call_with("GET", "/v1/deferrals/dx", Some(token), "");
        assert_eq!(
            (status, error_code(&body)),
            (401, "unauthorized"),
            "{token:?}"
        );
    }
    // Unknown routes are not revealed without the token either.
    assert_eq!(server.call_with("GET", "/admin", None, "").0, 401);
    let lower = format!("GET /v1/deferrals/dx HTTP/1.1\r\nauthorization: bearer {TOKEN}\r\n\r\n");
    let (status, _, body) = server.raw(lower.as_bytes());
    assert_eq!((status, error_code(&body)), (404, "not-found"));
    assert_eq!(server.call("GET", "/v1/nothing", Value::Null).0, 404);
    assert_eq!(
        server.call("GET", "/v1/deferrals/dx/cancel", Value::Null).0,
        405
    );
    let (status, body) = server.call("DELETE", "/v1/deferrals/dx", Value::Null);
    assert_eq!((status, error_code(&body)), (405, "method-not-allowed"));
}

#[test]
fn serve_refuses_to_start_without_a_token() {
    let host = Host::new();
    let out = host.run(&["serve", "--listen", "127.0.0.1:0"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no-token"));
    let help = String::from_utf8(host.run(&["serve", "--help"], "").stdout).unwrap();
    assert!(
        help.contains("/v1/deferrals/ID/outcome") && help.contains("--token-file"),
        "{help}"
    );
}

#[test]
fn bodies_are_limited_to_16_kib() {
    let server = Server::start(&["--allow-launch", "exec:"]);
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let mut body = format!("{{\"receipt\":{receipt},\"launch\":\"exec:/bin/true\"}}");
    body.push_str(&" ".repeat(16 * 1024 - body.len()));
    assert_eq!(
        server
            .call_with("POST", "/v1/deferrals", Some(TOKEN), &body)
            .0,
        201
    );
    body.push(' ');
    let (status, answer) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body);
    assert_eq!((status, error_code(&answer)), (413, "body-too-large"));
    // A POST without Content-Length is refused rather than read to the end of the stream.
    let head = format!("POST /v1/deferrals HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n");
    assert_eq!(server.raw(head.as_bytes()).0, 411);
    assert_eq!(
        server.count(),
        1,
        "only the request within the limit was recorded"
    );
}

#[test]
fn record_status_claim_outcome_and_cancel_round_trip() {
    let server = Server::start(&["--allow-launch", "exec:"]);
    let (id, cancel, out) = server.record("exec:/bin/true");
    let retained = validate_str(&out["receipt"].to_string()).unwrap();
    assert!(retained.is_retained());
    assert_eq!(
        retained.to_value()["ownership"]["cancellation_digest"],
        handle_digest(&cancel)
    );
    // GET answers exactly what `status --json ID` prints.
    let (status, got) = server.call("GET", &format!("/v1/deferrals/{id}"), Value::Null);
    assert_eq!(status, 200);
    assert_eq!(got, server.host.status(&id));
    assert_eq!(got["state"], "deferred");

    // Nothing is claimed yet: no handle can prove a claim.
    let claim = format!("/v1/deferrals/{id}/claim");
    let (status, body) = server.call("POST", &claim, json!({"wakeup_handle": "0".repeat(64)}));
    assert_eq!((status, error_code(&body)), (409, "not-resumable"));

    // The ticker's claim, made through the library as `tick` makes it.
    let store = server.host.open();
    let d = lifecycle::change::load(&store, &id).unwrap();
    let claimed = lifecycle::claim::claim(
        &store,
        &d,
        "test",
        now() + HOUR,
        AttemptStatus::Dispatched,
        now(),
    )
    .unwrap();
    let (status, body) = server.call("POST", &claim, json!({"wakeup_handle": cancel}));
    assert_eq!((status, error_code(&body)), (403, "wrong-handle"));
    let (status, body) = server.call(
        "POST",
        &claim,
        json!({"wakeup_handle": claimed.wakeup_handle}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["attempt"].as_u64(), body["state"].as_str()),
        (Some(1), Some("resumable"))
    );
    assert_eq!(
        body["receipt"]["ownership"]["wakeup_digest"],
        handle_digest(&claimed.wakeup_handle)
    );

    // Still limited: a new receipt with the same bindings opens the next window.
    let outcome = format!("/v1/deferrals/{id}/outcome");
    let again = deferral_host_conformance::handoff(now(), 0, HOUR).to_value();
    let report = json!({"attempt": 1, "outcome": "deferred", "handle": claimed.wakeup_handle, "receipt": again});
    let (status, body) = server.call("POST", &outcome, report);
    assert_eq!(
        (status, body["state"].as_str()),
        (200, Some("deferred")),
        "{body}"
    );
    assert!(validate_str(&body["receipt"].to_string())
        .unwrap()
        .is_retained());

    let d = lifecycle::change::load(&store, &id).unwrap();
    let claimed = lifecycle::claim::claim(
        &store,
        &d,
        "test",
        now() + HOUR,
        AttemptStatus::Dispatched,
        now(),
    )
    .unwrap();
    let report = json!({"attempt": 2, "outcome": "complete", "handle": claimed.wakeup_handle});
    let (status, body) = server.call("POST", &outcome, report);
    assert_eq!(
        (status, body["state"].as_str()),
        (200, Some("complete")),
        "{body}"
    );
    let (status, body) = server.call(
        "POST",
        &format!("/v1/deferrals/{id}/cancel"),
        json!({"handle": cancel}),
    );
    assert_eq!((status, error_code(&body)), (409, "illegal-transition"));
    let events: Vec<String> = store
        .events(&id)
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect();
    assert_eq!(events, ["record", "claim", "defer", "claim", "complete"]);

    // A second deferral is cancelled with its handle.
    let (id, cancel, _) = server.record("exec:/bin/true");
    let (status, body) = server.call(
        "POST",
        &format!("/v1/deferrals/{id}/cancel"),
        json!({"handle": cancel}),
    );
    assert_eq!(
        (status, body["state"].as_str(), body["cause"].as_str()),
        (200, Some("cancelled"), Some("operator"))
    );
}

#[test]
fn an_invalid_receipt_stores_nothing() {
    let server = Server::start(&["--allow-launch", "exec:"]);
    let good = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let bad = good.replace(&"a".repeat(64), &"A".repeat(64));
    let (status, body) = server.call_with(
        "POST",
        "/v1/deferrals",
        Some(TOKEN),
        &format!("{{\"receipt\":{bad},\"launch\":\"exec:/bin/true\"}}"),
    );
    assert_eq!((status, error_code(&body)), (422, "invalid-digest"));
    assert_eq!(body["error"]["path"], "$.bindings.scope_digest");
    let (_, _, recorded) = server.record("exec:/bin/true");
    let retained = recorded["receipt"].to_string();
    let cases = [
        (
            format!("{{\"receipt\":{retained},\"launch\":\"exec:/bin/true\"}}"),
            422,
            "already-retained",
        ),
        (
            format!("{{\"receipt\":{good},\"launch\":\"ftp:x\"}}"),
            403,
            "launch-not-allowed",
        ),
        (
            format!("{{\"receipt\":{good},\"launch\":\"exec:\"}}"),
            422,
            "invalid-launch",
        ),
        (format!("{{\"receipt\":{good}}}"), 400, "invalid-request"),
        (
            format!("{{\"receipt\":{good},\"launch\":\"exec:/bin/true\",\"extra\":1}}"),
            400,
            "invalid-request",
        ),
        ("{\"receipt\":".to_string(), 400, "invalid-request"),
    ];
    for (body, want_status, want_code) in cases {
        let (status, answer) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body);
        assert_eq!(
            (status, error_code(&answer)),
            (want_status, want_code),
            "{body}"
        );
    }
    assert_eq!(server.count(), 1, "only the valid receipt was stored");
}

#[test]
fn exec_launches_need_to_be_allowed() {
    let server = Server::start(&[]);
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let body = format!("{{\"receipt\":{receipt},\"launch\":\"exec:/bin/rm -rf /\"}}");
    let (status, answer) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body);
    assert_eq!((status, error_code(&answer)), (403, "launch-not-allowed"));
    server.record("workflow-dispatch:octo/app/sync.yml@main");
    assert_eq!(server.count(), 1);
}

#[test]
fn a_wrong_handle_or_attempt_changes_nothing() {
    let server = Server::start(&["--allow-launch", "exec:"]);
    let (id, cancel, _) = server.record("exec:/bin/true");
    let store = server.host.open();
    let before = lifecycle::change::load(&store, &id).unwrap();
    let outcome = format!("/v1/deferrals/{id}/outcome");
    // Not claimed yet: no outcome can be reported, whoever asks.
    let (status, body) = server.call(
        "POST",
        &outcome,
        json!({"attempt": 0, "outcome": "complete", "handle": cancel}),
    );
    assert_eq!((status, error_code(&body)), (409, "illegal-transition"));
    let claimed = lifecycle::claim::claim(
        &store,
        &before,
        "test",
        now() + HOUR,
        AttemptStatus::Dispatched,
        now(),
    )
    .unwrap();
    let after_claim = lifecycle::change::load(&store, &id).unwrap();
    let refused = [
        (
            json!({"attempt": 1, "outcome": "complete", "handle": "f".repeat(64)}),
            403,
            "wrong-handle",
        ),
        (
            json!({"attempt": 2, "outcome": "complete", "handle": claimed.wakeup_handle}),
            409,
            "stale-attempt",
        ),
        (
            json!({"attempt": 1, "outcome": "deferred", "handle": claimed.wakeup_handle}),
            422,
            "missing-receipt",
        ),
        (
            json!({"attempt": 1, "outcome": "done", "handle": claimed.wakeup_handle}),
            400,
            "invalid-request",
        ),
        (
            json!({"attempt": "1", "outcome": "complete", "handle": claimed.wakeup_handle}),
            400,
            "invalid-request",
        ),
    ];
    for (body, want_status, want_code) in refused {
        let (status, answer) = server.call("POST", &outcome, body.clone());
        assert_eq!(
            (status, error_code(&answer)),
            (want_status, want_code),
            "{body}"
        );
    }
    let (status, body) = server.call(
        "POST",
        &format!("/v1/deferrals/{id}/cancel"),
        json!({"handle": claimed.wakeup_handle}),
    );
    assert_eq!((status, error_code(&body)), (403, "wrong-handle"));
    let now_row = lifecycle::change::load(&store, &id).unwrap();
    assert_eq!(
        (now_row.state, now_row.fence),
        (after_claim.state, after_claim.fence)
    );
    assert_eq!(store.events(&id).unwrap().len(), 2, "record and claim only");
    // The operator's cancellation handle may report for the attempt.
    let (status, body) = server.call(
        "POST",
        &outcome,
        json!({"attempt": 1, "outcome": "blocked", "handle": cancel}),
    );
    assert_eq!((status, body["state"].as_str()), (200, Some("blocked")));
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let mut server = Server::start(&[]);
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    let status = server.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(
        TcpStream::connect(&server.addr).is_err(),
        "the port is closed"
    );
}

#[test]
fn concurrent_records_are_each_committed_before_their_answer() {
    concurrent_records_on(Host::new());
}

/// The same through a PostgreSQL store: the group commit's batch is one PostgreSQL transaction.
#[test]
fn concurrent_records_are_each_committed_before_their_answer_on_postgres() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    concurrent_records_on(Host::with_store(&schema.url).init());
}

fn concurrent_records_on(host: Host) {
    let server = std::sync::Arc::new(Server::start_on(host, &["--allow-launch", "exec:"]));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let server = server.clone();
            std::thread::spawn(move || {
                let store = server.host.open_any();
                (0..5)
                    .map(|i| {
                        let (id, _, _) = server.record(&format!("exec:/bin/echo {t} {i}"));
                        // Answered, so committed: another connection sees it at once.
                        let d = lifecycle::change::load(&*store, &id).unwrap();
                        assert_eq!(d.launch, format!("exec:/bin/echo {t} {i}"));
                        id
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut ids: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 40, "40 distinct deferrals");
    let stored = server
        .host
        .open_any()
        .list(&deferral_host::store::ListQuery::default())
        .unwrap();
    assert_eq!(stored.len(), 40, "none lost, none twice");
}

#[test]
fn racing_cancels_have_one_winner_and_the_others_hear_already_cancelled() {
    let server = std::sync::Arc::new(Server::start(&["--allow-launch", "exec:"]));
    // Loads race with the winner's write: some losers read the old fence (their write is a
    // `conflict`), others the cancelled row. Since issue 21 both answer 200 "already
    // cancelled" (it was 409 `conflict` or `illegal-transition`), and only one cancel is written.
    for _ in 0..10 {
        let (id, cancel, _) = server.record("exec:/bin/true");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let answers: Vec<(u16, Value)> = (0..8)
            .map(|_| {
                let (server, barrier) = (server.clone(), barrier.clone());
                let (path, body) = (
                    format!("/v1/deferrals/{id}/cancel"),
                    json!({"handle": cancel}),
                );
                std::thread::spawn(move || {
                    barrier.wait();
                    server.call("POST", &path, body)
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert!(
            answers
                .iter()
                .all(|(s, b)| *s == 200 && b["state"] == "cancelled"),
            "{answers:?}"
        );
        let winners = answers
            .iter()
            .filter(|(_, b)| b.get("already_cancelled").is_none())
            .count();
        assert_eq!(winners, 1, "{answers:?}");
        let events = server.host.open().events(&id).unwrap();
        assert_eq!(events.len(), 2, "record and one cancel");
    }
}

#[test]
fn the_same_receipt_sent_concurrently_is_recorded_once() {
    the_same_receipt_sent_concurrently_on(Host::new());
}

#[test]
fn the_same_receipt_sent_concurrently_is_recorded_once_on_postgres() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    the_same_receipt_sent_concurrently_on(Host::with_store(&schema.url).init());
}

fn the_same_receipt_sent_concurrently_on(host: Host) {
    let server = std::sync::Arc::new(Server::start_on(host, &["--allow-launch", "exec:"]));
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let body = format!("{{\"receipt\":{receipt},\"launch\":\"exec:/bin/true\"}}");
    // Eight requests released together: most land in one group commit, where all but one
    // item fail on the receipt's digest and are answered with the deferral that has it.
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
    let answers: Vec<(u16, Value)> = (0..8)
        .map(|_| {
            let (server, barrier, body) = (server.clone(), barrier.clone(), body.clone());
            std::thread::spawn(move || {
                barrier.wait();
                server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    let created = answers.iter().filter(|(s, _)| *s == 201).count();
    assert_eq!(created, 1, "{answers:?}");
    let ids: std::collections::BTreeSet<&str> = answers
        .iter()
        .map(|(status, body)| {
            assert!(*status == 200 || *status == 201, "{body}");
            body["id"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        ids.len(),
        1,
        "every answer names the same deferral: {answers:?}"
    );
    let stored = server
        .host
        .open_any()
        .list(&deferral_host::store::ListQuery::default())
        .unwrap();
    assert_eq!(stored.len(), 1);
}
