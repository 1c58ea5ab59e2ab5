//! The rate ledger: merge rules, secondary holds, and order independence (proptest).

use deferral_core::ledger::{
    backoff_ms, ClockOffset, Ledger, Observation, ResourceEntry, SecondaryHold, LEDGER_VERSION,
    MAX_HOLD_MS,
};
use deferral_core::signals::{classify, RateWindow};
use proptest::prelude::*;

fn window(limit: u64, remaining: u64, reset: u64) -> RateWindow {
    RateWindow {
        limit,
        remaining,
        used: None,
        reset,
    }
}

fn observe(ledger: &mut Ledger, resource: &str, remaining: u64, reset: u64, at: u64) {
    ledger.apply(&Observation::Window {
        resource: resource.into(),
        window: window(5000, remaining, reset),
        observed_at_ms: at,
    });
}

#[test]
fn within_a_window_remaining_only_goes_down() {
    let mut ledger = Ledger::new();
    observe(&mut ledger, "core", 4000, 1000, 1);
    observe(&mut ledger, "core", 4500, 1000, 2); // a stale snapshot arriving late
    assert_eq!(ledger.resources["core"].remaining, 4000);
    assert_eq!(ledger.resources["core"].used, 1000);
    assert_eq!(ledger.resources["core"].observed_at_ms, 2);
    observe(&mut ledger, "core", 3000, 1000, 3);
    assert_eq!(ledger.resources["core"].remaining, 3000);
}

#[test]
fn later_window_replaces_and_earlier_never_does() {
    let mut ledger = Ledger::new();
    observe(&mut ledger, "core", 10, 1000, 1);
    observe(&mut ledger, "core", 4999, 4600, 2);
    assert_eq!(ledger.resources["core"].remaining, 4999);
    assert_eq!(ledger.resources["core"].reset, 4600);
    observe(&mut ledger, "core", 5, 1000, 3);
    assert_eq!(
        ledger.resources["core"].remaining, 4999,
        "an earlier window must not replace a later one"
    );
    observe(&mut ledger, "graphql", 7, 900, 3);
    assert_eq!(ledger.resources.len(), 2);
}

#[test]
fn secondary_holds_double_cap_and_honour_retry_after() {
    assert_eq!(
        [
            backoff_ms(1),
            backoff_ms(2),
            backoff_ms(3),
            backoff_ms(7),
            backoff_ms(100)
        ],
        [60_000, 120_000, 240_000, 3_600_000, 3_600_000]
    );
    let mut ledger = Ledger::new();
    ledger.strike(1_000_000, None);
    assert_eq!(
        ledger.secondary,
        Some(SecondaryHold {
            until_ms: 1_060_000,
            strikes: 1,
            last_strike_ms: 1_000_000
        })
    );
    assert_eq!(ledger.hold_until(1_059_999), Some(1_060_000));
    assert_eq!(ledger.hold_until(1_060_000), None);
    // Struck again right after the hold ended (within the grace): consecutive, doubled.
    ledger.strike(1_070_000, None);
    assert_eq!(ledger.secondary.unwrap().strikes, 2);
    assert_eq!(ledger.secondary.unwrap().until_ms, 1_190_000);
    ledger.strike(1_200_000, None);
    assert_eq!(ledger.secondary.unwrap().until_ms, 1_440_000);
    for _ in 0..10 {
        let at = ledger.secondary.unwrap().until_ms;
        ledger.strike(at, None);
    }
    let hold = ledger.secondary.unwrap();
    assert_eq!(
        hold.until_ms - hold.last_strike_ms,
        MAX_HOLD_MS,
        "doubling is capped at 1 hour"
    );
    // GitHub's retry-after is honoured even above the cap.
    ledger.strike(hold.until_ms, Some(7_200));
    let hold = ledger.secondary.unwrap();
    assert_eq!(hold.until_ms - hold.last_strike_ms, 7_200_000);

    // A strike long after the previous hold starts over.
    let mut ledger = Ledger::new();
    ledger.strike(0, Some(30));
    assert_eq!(
        ledger.secondary.unwrap().until_ms,
        60_000,
        "at least 60 s even when retry-after is shorter"
    );
    ledger.strike(60_000 + 600_001, Some(90));
    assert_eq!(
        ledger.secondary,
        Some(SecondaryHold {
            until_ms: 750_001,
            strikes: 1,
            last_strike_ms: 660_001
        })
    );
    // A late, older strike can only lengthen the hold.
    ledger.strike(100, Some(1_000));
    assert_eq!(
        ledger.secondary,
        Some(SecondaryHold {
            until_ms: 1_000_100,
            strikes: 1,
            last_strike_ms: 660_001
        })
    );
}

