//! The gate decision: every branch, the reserve boundaries, bindings, and the shared vectors in
//! `tests/vectors/decisions/`.

use deferral_core::decision::{decide, decide_json, jitter_ms, DecisionInput, Reserve, Status};
use deferral_core::digest::sha256_hex;
use deferral_core::jcs::canonicalize;
use deferral_core::ledger::Ledger;
use deferral_core::receipt::validate;
use serde_json::{json, Value};

const NOW: u64 = 1_800_000_000_000; // 2027-01-15T08:00:00Z
const RESET: u64 = 1_800_001_800; // 30 minutes later, epoch seconds
const HOUR: u64 = 3_600_000;

fn input(core_remaining: u64, graphql_remaining: u64) -> Value {
    json!({
        "rate": {"resources": {
            "core": {"limit": 5000, "remaining": core_remaining, "reset": RESET},
            "graphql": {"limit": 5000, "remaining": graphql_remaining, "reset": RESET + 600},
            "search": {"limit": 30, "remaining": 0, "reset": RESET}
        }},
        "scope": {"repository": "octo-org/secret-repo", "workflow": "labels.yml"},
        "request": "sync labels for release 42",
        "now_ms": NOW
    })
}

fn run(value: &Value) -> deferral_core::decision::Decision {
    let input: DecisionInput = serde_json::from_value(value.clone()).unwrap();
    decide(&input)
}

fn with(mut value: Value, key: &str, field: Value) -> Value {
    value[key] = field;
    value
}

#[test]
fn ready_when_both_resources_clear_their_reserves() {
    let d = run(&input(4000, 4000));
    assert_eq!(d.status, Status::Ready);
    assert_eq!((d.code.as_deref(), d.reason), (None, None));
    let rest = d.rest.as_ref().unwrap();
    assert_eq!(
        (
            rest.resource.as_str(),
            rest.limit,
            rest.remaining,
            rest.reserve,
            rest.planned_cost,
            rest.reset,
            rest.ok
        ),
        ("core", 5000, 4000, 500, 0, RESET, true)
    );
    assert_eq!(d.graphql.as_ref().unwrap().reserve, 500);
    assert!(d.receipt.is_none() && d.resume_after_ms.is_none());
    // Search at zero does not block REST or GraphQL work.
    assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);
}

#[test]
fn percentage_reserve_exactly_at_the_boundary() {
    // 10% of 5000 is 500: remaining 500 with nothing planned is allowed, 499 is not.
    assert_eq!(run(&input(500, 4000)).status, Status::Ready);
    let d = run(&input(499, 4000));
    assert_eq!(
        (d.status, d.reason),
        (Status::Deferred, Some("rest-reserve"))
    );
    assert_eq!(d.diagnostics[0].code, "core-below-reserve");
    // With 3 planned requests the line moves to 503.
    let plan =
        json!({"rest": [{"method": "GET", "route": "/repos/{owner}/{repo}/labels", "count": 3}]});
    assert_eq!(
        run(&with(input(503, 4000), "plan", plan.clone())).status,
        Status::Ready
    );
    assert_eq!(
        run(&with(input(502, 4000), "plan", plan)).status,
        Status::Deferred
    );
    // GraphQL at its boundary too.
    assert_eq!(run(&input(4000, 500)).status, Status::Ready);
    assert_eq!(run(&input(4000, 499)).reason, Some("graphql-reserve"));
}

