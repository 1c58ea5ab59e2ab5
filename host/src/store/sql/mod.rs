//! The SQL both stores share: each statement and its row mapping written once, over a small
//! [`Dialect`] (what differs in the text) and a [`SqlConn`] (how a backend runs a statement).
//!
//! Statements are written with SQLite's numbered placeholders `?1, ?2, ...`; the PostgreSQL
//! connection turns them into `$1, $2, ...` before preparing. What else differs is asked of the
//! dialect: row locks (`FOR UPDATE`, which SQLite does without because `BEGIN IMMEDIATE`
//! serialises its writers) and how a list is passed (a JSON text read with `json_each` in
//! SQLite, an array compared with `ALL` in PostgreSQL). Upserts (`ON CONFLICT ... DO UPDATE`)
//! are written the same in both. A new id (`seq`) comes back from [`SqlConn::insert_seq`].
//!
//! A backend implements [`SqlBackend`] (a read, a write transaction, a group commit, its
//! integrity check) and gets every store trait for it: [`Store`](super::Store) in `store`,
//! the statements in `deferrals`, `receipts`, `events` and `work`, the row mapping in `rows`,
//! the migrations in `schema`, the GitHub loop's, the retries' and the pools' tables in
//! `github`, `retry` and `pools`.

mod cost_rows;
pub(super) mod deferrals;
pub(super) mod events;
pub(super) mod github;
mod param;
mod pool_cells;
mod pool_rows;
pub(super) mod pools;
mod pools_schema;
pub(super) mod receipts;
mod retention;
pub(super) mod retry;
pub(super) mod rows;
pub(super) mod schema;
mod store;
pub(super) mod work;

use super::StoreError;

pub(crate) use param::args;
pub use param::Param;

/// A stored `u64` as the `INTEGER`/`BIGINT` it is kept in (saturating).
pub fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A stored integer read back as `u64` (a negative one, never written, reads as 0).
pub fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// One row of a result, read by column index.
pub trait SqlRow {
    fn opt_i64(&self, at: usize) -> Result<Option<i64>, StoreError>;
    fn opt_text(&self, at: usize) -> Result<Option<String>, StoreError>;

    fn i64(&self, at: usize) -> Result<i64, StoreError> {
        self.opt_i64(at)?
            .ok_or_else(|| StoreError::Corrupt(format!("unexpected NULL in column {at}")))
    }
    fn text(&self, at: usize) -> Result<String, StoreError> {
        self.opt_text(at)?
            .ok_or_else(|| StoreError::Corrupt(format!("unexpected NULL in column {at}")))
    }
    fn u64(&self, at: usize) -> Result<u64, StoreError> {
        self.i64(at).map(to_u64)
    }
    fn opt_u64(&self, at: usize) -> Result<Option<u64>, StoreError> {
        Ok(self.opt_i64(at)?.map(to_u64))
    }
    fn u32(&self, at: usize) -> Result<u32, StoreError> {
        Ok(u32::try_from(self.i64(at)?).unwrap_or(0))
    }
}

/// What differs in the text of a statement between SQL backends.
pub trait Dialect {
    /// Appended to a `SELECT` of the one row a write transaction is about to change: a row lock
    /// where writers run side by side, nothing where the transaction already excludes them.
    fn for_update(&self) -> &'static str;
    /// `column NOT IN` the list bound at placeholder `?n`.
    fn not_in_list(&self, column: &str, n: usize) -> String;
    /// `column IN` the list bound at placeholder `?n`.
    fn in_list(&self, column: &str, n: usize) -> String;
    /// Appended to a work query of `tick` (and the claim): rows another transaction holds are
    /// skipped, not waited for, where writers run side by side; nothing otherwise.
    fn skip_locked(&self) -> &'static str;
    /// Appended to an `ORDER BY` of the work queries: `, id` where rows of equal time would
    /// otherwise come back in no set order; nothing where the index keeps them in rowid order.
    fn order_ties(&self) -> &'static str;
    /// `SELECT state, n` of the deferrals per state (counted, or read from kept counts).
    fn count_by_state(&self) -> &'static str;
    /// `SELECT state, cause, n` of the deferrals per state and cause.
    fn count_by_state_cause(&self) -> &'static str;
    /// The DDL type of a 64-bit integer column (`{int}` in `schema`).
    fn int(&self) -> &'static str;
    /// The DDL of an auto-numbered `seq` primary key (`{seq}` in `schema`).
    fn seq_key(&self) -> &'static str;
    /// What the append-only triggers need first (a trigger function), once per store.
    fn append_only_setup(&self) -> &'static str;
    /// Triggers that refuse UPDATE and DELETE (and TRUNCATE, if `truncate` and the dialect
    /// has one) on `table`, saying `{what} are append-only`.
    fn append_only(&self, table: &str, what: &str, truncate: bool) -> String;
    /// The retention migration (`retention::ddl`): the DELETE triggers of `receipts`, `events`
    /// and `pool_observations` replaced by ones that let a row go once its deferral has ended
    /// (and a pool observation of no deferral once it is a day old).
    fn removable_evidence(&self) -> String;
    /// The function that finds a text in another, 1-based, 0 when absent (`instr`, `strpos`).
    fn find_text(&self) -> &'static str;
    /// A statement that tells the store's other sessions, at commit, that due work changed
    /// (PostgreSQL's `NOTIFY` on [`WORK_CHANNEL`]); empty where there is no such notice.
    fn notify_work(&self) -> &'static str {
        ""
    }
}

