//! Answers an operator or a fresh process gets that no other test reached: `resolve
//! --dispatched` on the command line, and `serve`'s 422 and 409 answers to an outcome.

mod common;

use common::serve_client::Serve;
use common::{now, Host, HOUR};
use deferral_core::receipt::{Bindings, Reason, Receipt};
use deferral_host::lifecycle;
use deferral_host::lifecycle::change::Effects;
use deferral_host::store::{AttemptStatus, Change, Store};
use serde_json::json;

#[test]
fn resolve_dispatched_waits_for_the_run_and_only_once() {
    let host = Host::new();
    let (id, handle) = host.record("workflow-dispatch:octo/app/sync.yml@main", 0, HOUR, &[]);
    let store = host.open();
    let d = store.get(&id).unwrap().unwrap();
    let t = now();
    let c =
        lifecycle::claim::claim(&store, &d, "w", t + HOUR, AttemptStatus::Dispatching, t).unwrap();
    // Before the dispatch's result is unknown there is nothing to resolve.
    let out = host.expect(
        5,
        &["resolve", &id, "--handle", &handle, "--dispatched"],
        "",
    );
    assert_eq!(out["error"]["code"], "not-dispatch-unknown");
    let effects = Effects {
        attempt_status: Change::Set(AttemptStatus::DispatchUnknown),
        ..Effects::default()
    };
    lifecycle::change::note(
        &store,
        &c.deferral,
        "dispatch-unknown",
        "lease-expired",
        effects,
        now(),
    )
    .unwrap();
    let wrong = deferral_host::handle::new_handle();
    let out = host.expect(5, &["resolve", &id, "--handle", &wrong, "--dispatched"], "");
    assert_eq!(out["error"]["code"], "wrong-handle");
    let out = host.expect(
        0,
        &["resolve", &id, "--handle", &handle, "--dispatched"],
        "",
    );
    assert_eq!(
        (out["state"].as_str(), out["attempt_status"].as_str()),
        (Some("resumable"), Some("dispatched"))
    );
    let s = host.status(&id);
    assert_eq!(
        (s["reentries"].as_u64(), s["detail"].as_str()),
        (Some(1), Some("operator: the dispatch reached GitHub")),
        "no re-entry used; the detail says who decided"
    );
    let out = host.expect(
        5,
        &["resolve", &id, "--handle", &handle, "--dispatched"],
        "",
    );
    assert_eq!(
        out["error"]["code"], "not-dispatch-unknown",
        "resolved once"
    );
    // The run then reports through the usual path.
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
            &handle,
        ],
        "",
    );
    assert_eq!(out["state"], "complete");
}

#[test]
fn serve_answers_a_bad_outcome_with_422_or_409_and_changes_nothing() {
    let host = Host::new();
    let server = Serve::start(&host, &["exec:/bin/true"]);
    let (status, recorded) = server.record("exec:/bin/true");
    assert_eq!(status, 201);
    let id = recorded["id"].as_str().unwrap().to_string();
    let store = host.open();
    let d = store.get(&id).unwrap().unwrap();
    let t = now();
    let c =
        lifecycle::claim::claim(&store, &d, "w", t + HOUR, AttemptStatus::Launching, t).unwrap();
    let path = format!("/v1/deferrals/{id}/outcome");
    let t = now();
    let other = Receipt::handoff(
        Reason::RestReserve,
        t,
        t,
        t + HOUR,
        Bindings {
            // Another scope: not this work (the same scope with another request is progress).
            scope_digest: "9".repeat(64),
            request_digest: "9".repeat(64),
            plan_digest: None,
        },
        true,
    )
    .unwrap()
    .to_value();
    let handle = c.wakeup_handle.as_str();
    for (body, want_status, want_code) in [
        (
            json!({"attempt": 1, "outcome": "deferred", "handle": handle}),
            422,
            "missing-receipt",
        ),
        (
            json!({"attempt": 1, "outcome": "deferred", "handle": handle, "receipt": other}),
            422,
            "binding-mismatch",
        ),
        (
            json!({"attempt": 1, "outcome": "deferred", "handle": handle, "receipt": {"schema": 1}}),
            422,
            "missing-field",
        ),
        (
            json!({"attempt": 2, "outcome": "complete", "handle": handle}),
            409,
            "stale-attempt",
        ),
        (
            json!({"attempt": 1, "outcome": "finished", "handle": handle}),
            400,
            "invalid-request",
        ),
    ] {
        let (status, answer) = server.post(&path, &body.to_string());
        assert_eq!(
            (status, answer["error"]["code"].as_str().unwrap_or_default()),
            (want_status, want_code),
            "{body}: {answer}"
        );
    }
    assert_eq!(
        store.get(&id).unwrap().unwrap(),
        c.deferral,
        "refused outcomes change nothing"
    );
    let (status, answer) = server.post(
        &path,
        &json!({"attempt": 1, "outcome": "complete", "handle": handle}).to_string(),
    );
    assert_eq!((status, answer["state"].as_str()), (200, Some("complete")));
    // A terminal deferral refuses another outcome: 409.
    let (status, answer) = server.post(
        &path,
        &json!({"attempt": 1, "outcome": "complete", "handle": handle}).to_string(),
    );
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (409, Some("illegal-transition"))
    );
}
