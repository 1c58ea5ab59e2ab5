//! The SQLite side of [`RetryStore`] (see `store::retry`).

use super::super::retry::{RetryLink, RetryStore};
use super::super::{NewDeferral, StoreError};
use super::{backend, to_i64, SqliteStore};
use rusqlite::{params, Connection, OptionalExtension};

/// The migration that adds the retry links.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE retries (
    retry_id    TEXT PRIMARY KEY REFERENCES deferrals (id),
    original_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    created_ms  INTEGER NOT NULL
);
"#;

/// Writes a retry's link in its insert transaction: `Duplicate` when the original was retried
/// already (and the insert rolls back).
pub(super) fn register(conn: &Connection, new: &NewDeferral) -> Result<(), StoreError> {
    let Some(original) = &new.keys.retry_of else {
        return Ok(());
    };
    conn.execute(
        "INSERT INTO retries (retry_id, original_id, created_ms) VALUES (?1, ?2, ?3)",
        params![new.id, original, to_i64(new.at_ms)],
    )
    .map_err(|err| match &err {
        rusqlite::Error::SqliteFailure(e, _)
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            StoreError::Duplicate(new.id.clone())
        }
        _ => backend(err),
    })?;
    Ok(())
}

impl RetryStore for SqliteStore {
    fn retry_link(&self, deferral_id: &str) -> Result<RetryLink, StoreError> {
        let one = |sql: &str| -> Result<Option<String>, StoreError> {
            self.conn
                .query_row(sql, [deferral_id], |r| r.get(0))
                .optional()
                .map_err(backend)
        };
        Ok(RetryLink {
            retry_of: one("SELECT original_id FROM retries WHERE retry_id = ?1")?,
            retried_by: one("SELECT retry_id FROM retries WHERE original_id = ?1")?,
        })
    }
}
