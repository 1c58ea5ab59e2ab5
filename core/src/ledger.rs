//! The shared rate ledger (`deferral-ledger-v1`): what every step and process has seen of the
//! rate state, merged so that no writer can make it forget or regress.
//!
//! This module is the pure merge logic; reading, locking and atomically replacing the file live
//! with the callers. The rules:
//!
//! * Per resource, the latest window wins: a larger `reset` replaces a smaller one, never the
//!   reverse. Within one window (same `reset`) `remaining` only goes down (and `used` only up),
//!   because requests are never refunded.
//! * A secondary-limit strike opens a hold of at least 60 s, or `retry-after` when GitHub gives
//!   a longer one. A strike while a hold is active, or within 10 minutes of its end, is
//!   consecutive: the back-off doubles (60 s, 120 s, 240 s, ...) up to 1 hour. A `retry-after`
//!   from GitHub is honoured in full even above that cap.
//! * Holds more than 10 minutes past their end are dropped by [`Ledger::prune`].
//! * The clock offset is the most recently observed one.
//!
//! [`Ledger::merge`] is a join: commutative, associative and idempotent, so two processes that
//! each wrote their own view lose nothing when the views are merged, in any order.

use crate::signals::{Classification, Classified, HeaderObservation, RateSnapshot, RateWindow};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The `version` string of the ledger document.
pub const LEDGER_VERSION: &str = "deferral-ledger-v1";
/// Shortest secondary hold, per GitHub's advice to wait at least a minute.
pub const MIN_HOLD_MS: u64 = 60_000;
/// Longest back-off the doubling reaches (a longer `retry-after` is still honoured).
pub const MAX_HOLD_MS: u64 = 3_600_000;
/// How long after a hold ends a new strike still counts as consecutive, and the hold is kept.
pub const STRIKE_GRACE_MS: u64 = 600_000;

/// The ledger document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// Always [`LEDGER_VERSION`].
    pub version: String,
    /// Latest window per resource (`core`, `graphql`, ...).
    #[serde(default)]
    pub resources: BTreeMap<String, ResourceEntry>,
    /// The current secondary-limit hold, if any.
    #[serde(default)]
    pub secondary: Option<SecondaryHold>,
    /// The latest observed server clock offset, if any.
    #[serde(default)]
    pub clock: Option<ClockOffset>,
}

/// One resource's latest window and when it was observed (host clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceEntry {
    pub limit: u64,
    pub remaining: u64,
    pub used: u64,
    /// End of the window, epoch seconds (server clock).
    pub reset: u64,
    pub observed_at_ms: u64,
}

/// A secondary-limit hold: no work until `until_ms` (host clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondaryHold {
    pub until_ms: u64,
    /// Consecutive strikes so far (1 for the first).
    pub strikes: u32,
    pub last_strike_ms: u64,
}

/// Server clock minus host clock, from a `date` header, and when it was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockOffset {
    pub offset_ms: i64,
    pub observed_at_ms: u64,
}

/// One thing seen about the rate state, to record into a ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Observation {
    /// A resource's window, from `/rate_limit`, headers or GraphQL `rateLimit`.
    Window {
        resource: String,
        window: RateWindow,
        observed_at_ms: u64,
    },
    /// A secondary-limit response at `at_ms` (host clock), with its `retry-after` if any.
    Strike {
        at_ms: u64,
        retry_after_s: Option<u64>,
    },
    /// A clock offset measured at `observed_at_ms`.
    Clock { offset_ms: i64, observed_at_ms: u64 },
}

impl Observation {
    /// Reads an observation from a JSON value. By reference, as plans and ledgers are read, so
    /// the wasm build holds one `Value` deserializer rather than two (an owned one costs ~10 KB).
    pub fn from_value(value: &serde_json::Value) -> Result<Observation, serde_json::Error> {
        Observation::deserialize(value)
    }
}

/// Why a ledger document was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerError {
    /// Not JSON, or not the documented shape.
    Malformed(String),
    /// `version` is not `deferral-ledger-v1`.
    UnsupportedVersion,
}

impl LedgerError {
    /// Stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            LedgerError::Malformed(_) => "malformed-ledger",
            LedgerError::UnsupportedVersion => "unsupported-ledger-version",
        }
    }
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Malformed(detail) => {
                write!(f, "the ledger is not a valid ledger document: {detail}")
            }
            LedgerError::UnsupportedVersion => {
                write!(f, "the ledger version is not {LEDGER_VERSION}")
            }
        }
    }
}

impl std::error::Error for LedgerError {}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::new()
    }
}

impl ResourceEntry {
    /// An entry from a window seen at `observed_at_ms`; a missing `used` is `limit - remaining`.
    pub fn from_window(window: &RateWindow, observed_at_ms: u64) -> Self {
        ResourceEntry {
            limit: window.limit,
            remaining: window.remaining,
            used: window
                .used
                .unwrap_or(window.limit.saturating_sub(window.remaining)),
            reset: window.reset,
            observed_at_ms,
        }
    }

