//! The PostgreSQL store, for several replicas and tickers on several machines sharing one
//! database. Same tables, indexes and append-only triggers as the SQLite store; every change is
//! the same compare-and-set on `(state, fence)` in one transaction with its receipts and event.
//!
//! Transactions run at READ COMMITTED, set explicitly so a server whose
//! `default_transaction_isolation` is stricter behaves the same. That is enough because every
//! write locks the one row it changes before reading it (`SELECT ... FOR UPDATE`): a second
//! writer waits for the first to commit and then reads the committed row, so the
//! read-check-write of [`Store::update`] is serialised per row the way `BEGIN IMMEDIATE`
//! serialises it in SQLite, without serialization failures to retry. The `UPDATE ... WHERE id
//! AND state AND fence` repeats the check (PostgreSQL re-evaluates it on the newest row version),
//! so 0 rows is a conflict even if the lock were ever dropped.
//!
//! `tick` claims with [`Store::claim_next_due`]: the next due row `FOR UPDATE SKIP LOCKED`,
//! updated in the same transaction, so tickers never wait on each other nor lose a claim.
//! The work queries `expirable` and `stale_leases` read with `FOR UPDATE SKIP LOCKED`: a ticker
//! never waits for, nor lists, a row another ticker or replica is changing at that moment; the
//! compare-and-set decides which change wins when two see the same row. `due` is a plain read
//! that locks nothing: it only lists (the claim picks its own row), and a lock held while listing
//! would hide every due row from the other tickers' claims.
//!
//! Schema changes are numbered migrations tracked in the one-row table
//! `deferral_schema_version`, applied on open in one transaction under an advisory lock, so
//! several replicas opening a new database at once do not race. The connection uses TLS as the
//! URL's `sslmode` asks (see [`super::postgres_tls`]; `verify-full` for a real deployment).

mod github;
mod pools;
mod retry;
mod sql_conn;

use super::rules;
use super::sqlite::IntegrityCheck;
use super::{
    AttemptStatus, ClaimBuilder, Deferral, EventRecord, LaunchProcess, ListQuery, NewDeferral,
    NewReceipt, NextDue, PageOrder, Store, StoreError, StoredReceipt, Update,
};
use deferral_core::digest::sha256_hex;
use deferral_core::lifecycle::State;
use postgres::types::ToSql;
use postgres::{Client, GenericClient, IsolationLevel, Row, Transaction};
use sql_conn::numbered;
use std::cell::RefCell;

/// Migrations, in order; migration `i` moves the store from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE deferrals (
    id                  TEXT PRIMARY KEY,
    state               TEXT NOT NULL CHECK (state IN ('ready','deferred','resumable','complete','blocked','cancelled')),
    fence               BIGINT NOT NULL,
    reentries           BIGINT NOT NULL,
    max_reentries       BIGINT NOT NULL,
    reason              TEXT NOT NULL,
    resume_after_ms     BIGINT NOT NULL,
    resume_by_ms        BIGINT NOT NULL,
    launch              TEXT NOT NULL,
    wakeup_digest       TEXT,
    cancellation_digest TEXT NOT NULL,
    lease_owner         TEXT,
    lease_until_ms      BIGINT,
    attempt_status      TEXT,
    cause               TEXT NOT NULL,
    detail              TEXT,
    receipt_seq         BIGINT NOT NULL,
    created_ms          BIGINT NOT NULL,
    updated_ms          BIGINT NOT NULL
);
-- Finding due work: state = 'deferred' AND resume_after_ms <= now, a range scan at any size.
CREATE INDEX deferrals_due ON deferrals (state, resume_after_ms);
-- Finding expirable work: state IN (...) AND resume_by_ms < now.
CREATE INDEX deferrals_expiry ON deferrals (state, resume_by_ms);
-- Finding leases left by a crashed ticker: state = 'resumable' AND lease_until_ms < now.
CREATE INDEX deferrals_lease ON deferrals (state, lease_until_ms);
CREATE INDEX deferrals_created ON deferrals (created_ms, id);