#[test]
fn reserves_as_integers_and_fractional_percentages() {
    let policy = json!({"rest_reserve": 100, "graphql_reserve": "12.5%"});
    let d = run(&with(input(100, 625), "policy", policy.clone()));
    assert_eq!(d.status, Status::Ready);
    assert_eq!(
        (
            d.rest.as_ref().unwrap().reserve,
            d.graphql.as_ref().unwrap().reserve
        ),
        (100, 625)
    );
    assert_eq!(
        run(&with(input(99, 625), "policy", policy.clone())).status,
        Status::Deferred
    );
    assert_eq!(
        run(&with(input(100, 624), "policy", policy)).status,
        Status::Deferred
    );
    // Percentages round up: 10% of 1001 is 100.1 -> 101.
    assert_eq!(Reserve::parse("10%").unwrap().of(1001), 101);
    assert_eq!(Reserve::parse("0%").unwrap().of(1001), 0);
    assert_eq!(Reserve::parse("100%").unwrap().of(1001), 1001);
    assert_eq!(Reserve::parse(" 500 ").unwrap(), Reserve::Absolute(500));
    for bad in ["101%", "10.%", "%", "-5", "1e3", "10.125%", "ten", ""] {
        assert_eq!(Reserve::parse(bad), None, "{bad}");
    }
    assert_eq!(Reserve::parse("12.50%").unwrap().to_string(), "12.5%");
    assert_eq!(Reserve::parse("7.05%").unwrap().to_string(), "7.05%");
    let err = serde_json::from_value::<DecisionInput>(with(
        input(1, 1),
        "policy",
        json!({"rest_reserve": "lots"}),
    ))
    .unwrap_err();
    assert!(err.to_string().contains("a reserve must be"), "{err}");
}

#[test]
fn deferred_resume_time_follows_reset_offset_buffer_and_jitter() {
    let d = run(&input(10, 4000));
    assert_eq!(d.status, Status::Deferred);
    let receipt = d.receipt.clone().unwrap();
    let jitter = jitter_ms(&receipt.bindings.request_digest, 30_000);
    assert!(jitter <= 30_000);
    assert_eq!(receipt.issued_at_ms, NOW);
    assert_eq!(receipt.resume_after_ms, RESET * 1000 + 60_000 + jitter);
    assert_eq!(receipt.resume_by_ms, receipt.resume_after_ms + 6 * HOUR);
    assert_eq!(receipt.reason.as_str(), "rest-reserve");
    assert!(receipt.fresh_approval_required);
    assert!(!receipt.is_retained());
    assert_eq!(d.resume_after_ms, Some(receipt.resume_after_ms));
    // The receipt in the JSON output is itself a valid receipt.
    let out = serde_json::to_value(&d).unwrap();
    let text = serde_json::to_string(&out["receipt"]).unwrap();
    assert_eq!(validate(text.as_bytes()).unwrap(), receipt);

    // Server clock 2 s ahead of the host: the reset comes 2 s earlier in host time.
    let shifted = run(&with(input(10, 4000), "clock_offset_ms", json!(2000)));
    assert_eq!(
        shifted.resume_after_ms.unwrap(),
        receipt.resume_after_ms - 2000
    );
    assert_eq!(shifted.clock_offset_ms, 2000);

    // A long window is cut at 24 h after issue.
    let policy = json!({"resume_window_ms": 86_400_000, "resume_buffer_ms": 0, "jitter_max_ms": 0});
    let d = run(&with(input(10, 4000), "policy", policy));
    assert_eq!(d.resume_after_ms, Some(RESET * 1000));
    assert_eq!(d.resume_by_ms, Some(NOW + 24 * HOUR));
}

#[test]
fn jitter_is_deterministic_and_bounded() {
    let digest = "00000000000003e8ffffffffffffffffffffffffffffffffffffffffffffffff";
    assert_eq!(jitter_ms(digest, 30_000), 1000);
    assert_eq!(jitter_ms(digest, 999), 1000 % 1000);
    assert_eq!(jitter_ms(digest, 0), 0);
    assert_eq!(jitter_ms("ffffffffffffffff", u64::MAX), u64::MAX);
    let a = run(&input(10, 4000));
    let b = run(&with(input(10, 4000), "request", json!("another request")));
    assert_eq!(a.resume_after_ms, run(&input(10, 4000)).resume_after_ms);
    assert_ne!(
        a.resume_after_ms, b.resume_after_ms,
        "different requests spread out"
    );
}

