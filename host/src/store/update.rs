//! The compare-and-set a caller asks for ([`Update`]) and the row it writes, worked out once
//! for every backend.

use super::{AttemptStatus, Deferral, NewReceipt, ResumeWindow, StoreError};
use deferral_core::lifecycle::State;

/// A lease held by a launcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub owner: String,
    pub until_ms: u64,
}

/// How an update treats an optional column: leave it, clear it, or set it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Change<T> {
    #[default]
    Keep,
    Clear,
    Set(T),
}

impl<T: Clone> Change<T> {
    /// The value after applying this change to `current`.
    pub fn apply(&self, current: Option<T>) -> Option<T> {
        match self {
            Change::Keep => current,
            Change::Clear => None,
            Change::Set(value) => Some(value.clone()),
        }
    }
}

/// A conditional write: applied only if the row still has `expect_state` and `expect_fence`.
/// Callers build it from the lifecycle's `transition` (see `lifecycle::change`), never by hand-picking
/// a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    pub expect_state: State,
    pub expect_fence: u64,
    pub state: State,
    pub reentries: u32,
    /// Event name written to the log (`claim`, `defer`, `dispatched`, ...).
    pub event: String,
    pub cause: String,
    pub detail: Option<String>,
    /// Bump the fence (every state change and every lease change does).
    pub bump_fence: bool,
    pub lease: Change<Lease>,
    pub wakeup_digest: Change<String>,
    pub attempt_status: Change<AttemptStatus>,
    /// Receipts to append; the last one becomes current.
    pub receipts: Vec<NewReceipt>,
    /// The new receipt's window, when `receipts` holds a new current receipt.
    pub window: Option<ResumeWindow>,
    pub at_ms: u64,
}

/// The row a compare-and-set writes, worked out once for both backends from the row read
/// under the lock and the [`Update`] asked for; the backends keep only the SQL around it.
#[derive(Debug)]
pub(crate) struct NextRow {
    pub fence: u64,
    pub lease: Option<Lease>,
    pub wakeup_digest: Option<String>,
    pub attempt_status: Option<AttemptStatus>,
    pub reason: String,
    pub resume_after_ms: u64,
    pub resume_by_ms: u64,
}

impl Update {
    /// `Conflict` unless `current` still has the expected state and fence; else the new row
    /// (the receipt sequence aside: a backend appends receipts itself).
    pub(crate) fn next_row(&self, id: &str, current: &Deferral) -> Result<NextRow, StoreError> {
        if current.state != self.expect_state || current.fence != self.expect_fence {
            return Err(StoreError::Conflict {
                id: id.to_string(),
                expected_state: self.expect_state,
                expected_fence: self.expect_fence,
            });
        }
        let lease = current.lease_owner.clone().map(|owner| Lease {
            owner,
            until_ms: current.lease_until_ms.unwrap_or(0),
        });
        let (reason, resume_after_ms, resume_by_ms) = match &self.window {
            Some(w) => (w.reason.clone(), w.resume_after_ms, w.resume_by_ms),
            None => (
                current.reason.clone(),
                current.resume_after_ms,
                current.resume_by_ms,
            ),
        };
        Ok(NextRow {
            fence: current.fence + u64::from(self.bump_fence),
            lease: self.lease.apply(lease),
            wakeup_digest: self.wakeup_digest.apply(current.wakeup_digest.clone()),
            attempt_status: self.attempt_status.apply(current.attempt_status),
            reason,
            resume_after_ms,
            resume_by_ms,
        })
    }
}
