//! The library vectors (`tests/vectors/library/cases.json`) natively: each input is one library
//! crossing as the JS sends it, and the core's answer must be the recorded text byte for byte.
//! `tests/node/library-vectors.test.mjs` checks the same file through dist/.

use deferral_driver::library::answer;
use serde_json::Value;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vectors/library/cases.json"
    );
    let text = std::fs::read_to_string(path).expect("the library vectors");
    let doc: Value = serde_json::from_str(&text).expect("the library vectors are JSON");
    doc["cases"].as_array().expect("cases").clone()
}

#[test]
fn every_library_vector_answers_its_recorded_text() {
    let cases = cases();
    assert!(
        cases.len() > 400,
        "the vectors were cut short: {}",
        cases.len()
    );
    let mut wrong = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let got = answer(&case["input"].to_string());
        let want = case["answer"].as_str().expect("answer text");
        if got != want {
            wrong.push(format!(
                "case {i} (op {}):\n  want {want}\n  got  {got}",
                case["input"]["op"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} library vectors differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_vectors_reach_every_op_and_both_outcomes() {
    let cases = cases();
    let mut ops: Vec<&str> = cases
        .iter()
        .filter_map(|c| c["input"]["op"].as_str())
        .collect();
    ops.sort_unstable();
    ops.dedup();
    assert!(ops.len() >= 40, "ops reached: {ops:?}");
    let refused = cases
        .iter()
        .filter(|c| {
            c["answer"]
                .as_str()
                .is_some_and(|a| a.ends_with(r#""ok":false}"#))
        })
        .count();
    assert!(refused > 0 && refused < cases.len(), "refusals: {refused}");
}
