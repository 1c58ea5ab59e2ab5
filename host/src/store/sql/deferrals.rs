//! The writes of a deferral row, for every SQL backend: the insert of a new one with its
//! receipts, keys and first event, and the compare-and-set of [`Store::update`].
//!
//! [`Store::update`]: super::super::Store::update

use super::super::{AttemptStatus, Deferral, NewDeferral, StoreError, Update};
use super::{args, events, receipts, rows, to_i64, SqlConn};
use deferral_core::lifecycle::State;

/// The row of `id`, locked for this transaction where the dialect locks rows.
pub fn locked(conn: &mut dyn SqlConn, id: &str) -> Result<Deferral, StoreError> {
    let tail = format!("WHERE id = ?1{}", conn.dialect().for_update());
    rows::select(conn, &tail, args![id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(id.to_string()))
}

/// The row of `id` as this transaction sees it.
pub fn read(conn: &mut dyn SqlConn, id: &str) -> Result<Deferral, StoreError> {
    rows::select(conn, "WHERE id = ?1", args![id])?
        .pop()
        .ok_or_else(|| StoreError::NotFound(id.to_string()))
}

/// The rows of one new deferral (row, receipts, keys, first event) in the caller's
/// transaction. `Duplicate` when the id exists already: `ON CONFLICT` settles two inserts of
/// one id racing, where a check first would not.
pub fn insert(conn: &mut dyn SqlConn, new: &NewDeferral) -> Result<Deferral, StoreError> {
    if new.receipts.is_empty() {
        return Err(StoreError::Backend(
            "a deferral needs at least one receipt".into(),
        ));
    }
    // The row first (receipts reference it), with a placeholder receipt_seq fixed below.
    let inserted = conn.execute(
        "INSERT INTO deferrals (id, state, fence, reentries, max_reentries, reason, resume_after_ms, \
         resume_by_ms, launch, wakeup_digest, cancellation_digest, cause, receipt_seq, created_ms, updated_ms, \
         launch_kind) VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12, ?12, ?13) \
         ON CONFLICT (id) DO NOTHING",
        args![
            &new.id,
            new.state.as_str(),
            new.reentries,
            new.max_reentries,
            &new.window.reason,
            to_i64(new.window.resume_after_ms),
            to_i64(new.window.resume_by_ms),
            &new.launch,
            &new.wakeup_digest,
            &new.cancellation_digest,
            &new.cause,
            to_i64(new.at_ms),
            super::super::launch_kind(&new.launch),
        ],
    )?;
    if inserted == 0 {
        return Err(StoreError::Duplicate(new.id.clone()));
    }
    let seq = receipts::append(conn, &new.id, &new.receipts, new.at_ms)?;
    super::github::register_new(conn, new)?;
    super::retry::register(conn, new)?;
    super::pools::register_new(conn, new)?;
    conn.execute(
        "UPDATE deferrals SET receipt_seq = ?1 WHERE id = ?2",
        args![to_i64(seq), &new.id],
    )?;
    events::append(
        conn,
        &events::NewEvent {
            id: &new.id,
            at_ms: new.at_ms,
            event: "record",
            from: Some(State::Ready),
            to: new.state,
            cause: &new.cause,
            fence: 1,
            reentries: new.reentries,
            detail: None,
        },
    )?;
    super::notify_work(conn)?;
    read(conn, &new.id)
}

/// The compare-and-set's `UPDATE`. Its `WHERE` repeats the state and fence check, so the write
/// is safe even without the lock around it. Parameters, in order: state, fence, reentries,
/// reason, resume_after_ms, resume_by_ms, wakeup_digest, lease_owner, lease_until_ms,
/// attempt_status, cause, detail, receipt_seq, updated_ms, id, expected state, expected fence.
const COMPARE_AND_SET: &str = "UPDATE deferrals SET state = ?1, fence = ?2, reentries = ?3, reason = ?4, \
     resume_after_ms = ?5, resume_by_ms = ?6, wakeup_digest = ?7, lease_owner = ?8, lease_until_ms = ?9, \
     attempt_status = ?10, cause = ?11, detail = ?12, receipt_seq = ?13, updated_ms = ?14 \
     WHERE id = ?15 AND state = ?16 AND fence = ?17";

/// The compare-and-set of [`Store::update`] in the caller's transaction: the row (locked where
/// the dialect locks rows, so a concurrent writer of it waits and then reads what this one
/// wrote), the appended receipts and one event.
///
/// [`Store::update`]: super::super::Store::update
pub fn update(conn: &mut dyn SqlConn, id: &str, update: &Update) -> Result<Deferral, StoreError> {
    let current = locked(conn, id)?;
    let next = update.next_row(id, &current)?;
    let receipt_seq = if update.receipts.is_empty() {
        current.receipt_seq
    } else {
        super::github::register_receipts(conn, id, &update.receipts)?;
        receipts::append(conn, id, &update.receipts, update.at_ms)?
    };
    let changed = conn.execute(
        COMPARE_AND_SET,
        args![
            update.state.as_str(),
            to_i64(next.fence),
            update.reentries,
            &next.reason,
            to_i64(next.resume_after_ms),
            to_i64(next.resume_by_ms),
            &next.wakeup_digest,
            next.lease.as_ref().map(|l| l.owner.as_str()),
            next.lease.as_ref().map(|l| to_i64(l.until_ms)),
            next.attempt_status.map(AttemptStatus::as_str),
            &update.cause,
            &update.detail,
            to_i64(receipt_seq),
            to_i64(update.at_ms),
            id,
            update.expect_state.as_str(),
            to_i64(update.expect_fence),
        ],
    )?;
    if changed != 1 {
        return Err(StoreError::Conflict {
            id: id.to_string(),
            expected_state: update.expect_state,
            expected_fence: update.expect_fence,
        });
    }
    events::append(
        conn,
        &events::NewEvent {
            id,
            at_ms: update.at_ms,
            event: &update.event,
            from: Some(current.state),
            to: update.state,
            cause: &update.cause,
            fence: next.fence,
            reentries: update.reentries,
            detail: update.detail.as_deref(),
        },
    )?;
    if update.state == State::Deferred {
        // Due again, maybe sooner: the schedulers waiting on this store look again.
        super::notify_work(conn)?;
    }
    read(conn, id)
}
