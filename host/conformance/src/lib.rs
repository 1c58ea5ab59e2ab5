//! The store conformance suite: what every backend must do, written against the [`Store`]
//! trait only. A backend's test file runs it with [`crate::store_conformance_tests!`],
//! giving an expression that builds a fresh, empty [`Backend`]: the SQLite backend runs it in
//! `host/tests/store_conformance.rs`, the PostgreSQL backend in
//! `host/tests/store_conformance_postgres.rs`.
//!
//! Each check panics (fails the test) with a message saying what the backend got wrong.
//!
//! A dev-only crate: `deferral-host` itself never depends on it, so the store does not reach
//! back into the lifecycle rules built on it (as River keeps its driver suite apart).
//! [`github_loop`] holds the GitHub loop's part of the suite.

pub mod backlog;
mod deadline;
mod fair_pools;
pub mod fleet;
pub mod github_loop;
mod launch_kinds;
mod listing_race;
mod pools;
pub mod standin;
mod work_rules;

pub use deadline::next_deadline_is_the_first_instant_a_rule_changes;
pub use fair_pools::priority_and_fairness_key_are_stored_ordered_and_inherited;
pub use launch_kinds::due_queries_leave_out_the_kinds_asked_by_their_stored_name;
pub use listing_race::a_claim_is_not_hidden_by_a_concurrent_due_listing;
pub use pools::{
    a_pool_write_is_a_compare_and_set_on_its_version,
    concurrent_tickers_never_admit_more_than_fits_a_window,
};
pub use work_rules::sql_and_rust_agree_on_each_work_rule;

use deferral_core::lifecycle::{Event, State};
use deferral_core::receipt::{Bindings, Reason, Receipt};
use deferral_host::handle::{handle_digest, new_handle};
use deferral_host::lifecycle;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::ops;
use deferral_host::store::{
    AttemptStatus, Change, Deferral, Lease, ListQuery, PageOrder, Store, StoreError, Update,
};

/// A store under test: every `connect` returns a new connection to the same (initially empty) store.
pub trait Backend: Sync {
    fn connect(&self) -> Box<dyn Store + Send>;
}

/// Runs one check per test function: `store_conformance_tests!(make_backend())`.
#[macro_export]
macro_rules! store_conformance_tests {
    ($backend:expr) => {
        $crate::store_conformance_tests!(@each $backend;
            record_creates_a_deferred_row_with_receipts_and_event,
            duplicate_ids_are_refused,
            claim_then_complete,
            claim_then_block,
            defer_until_the_reentry_limit_blocks,
            cancel_from_every_live_state,
            expire_from_every_live_state,
            illegal_transitions_change_nothing,
            stale_fence_is_a_conflict_and_writes_nothing,
            concurrent_claims_have_exactly_one_winner,
            due_expirable_and_stale_queries_respect_their_bounds,
            sql_and_rust_agree_on_each_work_rule,
            next_deadline_is_the_first_instant_a_rule_changes,
            receipts_and_events_are_append_only,
            handles_are_never_stored_raw,
            terminal_states_invalidate_the_wakeup,
            note_keeps_state_and_checks_the_fence,
            launch_process_belongs_to_the_current_attempt,
            expiry_waits_for_a_live_lease,
            a_claim_is_refused_once_its_lease_ended,
            a_re_retained_receipt_keeps_the_cancellation_digest,
            resolve_settles_only_a_dispatch_of_unknown_result,
            claim_next_takes_the_earliest_due_deferral_once,
            concurrent_claim_next_claims_each_due_deferral_exactly_once,
            a_claim_is_not_hidden_by_a_concurrent_due_listing,
            a_launch_outcome_that_is_not_terminal_clears_the_attempt_and_the_lease,
            record_refuses_a_receipt_only_once_its_window_closed,
            list_and_counts,
            first_in_state_reads_one_state_in_the_page_order,
            next_wakeup_is_the_earliest_waiting_deferral,
            insert_batch_commits_each_item_or_reports_its_error,
            a_pool_write_is_a_compare_and_set_on_its_version,
            concurrent_tickers_never_admit_more_than_fits_a_window,
            priority_and_fairness_key_are_stored_ordered_and_inherited,
            due_queries_leave_out_the_kinds_asked_by_their_stored_name);
    };
    (@each $backend:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let backend = $backend;
                $crate::$name(&backend);
            }
        )*
    };
}

const HOUR: u64 = 3_600_000;

fn now() -> u64 {
    deferral_host::clock::now_ms()
}

fn digest(c: char) -> String {
    std::iter::repeat_n(c, 64).collect()
}

/// A handoff receipt like [`handoff`] that no other call in this process returns: its
/// `issued_at_ms` is moved back by a counter, resume-after and resume-by stay `now + after_ms`
/// and `now + by_ms`. Recording is idempotent by receipt, so helpers that record many receipts
/// within one millisecond need distinct ones.
pub fn distinct_handoff(now: u64, after_ms: u64, by_ms: u64) -> Receipt {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let earlier = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    handoff(now - earlier, after_ms + earlier, by_ms + earlier)
}

/// A handoff receipt whose window is `[now + after_ms, now + by_ms]`.
pub fn handoff(now: u64, after_ms: u64, by_ms: u64) -> Receipt {
    Receipt::handoff(
        Reason::RestReserve,
        now,
        now + after_ms,
        now + by_ms,
        Bindings {
            scope_digest: digest('a'),
            request_digest: digest('b'),
            plan_digest: None,
        },
        true,
    )
    .expect("test receipt is valid")
}

fn record_at(
    store: &dyn Store,
    now: u64,
    after_ms: u64,
    by_ms: u64,
    max: u32,
) -> lifecycle::insert::Inserted {
    // Recording is idempotent by receipt digest: a test that records several deferrals in one
    // millisecond gets receipts issued a millisecond apart (the window stays as asked).
    for earlier in 0..1000 {
        let mut receipt = handoff(now, after_ms, by_ms);
        receipt.issued_at_ms -= earlier;
        match lifecycle::insert::insert_new(
            store,
            receipt.to_json().as_bytes(),
            "exec:/bin/true",
            max,
            now,
        ) {
            Err(err) if err.code == "already-recorded" => continue,
            recorded => return recorded.expect("record succeeds"),
        }
    }
    panic!("1000 receipts recorded in one millisecond")
}

fn record_due(store: &dyn Store, max: u32) -> Deferral {
    let t = now();
    record_at(store, t, 0, HOUR, max).deferral
}

