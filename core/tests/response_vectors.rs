//! The shared provider-answer vectors (`tests/vectors/responses/`): real shapes of GitHub's
//! answers, each with exactly what the core records (`observe`) or reads as an attempt's rate
//! state (`rate-state`). The wasm build must answer the same (tests/node/response-vectors).
//!
//! To add one, write it with `"expected": null`, run
//! `DEFERRAL_WRITE_VECTORS=1 cargo test -p deferral-core --test response_vectors`, and check the
//! written `expected` by hand.

use deferral_core::{observe, rate_state};
use serde_json::{json, Value};

fn answer(entry: &str, input: &Value) -> Value {
    let text = match entry {
        "observe" => observe::observe_json(&input.to_string()),
        "rate-state" => rate_state::read_json(&input.to_string()),
        other => panic!("unknown vector entry {other}"),
    };
    serde_json::from_str(&text).unwrap()
}

#[test]
fn shared_response_vectors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/responses");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    for path in &names {
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let entry = vector["entry"].as_str().unwrap();
        let got = answer(entry, &vector["input"]);
        if std::env::var_os("DEFERRAL_WRITE_VECTORS").is_some() {
            let updated = json!({"description": vector["description"], "entry": entry,
                "input": vector["input"], "expected": got});
            std::fs::write(path, serde_json::to_string_pretty(&updated).unwrap() + "\n").unwrap();
        } else {
            assert_eq!(got, vector["expected"], "{}", path.display());
        }
    }
    assert!(
        names.len() >= 20,
        "expected the response vectors, found {}",
        names.len()
    );
}
