//! `observe`: the shapes of an answer it takes (headers as pairs, as an object with text or
//! number values, or none) and the ledger text it is given (blank is a new ledger).

use deferral_core::observe::observe_value;
use serde_json::{json, Value};

fn observe(input: Value) -> Value {
    observe_value(&input)
}

#[test]
fn headers_as_pairs_as_an_object_or_none_read_alike() {
    let now = 1_800_000_000_000u64;
    let pairs = observe(json!({"status": 200, "now_ms": now, "headers": [
        ["x-ratelimit-resource", "core"], ["x-ratelimit-limit", "5000"],
        ["x-ratelimit-remaining", "4000"], ["x-ratelimit-reset", "1800003600"]]}));
    // Node's IncomingMessage.headers holds text; a hand-built object may hold numbers.
    let object = observe(json!({"status": 200, "now_ms": now, "headers": {
        "x-ratelimit-resource": "core", "x-ratelimit-limit": 5000,
        "x-ratelimit-remaining": "4000", "x-ratelimit-reset": 1_800_003_600u64}}));
    assert_eq!(pairs["ok"], true, "{pairs}");
    assert_eq!(object, pairs);
    assert_eq!(object["ledger"]["resources"]["core"]["remaining"], 4000);
    let none = observe(json!({"status": 200, "now_ms": now, "headers": null}));
    assert_eq!(none["ok"], true, "{none}");
    assert_eq!(none["kind"], "not-rate-limited");
    let bad = observe(json!({"status": 200, "now_ms": now, "headers": {"x": [1]}}));
    assert_eq!(bad["error"]["code"], "invalid-input");
}

#[test]
fn a_blank_ledger_text_is_a_new_ledger_and_a_broken_one_is_refused() {
    let at = |ledger: Value| {
        observe(
            json!({"status": 200, "now_ms": 1_800_000_000_000u64, "ledger": ledger,
            "headers": [["x-ratelimit-resource", "core"], ["x-ratelimit-limit", "60"],
                ["x-ratelimit-remaining", "59"], ["x-ratelimit-reset", "1800003600"]]}),
        )
    };
    let blank = at(json!("  \n"));
    assert_eq!(blank["ok"], true, "{blank}");
    assert_eq!(blank["ledger"]["resources"]["core"]["remaining"], 59);
    let broken = at(json!("{"));
    assert_eq!(broken["error"]["code"], "invalid-ledger");
}