fn claim(store: &dyn Store, d: &Deferral) -> lifecycle::claim::Claimed {
    let t = now();
    lifecycle::claim::claim(store, d, "tester", t + 60_000, AttemptStatus::Launching, t)
        .expect("claim succeeds")
}

fn reload(store: &dyn Store, d: &Deferral) -> Deferral {
    store.get(&d.id).expect("get works").expect("row exists")
}

pub fn record_creates_a_deferred_row_with_receipts_and_event(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let rec = record_at(&*store, t, 1000, HOUR, 2);
    let d = reload(&*store, &rec.deferral);
    assert_eq!(d, rec.deferral, "get returns what insert returned");
    assert_eq!(
        (d.state, d.reentries, d.max_reentries, d.fence),
        (State::Deferred, 0, 2, 1)
    );
    assert_eq!((d.resume_after_ms, d.resume_by_ms), (t + 1000, t + HOUR));
    assert_eq!(d.reason, "rest-reserve");
    assert_eq!(d.cause, "recorded");
    let receipts = store.receipts(&d.id).unwrap();
    assert_eq!(receipts.len(), 2, "submitted and retained receipts");
    assert_eq!(receipts[0].kind, "submitted");
    assert_eq!(
        receipts[0].text,
        handoff(t, 1000, HOUR).to_json(),
        "the submitted text is kept exactly"
    );
    assert_eq!(receipts[1].text, rec.receipt.to_json());
    for r in &receipts {
        assert_eq!(
            r.sha256,
            deferral_core::digest::sha256_hex(r.text.as_bytes()),
            "sha256 of the stored text"
        );
    }
    assert_eq!(
        store.current_receipt(&d.id).unwrap(),
        receipts[1],
        "the retained receipt is current"
    );
    let events = store.events(&d.id).unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(
        (events[0].from_state, events[0].to_state),
        (Some(State::Ready), State::Deferred)
    );
    assert_eq!(
        (
            events[0].event.as_str(),
            events[0].cause.as_str(),
            events[0].fence
        ),
        ("record", "recorded", 1)
    );
    assert!(store.get("d-missing").unwrap().is_none());
    assert_eq!(
        store.current_receipt("d-missing").unwrap_err(),
        StoreError::NotFound("d-missing".into())
    );
}

pub fn duplicate_ids_are_refused(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let first = record_due(&*store, 2);
    let receipt = handoff(t, 0, HOUR)
        .retain(&digest('c'), &digest('d'))
        .unwrap();
    let new = deferral_host::store::NewDeferral {
        id: first.id.clone(),
        state: State::Deferred,
        reentries: 0,
        max_reentries: 2,
        cause: "recorded".into(),
        launch: "exec:/bin/true".into(),
        window: deferral_host::store::ResumeWindow {
            reason: "rest-reserve".into(),
            resume_after_ms: t,
            resume_by_ms: t + HOUR,
        },
        wakeup_digest: digest('c'),
        cancellation_digest: digest('d'),
        receipts: vec![deferral_host::store::NewReceipt::new(
            "retained",
            receipt.to_json(),
        )],
        at_ms: t,
        keys: Default::default(),
    };
    assert_eq!(
        store.insert(&new).unwrap_err(),
        StoreError::Duplicate(first.id.clone())
    );
    assert_eq!(
        reload(&*store, &first),
        first,
        "the existing row is untouched"
    );
    assert_eq!(
        store.receipts(&first.id).unwrap().len(),
        2,
        "no receipt added by the refused insert"
    );
}

pub fn claim_then_complete(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 2);
    let c = claim(&*store, &d);
    assert_eq!(
        (c.deferral.state, c.deferral.reentries, c.deferral.fence),
        (State::Resumable, 1, 2)
    );
    assert_eq!(c.deferral.lease_owner.as_deref(), Some("tester"));
    assert_eq!(c.deferral.attempt_status, Some(AttemptStatus::Launching));
    assert_eq!(
        c.deferral.wakeup_digest.as_deref(),
        Some(handle_digest(&c.wakeup_handle).as_str())
    );
    assert_eq!(
        store.current_receipt(&d.id).unwrap().text,
        c.receipt_json,
        "the claimed receipt is current"
    );
    let done = lifecycle::outcome::end_attempt(
        &*store,
        &c.deferral,
        Outcome::Complete { detail: None },
        now(),
    )
    .unwrap();
    assert_eq!(
        (done.state, done.cause.as_str(), done.fence),
        (State::Complete, "completed", 3)
    );
    assert_eq!(
        (done.lease_owner, done.lease_until_ms, done.attempt_status),
        (None, None, None)
    );
    let events: Vec<String> = store
        .events(&d.id)
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect();
    assert_eq!(events, ["record", "claim", "complete"]);
}

pub fn claim_then_block(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 2);
    let c = claim(&*store, &d);
    let done = lifecycle::outcome::end_attempt(
        &*store,
        &c.deferral,
        Outcome::Blocked {
            detail: Some("exit 5".into()),
        },
        now(),
    )
    .unwrap();
    assert_eq!(
        (done.state, done.cause.as_str(), done.detail.as_deref()),
        (State::Blocked, "blocked", Some("exit 5"))
    );
}

pub fn defer_until_the_reentry_limit_blocks(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 2);
    let c1 = claim(&*store, &d);
    let t = now();
    let next = handoff(t, 0, 2 * HOUR).to_json();
    let after1 = lifecycle::outcome::end_attempt(
        &*store,
        &c1.deferral,
        Outcome::Deferred {
            receipt: next.clone(),
            detail: None,
        },
        t,
    )
    .unwrap();
    assert_eq!(
        (after1.state, after1.reentries, after1.cause.as_str()),
        (State::Deferred, 1, "deferred")
    );
    assert_eq!(
        after1.resume_by_ms,
        t + 2 * HOUR,
        "the new receipt's window is the deferral's"
    );
    assert_eq!(
        after1.cancellation_digest, d.cancellation_digest,
        "the cancellation handle stays valid"
    );
    assert_ne!(
        after1.wakeup_digest, c1.deferral.wakeup_digest,
        "a fresh wake-up digest"
    );
    let current =
        deferral_core::receipt::validate_str(&store.current_receipt(&d.id).unwrap().text).unwrap();
    assert!(
        current.is_retained(),
        "the new receipt is kept in retained form"
    );
    let c2 = claim(&*store, &after1);
    assert_eq!(c2.deferral.reentries, 2);
    let after2 = lifecycle::outcome::end_attempt(
        &*store,
        &c2.deferral,
        Outcome::Deferred {
            receipt: next,
            detail: None,
        },
        now(),
    )
    .unwrap();
    assert_eq!(
        (after2.state, after2.cause.as_str()),
        (State::Blocked, "reentry-limit")
    );
    let err = lifecycle::claim::claim(
        &*store,
        &after2,
        "tester",
        now() + 1000,
        AttemptStatus::Launching,
        now(),
    )
    .unwrap_err();
    assert_eq!(err.code, "illegal-transition", "no launch after the limit");
}