CREATE TABLE receipts (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    kind        TEXT NOT NULL,
    receipt     TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    created_ms  BIGINT NOT NULL
);
CREATE INDEX receipts_deferral ON receipts (deferral_id, seq);

CREATE TABLE events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    at_ms       BIGINT NOT NULL,
    event       TEXT NOT NULL,
    from_state  TEXT,
    to_state    TEXT NOT NULL,
    cause       TEXT NOT NULL,
    fence       BIGINT NOT NULL,
    reentries   BIGINT NOT NULL,
    detail      TEXT
);
CREATE INDEX events_deferral ON events (deferral_id, seq);

-- Evidence is append-only: UPDATE, DELETE and TRUNCATE raise, whoever runs them.
CREATE FUNCTION deferral_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% are append-only', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER receipts_no_truncate BEFORE TRUNCATE ON receipts FOR EACH STATEMENT EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION deferral_append_only();
"#,
    r#"
-- 2: the process group of each deferral's current exec: launch (see LaunchProcess).
CREATE TABLE launch_processes (
    deferral_id  TEXT PRIMARY KEY REFERENCES deferrals (id),
    fence        BIGINT NOT NULL,
    pgid         BIGINT NOT NULL,
    machine      TEXT NOT NULL,
    boot_id      TEXT NOT NULL,
    leader_start BIGINT NOT NULL,
    recorded_ms  BIGINT NOT NULL
);
"#,
    // 3: the GitHub loop's tables (receipt digests, artifacts, runs, successors, ETags).
    github::MIGRATION,
    // 4: a run's API URL (`run_url`) beside its page (`html_url`).
    github::RUN_URLS_MIGRATION,
    r#"
-- 5: the status page's latest outcomes (state = ... ORDER BY updated_ms DESC, id DESC LIMIT n)
-- read only the rows drawn, at any size of the store.
CREATE INDEX IF NOT EXISTS deferrals_changed ON deferrals (state, updated_ms, id);
"#,
    // 6: the links from a blocked deferral to its retry.
    retry::MIGRATION,
    // 7: pools, planned costs, admissions and the rate states reported (see `store::pools`).
    pools::MIGRATION,
    r#"
-- 8: each target's kind (`super::launch_kind`: the text before its first colon), so that a
-- query picks targets by kind, never by their text; rows stored before are filled by that rule.
ALTER TABLE deferrals ADD COLUMN launch_kind TEXT NOT NULL DEFAULT '';
UPDATE deferrals SET launch_kind = CASE WHEN strpos(launch, ':') > 0
    THEN split_part(launch, ':', 1) ELSE '' END;
"#,
];

/// The schema version this program writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// First key of the advisory lock taken while migrating (the second is the schema's name), so
/// replicas opening the same schema at once migrate one after the other.
const MIGRATION_LOCK: i32 = 0x6465_6672; // "defr"

const COLUMNS: &str = "id, state, fence, reentries, max_reentries, reason, resume_after_ms, resume_by_ms, launch, \
     wakeup_digest, cancellation_digest, lease_owner, lease_until_ms, attempt_status, cause, detail, receipt_seq, \
     created_ms, updated_ms";

type Params<'a> = [&'a (dyn ToSql + Sync)];

/// The comment on `deferral_schema_version` that marks a schema as a deferral-host store (the
/// PostgreSQL counterpart of SQLite's `application_id`).
pub const STORE_MARKER: &str = "deferral-host store";