    /// The window this entry holds.
    pub fn window(&self) -> RateWindow {
        RateWindow {
            limit: self.limit,
            remaining: self.remaining,
            used: Some(self.used),
            reset: self.reset,
        }
    }

    /// The join of two observations of a resource: the later window, or within one window the
    /// lowest `remaining` and highest `used`.
    pub fn merge(&self, other: &ResourceEntry) -> ResourceEntry {
        match self.reset.cmp(&other.reset) {
            std::cmp::Ordering::Greater => *self,
            std::cmp::Ordering::Less => *other,
            std::cmp::Ordering::Equal => ResourceEntry {
                limit: self.limit.max(other.limit),
                remaining: self.remaining.min(other.remaining),
                used: self.used.max(other.used),
                reset: self.reset,
                observed_at_ms: self.observed_at_ms.max(other.observed_at_ms),
            },
        }
    }
}

impl SecondaryHold {
    /// The join of two holds: the longest, with the most strikes (never forget a strike).
    pub fn merge(&self, other: &SecondaryHold) -> SecondaryHold {
        SecondaryHold {
            until_ms: self.until_ms.max(other.until_ms),
            strikes: self.strikes.max(other.strikes),
            last_strike_ms: self.last_strike_ms.max(other.last_strike_ms),
        }
    }

    /// `true` while the hold forbids work.
    pub fn active(&self, now_ms: u64) -> bool {
        now_ms < self.until_ms
    }
}

