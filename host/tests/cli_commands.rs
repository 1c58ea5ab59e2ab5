//! Process-level tests of record, status, show, cancel, report and --help, run on the built binary.

mod common;

use common::{now, sq, Host, HOUR};
use deferral_core::receipt::validate_str;
use deferral_host::handle::handle_digest;

#[test]
fn record_prints_id_retained_receipt_and_cancellation_handle() {
    let host = Host::new();
    let receipt = deferral_host_conformance::handoff(now(), 60_000, HOUR).to_json();
    let out = host.expect(0, &["record", "--launch", "exec:/bin/true", "-"], &receipt);
    let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "cancellation_handle",
            "expected_start",
            "expected_start_ms",
            "id",
            "receipt",
            "will_expire"
        ],
        "the forecast of its start comes with the answer (issue 28)"
    );
    let another = deferral_host_conformance::handoff(now(), 60_001, HOUR).to_json();
    let line = String::from_utf8(
        host.run(&["record", "--launch", "exec:/bin/true", "-"], &another)
            .stdout,
    )
    .unwrap();
    assert!(
        line.contains("\"receipt\":{\"schema\":1,\"version\""),
        "receipt in contract field order: {line}"
    );
    let handle = out["cancellation_handle"].as_str().unwrap();
    assert_eq!(handle.len(), 64);
    let retained = validate_str(&out["receipt"].to_string()).unwrap();
    assert!(retained.is_retained());
    let value = retained.to_value();
    assert_eq!(
        value["ownership"]["cancellation_digest"],
        handle_digest(handle),
        "digest of the handle's hex text"
    );
    assert_eq!(
        value["resume_after_ms"],
        validate_str(&receipt).unwrap().resume_after_ms
    );
    let status = host.status(out["id"].as_str().unwrap());
    assert_eq!(
        (status["state"].as_str(), status["reentries"].as_u64()),
        (Some("deferred"), Some(0))
    );
    // The submitted text is kept exactly, next to the retained form.
    let show = host.expect(0, &["show", "--json", out["id"].as_str().unwrap()], "");
    assert_eq!(show["receipts"][0]["kind"], "submitted");
    assert_eq!(
        show["receipts"][0]["receipt"],
        serde_json::from_str::<serde_json::Value>(&receipt).unwrap()
    );
    assert_eq!(show["receipts"][1]["receipt"], out["receipt"]);
    assert_eq!(show["events"][0]["event"], "record");
    // The human forms print too.
    let table = String::from_utf8(host.run(&["status"], "").stdout).unwrap();
    assert!(
        table.starts_with("ID") && table.contains("deferred") && table.contains("0/2"),
        "{table}"
    );
    let text =
        String::from_utf8(host.run(&["show", out["id"].as_str().unwrap()], "").stdout).unwrap();
    assert!(
        text.contains("receipts (2, append-only)") && text.contains("events (1, append-only)"),
        "{text}"
    );
}

#[test]
fn invalid_receipts_are_refused_and_nothing_is_stored() {
    let host = Host::new();
    let good = deferral_host_conformance::handoff(now(), 0, HOUR);
    let bad_digest = good.to_json().replace(&"a".repeat(64), &"A".repeat(64));
    let out = host.expect(
        2,
        &["record", "--launch", "exec:/bin/true", "-"],
        &bad_digest,
    );
    assert_eq!(out["error"]["code"], "invalid-digest");
    assert_eq!(out["error"]["path"], "$.bindings.scope_digest");
    assert!(out["error"]["message"].is_string());
    let out = host.expect(
        2,
        &["record", "--launch", "exec:/bin/true", "-"],
        "{\"schema\":1",
    );
    assert_eq!(out["error"]["code"], "malformed-json");
    let retained = good
        .retain(&"c".repeat(64), &"d".repeat(64))
        .unwrap()
        .to_json();
    let out = host.expect(2, &["record", "--launch", "exec:/bin/true", "-"], &retained);
    assert_eq!(out["error"]["code"], "already-retained");
    let t = now() - 10 * 60_000;
    let expired = deferral_host_conformance::handoff(t, 0, 60_000).to_json();
    let out = host.expect(2, &["record", "--launch", "exec:/bin/true", "-"], &expired);
    assert_eq!(out["error"]["code"], "expired");
    let out = host.expect(
        2,
        &["record", "--launch", "ssh:somewhere", "-"],
        &good.to_json(),
    );
    assert_eq!(out["error"]["code"], "invalid-launch");
    let listed = host.expect(0, &["status", "--json"], "");
    assert_eq!(
        listed["deferrals"].as_array().unwrap().len(),
        0,
        "nothing stored"
    );
    let out = host.expect(2, &["status", "--json", "dnothere"], "");
    assert_eq!(out["error"]["code"], "not-found");
}

