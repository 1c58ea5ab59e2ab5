//! What the store keeps about pools (migration "pools"): the host's own metadata beside the
//! receipts, never a field of one.
//!
//! * `deferrals.pool` and `deferrals.{rest,graphql,content}_cost`: the pool a deferral belongs to
//!   and its planned cost per resource (all `NULL`: unknown, a bare receipt);
//! * `pools`: one row per pool, with per resource the last known window (limit, remaining,
//!   reserve, reset, when observed and from what), the pool's hold (until when nothing more is
//!   admitted, and why) and a `version` that every write bumps: admission is a compare-and-set
//!   on it ([`PoolStore::write_pool`]);
//! * `pool_observations`: every rate state reported to a pool, as reported (the evidence; a
//!   report the pool does not believe is kept here and nowhere else);
//! * `admissions`: what was admitted in a pool (cost per resource, until when it counts) and
//!   when it was released.

use super::StoreError;

/// The pool of a deferral recorded without one.
pub const DEFAULT_POOL: &str = "default";

/// A pool name: 1 to 64 of `[A-Za-z0-9._-]`.
pub fn pool_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A rate-limited resource a pool tracks a window of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Resource {
    Rest,
    Graphql,
}

impl Resource {
    pub const ALL: [Resource; 2] = [Resource::Rest, Resource::Graphql];

    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Rest => "rest",
            Resource::Graphql => "graphql",
        }
    }

    pub fn parse(text: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// A planned cost: REST requests, GraphQL points, content-creating requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub rest: u64,
    pub graphql: u64,
    pub content: u64,
}

impl Cost {
    pub fn of(&self, resource: Resource) -> u64 {
        match resource {
            Resource::Rest => self.rest,
            Resource::Graphql => self.graphql,
        }
    }
}

/// One rate state reported for a resource (a gate line, an attempt's last line, a run's
/// artifact): as reported, before the pool decides what to believe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub resource: Resource,
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    /// When the window resets (epoch ms).
    pub reset_ms: u64,
    pub observed_ms: u64,
    /// What reported it: `record ID`, `attempt ID#N`, `watch run N`, ...
    pub source: String,
    /// The deferral it came with, if any.
    pub deferral_id: Option<String>,
}

/// What a pool believes about one resource's window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowState {
    pub limit: u64,
    pub remaining: u64,
    pub reserve: u64,
    pub reset_ms: u64,
    pub observed_ms: u64,
    pub source: String,
}

/// GitHub's primary windows last an hour: a report of a reset further away than this after it
/// was read is believed only this far.
pub const MAX_WINDOW_MS: u64 = 3_600_000;

impl WindowState {
    /// The window after `obs`: a later window replaces an earlier one; within one window the
    /// lowest remaining wins (remaining only falls within a window, so the lowest report is the
    /// newest even when reports arrive out of order); an earlier window's report changes
    /// nothing. A report never raises the pool's limit (a larger one stays evidence only), nor
    /// remaining above the limit, nor a reset past [`MAX_WINDOW_MS`] after it was read.
    pub fn merge(current: Option<&WindowState>, obs: &Observation) -> WindowState {
        let reset_ms = obs
            .reset_ms
            .min(obs.observed_ms.saturating_add(MAX_WINDOW_MS));
        let Some(cur) = current else {
            return WindowState {
                limit: obs.limit,
                remaining: obs.remaining.min(obs.limit),
                reserve: obs.reserve,
                reset_ms,
                observed_ms: obs.observed_ms,
                source: obs.source.clone(),
            };
        };
        let limit = cur.limit.min(obs.limit);
        let mut next = WindowState {
            limit,
            remaining: cur.remaining.min(limit),
            reserve: obs.reserve,
            reset_ms: cur.reset_ms,
            observed_ms: cur.observed_ms.max(obs.observed_ms),
            source: cur.source.clone(),
        };
        if reset_ms > cur.reset_ms {
            next.remaining = obs.remaining.min(limit);
            next.reset_ms = reset_ms;
            next.source = obs.source.clone();
        } else if reset_ms == cur.reset_ms && obs.remaining < cur.remaining {
            next.remaining = obs.remaining.min(limit);
            next.source = obs.source.clone();
        }
        next
    }
}