/// The PostgreSQL channel `run` listens on: a deferral was recorded or deferred again, or a
/// pool's admission was released. The payload is the writer's schema, so that stores sharing
/// one database (one schema each) wake only their own schedulers.
pub const WORK_CHANNEL: &str = "deferral_host_work";

/// Sends the dialect's work notice in the caller's transaction (delivered at its commit; one
/// per transaction, however often it is sent: PostgreSQL folds identical notices).
pub fn notify_work(conn: &mut dyn SqlConn) -> Result<(), StoreError> {
    let sql = conn.dialect().notify_work();
    if !sql.is_empty() {
        conn.execute(sql, &[])?;
    }
    Ok(())
}

/// A connection (or a transaction on one) that runs the shared statements.
pub trait SqlConn {
    fn dialect(&self) -> &'static dyn Dialect;
    /// Runs statements separated by `;`, binding nothing (the migrations).
    fn execute_batch(&mut self, sql: &str) -> Result<(), StoreError>;
    /// Runs a statement; the number of rows it changed.
    fn execute(&mut self, sql: &str, args: &[Param]) -> Result<u64, StoreError>;
    /// Like [`SqlConn::execute`], but `None` when a unique or primary key refused the row.
    fn execute_unique(&mut self, sql: &str, args: &[Param]) -> Result<Option<u64>, StoreError>;
    /// Runs an `INSERT` into a table keyed by `seq`; the new row's `seq`.
    fn insert_seq(&mut self, sql: &str, args: &[Param]) -> Result<u64, StoreError>;
    /// Runs a query, handing each row to `each` in order.
    fn query(
        &mut self,
        sql: &str,
        args: &[Param],
        each: &mut dyn FnMut(&dyn SqlRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
}

/// Every row of a query, each read by `read`.
pub fn query_all<T>(
    conn: &mut dyn SqlConn,
    sql: &str,
    args: &[Param],
    mut read: impl FnMut(&dyn SqlRow) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::new();
    conn.query(sql, args, &mut |row| {
        out.push(read(row)?);
        Ok(())
    })?;
    Ok(out)
}

/// The first row of a query, if any, read by `read`.
pub fn query_opt<T>(
    conn: &mut dyn SqlConn,
    sql: &str,
    args: &[Param],
    read: impl FnOnce(&dyn SqlRow) -> Result<T, StoreError>,
) -> Result<Option<T>, StoreError> {
    let mut read = Some(read);
    let mut out = None;
    conn.query(sql, args, &mut |row| {
        if let Some(read) = read.take() {
            out = Some(read(row)?);
        }
        Ok(())
    })?;
    Ok(out)
}

/// A store kept in SQL: how it reads and how it writes in one transaction.
pub trait SqlBackend {
    /// Runs `body` on the connection outside any transaction the store opens.
    fn sql_read<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;
    /// Runs `body` in a write transaction: committed on `Ok`, rolled back on `Err`.
    fn sql_write<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;
    /// Runs a work query of `tick`: in a write transaction where it locks the rows it lists
    /// (see [`Dialect::skip_locked`]), as a plain read otherwise.
    fn sql_work<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;
    /// [`Store::insert_batch`](super::Store::insert_batch): every item in one transaction,
    /// each in a savepoint of it, inserted by `deferrals::insert`.
    fn sql_batch(&self, news: &[super::NewDeferral]) -> Vec<Result<super::Deferral, StoreError>>;
    /// [`Store::check_integrity`](super::Store::check_integrity): the backend's own check.
    fn sql_check(&self) -> Result<(), StoreError>;
}
