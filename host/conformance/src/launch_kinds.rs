//! The launch kind's part of the suite: the store records each target's kind (the text before
//! its first colon, `store::launch_kind`) and the due queries leave out the kinds asked, by
//! name, for any kind, one the program has or not.

use super::{distinct_handoff, now, Backend, HOUR};
use deferral_host::lifecycle;
use deferral_host::store::{launch_kind, NextDue};

/// The stored text and the kind the store must find in it.
const TARGETS: [(&str, &str); 5] = [
    ("exec:/bin/true", "exec"),
    ("workflow-dispatch:o/r/w.yml@main", "workflow-dispatch"),
    // A kind only a test knows, and texts an older version may have left.
    ("noop:a:b", "noop"),
    ("/bin/sh -c x", ""),
    (":x", ""),
];

pub fn due_queries_leave_out_the_kinds_asked_by_their_stored_name(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let mut ids = Vec::new();
    for (i, (text, kind)) in TARGETS.iter().enumerate() {
        assert_eq!(launch_kind(text), *kind, "the rule, for {text:?}");
        // The store takes the text as given (the entries parse it first).
        let receipt = distinct_handoff(t - 1000 * (5 - i as u64), 0, HOUR).to_json();
        let rec = lifecycle::insert::insert_new(&*store, receipt.as_bytes(), text, 2, t).unwrap();
        ids.push(rec.deferral.id);
    }
    let all_but = |kind: &str| -> Vec<&str> {
        let mut kinds: Vec<&str> = TARGETS.iter().map(|(_, k)| *k).collect();
        kinds.retain(|k| *k != kind);
        kinds
    };
    for (i, (text, kind)) in TARGETS.iter().enumerate() {
        let skip = all_but(kind);
        let candidates = store.pool_candidates("default", t, &skip, 100).unwrap();
        let found: Vec<&str> = candidates.iter().map(|c| c.id.as_str()).collect();
        let expected: Vec<&str> = TARGETS
            .iter()
            .zip(&ids)
            .filter(|((_, k), _)| k == kind)
            .map(|(_, id)| id.as_str())
            .collect();
        assert_eq!(
            found, expected,
            "pool candidates of kind {kind:?} ({text:?})"
        );
        assert!(expected.contains(&ids[i].as_str()));
    }
    let everything = store.pool_candidates("default", t, &[], 100).unwrap();
    assert_eq!(everything.len(), TARGETS.len(), "no kind left out");
    // Claims: each pass leaves out every kind but one, so it claims that kind's one deferral.
    for (text, kind) in TARGETS.iter().filter(|(_, k)| !k.is_empty()) {
        let skip = all_but(kind);
        let next = NextDue {
            now_ms: t,
            skip_kinds: &skip,
            exclude: &[],
        };
        let claimed = super::next_due(&*store, &next).expect("one of this kind is due");
        assert_eq!(claimed.deferral.launch, *text);
        assert!(
            super::next_due(&*store, &next).is_none(),
            "only one of {kind:?}"
        );
    }
    let rest = NextDue {
        now_ms: t,
        skip_kinds: &[],
        exclude: &[],
    };
    let claimed: Vec<String> = std::iter::from_fn(|| super::next_due(&*store, &rest))
        .map(|c| c.deferral.launch)
        .collect();
    assert_eq!(claimed, ["/bin/sh -c x", ":x"], "the two without a kind");
}
