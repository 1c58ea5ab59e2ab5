//! [`RetryStore`] over SQL, for both backends (see `store::retry`).

use super::super::retry::{RetryLink, RetryStore};
use super::super::{NewDeferral, StoreError};
use super::{args, query_opt, to_i64, SqlBackend, SqlConn};

/// Writes a retry's link in its insert transaction: `Duplicate` when the original was retried
/// already (and the insert rolls back).
pub fn register(conn: &mut dyn SqlConn, new: &NewDeferral) -> Result<(), StoreError> {
    let Some(original) = &new.keys.retry_of else {
        return Ok(());
    };
    conn.execute_unique(
        "INSERT INTO retries (retry_id, original_id, created_ms) VALUES (?1, ?2, ?3)",
        args![&new.id, original, to_i64(new.at_ms)],
    )?
    .ok_or_else(|| StoreError::Duplicate(new.id.clone()))?;
    Ok(())
}

impl<B: SqlBackend> RetryStore for B {
    fn retry_link(&self, deferral_id: &str) -> Result<RetryLink, StoreError> {
        self.sql_read(|conn| {
            let mut one = |sql: &str| query_opt(conn, sql, args![deferral_id], |r| r.text(0));
            Ok(RetryLink {
                retry_of: one("SELECT original_id FROM retries WHERE retry_id = ?1")?,
                retried_by: one("SELECT retry_id FROM retries WHERE original_id = ?1")?,
            })
        })
    }
}
