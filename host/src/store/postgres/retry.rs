//! The PostgreSQL DDL of the retry links; the statements are shared (see `store::sql::retry`).

/// The migration that adds the retry links.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE retries (
    retry_id    TEXT PRIMARY KEY REFERENCES deferrals (id),
    original_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    created_ms  BIGINT NOT NULL
);
"#;
