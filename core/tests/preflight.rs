//! The fresh resume preflight: every outcome, and that the first failing check decides.

use deferral_core::decision::{decide, DecisionInput, Status};
use deferral_core::digest::sha256_hex;
use deferral_core::preflight::{preflight, preflight_json, Preflight, PreflightInput};
use deferral_core::receipt::Receipt;
use serde_json::{json, Value};

const NOW: u64 = 1_800_000_000_000;
const RESET: u64 = 1_800_001_800;
const HANDLE: &str = "5c1f0e9a4b3d2c1b0a99887766554433221100ffeeddccbbaa0099887766aabb";

fn gate(core_remaining: u64, now_ms: u64) -> Value {
    json!({
        "rate": {"resources": {
            "core": {"limit": 5000, "remaining": core_remaining, "reset": RESET},
            "graphql": {"limit": 5000, "remaining": 4000, "reset": RESET}
        }},
        "plan": {"rest": [{"method": "POST", "route": "/repos/{owner}/{repo}/issues", "count": 3}]},
        "scope": {"repository": "octo-org/octo-repo", "job": "triage"},
        "request": {"issue": 7},
        "now_ms": now_ms
    })
}

/// The receipt a limited gate issued at NOW.
fn issued() -> Receipt {
    let input: DecisionInput = serde_json::from_value(gate(10, NOW)).unwrap();
    decide(&input).receipt.expect("the gate defers")
}

fn run(receipt: &Receipt, fresh: Value, handle: Option<&str>, approval: bool) -> Preflight {
    preflight(&PreflightInput {
        receipt: receipt.to_json(),
        wakeup_handle: handle.map(str::to_string),
        approval_granted: approval,
        fresh: serde_json::from_value(fresh).unwrap(),
    })
}

fn due(receipt: &Receipt) -> u64 {
    receipt.resume_after_ms
}

fn outcome(p: &Preflight) -> (Status, Option<&str>) {
    (p.status, p.code.as_deref())
}

#[test]
fn ready_when_due_bound_approved_and_clear() {
    let receipt = issued();
    let p = run(&receipt, gate(4000, due(&receipt)), None, true);
    assert_eq!(outcome(&p), (Status::Ready, None));
    assert_eq!(p.ownership, Some("handoff"));
    assert!(p.receipt.is_none());
    assert_eq!(p.decision.unwrap().status, Status::Ready);
}

#[test]
fn still_limited_gives_a_new_receipt() {
    let receipt = issued();
    // The window was replaced by a new one that is also nearly spent.
    let mut fresh = gate(20, due(&receipt) + 1000);
    fresh["rate"]["resources"]["core"]["reset"] = json!(RESET + 3600);
    let p = run(&receipt, fresh, None, true);
    assert_eq!(outcome(&p), (Status::Deferred, None));
    let new = p.receipt.unwrap();
    assert_eq!(new.issued_at_ms, due(&receipt) + 1000);
    assert!(new.resume_after_ms > (RESET + 3600) * 1000);
    assert_eq!(
        new.bindings, receipt.bindings,
        "the same work keeps the same bindings"
    );
    assert_ne!(new, receipt, "a new receipt, not the old one edited");
}

#[test]
fn invalid_receipts_are_blocked() {
    let fresh: DecisionInput = serde_json::from_value(gate(4000, NOW)).unwrap();
    for text in [
        "not json".to_string(),
        issued().to_json().replace("\"schema\":1", "\"schema\":2"),
        issued().to_json().replacen('{', "{\"token\":\"ghp_x\",", 1),
    ] {
        let p = preflight(&PreflightInput {
            receipt: text,
            wakeup_handle: None,
            approval_granted: true,
            fresh: fresh.clone(),
        });
        assert_eq!(outcome(&p), (Status::Error, Some("invalid-receipt")));
        assert!(p.ownership.is_none() && p.decision.is_none());
    }
    let p = preflight(&PreflightInput {
        receipt: "{}".into(),
        wakeup_handle: None,
        approval_granted: true,
        fresh,
    });
    assert!(
        p.diagnostics[0].message.contains("missing-field"),
        "{}",
        p.diagnostics[0].message
    );
}

