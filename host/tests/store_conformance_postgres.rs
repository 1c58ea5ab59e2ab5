//! The store conformance suite run against the PostgreSQL backend, each test in its own fresh
//! schema, plus checks only PostgreSQL has (append-only triggers, the schema version table,
//! replicas migrating at once, `SKIP LOCKED` claims beside listings that lock nothing, raw
//! handles absent from every table).
//! Needs a server: `source scripts/postgres-test-server.sh start` exports its URL; without one
//! every test here is skipped, or fails under `DEFERRAL_REQUIRE_POSTGRES=1`.

mod common;

use common::pg::{schema_or_skip, TestSchema};
use deferral_host::store::postgres::SCHEMA_VERSION;
use deferral_host::store::{IntegrityCheck, PostgresStore, Store};
use deferral_host_conformance::Backend;

struct Postgres(TestSchema);

impl Backend for Postgres {
    fn connect(&self) -> Box<dyn Store + Send> {
        Box::new(PostgresStore::open(&self.0.url, IntegrityCheck::Full).expect("open store"))
    }
}

deferral_host_conformance::store_conformance_tests!(match schema_or_skip() {
    Some(schema) => Postgres(schema),
    None => return,
});
deferral_host_conformance::store_loop_conformance_tests!(match schema_or_skip() {
    Some(schema) => Postgres(schema),
    None => return,
});

fn recorded(store: &dyn Store) -> deferral_host::lifecycle::insert::Inserted {
    let now = deferral_host::clock::now_ms();
    let text = deferral_host_conformance::distinct_handoff(now, 0, 3_600_000).to_json();
    deferral_host::lifecycle::insert::insert_new(store, text.as_bytes(), "exec:/bin/true", 2, now)
        .unwrap()
}

#[test]
fn postgres_refuses_editing_receipts_and_events() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    let rec = recorded(&store);
    let mut client = schema.client();
    for sql in [
        "UPDATE receipts SET receipt = '{}'",
        "DELETE FROM receipts",
        "TRUNCATE receipts",
        "UPDATE events SET cause = 'x'",
        "DELETE FROM events",
        "TRUNCATE events",
    ] {
        let err = client.batch_execute(sql).unwrap_err();
        let message = err.as_db_error().map(|e| e.message().to_string());
        assert!(
            message
                .as_deref()
                .is_some_and(|m| m.contains("append-only")),
            "{sql}: {err:?}"
        );
    }
    assert_eq!(store.receipts(&rec.deferral.id).unwrap().len(), 2);
    assert_eq!(store.events(&rec.deferral.id).unwrap().len(), 1);
}

#[test]
fn postgres_tables_never_hold_a_raw_handle() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
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
    // Every column of every row, as text.
    let mut everything = String::new();
    let mut client = schema.client();
    for table in ["deferrals", "receipts", "events", "deferral_schema_version"] {
        for row in client
            .query(&format!("SELECT t::text FROM {table} t"), &[])
            .unwrap()
        {
            everything.push_str(row.get::<_, &str>(0));
        }
    }
    for raw in [&rec.cancellation_handle, &claimed.wakeup_handle] {
        assert!(!everything.contains(raw.as_str()), "raw handle stored");
    }
    let digest = deferral_host::handle::handle_digest(&rec.cancellation_handle);
    assert!(everything.contains(&digest), "the digest is there");
}

#[test]
fn postgres_schema_is_versioned_and_a_newer_one_is_refused() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    store.check_integrity().unwrap();
    let mut client = schema.client();
    let version: i64 = client
        .query_one("SELECT version FROM deferral_schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, SCHEMA_VERSION);
    let indexes: Vec<String> = client
        .query(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for name in [
        "deferrals_due",
        "deferrals_expiry",
        "deferrals_lease",
        "deferrals_created",
        "deferrals_changed",
        "receipts_deferral",
        "events_deferral",
    ] {
        assert!(indexes.iter().any(|i| i == name), "{name} in {indexes:?}");
    }
    client
        .batch_execute("UPDATE deferral_schema_version SET version = 99")
        .unwrap();
    let err = PostgresStore::open(&schema.url, IntegrityCheck::Off)
        .err()
        .expect("refused");
    assert_eq!(err.code(), "schema-too-new");
}

#[test]
fn postgres_replicas_opening_a_new_schema_at_once_all_succeed() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    std::thread::scope(|scope| {
        let opens: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| PostgresStore::open(&schema.url, IntegrityCheck::Full)))
            .collect();
        for open in opens {
            open.join().unwrap().expect("every replica opens the store");
        }
    });
    let version: i64 = schema
        .client()
        .query_one("SELECT version FROM deferral_schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, SCHEMA_VERSION, "migrated exactly once");
}