#[test]
fn cancel_needs_the_right_handle() {
    cancel_needs_the_right_handle_on(&Host::new());
}

/// The same commands (record, status, cancel, tick) against a PostgreSQL store.
#[test]
fn cancel_needs_the_right_handle_on_postgres() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    cancel_needs_the_right_handle_on(&Host::with_store(&schema.url).init());
}

fn cancel_needs_the_right_handle_on(host: &Host) {
    let marker = host.path("launched");
    let launch = common::script(&host.path("x.sh"), &format!("echo x >> {}", sq(&marker)));
    let (id, handle) = host.record(&launch, 0, HOUR, &[]);
    let wrong = deferral_host::handle::new_handle();
    let out = host.expect(5, &["cancel", &id, "--handle", &wrong], "");
    assert_eq!(out["error"]["code"], "wrong-handle");
    assert_eq!(
        host.status(&id)["state"],
        "deferred",
        "a wrong handle changes nothing"
    );
    let out = host.expect(0, &["cancel", &id, "--handle", &handle], "");
    assert_eq!(
        (out["state"].as_str(), out["cause"].as_str()),
        (Some("cancelled"), Some("operator"))
    );
    // A second cancel changes nothing and says so (issue 21: it was illegal-transition, exit 5).
    let out = host.expect(0, &["cancel", &id, "--handle", &handle], "");
    assert_eq!(out["already_cancelled"], true);
    host.tick(&[]);
    assert!(
        common::lines(&marker).is_empty(),
        "a cancelled deferral is never launched"
    );
}

#[test]
fn report_checks_handle_attempt_and_receipt() {
    let host = Host::new();
    // A launch that reports nothing and keeps running is not needed: claim through the library.
    let (id, cancel) = host.record("exec:/bin/true", 0, HOUR, &[]);
    let store = host.open();
    let d = deferral_host::lifecycle::change::load(&store, &id).unwrap();
    let t = now();
    let claimed = deferral_host::lifecycle::claim::claim(
        &store,
        &d,
        "test",
        t + HOUR,
        deferral_host::store::AttemptStatus::Dispatched,
        t,
    )
    .unwrap();
    drop(store);
    let wake = claimed.wakeup_handle.as_str();
    let wrong = deferral_host::handle::new_handle();
    let out = host.expect(
        5,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "complete",
            "--handle",
            &wrong,
        ],
        "",
    );
    assert_eq!(out["error"]["code"], "wrong-handle");
    let out = host.expect(
        5,
        &[
            "report",
            &id,
            "--attempt",
            "2",
            "--outcome",
            "complete",
            "--handle",
            wake,
        ],
        "",
    );
    assert_eq!(out["error"]["code"], "stale-attempt");
    let out = host.expect(
        2,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "deferred",
            "--handle",
            wake,
        ],
        "",
    );
    assert_eq!(out["error"]["code"], "missing-receipt");
    let other = deferral_core::receipt::Receipt::handoff(
        deferral_core::receipt::Reason::GraphqlReserve,
        now(),
        now(),
        now() + HOUR,
        deferral_core::receipt::Bindings {
            // Another scope: not this work at all (another plan or request of the same scope
            // would be progress, see report_of_progress_completes_and_records_a_successor).
            scope_digest: "f".repeat(64),
            request_digest: "e".repeat(64),
            plan_digest: None,
        },
        true,
    )
    .unwrap()
    .to_json();
    let out = host.expect(
        2,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "deferred",
            "--handle",
            wake,
            "-",
        ],
        &other,
    );
    assert_eq!(
        (out["error"]["code"].as_str(), out["error"]["path"].as_str()),
        (Some("binding-mismatch"), Some("$.bindings.scope_digest"))
    );
    assert_eq!(
        host.status(&id)["state"],
        "resumable",
        "refused reports change nothing"
    );
    let next = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let out = host.expect(
        0,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "deferred",
            "--handle",
            wake,
            "-",
        ],
        &next,
    );
    assert_eq!(out["state"], "deferred");
    // The old wake-up handle no longer proves anything; the operator's handle still does.
    let out = host.expect(
        5,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "complete",
            "--handle",
            wake,
        ],
        "",
    );
    assert_eq!(out["error"]["code"], "illegal-transition");
    host.expect(0, &["cancel", &id, "--handle", &cancel], "");
}

#[test]
fn help_documents_commands_and_exit_codes() {
    let host = Host::new();
    let out = host.run(&["--help"], "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    for word in [
        "record",
        "status",
        "show",
        "cancel",
        "tick",
        "report",
        "resolve",
        "Exit codes",
        "5  refused",
    ] {
        assert!(text.contains(word), "--help lacks {word:?}:\n{text}");
    }
    for command in [
        "record", "status", "show", "cancel", "tick", "report", "resolve",
    ] {
        let out = host.run(&[command, "--help"], "");
        assert_eq!(out.status.code(), Some(0), "{command} --help");
        assert!(String::from_utf8(out.stdout).unwrap().contains("Usage"));
    }
    assert_eq!(
        host.run(&["frobnicate"], "").status.code(),
        Some(2),
        "usage errors exit 2"
    );
}

