//! The SQLite store: one file, WAL, `synchronous=FULL`, `BEGIN IMMEDIATE` for every write.
//!
//! Schema changes are numbered migrations tracked in `PRAGMA user_version`. Receipts and
//! events are append-only: triggers refuse any UPDATE or DELETE on them, so not even a bug in
//! this program can edit evidence. `PRAGMA integrity_check` runs on open (or `quick_check`).
//! The counts per state are kept by triggers in `deferral_counts` (see `counts`).

mod counts;
mod github;
mod journal;
mod pools;
mod retry;
mod sql_conn;

use super::rules;
use super::{
    AttemptStatus, ClaimBuilder, Deferral, EventRecord, LaunchProcess, ListQuery, NewDeferral,
    NewReceipt, NextDue, PageOrder, Store, StoreError, StoredReceipt, Update,
};
use deferral_core::digest::sha256_hex;
use deferral_core::lifecycle::State;
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Migrations, in order; migration `i` moves the store from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE deferrals (
    id                  TEXT PRIMARY KEY,
    state               TEXT NOT NULL CHECK (state IN ('ready','deferred','resumable','complete','blocked','cancelled')),
    fence               INTEGER NOT NULL,
    reentries           INTEGER NOT NULL,
    max_reentries       INTEGER NOT NULL,
    reason              TEXT NOT NULL,
    resume_after_ms     INTEGER NOT NULL,
    resume_by_ms        INTEGER NOT NULL,
    launch              TEXT NOT NULL,
    wakeup_digest       TEXT,
    cancellation_digest TEXT NOT NULL,
    lease_owner         TEXT,
    lease_until_ms      INTEGER,
    attempt_status      TEXT,
    cause               TEXT NOT NULL,
    detail              TEXT,
    receipt_seq         INTEGER NOT NULL,
    created_ms          INTEGER NOT NULL,
    updated_ms          INTEGER NOT NULL
);
-- Finding due work: state = 'deferred' AND resume_after_ms <= now, a range scan at any size.
CREATE INDEX deferrals_due ON deferrals (state, resume_after_ms);
-- Finding expirable work: state IN (...) AND resume_by_ms < now.
CREATE INDEX deferrals_expiry ON deferrals (state, resume_by_ms);
-- Finding leases left by a crashed ticker: state = 'resumable' AND lease_until_ms < now.
CREATE INDEX deferrals_lease ON deferrals (state, lease_until_ms);
CREATE INDEX deferrals_created ON deferrals (created_ms, id);

CREATE TABLE receipts (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    kind        TEXT NOT NULL,
    receipt     TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    created_ms  INTEGER NOT NULL
);
CREATE INDEX receipts_deferral ON receipts (deferral_id, seq);
CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts BEGIN SELECT RAISE(ABORT, 'receipts are append-only'); END;
CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts BEGIN SELECT RAISE(ABORT, 'receipts are append-only'); END;

CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    at_ms       INTEGER NOT NULL,
    event       TEXT NOT NULL,
    from_state  TEXT,
    to_state    TEXT NOT NULL,
    cause       TEXT NOT NULL,
    fence       INTEGER NOT NULL,
    reentries   INTEGER NOT NULL,
    detail      TEXT
);
CREATE INDEX events_deferral ON events (deferral_id, seq);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"#,
    r#"
-- 2: the process group of each deferral's current exec: launch (see LaunchProcess).
CREATE TABLE launch_processes (
    deferral_id  TEXT PRIMARY KEY REFERENCES deferrals (id),
    fence        INTEGER NOT NULL,
    pgid         INTEGER NOT NULL,
    machine      TEXT NOT NULL,
    boot_id      TEXT NOT NULL,
    leader_start INTEGER NOT NULL,
    recorded_ms  INTEGER NOT NULL
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
    // 8: the counts per state and cause, kept by triggers (see `counts`).
    counts::MIGRATION,
    r#"
-- 9: each target's kind (`super::launch_kind`: the text before its first colon), so that a
-- query picks targets by kind, never by their text; rows stored before are filled by that rule.
ALTER TABLE deferrals ADD COLUMN launch_kind TEXT NOT NULL DEFAULT '';
UPDATE deferrals SET launch_kind = CASE WHEN instr(launch, ':') > 0
    THEN substr(launch, 1, instr(launch, ':') - 1) ELSE '' END;
"#,
];

