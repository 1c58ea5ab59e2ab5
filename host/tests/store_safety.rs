//! What the host trusts and shows: dispatch targets follow GitHub's rules, `show` and `status`
//! escape what they print, store files are private, a foreign database is never taken over,
//! and a receipt edited on disk is an integrity failure, never launched.

mod common;

use common::{lines, now, script, sq, Host, HOUR};
use deferral_host::store::{NewDeferral, NewReceipt, ResumeWindow, Store};
use std::os::unix::fs::PermissionsExt;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn dispatch_targets_follow_githubs_rules() {
    let host = Host::new();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    for launch in [
        "workflow-dispatch:octo/app/sync.yml@../../../user/keys",
        "workflow-dispatch:octo/app/sync.yml@refs/heads/../x",
        "workflow-dispatch:octo/app/sync.yml@main\r\nX-Injected: 1",
        "workflow-dispatch:octo/app/sync.yml@ma\u{1b}[2Jin",
        "workflow-dispatch:octo/app/sync.yml@a b",
        "workflow-dispatch:octo/../sync.yml@main",
        "workflow-dispatch:-octo/app/sync.yml@main",
        "workflow-dispatch:octo/app/..@main",
        "workflow-dispatch:octo/app/sync.sh@main",
    ] {
        let out = host.expect(2, &["record", "--launch", launch, "-"], &receipt);
        assert_eq!(out["error"]["code"], "invalid-launch", "{launch:?}: {out}");
    }
    host.record(
        "workflow-dispatch:octo/app/sync.yml@release/v1.2",
        0,
        HOUR,
        &[],
    );
    host.record(
        "workflow-dispatch:octo-org/my.app_2/123456@v1.0.0",
        0,
        HOUR,
        &[],
    );
}

/// A deferral written straight into the store, as an older version or a hand edit may leave it.
fn insert_raw(store: &dyn Store, id: &str, launch: &str, cause: &str) {
    let t = now();
    let retained = deferral_host_conformance::handoff(t, 0, HOUR)
        .retain(&"c".repeat(64), &"d".repeat(64))
        .unwrap();
    store
        .insert(&NewDeferral {
            id: id.into(),
            state: deferral_core::lifecycle::State::Deferred,
            reentries: 0,
            max_reentries: 2,
            cause: cause.into(),
            launch: launch.into(),
            window: ResumeWindow {
                reason: "rest-reserve".into(),
                resume_after_ms: t,
                resume_by_ms: t + HOUR,
            },
            wakeup_digest: "c".repeat(64),
            cancellation_digest: "d".repeat(64),
            receipts: vec![NewReceipt::new("retained", retained.to_json())],
            at_ms: t,
            keys: Default::default(),
        })
        .unwrap();
}

#[test]
fn show_and_status_escape_control_characters() {
    let host = Host::new();
    insert_raw(
        &host.open(),
        "dansi",
        "exec:/bin/true \u{1b}]0;pwned\u{7}\u{1b}[2J\r\nfake line",
        "recorded\u{1b}[2J\nfake line",
    );
    for args in [&["status"][..], &["show", "dansi"]] {
        let out = host.run(args, "");
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'),
            "{args:?} printed raw control characters: {text:?}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("fake line")),
            "{args:?} let a stored newline start a line: {text}"
        );
        assert!(
            text.contains("\\u{1b}"),
            "{args:?} shows them escaped: {text}"
        );
    }
}

#[test]
fn a_new_store_is_private_and_its_missing_directory_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("home/.deferral");
    let db = nested.join("host.db");
    let host = Host {
        store: format!("sqlite:{}", db.display()),
        db: db.clone(),
        dir,
    };
    // `init` creates the store (issue 21: status refuses a missing one).
    host.expect(0, &["init"], "");
    host.record("exec:/bin/true", 0, HOUR, &[]);
    assert_eq!(mode(&db), 0o600, "the store file");
    for side in ["host.db-wal", "host.db-shm"] {
        let path = nested.join(side);
        if path.exists() {
            assert_eq!(mode(&path), 0o600, "{side}");
        }
    }
    assert_eq!(mode(&nested), 0o700, "the directory the host created");
    assert_eq!(
        mode(&host.dir.path().join("home")),
        0o700,
        "every directory the host created"
    );
}

