//! `workflow-dispatch:` launches against a loopback HTTP server: the request GitHub would get,
//! where the token goes, and what each kind of answer does to the deferral.

mod common;

use common::{Host, HOUR};
use deferral_host::lifecycle;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::thread::JoinHandle;

const TOKEN: &str = "test-token-not-real";

struct Captured {
    request_line: String,
    headers: Vec<(String, String)>,
    body: String,
}

/// Serves one connection: reads a request, then answers `response` (or closes without answer).
fn serve_once(response: Option<&'static str>) -> (String, JoinHandle<Captured>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        let head_end = loop {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "client closed early");
            data.extend_from_slice(&buf[..n]);
            if let Some(pos) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                break pos + 4;
            }
        };
        let head = String::from_utf8(data[..head_end].to_vec()).unwrap();
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap().to_string();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| {
                l.split_once(": ")
                    .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .unwrap()
            .1
            .parse()
            .unwrap();
        while data.len() < head_end + length {
            let n = stream.read(&mut buf).unwrap();
            data.extend_from_slice(&buf[..n]);
        }
        let body = String::from_utf8(data[head_end..head_end + length].to_vec()).unwrap();
        if let Some(response) = response {
            stream.write_all(response.as_bytes()).unwrap();
        }
        Captured {
            request_line,
            headers,
            body,
        }
    });
    (base, handle)
}

fn tick(host: &Host, api: &str) -> (serde_json::Value, String) {
    let out = host
        .command(&["tick", "--http-timeout", "5s"])
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", api)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stdout}{stderr}");
    (
        serde_json::from_str(&stdout).unwrap(),
        format!("{stdout}{stderr}"),
    )
}

const TARGET: &str = "workflow-dispatch:octo-org/app/resume.yml@main";

#[test]
fn dispatch_sends_only_id_attempt_and_receipt_with_the_token_in_authorization_only() {
    let host = Host::new();
    let (id, cancel) = host.record(TARGET, 0, HOUR, &[]);
    let (api, server) = serve_once(Some("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"));
    let (report, output) = tick(&host, &format!("{api}/api/v3"));
    let got = server.join().unwrap();
    assert_eq!(
        got.request_line,
        "POST /api/v3/repos/octo-org/app/actions/workflows/resume.yml/dispatches HTTP/1.1"
    );
    let auth: Vec<&(String, String)> = got
        .headers
        .iter()
        .filter(|(_, v)| v.contains(TOKEN))
        .collect();
    assert_eq!(auth.len(), 1, "the token is in exactly one header");
    assert_eq!(
        auth[0],
        &("authorization".to_string(), format!("Bearer {TOKEN}"))
    );
    assert!(!got.body.contains(TOKEN) && !got.request_line.contains(TOKEN));
    let body: serde_json::Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(body["ref"], "main");
    let inputs = body["inputs"].as_object().unwrap();
    assert_eq!(
        inputs.keys().collect::<Vec<_>>(),
        ["attempt", "deferral_id", "receipt"]
    );
    assert_eq!(
        (inputs["deferral_id"].as_str(), inputs["attempt"].as_str()),
        (Some(id.as_str()), Some("1"))
    );
    let receipt =
        deferral_core::receipt::validate_str(inputs["receipt"].as_str().unwrap()).unwrap();
    // The run cannot prove a wake-up claim (the handle is never sent), so it gets the
    // governed-handoff form of the stored receipt: same window, same bindings.
    assert!(!receipt.is_retained(), "the run gets the handoff form");
    let shown = host.expect(0, &["show", "--json", &id], "");
    let current = shown["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["current"] == true)
        .expect("a current receipt");
    let retained = deferral_core::receipt::validate_str(&current["receipt"].to_string()).unwrap();
    assert!(retained.is_retained());
    assert_eq!(receipt, retained.as_handoff());
    assert_eq!(body["return_run_details"], true, "asks for the run's id");
    assert_eq!(
        body.as_object().unwrap().len(),
        3,
        "nothing else in the body"
    );
    assert!(!output.contains(TOKEN), "the token is never printed");
    let stored = std::fs::read(&host.db).unwrap();
    let wal = std::fs::read(host.db.with_extension("db-wal")).unwrap_or_default();
    for bytes in [stored, wal] {
        assert!(
            !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
            "the token is never stored"
        );
    }
    assert_eq!(report["launched"][0]["attempt_status"], "dispatched");
    assert!(
        output.contains(&format!("{id}: dispatched (HTTP 204)")),
        "tick's progress line says dispatched: {output}"
    );
    let s = host.status(&id);
    assert_eq!(
        (s["state"].as_str(), s["attempt_status"].as_str()),
        (Some("resumable"), Some("dispatched"))
    );
    assert_eq!(
        s["lease_until_ms"], s["resume_by_ms"],
        "a dispatched run holds its lease until the window closes, not the tick's lease: {s}"
    );
    let events: Vec<String> = host.expect(0, &["show", "--json", &id], "")["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        events,
        ["record", "claim", "dispatched"],
        "dispatching is recorded (the claim) before the POST"
    );
    // Nothing listens any more: a second tick must not try to dispatch again.
    let (again, _) = tick(&host, &api);
    assert!(again["launched"].as_array().unwrap().is_empty(), "{again}");
    // The outcome comes back with `report` (here the operator's handle; the run has no wake-up handle).
    let out = host.expect(
        0,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "complete",
            "--handle",
            &cancel,
        ],
        "",
    );
    assert_eq!(out["state"], "complete");
}

