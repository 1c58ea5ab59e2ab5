//! The SQLite store: one file, WAL, `synchronous=FULL`, `BEGIN IMMEDIATE` for every write.
//!
//! The statements, the row mapping and the migrations are shared with PostgreSQL (see
//! `store::sql`); this file opens the file, checks it, and runs transactions. Schema changes
//! are numbered migrations tracked in `PRAGMA user_version`. Receipts and events are
//! append-only: triggers refuse any UPDATE or DELETE on them, so not even a bug in this
//! program can edit evidence. `PRAGMA integrity_check` runs on open (or `quick_check`). The
//! counts per state are kept by triggers in `deferral_counts` (see `counts`).

mod counts;
mod header;
pub(crate) mod identity;
mod journal;
mod ownership;
mod sql_conn;

use super::sql::schema::{self, Migration};
use super::sql::SqlConn;
use super::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Migrations, in order; migration `i` moves the store from version `i` to `i + 1`.
const MIGRATIONS: [Migration; 16] = [
    schema::CORE,
    schema::LAUNCH_PROCESSES,
    schema::GITHUB,
    schema::RUN_URLS,
    schema::CHANGED_INDEX,
    schema::RETRIES,
    schema::POOLS,
    // 8: the counts per state and cause, kept by triggers (SQLite only; see `counts`).
    counts::MIGRATION,
    schema::LAUNCH_KIND,
    schema::POOL_WINDOWS,
    schema::WEBHOOK_DELIVERIES,
    schema::FAIR_POOLS,
    // 13: costs as rows keyed by resource name (see `sql::cost_rows`).
    schema::COST_ROWS,
    // 14: the commit of a deferral, for its commit status (issue 35).
    schema::DEFERRAL_COMMITS,
    // 15: ended deferrals' receipts, events and pool observations may go with them (`prune`).
    schema::RETENTION,
    // 16: a deferral's face as a check run, and the check runs made (`ops::check_run`).
    schema::CHECK_RUNS,
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

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// The file opened: every read and write first checks that `path` still names it.
    file: identity::FileId,
    /// Inside [`Store::insert_batch`]: each write is a savepoint of the batch's transaction.
    ///
    /// [`Store::insert_batch`]: super::Store::insert_batch
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

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`, migrates it and checks its integrity.
    pub fn open(path: &Path, check: IntegrityCheck) -> Result<SqliteStore, StoreError> {
        super::private_file::prepare(path)?;
        // The file exists now (made above or checked): never create one here, nor follow a link.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(path, flags).map_err(backend)?;
        let file = identity::FileId::of(path)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(backend)?;
        // The first read of the file: one that is not a database is named for what it is.
        if let Err(err) = conn.query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0)) {
            return Err(match err.sqlite_error_code() {
                Some(rusqlite::ErrorCode::NotADatabase) => header::not_a_database(path),
                _ => backend(err),
            });
        }
        // Before anything writes to it (switching to WAL rewrites the header): never touch a
        // file that belongs to another application.
        ownership::check_ownership(&conn, path)?;
        journal::use_wal(&conn, BUSY_TIMEOUT)?;
        // `temp_store=MEMORY` keeps the savepoint journal of a group commit (each item is a
        // savepoint) in memory: on a file it spilled past 64 KiB and wrote every touched page
        // to a temporary file, a quarter of `serve`'s writer time (BENCHMARKS.md).
        conn.execute_batch(
            "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;",
        )
        .map_err(backend)?;
        let store = SqliteStore {
            conn,
            path: path.to_path_buf(),
            file,
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

    /// Whether `--store`'s path still names the file this connection opened (see
    /// [`identity`]): `store-replaced` when it was removed or another file put there.
    pub fn check_file(&self) -> Result<(), StoreError> {
        self.file.check(&self.path)
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
            let record = |conn: &mut dyn SqlConn, version: i64| {
                conn.execute_batch(&format!("PRAGMA user_version = {version}"))
            };
            schema::migrate(&mut sql_conn::Lite(conn), &MIGRATIONS, version, &record)?;
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
        // Checked under the write lock, just before the commit: nothing is committed into a
        // file that no path names any more.
        match body(&self.conn).and_then(|value| self.check_file().map(|()| value)) {
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

    /// One `BEGIN IMMEDIATE` ... `COMMIT` around every item; each item is a savepoint.
    fn group_insert(
        &self,
        news: &[super::NewDeferral],
    ) -> Vec<Result<super::Deferral, StoreError>> {
        if news.is_empty() {
            return Vec::new();
        }
        let all = |err: StoreError| -> Vec<Result<super::Deferral, StoreError>> {
            news.iter().map(|_| Err(err.clone())).collect()
        };
        if let Err(err) = self.conn.execute_batch("BEGIN IMMEDIATE") {
            return all(backend(err));
        }
        self.batch.set(Batch::Open);
        let results: Vec<_> = news
            .iter()
            .map(|new| {
                self.write(|conn| super::sql::deferrals::insert(&mut sql_conn::Lite(conn), new))
            })
            .collect();
        let broken = self.batch.replace(Batch::Off) == Batch::Broken;
        let committed = if broken {
            Err(StoreError::Backend(
                "a failed item could not be undone; the batch was rolled back".into(),
            ))
        } else {
            self.check_file()
                .and_then(|()| self.conn.execute_batch("COMMIT").map_err(backend))
        };
        match committed {
            Ok(()) => results,
            Err(err) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                all(err)
            }
        }
    }
}
