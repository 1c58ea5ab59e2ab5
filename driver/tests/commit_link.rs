//! The Action's `coordinator-commit`: the commit a deferred job belongs to goes to the durable
//! port beside the receipt (`POST /v1/deferrals`, field `commit`: the repository from
//! `GITHUB_REPOSITORY`, the SHA given, context `deferral/` and the job), never inside it; an
//! input that is not a full SHA, or no repository to go with it, is `invalid-coordinator-commit`
//! before any request; without the input nothing is sent.

use deferral_driver::run::run_json;
use serde_json::{json, Value};

const NOW: u64 = 1_800_000_000_000;
const SHA: &str = "0123456789ABCDEF0123456789abcdef01234567";

fn action(crossing: u64, extra: &[(&str, &str)], answer: Option<Value>) -> Value {
    let mut env = json!({"INPUT_TOKEN": "test-token-not-real", "INPUT_SCOPE": "s",
        "INPUT_ON-DEFERRAL": "succeed",
        "GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_REPOSITORY": "octo-org/app",
        "GITHUB_JOB": "label-sync",
        "INPUT_COORDINATOR-URL": "http://127.0.0.1:9", "INPUT_COORDINATOR-TOKEN": "port-token-not-real",
        "INPUT_COORDINATOR-LAUNCH": "workflow-dispatch:octo-org/app/resume.yml@main"});
    for (k, v) in extra {
        env[*k] = json!(v);
    }
    let mut input = json!({"surface": "action", "crossing": crossing, "now_ms": NOW, "env": env});
    if let Some(answer) = answer {
        input["answer"] = answer;
    }
    serde_json::from_str(&run_json(&input.to_string(), &[])).unwrap()
}

/// The second crossing: GitHub's rate state, low on REST.
fn low() -> Value {
    let body = json!({"resources": {
        "core": {"limit": 5000, "remaining": 10, "reset": 1_800_003_600u64, "used": 4990},
        "graphql": {"limit": 5000, "remaining": 5000, "reset": 1_800_003_600u64, "used": 0}}});
    json!({"status": 200, "headers": [], "body": body.to_string()})
}

/// The body the step sends to the port, as JSON.
fn retain_body(step: &Value) -> Value {
    let body = step["request"]["body"]
        .as_str()
        .unwrap_or_else(|| panic!("{step}"));
    serde_json::from_str(body).unwrap()
}

#[test]
fn the_commit_goes_beside_the_receipt() {
    let first = action(0, &[("INPUT_COORDINATOR-COMMIT", SHA)], None);
    assert_eq!(first["step"], "fetch", "{first}");
    let step = action(1, &[("INPUT_COORDINATOR-COMMIT", SHA)], Some(low()));
    let body = retain_body(&step);
    assert_eq!(
        body["commit"],
        json!({"repo": "octo-org/app", "sha": SHA.to_ascii_lowercase(), "context": "deferral/label-sync"}),
        "{body}"
    );
    let receipt = body["receipt"].to_string();
    assert!(!receipt.contains(&SHA.to_ascii_lowercase()), "{receipt}");
    assert!(!receipt.contains("commit"), "{receipt}");
}

#[test]
fn without_the_input_no_commit_is_sent() {
    let step = action(1, &[], Some(low()));
    let body = retain_body(&step);
    assert!(body.get("commit").is_none(), "{body}");
}

#[test]
fn a_commit_that_is_not_a_full_sha_or_has_no_repository_is_refused_before_any_request() {
    for extra in [
        vec![("INPUT_COORDINATOR-COMMIT", "0123456")],
        vec![("INPUT_COORDINATOR-COMMIT", "main")],
        vec![("INPUT_COORDINATOR-COMMIT", SHA), ("GITHUB_REPOSITORY", "")],
        vec![
            ("INPUT_COORDINATOR-COMMIT", SHA),
            ("GITHUB_REPOSITORY", "no-slash"),
        ],
    ] {
        let step = action(0, &extra, None);
        assert_eq!(step["step"], "done", "{extra:?}: {step}");
        assert_eq!(step["exit"], 2, "{extra:?}: {step}");
        let text = step.to_string();
        assert!(
            text.contains("invalid-coordinator-commit"),
            "{extra:?}: {text}"
        );
    }
}

#[test]
fn the_cli_gate_takes_it_as_a_flag() {
    let cli = |crossing: u64, answer: Option<Value>| -> Value {
        let mut input = json!({"surface": "cli", "crossing": crossing, "now_ms": NOW,
            "argv": ["gate", "--scope", "s", "--coordinator-url", "http://127.0.0.1:9",
                "--coordinator-launch", "exec:/usr/local/bin/resume", "--coordinator-commit", SHA],
            "env": {"GITHUB_TOKEN": "test-token-not-real", "GITHUB_API_URL": "http://127.0.0.1:9",
                "DEFERRAL_COORDINATOR_TOKEN": "port-token-not-real",
                "GITHUB_REPOSITORY": "octo-org/app", "GITHUB_JOB": "nightly"}});
        if let Some(answer) = answer {
            input["answer"] = answer;
        }
        serde_json::from_str(&run_json(&input.to_string(), &[])).unwrap()
    };
    assert_eq!(cli(0, None)["step"], "fetch");
    let body = retain_body(&cli(1, Some(low())));
    assert_eq!(
        body["commit"],
        json!({"repo": "octo-org/app", "sha": SHA.to_ascii_lowercase(), "context": "deferral/nightly"}),
        "{body}"
    );
}
