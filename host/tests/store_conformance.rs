//! The store conformance suite run against the SQLite backend, plus checks only SQLite has
//! (triggers refuse edits of evidence, raw handles absent from the file bytes, migrations).

use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{SqliteStore, Store};
use deferral_host_conformance::Backend;
use std::path::PathBuf;

struct Sqlite {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Sqlite {
    fn new() -> Sqlite {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("host.db");
        Sqlite { _dir: dir, path }
    }
}

impl Backend for Sqlite {
    fn connect(&self) -> Box<dyn Store + Send> {
        Box::new(SqliteStore::open(&self.path, IntegrityCheck::Full).expect("open store"))
    }
}

deferral_host_conformance::store_conformance_tests!(Sqlite::new());
deferral_host_conformance::store_loop_conformance_tests!(Sqlite::new());

fn recorded(store: &SqliteStore) -> deferral_host::lifecycle::insert::Inserted {
    let now = deferral_host::clock::now_ms();
    let text = deferral_host_conformance::distinct_handoff(now, 0, 3_600_000).to_json();
    deferral_host::lifecycle::insert::insert_new(store, text.as_bytes(), "exec:/bin/true", 2, now)
        .unwrap()
}

#[test]
fn sqlite_refuses_editing_receipts_and_events() {
    let backend = Sqlite::new();
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    let rec = recorded(&store);
    let conn = store.connection();
    for sql in [
        "UPDATE receipts SET receipt = '{}'",
        "DELETE FROM receipts",
        "UPDATE events SET cause = 'x'",
        "DELETE FROM events",
    ] {
        let err = conn.execute(sql, []).unwrap_err().to_string();
        assert!(err.contains("append-only"), "{sql}: {err}");
    }
    assert_eq!(store.receipts(&rec.deferral.id).unwrap().len(), 2);
}

#[test]
fn sqlite_file_never_holds_a_raw_handle() {
    let backend = Sqlite::new();
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    let rec = recorded(&store);
    let now = deferral_host::clock::now_ms();
    let claimed = deferral_host::lifecycle::claim::claim(
        &store,
        &rec.deferral,
        "t",
        now + 1000,
        deferral_host::store::AttemptStatus::Launching,
        now,
    )
    .unwrap();
    store
        .connection()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    drop(store);
    let mut bytes = std::fs::read(&backend.path).unwrap();
    if let Ok(wal) = std::fs::read(backend.path.with_extension("db-wal")) {
        bytes.extend(wal);
    }
    for raw in [
        rec.cancellation_handle.as_bytes(),
        claimed.wakeup_handle.as_bytes(),
    ] {
        assert!(
            !bytes.windows(raw.len()).any(|w| w == raw),
            "raw handle found in the store file"
        );
    }
    let digest = deferral_host::handle::handle_digest(&rec.cancellation_handle);
    assert!(
        bytes.windows(64).any(|w| w == digest.as_bytes()),
        "the digest is there"
    );
}

#[test]
fn sqlite_store_is_wal_full_sync_and_versioned() {
    let backend = Sqlite::new();
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    let conn = store.connection();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    let sync: i64 = conn
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        (mode.as_str(), sync, version),
        ("wal", 2, deferral_host::store::sqlite::SCHEMA_VERSION)
    );
    // The due query is an index range scan, not a table scan.
    let plan: String = conn
        .query_row(
            "EXPLAIN QUERY PLAN SELECT id FROM deferrals WHERE state = 'deferred' AND resume_after_ms <= 1 \
             AND resume_by_ms >= 1 ORDER BY resume_after_ms LIMIT 10",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("USING INDEX deferrals_due"), "{plan}");
    // The status page's reads walk an index in the page's order and stop at the limit: no
    // sort of every row of the state.
    for (sql, index) in [
        (
            "SELECT id FROM deferrals WHERE state = 'complete' ORDER BY updated_ms DESC, id DESC LIMIT 100",
            "deferrals_changed",
        ),
        (
            "SELECT id FROM deferrals WHERE state = 'deferred' ORDER BY resume_after_ms, id LIMIT 100",
            "deferrals_due",
        ),
    ] {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let plan: Vec<String> = stmt
            .query_map([], |r| r.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let plan = plan.join("; ");
        assert!(plan.contains(&format!("INDEX {index}")), "{sql}: {plan}");
        assert!(!plan.contains("FOR ORDER BY"), "{sql}: {plan}");
    }
    // A store from a newer program is refused, not silently used.
    conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(store);
    let err = SqliteStore::open(&backend.path, IntegrityCheck::Full)
        .err()
        .expect("refused");
    assert_eq!(err.code(), "schema-too-new");
}

#[test]
fn sqlite_open_refuses_a_corrupt_file() {
    let backend = Sqlite::new();
    std::fs::write(
        &backend.path,
        b"this is not a database file at all, not even close........",
    )
    .unwrap();
    assert!(SqliteStore::open(&backend.path, IntegrityCheck::Full).is_err());
}

#[test]
fn sqlite_migrates_a_store_from_before_the_github_loop_and_indexes_its_receipts() {
    use deferral_host::store::LoopStore;
    let backend = Sqlite::new();
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    let rec = recorded(&store);
    // Back to the schema an older host left: without the loop's tables (version 2; the
    // migrations after the loop's go too: the retry links of issue 21).
    let before = 2;
    store
        .connection()
        .execute_batch(&format!(
            "{}{}DROP TABLE retries; DROP TABLE receipt_keys; DROP TABLE artifacts; DROP TABLE runs; DROP TABLE links; \
             DROP TABLE http_cache; DROP TABLE artifact_names; DROP INDEX deferrals_attempt; \
             PRAGMA user_version = {before};",
            deferral_host_conformance::UNDO_SQLITE_COUNTS_MIGRATION,
            deferral_host_conformance::UNDO_POOLS_MIGRATION
        ))
        .unwrap();
    drop(store);
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    let digest = deferral_host::store::github::receipt_digest(&rec.receipt.to_json()).unwrap();
    assert_eq!(
        store.find_by_receipt_digest(&digest).unwrap().as_deref(),
        Some(rec.deferral.id.as_str()),
        "receipts stored before the migration are indexed by it"
    );
    let submitted = &store.receipts(&rec.deferral.id).unwrap()[0].text;
    let err = deferral_host::lifecycle::insert::insert_new(
        &store,
        submitted.as_bytes(),
        "exec:/bin/true",
        2,
        deferral_host::clock::now_ms(),
    )
    .unwrap_err();
    assert_eq!(err.code, "already-recorded");
}

#[test]
fn a_version_1_store_migrates_to_the_launch_process_table_keeping_its_rows() {
    let backend = Sqlite::new();
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    let d = recorded(&store).deferral;
    // What a store written by the first version looks like: no launch_processes table.
    store
        .connection()
        .execute_batch(&format!(
            "{}{}DROP TABLE retries; DROP TABLE launch_processes; DROP TABLE receipt_keys; DROP TABLE artifacts; \
             DROP TABLE runs; DROP TABLE links; DROP TABLE http_cache; DROP TABLE artifact_names; \
             DROP INDEX deferrals_attempt; PRAGMA user_version = 1; PRAGMA application_id = 0",
            deferral_host_conformance::UNDO_SQLITE_COUNTS_MIGRATION,
            deferral_host_conformance::UNDO_POOLS_MIGRATION
        ))
        .unwrap();
    drop(store);
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    assert_eq!(store.get(&d.id).unwrap().unwrap(), d, "the row is kept");
    assert_eq!(store.launch_process(&d.id).unwrap(), None);
    let version: i64 = store
        .connection()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, deferral_host::store::sqlite::SCHEMA_VERSION);
    let id: i64 = store
        .connection()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        id,
        deferral_host::store::sqlite::APPLICATION_ID,
        "a first-version store (no id yet) is known by its tables and gets the id"
    );
}

