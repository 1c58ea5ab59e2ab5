//! The work rules (`store::rules`): the SQL each backend runs for `due`, `expirable` and
//! `stale_leases` and the Rust reading of the same rule pick the same rows, at every instant
//! around the rows' boundaries.

use super::{now, record_at, Backend, HOUR};
use deferral_host::lifecycle;
use deferral_host::store::rules::{self, Rule};
use deferral_host::store::{AttemptStatus, ListQuery, Store};

fn by_sql(store: &dyn Store, rule: &Rule, at: u64) -> Vec<String> {
    let rows = match rule.name {
        "due" => store.due(at, 1000),
        "expirable" => store.expirable(at, 1000),
        "stale lease" => store.stale_leases(at, 1000),
        other => panic!("a rule the check does not know: {other}"),
    }
    .unwrap();
    let mut ids: Vec<String> = rows.into_iter().map(|d| d.id).collect();
    ids.sort();
    ids
}

pub fn sql_and_rust_agree_on_each_work_rule(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let store = &*store;
    // Deferred rows: due now, due later, a short window.
    record_at(store, t, 0, HOUR, 2);
    record_at(store, t, 10 * 60_000, HOUR, 2);
    record_at(store, t, 0, 2000, 2);
    // Resumable rows: a lease inside the window, a lease that outlives it.
    for (by, lease) in [(HOUR, t + 5000), (3000, t + 5000)] {
        let d = record_at(store, t, 0, by, 2).deferral;
        lifecycle::claim::claim(store, &d, "w", lease, AttemptStatus::Launching, t).unwrap();
    }
    let all = store
        .list(&ListQuery {
            state: None,
            limit: None,
        })
        .unwrap();
    assert_eq!(all.len(), 5);
    let instants = [
        t.saturating_sub(1),
        t,
        t + 1999,
        t + 2000,
        t + 2001,
        t + 3000,
        t + 3001,
        t + 5000,
        t + 5001,
        t + 10 * 60_000 - 1,
        t + 10 * 60_000,
        t + HOUR,
        t + HOUR + 1,
        t + 2 * HOUR,
    ];
    let mut held = [0usize; 3];
    for (i, rule) in rules::ALL.iter().enumerate() {
        for &at in &instants {
            let mut by_rust: Vec<String> = all
                .iter()
                .filter(|d| (rule.holds)(d, at))
                .map(|d| d.id.clone())
                .collect();
            by_rust.sort();
            held[i] += by_rust.len();
            assert_eq!(
                by_sql(store, rule, at),
                by_rust,
                "the {} rule at now = t + {}: SQL and Rust disagree",
                rule.name,
                at.saturating_sub(t)
            );
        }
    }
    // The check bites: each rule picks some rows at some instant.
    assert!(held.iter().all(|&n| n > 0), "{held:?}");
}