#[test]
fn both_resources_failing_bind_to_the_later_reset() {
    // graphql resets 10 minutes after core.
    let d = run(&input(10, 10));
    assert_eq!(d.reason, Some("graphql-reserve"));
    let receipt = d.receipt.unwrap();
    assert_eq!(
        receipt.resume_after_ms - jitter_ms(&receipt.bindings.request_digest, 30_000),
        (RESET + 600) * 1000 + 60_000
    );
    assert_eq!(
        d.diagnostics
            .iter()
            .map(|x| x.code.as_str())
            .collect::<Vec<_>>(),
        ["core-below-reserve", "graphql-below-reserve"]
    );
    // Swap the resets: now core binds.
    let mut value = input(10, 10);
    value["rate"]["resources"]["core"]["reset"] = json!(RESET + 1200);
    assert_eq!(run(&value).reason, Some("rest-reserve"));
}

#[test]
fn a_plan_that_never_fits_is_blocked() {
    // 4,501 requests + 500 reserve > 5,000: no window can hold it.
    let plan = json!({"rest": [{"method": "GET", "route": "/x", "count": 4501}]});
    let d = run(&with(input(5000, 5000), "plan", plan));
    assert_eq!(
        (d.status, d.code.as_deref(), d.reason),
        (
            Status::Blocked,
            Some("plan-exceeds-window"),
            Some("rest-reserve")
        )
    );
    assert!(d.receipt.is_none());
    // 4,500 fits exactly in a full window.
    let plan = json!({"rest": [{"method": "GET", "route": "/x", "count": 4500}]});
    assert_eq!(
        run(&with(input(5000, 5000), "plan", plan.clone())).status,
        Status::Ready
    );
    assert_eq!(
        run(&with(input(4999, 5000), "plan", plan)).status,
        Status::Deferred
    );
    // GraphQL points: 90 calls of the documented 51-point query = 4,590 > 4,500.
    let query = "query { viewer { login repositories(first: 100) { edges { node { id issues(first: 50) { edges { node { id labels(first: 60) { edges { node { id name } } } } } } } } } } }";
    let d = run(&with(
        input(5000, 5000),
        "plan",
        json!({"graphql": [{"query": query, "count": 90}]}),
    ));
    assert_eq!(
        (d.code.as_deref(), d.reason),
        (Some("plan-exceeds-window"), Some("graphql-reserve"))
    );
    assert_eq!(d.graphql.unwrap().planned_cost, 4590);
    // A reserve larger than the limit blocks even an empty plan.
    let d = run(&with(
        input(5000, 5000),
        "policy",
        json!({"rest_reserve": 5001}),
    ));
    assert_eq!(d.code.as_deref(), Some("plan-exceeds-window"));
}

#[test]
fn a_resume_beyond_the_receipt_cap_is_blocked() {
    let mut value = input(10, 4000);
    value["rate"]["resources"]["core"]["reset"] = json!(NOW / 1000 + 24 * 3600);
    let d = run(&value);
    assert_eq!(
        (d.status, d.code.as_deref()),
        (Status::Blocked, Some("window-unreachable"))
    );
    assert!(d.resume_after_ms.unwrap() > NOW + 24 * HOUR);
    assert!(d.receipt.is_none());
    // Without buffer and jitter, exactly 24 h is still reachable.
    let d = run(&with(
        value,
        "policy",
        json!({"resume_buffer_ms": 0, "jitter_max_ms": 0}),
    ));
    assert_eq!(d.status, Status::Deferred);
    assert_eq!(
        (d.resume_after_ms, d.resume_by_ms),
        (Some(NOW + 24 * HOUR), Some(NOW + 24 * HOUR))
    );
}