pub fn cancel_from_every_live_state(backend: &dyn Backend) {
    let store = backend.connect();
    for live in [State::Deferred, State::Resumable] {
        let t = now();
        let rec = record_at(&*store, t, 0, HOUR, 2);
        if live == State::Resumable {
            claim(&*store, &rec.deferral);
        }
        let wrong =
            ops::cancel::cancel(&*store, &rec.deferral.id, &new_handle(), now()).unwrap_err();
        assert_eq!((wrong.code.as_str(), wrong.exit_code), ("wrong-handle", 5));
        assert_eq!(
            reload(&*store, &rec.deferral).state,
            live,
            "a wrong handle changes nothing"
        );
        let done = ops::cancel::cancel(&*store, &rec.deferral.id, &rec.cancellation_handle, now())
            .unwrap();
        assert_eq!(
            (done.state, done.cause.as_str()),
            (State::Cancelled, "operator")
        );
        let again = ops::cancel::cancel(&*store, &rec.deferral.id, &rec.cancellation_handle, now())
            .unwrap_err();
        assert_eq!(again.code, "illegal-transition");
    }
}

pub fn expire_from_every_live_state(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let d = record_at(&*store, t, 0, 50, 2).deferral;
    let r = record_at(&*store, t, 0, 50, 2).deferral;
    let r = lifecycle::claim::claim(&*store, &r, "tester", t + 10, AttemptStatus::Launching, t)
        .unwrap()
        .deferral;
    let later = t + 100;
    let expirable: Vec<String> = store
        .expirable(later, 10)
        .unwrap()
        .into_iter()
        .map(|x| x.id)
        .collect();
    assert!(
        expirable.contains(&d.id) && expirable.contains(&r.id),
        "both are expirable: {expirable:?}"
    );
    for x in [d, r] {
        let done = lifecycle::change::expire(&*store, &x, later).unwrap();
        assert_eq!(
            (done.state, done.cause.as_str()),
            (State::Cancelled, "expired")
        );
    }
    assert!(store.expirable(later, 10).unwrap().is_empty());
}

pub fn illegal_transitions_change_nothing(backend: &dyn Backend) {
    let store = backend.connect();
    // One deferral in each terminal state, plus live ones, then every event that is not allowed.
    let complete = {
        let c = claim(&*store, &record_due(&*store, 2));
        lifecycle::outcome::end_attempt(
            &*store,
            &c.deferral,
            Outcome::Complete { detail: None },
            now(),
        )
        .unwrap()
    };
    let blocked = {
        let c = claim(&*store, &record_due(&*store, 2));
        lifecycle::outcome::end_attempt(
            &*store,
            &c.deferral,
            Outcome::Blocked { detail: None },
            now(),
        )
        .unwrap()
    };
    let cancelled = lifecycle::change::expire(&*store, &record_due(&*store, 2), now()).unwrap();
    let deferred = record_due(&*store, 2);
    let resumable = claim(&*store, &record_due(&*store, 2)).deferral;
    let cases: Vec<(&Deferral, Vec<Event>)> = vec![
        (&complete, Event::ALL.to_vec()),
        (&blocked, Event::ALL.to_vec()),
        (&cancelled, Event::ALL.to_vec()),
        (
            &deferred,
            vec![Event::Record, Event::Complete, Event::Defer, Event::Block],
        ),
        (&resumable, vec![Event::Record, Event::Claim]),
    ];
    for (d, events) in cases {
        for event in events {
            let before_events = store.events(&d.id).unwrap().len();
            let err = lifecycle::change::apply(
                &*store,
                d,
                event,
                lifecycle::change::Effects::default(),
                now(),
            )
            .unwrap_err();
            assert_eq!(
                (err.code.as_str(), err.exit_code),
                ("illegal-transition", 5),
                "{event:?} from {}",
                d.state
            );
            assert_eq!(
                &reload(&*store, d),
                d,
                "{event:?} from {} changed the row",
                d.state
            );
            assert_eq!(
                store.events(&d.id).unwrap().len(),
                before_events,
                "no event written"
            );
        }
    }
}