#[test]
fn ambiguous_failures_become_dispatch_unknown_and_wait_for_an_operator() {
    for response in [
        Some("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"),
        None,
    ] {
        let host = Host::new();
        let (id, cancel) = host.record(TARGET, 0, HOUR, &[]);
        let (api, server) = serve_once(response);
        let (report, _) = tick(&host, &api);
        server.join().unwrap();
        assert_eq!(
            report["launched"][0]["attempt_status"], "dispatch-unknown",
            "{report}"
        );
        let (again, _) = tick(&host, &api);
        assert!(
            again["launched"].as_array().unwrap().is_empty(),
            "not dispatched again: {again}"
        );
        assert_eq!(host.status(&id)["attempt_status"], "dispatch-unknown");
        let wrong = deferral_host::handle::new_handle();
        host.expect(
            5,
            &["resolve", &id, "--handle", &wrong, "--not-dispatched"],
            "",
        );
        let out = host.expect(
            0,
            &["resolve", &id, "--handle", &cancel, "--not-dispatched"],
            "",
        );
        assert_eq!(
            out["state"], "deferred",
            "looked up: not dispatched, so it may be dispatched again"
        );
        let (api, server) =
            serve_once(Some("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"));
        let (report, _) = tick(&host, &api);
        assert!(
            server.join().unwrap().body.contains("\"attempt\":\"2\""),
            "the next dispatch is attempt 2"
        );
        assert_eq!(report["launched"][0]["attempt_status"], "dispatched");
    }
}

#[test]
fn refused_dispatches_block_and_unsent_ones_return() {
    let host = Host::new();
    let (rejected, _) = host.record(TARGET, 0, HOUR, &[]);
    let (api, server) = serve_once(Some(
        "HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json\r\nContent-Length: 35\r\n\r\n{\"message\":\"Unexpected inputs x y\"}",
    ));
    tick(&host, &api);
    server.join().unwrap();
    let s = host.status(&rejected);
    assert_eq!(s["state"], "blocked");
    assert!(s["detail"].as_str().unwrap().contains("422"), "{s}");

    let (unsent, _) = host.record(TARGET, 0, HOUR, &[]);
    // A port with nothing listening: nothing was sent, the deferral goes back to deferred
    // and the claim's re-entry is given back.
    let closed = common::refusing::Refusing::new();
    tick(&host, &closed.url());
    let s = host.status(&unsent);
    assert_eq!(
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(0)),
        "{s}"
    );

    // Without GITHUB_TOKEN nothing is claimed at all.
    let out = host
        .command(&["tick"])
        .env("GITHUB_API_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["skipped"][0]["why"], "GITHUB_TOKEN is not set");
    assert_eq!(host.status(&unsent)["reentries"], 0, "no re-entry used");
}

#[test]
fn a_failed_tls_handshake_is_not_a_dispatch() {
    // An https:// base that answers plain text: the handshake fails before any request byte,
    // so the dispatch certainly did not happen and the deferral may be dispatched again, its
    // re-entry given back.
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    });
    let (report, _) = tick(&host, &format!("https://localhost:{}", addr.port()));
    server.join().unwrap();
    let s = host.status(&id);
    assert_eq!(
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(0)),
        "{report}"
    );
    assert!(s["detail"].as_str().unwrap().contains("TLS"), "{s}");
}

#[test]
fn an_unreachable_github_spends_no_reentry_however_often_tick_runs() {
    unreachable_github_spends_no_reentry(Host::new());
}

#[test]
fn postgres_an_unreachable_github_spends_no_reentry() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    unreachable_github_spends_no_reentry(Host::with_store(&schema.url).init());
}

