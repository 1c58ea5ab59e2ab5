//! The run vectors (`tests/vectors/runs/cases.jsonl`) natively: each line is one crossing of a
//! CLI or Action run as the JS shell made it in the Node suite (the input text and the bytes of
//! the files read so far), and the core must answer the recorded step byte for byte. So the
//! attempt, the CLI's parsing and help, and every view are reached by `cargo test` (and by
//! `cargo mutants`), not only through Node. `tests/node/run-vectors.test.mjs` checks the same
//! file through dist/.

use deferral_driver::run::run_json;
use serde_json::Value;

/// The base64 alphabet's value of one byte (standard alphabet, `=` padding).
fn sextet(b: u8) -> u32 {
    u32::from(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {b}"),
    })
}

fn base64(text: &str) -> Vec<u8> {
    let bytes: Vec<u8> = text.bytes().filter(|b| *b != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 6) | sextet(*b)) << (6 * (4 - chunk.len()));
        let got = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&got[..chunk.len() - 1]);
    }
    out
}

#[test]
fn base64_reads_what_node_writes() {
    assert_eq!(base64(""), b"");
    assert_eq!(base64("Zg=="), b"f");
    assert_eq!(base64("Zm8="), b"fo");
    assert_eq!(base64("Zm9v"), b"foo");
    assert_eq!(base64("Zm9vYmFy/+8="), b"foobar\xff\xef");
}

#[test]
fn every_run_vector_answers_its_recorded_step() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vectors/runs/cases.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the run vectors");
    let cases: Vec<Value> = text
        .lines()
        .skip(1) // what the file is
        .map(|l| serde_json::from_str(l).expect("a run vector is JSON"))
        .collect();
    assert!(
        cases.len() > 300,
        "the vectors were cut short: {}",
        cases.len()
    );
    let mut wrong = Vec::new();
    let mut surfaces = std::collections::BTreeSet::new();
    for (i, case) in cases.iter().enumerate() {
        let input = case["input"].as_str().expect("input text");
        let files = base64(case["files"].as_str().expect("files"));
        let want = case["answer"].as_str().expect("answer text");
        let got = run_json(input, &files);
        if let Ok(v) = serde_json::from_str::<Value>(input) {
            surfaces.insert(v["surface"].as_str().unwrap_or_default().to_string());
        }
        if got != want {
            wrong.push(format!(
                "line {}:\n  input {input}\n  want  {want}\n  got   {got}",
                i + 2
            ));
        }
    }
    assert!(
        surfaces.contains("action") && surfaces.contains("cli"),
        "{surfaces:?}"
    );
    let shown: Vec<_> = wrong.iter().take(5).cloned().collect();
    assert!(
        wrong.is_empty(),
        "{} of {} run vectors differ (first {}):\n{}",
        wrong.len(),
        cases.len(),
        shown.len(),
        shown.join("\n")
    );
}
