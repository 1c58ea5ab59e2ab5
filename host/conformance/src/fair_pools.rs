//! Fair pools in the store (issue 28): a deferral's priority and fairness key are stored with
//! it, read back by the pool's candidates (highest priority first, then earliest) and its
//! backlog (due or not), and a successor inherits them unless recorded with its own.

use super::{distinct_handoff, now, Backend, HOUR};
use deferral_host::lifecycle;
use deferral_host::lifecycle::insert::Insertion;
use deferral_host::store::pools::PoolTag;
use deferral_host::store::{RecordKeys, Store};

fn record(store: &dyn Store, after: u64, tag: PoolTag, predecessor: Option<&str>) -> String {
    let text = distinct_handoff(now(), after, HOUR).to_json();
    let keys = RecordKeys {
        pool: Some(tag),
        predecessor: predecessor.map(str::to_string),
        ..RecordKeys::default()
    };
    match lifecycle::insert::insert_once(
        store,
        text.as_bytes(),
        "exec:/usr/bin/sync --all",
        2,
        keys,
        now(),
    )
    .unwrap()
    {
        Insertion::New(rec) => rec.deferral.id,
        Insertion::Existing(d) => panic!("recorded twice: {}", d.id),
    }
}

pub fn priority_and_fairness_key_are_stored_ordered_and_inherited(backend: &dyn Backend) {
    let store = backend.connect();
    let tag = |priority: Option<i64>, key: Option<&str>| PoolTag {
        pool: Some("fair".into()),
        priority,
        fairness_key: key.map(str::to_string),
        ..PoolTag::default()
    };
    let plain = record(&*store, 0, tag(None, None), None);
    let urgent = record(&*store, 0, tag(Some(2), Some("labeler")), None);
    let later = record(&*store, HOUR / 2, tag(Some(5), None), None);
    let heir = record(&*store, 0, PoolTag::default(), Some(&urgent));
    let due = store.pool_candidates("fair", now(), &[], 10).unwrap();
    let seen: Vec<(&str, i64, &str)> = due
        .iter()
        .map(|c| (c.id.as_str(), c.priority, c.key.as_str()))
        .collect();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(
        seen[2],
        (plain.as_str(), 0, "exec:/usr/bin/sync"),
        "{seen:?}"
    );
    assert!(
        seen[..2].contains(&(urgent.as_str(), 2, "labeler"))
            && seen[..2].contains(&(heir.as_str(), 2, "labeler")),
        "priority first; a successor keeps its predecessor's priority and key: {seen:?}"
    );
    let backlog = store.pool_backlog("fair", now(), 10).unwrap();
    assert_eq!(
        backlog.len(),
        4,
        "the backlog holds the one not due yet too"
    );
    assert_eq!(
        (backlog[0].id.as_str(), backlog[0].priority),
        (later.as_str(), 5)
    );
}
