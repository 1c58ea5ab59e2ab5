//! The PostgreSQL store's ownership check: a schema whose tables deferral-host did not create
//! is refused, never migrated.

use super::backend;
use crate::store::StoreError;
use postgres::Transaction;

/// The comment on `deferral_schema_version` that marks a schema as a deferral-host store (the
/// PostgreSQL counterpart of SQLite's `application_id`).
pub const STORE_MARKER: &str = "deferral-host store";

/// Refuses (`foreign-store`) a schema whose tables this program did not create: tables named
/// like the store's without its version table, or a version table marked by someone else.
pub(super) fn check_ownership(tx: &mut Transaction) -> Result<(), StoreError> {
    let row = tx
        .query_one(
            "SELECT to_regclass('deferral_schema_version') IS NOT NULL, \
             obj_description(to_regclass('deferral_schema_version'), 'pg_class'), \
             (SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_class c \
              WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v') \
              AND c.relname IN ('deferrals', 'receipts', 'events', 'launch_processes'))",
            &[],
        )
        .map_err(backend)?;
    let (has_version, marker, tables): (bool, Option<String>, Option<String>) =
        (row.get(0), row.get(1), row.get(2));
    let foreign = |why: String| {
        Err(StoreError::Foreign(format!(
            "schema {why}; deferral-host leaves it as it is (use another database or search_path)"
        )))
    };
    match (has_version, marker.as_deref(), tables) {
        (false, _, Some(tables)) => foreign(format!(
            "has tables named like the store's ({tables}) that deferral-host did not create"
        )),
        (true, Some(other), _) if other != STORE_MARKER => foreign(format!(
            "has a deferral_schema_version table marked {other:?}"
        )),
        _ => Ok(()),
    }
}