#[test]
fn sqlite_open_refuses_a_file_whose_index_page_is_damaged() {
    let backend = Sqlite::new();
    let store = SqliteStore::open(&backend.path, IntegrityCheck::Full).unwrap();
    for _ in 0..20 {
        recorded(&store);
    }
    let (page_size, root): (i64, i64) = store
        .connection()
        .query_row(
            "SELECT (SELECT page_size FROM pragma_page_size()), rootpage FROM sqlite_schema WHERE name = 'deferrals_due'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    drop(store); // the last connection checkpoints the WAL into the file
    let mut bytes = std::fs::read(&backend.path).unwrap();
    let start = usize::try_from((root - 1) * page_size).unwrap();
    let end = start + usize::try_from(page_size).unwrap();
    bytes[start..end].fill(0xA5);
    std::fs::write(&backend.path, &bytes).unwrap();
    for check in [IntegrityCheck::Full, IntegrityCheck::Quick] {
        let err = SqliteStore::open(&backend.path, check)
            .err()
            .expect("a damaged file is refused");
        assert_eq!(err.code(), "store-corrupt", "{check:?}: {err}");
    }
    let unchecked = SqliteStore::open(&backend.path, IntegrityCheck::Off)
        .expect("--integrity off skips the check (and only that)");
    // The same check, asked of an open store (`Store::check_integrity`).
    let err = unchecked
        .check_integrity()
        .expect_err("the damage is found");
    assert_eq!(err.code(), "store-corrupt", "{err}");
}
