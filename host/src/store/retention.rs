//! What the store lets go of (`deferral-host prune`, and `run --retention`), and the trait a
//! backend implements for it. Every removal is a batch in one short transaction of its own.
//!
//! * An **ended** deferral (`complete`, `blocked`, `cancelled`; an expired one is cancelled)
//!   whose last change is older than the retention goes with every row that names it: its
//!   receipts, events, attempts' runs, process, receipt keys, artifact, links, cost, admissions
//!   and pool observations. It stays while a deferral linked to it (its predecessor or
//!   successor, the deferral it retries or its retry) has not ended or is newer than the
//!   retention, and while one of its admissions is still open, so no rule that reads a link, a
//!   chain's length or an admission loses what it reads. Receipts, events and pool
//!   observations are append-only everywhere else: the store's own triggers let a row go only
//!   once its deferral has ended (`sql::retention`).
//! * A runner's admission (no deferral) released or expired before the retention, and a pool
//!   observation of no deferral observed before it.
//! * **Bookkeeping** kept for GitHub: a webhook delivery id received more than
//!   [`BOOKKEEPING_MS`] ago (GitHub redelivers a delivery for 3 days, GitHub Enterprise Server
//!   for 7), and a cached answer (ETag) not refreshed for as long.

use super::StoreError;
use std::collections::BTreeMap;

/// The shortest retention: a receipt spans at most 24 hours from its issue (the core's
/// `MAX_WINDOW_MS`), which comes before its record, so a deferral pruned two days after its
/// last change cannot have a receipt that could be recorded again, with a day's margin for
/// clocks that disagree.
pub const MIN_RETENTION_MS: u64 = 2 * DAY_MS;

/// The retention `prune` applies without `--older-than`.
pub const DEFAULT_RETENTION_MS: u64 = 30 * DAY_MS;

/// How long webhook delivery ids and cached answers are kept: GitHub Enterprise Server's 7 days
/// of redelivery (3 on github.com) and a day's margin.
pub const BOOKKEEPING_MS: u64 = 8 * DAY_MS;

const DAY_MS: u64 = 86_400_000;

/// The instants before which rows may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Horizon {
    /// Now: an admission open now keeps its deferral.
    pub now_ms: u64,
    /// Ended deferrals last changed at or before this instant go (now less the retention).
    pub ended_before_ms: u64,
    /// Delivery ids and cached answers at or before this instant go (now less
    /// [`BOOKKEEPING_MS`]).
    pub bookkeeping_before_ms: u64,
}

impl Horizon {
    /// The horizon at `now_ms` for a retention of `retention_ms`.
    pub fn at(now_ms: u64, retention_ms: u64) -> Horizon {
        Horizon {
            now_ms,
            ended_before_ms: now_ms.saturating_sub(retention_ms),
            bookkeeping_before_ms: now_ms.saturating_sub(BOOKKEEPING_MS),
        }
    }
}

/// Rows removed (or, counted, that would be), per table; `deferrals` among them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removed {
    pub rows: BTreeMap<&'static str, u64>,
}

impl Removed {
    /// Rows of `table`.
    pub fn of(&self, table: &str) -> u64 {
        self.rows.get(table).copied().unwrap_or(0)
    }

    pub fn add(&mut self, table: &'static str, n: u64) {
        *self.rows.entry(table).or_insert(0) += n;
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Removed) {
        for (table, n) in &other.rows {
            self.add(table, *n);
        }
    }

    pub fn total(&self) -> u64 {
        self.rows.values().sum()
    }
}

/// The retention side of a store. Every backend implements it.
pub trait RetentionStore {
    /// What [`RetentionStore::prune_ended`] and [`RetentionStore::prune_bookkeeping`] would
    /// remove at `horizon`, counted in one read; nothing is removed.
    fn count_prunable(&self, horizon: &Horizon) -> Result<Removed, StoreError>;

    /// Removes at most `limit` ended deferrals that may go at `horizon`, with their rows, in
    /// one transaction. Fewer than `limit` deferrals removed: none is left.
    fn prune_ended(&self, horizon: &Horizon, limit: usize) -> Result<Removed, StoreError>;

    /// Removes at most `limit` rows of each kind that is not a deferral's (runners'
    /// admissions and pool observations, delivery ids, cached answers), in one transaction.
    /// Fewer than `limit` of every kind: none is left.
    fn prune_bookkeeping(&self, horizon: &Horizon, limit: usize) -> Result<Removed, StoreError>;
}
