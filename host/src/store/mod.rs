//! The durable store: what a backend must keep, and the one way state changes are written.
//!
//! Every change of a deferral is a compare-and-set on `(state, fence)`: [`Store::update`]
//! writes only if the row still has the state and fence the caller read, so a late or
//! duplicate worker can never overwrite newer state. Receipts and events are append-only.
//! The trait holds no backend detail: the SQLite and the PostgreSQL backends implement it and
//! pass the same conformance suite (the dev-only crate `deferral-host-conformance`). [`StoreUrl`] picks one from `--store`.

mod error;
mod existing;
pub mod forward;
pub mod github;
pub mod pools;
pub mod postgres;
pub mod postgres_tls;
mod private_file;
mod records;
pub mod retention;
pub mod retry;
pub mod rules;
mod sql;
pub use self::sql::WORK_CHANNEL;
pub mod sqlite;
mod update;
mod url;

use deferral_core::digest::sha256_hex;
use deferral_core::lifecycle::State;

pub use self::error::StoreError;
pub use self::github::{
    ArtifactRef, CheckRunRef, CommitRef, Face, Link, LoopStore, RecordKeys, RunRecord,
};
pub use self::pools::PoolStore;
pub use self::postgres::PostgresStore;
pub use self::records::{
    Deferral, EventRecord, LaunchProcess, NewDeferral, NewReceipt, ResumeWindow, StoredReceipt,
};
pub use self::retention::RetentionStore;
pub use self::retry::{RetryLink, RetryStore};
pub use self::update::{Change, Lease, Update};
pub use self::url::StoreUrl;
pub use sqlite::{IntegrityCheck, SqliteStore};

/// What the current launch of a deferral is doing (only while it is `resumable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptStatus {
    /// An `exec:` process was claimed and is (or was) running.
    Launching,
    /// A `workflow-dispatch:` request is about to be or is being sent.
    Dispatching,
    /// GitHub accepted the dispatch (204); the run reports the outcome.
    Dispatched,
    /// The dispatch may or may not have reached GitHub; an operator must look it up.
    DispatchUnknown,
}

impl AttemptStatus {
    pub const ALL: [AttemptStatus; 4] = [
        AttemptStatus::Launching,
        AttemptStatus::Dispatching,
        AttemptStatus::Dispatched,
        AttemptStatus::DispatchUnknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AttemptStatus::Launching => "launching",
            AttemptStatus::Dispatching => "dispatching",
            AttemptStatus::Dispatched => "dispatched",
            AttemptStatus::DispatchUnknown => "dispatch-unknown",
        }
    }

    pub fn parse(text: &str) -> Option<AttemptStatus> {
        AttemptStatus::ALL.into_iter().find(|a| a.as_str() == text)
    }
}

/// The kind of a launch target, as the store records it in the `launch_kind` column: the text
/// before the first colon (`exec` for `exec:/bin/true`), empty when there is none. A launcher
/// kind is found by this name (see `crate::launch`), and queries filter on the column, never on
/// the target's text. The migration that added the column filled it by the same rule.
pub fn launch_kind(launch: &str) -> &str {
    launch.split_once(':').map_or("", |(kind, _)| kind)
}

/// Which due deferral [`Store::claim_next_due`] may pick.
#[derive(Debug, Clone, Default)]
pub struct NextDue<'a> {
    pub now_ms: u64,
    /// Leave targets of these kinds alone ([`launch_kind`]; e.g. `workflow-dispatch` when there
    /// is no token to send a dispatch with).
    pub skip_kinds: &'a [&'a str],
    /// Deferrals this pass already launched or gave up on.
    pub exclude: &'a [String],
}

/// Builds the claim of a picked deferral from the row and its current receipt (or the error
/// reading it gave, e.g. a receipt that fails its SHA-256 check).
pub type ClaimBuilder<'a> =
    dyn FnMut(&Deferral, Result<StoredReceipt, StoreError>) -> Result<Update, StoreError> + 'a;

/// The order in which the status page draws the rows of one state, so that it reads only the
/// rows it draws ([`Store::first_in_state`]; an index serves each order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageOrder {
    /// Earliest window first: `(resume_after_ms, id)` ascending (pending deferrals).
    WindowOpens,
    /// Latest change first: `(updated_ms, id)` descending (outcomes).
    LastChanged,
}

impl PageOrder {
    /// The `ORDER BY` clause, the same on both backends.
    pub(crate) fn sql(self) -> &'static str {
        match self {
            PageOrder::WindowOpens => "ORDER BY resume_after_ms, id",
            PageOrder::LastChanged => "ORDER BY updated_ms DESC, id DESC",
        }
    }
}

/// Which deferrals `list` returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub state: Option<State>,
    pub limit: Option<usize>,
}

/// Checks a receipt read from the store against the SHA-256 stored with it.
pub(crate) fn verify_receipt(receipt: StoredReceipt) -> Result<StoredReceipt, StoreError> {
    if sha256_hex(receipt.text.as_bytes()) == receipt.sha256 {
        Ok(receipt)
    } else {
        Err(StoreError::Corrupt(format!(
            "receipt #{} of deferral {} does not match its stored SHA-256: it was changed after it was written",
            receipt.seq, receipt.deferral_id
        )))
    }
}