#[test]
fn expired_holds_are_pruned_after_the_grace() {
    let mut ledger = Ledger::new();
    ledger.strike(0, None);
    ledger.prune(660_000);
    assert!(ledger.secondary.is_some());
    ledger.prune(660_001);
    assert!(ledger.secondary.is_none());
}

#[test]
fn responses_record_windows_clock_and_strikes() {
    let headers = [
        ("x-ratelimit-limit", "5000"),
        ("x-ratelimit-remaining", "4000"),
        ("x-ratelimit-reset", "1800003600"),
        ("x-ratelimit-resource", "core"),
        ("retry-after", "120"),
        ("date", "Fri, 15 Jan 2027 08:00:02 GMT"),
    ];
    let body = r#"{"message":"You have exceeded a secondary rate limit."}"#;
    let mut ledger = Ledger::new();
    ledger.observe_response(&classify(403, &headers, body), 1_800_000_000_000);
    assert_eq!(ledger.resources["core"].remaining, 4000);
    assert_eq!(ledger.resources["core"].used, 1000);
    assert_eq!(ledger.secondary.unwrap().until_ms, 1_800_000_120_000);
    // 1_800_000_000_000 is 2027-01-15T08:00:00Z: the server clock is 2 s ahead.
    assert_eq!(
        ledger.clock,
        Some(ClockOffset {
            offset_ms: 2_000,
            observed_at_ms: 1_800_000_000_000
        })
    );
    // A success records no strike.
    let mut calm = Ledger::new();
    calm.observe_response(&classify(200, &headers[..3], "{}"), 5);
    assert!(calm.secondary.is_none());
    assert!(calm.clock.is_none());
}

