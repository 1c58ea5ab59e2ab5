//! The SQLite store's counts of deferrals per state and cause, kept by the database itself.
//!
//! `SELECT state, COUNT(*) FROM deferrals GROUP BY state` reads an index entry for every row,
//! so the status page (and `/metrics`) would take longer the bigger the store. Instead the
//! table `deferral_counts` holds one row per `(state, cause)` that some deferral has, with how
//! many have it, and triggers on `deferrals` change it in the same statement as the row: an
//! insert adds one, an update of `state` or `cause` moves one, a delete takes one away (a count
//! that reaches zero is deleted, as the `GROUP BY` would not show it). Any writer of
//! `deferrals` goes through them (the host, a benchmark's bulk insert, a hand edit in the
//! `sqlite3` shell), so the table is what the `GROUP BY` gives after every committed write.
//! Reading it costs the same at any size of the store.
//!
//! PostgreSQL keeps its `GROUP BY` (see `BENCHMARKS.md`, "deferral-host status page").

use super::super::sql::schema::Migration;
use super::super::sql::Dialect;

/// Migration 8: the table, its triggers, and the counts of the rows already stored.
const DDL: &str = r#"
CREATE TABLE deferral_counts (
    state TEXT NOT NULL,
    cause TEXT NOT NULL,
    n     INTEGER NOT NULL CHECK (n > 0),
    PRIMARY KEY (state, cause)
) WITHOUT ROWID;
CREATE TRIGGER deferral_counts_insert AFTER INSERT ON deferrals BEGIN
    INSERT INTO deferral_counts (state, cause, n) VALUES (NEW.state, NEW.cause, 1)
        ON CONFLICT (state, cause) DO UPDATE SET n = n + 1;
END;
-- Taking one away: a last one deletes its row, any other count goes down by one (in that
-- order, so no row ever holds 0).
CREATE TRIGGER deferral_counts_update AFTER UPDATE OF state, cause ON deferrals
WHEN OLD.state IS NOT NEW.state OR OLD.cause IS NOT NEW.cause BEGIN
    DELETE FROM deferral_counts WHERE state = OLD.state AND cause = OLD.cause AND n = 1;
    UPDATE deferral_counts SET n = n - 1 WHERE state = OLD.state AND cause = OLD.cause;
    INSERT INTO deferral_counts (state, cause, n) VALUES (NEW.state, NEW.cause, 1)
        ON CONFLICT (state, cause) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER deferral_counts_delete AFTER DELETE ON deferrals BEGIN
    DELETE FROM deferral_counts WHERE state = OLD.state AND cause = OLD.cause AND n = 1;
    UPDATE deferral_counts SET n = n - 1 WHERE state = OLD.state AND cause = OLD.cause;
END;
INSERT INTO deferral_counts (state, cause, n)
    SELECT state, cause, COUNT(*) FROM deferrals GROUP BY state, cause;
"#;

pub(super) const MIGRATION: Migration = Migration {
    ddl,
    backfill: None,
};

fn ddl(_: &dyn Dialect) -> String {
    DDL.into()
}

/// Deferrals per state, from the kept counts (a handful of rows, whatever the store holds).
pub(super) const BY_STATE: &str =
    "SELECT state, SUM(n) FROM deferral_counts GROUP BY state ORDER BY state";

/// Deferrals per state and cause, from the kept counts.
pub(super) const BY_STATE_CAUSE: &str =
    "SELECT state, cause, n FROM deferral_counts ORDER BY state, cause";