pub fn stale_fence_is_a_conflict_and_writes_nothing(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 2);
    let c = claim(&*store, &d);
    let receipts_before = store.receipts(&d.id).unwrap();
    let events_before = store.events(&d.id).unwrap();
    // A late worker still holding the pre-claim copy.
    let err = lifecycle::claim::claim(
        &*store,
        &d,
        "late",
        now() + 1000,
        AttemptStatus::Launching,
        now(),
    )
    .unwrap_err();
    assert_eq!(err.code, "conflict");
    // Right state, stale fence: a worker whose lease was taken over.
    let mut stale = c.deferral.clone();
    stale.fence -= 1;
    let err =
        lifecycle::outcome::end_attempt(&*store, &stale, Outcome::Complete { detail: None }, now())
            .unwrap_err();
    assert_eq!(err.code, "conflict");
    // A raw update with a wrong expected state.
    let update = Update {
        expect_state: State::Deferred,
        expect_fence: c.deferral.fence,
        state: State::Complete,
        reentries: 1,
        event: "complete".into(),
        cause: "completed".into(),
        detail: None,
        bump_fence: true,
        lease: Change::Clear,
        wakeup_digest: Change::Keep,
        attempt_status: Change::Keep,
        receipts: vec![deferral_host::store::NewReceipt::new("x", "{}")],
        window: None,
        at_ms: now(),
    };
    assert!(matches!(
        store.update(&d.id, &update),
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(reload(&*store, &d), c.deferral, "nothing changed");
    assert_eq!(
        store.receipts(&d.id).unwrap(),
        receipts_before,
        "no receipt appended by a refused write"
    );
    assert_eq!(
        store.events(&d.id).unwrap(),
        events_before,
        "no event appended by a refused write"
    );
    assert!(matches!(
        store.update("d-missing", &update),
        Err(StoreError::NotFound(_))
    ));
}

pub fn concurrent_claims_have_exactly_one_winner(backend: &dyn Backend) {
    let d = record_due(&*backend.connect(), 2);
    let winners = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|i| {
                let d = d.clone();
                scope.spawn(move || {
                    let store = backend.connect();
                    let t = now();
                    match lifecycle::claim::claim(
                        &*store,
                        &d,
                        &format!("w{i}"),
                        t + 60_000,
                        AttemptStatus::Launching,
                        t,
                    ) {
                        Ok(_) => 1,
                        Err(err) => {
                            assert_eq!(err.code, "conflict", "a losing claim is a conflict");
                            0
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum::<u32>()
    });
    assert_eq!(winners, 1);
    let store = backend.connect();
    let after = reload(&*store, &d);
    assert_eq!(
        (after.state, after.reentries, after.fence),
        (State::Resumable, 1, 2)
    );
    assert_eq!(
        store.events(&d.id).unwrap().len(),
        2,
        "one record and one claim event"
    );
}

pub fn due_expirable_and_stale_queries_respect_their_bounds(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let due = record_at(&*store, t, 0, HOUR, 2).deferral;
    let later = record_at(&*store, t, 10 * 60_000, HOUR, 2).deferral;
    let leased = record_at(&*store, t, 0, HOUR, 2).deferral;
    let leased =
        lifecycle::claim::claim(&*store, &leased, "w", t + 5000, AttemptStatus::Launching, t)
            .unwrap()
            .deferral;
    let ids = |rows: Vec<Deferral>| rows.into_iter().map(|d| d.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.due(t, 100).unwrap()),
        [due.id.as_str()],
        "due: deferred and resume_after <= now"
    );
    assert_eq!(
        ids(store.due(t + 10 * 60_000, 100).unwrap()).len(),
        2,
        "due at resume_after exactly"
    );
    assert_eq!(
        ids(store.due(t + 10 * 60_000, 1).unwrap()),
        [due.id.as_str()],
        "earliest first, limit kept"
    );
    assert!(
        store.due(t + HOUR + 1, 100).unwrap().is_empty(),
        "past resume_by is not due"
    );
    assert!(
        store.stale_leases(t + 5000, 100).unwrap().is_empty(),
        "a lease is live until its end"
    );
    assert_eq!(
        ids(store.stale_leases(t + 5001, 100).unwrap()),
        [leased.id.as_str()]
    );
    assert!(
        store.expirable(t + HOUR, 100).unwrap().is_empty(),
        "expirable only after resume_by"
    );
    let mut expirable = ids(store.expirable(t + HOUR + 1, 100).unwrap());
    expirable.sort();
    let mut all = vec![due.id, later.id, leased.id];
    all.sort();
    assert_eq!(expirable, all);
}

pub fn receipts_and_events_are_append_only(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 3);
    let mut seen = store.receipts(&d.id).unwrap();
    let mut events = store.events(&d.id).unwrap();
    let mut current = d;
    for _ in 0..2 {
        let c = claim(&*store, &current);
        current = lifecycle::outcome::end_attempt(
            &*store,
            &c.deferral,
            Outcome::Deferred {
                receipt: handoff(now(), 0, HOUR).to_json(),
                detail: None,
            },
            now(),
        )
        .unwrap();
        let receipts = store.receipts(&current.id).unwrap();
        assert!(
            receipts.len() > seen.len(),
            "every change that brings a receipt appends it"
        );
        assert_eq!(
            &receipts[..seen.len()],
            &seen[..],
            "earlier receipts are unchanged"
        );
        seen = receipts;
        let now_events = store.events(&current.id).unwrap();
        assert_eq!(
            &now_events[..events.len()],
            &events[..],
            "earlier events are unchanged"
        );
        events = now_events;
    }
    let fences: Vec<u64> = events.iter().map(|e| e.fence).collect();
    assert!(
        fences.windows(2).all(|w| w[0] < w[1]),
        "fences grow with every event: {fences:?}"
    );
}

pub fn handles_are_never_stored_raw(backend: &dyn Backend) {
    let store = backend.connect();
    let rec = record_at(&*store, now(), 0, HOUR, 2);
    let c = claim(&*store, &rec.deferral);
    let everything = format!(
        "{:?}{:?}{:?}{:?}",
        store.get(&rec.deferral.id).unwrap(),
        store.receipts(&rec.deferral.id).unwrap(),
        store.events(&rec.deferral.id).unwrap(),
        store.list(&ListQuery::default()).unwrap()
    );
    for raw in [&rec.cancellation_handle, &c.wakeup_handle] {
        assert!(
            !everything.contains(raw.as_str()),
            "a raw handle was stored"
        );
    }
    assert!(
        everything.contains(&handle_digest(&rec.cancellation_handle)),
        "its digest is stored"
    );
    assert!(
        everything.contains(&handle_digest(&c.wakeup_handle)),
        "its digest is stored"
    );
}

pub fn terminal_states_invalidate_the_wakeup(backend: &dyn Backend) {
    let store = backend.connect();
    let c = claim(&*store, &record_due(&*store, 2));
    assert!(c.deferral.wakeup_digest.is_some());
    let done = lifecycle::outcome::end_attempt(
        &*store,
        &c.deferral,
        Outcome::Complete { detail: None },
        now(),
    )
    .unwrap();
    assert_eq!(done.wakeup_digest, None);
    let request = ops::report::ReportRequest {
        id: &done.id,
        attempt: 1,
        handle: &c.wakeup_handle,
        outcome: ops::report::Reported::Complete,
        receipt: None,
    };
    let err = ops::report::report(&*store, &request, now()).unwrap_err();
    assert_eq!(
        err.code, "illegal-transition",
        "the old wake-up proves nothing any more"
    );
}

pub fn note_keeps_state_and_checks_the_fence(backend: &dyn Backend) {
    let store = backend.connect();
    let c = claim(&*store, &record_due(&*store, 2));
    let effects = lifecycle::change::Effects {
        attempt_status: Change::Set(AttemptStatus::Dispatched),
        lease: Change::Set(Lease {
            owner: "w".into(),
            until_ms: c.deferral.resume_by_ms,
        }),
        detail: Some("HTTP 204".into()),
        ..Default::default()
    };
    let after = lifecycle::change::note(
        &*store,
        &c.deferral,
        "dispatched",
        "dispatched",
        effects.clone(),
        now(),
    )
    .unwrap();
    assert_eq!(
        (after.state, after.reentries, after.fence),
        (State::Resumable, 1, c.deferral.fence + 1)
    );
    assert_eq!(after.attempt_status, Some(AttemptStatus::Dispatched));
    assert_eq!(after.lease_until_ms, Some(c.deferral.resume_by_ms));
    let err = lifecycle::change::note(
        &*store,
        &c.deferral,
        "dispatched",
        "dispatched",
        effects,
        now(),
    )
    .unwrap_err();
    assert_eq!(err.code, "conflict", "a note with a stale fence is refused");
}

pub fn list_and_counts(backend: &dyn Backend) {
    let store = backend.connect();
    let a = record_due(&*store, 2);
    let b = record_due(&*store, 2);
    lifecycle::change::expire(&*store, &b, now()).unwrap();
    let all = store.list(&ListQuery::default()).unwrap();
    assert_eq!(all.len(), 2);
    let deferred = store
        .list(&ListQuery {
            state: Some(State::Deferred),
            limit: None,
        })
        .unwrap();
    assert_eq!(
        deferred.iter().map(|d| d.id.clone()).collect::<Vec<_>>(),
        [a.id]
    );
    assert_eq!(
        store
            .list(&ListQuery {
                state: None,
                limit: Some(1)
            })
            .unwrap()
            .len(),
        1
    );
    let mut counts = store.count_by_state().unwrap();
    counts.sort_by_key(|(s, _)| s.as_str());
    assert_eq!(counts, [(State::Cancelled, 1), (State::Deferred, 1)]);
    let mut by_cause = store.count_by_state_cause().unwrap();
    by_cause.sort_by_key(|(s, _, _)| s.as_str());
    assert_eq!(
        by_cause,
        [
            (State::Cancelled, "expired".to_string(), 1),
            (State::Deferred, "recorded".to_string(), 1)
        ]
    );
    store.check_integrity().unwrap();
}

/// The status page's bounded reads: rows of the one state asked for, at most `limit`, pending
/// windows earliest first and outcomes latest first, ties in `id` order (reversed for outcomes).
pub fn first_in_state_reads_one_state_in_the_page_order(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    // Windows opening at these offsets (two alike: the id decides), inserted out of order.
    for (id, after) in [("w3", 30), ("w1", 10), ("w4", 40), ("w2b", 20), ("w2a", 20)] {
        let mut new = new_deferral(id, t);
        new.window.resume_after_ms = t + after;
        store.insert(&new).unwrap();
    }
    // Outcomes at these times (two alike), written out of order.
    for (id, at) in [("o2", 2), ("o4", 4), ("o1", 1), ("o3a", 3), ("o3b", 3)] {
        let d = store.insert(&new_deferral(id, t)).unwrap();
        lifecycle::change::expire(&*store, &d, t + at).unwrap();
    }
    let ids = |rows: Vec<Deferral>| rows.into_iter().map(|d| d.id).collect::<Vec<_>>();
    let first = |state, order, limit| ids(store.first_in_state(state, order, limit).unwrap());
    assert_eq!(
        first(State::Deferred, PageOrder::WindowOpens, 10),
        ["w1", "w2a", "w2b", "w3", "w4"]
    );
    assert_eq!(
        first(State::Deferred, PageOrder::WindowOpens, 3),
        ["w1", "w2a", "w2b"]
    );
    assert_eq!(
        first(State::Cancelled, PageOrder::LastChanged, 10),
        ["o4", "o3b", "o3a", "o2", "o1"]
    );
    assert_eq!(
        first(State::Cancelled, PageOrder::LastChanged, 2),
        ["o4", "o3b"]
    );
    assert!(first(State::Complete, PageOrder::LastChanged, 10).is_empty());
    assert!(first(State::Deferred, PageOrder::WindowOpens, 0).is_empty());
}

/// A new deferral with id `id`, built by hand (not through `record`), with one receipt.
fn new_deferral(id: &str, t: u64) -> deferral_host::store::NewDeferral {
    let receipt = handoff(t, 0, HOUR)
        .retain(&digest('c'), &digest('d'))
        .unwrap();
    deferral_host::store::NewDeferral {
        id: id.to_string(),
        state: State::Deferred,
        reentries: 0,
        max_reentries: 2,
        cause: "recorded".into(),
        launch: "exec:true".into(),
        window: deferral_host::store::ResumeWindow {
            reason: "rest-reserve".into(),
            resume_after_ms: t,
            resume_by_ms: t + HOUR,
        },
        wakeup_digest: digest('c'),
        cancellation_digest: digest('d'),
        receipts: vec![deferral_host::store::NewReceipt::new(
            "retained",
            receipt.to_json(),
        )],
        at_ms: t,
        keys: Default::default(),
    }
}

/// Group commit (`serve`): one transaction for many inserts, one result per item in order.
/// A failing item is rolled back alone; every item answered `Ok` is visible to another
/// connection, with its receipt and its event.
pub fn insert_batch_commits_each_item_or_reports_its_error(backend: &dyn Backend) {
    let store = backend.connect();
    let other = backend.connect();
    let t = now();
    let first = record_due(&*store, 2);
    assert!(store.insert_batch(&[]).is_empty(), "an empty batch");
    let mut no_receipt = new_deferral("d-batch-c", t);
    no_receipt.receipts.clear();
    let batch = [
        new_deferral("d-batch-a", t),
        new_deferral(&first.id, t),
        new_deferral("d-batch-b", t),
        no_receipt,
        new_deferral("d-batch-a", t),
    ];
    let results = store.insert_batch(&batch);
    assert_eq!(results.len(), batch.len(), "one result per item");
    assert_eq!(results[0].as_ref().map(|d| d.id.as_str()), Ok("d-batch-a"));
    assert_eq!(
        results[1].as_ref().unwrap_err(),
        &StoreError::Duplicate(first.id.clone())
    );
    assert_eq!(results[2].as_ref().map(|d| d.id.as_str()), Ok("d-batch-b"));
    assert!(
        matches!(results[3], Err(StoreError::Backend(_))),
        "{:?}",
        results[3]
    );
    assert_eq!(
        results[4].as_ref().unwrap_err(),
        &StoreError::Duplicate("d-batch-a".into()),
        "an id inserted earlier in the same batch is a duplicate"
    );
    for ok in results.iter().flatten() {
        let seen = other.get(&ok.id).unwrap().expect("committed and visible");
        assert_eq!(&seen, ok, "get returns what the batch returned");
        assert_eq!(other.receipts(&ok.id).unwrap().len(), 1);
        assert_eq!(other.events(&ok.id).unwrap().len(), 1);
    }
    assert!(other.get("d-batch-c").unwrap().is_none());
    assert_eq!(
        reload(&*other, &first),
        first,
        "the existing row is untouched"
    );
    assert_eq!(other.receipts(&first.id).unwrap().len(), 2);
    assert_eq!(other.events(&first.id).unwrap().len(), 1);
    assert_eq!(other.list(&ListQuery::default()).unwrap().len(), 3);
}

pub fn launch_process_belongs_to_the_current_attempt(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 2);
    let process = |fence: u64, pgid: i64| deferral_host::store::LaunchProcess {
        fence,
        pgid,
        machine: "m".into(),
        boot_id: "b".into(),
        leader_start: 42,
        recorded_ms: 1_234,
    };
    assert_eq!(store.launch_process(&d.id).unwrap(), None);
    assert!(
        store
            .record_launch_process(&d.id, &process(d.fence, 100))
            .unwrap_err()
            .code()
            == "conflict",
        "not resumable: no launch to record"
    );
    let claimed = claim(&*store, &d).deferral;
    store
        .record_launch_process(&claimed.id, &process(claimed.fence, 100))
        .unwrap();
    assert_eq!(
        store.launch_process(&d.id).unwrap(),
        Some(process(claimed.fence, 100))
    );
    assert_eq!(
        store
            .record_launch_process(&claimed.id, &process(claimed.fence - 1, 101))
            .unwrap_err()
            .code(),
        "conflict",
        "a stale fence records nothing"
    );
    let back = lifecycle::outcome::end_attempt(
        &*store,
        &claimed,
        Outcome::Returned {
            detail: "test".into(),
        },
        now(),
    )
    .unwrap();
    let again = claim(&*store, &back).deferral;
    store
        .record_launch_process(&again.id, &process(again.fence, 200))
        .unwrap();
    let got = store.launch_process(&d.id).unwrap().unwrap();
    assert_eq!(
        (got.fence, got.pgid),
        (again.fence, 200),
        "the next attempt's group replaces the last"
    );
    assert!(store.launch_process("d-missing").unwrap().is_none());
}

pub fn expiry_waits_for_a_live_lease(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let d = record_at(&*store, t, 0, HOUR, 2).deferral;
    // A lease that outlives resume_by (a dispatched run holds its lease until then or later).
    let held =
        lifecycle::claim::claim(&*store, &d, "w", t + HOUR + 10, AttemptStatus::Launching, t)
            .unwrap()
            .deferral;
    let ids = |rows: Vec<Deferral>| rows.into_iter().map(|d| d.id).collect::<Vec<_>>();
    assert!(
        store.expirable(t + HOUR + 5, 100).unwrap().is_empty(),
        "past resume_by but the lease is live: not expirable"
    );
    assert!(
        store.expirable(t + HOUR + 10, 100).unwrap().is_empty(),
        "a lease is live until its end"
    );
    assert_eq!(
        ids(store.expirable(t + HOUR + 11, 100).unwrap()),
        [held.id.as_str()]
    );
    assert!(
        store.stale_leases(t + HOUR + 11, 100).unwrap().is_empty(),
        "past resume_by it is expired, not recovered"
    );
    // `tick ID` plans from the row itself: the same rules.
    let options = |ids: Vec<String>| deferral_host::tick::TickOptions {
        dry_run: true,
        lease_timeout: std::time::Duration::from_secs(60),
        ids,
        limit: 100,
        http_timeout: std::time::Duration::from_secs(1),
        ..deferral_host::tick::TickOptions::new(deferral_host::launch::Launchers::builtin())
    };
    let [expirable, stale, due] =
        deferral_host::tick::plan(&*store, &options(vec![held.id.clone()]), t + HOUR + 5).unwrap();
    assert!(
        expirable.is_empty() && stale.is_empty() && due.is_empty(),
        "tick ID leaves a live lease alone"
    );
    let [expirable, _, _] =
        deferral_host::tick::plan(&*store, &options(vec![held.id.clone()]), t + HOUR + 11).unwrap();
    assert_eq!(ids(expirable), [held.id.as_str()], "tick ID expires it");
}

pub fn a_claim_is_refused_once_its_lease_ended(backend: &dyn Backend) {
    let store = backend.connect();
    let d = record_due(&*store, 2);
    let c = claim(&*store, &d);
    let until = c.deferral.lease_until_ms.expect("a claim holds a lease");
    let proof = ops::claim::verify_claim(&*store, &d.id, &c.wakeup_handle, until)
        .expect("the lease is live until its end");
    assert_eq!(proof.deferral.fence, c.deferral.fence);
    assert_eq!(
        ops::claim::verify_claim(&*store, &d.id, &c.wakeup_handle, until + 1)
            .unwrap_err()
            .code,
        "lease-expired"
    );
    assert_eq!(
        ops::claim::verify_claim(&*store, &d.id, &new_handle(), until - 1)
            .unwrap_err()
            .code,
        "wrong-handle"
    );
    assert_eq!(reload(&*store, &d), c.deferral, "verifying writes nothing");
}

pub fn a_re_retained_receipt_keeps_the_cancellation_digest(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let rec = record_at(&*store, t, 0, HOUR, 3);
    let digest_of = |text: &str| {
        deferral_core::receipt::validate_str(text)
            .unwrap()
            .to_value()["ownership"]["cancellation_digest"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let original = digest_of(&rec.receipt.to_json());
    assert_eq!(original, handle_digest(&rec.cancellation_handle));
    let c = claim(&*store, &rec.deferral);
    // The new receipt arrives retained by someone else: its digests are not ours.
    let foreign = handoff(now(), 0, HOUR)
        .retain(&digest('e'), &digest('f'))
        .unwrap()
        .to_json();
    let after = lifecycle::outcome::end_attempt(
        &*store,
        &c.deferral,
        Outcome::Deferred {
            receipt: foreign,
            detail: None,
        },
        now(),
    )
    .unwrap();
    assert_eq!(after.state, State::Deferred);
    let current = store.current_receipt(&after.id).unwrap();
    assert_eq!(current.kind, "retained");
    assert_eq!(
        digest_of(&current.text),
        original,
        "the re-retained receipt keeps the deferral's cancellation digest"
    );
    assert_eq!(after.cancellation_digest, rec.deferral.cancellation_digest);
    let cancelled = ops::cancel::cancel(&*store, &after.id, &rec.cancellation_handle, now())
        .expect("the operator's handle still cancels");
    assert_eq!(cancelled.state, State::Cancelled);
}

pub fn resolve_settles_only_a_dispatch_of_unknown_result(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let rec = record_at(&*store, t, 0, HOUR, 2);
    let handle = rec.cancellation_handle.clone();
    let c = lifecycle::claim::claim(
        &*store,
        &rec.deferral,
        "w",
        t + 60_000,
        AttemptStatus::Dispatching,
        t,
    )
    .unwrap();
    let refused = |d: &Deferral| {
        ops::resolve::resolve(&*store, &d.id, &handle, true, now())
            .unwrap_err()
            .code
    };
    assert_eq!(
        refused(&c.deferral),
        "not-dispatch-unknown",
        "still dispatching: nothing to resolve"
    );
    let dispatched = lifecycle::change::note(
        &*store,
        &c.deferral,
        "dispatched",
        "dispatched",
        lifecycle::change::Effects {
            attempt_status: Change::Set(AttemptStatus::Dispatched),
            ..Default::default()
        },
        now(),
    )
    .unwrap();
    assert_eq!(refused(&dispatched), "not-dispatch-unknown");
    let unknown = lifecycle::change::note(
        &*store,
        &dispatched,
        "dispatch-unknown",
        "lease-expired",
        lifecycle::change::Effects {
            attempt_status: Change::Set(AttemptStatus::DispatchUnknown),
            ..Default::default()
        },
        now(),
    )
    .unwrap();
    assert_eq!(
        ops::resolve::resolve(&*store, &unknown.id, &new_handle(), true, now())
            .unwrap_err()
            .code,
        "wrong-handle"
    );
    let resolved = ops::resolve::resolve(&*store, &unknown.id, &handle, true, now()).unwrap();
    assert_eq!(
        (resolved.state, resolved.attempt_status),
        (State::Resumable, Some(AttemptStatus::Dispatched))
    );
    assert_eq!(resolved.fence, unknown.fence + 1);
    assert_eq!(
        refused(&resolved),
        "not-dispatch-unknown",
        "resolved once only"
    );
}

fn next_due(
    store: &dyn Store,
    next: &deferral_host::store::NextDue,
) -> Option<lifecycle::claim::Claimed> {
    lifecycle::claim::claim_next(
        store,
        next,
        "tester",
        60_000,
        &|_| AttemptStatus::Launching,
        next.now_ms,
    )
    .map_err(|f| f.error)
    .expect("claim_next works")
}

pub fn claim_next_takes_the_earliest_due_deferral_once(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let second = record_at(&*store, t, 0, HOUR, 2).deferral;
    let first = record_at(&*store, t - 5_000, 0, HOUR, 2).deferral;
    let _not_due = record_at(&*store, t, 60_000, HOUR, 2).deferral;
    let dispatch = lifecycle::insert::insert_new(
        &*store,
        handoff(t - 10_000, 0, HOUR).to_json().as_bytes(),
        "workflow-dispatch:octo/app/sync.yml@main",
        2,
        t,
    )
    .unwrap()
    .deferral;
    let next = deferral_host::store::NextDue {
        now_ms: t,
        skip_kinds: &["workflow-dispatch"],
        exclude: &[],
    };
    let c = next_due(&*store, &next).expect("something is due");
    assert_eq!(c.deferral.id, first.id, "the earliest resume_after first");
    assert_eq!(
        (c.deferral.state, c.deferral.reentries, c.deferral.fence),
        (State::Resumable, 1, first.fence + 1)
    );
    assert_eq!(c.deferral, reload(&*store, &first), "what was written");
    assert_eq!(
        c.deferral.wakeup_digest.as_deref(),
        Some(handle_digest(&c.wakeup_handle).as_str())
    );
    assert_eq!(
        store.current_receipt(&first.id).unwrap().text,
        c.receipt_json
    );
    assert_eq!(store.current_receipt(&first.id).unwrap().kind, "claimed");
    let excluded = [second.id.clone()];
    assert!(
        next_due(
            &*store,
            &deferral_host::store::NextDue {
                exclude: &excluded,
                ..next.clone()
            }
        )
        .is_none(),
        "an excluded deferral is left alone; a claimed one is not due; dispatch is left out"
    );
    assert_eq!(next_due(&*store, &next).unwrap().deferral.id, second.id);
    assert!(next_due(&*store, &next).is_none(), "nothing else is due");
    let with_dispatch = deferral_host::store::NextDue {
        skip_kinds: &[],
        ..next
    };
    assert_eq!(
        next_due(&*store, &with_dispatch).unwrap().deferral.id,
        dispatch.id
    );
    assert!(next_due(&*store, &with_dispatch).is_none());
}

pub fn concurrent_claim_next_claims_each_due_deferral_exactly_once(backend: &dyn Backend) {
    let count = 24;
    let t = now();
    let ids: Vec<String> = {
        let store = backend.connect();
        (0..count)
            .map(|_| record_at(&*store, t, 0, HOUR, 2).deferral.id)
            .collect()
    };
    let claimed: Vec<Vec<String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let store = backend.connect();
                    let next = deferral_host::store::NextDue {
                        now_ms: t,
                        ..Default::default()
                    };
                    let mut mine = Vec::new();
                    while let Some(c) = next_due(&*store, &next) {
                        mine.push(c.deferral.id);
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let mut all: Vec<String> = claimed.iter().flatten().cloned().collect();
    all.sort();
    let mut want = ids;
    want.sort();
    assert_eq!(all, want, "every due deferral claimed exactly once");
    let store = backend.connect();
    for id in &all {
        let events = store.events(id).unwrap();
        assert_eq!(events.len(), 2, "one record and one claim event for {id}");
    }
}

pub fn next_wakeup_is_the_earliest_waiting_deferral(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    assert!(store.next_wakeup(t).unwrap().is_none(), "empty store");
    record_at(&*store, t, 0, HOUR, 2);
    let later = record_at(&*store, t, 30 * 60_000, HOUR, 2).deferral;
    let sooner = record_at(&*store, t, 10 * 60_000, HOUR, 2).deferral;
    let cancelled = record_at(&*store, t, 5 * 60_000, HOUR, 2);
    ops::cancel::cancel(
        &*store,
        &cancelled.deferral.id,
        &cancelled.cancellation_handle,
        t,
    )
    .unwrap();
    let next = |at: u64| store.next_wakeup(at).unwrap().map(|d| d.id);
    assert_eq!(
        next(t),
        Some(sooner.id.clone()),
        "the earliest deferred row still ahead; due and cancelled rows are not waiting"
    );
    assert_eq!(
        next(t + 10 * 60_000),
        Some(later.id),
        "strictly ahead of now"
    );
    assert_eq!(next(t + 30 * 60_000), None);
}

pub fn a_launch_outcome_that_is_not_terminal_clears_the_attempt_and_the_lease(
    backend: &dyn Backend,
) {
    let store = backend.connect();
    let d = record_due(&*store, 3);
    let c = claim(&*store, &d);
    assert!(c.deferral.lease_owner.is_some() && c.deferral.attempt_status.is_some());
    let again = lifecycle::outcome::end_attempt(
        &*store,
        &c.deferral,
        Outcome::Deferred {
            receipt: handoff(now(), 0, HOUR).to_json(),
            detail: None,
        },
        now(),
    )
    .unwrap();
    let cleared = |d: &Deferral| {
        (
            d.state,
            d.lease_owner.clone(),
            d.lease_until_ms,
            d.attempt_status,
        )
    };
    assert_eq!(
        cleared(&again),
        (State::Deferred, None, None, None),
        "deferred again: no lease, no attempt"
    );
    let c = claim(&*store, &again);
    let back = lifecycle::outcome::end_attempt(
        &*store,
        &c.deferral,
        Outcome::Returned {
            detail: "lease-expired".into(),
        },
        now(),
    )
    .unwrap();
    assert_eq!(cleared(&back), (State::Deferred, None, None, None));
    assert_eq!(reload(&*store, &back), back);
}

pub fn record_refuses_a_receipt_only_once_its_window_closed(backend: &dyn Backend) {
    let store = backend.connect();
    let t = now();
    let text = handoff(t - HOUR, 0, HOUR).to_json();
    let at_the_end =
        lifecycle::insert::insert_new(&*store, text.as_bytes(), "exec:/bin/true", 2, t)
            .expect("resume_by_ms == now is still open");
    assert_eq!(at_the_end.deferral.resume_by_ms, t);
    // Another receipt (recording is idempotent by digest) whose window closed 1 ms ago.
    let closed = handoff(t - HOUR - 1, 0, HOUR).to_json();
    let err = lifecycle::insert::insert_new(&*store, closed.as_bytes(), "exec:/bin/true", 2, t)
        .expect_err("one millisecond after resume_by_ms it has expired");
    assert_eq!(err.code, "expired");
    let cancelled = ops::cancel::cancel(
        &*store,
        &at_the_end.deferral.id,
        &at_the_end.cancellation_handle,
        t,
    )
    .unwrap();
    assert_eq!(
        (cancelled.cause.as_str(), cancelled.detail.as_deref()),
        ("operator", Some("operator")),
        "a cancel says who did it"
    );
}

/// SQL that takes a store back from the cost rows' migration (13 on SQLite, 12 on PostgreSQL)
/// to the schema before it (undoing the deferral commits' and check runs' after it first), the same on both
/// backends. The old `*_cost` columns it copied from are still there (and no longer written): a
/// test fills them as an older host did.
pub const UNDO_COST_ROWS_MIGRATION: &str =
    "DROP TABLE check_runs; DROP TABLE deferral_commits; DROP TABLE admission_costs; DROP TABLE deferral_costs;";

/// Migrations from the cost rows' on (it, the deferral commits', the retention's and the check
/// runs'): a test that sets a store back to before the cost rows sets its version this much
/// lower than the latest.
pub const MIGRATIONS_FROM_COST_ROWS: i64 = 4;

/// SQL that takes a store back from the `launch_kind` column's migration (9 on SQLite, 8 on
/// PostgreSQL) to the schema before it (undoing the ones after it first: the cost rows', the
/// window ledger's, the webhook deliveries' and the fair pools'), the same on both backends.
pub const UNDO_LAUNCH_KIND_MIGRATION: &str =
    "DROP TABLE check_runs; DROP TABLE deferral_commits; DROP TABLE admission_costs; DROP TABLE deferral_costs; DROP INDEX deferrals_pool_priority; ALTER TABLE deferrals DROP COLUMN priority; \
     ALTER TABLE deferrals DROP COLUMN fairness_key; DROP TABLE github_deliveries; \
     DROP INDEX pools_updated; DROP INDEX admissions_live; DROP TABLE pool_windows; \
     ALTER TABLE admissions DROP COLUMN secret_digest; ALTER TABLE deferrals DROP COLUMN launch_kind;";

/// Migrations after the `launch_kind` column's (the window ledger, the webhook deliveries, the
/// fair pools, the cost rows, the deferral commits, the retention's, which runs again unchanged,
/// the check runs') and it: a test that sets a store back to before `launch_kind`
/// sets its version this much lower than the latest.
pub const MIGRATIONS_FROM_LAUNCH_KIND: i64 = 8;

/// SQL that takes a store back from migration 7 (pools) to the schema before it (undoing the
/// later ones too: [`UNDO_LAUNCH_KIND_MIGRATION`] first), the same on both backends, for tests
/// that fake a store an older host left.
pub const UNDO_POOLS_MIGRATION: &str =
    "DROP TABLE check_runs; DROP TABLE deferral_commits; DROP TABLE admission_costs; DROP TABLE deferral_costs; DROP INDEX deferrals_pool_priority; ALTER TABLE deferrals DROP COLUMN priority; \
     ALTER TABLE deferrals DROP COLUMN fairness_key; DROP TABLE github_deliveries; \
     DROP INDEX pools_updated; DROP INDEX admissions_live; DROP TABLE pool_windows; \
     ALTER TABLE deferrals DROP COLUMN launch_kind; \
     DROP TABLE admissions; DROP TABLE pool_observations; \
     DROP TABLE pools; DROP INDEX deferrals_pool_due; ALTER TABLE deferrals DROP COLUMN pool; \
     ALTER TABLE deferrals DROP COLUMN rest_cost; ALTER TABLE deferrals DROP COLUMN graphql_cost; \
     ALTER TABLE deferrals DROP COLUMN content_cost;";

/// SQL that takes a SQLite store back from migration 8 (the counts kept by triggers) to the
/// schema before it, for tests that fake a store an older host left (PostgreSQL has no such
/// migration: it counts with a `GROUP BY`).
pub const UNDO_SQLITE_COUNTS_MIGRATION: &str = "DROP TRIGGER deferral_counts_insert; \
     DROP TRIGGER deferral_counts_update; DROP TRIGGER deferral_counts_delete; \
     DROP TABLE deferral_counts;";