/// A pool's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRow {
    pub name: String,
    /// Bumped by every write; 0 for a pool with no row yet.
    pub version: u64,
    pub rest: Option<WindowState>,
    pub graphql: Option<WindowState>,
    /// Nothing more is admitted before this (the window's reset plus buffer and jitter), unless
    /// a report changes the pool first.
    pub hold_until_ms: Option<u64>,
    /// Why the pool holds (`pool app-42: 4 of 24 fit the window that resets at ...`).
    pub hold_reason: Option<String>,
    pub updated_ms: u64,
}

impl PoolRow {
    pub fn empty(name: &str) -> PoolRow {
        PoolRow {
            name: name.to_string(),
            version: 0,
            rest: None,
            graphql: None,
            hold_until_ms: None,
            hold_reason: None,
            updated_ms: 0,
        }
    }

    pub fn window(&self, resource: Resource) -> Option<&WindowState> {
        match resource {
            Resource::Rest => self.rest.as_ref(),
            Resource::Graphql => self.graphql.as_ref(),
        }
    }

    pub fn window_mut(&mut self, resource: Resource) -> &mut Option<WindowState> {
        match resource {
            Resource::Rest => &mut self.rest,
            Resource::Graphql => &mut self.graphql,
        }
    }

    /// This row after the observations (see [`WindowState::merge`]); a pool that learns
    /// anything stops holding, so the next tick decides again.
    pub fn observe(&mut self, observations: &[Observation]) {
        for obs in observations {
            let next = WindowState::merge(self.window(obs.resource), obs);
            *self.window_mut(obs.resource) = Some(next);
        }
        if !observations.is_empty() {
            self.hold_until_ms = None;
            self.hold_reason = None;
        }
    }
}

/// What a new deferral brings to its pool, written with it in its insert transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolTag {
    /// `None`: the predecessor's pool for a successor, else [`DEFAULT_POOL`].
    pub pool: Option<String>,
    /// `None`: unknown (a bare receipt).
    pub cost: Option<Cost>,
    /// The rate state the gate saw, learned by the pool.
    pub seen: Vec<Observation>,
}

impl PoolTag {
    /// The observations as recorded with deferral `id`.
    pub fn seen_by(&self, id: &str) -> Vec<Observation> {
        self.seen
            .iter()
            .map(|o| Observation {
                deferral_id: Some(id.to_string()),
                source: format!("{} {id}", o.source),
                ..o.clone()
            })
            .collect()
    }
}

/// An admission: a cost counted against a pool's window until it is released or expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    pub seq: u64,
    pub pool: String,
    /// The deferral admitted (`None` for an admission not tied to a recorded deferral).
    pub deferral_id: Option<String>,
    /// The attempt it admits (the re-entry number its claim makes).
    pub attempt: u32,
    /// `None`: unknown cost, admitted alone (it holds the whole window until released).
    pub cost: Option<Cost>,
    /// The reset of the window it was admitted in (as the pool knew it).
    pub window_reset_ms: u64,
    /// It stops counting at this time (its window's reset, or its launch's lease end if later).
    pub expires_ms: u64,
    pub admitted_ms: u64,
    pub released_ms: Option<u64>,
}

/// An admission to write with [`PoolWrite`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAdmission {
    pub deferral_id: Option<String>,
    pub attempt: u32,
    pub cost: Option<Cost>,
    pub window_reset_ms: u64,
    pub expires_ms: u64,
}

/// A compare-and-set on a pool's row: written only if the row still has `expect_version`
/// (0: the row does not exist yet). `row` is the row to write (its `version` is ignored: the
/// store writes `expect_version + 1`); admissions are added and released in the same
/// transaction, and observations appended as evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolWrite {
    pub expect_version: u64,
    pub row: PoolRow,
    pub admit: Vec<NewAdmission>,
    /// Admissions (by `seq`) to release.
    pub release: Vec<u64>,
    pub observations: Vec<Observation>,
    pub at_ms: u64,
}

