//! SQLite under the shared SQL layer (`store::sql`): the dialect, the connection, the row.

use super::super::sql::{Dialect, Param, SqlConn, SqlRow};
use super::super::StoreError;
use super::{backend, counts};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{params_from_iter, Connection, Row};

/// SQLite's dialect: no row locks (`BEGIN IMMEDIATE` admits one writer), lists as JSON text.
pub(super) struct SqliteDialect;

impl Dialect for SqliteDialect {
    fn for_update(&self) -> &'static str {
        ""
    }

    fn not_in_list(&self, column: &str, n: usize) -> String {
        format!("{column} NOT IN (SELECT value FROM json_each(?{n}))")
    }

    fn in_list(&self, column: &str, n: usize) -> String {
        format!("{column} IN (SELECT value FROM json_each(?{n}))")
    }

    /// Each trigger dropped and made again with a `WHEN` (SQLite cannot change a trigger).
    fn removable_evidence(&self) -> String {
        let ended = "EXISTS (SELECT 1 FROM deferrals WHERE id = OLD.deferral_id AND state IN ('complete', 'blocked', 'cancelled'))";
        // Whole seconds are enough for a day's bound.
        let day_old = "(OLD.deferral_id IS NULL AND OLD.observed_ms <= CAST(strftime('%s', 'now') AS INTEGER) * 1000 - 86400000)";
        [
            ("receipts", "receipts", ended.to_string()),
            ("events", "events", ended.to_string()),
            (
                "pool_observations",
                "pool observations",
                format!("{ended} OR {day_old}"),
            ),
        ]
        .iter()
        .map(|(table, what, allowed)| {
            format!(
                "DROP TRIGGER {table}_no_delete;\n\
                 CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} WHEN NOT ({allowed}) BEGIN \
                 SELECT RAISE(ABORT, '{what} are append-only: they go only with their deferral, once it has ended'); END;\n"
            )
        })
        .collect()
    }

    fn skip_locked(&self) -> &'static str {
        ""
    }

    /// Equal times come back in the index's rowid order.
    fn order_ties(&self) -> &'static str {
        ""
    }

    /// From `deferral_counts`, kept by triggers: no read of the deferrals themselves.
    fn count_by_state(&self) -> &'static str {
        counts::BY_STATE
    }

    fn count_by_state_cause(&self) -> &'static str {
        counts::BY_STATE_CAUSE
    }

    fn int(&self) -> &'static str {
        "INTEGER"
    }

    fn seq_key(&self) -> &'static str {
        "INTEGER PRIMARY KEY AUTOINCREMENT"
    }

    fn append_only_setup(&self) -> &'static str {
        ""
    }

    /// SQLite has no TRUNCATE (a `DELETE` without `WHERE` fires the delete trigger).
    fn append_only(&self, table: &str, what: &str, _truncate: bool) -> String {
        ["UPDATE", "DELETE"]
            .iter()
            .map(|op| {
                format!(
                    "CREATE TRIGGER {table}_no_{} BEFORE {op} ON {table} BEGIN SELECT RAISE(ABORT, '{what} are append-only'); END;\n",
                    op.to_lowercase()
                )
            })
            .collect()
    }

    fn find_text(&self) -> &'static str {
        "instr"
    }
}

/// A list as a JSON array, for `json_each` (SQLite has no array parameter).
fn json_list<T: AsRef<str>>(items: &[T]) -> String {
    serde_json::Value::from(items.iter().map(AsRef::as_ref).collect::<Vec<&str>>()).to_string()
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Param::Int(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Param::Text(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Param::Int(None) | Param::Text(None) => ToSqlOutput::Borrowed(ValueRef::Null),
            Param::List(items) => ToSqlOutput::from(json_list(items)),
        })
    }
}

/// A connection already inside whatever transaction the store opened.
pub(super) struct Lite<'a>(pub(super) &'a Connection);

impl SqlRow for Row<'_> {
    fn opt_i64(&self, at: usize) -> Result<Option<i64>, StoreError> {
        self.get(at).map_err(backend)
    }

    fn opt_text(&self, at: usize) -> Result<Option<String>, StoreError> {
        self.get(at).map_err(backend)
    }
}

impl SqlConn for Lite<'_> {
    fn dialect(&self) -> &'static dyn Dialect {
        &SqliteDialect
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.0.execute_batch(sql).map_err(backend)
    }

    fn execute(&mut self, sql: &str, args: &[Param]) -> Result<u64, StoreError> {
        let n = self
            .0
            .prepare_cached(sql)
            .map_err(backend)?
            .execute(params_from_iter(args))
            .map_err(backend)?;
        Ok(n as u64)
    }

    fn execute_unique(&mut self, sql: &str, args: &[Param]) -> Result<Option<u64>, StoreError> {
        let mut stmt = self.0.prepare_cached(sql).map_err(backend)?;
        match stmt.execute(params_from_iter(args)) {
            Ok(n) => Ok(Some(n as u64)),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
            {
                Ok(None)
            }
            Err(err) => Err(backend(err)),
        }
    }

    fn insert_seq(&mut self, sql: &str, args: &[Param]) -> Result<u64, StoreError> {
        self.execute(sql, args)?;
        Ok(u64::try_from(self.0.last_insert_rowid()).unwrap_or(0))
    }

    fn query(
        &mut self,
        sql: &str,
        args: &[Param],
        each: &mut dyn FnMut(&dyn SqlRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.0.prepare_cached(sql).map_err(backend)?;
        let mut rows = stmt.query(params_from_iter(args)).map_err(backend)?;
        while let Some(row) = rows.next().map_err(backend)? {
            each(row)?;
        }
        Ok(())
    }
}

impl super::super::sql::SqlBackend for super::SqliteStore {
    /// A read of a file no path names any more is refused too: `/readyz` reads, and a host
    /// whose store was removed must not answer from it as if nothing happened.
    fn sql_read<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.check_file()?;
        body(&mut Lite(&self.conn))
    }

    fn sql_write<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.write(|conn| body(&mut Lite(conn)))
    }

    /// A plain read: `BEGIN IMMEDIATE` already keeps writers apart, so nothing is locked.
    fn sql_work<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.sql_read(body)
    }

    fn sql_batch(
        &self,
        news: &[crate::store::NewDeferral],
    ) -> Vec<Result<crate::store::Deferral, StoreError>> {
        self.group_insert(news)
    }

    fn sql_check(&self) -> Result<(), StoreError> {
        self.run_check("integrity_check")
    }
}
