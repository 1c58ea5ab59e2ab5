//! [`RetentionStore`] over SQL, for both backends (see `store::retention` for what goes), and
//! the migration that lets the store's append-only evidence go with its ended deferral.

use super::super::retention::{Horizon, Removed, RetentionStore};
use super::super::StoreError;
use super::{args, query_all, query_opt, to_i64, Dialect, Param, SqlBackend, SqlConn};

/// The states a deferral never leaves.
const ENDED: &str = "('complete', 'blocked', 'cancelled')";

/// `alias` has ended and last changed at or before `?1`.
fn ended_old(alias: &str) -> String {
    format!("({alias}.state IN {ENDED} AND {alias}.updated_ms <= ?1)")
}

/// Deferral `d` may go at a horizon bound as `?1` (ended before) and `?2` (now): it ended
/// before it, every deferral linked to it did too, and none of its admissions is open.
fn prunable() -> String {
    let linked = [
        ("links", "predecessor_id", "successor_id"),
        ("links", "successor_id", "predecessor_id"),
        ("retries", "original_id", "retry_id"),
        ("retries", "retry_id", "original_id"),
    ]
    .iter()
    .map(|(table, mine, other)| {
        format!(
            " AND NOT EXISTS (SELECT 1 FROM {table} l JOIN deferrals n ON n.id = l.{other} \
             WHERE l.{mine} = d.id AND NOT {})",
            ended_old("n")
        )
    })
    .collect::<String>();
    format!(
        "{}{linked} AND NOT EXISTS (SELECT 1 FROM admissions a WHERE a.deferral_id = d.id \
         AND a.released_ms IS NULL AND a.expires_ms > ?2)",
        ended_old("d")
    )
}

/// Every table with rows of a deferral, children first (the deferral last), each with the
/// condition that picks the rows of the deferrals `member(column)` names.
fn owned_rows(member: &dyn Fn(&str) -> String) -> Vec<(&'static str, String)> {
    let mut tables = vec![(
        "admission_costs",
        format!(
            "admission_seq IN (SELECT seq FROM admissions WHERE {})",
            member("deferral_id")
        ),
    )];
    for table in [
        "admissions",
        "deferral_costs",
        "pool_observations",
        "receipts",
        "events",
        "launch_processes",
        "receipt_keys",
        "artifacts",
        "runs",
        "artifact_names",
        "deferral_commits",
        "check_runs",
    ] {
        tables.push((table, member("deferral_id")));
    }
    tables.push((
        "links",
        format!("{} OR {}", member("successor_id"), member("predecessor_id")),
    ));
    tables.push((
        "retries",
        format!("{} OR {}", member("retry_id"), member("original_id")),
    ));
    // The deferrals last, by id alone (a condition on `state` as well makes SQLite's planner
    // read every ended deferral through the state index instead of the 100 by their key): a
    // batch picked them ended, under its lock.
    tables.push(("deferrals", member("id")));
    tables
}

/// Which instant of the horizon a kind of [`unowned_rows`] is bound to.
#[derive(Clone, Copy)]
enum Before {
    Retention,
    Bookkeeping,
}

