//! A way back from `blocked`: `deferral-host retry` (and `POST /v1/deferrals/ID/retry`) starts
//! a blocked deferral again as a new deferral linked to it, proven by the cancellation handle;
//! the blocked one stays as it was. Recording a receipt again with another target is
//! `launch-conflict`, which points to `retry`. Run on SQLite, and on PostgreSQL when
//! `DEFERRAL_TEST_POSTGRES_URL` is set (as scripts/test.sh does).

mod common;

use common::server::{error_code, Server, TOKEN};
use common::{now, script, sq, Host, HOUR};
use serde_json::{json, Value};

/// The README's example target: a path that does not exist on this machine.
const TYPO: &str = "exec:/usr/local/bin/resume-sync.sh";

fn receipt(after_ms: u64, by_ms: u64) -> String {
    deferral_host_conformance::distinct_handoff(now(), after_ms, by_ms).to_json()
}

fn show(host: &Host, id: &str) -> Value {
    host.expect(0, &["show", "--json", id], "")
}

/// A host on PostgreSQL when the test server is there, else on SQLite.
fn hosts() -> Vec<(Host, Option<common::pg::TestSchema>)> {
    let mut hosts = vec![(Host::new(), None)];
    if std::env::var("DEFERRAL_TEST_POSTGRES_URL").is_ok_and(|u| !u.is_empty()) {
        let schema = common::pg::schema_or_skip().unwrap();
        hosts.push((Host::with_store(&schema.url).init(), Some(schema)));
    }
    hosts
}

#[test]
fn the_typod_exec_deferral_is_recovered_with_one_retry() {
    assert!(!std::path::Path::new(&TYPO[5..]).exists());
    for (host, _schema) in hosts() {
        let text = receipt(0, HOUR);
        // Recorded past the door check (the program would live on another machine): at its due
        // time the launch cannot start and the deferral ends blocked.
        let out = host.expect(0, &["record", "--launch", TYPO, "--no-check", "-"], &text);
        let id = out["id"].as_str().unwrap().to_string();
        let handle = out["cancellation_handle"].as_str().unwrap().to_string();
        host.tick(&[]);
        let blocked = show(&host, &id);
        assert_eq!(blocked["deferral"]["state"], "blocked");
        assert_eq!(blocked["deferral"]["cause"], "launch-not-found");

        let marker = host.path("ran");
        let good = script(
            &host.path("resume-sync.sh"),
            &format!("cat > /dev/null; echo ran >> {}", sq(&marker)),
        );
        // Recording the receipt again with the right target is not a silent success.
        let out = host.expect(2, &["record", "--launch", &good, "-"], &text);
        assert_eq!(out["error"]["code"], "launch-conflict", "{out}");
        let message = out["error"]["message"].as_str().unwrap();
        assert!(message.contains(TYPO), "names the target kept: {message}");
        assert!(message.contains("deferral-host retry"), "{message}");
        // The same target stays the idempotent answer it was.
        let out = host.expect(0, &["record", "--launch", TYPO, "--no-check", "-"], &text);
        assert_eq!(
            (out["already_recorded"].as_bool(), out["id"].as_str()),
            (Some(true), Some(id.as_str()))
        );

        // The one documented command.
        let out = host.expect(
            0,
            &["retry", &id, "--handle", &handle, "--launch", &good],
            "",
        );
        let new = out["id"].as_str().unwrap().to_string();
        assert_ne!(new, id);
        assert_eq!(
            (
                out["retry_of"].as_str(),
                out["state"].as_str(),
                out["launch"].as_str()
            ),
            (Some(id.as_str()), Some("deferred"), Some(good.as_str()))
        );
        let sent: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            out["receipt"]["bindings"], sent["bindings"],
            "the same work"
        );
        assert_eq!(
            out["receipt"]["resume_by_ms"], sent["resume_by_ms"],
            "the same window"
        );
        assert_eq!(
            out["receipt"]["ownership"]["cancellation_digest"],
            blocked["receipts"][1]["receipt"]["ownership"]["cancellation_digest"],
            "the same handle proves the new deferral"
        );

        // The blocked deferral stays as it was; the link is shown both ways.
        let after = show(&host, &id);
        assert_eq!(after["events"], blocked["events"], "history is append-only");
        assert_eq!(after["receipts"], blocked["receipts"]);
        assert_eq!(after["deferral"]["state"], "blocked");
        assert_eq!(after["deferral"]["retried_by"], new.as_str());
        let retry = show(&host, &new);
        assert_eq!(retry["deferral"]["retry_of"], id.as_str());
        assert_eq!(
            (
                retry["deferral"]["reentries"].as_u64(),
                retry["deferral"]["cause"].as_str()
            ),
            (Some(0), Some("retry")),
            "a fresh re-entry count"
        );
        let text_view = String::from_utf8(host.run(&["show", &id], "").stdout).unwrap();
        assert!(
            text_view.contains(&format!("retried-by    {new}")),
            "{text_view}"
        );
        let text_view = String::from_utf8(host.run(&["show", &new], "").stdout).unwrap();
        assert!(
            text_view.contains(&format!("retry-of      {id}")),
            "{text_view}"
        );

        // It runs at the next tick, with the corrected target.
        host.tick(&[]);
        assert_eq!(host.status(&new)["state"], "complete");
        assert_eq!(common::lines(&marker), vec!["ran"]);
        // The receipt now answers the retry; the old target is the conflict.
        let out = host.expect(0, &["record", "--launch", &good, "-"], &text);
        assert_eq!(out["id"], new.as_str());
        let out = host.expect(2, &["record", "--launch", TYPO, "--no-check", "-"], &text);
        assert_eq!(out["error"]["code"], "launch-conflict");
        assert!(out["error"]["message"].as_str().unwrap().contains(&good));
    }
}

