//! The three work rules of `tick`, each written once in Rust and once in SQL, side by side:
//! which deferrals are due, which are expirable and which hold a stale lease at a time `now`.
//! The SQL fragment is the `WHERE` of the store's indexed query (`now` bound at `?1`); the
//! Rust function reads the same rule on a row already in hand (`tick ID...`). The store
//! conformance suite checks, on every backend, that the two pick the same rows.

use super::Deferral;
use deferral_core::lifecycle::State;

/// One rule: its name, its SQL `WHERE` fragment (`?1` is `now`) and its Rust reading.
#[derive(Clone, Copy)]
pub struct Rule {
    pub name: &'static str,
    pub sql: &'static str,
    pub holds: fn(&Deferral, u64) -> bool,
}

/// Deferred, and `now` inside its window `[resume_after, resume_by]`.
pub const DUE: Rule = Rule {
    name: "due",
    sql: "state = 'deferred' AND resume_after_ms <= ?1 AND resume_by_ms >= ?1",
    holds: is_due,
};

/// Live (deferred or resumable) past its `resume_by`, and no lease still running.
pub const EXPIRABLE: Rule = Rule {
    name: "expirable",
    sql: "state IN ('deferred', 'resumable') AND resume_by_ms < ?1 \
          AND (lease_until_ms IS NULL OR lease_until_ms < ?1)",
    holds: is_expirable,
};

/// Resumable with a lease that has ended (its ticker stopped), still inside `resume_by`.
pub const STALE_LEASE: Rule = Rule {
    name: "stale lease",
    sql: "state = 'resumable' AND lease_until_ms < ?1 AND resume_by_ms >= ?1",
    holds: is_stale_lease,
};

/// Every rule, for the conformance check.
pub const ALL: [Rule; 3] = [DUE, EXPIRABLE, STALE_LEASE];

pub fn is_due(d: &Deferral, now: u64) -> bool {
    d.state == State::Deferred && d.resume_after_ms <= now && now <= d.resume_by_ms
}

pub fn is_expirable(d: &Deferral, now: u64) -> bool {
    matches!(d.state, State::Deferred | State::Resumable)
        && d.resume_by_ms < now
        && d.lease_until_ms.is_none_or(|until| until < now)
}

pub fn is_stale_lease(d: &Deferral, now: u64) -> bool {
    d.state == State::Resumable
        && d.lease_until_ms.is_some_and(|until| until < now)
        && d.resume_by_ms >= now
}