fn unreachable_github_spends_no_reentry(host: Host) {
    let (first, _) = host.record(TARGET, 0, HOUR, &[]);
    let (second, _) = host.record(TARGET, 0, HOUR, &[]);
    // A port held and never listened on: connections are refused, nothing is ever written.
    let closed = common::refusing::Refusing::new();
    // Many more ticks than re-entries allowed (2): none of them spends one.
    for _ in 0..4 {
        let (report, _) = tick(&host, &closed.url());
        let given_back = &report["launched"][0];
        assert_eq!(
            (given_back["state"].as_str(), given_back["cause"].as_str()),
            (Some("deferred"), Some("not-sent")),
            "{report}"
        );
        assert!(
            given_back["detail"]
                .as_str()
                .unwrap()
                .contains("Connection refused"),
            "the cause is in the report: {report}"
        );
        // The rest are not even claimed in this pass: GitHub cannot be reached.
        assert_eq!(report["launched"].as_array().unwrap().len(), 1, "{report}");
        let skipped = &report["skipped"][0];
        assert!(
            skipped["why"].as_str().unwrap().contains("unreachable"),
            "{report}"
        );
        assert!(report["github"]["unreachable"].is_string(), "{report}");
        for id in [&first, &second] {
            let s = host.status(id);
            assert_eq!(
                (s["state"].as_str(), s["reentries"].as_u64()),
                (Some("deferred"), Some(0)),
                "{s}"
            );
        }
    }
    let s = host.status(&first);
    assert_eq!(s["cause"], "not-sent", "{s}");
    assert!(s["detail"].as_str().unwrap().contains("not sent"), "{s}");
    // GitHub is back: each is dispatched as its first attempt.
    let standin = common::github::Standin::start();
    let (report, _) = tick(&host, &standin.api);
    let attempts: Vec<String> = standin
        .state
        .lock()
        .unwrap()
        .dispatches
        .iter()
        .map(|d| d["inputs"]["attempt"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(attempts, ["1", "1"], "{report}");
}

#[test]
fn a_failed_name_lookup_is_not_a_dispatch() {
    // `.invalid` never resolves (RFC 6761): the request was never written anywhere.
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    for _ in 0..3 {
        let (report, _) = tick(&host, "http://api.github.invalid");
        assert_eq!(report["launched"][0]["cause"], "not-sent", "{report}");
    }
    let s = host.status(&id);
    assert_eq!(
        (
            s["state"].as_str(),
            s["reentries"].as_u64(),
            s["cause"].as_str()
        ),
        (Some("deferred"), Some(0), Some("not-sent")),
        "{s}"
    );
}

/// A ticker that stopped while a dispatch was being sent leaves a stale lease whose dispatch
/// may or may not have reached GitHub: recovery makes it `dispatch-unknown`, leased to the
/// operator until the window closes, never sent again. One whose dispatch was sent is left for
/// the follow step.
#[test]
fn a_stale_lease_of_a_dispatch_is_left_to_the_operator_or_the_follow_step() {
    use deferral_host::store::{AttemptStatus, Store};
    let host = Host::new();
    let store = host.open();
    let claim = |status: AttemptStatus| {
        let (id, _) = host.record("workflow-dispatch:octo/app/sync.yml@main", 0, HOUR, &[]);
        let d = store.get(&id).unwrap().unwrap();
        let t = common::now();
        // A lease that has already run out: its ticker is gone.
        lifecycle::claim::claim(&store, &d, "gone", t + 1, status, t).unwrap();
        (id, d.resume_by_ms)
    };
    let (sending, resume_by_ms) = claim(AttemptStatus::Dispatching);
    let (sent, _) = claim(AttemptStatus::Dispatched);
    common::clock::until_past_field(&host, &sent, "lease_until_ms");
    let report = host.tick(&[]);
    let s = host.status(&sending);
    assert_eq!(
        (
            s["state"].as_str(),
            s["attempt_status"].as_str(),
            s["detail"].as_str(),
            s["lease_owner"].as_str(),
            s["lease_until_ms"].as_u64(),
        ),
        (
            Some("resumable"),
            Some("dispatch-unknown"),
            Some("lease-expired: the ticker stopped while dispatching"),
            Some("operator"),
            Some(resume_by_ms),
        ),
        "{s} {report}"
    );
    let s = host.status(&sent);
    assert_eq!(
        (
            s["state"].as_str(),
            s["attempt_status"].as_str(),
            s["lease_owner"].as_str()
        ),
        (Some("resumable"), Some("dispatched"), Some("gone")),
        "{s} {report}"
    );
}

#[test]
fn a_dispatch_refused_by_a_github_that_answered_spends_its_reentry() {
    // Refused by a GitHub that answered (a 403 of a secondary limit): not dispatched, and
    // unlike an unreachable GitHub the claim's re-entry counts.
    let host = Host::new();
    let (refused, _) = host.record(TARGET, 0, HOUR, &[]);
    let (api, server) = serve_once(Some(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: 49\r\n\r\n{\"message\":\"You have exceeded a secondary limit\"}",
    ));
    tick(&host, &api);
    server.join().unwrap();
    let s = host.status(&refused);
    assert_eq!(
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(1)),
        "{s}"
    );
    assert!(
        s["detail"]
            .as_str()
            .unwrap()
            .starts_with("dispatch not sent: HTTP 403"),
        "{s}"
    );
}

/// The unreachable address the tests here use: refused, and no other test can take it.
#[test]
fn a_refusing_port_refuses_and_cannot_be_taken() {
    let refusing = common::refusing::Refusing::new();
    let err = std::net::TcpStream::connect(refusing.addr).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionRefused, "{err}");
    assert!(
        std::net::TcpListener::bind(refusing.addr).is_err(),
        "the port stays taken"
    );
}