#[test]
fn retry_refuses_what_it_cannot_start_again() {
    for (host, _schema) in hosts() {
        let missing = format!("exec:{}", host.path("missing").display());
        let good = script(&host.path("ok.sh"), "cat > /dev/null");
        let (waiting, waiting_handle) = host.record(&good, HOUR, 2 * HOUR, &[]);
        let out = host.expect(5, &["retry", &waiting, "--handle", &waiting_handle], "");
        assert_eq!(out["error"]["code"], "not-blocked", "{out}");

        let (id, handle) = host.record(&missing, 0, HOUR, &["--no-check", "--max-reentries", "3"]);
        host.tick(&[]);
        let wrong = deferral_host::handle::new_handle();
        let out = host.expect(
            5,
            &["retry", &id, "--handle", &wrong, "--launch", &good],
            "",
        );
        assert_eq!(out["error"]["code"], "wrong-handle");
        // The corrected target is checked at the door too.
        let out = host.expect(2, &["retry", &id, "--handle", &handle], "");
        assert_eq!(out["error"]["code"], "launch-not-found", "{out}");
        // Same target (--no-check), the bound kept; then a given bound.
        let out = host.expect(0, &["retry", &id, "--handle", &handle, "--no-check"], "");
        let first = out["id"].as_str().unwrap().to_string();
        assert_eq!(
            (out["launch"].as_str(), out["max_reentries"].as_u64()),
            (Some(missing.as_str()), Some(3))
        );
        let out = host.expect(
            5,
            &["retry", &id, "--handle", &handle, "--launch", &good],
            "",
        );
        assert_eq!(out["error"]["code"], "already-retried");
        assert!(out["error"]["message"].as_str().unwrap().contains(&first));
        host.tick(&[]);
        assert_eq!(host.status(&first)["state"], "blocked");
        let out = host.expect(
            0,
            &[
                "retry",
                &first,
                "--handle",
                &handle,
                "--launch",
                &good,
                "--max-reentries",
                "7",
            ],
            "",
        );
        let second = out["id"].as_str().unwrap().to_string();
        assert_eq!(out["max_reentries"], 7);
        // The same handle cancels the newest one.
        let out = host.expect(0, &["cancel", &second, "--handle", &handle], "");
        assert_eq!(out["state"], "cancelled");
        assert_eq!(
            show(&host, &first)["deferral"]["retried_by"],
            second.as_str()
        );
        assert_eq!(show(&host, &second)["deferral"]["retry_of"], first.as_str());

        // A window that has closed cannot be retried: the answer points to re-gating.
        let out = host.expect(
            0,
            &["record", "--launch", &missing, "--no-check", "-"],
            &receipt(0, 1500),
        );
        let (short, short_handle) = (
            out["id"].as_str().unwrap().to_string(),
            out["cancellation_handle"].as_str().unwrap().to_string(),
        );
        host.tick(&[&short]);
        assert_eq!(host.status(&short)["state"], "blocked");
        common::clock::until_past_field(&host, &short, "resume_by_ms");
        let out = host.expect(
            2,
            &[
                "retry",
                &short,
                "--handle",
                &short_handle,
                "--launch",
                &good,
            ],
            "",
        );
        assert_eq!(out["error"]["code"], "retry-expired", "{out}");
        assert!(out["error"]["message"].as_str().unwrap().contains("gate"));
        assert_eq!(show(&host, &short)["deferral"]["retried_by"], Value::Null);
    }
}

