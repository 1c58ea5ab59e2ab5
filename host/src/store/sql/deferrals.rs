//! The `deferrals` row: its columns and how a row reads back, for every SQL backend.

use super::super::{AttemptStatus, Deferral, StoreError};
use super::{query_all, Param, SqlConn, SqlRow};
use deferral_core::lifecycle::State;

/// The columns of a [`Deferral`], in the order [`read_deferral`] reads them.
pub const COLUMNS: &str = "id, state, fence, reentries, max_reentries, reason, resume_after_ms, resume_by_ms, launch, \
     wakeup_digest, cancellation_digest, lease_owner, lease_until_ms, attempt_status, cause, detail, receipt_seq, \
     created_ms, updated_ms";

fn bad_value(what: &str, text: &str) -> StoreError {
    StoreError::Corrupt(format!("unexpected {what} {text:?} in the store"))
}

/// One row of `SELECT {COLUMNS} FROM deferrals`.
pub fn read_deferral(row: &dyn SqlRow) -> Result<Deferral, StoreError> {
    let attempt_status = match row.opt_text(13)? {
        None => None,
        Some(text) => {
            Some(AttemptStatus::parse(&text).ok_or_else(|| bad_value("attempt status", &text))?)
        }
    };
    let state = row.text(1)?;
    Ok(Deferral {
        id: row.text(0)?,
        state: State::parse(&state).ok_or_else(|| bad_value("state", &state))?,
        fence: row.u64(2)?,
        reentries: row.u32(3)?,
        max_reentries: row.u32(4)?,
        reason: row.text(5)?,
        resume_after_ms: row.u64(6)?,
        resume_by_ms: row.u64(7)?,
        launch: row.text(8)?,
        wakeup_digest: row.opt_text(9)?,
        cancellation_digest: row.text(10)?,
        lease_owner: row.opt_text(11)?,
        lease_until_ms: row.opt_u64(12)?,
        attempt_status,
        cause: row.text(14)?,
        detail: row.opt_text(15)?,
        receipt_seq: row.u64(16)?,
        created_ms: row.u64(17)?,
        updated_ms: row.u64(18)?,
    })
}

/// `SELECT {COLUMNS} FROM deferrals {tail}`: the rows the tail (`WHERE ... ORDER BY ...`) picks.
pub fn select(
    conn: &mut dyn SqlConn,
    tail: &str,
    args: &[Param],
) -> Result<Vec<Deferral>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM deferrals {tail}");
    query_all(conn, &sql, args, read_deferral)
}