#[test]
fn the_ledger_merges_in() {
    // Another process already spent the core window down to 300 (same reset): deferred.
    let mut ledger = Ledger::new();
    let window = deferral_core::signals::RateWindow {
        limit: 5000,
        remaining: 300,
        used: None,
        reset: RESET,
    };
    ledger.apply(&deferral_core::ledger::Observation::Window {
        resource: "core".into(),
        window,
        observed_at_ms: NOW - 1000,
    });
    let d = run(&with(
        input(4000, 4000),
        "ledger",
        serde_json::to_value(&ledger).unwrap(),
    ));
    assert_eq!(
        (d.status, d.reason),
        (Status::Deferred, Some("rest-reserve"))
    );
    assert_eq!(d.rest.unwrap().remaining, 300);

    // A secondary hold defers with provider-secondary-limit.
    let mut ledger = Ledger::new();
    ledger.strike(NOW - 10_000, Some(120));
    ledger.apply(&deferral_core::ledger::Observation::Clock {
        offset_ms: -500,
        observed_at_ms: NOW - 10_000,
    });
    let d = run(&with(
        input(4000, 4000),
        "ledger",
        serde_json::to_value(&ledger).unwrap(),
    ));
    assert_eq!(
        (d.status, d.reason),
        (Status::Deferred, Some("provider-secondary-limit"))
    );
    assert_eq!(d.secondary.hold_until_ms, Some(NOW + 110_000));
    let jitter = jitter_ms(&d.bindings.as_ref().unwrap().request_digest, 30_000);
    assert_eq!(d.resume_after_ms, Some(NOW + 110_000 + 60_000 + jitter));
    // The ledger's clock offset is used when the input gives none.
    assert_eq!(d.clock_offset_ms, -500);

    // No fresh windows at all (/rate_limit itself was secondary-limited): the hold decides.
    let mut bare = with(
        input(4000, 4000),
        "ledger",
        serde_json::to_value(&ledger).unwrap(),
    );
    bare["rate"]["resources"] = serde_json::json!({});
    let d = run(&bare);
    assert_eq!(
        (d.status, d.reason),
        (Status::Deferred, Some("provider-secondary-limit"))
    );
    assert!(d.rest.is_none());
    assert!(d
        .diagnostics
        .iter()
        .any(|x| x.code == "rate-state-unavailable"));

    // A hold ending before a failing reset: the reset binds.
    let d = run(&with(
        input(10, 4000),
        "ledger",
        serde_json::to_value(&ledger).unwrap(),
    ));
    assert_eq!(d.reason, Some("rest-reserve"));
    assert!(d.diagnostics.iter().any(|x| x.code == "secondary-hold"));

    // An expired hold does nothing.
    let d = run(&with(
        with(
            input(4000, 4000),
            "ledger",
            serde_json::to_value(&ledger).unwrap(),
        ),
        "now_ms",
        json!(NOW + 200_000),
    ));
    assert_eq!(d.status, Status::Ready);
}

#[test]
fn an_elapsed_window_counts_as_full() {
    let mut value = input(0, 4000);
    value["now_ms"] = json!(RESET * 1000);
    let d = run(&value);
    assert_eq!(d.status, Status::Ready);
    assert_eq!(d.rest.unwrap().remaining, 5000);
    assert!(d.diagnostics.iter().any(|x| x.code == "window-elapsed"));
    // One millisecond earlier (server time) it is still exhausted.
    value["now_ms"] = json!(RESET * 1000 - 1);
    assert_eq!(run(&value).status, Status::Deferred);
}

#[test]
fn unlimited_servers_are_ready_unless_held() {
    let value = json!({"rate": {"unlimited": true}, "scope": "s", "now_ms": NOW});
    let d = run(&value);
    assert_eq!(d.status, Status::Ready);
    assert!(d.unlimited && d.rest.is_none());
    let mut ledger = Ledger::new();
    ledger.strike(NOW, None);
    let d = run(&with(
        value,
        "ledger",
        serde_json::to_value(&ledger).unwrap(),
    ));
    assert_eq!(d.reason, Some("provider-secondary-limit"));
}

#[test]
fn missing_graphql_is_not_checked_but_missing_core_is_an_error() {
    let mut value = input(4000, 0);
    value["rate"]["resources"]
        .as_object_mut()
        .unwrap()
        .remove("graphql");
    let d = run(&value);
    assert_eq!(d.status, Status::Ready);
    assert!(d.graphql.is_none());
    assert!(d
        .diagnostics
        .iter()
        .any(|x| x.code == "graphql-state-missing"));
    value["rate"]["resources"]
        .as_object_mut()
        .unwrap()
        .remove("core");
    let d = run(&value);
    assert_eq!(
        (d.status, d.code.as_deref()),
        (Status::Error, Some("missing-rate-state"))
    );
}