#[test]
fn serve_retries_with_the_handle_in_the_body() {
    let host = Host::new();
    let good = script(&host.path("ok.sh"), "cat > /dev/null");
    let server = Server::start_on(host, &["--allow-launch", "exec:", "--no-check"]);
    let missing = format!("exec:{}", server.host.path("missing").display());
    let text = receipt(0, HOUR);
    let body = |launch: &str| format!("{{\"receipt\":{text},\"launch\":{}}}", json!(launch));
    let (status, out) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body(&missing));
    assert_eq!(status, 201, "{out}");
    let id = out["id"].as_str().unwrap().to_string();
    let handle = out["cancellation_handle"].as_str().unwrap().to_string();
    server.host.tick(&[]);
    assert_eq!(server.host.status(&id)["state"], "blocked");
    let (status, out) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body(&good));
    assert_eq!(
        (status, error_code(&out)),
        (409, "launch-conflict"),
        "{out}"
    );

    let path = format!("/v1/deferrals/{id}/retry");
    let (status, out) = server.call(
        "POST",
        &path,
        json!({"handle": "x".repeat(43), "launch": good}),
    );
    assert_eq!((status, error_code(&out)), (403, "wrong-handle"));
    let (status, out) = server.call(
        "POST",
        &path,
        json!({"handle": handle, "launch": "workflow-dispatch:octo/app/x.yml@main"}),
    );
    assert_eq!(
        (status, error_code(&out)),
        (403, "launch-not-allowed"),
        "the operator's policy applies"
    );
    let (status, out) = server.call(
        "POST",
        &path,
        json!({"handle": handle, "launch": good, "max_reentries": 4}),
    );
    assert_eq!(status, 201, "{out}");
    let new = out["id"].as_str().unwrap().to_string();
    assert_eq!(
        (out["retry_of"].as_str(), out["max_reentries"].as_u64()),
        (Some(id.as_str()), Some(4))
    );
    assert_eq!(out["receipt"]["ownership"]["disposition"], "retained");
    let (status, out) = server.call("GET", &format!("/v1/deferrals/{id}"), Value::Null);
    assert_eq!(
        (status, out["retried_by"].as_str()),
        (200, Some(new.as_str()))
    );
    let (status, out) = server.call("POST", &path, json!({"handle": handle}));
    assert_eq!((status, error_code(&out)), (409, "already-retried"));
    let (status, out) = server.call_with("POST", "/v1/deferrals", Some(TOKEN), &body(&good));
    assert_eq!(
        (status, out["id"].as_str()),
        (200, Some(new.as_str())),
        "{out}"
    );
}
