//! The SQLite DDL of the GitHub loop's tables; the statements are shared (see
//! `store::sql::github`).

/// The migration that adds the loop's tables.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE receipt_keys (
    digest      TEXT PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id)
);
CREATE INDEX receipt_keys_deferral ON receipt_keys (deferral_id);
CREATE TABLE artifacts (
    artifact_id INTEGER PRIMARY KEY,
    deferral_id TEXT NOT NULL REFERENCES deferrals (id),
    repo        TEXT NOT NULL,
    run_id      INTEGER
);
CREATE TABLE runs (
    deferral_id   TEXT NOT NULL REFERENCES deferrals (id),
    attempt       INTEGER NOT NULL,
    run_id        INTEGER,
    html_url      TEXT,
    workflow      TEXT NOT NULL,
    dispatched_ms INTEGER NOT NULL,
    PRIMARY KEY (deferral_id, attempt)
);
CREATE INDEX runs_run ON runs (run_id);
CREATE TABLE links (
    successor_id   TEXT PRIMARY KEY REFERENCES deferrals (id),
    predecessor_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    chain          INTEGER NOT NULL
);
CREATE TABLE http_cache (
    key        TEXT PRIMARY KEY,
    etag       TEXT NOT NULL,
    body       TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE TABLE artifact_names (
    deferral_id TEXT PRIMARY KEY REFERENCES deferrals (id),
    name        TEXT NOT NULL
);
CREATE INDEX deferrals_attempt ON deferrals (state, attempt_status);
"#;

/// The migration that keeps a run's API URL beside its page (`html_url` already held the page,
/// so older rows keep it there and have no `run_url`).
pub(super) const RUN_URLS_MIGRATION: &str = "ALTER TABLE runs ADD COLUMN run_url TEXT;";
