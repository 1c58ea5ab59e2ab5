//! The append-only event log, for every SQL backend.

use super::super::{EventRecord, StoreError};
use super::{args, query_all, rows, to_i64, SqlConn};
use deferral_core::lifecycle::State;

/// One event to append: a change of deferral `id` to `to` (from `from`), with the fence after.
pub struct NewEvent<'a> {
    pub id: &'a str,
    pub at_ms: u64,
    pub event: &'a str,
    pub from: Option<State>,
    pub to: State,
    pub cause: &'a str,
    pub fence: u64,
    pub reentries: u32,
    pub detail: Option<&'a str>,
}

/// Appends one event in the caller's transaction.
pub fn append(conn: &mut dyn SqlConn, event: &NewEvent) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO events (deferral_id, at_ms, event, from_state, to_state, cause, fence, reentries, detail) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        args![
            event.id,
            to_i64(event.at_ms),
            event.event,
            event.from.map(State::as_str),
            event.to.as_str(),
            event.cause,
            to_i64(event.fence),
            event.reentries,
            event.detail,
        ],
    )?;
    Ok(())
}

/// Every event of `id`, oldest first.
pub fn all(conn: &mut dyn SqlConn, id: &str) -> Result<Vec<EventRecord>, StoreError> {
    let sql = format!(
        "SELECT {} FROM events WHERE deferral_id = ?1 ORDER BY seq",
        rows::EVENT_COLUMNS
    );
    query_all(conn, &sql, args![id], rows::event)
}