#[test]
fn work_without_a_canonical_form_is_an_error_not_a_panic() {
    // 1e400 is valid JSON but no double: the scope, request or plan cannot be digested.
    for key in ["scope", "request"] {
        let text = format!("{{\"{key}\": {{\"x\": 1e400}}}}");
        let mut value = input(4000, 4000);
        value[key] = serde_json::from_str::<Value>(&text).unwrap()[key].clone();
        let out: Value = serde_json::from_str(&decide_json(&value.to_string())).unwrap();
        assert_eq!(out["status"], "error", "{key}");
        assert_eq!(out["code"], "invalid-input", "{key}");
        assert!(out["receipt"].is_null());
    }
}

#[test]
fn invalid_inputs_are_errors() {
    let d = run(&with(
        input(4000, 4000),
        "plan",
        json!({"rest": [{"method": "GET", "route": "/x", "count": 0}]}),
    ));
    assert_eq!(
        (d.status, d.code.as_deref()),
        (Status::Error, Some("invalid-plan"))
    );
    assert_eq!(d.diagnostics[0].code, "invalid-count");
    let d = run(&with(
        input(4000, 4000),
        "policy",
        json!({"resume_window_ms": 0}),
    ));
    assert_eq!(d.code.as_deref(), Some("invalid-policy"));
    let d = run(&with(
        input(4000, 4000),
        "ledger",
        json!({"version": "deferral-ledger-v9"}),
    ));
    assert_eq!(d.code.as_deref(), Some("invalid-ledger"));
    // A time the receipt cannot carry.
    let mut late = with(input(10, 4000), "now_ms", json!(1u64 << 53));
    late["rate"]["resources"]["core"]["reset"] = json!((1u64 << 53) / 1000 + 60);
    let d = run(&late);
    assert_eq!(d.code.as_deref(), Some("receipt-error"));
    let out: Value = serde_json::from_str(&decide_json("{\"scope\": 1}")).unwrap();
    assert_eq!(
        (out["status"].as_str(), out["code"].as_str()),
        (Some("error"), Some("invalid-input"))
    );
    let out: Value = serde_json::from_str(&decide_json(
        &with(input(1, 1), "surprise", json!(1)).to_string(),
    ))
    .unwrap();
    assert_eq!(out["code"], "invalid-input");
    assert!(out["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("surprise"));
}

#[test]
fn bindings_follow_the_design() {
    let value = with(
        input(10, 4000),
        "plan",
        json!({"rest": [{"method": "GET", "route": "/x"}]}),
    );
    let d = run(&value);
    let b = d.bindings.as_ref().unwrap();
    // scope digest: SHA-256 of the JCS text of the scope, keys sorted.
    assert_eq!(
        b.scope_digest,
        sha256_hex(br#"{"repository":"octo-org/secret-repo","workflow":"labels.yml"}"#)
    );
    let policy = json!({"rest_reserve": "10%", "graphql_reserve": "10%", "resume_buffer_ms": 60000, "resume_window_ms": 21600000});
    let request = json!({"scope_digest": b.scope_digest, "policy": policy, "request": "sync labels for release 42"});
    assert_eq!(
        b.request_digest,
        sha256_hex(canonicalize(&request).unwrap().as_bytes())
    );
    assert_eq!(
        b.plan_digest.as_deref(),
        Some(sha256_hex(br#"{"rest":[{"method":"GET","route":"/x"}]}"#).as_str())
    );
    let receipt = d.receipt.unwrap();
    assert_eq!(receipt.bindings.scope_digest, b.scope_digest);
    assert_eq!(receipt.bindings.plan_digest, b.plan_digest);
    // No request: null in the request digest, and no plan digest.
    let mut bare = input(10, 4000);
    bare.as_object_mut().unwrap().remove("request");
    let d = run(&bare);
    let request = json!({"scope_digest": d.bindings.as_ref().unwrap().scope_digest, "policy": policy, "request": null});
    assert_eq!(
        d.bindings.as_ref().unwrap().request_digest,
        sha256_hex(canonicalize(&request).unwrap().as_bytes())
    );
    assert_eq!(d.bindings.unwrap().plan_digest, None);
    // The jitter bound is not part of the policy binding; the reserves are.
    let a = run(&with(
        input(10, 4000),
        "policy",
        json!({"jitter_max_ms": 5}),
    ));
    assert_eq!(
        a.bindings.unwrap().request_digest,
        run(&input(10, 4000)).bindings.unwrap().request_digest
    );
    let b = run(&with(
        input(10, 4000),
        "policy",
        json!({"rest_reserve": 500}),
    ));
    assert_ne!(
        b.bindings.unwrap().request_digest,
        run(&input(10, 4000)).bindings.unwrap().request_digest
    );
}

#[test]
fn output_never_shows_scope_or_request_text() {
    let mut value = input(10, 10);
    value["plan"] = json!({"rest": [{"method": "GET", "route": "/x", "count": 4501}]});
    for v in [input(10, 10), input(4000, 4000), value] {
        let text = run(&v).to_json();
        assert!(
            !text.contains("secret-repo") && !text.contains("release 42"),
            "{text}"
        );
    }
}

#[test]
fn fresh_approval_flag_is_carried() {
    let d = run(&with(
        input(10, 4000),
        "fresh_approval_required",
        json!(false),
    ));
    assert!(!d.receipt.unwrap().fresh_approval_required);
}

#[test]
fn shared_vectors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/decisions");
    let mut count = 0;
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let vector: Value = serde_json::from_str(&text).unwrap();
        let got: Value = serde_json::from_str(&decide_json(&vector["input"].to_string())).unwrap();
        if std::env::var_os("DEFERRAL_WRITE_VECTORS").is_some() {
            let updated = json!({"description": vector["description"], "input": vector["input"], "expected": got});
            std::fs::write(
                &path,
                serde_json::to_string_pretty(&updated).unwrap() + "\n",
            )
            .unwrap();
        } else {
            assert_eq!(got, vector["expected"], "{}", path.display());
        }
        count += 1;
    }
    assert!(count >= 8, "expected the decision vectors, found {count}");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the numbers, the decision never panics, and a deferral always carries a
        /// receipt that validates and respects the window rules.
        #[test]
        fn deferrals_always_carry_a_valid_receipt(
            limit in 0u64..6000, remaining in 0u64..6000, reset_s in 0u64..4_000_000_000,
            g_remaining in 0u64..6000, now_ms in 0u64..(1u64 << 54), offset in -10_000_000i64..10_000_000,
            reserve in prop_oneof![(0u64..7000).prop_map(|n| json!(n)), (0u32..=100).prop_map(|p| json!(format!("{p}%")))],
            buffer in 0u64..100_000_000, window in 0u64..100_000_000, jitter in 0u64..100_000_000,
            count in 0u64..3,
        ) {
            let mut value = json!({
                "rate": {"resources": {
                    "core": {"limit": limit, "remaining": remaining, "reset": reset_s},
                    "graphql": {"limit": 5000, "remaining": g_remaining, "reset": reset_s / 2}
                }},
                "policy": {"rest_reserve": reserve, "resume_buffer_ms": buffer, "resume_window_ms": window, "jitter_max_ms": jitter},
                "scope": "s", "now_ms": now_ms, "clock_offset_ms": offset
            });
            if count > 0 {
                value["plan"] = json!({"rest": [{"method": "GET", "route": "/x", "count": count}]});
            }
            let out = decide_json(&value.to_string());
            let out: Value = serde_json::from_str(&out).unwrap();
            if out["status"] == "deferred" {
                let receipt = validate(out["receipt"].to_string().as_bytes()).unwrap();
                prop_assert_eq!(receipt.issued_at_ms, now_ms);
                prop_assert!(receipt.resume_after_ms >= now_ms + buffer);
                prop_assert!(receipt.resume_by_ms <= now_ms + 86_400_000);
            } else {
                prop_assert!(out["receipt"].is_null());
            }
        }
    }
}

#[test]
fn every_decision_and_preflight_code_is_named_in_the_docs() {
    let docs = include_str!("../../docs/decision.md");
    for code in deferral_core::decision::Code::ALL {
        assert!(
            docs.contains(&format!("`{code}`")),
            "docs/decision.md does not name `{code}`"
        );
    }
}
