//! The PostgreSQL DDL of the pools tables; the statements are shared (see `store::sql::pools`).

/// Migration 5: pools, costs, admissions, observations.
pub(super) const MIGRATION: &str = r#"
ALTER TABLE deferrals ADD COLUMN pool TEXT NOT NULL DEFAULT 'default';
ALTER TABLE deferrals ADD COLUMN rest_cost BIGINT;
ALTER TABLE deferrals ADD COLUMN graphql_cost BIGINT;
ALTER TABLE deferrals ADD COLUMN content_cost BIGINT;
-- A pool's due deferrals, earliest first then by id: a range scan that stops at the limit.
CREATE INDEX deferrals_pool_due ON deferrals (state, pool, resume_after_ms, id);
CREATE TABLE pools (
    name                TEXT PRIMARY KEY,
    version             BIGINT NOT NULL,
    rest_limit          BIGINT,
    rest_remaining      BIGINT,
    rest_reserve        BIGINT,
    rest_reset_ms       BIGINT,
    rest_observed_ms    BIGINT,
    rest_source         TEXT,
    graphql_limit       BIGINT,
    graphql_remaining   BIGINT,
    graphql_reserve     BIGINT,
    graphql_reset_ms    BIGINT,
    graphql_observed_ms BIGINT,
    graphql_source      TEXT,
    hold_until_ms       BIGINT,
    hold_reason         TEXT,
    updated_ms          BIGINT NOT NULL
);
INSERT INTO pools (name, version, updated_ms) VALUES ('default', 1, 0);
CREATE TABLE pool_observations (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pool           TEXT NOT NULL,
    deferral_id    TEXT,
    resource       TEXT NOT NULL,
    reported_limit BIGINT NOT NULL,
    remaining      BIGINT NOT NULL,
    reserve        BIGINT NOT NULL,
    reset_ms       BIGINT NOT NULL,
    observed_ms    BIGINT NOT NULL,
    source         TEXT NOT NULL
);
CREATE INDEX pool_observations_deferral ON pool_observations (deferral_id, seq);
CREATE TRIGGER pool_observations_no_update BEFORE UPDATE ON pool_observations FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TRIGGER pool_observations_no_delete BEFORE DELETE ON pool_observations FOR EACH ROW EXECUTE FUNCTION deferral_append_only();
CREATE TABLE admissions (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pool            TEXT NOT NULL,
    deferral_id     TEXT,
    attempt         BIGINT NOT NULL,
    rest_cost       BIGINT,
    graphql_cost    BIGINT,
    content_cost    BIGINT,
    window_reset_ms BIGINT NOT NULL,
    expires_ms      BIGINT NOT NULL,
    admitted_ms     BIGINT NOT NULL,
    released_ms     BIGINT
);
CREATE INDEX admissions_open ON admissions (pool, released_ms, expires_ms);
CREATE INDEX admissions_deferral ON admissions (deferral_id, attempt);
"#;