/// `due` is a listing and locks nothing, so a row another transaction holds (a ticker claiming
/// it) is listed at once, without waiting; the claim itself decides who launches it.
#[test]
fn postgres_due_lists_a_row_another_transaction_holds_without_waiting() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    let held = recorded(&store).deferral;
    let free = recorded(&store).deferral;
    let mut other = schema.client();
    let mut tx = other.transaction().unwrap();
    tx.query(
        "SELECT id FROM deferrals WHERE id = $1 FOR UPDATE",
        &[&held.id],
    )
    .unwrap();
    let now = deferral_host::clock::now_ms();
    let mut due: Vec<String> = store
        .due(now, 10)
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    due.sort();
    let mut both = [held.id, free.id];
    both.sort();
    assert_eq!(due, both);
    tx.rollback().unwrap();
}

#[test]
fn postgres_store_urls_select_the_backend() {
    use deferral_host::store::StoreUrl;
    for url in ["postgres://u@h:5432/db", "postgresql://u@h/db"] {
        assert!(
            matches!(StoreUrl::parse(url), Ok(StoreUrl::Postgres(_))),
            "{url}"
        );
    }
    assert!(matches!(
        StoreUrl::parse("sqlite:/tmp/x.db"),
        Ok(StoreUrl::Sqlite(_))
    ));
    assert!(matches!(
        StoreUrl::parse("/tmp/x.db"),
        Ok(StoreUrl::Sqlite(_))
    ));
    assert!(StoreUrl::parse("mysql://h/db").is_err());
    assert_eq!(
        format!("{:?}", StoreUrl::parse("postgres://u:secret@h/db").unwrap()),
        "Postgres(..)",
        "a URL's password never reaches a log"
    );
}

#[test]
fn postgres_refuses_another_applications_tables_and_leaves_them() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let mut client = schema.client();
    client
        .batch_execute(
            "CREATE TABLE deferrals (job TEXT PRIMARY KEY); INSERT INTO deferrals VALUES ('theirs')",
        )
        .unwrap();
    let err = PostgresStore::open(&schema.url, IntegrityCheck::Off)
        .err()
        .expect("refused");
    assert_eq!(err.code(), "foreign-store", "{err}");
    let kept: String = client
        .query_one("SELECT job FROM deferrals", &[])
        .unwrap()
        .get(0);
    assert_eq!(kept, "theirs");
    let version_table: bool = client
        .query_one(
            "SELECT to_regclass('deferral_schema_version') IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(!version_table, "nothing created in their schema");
}

#[test]
fn postgres_store_is_marked_and_a_receipt_edited_in_place_is_refused() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    let mut client = schema.client();
    let marker: Option<String> = client
        .query_one(
            "SELECT obj_description('deferral_schema_version'::regclass, 'pg_class')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        marker.as_deref(),
        Some(deferral_host::store::postgres::STORE_MARKER)
    );
    let d = recorded(&store).deferral;
    client
        .batch_execute(
            "ALTER TABLE receipts DISABLE TRIGGER receipts_no_update; \
             UPDATE receipts SET receipt = replace(receipt, 'rest-reserve', 'graphql-reserve'); \
             ALTER TABLE receipts ENABLE TRIGGER receipts_no_update",
        )
        .unwrap();
    assert_eq!(
        store.current_receipt(&d.id).unwrap_err().code(),
        "store-corrupt"
    );
    assert_eq!(store.receipts(&d.id).unwrap_err().code(), "store-corrupt");
}

#[test]
fn postgres_claim_next_skips_a_row_another_ticker_holds_without_waiting() {
    let Some(schema) = schema_or_skip() else {
        return;
    };
    let store = PostgresStore::open(&schema.url, IntegrityCheck::Full).unwrap();
    let held = recorded(&store).deferral;
    let free = recorded(&store).deferral;
    let mut other = schema.client();
    let mut tx = other.transaction().unwrap();
    tx.query(
        "SELECT id FROM deferrals WHERE id = $1 FOR UPDATE",
        &[&held.id],
    )
    .unwrap();
    let now = deferral_host::clock::now_ms();
    let next = deferral_host::store::NextDue {
        now_ms: now,
        ..Default::default()
    };
    let claim = || {
        deferral_host::lifecycle::claim::claim_next(
            &store,
            &next,
            "t",
            60_000,
            &|_| deferral_host::store::AttemptStatus::Launching,
            now,
        )
        .map_err(|f| f.error)
        .unwrap()
        .map(|c| c.deferral.id)
    };
    let started = std::time::Instant::now();
    assert_eq!(claim(), Some(free.id), "the free row, at once");
    assert_eq!(claim(), None, "the held row is skipped, not waited for");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    tx.rollback().unwrap();
    assert_eq!(claim(), Some(held.id), "claimed once released");
}