/// Refuses (`foreign-store`) a schema whose tables this program did not create: tables named
/// like the store's without its version table, or a version table marked by someone else.
fn check_ownership(tx: &mut Transaction) -> Result<(), StoreError> {
    let row = tx
        .query_one(
            "SELECT to_regclass('deferral_schema_version') IS NOT NULL, \
             obj_description(to_regclass('deferral_schema_version'), 'pg_class'), \
             (SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_class c \
              WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v') \
              AND c.relname IN ('deferrals', 'receipts', 'events', 'launch_processes'))",
            &[],
        )
        .map_err(backend)?;
    let (has_version, marker, tables): (bool, Option<String>, Option<String>) =
        (row.get(0), row.get(1), row.get(2));
    let foreign = |why: String| {
        Err(StoreError::Foreign(format!(
            "schema {why}; deferral-host leaves it as it is (use another database or search_path)"
        )))
    };
    match (has_version, marker.as_deref(), tables) {
        (false, _, Some(tables)) => foreign(format!(
            "has tables named like the store's ({tables}) that deferral-host did not create"
        )),
        (true, Some(other), _) if other != STORE_MARKER => foreign(format!(
            "has a deferral_schema_version table marked {other:?}"
        )),
        _ => Ok(()),
    }
}

/// A store on one PostgreSQL connection. Not shared between threads: open one per worker.
pub struct PostgresStore {
    client: RefCell<Client>,
}

/// The server's own message (`ERROR: ...`) when there is one; the client's description otherwise.
pub(super) fn backend(err: postgres::Error) -> StoreError {
    if let Some(db) = err.as_db_error() {
        return StoreError::Backend(db.to_string());
    }
    match std::error::Error::source(&err) {
        Some(source) => StoreError::Backend(format!("{err}: {source}")),
        None => StoreError::Backend(err.to_string()),
    }
}

pub(super) fn connect_error(err: super::postgres_tls::ConnectError) -> StoreError {
    match err {
        super::postgres_tls::ConnectError::Setup(message) => StoreError::Backend(message),
        super::postgres_tls::ConnectError::Connect(err) => backend(err),
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn to_u32(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

fn bad_value(what: &str, text: &str) -> StoreError {
    StoreError::Corrupt(format!("unexpected {what} {text:?} in the store"))
}

fn parse_state(text: &str) -> Result<State, StoreError> {
    State::parse(text).ok_or_else(|| bad_value("state", text))
}

fn read_deferral(row: &Row) -> Result<Deferral, StoreError> {
    let attempt_status = match row.get::<_, Option<String>>(13) {
        None => None,
        Some(text) => {
            Some(AttemptStatus::parse(&text).ok_or_else(|| bad_value("attempt status", &text))?)
        }
    };
    Ok(Deferral {
        id: row.get(0),
        state: parse_state(row.get(1))?,
        fence: to_u64(row.get(2)),
        reentries: to_u32(row.get(3)),
        max_reentries: to_u32(row.get(4)),
        reason: row.get(5),
        resume_after_ms: to_u64(row.get(6)),
        resume_by_ms: to_u64(row.get(7)),
        launch: row.get(8),
        wakeup_digest: row.get(9),
        cancellation_digest: row.get(10),
        lease_owner: row.get(11),
        lease_until_ms: row.get::<_, Option<i64>>(12).map(to_u64),
        attempt_status,
        cause: row.get(14),
        detail: row.get(15),
        receipt_seq: to_u64(row.get(16)),
        created_ms: to_u64(row.get(17)),
        updated_ms: to_u64(row.get(18)),
    })
}

fn read_receipt(row: &Row) -> StoredReceipt {
    StoredReceipt {
        seq: to_u64(row.get(0)),
        deferral_id: row.get(1),
        kind: row.get(2),
        text: row.get(3),
        sha256: row.get(4),
        created_ms: to_u64(row.get(5)),
    }
}

fn current_receipt_in(
    conn: &mut impl GenericClient,
    id: &str,
) -> Result<StoredReceipt, StoreError> {
    conn.query_opt(
        "SELECT r.seq, r.deferral_id, r.kind, r.receipt, r.sha256, r.created_ms FROM receipts r \
         JOIN deferrals d ON d.id = r.deferral_id AND d.receipt_seq = r.seq WHERE d.id = $1",
        &[&id],
    )
    .map_err(backend)?
    .as_ref()
    .map(read_receipt)
    .ok_or_else(|| StoreError::NotFound(id.to_string()))
    .and_then(super::verify_receipt)
}

fn select_with(
    conn: &mut impl GenericClient,
    tail_sql: &str,
    params: &Params,
) -> Result<Vec<Deferral>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM deferrals {tail_sql}");
    conn.query(sql.as_str(), params)
        .map_err(backend)?
        .iter()
        .map(read_deferral)
        .collect()
}

fn append_receipts(
    tx: &mut Transaction,
    id: &str,
    receipts: &[NewReceipt],
    at_ms: u64,
) -> Result<u64, StoreError> {
    let mut last = 0;
    for receipt in receipts {
        let row = tx
            .query_one(
                "INSERT INTO receipts (deferral_id, kind, receipt, sha256, created_ms) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING seq",
                &[
                    &id,
                    &receipt.kind,
                    &receipt.text,
                    &sha256_hex(receipt.text.as_bytes()),
                    &to_i64(at_ms),
                ],
            )
            .map_err(backend)?;
        last = to_u64(row.get(0));
    }
    Ok(last)
}

#[allow(clippy::too_many_arguments)]
fn append_event(
    tx: &mut Transaction,
    id: &str,
    at_ms: u64,
    event: &str,
    from: Option<State>,
    to: State,
    cause: &str,
    fence: u64,
    reentries: u32,
    detail: Option<&str>,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO events (deferral_id, at_ms, event, from_state, to_state, cause, fence, reentries, detail) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &id,
            &to_i64(at_ms),
            &event,
            &from.map(State::as_str),
            &to.as_str(),
            &cause,
            &to_i64(fence),
            &i64::from(reentries),
            &detail,
        ],
    )
    .map_err(backend)?;
    Ok(())
}

