//! The PostgreSQL side of [`RetryStore`] (see `store::retry`).

use super::super::retry::{RetryLink, RetryStore};
use super::super::{NewDeferral, StoreError};
use super::{backend, to_i64, PostgresStore};
use postgres::error::SqlState;
use postgres::Transaction;

/// The migration that adds the retry links.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE retries (
    retry_id    TEXT PRIMARY KEY REFERENCES deferrals (id),
    original_id TEXT NOT NULL UNIQUE REFERENCES deferrals (id),
    created_ms  BIGINT NOT NULL
);
"#;

/// Writes a retry's link in its insert transaction: `Duplicate` when the original was retried
/// already (and the insert rolls back).
pub(super) fn register(tx: &mut Transaction, new: &NewDeferral) -> Result<(), StoreError> {
    let Some(original) = &new.keys.retry_of else {
        return Ok(());
    };
    tx.execute(
        "INSERT INTO retries (retry_id, original_id, created_ms) VALUES ($1, $2, $3)",
        &[&new.id, original, &to_i64(new.at_ms)],
    )
    .map_err(|err| {
        if err.code() == Some(&SqlState::UNIQUE_VIOLATION) {
            StoreError::Duplicate(new.id.clone())
        } else {
            backend(err)
        }
    })?;
    Ok(())
}

impl RetryStore for PostgresStore {
    fn retry_link(&self, deferral_id: &str) -> Result<RetryLink, StoreError> {
        let mut client = self.client.borrow_mut();
        let mut one = |sql: &str| -> Result<Option<String>, StoreError> {
            Ok(client
                .query_opt(sql, &[&deferral_id])
                .map_err(backend)?
                .map(|r| r.get(0)))
        };
        Ok(RetryLink {
            retry_of: one("SELECT original_id FROM retries WHERE retry_id = $1")?,
            retried_by: one("SELECT retry_id FROM retries WHERE original_id = $1")?,
        })
    }
}