/// The rows that are no deferral's: each kind's table, the key a batch picks them by, the
/// condition that picks those that may go (`?1` its instant) and which instant that is.
fn unowned_rows() -> [(&'static str, &'static str, &'static str, Before); 5] {
    const RUNNER_ADMISSION: &str =
        "deferral_id IS NULL AND ((released_ms IS NOT NULL AND released_ms <= ?1) \
         OR (released_ms IS NULL AND expires_ms <= ?1))";
    [
        // An admission's cost rows first: they are found through their admission.
        (
            "admission_costs",
            "seq",
            RUNNER_ADMISSION,
            Before::Retention,
        ),
        ("admissions", "seq", RUNNER_ADMISSION, Before::Retention),
        (
            "pool_observations",
            "seq",
            "deferral_id IS NULL AND observed_ms <= ?1",
            Before::Retention,
        ),
        // By age: a delivery's key after GitHub's redelivery window (`Before::Bookkeeping`);
        // the environment gate's and the buttons' once-notes (events `gate`, `once`,
        // `check_run`) 30 days later still, as long as a job may wait behind a gate.
        (
            "github_deliveries",
            "delivery_id",
            "received_ms <= ?1 AND (event NOT IN ('gate', 'once', 'check_run') \
             OR received_ms <= ?1 - 2592000000)",
            Before::Bookkeeping,
        ),
        // A check run's id (`check-run:DEFERRAL`) is kept as long as a gate's once-note.
        (
            "http_cache",
            "key",
            "updated_ms <= ?1 AND (key NOT LIKE 'check-run:%' OR updated_ms <= ?1 - 2592000000)",
            Before::Bookkeeping,
        ),
    ]
}

impl Before {
    fn of(self, horizon: &Horizon) -> i64 {
        to_i64(match self {
            Before::Retention => horizon.ended_before_ms,
            Before::Bookkeeping => horizon.bookkeeping_before_ms,
        })
    }
}

/// The rows of kind `table` (picked by `key` where `condition`), or for `admission_costs`
/// those of the admissions picked so: `SELECT COUNT(*)` of all of them, or `DELETE` of the
/// first `?2` (the costs and their admissions pick the same first `?2` admissions).
fn unowned(table: &str, key: &str, condition: &str, delete: bool) -> String {
    let (from, owner) = match table {
        "admission_costs" => ("admissions", "admission_seq"),
        _ => (table, key),
    };
    if delete {
        format!(
            "DELETE FROM {table} WHERE {owner} IN \
             (SELECT {key} FROM {from} WHERE {condition} ORDER BY {key} LIMIT ?2)"
        )
    } else {
        format!("SELECT COUNT(*) FROM {table} WHERE {owner} IN (SELECT {key} FROM {from} WHERE {condition})")
    }
}

fn count(conn: &mut dyn SqlConn, sql: &str, params: &[Param]) -> Result<u64, StoreError> {
    Ok(query_opt(conn, sql, params, |r| r.u64(0))?.unwrap_or(0))
}

impl<B: SqlBackend> RetentionStore for B {
    fn count_prunable(&self, horizon: &Horizon) -> Result<Removed, StoreError> {
        let (before, now) = (to_i64(horizon.ended_before_ms), to_i64(horizon.now_ms));
        self.sql_read(|conn| {
            let mut removed = Removed::default();
            let set = format!("SELECT d.id FROM deferrals d WHERE {}", prunable());
            let member = |column: &str| format!("{column} IN ({set})");
            for (table, condition) in owned_rows(&member) {
                let sql = format!("SELECT COUNT(*) FROM {table} WHERE {condition}");
                removed.add(table, count(conn, &sql, args![before, now])?);
            }
            for (table, key, condition, instant) in unowned_rows() {
                let sql = unowned(table, key, condition, false);
                removed.add(table, count(conn, &sql, args![instant.of(horizon)])?);
            }
            Ok(removed)
        })
    }

    fn prune_ended(&self, horizon: &Horizon, limit: usize) -> Result<Removed, StoreError> {
        let (before, now) = (to_i64(horizon.ended_before_ms), to_i64(horizon.now_ms));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.sql_write(|conn| {
            let dialect = conn.dialect();
            // Locked as they are picked (PostgreSQL; SQLite's writer is alone already): a
            // retry or a link made at the same moment waits for this transaction.
            let pick = format!(
                "SELECT d.id FROM deferrals d WHERE {} LIMIT ?3{}",
                prunable(),
                dialect.skip_locked()
            );
            let ids = query_all(conn, &pick, args![before, now, limit], |r| r.text(0))?;
            let mut removed = Removed::default();
            if ids.is_empty() {
                // Every table is named in the answer, with what went from it.
                for (table, _) in owned_rows(&|_| String::new()) {
                    removed.add(table, 0);
                }
                return Ok(removed);
            }
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let member = |column: &str| dialect.in_list(column, 1);
            for (table, condition) in owned_rows(&member) {
                let sql = format!("DELETE FROM {table} WHERE {condition}");
                removed.add(table, conn.execute(&sql, &[Param::List(&ids)])?);
            }
            Ok(removed)
        })
    }

    fn prune_bookkeeping(&self, horizon: &Horizon, limit: usize) -> Result<Removed, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.sql_write(|conn| {
            let mut removed = Removed::default();
            for (table, key, condition, instant) in unowned_rows() {
                let sql = unowned(table, key, condition, true);
                removed.add(
                    table,
                    conn.execute(&sql, args![instant.of(horizon), limit])?,
                );
            }
            Ok(removed)
        })
    }
}

/// The migration: an index on `artifacts (deferral_id)`, and the DELETE triggers of receipts,
/// events and pool observations that let a row go once its deferral has ended (and a pool
/// observation of no deferral once it is a day old); UPDATE (and TRUNCATE) stay refused.
pub fn ddl(d: &dyn Dialect) -> String {
    // Removing a deferral checks every table whose rows point at it (a foreign key): this one
    // had no index on it, so each removal would read all of it. Written so that it can run
    // again (tests set a store's version back and let the later migrations run again).
    let mut ddl =
        String::from("CREATE INDEX IF NOT EXISTS artifacts_deferral ON artifacts (deferral_id);\n");
    ddl.push_str(&d.removable_evidence());
    ddl
}
