//! The SQLite store's ownership check: a file that is not a deferral-host store is refused,
//! never migrated.

use super::{backend, APPLICATION_ID};
use crate::store::StoreError;
use rusqlite::Connection;
use std::path::Path;

/// Refuses (`foreign-store`) a database this program did not create: another application id,
/// or no id but tables other than a first-version store's.
pub(super) fn check_ownership(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    // The id and the tables come from one snapshot: another process's first migration commits
    // both at once, and reading them apart could see its tables without its id (dropped, so
    // rolled back: it only reads).
    let snapshot = conn.unchecked_transaction().map_err(backend)?;
    let id: i64 = snapshot
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(backend)?;
    if id == APPLICATION_ID {
        return Ok(());
    }
    let foreign = |why: String| {
        Err(StoreError::Foreign(format!(
            "{} {why}; deferral-host leaves it as it is (give another --store path)",
            path.display()
        )))
    };
    if id != 0 {
        return foreign(format!(
            "belongs to another application (application_id {id:#x})"
        ));
    }
    // No id: a new empty file, or a store written before the id was set (version 1).
    let tables: Vec<String> = snapshot
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .and_then(|mut stmt| stmt.query_map([], |r| r.get(0))?.collect())
        .map_err(backend)?;
    let ours = ["deferrals", "receipts", "events", "launch_processes"];
    if let Some(other) = tables.iter().find(|t| !ours.contains(&t.as_str())) {
        return foreign(format!(
            "is another application's database (it has a table {other:?})"
        ));
    }
    if !tables.is_empty()
        && !["deferrals", "receipts", "events"]
            .iter()
            .all(|t| tables.iter().any(|x| x == t))
    {
        return foreign("has only some of the store's tables".into());
    }
    Ok(())
}