#[test]
fn not_yet_due_and_expired_at_their_boundaries() {
    let receipt = issued();
    let p = run(&receipt, gate(4000, due(&receipt) - 1_500), None, true);
    assert_eq!(outcome(&p), (Status::Blocked, Some("not-yet-due")));
    assert_eq!(
        p.diagnostics[0].message,
        "the receipt is not due for another 1500 ms"
    );
    assert_eq!(
        outcome(&run(&receipt, gate(4000, due(&receipt)), None, true)),
        (Status::Ready, None)
    );
    assert_eq!(
        outcome(&run(&receipt, gate(4000, receipt.resume_by_ms), None, true)),
        (Status::Ready, None)
    );
    let p = run(&receipt, gate(4000, receipt.resume_by_ms + 1), None, true);
    assert_eq!(outcome(&p), (Status::Blocked, Some("expired")));
}

#[test]
fn retained_receipts_need_the_wake_up_handle() {
    let handle_digest = sha256_hex(HANDLE.as_bytes());
    let receipt = issued()
        .retain(&handle_digest, &sha256_hex(b"cancel"))
        .unwrap();
    let at = gate(4000, due(&receipt));
    let p = run(&receipt, at.clone(), None, true);
    assert_eq!(outcome(&p), (Status::Blocked, Some("claim-unavailable")));
    assert_eq!(p.ownership, Some("retained"));
    let wrong = HANDLE.replace('5', "6");
    assert_eq!(
        run(&receipt, at.clone(), Some(&wrong), true)
            .code
            .as_deref(),
        Some("claim-unavailable")
    );
    // The digest is of the handle's text, not of its decoded bytes.
    let decoded_digest = sha256_hex(
        &(0..32)
            .map(|i| u8::from_str_radix(&HANDLE[2 * i..2 * i + 2], 16).unwrap())
            .collect::<Vec<_>>(),
    );
    assert_ne!(decoded_digest, handle_digest);
    assert_eq!(
        outcome(&run(&receipt, at.clone(), Some(HANDLE), true)),
        (Status::Ready, None)
    );
    // A trailing newline from an environment variable or file is tolerated.
    assert_eq!(
        outcome(&run(&receipt, at, Some(&format!("{HANDLE}\n")), true)),
        (Status::Ready, None)
    );
    // A handoff receipt ignores any handle.
    let handoff = issued();
    assert_eq!(
        outcome(&run(
            &handoff,
            gate(4000, due(&handoff)),
            Some("anything"),
            true
        )),
        (Status::Ready, None)
    );
}

#[test]
fn binding_mismatch_names_the_field() {
    let receipt = issued();
    let at = gate(4000, due(&receipt));
    let mismatch = |key: &str, value: Value| {
        let mut fresh = at.clone();
        if value.is_null() {
            fresh.as_object_mut().unwrap().remove(key);
        } else {
            fresh[key] = value;
        }
        let p = run(&receipt, fresh, None, true);
        assert_eq!(
            outcome(&p),
            (Status::Blocked, Some("binding-mismatch")),
            "{key}"
        );
        let field = p.field.unwrap();
        // The message names the binding; the flags that feed it are the driver's words
        // (driver/src/attempt/preflight_words.rs): the domain names no flag.
        let message = &p.diagnostics[0].message;
        assert!(message.contains(field), "{field}: {message}");
        assert!(!message.contains("--"), "{field}: {message}");
        field
    };
    assert_eq!(
        mismatch(
            "scope",
            json!({"repository": "octo-org/other", "job": "triage"})
        ),
        "scope_digest"
    );
    assert_eq!(mismatch("request", json!({"issue": 8})), "request_digest");
    assert_eq!(mismatch("request", Value::Null), "request_digest");
    assert_eq!(
        mismatch("policy", json!({"rest_reserve": "20%"})),
        "request_digest"
    );
    assert_eq!(
        mismatch(
            "plan",
            json!({"rest": [{"method": "POST", "route": "/repos/{owner}/{repo}/issues", "count": 4}]})
        ),
        "plan_digest"
    );
    assert_eq!(mismatch("plan", Value::Null), "plan_digest");
    // Same plan, keys in another order and other whitespace: same canonical digest.
    let mut fresh = at.clone();
    fresh["plan"] = serde_json::from_str(
        r#"{ "rest" : [ {"count":3, "route":"/repos/{owner}/{repo}/issues", "method":"POST"} ] }"#,
    )
    .unwrap();
    assert_eq!(run(&receipt, fresh, None, true).status, Status::Ready);
    // The jitter bound is not bound: changing it is not a mismatch.
    let mut fresh = at;
    fresh["policy"] = json!({"jitter_max_ms": 1});
    assert_eq!(run(&receipt, fresh, None, true).status, Status::Ready);
}

