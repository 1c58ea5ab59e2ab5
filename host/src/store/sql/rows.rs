//! How a stored row reads back as the store's types: a deferral, a receipt, an event, a
//! launch process. One reading for every SQL backend; a value the program never writes (an
//! unknown state, a `NULL` where none belongs) is [`StoreError::Corrupt`].

use super::super::{
    AttemptStatus, Deferral, EventRecord, LaunchProcess, StoreError, StoredReceipt,
};
use super::{query_all, Param, SqlConn, SqlRow};
use deferral_core::lifecycle::State;

/// The columns of a [`Deferral`], in the order [`deferral`] reads them.
pub const DEFERRAL_COLUMNS: &str = "id, state, fence, reentries, max_reentries, reason, resume_after_ms, resume_by_ms, launch, \
     wakeup_digest, cancellation_digest, lease_owner, lease_until_ms, attempt_status, cause, detail, receipt_seq, \
     created_ms, updated_ms";

/// The columns of a [`StoredReceipt`], in the order [`receipt`] reads them.
pub const RECEIPT_COLUMNS: &str = "seq, deferral_id, kind, receipt, sha256, created_ms";

/// The columns of an [`EventRecord`], in the order [`event`] reads them.
pub const EVENT_COLUMNS: &str =
    "seq, deferral_id, at_ms, event, from_state, to_state, cause, fence, reentries, detail";

/// The columns of a [`LaunchProcess`], in the order [`launch_process`] reads them.
pub const PROCESS_COLUMNS: &str = "fence, pgid, machine, boot_id, leader_start, recorded_ms";

/// `SELECT {DEFERRAL_COLUMNS} FROM deferrals {tail}`: the rows the tail (`WHERE ... ORDER BY
/// ...`) picks.
pub fn select(
    conn: &mut dyn SqlConn,
    tail: &str,
    args: &[Param],
) -> Result<Vec<Deferral>, StoreError> {
    let sql = format!("SELECT {DEFERRAL_COLUMNS} FROM deferrals {tail}");
    query_all(conn, &sql, args, deferral)
}

fn bad_value(what: &str, text: &str) -> StoreError {
    StoreError::Corrupt(format!("unexpected {what} {text:?} in the store"))
}

/// A lifecycle state read from column `at`.
pub fn state(row: &dyn SqlRow, at: usize) -> Result<State, StoreError> {
    let text = row.text(at)?;
    State::parse(&text).ok_or_else(|| bad_value("state", &text))
}

fn opt_state(row: &dyn SqlRow, at: usize) -> Result<Option<State>, StoreError> {
    match row.opt_text(at)? {
        None => Ok(None),
        Some(_) => state(row, at).map(Some),
    }
}

/// One row of `SELECT {DEFERRAL_COLUMNS} FROM deferrals`.
pub fn deferral(row: &dyn SqlRow) -> Result<Deferral, StoreError> {
    let attempt_status = match row.opt_text(13)? {
        None => None,
        Some(text) => {
            Some(AttemptStatus::parse(&text).ok_or_else(|| bad_value("attempt status", &text))?)
        }
    };
    Ok(Deferral {
        id: row.text(0)?,
        state: state(row, 1)?,
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

/// One row of `SELECT {RECEIPT_COLUMNS} FROM receipts`, not yet checked against its SHA-256
/// (see `store::verify_receipt`).
pub fn receipt(row: &dyn SqlRow) -> Result<StoredReceipt, StoreError> {
    Ok(StoredReceipt {
        seq: row.u64(0)?,
        deferral_id: row.text(1)?,
        kind: row.text(2)?,
        text: row.text(3)?,
        sha256: row.text(4)?,
        created_ms: row.u64(5)?,
    })
}

/// One row of `SELECT {EVENT_COLUMNS} FROM events`.
pub fn event(row: &dyn SqlRow) -> Result<EventRecord, StoreError> {
    Ok(EventRecord {
        seq: row.u64(0)?,
        deferral_id: row.text(1)?,
        at_ms: row.u64(2)?,
        event: row.text(3)?,
        from_state: opt_state(row, 4)?,
        to_state: state(row, 5)?,
        cause: row.text(6)?,
        fence: row.u64(7)?,
        reentries: row.u32(8)?,
        detail: row.opt_text(9)?,
    })
}

/// One row of `SELECT {PROCESS_COLUMNS} FROM launch_processes`.
pub fn launch_process(row: &dyn SqlRow) -> Result<LaunchProcess, StoreError> {
    Ok(LaunchProcess {
        fence: row.u64(0)?,
        pgid: row.i64(1)?,
        machine: row.text(2)?,
        boot_id: row.text(3)?,
        leader_start: row.u64(4)?,
        recorded_ms: row.u64(5)?,
    })
}
