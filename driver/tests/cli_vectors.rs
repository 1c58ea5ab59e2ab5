//! The CLI vectors (`tests/vectors/cli/cases.json`) through the core natively: the first
//! crossing of each case is its last, with the exact exit code, line and message.

use serde_json::{json, Value};

mod common;

use common::contains;

#[test]
fn cli_vectors_answer_natively() {
    let text = include_str!("../../tests/vectors/cli/cases.json");
    let vectors: Value = serde_json::from_str(text).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let input = json!({"surface": "cli", "argv": case["argv"], "env": case["env"],
            "now_ms": 1_800_000_000_000u64, "crossing": 0});
        let step: Value =
            serde_json::from_str(&deferral_driver::run::run_json(&input.to_string(), &[])).unwrap();
        assert_eq!(step["step"], "done", "{name}: {step}");
        assert_eq!(step["process_exit"], case["exit"], "{name}: {step}");
        let stdout = step["stdout"].as_str().unwrap();
        if let Some(start) = case["stdout_starts"].as_str() {
            assert!(stdout.starts_with(start), "{name}: {stdout}");
            continue;
        }
        assert!(
            stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
            "{name}: one line"
        );
        let line: Value = serde_json::from_str(stdout).unwrap();
        assert!(contains(&line, &case["line"]), "{name}: {line}");
    }
}