#[test]
fn store_urls_pick_a_backend_and_unknown_schemes_are_refused() {
    let host = Host::new();
    let text = String::from_utf8(host.run(&["--help"], "").stdout).unwrap();
    assert!(
        text.contains("postgres://"),
        "--help names the PostgreSQL URL:\n{text}"
    );
    let out = Host::with_store("mysql://u@127.0.0.1/db").expect(2, &["status"], "");
    assert_eq!(out["error"]["code"], "unsupported-store");
    // Nothing listens on port 1: exit 1, and the password in the URL is not printed.
    let unreachable = Host::with_store("postgres://u:sekrit-pw@127.0.0.1:1/db");
    let out = unreachable.run(&["status"], "");
    assert_eq!(out.status.code(), Some(1));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(printed.contains("store-error"), "{printed}");
    assert!(!printed.contains("sekrit-pw"), "{printed}");
}

#[test]
fn a_store_that_fails_its_integrity_check_is_refused_with_exit_1() {
    let host = Host::new();
    host.record("exec:/bin/true", 60_000, HOUR, &[]);
    // Flip bytes in the middle of the file (past the header): pages no longer check out.
    let conn = rusqlite::Connection::open(&host.db).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(&host.db).unwrap();
    let page = 4096;
    for b in &mut bytes[page + 100..2 * page - 100] {
        *b = 0x5a;
    }
    std::fs::write(&host.db, &bytes).unwrap();
    let out = host.expect(1, &["status", "--json"], "");
    assert!(
        ["store-corrupt", "store-error"].contains(&out["error"]["code"].as_str().unwrap()),
        "{out}"
    );
    let out = host.expect(1, &["tick"], "");
    assert!(out["error"].is_object(), "tick refuses a corrupt store too");
}

#[test]
fn recording_the_same_receipt_twice_answers_the_same_deferral() {
    let host = Host::new();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let first = host.expect(0, &["record", "--launch", "exec:/bin/true", "-"], &receipt);
    let again = host.expect(0, &["record", "--launch", "exec:/bin/true", "-"], &receipt);
    assert_eq!(again["id"], first["id"]);
    assert_eq!(again["already_recorded"], true);
    assert!(again.get("cancellation_handle").is_none(), "no new handle");
    // The same receipt with its keys in another order and other spacing: the same digest.
    let value: serde_json::Value = serde_json::from_str(&receipt).unwrap();
    let reordered = serde_json::to_string_pretty(&value).unwrap();
    let third = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "-"],
        &reordered,
    );
    assert_eq!(third["id"], first["id"]);
    let listed = host.expect(0, &["status", "--json"], "");
    assert_eq!(listed["deferrals"].as_array().unwrap().len(), 1);
}

#[test]
fn a_report_of_progress_completes_and_records_a_successor() {
    let host = Host::new();
    let (id, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    let store = host.open();
    let d = deferral_host::lifecycle::change::load(&store, &id).unwrap();
    let t = now();
    let claimed = deferral_host::lifecycle::claim::claim(
        &store,
        &d,
        "test",
        t + HOUR,
        deferral_host::store::AttemptStatus::Dispatched,
        t,
    )
    .unwrap();
    drop(store);
    let next_part = deferral_core::receipt::Receipt::handoff(
        deferral_core::receipt::Reason::RestReserve,
        now(),
        now(),
        now() + HOUR,
        deferral_core::receipt::Bindings {
            scope_digest: "a".repeat(64),
            request_digest: "c".repeat(64),
            plan_digest: None,
        },
        true,
    )
    .unwrap()
    .to_json();
    let out = host.expect(
        0,
        &[
            "report",
            &id,
            "--attempt",
            "1",
            "--outcome",
            "deferred",
            "--handle",
            &claimed.wakeup_handle,
            "-",
        ],
        &next_part,
    );
    assert_eq!(
        (out["state"].as_str(), out["cause"].as_str()),
        (Some("complete"), Some("progress"))
    );
    let store = host.open();
    let link = deferral_host::store::LoopStore::link(&store, &id).unwrap();
    let successor = link.successor.expect("a successor");
    let s = host.status(&successor);
    assert_eq!(
        (s["state"].as_str(), s["reentries"].as_u64()),
        (Some("deferred"), Some(0))
    );
    assert_eq!(
        deferral_host::store::LoopStore::link(&store, &successor)
            .unwrap()
            .chain,
        1
    );
}