/// Back-off for the n-th consecutive strike: 60 s doubled n-1 times, at most 1 hour.
pub fn backoff_ms(strikes: u32) -> u64 {
    let doublings = strikes.saturating_sub(1).min(16);
    (MIN_HOLD_MS << doublings).min(MAX_HOLD_MS)
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Ledger {
            version: LEDGER_VERSION.to_string(),
            resources: BTreeMap::new(),
            secondary: None,
            clock: None,
        }
    }

    /// Reads a ledger document.
    pub fn from_json(text: &str) -> Result<Ledger, LedgerError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| LedgerError::Malformed(e.to_string()))?;
        Ledger::from_value(&value)
    }

    /// Reads a ledger document already parsed as JSON.
    pub fn from_value(value: &serde_json::Value) -> Result<Ledger, LedgerError> {
        if !value.is_object() {
            return Err(LedgerError::Malformed("expected an object".into()));
        }
        if value.get("version").and_then(|v| v.as_str()) != Some(LEDGER_VERSION) {
            return Err(LedgerError::UnsupportedVersion);
        }
        Ledger::deserialize(value).map_err(|e| LedgerError::Malformed(e.to_string()))
    }

    /// As JSON: the same value as `serde_json::to_value(self)`, written out so the wasm build does not carry
    /// serde's struct serializer into `Value` for this type (tests/to_value.rs checks they agree).
    pub fn to_value(&self) -> serde_json::Value {
        use crate::json::object;
        let mut resources = serde_json::Map::new();
        for (name, e) in &self.resources {
            let entry = object(vec![
                ("limit", e.limit.into()),
                ("remaining", e.remaining.into()),
                ("used", e.used.into()),
                ("reset", e.reset.into()),
                ("observed_at_ms", e.observed_at_ms.into()),
            ]);
            resources.insert(name.clone(), entry);
        }
        let secondary = self.secondary.map(|h| {
            object(vec![
                ("until_ms", h.until_ms.into()),
                ("strikes", h.strikes.into()),
                ("last_strike_ms", h.last_strike_ms.into()),
            ])
        });
        let clock = self.clock.map(|c| {
            object(vec![
                ("offset_ms", c.offset_ms.into()),
                ("observed_at_ms", c.observed_at_ms.into()),
            ])
        });
        object(vec![
            ("version", self.version.clone().into()),
            ("resources", resources.into()),
            ("secondary", secondary.into()),
            ("clock", clock.into()),
        ])
    }

    /// Compact JSON with sorted keys, so equal ledgers are byte-identical files.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&serde_json::to_value(self).expect("ledger serializes"))
            .expect("ledger serializes")
    }

    /// The join of two ledgers (commutative, associative, idempotent).
    pub fn merge(&self, other: &Ledger) -> Ledger {
        let mut resources = self.resources.clone();
        for (name, entry) in &other.resources {
            resources
                .entry(name.clone())
                .and_modify(|mine| *mine = mine.merge(entry))
                .or_insert(*entry);
        }
        let secondary = match (self.secondary, other.secondary) {
            (Some(a), Some(b)) => Some(a.merge(&b)),
            (a, b) => a.or(b),
        };
        // The most recent measurement wins; equal times break ties on the larger offset so the
        // result does not depend on argument order.
        let clock = match (self.clock, other.clock) {
            (Some(a), Some(b)) => Some(
                if (a.observed_at_ms, a.offset_ms) >= (b.observed_at_ms, b.offset_ms) {
                    a
                } else {
                    b
                },
            ),
            (a, b) => a.or(b),
        };
        Ledger {
            version: LEDGER_VERSION.to_string(),
            resources,
            secondary,
            clock,
        }
    }

    /// Records one observation.
    pub fn apply(&mut self, observation: &Observation) {
        match observation {
            Observation::Window {
                resource,
                window,
                observed_at_ms,
            } => {
                let entry = ResourceEntry::from_window(window, *observed_at_ms);
                self.resources
                    .entry(resource.clone())
                    .and_modify(|mine| *mine = mine.merge(&entry))
                    .or_insert(entry);
            }
            Observation::Strike {
                at_ms,
                retry_after_s,
            } => self.strike(*at_ms, *retry_after_s),
            Observation::Clock {
                offset_ms,
                observed_at_ms,
            } => {
                let mut other = Ledger::new();
                other.clock = Some(ClockOffset {
                    offset_ms: *offset_ms,
                    observed_at_ms: *observed_at_ms,
                });
                self.clock = self.merge(&other).clock;
            }
        }
    }

    /// Records a secondary-limit strike at `at_ms`. Strikes are expected in arrival order (the
    /// ledger is updated under a lock); one older than the last recorded strike can only
    /// lengthen the hold, never double it.
    pub fn strike(&mut self, at_ms: u64, retry_after_s: Option<u64>) {
        let retry_after_ms = retry_after_s.unwrap_or(0).saturating_mul(1000);
        let fresh = |strikes: u32| SecondaryHold {
            until_ms: at_ms.saturating_add(backoff_ms(strikes).max(retry_after_ms)),
            strikes,
            last_strike_ms: at_ms,
        };
        self.secondary = Some(match self.secondary {
            Some(hold) if at_ms < hold.last_strike_ms => hold.merge(&fresh(1)),
            Some(hold) if at_ms <= hold.until_ms.saturating_add(STRIKE_GRACE_MS) => {
                hold.merge(&fresh(hold.strikes.saturating_add(1)))
            }
            _ => fresh(1),
        });
    }

    /// Records every bucket of a `/rate_limit` snapshot seen at `observed_at_ms`.
    pub fn observe_snapshot(&mut self, snapshot: &RateSnapshot, observed_at_ms: u64) {
        for (resource, window) in &snapshot.resources {
            self.apply(&Observation::Window {
                resource: resource.clone(),
                window: *window,
                observed_at_ms,
            });
        }
    }

    /// Records what one response's headers say: its window and the clock offset.
    pub fn observe_headers(&mut self, headers: &HeaderObservation, local_now_ms: u64) {
        if let Some((resource, window)) = headers.window() {
            self.apply(&Observation::Window {
                resource,
                window,
                observed_at_ms: local_now_ms,
            });
        }
        if let Some(offset_ms) = headers.clock_offset_ms(local_now_ms) {
            self.apply(&Observation::Clock {
                offset_ms,
                observed_at_ms: local_now_ms,
            });
        }
    }

    /// Records a classified response: its window ([`Classified::window`]: a primary limit
    /// records its bucket spent until its reset, or for the default window when the answer
    /// gives none in the future), the clock offset, every bucket of a `/rate_limit` answer, and
    /// a strike when it hit a secondary limit. Answers the bucket and window it recorded.
    pub fn observe_response(
        &mut self,
        classified: &Classified,
        local_now_ms: u64,
    ) -> Option<(String, RateWindow)> {
        let headers = &classified.headers;
        if let Some(offset_ms) = headers.clock_offset_ms(local_now_ms) {
            self.apply(&Observation::Clock {
                offset_ms,
                observed_at_ms: local_now_ms,
            });
        }
        let offset = self.clock.map_or(0, |c| c.offset_ms);
        let server_now_ms = headers.date_ms.unwrap_or_else(|| {
            u64::try_from(i128::from(local_now_ms) + i128::from(offset)).unwrap_or(0)
        });
        let known = |resource: &str| self.resources.get(resource).map(|e| e.limit);
        let recorded = classified.window(server_now_ms / 1000, known);
        if let Some((resource, window)) = &recorded {
            self.apply(&Observation::Window {
                resource: resource.clone(),
                window: *window,
                observed_at_ms: local_now_ms,
            });
        }
        if let Some(snapshot) = &classified.snapshot {
            self.observe_snapshot(snapshot, local_now_ms);
        }
        if classified.kind == Classification::Secondary {
            self.strike(local_now_ms, headers.retry_after_s_at(local_now_ms));
        }
        recorded
    }

    /// The end of the active secondary hold, if one is active at `now_ms`.
    pub fn hold_until(&self, now_ms: u64) -> Option<u64> {
        self.secondary
            .filter(|hold| hold.active(now_ms))
            .map(|hold| hold.until_ms)
    }

    /// Drops a hold that ended more than [`STRIKE_GRACE_MS`] before `now_ms`.
    pub fn prune(&mut self, now_ms: u64) {
        if self
            .secondary
            .is_some_and(|hold| now_ms > hold.until_ms.saturating_add(STRIKE_GRACE_MS))
        {
            self.secondary = None;
        }
    }
}