#[test]
fn another_applications_sqlite_file_is_refused_and_left_as_it_was() {
    let host = Host::new();
    {
        let conn = rusqlite::Connection::open(&host.db).unwrap();
        conn.execute_batch(
            "PRAGMA application_id = 1234; PRAGMA user_version = 7; \
             CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine');",
        )
        .unwrap();
    }
    let before = std::fs::read(&host.db).unwrap();
    let out = host.expect(1, &["status", "--json"], "");
    assert_eq!(out["error"]["code"], "foreign-store", "{out}");
    assert_eq!(
        std::fs::read(&host.db).unwrap(),
        before,
        "not one byte changed"
    );
    // No application id, but tables of its own: also someone else's.
    let other = host.path("other.db");
    {
        let conn = rusqlite::Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY);")
            .unwrap();
    }
    let before = std::fs::read(&other).unwrap();
    let other_host = Host::with_store(&format!("sqlite:{}", other.display()));
    let out = other_host.expect(1, &["status"], "");
    assert_eq!(out["error"]["code"], "foreign-store", "{out}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
    // Tables named like some of the store's, but not the store's set: not ours either.
    let partial = host.path("partial.db");
    {
        let conn = rusqlite::Connection::open(&partial).unwrap();
        conn.execute_batch("CREATE TABLE deferrals (job TEXT); CREATE TABLE receipts (job TEXT);")
            .unwrap();
    }
    let before = std::fs::read(&partial).unwrap();
    let partial_host = Host::with_store(&format!("sqlite:{}", partial.display()));
    let out = partial_host.expect(1, &["status"], "");
    assert_eq!(out["error"]["code"], "foreign-store", "{out}");
    assert_eq!(std::fs::read(&partial).unwrap(), before);
}

#[test]
fn the_store_carries_its_application_id() {
    let host = Host::new();
    // `init` creates the store (issue 21: status refuses a missing one).
    host.expect(0, &["init"], "");
    let conn = rusqlite::Connection::open(&host.db).unwrap();
    let id: i64 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(id, deferral_host::store::sqlite::APPLICATION_ID);
}

/// A group commit makes each item a savepoint; on a file, SQLite spills a savepoint's journal
/// past 64 KiB to a temporary file (a quarter of `serve`'s writer time, BENCHMARKS.md). Every
/// connection the store opens keeps it in memory.
#[test]
fn the_stores_connections_keep_their_temporary_journals_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = deferral_host::store::SqliteStore::open(
        &dir.path().join("host.db"),
        deferral_host::store::IntegrityCheck::Off,
    )
    .unwrap();
    let temp_store: i64 = store
        .connection()
        .query_row("PRAGMA temp_store", [], |r| r.get(0))
        .unwrap();
    assert_eq!(temp_store, 2, "2 is MEMORY");
}

#[test]
fn a_receipt_edited_on_disk_is_an_integrity_failure_and_is_not_launched() {
    let host = Host::new();
    let marker = host.path("launched");
    let launch = script(&host.path("x.sh"), &format!("echo x >> {}", sq(&marker)));
    let (id, _) = host.record(&launch, 0, HOUR, &[]);
    {
        // Someone with write access to the file moves the window and bypasses the trigger.
        let conn = rusqlite::Connection::open(&host.db).unwrap();
        conn.execute_batch(
            "DROP TRIGGER receipts_no_update; \
             UPDATE receipts SET receipt = replace(receipt, '\"fresh_approval_required\":true', '\"fresh_approval_required\":false');",
        )
        .unwrap();
    }
    let report = host.tick(&[]);
    assert!(lines(&marker).is_empty(), "not launched: {report}");
    let skipped = report["skipped"].to_string();
    assert!(skipped.contains("SHA-256"), "the tick says why: {report}");
    assert_eq!(host.status(&id)["state"], "deferred", "nothing changed");
    let out = host.expect(1, &["show", "--json", &id], "");
    assert_eq!(out["error"]["code"], "store-corrupt", "{out}");
}