/// How long a process waits for another one holding the store's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// `PRAGMA application_id` of a deferral-host store: "DFRH" in ASCII. A file with another id
/// belongs to another application and is refused, never migrated.
pub const APPLICATION_ID: i64 = 0x4446_5248;

/// The schema version this program writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How thoroughly to check the file on open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegrityCheck {
    /// `PRAGMA integrity_check`: reads every page and index (time grows with the store).
    Full,
    /// `PRAGMA quick_check`: the same without cross-checking indexes against tables.
    Quick,
    Off,
}

const COLUMNS: &str = "id, state, fence, reentries, max_reentries, reason, resume_after_ms, resume_by_ms, launch, \
     wakeup_digest, cancellation_digest, lease_owner, lease_until_ms, attempt_status, cause, detail, receipt_seq, \
     created_ms, updated_ms";

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// Inside [`Store::insert_batch`]: each write is a savepoint of the batch's transaction.
    batch: Cell<Batch>,
}

/// Where a group commit stands: off, open, or open with a savepoint that could not be undone
/// (the whole batch must then be rolled back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Batch {
    Off,
    Open,
    Broken,
}

fn backend(err: rusqlite::Error) -> StoreError {
    StoreError::Backend(err.to_string())
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`, migrates it and checks its integrity.
    pub fn open(path: &Path, check: IntegrityCheck) -> Result<SqliteStore, StoreError> {
        super::private_file::create(path)?;
        let conn = Connection::open(path).map_err(backend)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(backend)?;
        // Before anything writes to it (switching to WAL rewrites the header): never touch a
        // file that belongs to another application.
        check_ownership(&conn, path)?;
        journal::use_wal(&conn, BUSY_TIMEOUT)?;
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            .map_err(backend)?;
        let store = SqliteStore {
            conn,
            path: path.to_path_buf(),
            batch: Cell::new(Batch::Off),
        };
        match check {
            IntegrityCheck::Full => store.run_check("integrity_check")?,
            IntegrityCheck::Quick => store.run_check("quick_check")?,
            IntegrityCheck::Off => {}
        }
        store.migrate()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying connection, for benchmarks and tests that bulk-load rows.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    fn run_check(&self, pragma: &str) -> Result<(), StoreError> {
        // A page too damaged for the check to read is a failed check too, not an I/O error.
        let failed = |err: rusqlite::Error| match err.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                StoreError::Corrupt(err.to_string())
            }
            _ => backend(err),
        };
        let mut stmt = self
            .conn
            .prepare(&format!("PRAGMA {pragma}"))
            .map_err(failed)?;
        let lines: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .map_err(failed)?
            .collect::<Result<_, _>>()
            .map_err(failed)?;
        if lines.len() == 1 && lines[0] == "ok" {
            Ok(())
        } else {
            Err(StoreError::Corrupt(lines.join("; ")))
        }
    }

    fn migrate(&self) -> Result<(), StoreError> {
        self.write(|conn| {
            let version: i64 = conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(backend)?;
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
                conn.execute_batch(sql).map_err(backend)?;
                if *sql == github::MIGRATION {
                    super::sql::github::backfill(&mut sql_conn::Lite(conn))?;
                }
                conn.execute_batch(&format!("PRAGMA user_version = {}", index + 1))
                    .map_err(backend)?;
            }
            // New stores, and stores of the first version, which had no application id.
            conn.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))
                .map_err(backend)?;
            Ok(())
        })
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: committed on `Ok`, rolled back on `Err`.
    fn write<T>(
        &self,
        body: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.batch.get() != Batch::Off {
            return self.savepoint(body);
        }
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(backend)?;
        match body(&self.conn) {
            Ok(value) => match self.conn.execute_batch("COMMIT") {
                Ok(()) => Ok(value),
                Err(err) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    Err(backend(err))
                }
            },
            Err(err) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(err)
            }
        }
    }

    /// One item of a group commit: its writes are undone alone if it fails.
    fn savepoint<T>(
        &self,
        body: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.batch.get() == Batch::Broken {
            return Err(StoreError::Backend(
                "an earlier item of this batch could not be undone".into(),
            ));
        }
        self.conn
            .execute_batch("SAVEPOINT batch_item")
            .map_err(backend)?;
        let result = body(&self.conn);
        let end = if result.is_ok() {
            "RELEASE batch_item"
        } else {
            "ROLLBACK TO batch_item; RELEASE batch_item"
        };
        if let Err(err) = self.conn.execute_batch(end) {
            self.batch.set(Batch::Broken);
            return Err(backend(err));
        }
        result
    }

    fn select(
        &self,
        where_sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<Deferral>, StoreError> {
        select_with(&self.conn, where_sql, params)
    }
}

/// Refuses (`foreign-store`) a database this program did not create: another application id,
/// or no id but tables other than a first-version store's.
fn check_ownership(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    // The id and the tables come from one snapshot: another process's first migration commits
    // both at once, and reading them apart could see its tables without its id (dropped, so
    // rolled back: it only reads).
    let snapshot = conn.unchecked_transaction().map_err(backend)?;
    let id: i64 = snapshot
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(backend)?;
    if id == APPLICATION_ID {
        return Ok(());
    }
    let foreign = |why: String| {
        Err(StoreError::Foreign(format!(
            "{} {why}; deferral-host leaves it as it is (give another --store path)",
            path.display()
        )))
    };
    if id != 0 {
        return foreign(format!(
            "belongs to another application (application_id {id:#x})"
        ));
    }
    // No id: a new empty file, or a store written before the id was set (version 1).
    let tables: Vec<String> = snapshot
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .and_then(|mut stmt| stmt.query_map([], |r| r.get(0))?.collect())
        .map_err(backend)?;
    let ours = ["deferrals", "receipts", "events", "launch_processes"];
    if let Some(other) = tables.iter().find(|t| !ours.contains(&t.as_str())) {
        return foreign(format!(
            "is another application's database (it has a table {other:?})"
        ));
    }
    if !tables.is_empty()
        && !["deferrals", "receipts", "events"]
            .iter()
            .all(|t| tables.iter().any(|x| x == t))
    {
        return foreign("has only some of the store's tables".into());
    }
    Ok(())
}

fn select_with(
    conn: &Connection,
    where_sql: &str,
    params: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Deferral>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM deferrals {where_sql}");
    let mut stmt = conn.prepare_cached(&sql).map_err(backend)?;
    let rows = stmt.query_map(params, read_deferral).map_err(backend)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(backend)
}

fn get_u64(row: &Row, index: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(index)?;
    Ok(u64::try_from(value).unwrap_or(0))
}

fn get_opt_u64(row: &Row, index: usize) -> rusqlite::Result<Option<u64>> {
    let value: Option<i64> = row.get(index)?;
    Ok(value.map(|v| u64::try_from(v).unwrap_or(0)))
}

fn bad_text(index: usize, text: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        index,
        rusqlite::types::Type::Text,
        format!("unexpected value {text:?}").into(),
    )
}

fn get_state(row: &Row, index: usize) -> rusqlite::Result<State> {
    let text: String = row.get(index)?;
    State::parse(&text).ok_or_else(|| bad_text(index, &text))
}

fn read_deferral(row: &Row) -> rusqlite::Result<Deferral> {
    let attempt: Option<String> = row.get(13)?;
    let attempt_status = match attempt {
        None => None,
        Some(text) => Some(AttemptStatus::parse(&text).ok_or_else(|| bad_text(13, &text))?),
    };
    Ok(Deferral {
        id: row.get(0)?,
        state: get_state(row, 1)?,
        fence: get_u64(row, 2)?,
        reentries: row.get(3)?,
        max_reentries: row.get(4)?,
        reason: row.get(5)?,
        resume_after_ms: get_u64(row, 6)?,
        resume_by_ms: get_u64(row, 7)?,
        launch: row.get(8)?,
        wakeup_digest: row.get(9)?,
        cancellation_digest: row.get(10)?,
        lease_owner: row.get(11)?,
        lease_until_ms: get_opt_u64(row, 12)?,
        attempt_status,
        cause: row.get(14)?,
        detail: row.get(15)?,
        receipt_seq: get_u64(row, 16)?,
        created_ms: get_u64(row, 17)?,
        updated_ms: get_u64(row, 18)?,
    })
}

fn append_receipts(
    conn: &Connection,
    id: &str,
    receipts: &[NewReceipt],
    at_ms: u64,
) -> Result<u64, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "INSERT INTO receipts (deferral_id, kind, receipt, sha256, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .map_err(backend)?;
    let mut last = 0;
    for receipt in receipts {
        stmt.execute(params![
            id,
            receipt.kind,
            receipt.text,
            sha256_hex(receipt.text.as_bytes()),
            to_i64(at_ms)
        ])
        .map_err(backend)?;
        last = u64::try_from(conn.last_insert_rowid()).unwrap_or(0);
    }
    Ok(last)
}

#[allow(clippy::too_many_arguments)]
fn append_event(
    conn: &Connection,
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
    conn.prepare_cached(
        "INSERT INTO events (deferral_id, at_ms, event, from_state, to_state, cause, fence, reentries, detail) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )
    .map_err(backend)?
    .execute(params![
        id,
        to_i64(at_ms),
        event,
        from.map(State::as_str),
        to.as_str(),
        cause,
        to_i64(fence),
        reentries,
        detail
    ])
    .map_err(backend)?;
    Ok(())
}

/// The compare-and-set's `UPDATE` in this backend's placeholders, written once per process
/// rather than on every update.
static COMPARE_AND_SET: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| super::compare_and_set_sql('?'));

/// The compare-and-set of [`Store::update`], inside a transaction the caller holds.
fn update_in(conn: &Connection, id: &str, update: &Update) -> Result<Deferral, StoreError> {
    let current = select_with(conn, "WHERE id = ?1", &[&id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
    let next = update.next_row(id, &current)?;
    let receipt_seq = if update.receipts.is_empty() {
        current.receipt_seq
    } else {
        super::sql::github::register_receipts(&mut sql_conn::Lite(conn), id, &update.receipts)?;
        append_receipts(conn, id, &update.receipts, update.at_ms)?
    };
    // The compare-and-set itself: the WHERE repeats the check, so the write is safe even
    // if a backend ran this without the surrounding lock.
    let changed = conn
        .prepare_cached(COMPARE_AND_SET.as_str())
        .map_err(backend)?
        .execute(params![
            update.state.as_str(),
            to_i64(next.fence),
            update.reentries,
            next.reason,
            to_i64(next.resume_after_ms),
            to_i64(next.resume_by_ms),
            next.wakeup_digest,
            next.lease.as_ref().map(|l| l.owner.clone()),
            next.lease.as_ref().map(|l| to_i64(l.until_ms)),
            next.attempt_status.map(AttemptStatus::as_str),
            update.cause,
            update.detail,
            to_i64(receipt_seq),
            to_i64(update.at_ms),
            id,
            update.expect_state.as_str(),
            to_i64(update.expect_fence),
        ])
        .map_err(backend)?;
    if changed != 1 {
        return Err(StoreError::Conflict {
            id: id.to_string(),
            expected_state: update.expect_state,
            expected_fence: update.expect_fence,
        });
    }
    append_event(
        conn,
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
    select_with(conn, "WHERE id = ?1", &[&id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(id.to_string()))
}

impl Store for SqliteStore {
    fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError> {
        if new.receipts.is_empty() {
            return Err(StoreError::Backend(
                "a deferral needs at least one receipt".into(),
            ));
        }
        self.write(|conn| {
            let exists: Option<i64> = conn
                .query_row("SELECT 1 FROM deferrals WHERE id = ?1", [&new.id], |r| r.get(0))
                .optional()
                .map_err(backend)?;
            if exists.is_some() {
                return Err(StoreError::Duplicate(new.id.clone()));
            }
            // The row first (receipts reference it), with a placeholder receipt_seq fixed below.
            conn.prepare_cached(
                "INSERT INTO deferrals (id, state, fence, reentries, max_reentries, reason, resume_after_ms, \
                 resume_by_ms, launch, wakeup_digest, cancellation_digest, cause, receipt_seq, created_ms, updated_ms, \
                 launch_kind) VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12, ?12, ?13)",
            )
            .map_err(backend)?
            .execute(params![
                new.id,
                new.state.as_str(),
                new.reentries,
                new.max_reentries,
                new.window.reason,
                to_i64(new.window.resume_after_ms),
                to_i64(new.window.resume_by_ms),
                new.launch,
                new.wakeup_digest,
                new.cancellation_digest,
                new.cause,
                to_i64(new.at_ms),
                super::launch_kind(&new.launch),
            ])
            .map_err(backend)?;
            let seq = append_receipts(conn, &new.id, &new.receipts, new.at_ms)?;
            super::sql::github::register_new(&mut sql_conn::Lite(conn), new)?;
            super::sql::retry::register(&mut sql_conn::Lite(conn), new)?;
            super::sql::pools::register_new(&mut sql_conn::Lite(conn), new)?;
            conn.execute("UPDATE deferrals SET receipt_seq = ?1 WHERE id = ?2", params![to_i64(seq), new.id])
                .map_err(backend)?;
            append_event(
                conn,
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
            let mut rows = select_with(conn, "WHERE id = ?1", &[&new.id])?;
            rows.pop().ok_or_else(|| StoreError::NotFound(new.id.clone()))
        })
    }

    /// One `BEGIN IMMEDIATE` ... `COMMIT` around every item; each item is a savepoint.
    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        if news.is_empty() {
            return Vec::new();
        }
        let all = |err: StoreError| -> Vec<Result<Deferral, StoreError>> {
            news.iter().map(|_| Err(err.clone())).collect()
        };
        if let Err(err) = self.conn.execute_batch("BEGIN IMMEDIATE") {
            return all(backend(err));
        }
        self.batch.set(Batch::Open);
        let results: Vec<_> = news.iter().map(|new| self.insert(new)).collect();
        let broken = self.batch.replace(Batch::Off) == Batch::Broken;
        let committed = if broken {
            Err(StoreError::Backend(
                "a failed item could not be undone; the batch was rolled back".into(),
            ))
        } else {
            self.conn.execute_batch("COMMIT").map_err(backend)
        };
        match committed {
            Ok(()) => results,
            Err(err) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                all(err)
            }
        }
    }

    fn update(&self, id: &str, update: &Update) -> Result<Deferral, StoreError> {
        self.write(|conn| update_in(conn, id, update))
    }

    fn get(&self, id: &str) -> Result<Option<Deferral>, StoreError> {
        Ok(self.select("WHERE id = ?1", &[&id])?.pop())
    }

    fn list(&self, query: &ListQuery) -> Result<Vec<Deferral>, StoreError> {
        let limit = query
            .limit
            .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        match query.state {
            Some(state) => self.select(
                "WHERE state = ?1 ORDER BY created_ms, id LIMIT ?2",
                &[&state.as_str(), &limit],
            ),
            None => self.select("ORDER BY created_ms, id LIMIT ?1", &[&limit]),
        }
    }

    fn receipts(&self, id: &str) -> Result<Vec<StoredReceipt>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, deferral_id, kind, receipt, sha256, created_ms FROM receipts WHERE deferral_id = ?1 ORDER BY seq",
            )
            .map_err(backend)?;
        let rows = stmt.query_map([id], read_receipt).map_err(backend)?;
        rows.map(|row| super::verify_receipt(row.map_err(backend)?))
            .collect()
    }

    fn current_receipt(&self, id: &str) -> Result<StoredReceipt, StoreError> {
        current_receipt_in(&self.conn, id)
    }

    fn claim_next_due(
        &self,
        next: &NextDue,
        claim: &mut ClaimBuilder,
    ) -> Result<Option<Deferral>, StoreError> {
        let exclude = json_list(next.exclude);
        let skip_kinds = json_list(next.skip_kinds);
        self.write(|conn| {
            let Some(row) = select_with(
                conn,
                &format!(
                    "WHERE {} AND launch_kind NOT IN (SELECT value FROM json_each(?2)) \
                     AND id NOT IN (SELECT value FROM json_each(?3)) ORDER BY resume_after_ms LIMIT 1",
                    rules::DUE.sql
                ),
                &[&to_i64(next.now_ms), &skip_kinds, &exclude],
            )?
            .pop() else {
                return Ok(None);
            };
            // Handed to the builder even when it fails its check, so the caller learns which
            // deferral it was.
            let update = claim(&row, current_receipt_in(conn, &row.id))?;
            update_in(conn, &row.id, &update).map(Some)
        })
    }

    fn events(&self, id: &str) -> Result<Vec<EventRecord>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, deferral_id, at_ms, event, from_state, to_state, cause, fence, reentries, detail \
                 FROM events WHERE deferral_id = ?1 ORDER BY seq",
            )
            .map_err(backend)?;
        let rows = stmt
            .query_map([id], |row| {
                let from: Option<String> = row.get(4)?;
                let from_state = match from {
                    None => None,
                    Some(text) => Some(State::parse(&text).ok_or_else(|| bad_text(4, &text))?),
                };
                Ok(EventRecord {
                    seq: get_u64(row, 0)?,
                    deferral_id: row.get(1)?,
                    at_ms: get_u64(row, 2)?,
                    event: row.get(3)?,
                    from_state,
                    to_state: get_state(row, 5)?,
                    cause: row.get(6)?,
                    fence: get_u64(row, 7)?,
                    reentries: row.get(8)?,
                    detail: row.get(9)?,
                })
            })
            .map_err(backend)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(backend)
    }

    fn due(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.select(
            &format!("WHERE {} ORDER BY resume_after_ms LIMIT ?2", rules::DUE.sql),
            &[&now, &limit],
        )
    }

    fn next_wakeup(&self, now_ms: u64) -> Result<Option<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let next = self.select(
            "WHERE state = 'deferred' AND resume_after_ms > ?1 ORDER BY resume_after_ms LIMIT 1",
            &[&now],
        )?;
        Ok(next.into_iter().next())
    }

    fn expirable(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.select(
            &format!(
                "WHERE {} ORDER BY resume_by_ms LIMIT ?2",
                rules::EXPIRABLE.sql
            ),
            &[&now, &limit],
        )
    }

    fn stale_leases(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError> {
        let now = to_i64(now_ms);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.select(
            &format!(
                "WHERE {} ORDER BY lease_until_ms LIMIT ?2",
                rules::STALE_LEASE.sql
            ),
            &[&now, &limit],
        )
    }

    fn record_launch_process(&self, id: &str, process: &LaunchProcess) -> Result<(), StoreError> {
        self.write(|conn| {
            let current = select_with(conn, "WHERE id = ?1", &[&id])?
                .pop()
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            if current.state != State::Resumable || current.fence != process.fence {
                return Err(StoreError::Conflict {
                    id: id.to_string(),
                    expected_state: State::Resumable,
                    expected_fence: process.fence,
                });
            }
            conn.prepare_cached(
                "INSERT INTO launch_processes (deferral_id, fence, pgid, machine, boot_id, leader_start, recorded_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (deferral_id) DO UPDATE SET fence = excluded.fence, \
                 pgid = excluded.pgid, machine = excluded.machine, boot_id = excluded.boot_id, \
                 leader_start = excluded.leader_start, recorded_ms = excluded.recorded_ms",
            )
            .map_err(backend)?
            .execute(params![
                id,
                to_i64(process.fence),
                process.pgid,
                process.machine,
                process.boot_id,
                to_i64(process.leader_start),
                to_i64(process.recorded_ms)
            ])
            .map_err(backend)?;
            Ok(())
        })
    }

    fn launch_process(&self, id: &str) -> Result<Option<LaunchProcess>, StoreError> {
        self.conn
            .query_row(
                "SELECT fence, pgid, machine, boot_id, leader_start, recorded_ms FROM launch_processes WHERE deferral_id = ?1",
                [id],
                |row| {
                    Ok(LaunchProcess {
                        fence: get_u64(row, 0)?,
                        pgid: row.get(1)?,
                        machine: row.get(2)?,
                        boot_id: row.get(3)?,
                        leader_start: get_u64(row, 4)?,
                        recorded_ms: get_u64(row, 5)?,
                    })
                },
            )
            .optional()
            .map_err(backend)
    }

    fn first_in_state(
        &self,
        state: State,
        order: PageOrder,
        limit: usize,
    ) -> Result<Vec<Deferral>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let tail = format!("WHERE state = ?1 {} LIMIT ?2", order.sql());
        self.select(&tail, &[&state.as_str(), &limit])
    }

    /// From `deferral_counts`, kept by triggers: no read of the deferrals themselves.
    fn count_by_state(&self) -> Result<Vec<(State, u64)>, StoreError> {
        counts::by_state(&self.conn)
    }

    fn count_by_state_cause(&self) -> Result<Vec<(State, String, u64)>, StoreError> {
        counts::by_state_cause(&self.conn)
    }

    fn check_integrity(&self) -> Result<(), StoreError> {
        self.run_check("integrity_check")
    }
}

/// A list as a JSON array, for `json_each` (SQLite has no array parameter).
pub(super) fn json_list<T: AsRef<str>>(items: &[T]) -> String {
    serde_json::Value::from(items.iter().map(AsRef::as_ref).collect::<Vec<&str>>()).to_string()
}

fn current_receipt_in(conn: &Connection, id: &str) -> Result<StoredReceipt, StoreError> {
    conn.query_row(
        "SELECT r.seq, r.deferral_id, r.kind, r.receipt, r.sha256, r.created_ms FROM receipts r \
         JOIN deferrals d ON d.id = r.deferral_id AND d.receipt_seq = r.seq WHERE d.id = ?1",
        [id],
        read_receipt,
    )
    .optional()
    .map_err(backend)?
    .ok_or_else(|| StoreError::NotFound(id.to_string()))
    .and_then(super::verify_receipt)
}

fn read_receipt(row: &Row) -> rusqlite::Result<StoredReceipt> {
    Ok(StoredReceipt {
        seq: get_u64(row, 0)?,
        deferral_id: row.get(1)?,
        kind: row.get(2)?,
        text: row.get(3)?,
        sha256: row.get(4)?,
        created_ms: get_u64(row, 5)?,
    })
}
