//! The durable store: what a backend must keep, and the one way state changes are written.
//!
//! Every change of a deferral is a compare-and-set on `(state, fence)`: [`Store::update`]
//! writes only if the row still has the state and fence the caller read, so a late or
//! duplicate worker can never overwrite newer state. Receipts and events are append-only.
//! The trait holds no backend detail: the SQLite and the PostgreSQL backends implement it and
//! pass the same conformance suite (the dev-only crate `deferral-host-conformance`). [`StoreUrl`] picks one from `--store`.

mod existing;
pub mod forward;
pub mod github;
pub mod pools;
pub mod postgres;
pub mod postgres_tls;
mod private_file;
pub mod retry;
pub mod rules;
mod sql;
pub mod sqlite;

use deferral_core::digest::sha256_hex;
use deferral_core::lifecycle::State;
use std::fmt;
use std::path::PathBuf;

pub use self::github::{ArtifactRef, Link, LoopStore, RecordKeys, RunRecord};
pub use self::pools::PoolStore;
pub use self::postgres::PostgresStore;
pub use self::retry::{RetryLink, RetryStore};
pub use sqlite::{IntegrityCheck, SqliteStore};

/// Where the store lives: `sqlite:PATH` (or a bare path) or `postgres://...` / `postgresql://...`.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreUrl {
    Sqlite(PathBuf),
    /// A libpq-style URL, kept whole (it may hold a password).
    Postgres(String),
}

impl StoreUrl {
    /// Parses `--store`; the error is a sentence for the user.
    pub fn parse(url: &str) -> Result<StoreUrl, String> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(StoreUrl::Postgres(url.to_string()));
        }
        let path = if let Some(path) = url.strip_prefix("sqlite:") {
            path.strip_prefix("//").unwrap_or(path)
        } else if let Some((scheme, _)) = url.split_once("://") {
            return Err(format!(
                "unsupported store scheme {scheme:?}: use sqlite:PATH or postgres://USER@HOST:PORT/DB"
            ));
        } else {
            url
        };
        if path.is_empty() {
            return Err("the store path is empty".into());
        }
        Ok(StoreUrl::Sqlite(PathBuf::from(path)))
    }

    /// Opens (creating and migrating if needed) a new connection to the store.
    pub fn open(&self, check: IntegrityCheck) -> Result<Box<dyn Store + Send>, StoreError> {
        Ok(match self {
            StoreUrl::Sqlite(path) => Box::new(SqliteStore::open(path, check)?),
            StoreUrl::Postgres(url) => Box::new(PostgresStore::open(url, check)?),
        })
    }
}

/// Never prints a PostgreSQL URL: it may carry a password.
impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreUrl::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            StoreUrl::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReceipt {
    pub kind: String,
    pub text: String,
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
pub struct Window {
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
    pub window: Window,
    pub wakeup_digest: String,
    pub cancellation_digest: String,
    /// Appended in order; the last one becomes the current receipt. Must not be empty.
    pub receipts: Vec<NewReceipt>,
    pub at_ms: u64,
    /// Unique keys and links written with it (see [`github`]).
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
/// Callers build it from the lifecycle's `transition` (see `coordinator`), never by hand-picking
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
    pub window: Option<Window>,
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

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The row changed since it was read: another worker got there first.
    Conflict {
        id: String,
        expected_state: State,
        expected_fence: u64,
    },
    NotFound(String),
    /// A deferral with this id exists already.
    Duplicate(String),
    /// The store failed its integrity check.
    Corrupt(String),
    /// The database belongs to another application: refused, left untouched.
    Foreign(String),
    /// The store was written by a newer version of this program.
    SchemaTooNew {
        found: i64,
        supported: i64,
    },
    /// Anything the backend reports (I/O, locking, SQL).
    Backend(String),
    /// The store does not exist and this command does not create one (see `store::existing`).
    Missing(String),
}

impl StoreError {
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Conflict { .. } => "conflict",
            StoreError::NotFound(_) => "not-found",
            StoreError::Duplicate(_) => "duplicate",
            StoreError::Corrupt(_) => "store-corrupt",
            StoreError::Foreign(_) => "foreign-store",
            StoreError::SchemaTooNew { .. } => "schema-too-new",
            StoreError::Backend(_) => "store-error",
            StoreError::Missing(_) => "store-not-found",
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Conflict { id, expected_state, expected_fence } => write!(
                f,
                "deferral {id} is no longer {expected_state} at fence {expected_fence}: another worker changed it"
            ),
            StoreError::NotFound(id) => write!(f, "no deferral with id {id}"),
            StoreError::Duplicate(id) => write!(f, "a deferral with id {id} exists already"),
            StoreError::Corrupt(report) => write!(f, "the store failed its integrity check: {report}"),
            StoreError::Foreign(why) => write!(f, "not a deferral-host store: {why}"),
            StoreError::SchemaTooNew { found, supported } => write!(
                f,
                "the store has schema version {found}, newer than the {supported} this program knows"
            ),
            StoreError::Backend(message) => write!(f, "store error: {message}"),
            StoreError::Missing(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for StoreError {}

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
pub trait Store: LoopStore + RetryStore + PoolStore {
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
