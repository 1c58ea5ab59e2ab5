//! The hand-written `to_value`s (which keep serde's struct serializer into `Value` out of the
//! wasm build) must give exactly what `serde_json::to_value` gives through the derives.

use deferral_core::graphql_cost::Estimate;
use deferral_core::ledger::{ClockOffset, Ledger, ResourceEntry, SecondaryHold};
use deferral_core::plan::PlanCost;
use deferral_core::signals::{parse_headers, HeaderObservation, RateSnapshot, RateWindow};
use serde_json::to_value;

fn window(used: Option<u64>) -> RateWindow {
    RateWindow {
        limit: 5000,
        remaining: 0,
        used,
        reset: u64::MAX,
    }
}

#[test]
fn windows_and_snapshots() {
    for w in [window(None), window(Some(17))] {
        assert_eq!(w.to_value(), to_value(w).unwrap());
    }
    let mut snapshot = RateSnapshot::unlimited();
    assert_eq!(snapshot.to_value(), to_value(&snapshot).unwrap());
    snapshot.unlimited = false;
    snapshot.resources.insert("core".into(), window(Some(1)));
    snapshot.resources.insert("graphql".into(), window(None));
    snapshot.resources.insert("é \"odd\"".into(), window(None));
    assert_eq!(snapshot.to_value(), to_value(&snapshot).unwrap());
}

#[test]
fn headers() {
    let empty = HeaderObservation::default();
    assert_eq!(empty.to_value(), to_value(&empty).unwrap());
    let full = parse_headers(&[
        ("x-ratelimit-resource", "graphql"),
        ("x-ratelimit-limit", "5000"),
        ("x-ratelimit-remaining", "0"),
        ("x-ratelimit-used", "5000"),
        ("x-ratelimit-reset", "18446744073709551615"),
        ("retry-after", "60"),
        ("date", "Sun, 06 Nov 1994 08:49:37 GMT"),
    ]);
    assert!(full.date_ms.is_some() && full.reset.is_some());
    assert_eq!(full.to_value(), to_value(&full).unwrap());
}

#[test]
fn estimates_and_plan_costs() {
    for mutation in [false, true] {
        let e = Estimate {
            cost: 1,
            requests: u64::MAX,
            nodes: 0,
            mutation,
        };
        assert_eq!(e.to_value(), to_value(e).unwrap());
    }
    let cost = PlanCost {
        rest: 1,
        graphql: 2,
        secondary_rest_points: 3,
        secondary_graphql_points: 4,
        content_creating: 5,
        secondary_minutes: u64::MAX,
    };
    assert_eq!(cost.to_value(), to_value(cost).unwrap());
    assert_eq!(
        PlanCost::default().to_value(),
        to_value(PlanCost::default()).unwrap()
    );
}

#[test]
fn ledgers() {
    let mut ledger = Ledger::new();
    assert_eq!(ledger.to_value(), to_value(&ledger).unwrap());
    let entry = ResourceEntry {
        limit: 5000,
        remaining: 10,
        used: 4990,
        reset: 1_800_000_000,
        observed_at_ms: u64::MAX,
    };
    ledger.resources.insert("core".into(), entry);
    ledger.resources.insert("search".into(), entry);
    ledger.secondary = Some(SecondaryHold {
        until_ms: 1,
        strikes: u32::MAX,
        last_strike_ms: 2,
    });
    ledger.clock = Some(ClockOffset {
        offset_ms: i64::MIN,
        observed_at_ms: 3,
    });
    assert_eq!(ledger.to_value(), to_value(&ledger).unwrap());
    // Byte for byte too, as the wasm functions write them.
    assert_eq!(
        serde_json::to_string(&ledger.to_value()).unwrap(),
        serde_json::to_string(&to_value(&ledger).unwrap()).unwrap()
    );
}