#[test]
fn json_round_trip_and_refusals() {
    let mut ledger = Ledger::new();
    observe(&mut ledger, "core", 4000, 1000, 1);
    ledger.strike(10, None);
    ledger.apply(&Observation::Clock {
        offset_ms: -250,
        observed_at_ms: 10,
    });
    let text = ledger.to_json();
    assert_eq!(
        text,
        r#"{"clock":{"observed_at_ms":10,"offset_ms":-250},"resources":{"core":{"limit":5000,"observed_at_ms":1,"remaining":4000,"reset":1000,"used":1000}},"secondary":{"last_strike_ms":10,"strikes":1,"until_ms":60010},"version":"deferral-ledger-v1"}"#
    );
    assert_eq!(Ledger::from_json(&text).unwrap(), ledger);
    assert_eq!(
        Ledger::from_json(r#"{"version":"deferral-ledger-v1"}"#).unwrap(),
        Ledger::new()
    );
    assert_eq!(
        Ledger::from_json(r#"{"version":"deferral-ledger-v2"}"#)
            .unwrap_err()
            .code(),
        "unsupported-ledger-version"
    );
    assert_eq!(
        Ledger::from_json("[]").unwrap_err().code(),
        "malformed-ledger"
    );
    assert_eq!(
        Ledger::from_json("{").unwrap_err().code(),
        "malformed-ledger"
    );
    let err = Ledger::from_json(r#"{"version":"deferral-ledger-v1","extra":1}"#).unwrap_err();
    assert_eq!(err.code(), "malformed-ledger");
    assert!(err.to_string().contains("extra"));
    assert_eq!(LEDGER_VERSION, "deferral-ledger-v1");
    // Observations have a JSON form too (for the wasm and CLI callers).
    let obs: Observation =
        serde_json::from_str(r#"{"kind":"strike","at_ms":5,"retry_after_s":null}"#).unwrap();
    assert_eq!(
        obs,
        Observation::Strike {
            at_ms: 5,
            retry_after_s: None
        }
    );
}

// ---- order independence ----

fn entry() -> impl Strategy<Value = ResourceEntry> {
    (1u64..4, 0u64..50, 0u64..50, 0u64..3, 0u64..100).prop_map(
        |(limit, remaining, used, reset, observed_at_ms)| ResourceEntry {
            limit,
            remaining,
            used,
            reset,
            observed_at_ms,
        },
    )
}

fn ledger() -> impl Strategy<Value = Ledger> {
    let resources = proptest::collection::btree_map(
        prop_oneof![
            Just("core".to_string()),
            Just("graphql".to_string()),
            Just("search".to_string())
        ],
        entry(),
        0..3,
    );
    let hold = proptest::option::of((0u64..500, 1u32..5, 0u64..500).prop_map(
        |(until_ms, strikes, last_strike_ms)| SecondaryHold {
            until_ms,
            strikes,
            last_strike_ms,
        },
    ));
    let clock =
        proptest::option::of((-5i64..5, 0u64..4).prop_map(|(offset_ms, observed_at_ms)| {
            ClockOffset {
                offset_ms,
                observed_at_ms,
            }
        }));
    (resources, hold, clock).prop_map(|(resources, secondary, clock)| Ledger {
        resources,
        secondary,
        clock,
        ..Ledger::new()
    })
}

fn window_or_clock() -> impl Strategy<Value = Observation> {
    prop_oneof![
        (
            prop_oneof![Just("core"), Just("graphql")],
            0u64..5,
            0u64..5,
            0u64..3,
            0u64..10
        )
            .prop_map(|(r, limit, remaining, reset, at)| {
                Observation::Window {
                    resource: r.to_string(),
                    window: RateWindow {
                        limit,
                        remaining,
                        used: None,
                        reset,
                    },
                    observed_at_ms: at,
                }
            }),
        (-3i64..3, 0u64..3).prop_map(|(offset_ms, observed_at_ms)| Observation::Clock {
            offset_ms,
            observed_at_ms
        }),
    ]
}

proptest! {
    #[test]
    fn merge_is_a_join(a in ledger(), b in ledger(), c in ledger()) {
        prop_assert_eq!(a.merge(&b), b.merge(&a));
        prop_assert_eq!(a.merge(&b).merge(&c), a.merge(&b.merge(&c)));
        prop_assert_eq!(a.merge(&a), a.clone());
    }

    #[test]
    fn observations_in_any_order_give_the_same_ledger(
        (observations, shuffled) in proptest::collection::vec(window_or_clock(), 0..12)
            .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
    ) {
        let mut in_order = Ledger::new();
        observations.iter().for_each(|o| in_order.apply(o));
        let mut other_order = Ledger::new();
        shuffled.iter().for_each(|o| other_order.apply(o));
        prop_assert_eq!(in_order, other_order);
    }

    #[test]
    fn concurrent_writers_lose_nothing(
        base in ledger(),
        observations in proptest::collection::vec(window_or_clock(), 0..12),
        writers in proptest::collection::vec(0usize..3, 12),
    ) {
        // Three writers start from the same file, each records its own observations, and the
        // views are merged back (in two different orders): the result equals one writer
        // having seen everything.
        let mut views = [base.clone(), base.clone(), base.clone()];
        for (observation, writer) in observations.iter().zip(&writers) {
            views[*writer].apply(observation);
        }
        let mut everything = base.clone();
        observations.iter().for_each(|o| everything.apply(o));
        let forward = views[0].merge(&views[1]).merge(&views[2]);
        let backward = views[2].merge(&views[1].merge(&views[0]));
        prop_assert_eq!(&forward, &everything);
        prop_assert_eq!(&backward, &everything);
    }

    #[test]
    fn concurrent_strikes_never_shorten_a_hold(base in ledger(), a in 0u64..2_000, b in 0u64..2_000, ra in proptest::option::of(0u64..200)) {
        let mut one = base.clone();
        one.strike(a, ra);
        let mut two = base.clone();
        two.strike(b, None);
        let merged = one.merge(&two);
        let hold = merged.secondary.unwrap();
        prop_assert!(hold.until_ms >= one.secondary.unwrap().until_ms);
        prop_assert!(hold.until_ms >= two.secondary.unwrap().until_ms);
        prop_assert!(hold.until_ms >= a.max(b) + 60_000);
        prop_assert_eq!(merged.clone(), two.merge(&one));
    }
}

#[test]
fn merging_keeps_the_most_recent_clock_offset_in_either_order() {
    let at = |observed_at_ms: u64, offset_ms: i64| Ledger {
        clock: Some(ClockOffset {
            offset_ms,
            observed_at_ms,
        }),
        ..Ledger::new()
    };
    let (newer, older) = (at(2_000, 5), at(1_000, 9));
    assert_eq!(newer.merge(&older).clock, newer.clock);
    assert_eq!(older.merge(&newer).clock, newer.clock);
    // Equal times: the larger offset, whatever the order.
    let (a, b) = (at(1_000, 3), at(1_000, 7));
    assert_eq!(a.merge(&b).clock, b.clock);
    assert_eq!(b.merge(&a).clock, b.clock);
}

#[test]
fn two_strikes_in_the_same_millisecond_are_consecutive() {
    let mut ledger = Ledger::new();
    ledger.strike(1_000_000, None);
    ledger.strike(1_000_000, None);
    assert_eq!(ledger.secondary.unwrap().strikes, 2);
}