#[test]
fn approval_required_unless_granted_or_not_asked() {
    let receipt = issued();
    assert!(receipt.fresh_approval_required);
    let p = run(&receipt, gate(4000, due(&receipt)), None, false);
    assert_eq!(outcome(&p), (Status::Blocked, Some("approval-required")));
    // The domain names no flag: the driver adds the way out (tests/node/action-resume.test.mjs
    // pins the whole message).
    assert_eq!(
        p.diagnostics[0].message,
        "the receipt requires fresh approval and none was granted"
    );
    let mut no_approval = gate(10, NOW);
    no_approval["fresh_approval_required"] = json!(false);
    let input: DecisionInput = serde_json::from_value(no_approval).unwrap();
    let receipt = decide(&input).receipt.unwrap();
    assert_eq!(
        outcome(&run(&receipt, gate(4000, due(&receipt)), None, false)),
        (Status::Ready, None)
    );
}

#[test]
fn the_fresh_decision_can_block() {
    // The fresh token has a far smaller window than the one the receipt was issued under:
    // 3 planned requests plus a 10% reserve (rounded up to 1) fit 1,000 but never fit 3.
    let receipt = issued();
    let mut fresh = gate(1000, due(&receipt));
    fresh["rate"]["resources"]["core"]["limit"] = json!(1000);
    fresh["rate"]["resources"]["core"]["reset"] = json!(RESET + 3600);
    let p = run(&receipt, fresh.clone(), None, true);
    assert_eq!(outcome(&p), (Status::Ready, None));
    fresh["rate"]["resources"]["core"]["remaining"] = json!(3);
    fresh["rate"]["resources"]["core"]["limit"] = json!(3);
    let p = run(&receipt, fresh, None, true);
    assert_eq!(outcome(&p), (Status::Blocked, Some("plan-exceeds-window")));
    assert_eq!(
        p.decision.unwrap().code.as_deref(),
        Some("plan-exceeds-window")
    );
}

#[test]
fn checks_run_in_order() {
    let receipt = issued();
    // Not due, wrong scope, no approval: not-yet-due is reported.
    let mut fresh = gate(4000, NOW);
    fresh["scope"] = json!("other");
    assert_eq!(
        run(&receipt, fresh.clone(), None, false).code.as_deref(),
        Some("not-yet-due")
    );
    // Expired beats the rest.
    fresh["now_ms"] = json!(receipt.resume_by_ms + 1);
    assert_eq!(
        run(&receipt, fresh.clone(), None, false).code.as_deref(),
        Some("expired")
    );
    // Due: the claim comes before the bindings.
    fresh["now_ms"] = json!(due(&receipt));
    let retained = receipt
        .retain(&sha256_hex(HANDLE.as_bytes()), &sha256_hex(b"c"))
        .unwrap();
    assert_eq!(
        run(&retained, fresh.clone(), None, false).code.as_deref(),
        Some("claim-unavailable")
    );
    // Claimed: the bindings come before approval.
    assert_eq!(
        run(&retained, fresh, Some(HANDLE), false).code.as_deref(),
        Some("binding-mismatch")
    );
    // Bound: approval comes before the fresh rate decision.
    assert_eq!(
        run(&retained, gate(10, due(&receipt)), Some(HANDLE), false)
            .code
            .as_deref(),
        Some("approval-required")
    );
}

#[test]
fn json_entry_point() {
    let receipt = issued();
    let input = json!({
        "receipt": receipt.to_json(),
        "approval_granted": true,
        "fresh": gate(4000, due(&receipt)),
    });
    let out: Value = serde_json::from_str(&preflight_json(&input.to_string())).unwrap();
    assert_eq!(out["status"], "ready");
    assert_eq!(out["decision"]["status"], "ready");
    assert_eq!(out["receipt"], Value::Null);
    let out: Value = serde_json::from_str(&preflight_json("{\"receipt\": 1}")).unwrap();
    assert_eq!(
        (out["status"].as_str(), out["code"].as_str()),
        (Some("error"), Some("invalid-input"))
    );
    // Still limited: the new receipt appears as a JSON object.
    let mut again = input.clone();
    again["fresh"] = gate(10, due(&receipt));
    // A new window (the old one has reset by now) that is already nearly spent.
    again["fresh"]["rate"]["resources"]["core"]["reset"] = json!(RESET + 3600);
    let out: Value = serde_json::from_str(&preflight_json(&again.to_string())).unwrap();
    assert_eq!(out["status"], "deferred");
    assert_eq!(out["receipt"]["version"], "deferred-receipt-v1");
    assert!(
        !out.to_string().contains("octo-repo"),
        "no scope text in the output"
    );
}
