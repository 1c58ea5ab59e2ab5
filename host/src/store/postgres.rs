//! The PostgreSQL store, for several replicas and tickers on several machines sharing one
//! database. The statements, the row mapping and the migrations are shared with SQLite (see
//! `store::sql`); this file connects, migrates under an advisory lock and runs transactions.
//! Every change is the same compare-and-set on `(state, fence)` in one transaction with its
//! receipts and event.
//!
//! Transactions run at READ COMMITTED, set explicitly so a server whose
//! `default_transaction_isolation` is stricter behaves the same. That is enough because every
//! write locks the one row it changes before reading it (`SELECT ... FOR UPDATE`, the dialect's
//! `for_update`): a second writer waits for the first to commit and then reads the committed
//! row, so the read-check-write of [`Store::update`] is serialised per row the way
//! `BEGIN IMMEDIATE` serialises it in SQLite, without serialization failures to retry. The
//! `UPDATE ... WHERE id AND state AND fence` repeats the check (PostgreSQL re-evaluates it on
//! the newest row version), so 0 rows is a conflict even if the lock were ever dropped.
//!
//! [`Store::claim_next_due`] picks the next due row `FOR UPDATE SKIP LOCKED` and updates it in
//! the same transaction, so tickers never wait on each other nor lose a claim. The work queries
//! `expirable` and `stale_leases` read with `FOR UPDATE SKIP LOCKED` in a transaction: a ticker
//! never waits for, nor lists, a row another ticker or replica is changing at that moment; the
//! compare-and-set decides which change wins when two see the same row. `due` is a plain read
//! that locks nothing: it only lists (the claim picks its own row), and a lock held while listing
//! would hide every due row from the other tickers' claims.
//!
//! Schema changes are numbered migrations tracked in the one-row table
//! `deferral_schema_version`, applied on open in one transaction under an advisory lock, so
//! several replicas opening a new database at once do not race. The connection uses TLS as the
//! URL's `sslmode` asks (see [`super::postgres_tls`]; `verify-full` for a real deployment).
//!
//! [`Store::update`]: super::Store::update
//! [`Store::claim_next_due`]: super::Store::claim_next_due

mod ownership;
mod sql_conn;

use super::sql::schema::{self, Migration};
use super::sql::SqlConn;
use super::sqlite::IntegrityCheck;
use super::{Deferral, NewDeferral, StoreError};
use postgres::{Client, IsolationLevel, Transaction};
use std::cell::RefCell;

pub use ownership::STORE_MARKER;

/// Migrations, in order; migration `i` moves the store from version `i` to `i + 1`.
const MIGRATIONS: [Migration; 15] = [
    schema::CORE,
    schema::LAUNCH_PROCESSES,
    schema::GITHUB,
    schema::RUN_URLS,
    schema::CHANGED_INDEX,
    schema::RETRIES,
    schema::POOLS,
    schema::LAUNCH_KIND,
    schema::POOL_WINDOWS,
    schema::WEBHOOK_DELIVERIES,
    schema::FAIR_POOLS,
    schema::COST_ROWS,
    schema::DEFERRAL_COMMITS,
    schema::RETENTION,
    schema::CHECK_RUNS,
];

/// The schema version this program writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// First key of the advisory lock taken while migrating (the second is the schema's name), so
/// replicas opening the same schema at once migrate one after the other.
const MIGRATION_LOCK: i32 = 0x6465_6672; // "defr"

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
            store.check()?;
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
            ownership::check_ownership(tx)?;
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
            let record = |conn: &mut dyn SqlConn, version: i64| {
                conn.execute(
                    "UPDATE deferral_schema_version SET version = ?1",
                    &[version.into()],
                )
                .map(drop)
            };
            schema::migrate(&mut sql_conn::Pg(tx), &MIGRATIONS, version, &record)?;
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

    /// One transaction around every item; each item is a savepoint, rolled back alone if it
    /// fails. A savepoint that cannot be made or undone fails the whole batch: PostgreSQL
    /// would otherwise turn the final COMMIT into a silent ROLLBACK.
    fn group_insert(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
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
            let mut item = match tx.savepoint("batch_item") {
                Ok(item) => item,
                Err(err) => return all(backend(err)),
            };
            let result = super::sql::deferrals::insert(&mut sql_conn::Pg(&mut item), new);
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

    /// PostgreSQL checks its own pages; this checks what only this program knows: the schema
    /// version, and that every deferral's current receipt exists and belongs to it.
    fn check(&self) -> Result<(), StoreError> {
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
