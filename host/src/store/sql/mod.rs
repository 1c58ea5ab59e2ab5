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
//! A backend implements [`SqlBackend`] (a read, a write transaction) and gets the shared
//! store traits (see `pools`) for it.

pub(super) mod deferrals;
pub(super) mod github;
pub(super) mod pools;
pub(super) mod retry;

use super::StoreError;

/// One bound value of a statement.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(Option<i64>),
    Text(Option<&'a str>),
    /// A list of texts, tested with [`Dialect::not_in_list`].
    List(&'a [&'a str]),
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(Some(v))
    }
}
impl From<Option<i64>> for Param<'_> {
    fn from(v: Option<i64>) -> Self {
        Param::Int(v)
    }
}
impl From<u32> for Param<'_> {
    fn from(v: u32) -> Self {
        Param::Int(Some(i64::from(v)))
    }
}
impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(Some(v))
    }
}
impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(Some(v))
    }
}
impl<'a> From<&'a Option<String>> for Param<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Param::Text(v.as_deref())
    }
}
impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Param::Text(v)
    }
}
impl<'a> From<&'a [&'a str]> for Param<'a> {
    fn from(v: &'a [&'a str]) -> Self {
        Param::List(v)
    }
}

/// `args![a, b, c]`: the parameters of a statement, each through `Param::from`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::sql::Param::from($value)),*]
    };
}
pub(crate) use args;

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
}

/// A connection (or a transaction on one) that runs the shared statements.
pub trait SqlConn {
    fn dialect(&self) -> &'static dyn Dialect;
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
}