/// What a [`PoolWrite`] that won its compare-and-set wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolWritten {
    /// The row as written.
    pub row: PoolRow,
    /// The `seq` of each admission written, in the order of [`PoolWrite::admit`].
    pub admitted: Vec<u64>,
}

/// A due deferral of a pool, as admission sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub id: String,
    pub resume_after_ms: u64,
    /// The attempt its claim would make.
    pub attempt: u32,
    pub cost: Option<Cost>,
}

/// The pools' part of a store. Every backend implements it; the conformance suite checks it.
pub trait PoolStore {
    /// A pool's row (`None`: no row yet).
    fn pool(&self, name: &str) -> Result<Option<PoolRow>, StoreError>;

    /// Every pool, by name.
    fn pools(&self) -> Result<Vec<PoolRow>, StoreError>;

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
    /// open admission, earliest first then by id, at most `limit` (an indexed range: the cost
    /// does not grow with the rows not due). Targets of the kinds in `skip_kinds` are left out
    /// (see [`super::launch_kind`]).
    fn pool_candidates(
        &self,
        pool: &str,
        now_ms: u64,
        skip_kinds: &[&str],
        limit: usize,
    ) -> Result<Vec<Candidate>, StoreError>;

    /// A deferral's pool and planned cost (`None` cost: unknown).
    fn pool_of(&self, deferral_id: &str) -> Result<Option<(String, Option<Cost>)>, StoreError>;

    /// Sets a deferral's planned cost (a report taught it).
    fn set_cost(&self, deferral_id: &str, cost: &Cost) -> Result<(), StoreError>;

    /// The rate states reported with a deferral (its gate line's, its attempts'), oldest first.
    fn observations_of(&self, deferral_id: &str) -> Result<Vec<Observation>, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(limit: u64, remaining: u64, reset_ms: u64, source: &str) -> Observation {
        Observation {
            resource: Resource::Rest,
            limit,
            remaining,
            reserve: 5,
            reset_ms,
            observed_ms: 1_000,
            source: source.into(),
            deferral_id: None,
        }
    }

    #[test]
    fn a_later_window_wins_within_one_window_the_lowest_and_the_limit_never_rises() {
        let first = WindowState::merge(None, &obs(45, 30, 10_000, "a"));
        assert_eq!(
            (first.limit, first.remaining, first.reset_ms),
            (45, 30, 10_000)
        );
        let lower = WindowState::merge(Some(&first), &obs(45, 20, 10_000, "b"));
        assert_eq!((lower.remaining, lower.source.as_str()), (20, "b"));
        let late = WindowState::merge(Some(&lower), &obs(45, 40, 10_000, "c"));
        assert_eq!(
            late.remaining, 20,
            "a late report of the same window never raises it"
        );
        let older = WindowState::merge(Some(&lower), &obs(45, 45, 5_000, "d"));
        assert_eq!((older.remaining, older.reset_ms), (20, 10_000));
        let next = WindowState::merge(Some(&lower), &obs(45, 44, 20_000, "e"));
        assert_eq!((next.remaining, next.reset_ms), (44, 20_000));
        let bigger = WindowState::merge(Some(&next), &obs(1_000_000, 999_999, 30_000, "f"));
        assert_eq!(
            (bigger.limit, bigger.remaining),
            (45, 45),
            "a claimed larger window is not believed"
        );
        let far = WindowState::merge(Some(&bigger), &obs(45, 3, u64::MAX / 2, "g"));
        assert_eq!(
            far.reset_ms,
            1_000 + MAX_WINDOW_MS,
            "a reset far away is believed an hour away"
        );
    }

    #[test]
    fn pool_names() {
        assert!(pool_name_ok("app-42"));
        assert!(pool_name_ok("a.b_C-9"));
        assert!(pool_name_ok(&"x".repeat(64)));
        for bad in ["", "a b", "a/b", "é", &"x".repeat(65)] {
            assert!(!pool_name_ok(bad), "{bad:?}");
        }
    }
}
