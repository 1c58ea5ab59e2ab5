//! Builders never produce an invalid receipt, and messages read as one precise sentence.

use deferral_core::receipt::{validate_str, Bindings, Reason, Receipt};

fn bindings() -> Bindings {
    Bindings {
        scope_digest: "a".repeat(64),
        request_digest: "b".repeat(64),
        plan_digest: None,
    }
}

#[test]
fn handoff_builder_checks_the_window() {
    let ok = Receipt::handoff(Reason::RestReserve, 10, 20, 30, bindings(), true).unwrap();
    assert!(!ok.is_retained());
    assert_eq!(validate_str(&ok.to_json()).unwrap(), ok);

    let err = Receipt::handoff(Reason::RestReserve, 10, 5, 30, bindings(), true).unwrap_err();
    assert_eq!(err.code(), "window-order");
    let err =
        Receipt::handoff(Reason::RestReserve, 0, 0, 86_400_001, bindings(), true).unwrap_err();
    assert_eq!(err.code(), "window-too-long");
    let err = Receipt::handoff(
        Reason::RestReserve,
        1 << 53,
        1 << 53,
        1 << 53,
        bindings(),
        true,
    )
    .unwrap_err();
    assert_eq!(err.code(), "invalid-time");
}

#[test]
fn handoff_builder_checks_digests() {
    let mut b = bindings();
    b.request_digest = "XYZ".into();
    let err = Receipt::handoff(Reason::GraphqlReserve, 1, 2, 3, b, false).unwrap_err();
    assert_eq!(err.code(), "invalid-digest");
    assert_eq!(err.path, "$.bindings.request_digest");
    assert_eq!(
        err.message,
        "$.bindings.request_digest must be exactly 64 lowercase hex characters"
    );
}

#[test]
fn retain_and_back() {
    let handoff =
        Receipt::handoff(Reason::ProviderSecondaryLimit, 1, 2, 3, bindings(), false).unwrap();
    let retained = handoff.retain(&"d".repeat(64), &"e".repeat(64)).unwrap();
    assert!(retained.is_retained());
    assert!(retained.to_json().contains("\"mode\":\"durable-host\""));
    assert_eq!(retained.as_handoff(), handoff);
    assert_eq!(
        handoff.retain("nope", &"e".repeat(64)).unwrap_err().code(),
        "invalid-digest"
    );
}

#[test]
fn exact_messages() {
    let cases = [
        ("[]", "not-an-object at $: $ must be an object, not array"),
        ("{\"schema\":1,\"schema\":1}", "duplicate-field at $.schema: the field $.schema appears more than once"),
        ("{} x", "malformed-json at $: not a JSON document: trailing data after the JSON value at byte 3"),
        ("{\"x\":1}", "unknown-field at $.x: $.x is not a field of the contract"),
        ("{}", "missing-field at $.schema: $.schema is required"),
    ];
    for (input, want) in cases {
        assert_eq!(validate_str(input).unwrap_err().to_string(), want);
    }
}
