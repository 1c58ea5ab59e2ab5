//! `Store::next_deadline`: the instant `run` sleeps until. Checked against the work rules
//! themselves: between an instant and its next deadline no rule picks another row, and the
//! deadline is the first instant a row's window, lease or expiry says one may.

use super::{now, record_at, Backend, HOUR};
use deferral_core::lifecycle::State;
use deferral_host::lifecycle;
use deferral_host::ops;
use deferral_host::store::rules;
use deferral_host::store::{AttemptStatus, Deferral, ListQuery};

/// What the rules pick at `at`, row by row: one set of ids per rule.
fn picked(rows: &[Deferral], at: u64) -> Vec<Vec<&str>> {
    rules::ALL
        .iter()
        .map(|rule| {
            rows.iter()
                .filter(|d| (rule.holds)(d, at))
                .map(|d| d.id.as_str())
                .collect()
        })
        .collect()
}

/// The same deadline read from the rows in hand.
fn by_rust(rows: &[Deferral], at: u64) -> Option<u64> {
    let mut times = Vec::new();
    for d in rows {
        if d.state == State::Deferred && d.resume_after_ms > at {
            times.push(d.resume_after_ms);
        }
        if matches!(d.state, State::Deferred | State::Resumable) && d.resume_by_ms >= at {
            times.push(d.resume_by_ms + 1);
        }
        if let (State::Resumable, Some(lease)) = (d.state, d.lease_until_ms) {
            if lease >= at {
                times.push(lease + 1);
            }
        }
    }
    times.into_iter().min()
}

pub fn next_deadline_is_the_first_instant_a_rule_changes(backend: &dyn Backend) {
    let store = backend.connect();
    let store = &*store;
    let t = now();
    assert_eq!(store.next_deadline(t).unwrap(), None, "an empty store");
    record_at(store, t, 0, HOUR, 2);
    record_at(store, t, 10 * 60_000, HOUR, 2);
    record_at(store, t, 0, 2000, 2);
    for (by, lease) in [(HOUR, t + 5000), (3000, t + 5000)] {
        let d = record_at(store, t, 0, by, 2).deferral;
        lifecycle::claim::claim(store, &d, "w", lease, AttemptStatus::Launching, t).unwrap();
    }
    // A finished row has no deadline at all.
    let done = record_at(store, t, 1000, 4000, 2);
    ops::cancel::cancel(store, &done.deferral.id, &done.cancellation_handle, t).unwrap();
    let rows = store.list(&ListQuery::default()).unwrap();
    let mut at = t;
    let mut steps = 0;
    while let Some(next) = store.next_deadline(at).unwrap() {
        assert_eq!(
            Some(next),
            by_rust(&rows, at),
            "next_deadline(t + {})",
            at - t
        );
        assert!(next > at, "a deadline after the instant asked");
        assert_eq!(
            picked(&rows, at),
            picked(&rows, next - 1),
            "a rule picked another row before the deadline t + {}",
            next - t
        );
        at = next;
        steps += 1;
    }
    // Due at t + 10 min; expiries at t + 2001, t + 3001, t + 1 h + 1; lease ends at t + 5001.
    assert_eq!(steps, 5, "the deadlines walked");
}