impl PostgresStore {
    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=...&options=...]`,
    /// TLS as [`super::postgres_tls`] describes),
    /// migrates the schema and, unless `check` is `Off`, checks the store's consistency.
    pub fn open(url: &str, check: IntegrityCheck) -> Result<PostgresStore, StoreError> {
        let client = super::postgres_tls::connect(url).map_err(connect_error)?;
        let store = PostgresStore {
            client: RefCell::new(client),
        };
        store.migrate()?;
        if check != IntegrityCheck::Off {
            store.check_integrity()?;
        }
        Ok(store)
    }

    /// The underlying connection, for tests and benchmarks.
    pub fn client(&self) -> std::cell::RefMut<'_, Client> {
        self.client.borrow_mut()
    }

    fn migrate(&self) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext(coalesce(current_schema(), '')))",
                &[&MIGRATION_LOCK],
            )
            .map_err(backend)?;
            check_ownership(tx)?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS deferral_schema_version (\
                     singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton), \
                     version BIGINT NOT NULL); \
                 INSERT INTO deferral_schema_version (version) VALUES (0) ON CONFLICT DO NOTHING",
            )
            .map_err(backend)?;
            let version: i64 = tx
                .query_one("SELECT version FROM deferral_schema_version", &[])
                .map_err(backend)?
                .get(0);
            if version > SCHEMA_VERSION {
                return Err(StoreError::SchemaTooNew {
                    found: version,
                    supported: SCHEMA_VERSION,
                });
            }
            for (index, sql) in MIGRATIONS
                .iter()
                .enumerate()
                .skip(usize::try_from(version).unwrap_or(0))
            {
                tx.batch_execute(sql).map_err(backend)?;
                if *sql == github::MIGRATION {
                    super::sql::github::backfill(&mut sql_conn::Pg(tx))?;
                }
                let next = i64::try_from(index + 1).unwrap_or(i64::MAX);
                tx.execute("UPDATE deferral_schema_version SET version = $1", &[&next])
                    .map_err(backend)?;
            }
            // The marker (new stores, and first-version stores, which had none).
            tx.batch_execute(&format!(
                "COMMENT ON TABLE deferral_schema_version IS '{STORE_MARKER}'"
            ))
            .map_err(backend)?;
            Ok(())
        })
    }

    /// Runs `body` in a READ COMMITTED transaction: committed on `Ok`, rolled back on `Err`
    /// (dropping an uncommitted transaction rolls it back).
    fn write<T>(
        &self,
        body: impl FnOnce(&mut Transaction) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        let mut tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::ReadCommitted)
            .start()
            .map_err(backend)?;
        let value = body(&mut tx)?;
        tx.commit().map_err(backend)?;
        Ok(value)
    }

    fn select(&self, tail_sql: &str, params: &Params) -> Result<Vec<Deferral>, StoreError> {
        select_with(&mut *self.client.borrow_mut(), tail_sql, params)
    }

    /// A work query of `tick`: rows another transaction holds are skipped, not waited for.
    fn select_work(&self, tail_sql: &str, params: &Params) -> Result<Vec<Deferral>, StoreError> {
        let sql = format!("{tail_sql} FOR UPDATE SKIP LOCKED");
        self.write(|tx| select_with(tx, &sql, params))
    }
}

/// The compare-and-set's `UPDATE` in this backend's placeholders, written once per process
/// rather than on every update.
static COMPARE_AND_SET: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| super::compare_and_set_sql('$'));

/// The compare-and-set of [`Store::update`], inside a transaction the caller holds.
fn update_in(tx: &mut Transaction, id: &str, update: &Update) -> Result<Deferral, StoreError> {
    let conflict = || StoreError::Conflict {
        id: id.to_string(),
        expected_state: update.expect_state,
        expected_fence: update.expect_fence,
    };
    // The row lock: a concurrent writer of this row waits here until we commit, then
    // reads what we wrote (READ COMMITTED reads the newest committed version).
    let current = select_with(tx, "WHERE id = $1 FOR UPDATE", &[&id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
    let next = update.next_row(id, &current)?;
    let receipt_seq = if update.receipts.is_empty() {
        current.receipt_seq
    } else {
        super::sql::github::register_receipts(&mut sql_conn::Pg(tx), id, &update.receipts)?;
        append_receipts(tx, id, &update.receipts, update.at_ms)?
    };
    // The compare-and-set itself, repeating the check in its WHERE.
    let changed = tx
        .execute(
            COMPARE_AND_SET.as_str(),
            &[
                &update.state.as_str(),
                &to_i64(next.fence),
                &i64::from(update.reentries),
                &next.reason,
                &to_i64(next.resume_after_ms),
                &to_i64(next.resume_by_ms),
                &next.wakeup_digest,
                &next.lease.as_ref().map(|l| l.owner.clone()),
                &next.lease.as_ref().map(|l| to_i64(l.until_ms)),
                &next.attempt_status.map(AttemptStatus::as_str),
                &update.cause,
                &update.detail,
                &to_i64(receipt_seq),
                &to_i64(update.at_ms),
                &id,
                &update.expect_state.as_str(),
                &to_i64(update.expect_fence),
            ],
        )
        .map_err(backend)?;
    if changed != 1 {
        return Err(conflict());
    }
    append_event(
        tx,
        id,
        update.at_ms,
        &update.event,
        Some(current.state),
        update.state,
        &update.cause,
        next.fence,
        update.reentries,
        update.detail.as_deref(),
    )?;
    select_with(tx, "WHERE id = $1", &[&id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(id.to_string()))
}

/// The rows of one new deferral (row, receipts, first event) inside transaction `tx`.
fn insert_rows(tx: &mut Transaction, new: &NewDeferral) -> Result<Deferral, StoreError> {
    // ON CONFLICT settles two inserts of one id racing, where a check first would not.
    let inserted = tx
        .execute(
            "INSERT INTO deferrals (id, state, fence, reentries, max_reentries, reason, resume_after_ms, \
             resume_by_ms, launch, wakeup_digest, cancellation_digest, cause, receipt_seq, created_ms, updated_ms, \
             launch_kind) VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $12, $12, $13) \
             ON CONFLICT (id) DO NOTHING",
            &[
                &new.id,
                &new.state.as_str(),
                &i64::from(new.reentries),
                &i64::from(new.max_reentries),
                &new.window.reason,
                &to_i64(new.window.resume_after_ms),
                &to_i64(new.window.resume_by_ms),
                &new.launch,
                &new.wakeup_digest,
                &new.cancellation_digest,
                &new.cause,
                &to_i64(new.at_ms),
                &super::launch_kind(&new.launch),
            ],
        )
        .map_err(backend)?;
    if inserted == 0 {
        return Err(StoreError::Duplicate(new.id.clone()));
    }
    let seq = append_receipts(tx, &new.id, &new.receipts, new.at_ms)?;
    super::sql::github::register_new(&mut sql_conn::Pg(tx), new)?;
    super::sql::retry::register(&mut sql_conn::Pg(tx), new)?;
    super::sql::pools::register_new(&mut sql_conn::Pg(tx), new)?;
    tx.execute(
        "UPDATE deferrals SET receipt_seq = $1 WHERE id = $2",
        &[&to_i64(seq), &new.id],
    )
    .map_err(backend)?;
    append_event(
        tx,
        &new.id,
        new.at_ms,
        "record",
        Some(State::Ready),
        new.state,
        &new.cause,
        1,
        new.reentries,
        None,
    )?;
    select_with(tx, "WHERE id = $1", &[&new.id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(new.id.clone()))
}

impl Store for PostgresStore {
    fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        if new.receipts.is_empty() {
            return Err(StoreError::Backend(
                "a deferral needs at least one receipt".into(),
            ));
        }
        self.write(|tx| insert_rows(tx, new))
    }

    /// One transaction around every item; each item is a savepoint, rolled back alone if it
    /// fails. A savepoint that cannot be made or undone fails the whole batch: PostgreSQL
    /// would otherwise turn the final COMMIT into a silent ROLLBACK.
    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        if news.is_empty() {
            return Vec::new();
        }
        let all = |err: StoreError| -> Vec<Result<Deferral, StoreError>> {
            news.iter().map(|_| Err(err.clone())).collect()
        };
        let mut client = self.client.borrow_mut();
        let mut tx = match client
            .build_transaction()
            .isolation_level(IsolationLevel::ReadCommitted)
            .start()
        {
            Ok(tx) => tx,
            Err(err) => return all(backend(err)),
        };
        let mut results = Vec::with_capacity(news.len());
        for new in news {
            if new.receipts.is_empty() {
                results.push(Err(StoreError::Backend(
                    "a deferral needs at least one receipt".into(),
                )));
                continue;
            }
            let mut item = match tx.savepoint("batch_item") {
                Ok(item) => item,
                Err(err) => return all(backend(err)),
            };
            let result = insert_rows(&mut item, new);
            let ended = if result.is_ok() {
                item.commit()
            } else {
                item.rollback()
            };
            if let Err(err) = ended {
                return all(backend(err));
            }
            results.push(result);
        }
        match tx.commit() {
            Ok(()) => results,
            Err(err) => all(backend(err)),
        }
    }

    fn update(&self, id: &str, update: &Update) -> Result<Deferral, StoreError> {
        self.write(|tx| update_in(tx, id, update))
    }

    fn get(&self, id: &str) -> Result<Option<Deferral>, StoreError> {
        Ok(self.select("WHERE id = $1", &[&id])?.pop())
    }

    fn list(&self, query: &ListQuery) -> Result<Vec<Deferral>, StoreError> {
        // LIMIT NULL is no limit.
        let limit: Option<i64> = query.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        match query.state {
            Some(state) => self.select(
                "WHERE state = $1 ORDER BY created_ms, id LIMIT $2",
                &[&state.as_str(), &limit],
            ),
            None => self.select("ORDER BY created_ms, id LIMIT $1", &[&limit]),
        }
    }

    fn receipts(&self, id: &str) -> Result<Vec<StoredReceipt>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT seq, deferral_id, kind, receipt, sha256, created_ms FROM receipts \
                 WHERE deferral_id = $1 ORDER BY seq",
                &[&id],
            )
            .map_err(backend)?;
        rows.iter()
            .map(|row| super::verify_receipt(read_receipt(row)))
            .collect()
    }

    fn current_receipt(&self, id: &str) -> Result<StoredReceipt, StoreError> {
        current_receipt_in(&mut *self.client.borrow_mut(), id)
    }

    fn claim_next_due(
        &self,
        next: &NextDue,
        claim: &mut ClaimBuilder,
    ) -> Result<Option<Deferral>, StoreError> {
        let exclude: Vec<String> = next.exclude.to_vec();
        let skip_kinds: Vec<&str> = next.skip_kinds.to_vec();
        self.write(|tx| {
            // The row is locked from here to the commit; a row another ticker holds is skipped,
            // never waited for, so concurrent tickers each get the next free one.
            let Some(row) = select_with(
                tx,
                &format!(
                    "WHERE {} AND NOT (launch_kind = ANY($2)) AND NOT (id = ANY($3)) \
                     ORDER BY resume_after_ms LIMIT 1 FOR UPDATE SKIP LOCKED",
                    numbered(rules::DUE.sql)
                ),
                &[&to_i64(next.now_ms), &skip_kinds, &exclude],
            )?
            .pop() else {
                return Ok(None);
            };
            // Handed to the builder even when it fails its check, so the caller learns which
            // deferral it was.
            let update = claim(&row, current_receipt_in(tx, &row.id))?;
            update_in(tx, &row.id, &update).map(Some)
        })
    }

    fn events(&self, id: &str) -> Result<Vec<EventRecord>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT seq, deferral_id, at_ms, event, from_state, to_state, cause, fence, reentries, detail \
                 FROM events WHERE deferral_id = $1 ORDER BY seq",
                &[&id],
            )
            .map_err(backend)?;
        rows.iter()
            .map(|row| {
                let from_state = match row.get::<_, Option<&str>>(4) {
                    None => None,
                    Some(text) => Some(parse_state(text)?),
                };
                Ok(EventRecord {
                    seq: to_u64(row.get(0)),
                    deferral_id: row.get(1),
                    at_ms: to_u64(row.get(2)),
                    event: row.get(3),
                    from_state,
                    to_state: parse_state(row.get(5))?,
                    cause: row.get(6),
                    fence: to_u64(row.get(7)),
                    reentries: to_u32(row.get(8)),
                    detail: row.get(9),
                })
            })
            .collect()
    }

    fn due(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // A plain read, no row locks: this is a listing (a tick's plan and report), never the
        // claim. Locked, every due row would be skipped by other tickers' claims
        // (`claim_next_due`) for as long as this listing ran, and they would launch nothing.
        self.select(
            &format!(
                "WHERE {} ORDER BY resume_after_ms, id LIMIT $2",
                numbered(rules::DUE.sql)
            ),
            &[&now, &limit],
        )
    }

    fn next_wakeup(&self, now_ms: u64) -> Result<Option<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let next = self.select(
            "WHERE state = 'deferred' AND resume_after_ms > $1 ORDER BY resume_after_ms, id LIMIT 1",
            &[&now],
        )?;
        Ok(next.into_iter().next())
    }

    fn expirable(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.select_work(
            &format!(
                "WHERE {} ORDER BY resume_by_ms, id LIMIT $2",
                numbered(rules::EXPIRABLE.sql)
            ),
            &[&now, &limit],
        )
    }

    fn stale_leases(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.select_work(
            &format!(
                "WHERE {} ORDER BY lease_until_ms, id LIMIT $2",
                numbered(rules::STALE_LEASE.sql)
            ),
            &[&now, &limit],
        )
    }

    fn record_launch_process(&self, id: &str, process: &LaunchProcess) -> Result<(), StoreError> {
        self.write(|tx| {
            let current = select_with(tx, "WHERE id = $1 FOR UPDATE", &[&id])?
                .pop()
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            if current.state != State::Resumable || current.fence != process.fence {
                return Err(StoreError::Conflict {
                    id: id.to_string(),
                    expected_state: State::Resumable,
                    expected_fence: process.fence,
                });
            }
            tx.execute(
                "INSERT INTO launch_processes (deferral_id, fence, pgid, machine, boot_id, leader_start, recorded_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (deferral_id) DO UPDATE SET fence = excluded.fence, \
                 pgid = excluded.pgid, machine = excluded.machine, boot_id = excluded.boot_id, \
                 leader_start = excluded.leader_start, recorded_ms = excluded.recorded_ms",
                &[
                    &id,
                    &to_i64(process.fence),
                    &process.pgid,
                    &process.machine,
                    &process.boot_id,
                    &to_i64(process.leader_start),
                    &to_i64(process.recorded_ms),
                ],
            )
            .map_err(backend)?;
            Ok(())
        })
    }

    fn launch_process(&self, id: &str) -> Result<Option<LaunchProcess>, StoreError> {
        let row = self
            .client
            .borrow_mut()
            .query_opt(
                "SELECT fence, pgid, machine, boot_id, leader_start, recorded_ms FROM launch_processes WHERE deferral_id = $1",
                &[&id],
            )
            .map_err(backend)?;
        Ok(row.map(|row| LaunchProcess {
            fence: to_u64(row.get(0)),
            pgid: row.get(1),
            machine: row.get(2),
            boot_id: row.get(3),
            leader_start: to_u64(row.get(4)),
            recorded_ms: to_u64(row.get(5)),
        }))
    }

    fn first_in_state(
        &self,
        state: State,
        order: PageOrder,
        limit: usize,
    ) -> Result<Vec<Deferral>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let tail = format!("WHERE state = $1 {} LIMIT $2", order.sql());
        self.select(&tail, &[&state.as_str(), &limit])
    }

    fn count_by_state(&self) -> Result<Vec<(State, u64)>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query("SELECT state, COUNT(*) FROM deferrals GROUP BY state", &[])
            .map_err(backend)?;
        rows.iter()
            .map(|row| Ok((parse_state(row.get(0))?, to_u64(row.get(1)))))
            .collect()
    }

    fn count_by_state_cause(&self) -> Result<Vec<(State, String, u64)>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT state, cause, COUNT(*) FROM deferrals GROUP BY state, cause",
                &[],
            )
            .map_err(backend)?;
        rows.iter()
            .map(|row| Ok((parse_state(row.get(0))?, row.get(1), to_u64(row.get(2)))))
            .collect()
    }

    /// PostgreSQL checks its own pages; this checks what only this program knows: the schema
    /// version, and that every deferral's current receipt exists and belongs to it.
    fn check_integrity(&self) -> Result<(), StoreError> {
        let mut client = self.client.borrow_mut();
        let version: i64 = client
            .query_one("SELECT version FROM deferral_schema_version", &[])
            .map_err(backend)?
            .get(0);
        if version != SCHEMA_VERSION {
            return Err(StoreError::Corrupt(format!(
                "schema version {version}, expected {SCHEMA_VERSION}"
            )));
        }
        let orphans: i64 = client
            .query_one(
                "SELECT COUNT(*) FROM deferrals d WHERE NOT EXISTS \
                 (SELECT 1 FROM receipts r WHERE r.seq = d.receipt_seq AND r.deferral_id = d.id)",
                &[],
            )
            .map_err(backend)?
            .get(0);
        if orphans > 0 {
            return Err(StoreError::Corrupt(format!(
                "{orphans} deferrals without their current receipt"
            )));
        }
        Ok(())
    }
}
