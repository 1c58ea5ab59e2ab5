//! What the store reads and writes of a pool: its row, a new deferral's tag, admissions, and
//! the compare-and-set that writes them.

use super::{Cost, Observation, Resource, WindowState};
use std::collections::BTreeMap;

/// A pool's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRow {
    pub name: String,
    /// Bumped by every write; 0 for a pool with no row yet.
    pub version: u64,
    /// The windows of the metered resources it has learned, by resource (in the wire's order).
    pub windows: BTreeMap<Resource, WindowState>,
    /// Windows of rate-limit buckets this program does not meter, by name, as stored (rows a
    /// newer host wrote): shown, kept as they are, never a failure.
    pub unmetered: Vec<(String, WindowState)>,
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
            windows: BTreeMap::new(),
            unmetered: Vec::new(),
            hold_until_ms: None,
            hold_reason: None,
            updated_ms: 0,
        }
    }

    pub fn window(&self, resource: Resource) -> Option<&WindowState> {
        self.windows.get(&resource)
    }

    pub fn window_mut(&mut self, resource: Resource) -> Option<&mut WindowState> {
        self.windows.get_mut(&resource)
    }

    /// This row at `now_ms`: every window whose reset plus `buffer_ms` has passed is replaced
    /// by the next one, opened with its assumed reset (see [`WindowState::rolled`]). Whether
    /// anything rolled is the answer: the caller writes the row when it did.
    pub fn roll(&mut self, now_ms: u64, buffer_ms: u64) -> bool {
        let mut rolled = false;
        for w in self.windows.values_mut() {
            if let Some(next) = w.rolled(now_ms, buffer_ms) {
                *w = next;
                rolled = true;
            }
        }
        rolled
    }

    /// This row after the observations (see [`WindowState::merge`]); a pool that learns
    /// anything stops holding, so the next tick decides again.
    pub fn observe(&mut self, observations: &[Observation]) {
        self.observe_as(observations, WindowState::merge);
    }

    /// [`PoolRow::observe`] of the host's own reading of GitHub ([`WindowState::merge_own`]).
    pub fn observe_own(&mut self, observations: &[Observation]) {
        self.observe_as(observations, WindowState::merge_own);
    }

    fn observe_as(
        &mut self,
        observations: &[Observation],
        merge: fn(Option<&WindowState>, &Observation) -> WindowState,
    ) {
        for obs in observations {
            let next = merge(self.window(obs.resource), obs);
            self.windows.insert(obs.resource, next);
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
    /// `None`: the predecessor's pool for a successor, else [`super::DEFAULT_POOL`].
    pub pool: Option<String>,
    /// `None`: unknown (a bare receipt).
    pub cost: Option<Cost>,
    /// The rate state the gate saw, learned by the pool.
    pub seen: Vec<Observation>,
    /// Higher is admitted first within the pool (`None`: the predecessor's or retried
    /// deferral's, else 0).
    pub priority: Option<i64>,
    /// Admission takes turns between keys of one priority (`None`: the predecessor's or
    /// retried deferral's, else the launch target's default, see `pools::fair::default_key`).
    pub fairness_key: Option<String>,
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
    /// SHA-256 of the secret a runner admission was answered with (`None`: a tick's
    /// admission, or one made before secrets): its release must give the secret.
    pub secret_digest: Option<String>,
}

/// An admission to write with [`PoolWrite`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAdmission {
    pub deferral_id: Option<String>,
    pub attempt: u32,
    pub cost: Option<Cost>,
    pub window_reset_ms: u64,
    pub expires_ms: u64,
    /// See [`Admission::secret_digest`].
    pub secret_digest: Option<String>,
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

impl PoolWrite {
    /// `next` in place of `read` (the version read is the one expected), adding, releasing and
    /// observing nothing: set those fields over it.
    pub fn replacing(read: &PoolRow, next: PoolRow, at_ms: u64) -> PoolWrite {
        PoolWrite {
            expect_version: read.version,
            row: next,
            admit: Vec::new(),
            release: Vec::new(),
            observations: Vec::new(),
            at_ms,
        }
    }
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
    /// Higher is admitted first.
    pub priority: i64,
    /// Admission takes turns between the keys of one priority.
    pub key: String,
    /// Whose work it is ([`super::tenant_of`] its launch target): the tenants take turns, and a
    /// tenant's turn goes to its keys in turn.
    pub tenant: String,
    /// The end of its window (epoch ms): a forecast start after it will expire.
    pub resume_by_ms: u64,
}
