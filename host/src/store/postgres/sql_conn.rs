//! PostgreSQL under the shared SQL layer (`store::sql`): the dialect, the connection, the row.

use super::super::sql::{Dialect, Param, SqlConn, SqlRow};
use super::super::StoreError;
use super::backend;
use postgres::types::ToSql;
use postgres::{GenericClient, Row};

/// PostgreSQL's dialect: `FOR UPDATE` row locks, lists as arrays.
pub(super) struct PostgresDialect;

impl Dialect for PostgresDialect {
    fn notify_work(&self) -> &'static str {
        "SELECT pg_notify('deferral_host_work', coalesce(current_schema(), ''))"
    }

    fn for_update(&self) -> &'static str {
        " FOR UPDATE"
    }

    fn not_in_list(&self, column: &str, n: usize) -> String {
        format!("NOT ({column} = ANY(?{n}))")
    }

    fn in_list(&self, column: &str, n: usize) -> String {
        format!("{column} = ANY(?{n})")
    }

    /// Two trigger functions (a pool observation has a column the others lack), and each DELETE
    /// trigger made again on one of them.
    fn removable_evidence(&self) -> String {
        let ended = "EXISTS (SELECT 1 FROM deferrals WHERE id = OLD.deferral_id AND state IN ('complete', 'blocked', 'cancelled'))";
        let function = |name: &str, allowed: &str| {
            format!(
                "CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n\
                 BEGIN\n\
                     IF {allowed} THEN RETURN OLD; END IF;\n\
                     RAISE EXCEPTION '% are append-only: they go only with their deferral, once it has ended', TG_TABLE_NAME;\n\
                 END\n\
                 $$;\n"
            )
        };
        let mut ddl = function("deferral_evidence_removable", ended);
        ddl.push_str(&function(
            "deferral_observation_removable",
            &format!("{ended} OR (OLD.deferral_id IS NULL AND OLD.observed_ms <= (extract(epoch FROM now()) * 1000)::bigint - 86400000)"),
        ));
        for (table, function) in [
            ("receipts", "deferral_evidence_removable"),
            ("events", "deferral_evidence_removable"),
            ("pool_observations", "deferral_observation_removable"),
        ] {
            ddl.push_str(&format!(
                "DROP TRIGGER {table}_no_delete ON {table};\n\
                 CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW EXECUTE FUNCTION {function}();\n"
            ));
        }
        ddl
    }

    fn skip_locked(&self) -> &'static str {
        " FOR UPDATE SKIP LOCKED"
    }

    /// Rows of equal time come back in no set order without a tie-break.
    fn order_ties(&self) -> &'static str {
        ", id"
    }

    /// Counted on each call (see `BENCHMARKS.md`, "deferral-host status page", for why not kept).
    fn count_by_state(&self) -> &'static str {
        "SELECT state, COUNT(*) FROM deferrals GROUP BY state"
    }

    fn count_by_state_cause(&self) -> &'static str {
        "SELECT state, cause, COUNT(*) FROM deferrals GROUP BY state, cause"
    }

    fn int(&self) -> &'static str {
        "BIGINT"
    }

    fn seq_key(&self) -> &'static str {
        "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    }

    fn append_only_setup(&self) -> &'static str {
        "
-- Evidence is append-only: UPDATE, DELETE and TRUNCATE raise, whoever runs them.
CREATE FUNCTION deferral_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% are append-only', TG_TABLE_NAME;
END
$$;
"
    }

    /// The trigger function names the table itself (`TG_TABLE_NAME`), so `what` is not used.
    fn append_only(&self, table: &str, _what: &str, truncate: bool) -> String {
        let mut ddl = String::new();
        for op in ["UPDATE", "DELETE"] {
            ddl.push_str(&format!(
                "CREATE TRIGGER {table}_no_{} BEFORE {op} ON {table} FOR EACH ROW EXECUTE FUNCTION deferral_append_only();\n",
                op.to_lowercase()
            ));
        }
        if truncate {
            ddl.push_str(&format!(
                "CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION deferral_append_only();\n"
            ));
        }
        ddl
    }

    fn find_text(&self) -> &'static str {
        "strpos"
    }
}

/// The statement with PostgreSQL's placeholders: `?N` becomes `$N`.
fn numbered(sql: &str) -> String {
    sql.replace('?', "$")
}

fn bound<'a>(args: &'a [Param<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter()
        .map(|a| -> &(dyn ToSql + Sync) {
            match a {
                Param::Int(v) => v,
                Param::Text(v) => v,
                Param::List(v) => v,
            }
        })
        .collect()
}

/// A client or a transaction.
pub(super) struct Pg<'a, C: GenericClient>(pub(super) &'a mut C);

impl SqlRow for Row {
    fn opt_i64(&self, at: usize) -> Result<Option<i64>, StoreError> {
        self.try_get(at).map_err(backend)
    }

    fn opt_text(&self, at: usize) -> Result<Option<String>, StoreError> {
        self.try_get(at).map_err(backend)
    }
}

impl<C: GenericClient> SqlConn for Pg<'_, C> {
    fn dialect(&self) -> &'static dyn Dialect {
        &PostgresDialect
    }

    fn execute_batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.0.batch_execute(sql).map_err(backend)
    }

    fn execute(&mut self, sql: &str, args: &[Param]) -> Result<u64, StoreError> {
        self.0
            .execute(numbered(sql).as_str(), &bound(args))
            .map_err(backend)
    }

    fn execute_unique(&mut self, sql: &str, args: &[Param]) -> Result<Option<u64>, StoreError> {
        match self.0.execute(numbered(sql).as_str(), &bound(args)) {
            Ok(n) => Ok(Some(n)),
            Err(err) if err.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => {
                Ok(None)
            }
            Err(err) => Err(backend(err)),
        }
    }

    fn insert_seq(&mut self, sql: &str, args: &[Param]) -> Result<u64, StoreError> {
        let row = self
            .0
            .query_one(
                format!("{} RETURNING seq", numbered(sql)).as_str(),
                &bound(args),
            )
            .map_err(backend)?;
        row.u64(0)
    }

    fn query(
        &mut self,
        sql: &str,
        args: &[Param],
        each: &mut dyn FnMut(&dyn SqlRow) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        for row in self
            .0
            .query(numbered(sql).as_str(), &bound(args))
            .map_err(backend)?
        {
            each(&row)?;
        }
        Ok(())
    }
}

impl super::super::sql::SqlBackend for super::PostgresStore {
    fn sql_read<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        body(&mut Pg(&mut *self.client.borrow_mut()))
    }

    fn sql_write<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.write(|tx| body(&mut Pg(tx)))
    }

    /// In a transaction: the work queries lock what they list, skipping what others hold.
    fn sql_work<T>(
        &self,
        body: impl FnOnce(&mut dyn SqlConn) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.sql_write(body)
    }

    fn sql_batch(
        &self,
        news: &[crate::store::NewDeferral],
    ) -> Vec<Result<crate::store::Deferral, StoreError>> {
        self.group_insert(news)
    }

    fn sql_check(&self) -> Result<(), StoreError> {
        self.check()
    }
}
