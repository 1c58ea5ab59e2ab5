//! The SQLite DDL of the pools tables; the statements are shared (see `store::sql::pools`).

/// Migration 5: pools, costs, admissions, observations.
pub(super) const MIGRATION: &str = r#"
ALTER TABLE deferrals ADD COLUMN pool TEXT NOT NULL DEFAULT 'default';
ALTER TABLE deferrals ADD COLUMN rest_cost INTEGER;
ALTER TABLE deferrals ADD COLUMN graphql_cost INTEGER;
ALTER TABLE deferrals ADD COLUMN content_cost INTEGER;
-- A pool's due deferrals, earliest first then by id: a range scan that stops at the limit.
CREATE INDEX deferrals_pool_due ON deferrals (state, pool, resume_after_ms, id);
CREATE TABLE pools (
    name                TEXT PRIMARY KEY,
    version             INTEGER NOT NULL,
    rest_limit          INTEGER,
    rest_remaining      INTEGER,
    rest_reserve        INTEGER,
    rest_reset_ms       INTEGER,
    rest_observed_ms    INTEGER,
    rest_source         TEXT,
    graphql_limit       INTEGER,
    graphql_remaining   INTEGER,
    graphql_reserve     INTEGER,
    graphql_reset_ms    INTEGER,
    graphql_observed_ms INTEGER,
    graphql_source      TEXT,
    hold_until_ms       INTEGER,
    hold_reason         TEXT,
    updated_ms          INTEGER NOT NULL
);
INSERT INTO pools (name, version, updated_ms) VALUES ('default', 1, 0);
CREATE TABLE pool_observations (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    pool        TEXT NOT NULL,
    deferral_id TEXT,
    resource    TEXT NOT NULL,
    reported_limit INTEGER NOT NULL,
    remaining   INTEGER NOT NULL,
    reserve     INTEGER NOT NULL,
    reset_ms    INTEGER NOT NULL,
    observed_ms INTEGER NOT NULL,
    source      TEXT NOT NULL
);
CREATE INDEX pool_observations_deferral ON pool_observations (deferral_id, seq);
CREATE TRIGGER pool_observations_no_update BEFORE UPDATE ON pool_observations BEGIN SELECT RAISE(ABORT, 'pool observations are append-only'); END;
CREATE TRIGGER pool_observations_no_delete BEFORE DELETE ON pool_observations BEGIN SELECT RAISE(ABORT, 'pool observations are append-only'); END;
CREATE TABLE admissions (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    pool            TEXT NOT NULL,
    deferral_id     TEXT,
    attempt         INTEGER NOT NULL,
    rest_cost       INTEGER,
    graphql_cost    INTEGER,
    content_cost    INTEGER,
    window_reset_ms INTEGER NOT NULL,
    expires_ms      INTEGER NOT NULL,
    admitted_ms     INTEGER NOT NULL,
    released_ms     INTEGER
);
CREATE INDEX admissions_open ON admissions (pool, released_ms, expires_ms);
CREATE INDEX admissions_deferral ON admissions (deferral_id, attempt);
"#;
