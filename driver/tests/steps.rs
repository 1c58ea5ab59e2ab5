//! The steps the driver answers, byte for byte: the tag first, each kind's members in the order
//! `driver/src/step.rs` declares them, the CLI's line inside `stdout` exactly as users see it
//! (the same bytes as before steps were typed). A gate of the CLI that defers, in two crossings,
//! and the Action's first crossing, which masks the token before anything else is printed.

use deferral_driver::run::run_json;
use serde_json::json;

const NOW: u64 = 1_800_000_000_000;

fn cli(crossing: u64, answer: Option<serde_json::Value>) -> String {
    let mut input = json!({"surface": "cli", "crossing": crossing, "now_ms": NOW,
        "argv": ["gate", "--scope", "s", "--rest-reserve", "1", "--graphql-reserve", "1"],
        "env": {"GITHUB_TOKEN": "test-token-not-real", "GITHUB_API_URL": "http://127.0.0.1:9"}});
    if let Some(answer) = answer {
        input["answer"] = answer;
    }
    run_json(&input.to_string(), &[])
}

#[test]
fn a_cli_gate_that_defers_fetches_then_is_done() {
    assert_eq!(cli(0, None), FETCH);
    let body = json!({"resources": {
        "core": {"limit": 5000, "remaining": 4000, "reset": 1_800_003_600u64, "used": 1000},
        "graphql": {"limit": 5000, "remaining": 0, "reset": 1_800_001_800u64, "used": 5000}}});
    let answer = json!({"status": 200, "headers": [], "body": body.to_string()});
    assert_eq!(cli(1, Some(answer)), DONE);
}

#[test]
fn the_actions_first_step_masks_the_token_and_holds_the_ledger() {
    let input = json!({"surface": "action", "crossing": 0, "now_ms": NOW,
        "env": {"INPUT_TOKEN": "test-token-not-real", "INPUT_SCOPE": "s",
            "GITHUB_API_URL": "http://127.0.0.1:9", "INPUT_LEDGER-FILE": "/tmp/l.json"}});
    assert_eq!(run_json(&input.to_string(), &[]), ACTION_FETCH);
}

#[test]
fn a_crossing_of_the_wrong_shape_is_invalid_attempt() {
    let step: serde_json::Value =
        serde_json::from_str(&run_json(r#"{"surface":"cli","argv":"gate"}"#, &[])).unwrap();
    assert_eq!(step["step"], "done");
    assert_eq!(step["process_exit"], 2, "{step}");
    let line: serde_json::Value = serde_json::from_str(step["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(line["error"]["code"], "invalid-attempt", "{line}");
}

const FETCH: &str = r#"{"step":"fetch","request":{"url":"http://127.0.0.1:9/rate_limit","headers":[["accept","application/vnd.github+json"],["user-agent","deferral"],["x-github-api-version","2022-11-28"]],"token_env":"GITHUB_TOKEN","proxy":null,"timeout_ms":15000,"max_bytes":1048576}}"#;

const DONE: &str = r#"{"step":"done","exit":6,"status":"deferred","process_exit":6,"stdout":"{\"status\":\"deferred\",\"mode\":\"gate\",\"code\":null,\"reason\":\"graphql-reserve\",\"resumeAfter\":\"2027-01-15T08:31:28.901Z\",\"resumeBy\":\"2027-01-15T14:31:28.901Z\",\"freshApprovalRequired\":true,\"unlimited\":false,\"rest\":{\"limit\":5000,\"remaining\":4000,\"reserve\":1,\"plannedCost\":0,\"reset\":1800003600,\"ok\":true},\"graphql\":{\"limit\":5000,\"remaining\":0,\"reserve\":1,\"plannedCost\":0,\"reset\":1800001800,\"ok\":false},\"plan\":null,\"secondaryMinutes\":0,\"bindings\":{\"scope_digest\":\"0f4657778ae14ff7aeeb2c2190ede79099aa9c4e8a9e54829462f0e92af659e5\",\"request_digest\":\"d63e2b7d194423cdf3f7ed75bb7bf0b8f80cce4c94b715566a272eb9198cc00c\",\"plan_digest\":null},\"diagnostics\":[{\"code\":\"graphql-below-reserve\",\"message\":\"graphql has 0 remaining; the plan needs 0 above a reserve of 1\"}],\"deferredReceipt\":{\"schema\":1,\"version\":\"deferred-receipt-v1\",\"status\":\"deferred\",\"reason\":\"graphql-reserve\",\"issued_at_ms\":1800000000000,\"resume_after_ms\":1800001888901,\"resume_by_ms\":1800023488901,\"bindings\":{\"scope_digest\":\"0f4657778ae14ff7aeeb2c2190ede79099aa9c4e8a9e54829462f0e92af659e5\",\"request_digest\":\"d63e2b7d194423cdf3f7ed75bb7bf0b8f80cce4c94b715566a272eb9198cc00c\",\"plan_digest\":null},\"ownership\":{\"disposition\":\"handoff\",\"mode\":\"governed-handoff\",\"wakeup_digest\":null,\"cancellation_digest\":null},\"fresh_approval_required\":true}}\n","stderr":null,"ledger":null,"writes":[]}"#;

const ACTION_FETCH: &str = r#"{"step":"fetch","request":{"url":"http://127.0.0.1:9/rate_limit","headers":[["accept","application/vnd.github+json"],["user-agent","deferral"],["x-github-api-version","2022-11-28"]],"token_env":"INPUT_TOKEN","proxy":null,"timeout_ms":15000,"max_bytes":1048576},"lock":{"path":"/tmp/l.json","limit":1048576,"wait_ms":10000,"stale_ms":30000},"stdout":"::add-mask::test-token-not-real\n"}"#;