/// A durable store of deferrals. Object-safe so callers and the conformance suite can take
/// `&dyn Store`.
pub trait Store: LoopStore + RetryStore + PoolStore + RetentionStore {
    /// Inserts a new deferral with its receipts and a first event, in one transaction.
    fn insert(&self, new: &NewDeferral) -> Result<Deferral, StoreError>;

    /// Inserts several deferrals in one transaction (group commit: one fsync for all), each as
    /// [`Store::insert`] would. One result per item, in order: an item that fails is rolled back
    /// alone and reports its error; if the transaction cannot commit, every item reports the
    /// error and none is stored. This default commits each item on its own.
    fn insert_batch(&self, news: &[NewDeferral]) -> Vec<Result<Deferral, StoreError>> {
        news.iter().map(|new| self.insert(new)).collect()
    }

    /// Applies `update` to deferral `id` iff it still has `(expect_state, expect_fence)`:
    /// the row, the appended receipts and one event are written in one transaction.
    /// Otherwise returns [`StoreError::Conflict`] and writes nothing.
    fn update(&self, id: &str, update: &Update) -> Result<Deferral, StoreError>;

    fn get(&self, id: &str) -> Result<Option<Deferral>, StoreError>;

    /// Deferrals ordered by creation (oldest first).
    fn list(&self, query: &ListQuery) -> Result<Vec<Deferral>, StoreError>;

    /// Every receipt of a deferral, oldest first.
    fn receipts(&self, id: &str) -> Result<Vec<StoredReceipt>, StoreError>;

    /// The current receipt of a deferral.
    fn current_receipt(&self, id: &str) -> Result<StoredReceipt, StoreError>;

    /// Every event of a deferral, oldest first.
    fn events(&self, id: &str) -> Result<Vec<EventRecord>, StoreError>;

    /// `deferred` rows with `resume_after_ms <= now_ms <= resume_by_ms`, earliest first.
    fn due(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError>;

    /// Claims the next due deferral atomically: picks the earliest one [`Store::due`] would
    /// list (and `next` allows) that no other transaction holds (PostgreSQL skips locked rows,
    /// SQLite's `BEGIN IMMEDIATE` serialises writers), and applies the update `claim` builds
    /// for it, in one transaction. So tickers never wait on each other for a row nor race on a
    /// compare-and-set they then lose. `None` when nothing is due.
    fn claim_next_due(
        &self,
        next: &NextDue,
        claim: &mut ClaimBuilder,
    ) -> Result<Option<Deferral>, StoreError>;

    /// The `deferred` row that becomes due next (`resume_after_ms > now_ms`, earliest), for
    /// `status` and `tick` to say when the next wake-up is.
    fn next_wakeup(&self, now_ms: u64) -> Result<Option<Deferral>, StoreError>;

    /// The earliest instant after `now_ms` at which one of `tick`'s work rules (due, stale
    /// lease, expirable; see [`rules`]) may pick a row it does not pick at `now_ms`, for
    /// `run` to sleep until. `None` when no row has such an instant.
    fn next_deadline(&self, now_ms: u64) -> Result<Option<u64>, StoreError>;

    /// `deferred` or `resumable` rows with `resume_by_ms < now_ms` and no live lease.
    fn expirable(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError>;

    /// `resumable` rows whose lease ended (`lease_until_ms < now_ms`) and not yet expirable.
    fn stale_leases(&self, now_ms: u64, limit: usize) -> Result<Vec<Deferral>, StoreError>;

    /// Records the process group of the current `exec:` launch of `id`, replacing any earlier
    /// one, iff the deferral is still `resumable` at `process.fence` (else a conflict).
    fn record_launch_process(&self, id: &str, process: &LaunchProcess) -> Result<(), StoreError>;

    /// The last recorded launch process of `id`, if any.
    fn launch_process(&self, id: &str) -> Result<Option<LaunchProcess>, StoreError>;

    /// At most `limit` deferrals in `state`, in `order`: what the status page draws, read
    /// without reading the rest of the store.
    fn first_in_state(
        &self,
        state: State,
        order: PageOrder,
        limit: usize,
    ) -> Result<Vec<Deferral>, StoreError>;

    /// Number of deferrals per state with any, exactly what `GROUP BY state` over every row
    /// gives (a backend may keep the counts as rows change rather than count on each call).
    fn count_by_state(&self) -> Result<Vec<(State, u64)>, StoreError>;

    /// Number of deferrals per state and cause, exactly what `GROUP BY state, cause` gives
    /// (kept or counted by the database), for the metrics gauges (`crate::metrics`).
    fn count_by_state_cause(&self) -> Result<Vec<(State, String, u64)>, StoreError>;

    /// Runs the backend's integrity check.
    fn check_integrity(&self) -> Result<(), StoreError>;
}
