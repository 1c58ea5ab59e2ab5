//! What the store keeps, as the program reads and writes it: a deferral, its receipts and
//! events, a new deferral with its receipts, the process of an `exec:` launch.

use super::{AttemptStatus, RecordKeys};
use deferral_core::lifecycle::State;

/// One deferral as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deferral {
    pub id: String,
    pub state: State,
    /// Bumped by every compare-and-set that changes the state or the lease.
    pub fence: u64,
    /// Fresh-process launches made so far (the current attempt number while resumable).
    pub reentries: u32,
    pub max_reentries: u32,
    /// Reason of the current receipt.
    pub reason: String,
    pub resume_after_ms: u64,
    pub resume_by_ms: u64,
    /// Launch target, e.g. `exec:./resume.sh` or `workflow-dispatch:o/r/wf.yml@main`.
    pub launch: String,
    /// SHA-256 of the current wake-up handle; `None` once terminal (the wake-up is invalid).
    pub wakeup_digest: Option<String>,
    /// SHA-256 of the cancellation handle, fixed for the deferral's whole life.
    pub cancellation_digest: String,
    pub lease_owner: Option<String>,
    pub lease_until_ms: Option<u64>,
    pub attempt_status: Option<AttemptStatus>,
    /// Cause of the last change (`recorded`, `claimed`, `reentry-limit`, `expired`, ...).
    pub cause: String,
    /// Free text about the last change (an exit code, an HTTP status, ...).
    pub detail: Option<String>,
    /// Sequence number of the current receipt in the receipts table.
    pub receipt_seq: u64,
    pub created_ms: u64,
    pub updated_ms: u64,
}

/// A receipt to append. `kind` says where it came from: `submitted` (the text exactly as
/// received), `retained` (the host's retained form), `claimed` (the form given to a launch).
///
/// Made by [`NewReceipt::new`], which reads the receipt's digest once, in the caller's thread:
/// a group commit's writer indexes it without parsing the text again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReceipt {
    pub kind: String,
    pub text: String,
    /// The SHA-256 of `text`'s canonical JSON (`store::github::receipt_digest`; `None` for a text
    /// that is not JSON). Derived from `text`, so set only by [`NewReceipt::new`].
    pub(crate) digest: Option<String>,
}

impl NewReceipt {
    pub fn new(kind: impl Into<String>, text: impl Into<String>) -> NewReceipt {
        let text = text.into();
        NewReceipt {
            kind: kind.into(),
            digest: super::github::receipt_digest(&text),
            text,
        }
    }
}

/// A receipt as stored, with the SHA-256 of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredReceipt {
    pub seq: u64,
    pub deferral_id: String,
    pub kind: String,
    pub text: String,
    pub sha256: String,
    pub created_ms: u64,
}

/// One row of the append-only event log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    pub seq: u64,
    pub deferral_id: String,
    pub at_ms: u64,
    pub event: String,
    pub from_state: Option<State>,
    pub to_state: State,
    pub cause: String,
    /// The fence after the change.
    pub fence: u64,
    pub reentries: u32,
    pub detail: Option<String>,
}

/// The window a receipt opens: becomes the deferral's reason and times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeWindow {
    pub reason: String,
    pub resume_after_ms: u64,
    pub resume_by_ms: u64,
}

/// A new deferral, already moved `ready -> deferred` by the lifecycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDeferral {
    pub id: String,
    pub state: State,
    pub reentries: u32,
    pub max_reentries: u32,
    pub cause: String,
    pub launch: String,
    pub window: ResumeWindow,
    pub wakeup_digest: String,
    pub cancellation_digest: String,
    /// Appended in order; the last one becomes the current receipt. Must not be empty.
    pub receipts: Vec<NewReceipt>,
    pub at_ms: u64,
    /// Unique keys and links written with it (see [`super::github`]).
    pub keys: RecordKeys,
}

/// The process group an `exec:` launch runs in, recorded right after it starts so that a
/// ticker recovering the launch's lease can kill what is left of it before launching again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchProcess {
    /// The fence of the claim that started it (the attempt it belongs to).
    pub fence: u64,
    pub pgid: i64,
    /// Where it runs: the machine id and its boot id (a group on another boot is gone).
    pub machine: String,
    pub boot_id: String,
    /// The group leader's start time (clock ticks since boot), telling it from a later
    /// process that reused its id.
    pub leader_start: u64,
    pub recorded_ms: u64,
}
