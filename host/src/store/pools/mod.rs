//! What the store keeps about pools (migration "pools"): the host's own metadata beside the
//! receipts, never a field of one.
//!
//! * `deferrals.pool` and `deferral_costs`: the pool a deferral belongs to and its planned cost,
//!   one row per resource name (no row: unknown, a bare receipt; see `sql::cost_rows`);
//! * `pools`: one row per pool: the pool's hold (until when nothing more is admitted, and why)
//!   and a `version` that every write bumps: admission is a compare-and-set on it
//!   ([`PoolStore::write_pool`]);
//! * `pool_windows`: per pool, one row per resource name with its window ledger (see
//!   `window`); a row of a bucket this program does not meter is kept and shown, never used;
//! * `pool_observations`: every rate state reported to a pool, as reported (the evidence; a
//!   report the pool does not believe is kept here and nowhere else);
//! * `admissions`: what was admitted in a pool (until when it counts, its cost as rows of
//!   `admission_costs`) and when it was released.
//!
//! The types are in `window` (a resource's window and what is reported of it) and `rows` (what
//! the store reads and writes); this file has the names and the trait.

mod buckets;
mod keys;
mod rows;
mod window;

pub use buckets::{bucket, resource_of_bucket};
pub use keys::{default_key, tenant_of};

pub use rows::{Admission, Candidate, NewAdmission, PoolRow, PoolTag, PoolWrite, PoolWritten};
pub use window::{
    Cost, Observation, Resource, Sane, Window, WindowState, MAX_FIGURE, MAX_WINDOW_MS,
    MIN_WINDOW_MS, RESET_TOLERANCE_MS,
};

use super::StoreError;

/// A pool with nothing waiting, nothing admitted and no report for this long is left out of
/// listings (`status --pools`, `GET /v1/pools`, the page): a GitHub window.
pub const LISTED_IDLE_MS: u64 = 3_600_000;

/// The pool of a deferral recorded without one.
pub const DEFAULT_POOL: &str = "default";

/// The pools' part of a store. Every backend implements it; the conformance suite checks it.
pub trait PoolStore {
    /// A pool's row (`None`: no row yet).
    fn pool(&self, name: &str) -> Result<Option<PoolRow>, StoreError>;

    /// The pools worth showing at `now_ms`, by name: those with work (see
    /// [`PoolStore::pools_at_work`]), any deferral waiting, or a row written since `since_ms`
    /// (the 500 written last of those).
    /// A pool idle longer costs a listing nothing (an index range, not a scan of every pool).
    fn pools(&self, now_ms: u64, since_ms: u64) -> Result<Vec<PoolRow>, StoreError>;

    /// The names of the pools a scheduler pass must visit at `now_ms`: a due deferral, or an
    /// admission not released nor expired (to settle). Idle pools cost a pass nothing.
    fn pools_at_work(&self, now_ms: u64) -> Result<Vec<String>, StoreError>;

    /// The compare-and-set: `Ok(None)` when the row's version is no longer `expect_version`
    /// (another writer got there first; nothing was written), else the row as written and the
    /// admissions' `seq`s.
    fn write_pool(&self, write: &PoolWrite) -> Result<Option<PoolWritten>, StoreError>;

    /// One admission by its `seq`, released or expired or not (`None`: no such admission).
    fn admission(&self, seq: u64) -> Result<Option<Admission>, StoreError>;

    /// Admissions of `pool` not released and not expired at `now_ms`.
    fn open_admissions(&self, pool: &str, now_ms: u64) -> Result<Vec<Admission>, StoreError>;

    /// The open admission of one attempt of a deferral, if any.
    fn admission_of(
        &self,
        deferral_id: &str,
        attempt: u32,
        now_ms: u64,
    ) -> Result<Option<Admission>, StoreError>;

    /// Due `deferred` rows of `pool` (`resume_after_ms <= now_ms <= resume_by_ms`) without an
    /// open admission, highest priority first, then earliest first then by id, at most `limit` (an indexed range: the cost
    /// does not grow with the rows not due). Targets of the kinds in `skip_kinds` are left out
    /// (see [`super::launch_kind`]).
    fn pool_candidates(
        &self,
        pool: &str,
        now_ms: u64,
        skip_kinds: &[&str],
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError>;

    /// Every `deferred` row of `pool` not admitted yet and not past its window at `now_ms`, due
    /// or not, highest priority first, then earliest first then by id, at most `limit` (an
    /// index range): the backlog a forecast plays (see `pools::forecast`).
    fn pool_backlog(
        &self,
        pool: &str,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError>;

    /// A deferral's pool and planned cost (`None` cost: unknown).
    fn pool_of(&self, deferral_id: &str) -> Result<Option<(String, Option<Cost>)>, StoreError>;

    /// Sets a deferral's planned cost (a report taught it).
    fn set_cost(&self, deferral_id: &str, cost: &Cost) -> Result<(), StoreError>;

    /// The rate states reported with a deferral (its gate line's, its attempts'), oldest first.
    fn observations_of(&self, deferral_id: &str) -> Result<Vec<Observation>, StoreError>;
}
