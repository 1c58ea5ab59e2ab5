//! docs/host-admission.md's "Trying it against a local `serve`" block, run as written with bash
//! and curl against a real `serve` (on a free port instead of 8787), each answer checked against
//! what the block's comments say.

mod common;

use common::Host;
use serde_json::Value;
use std::process::{Command, Stdio};

const DOCS: &str = include_str!("../../docs/host-admission.md");
const TOKEN: &str = "test-token-not-real-0123456789";

/// The `sh` block after `In another` in the section.
fn block() -> String {
    let section = DOCS
        .split("### Trying it against a local `serve`")
        .nth(1)
        .expect("the section");
    let after = section
        .split("In another")
        .nth(1)
        .expect("the second block");
    let start = after.find("```sh\n").expect("a sh block") + "```sh\n".len();
    after[start..][..after[start..].find("```").unwrap()].to_string()
}

#[test]
fn the_admission_example_of_the_docs_works_as_written() {
    let text = block();
    assert!(text.contains(&format!("T={TOKEN}")), "{text}");
    let host = Host::new();
    let (mut serve, addr) =
        host.spawn_serve(&["serve", "--listen", "127.0.0.1:0"], TOKEN, Stdio::null());
    let script = text.replace("http://127.0.0.1:8787", &format!("http://{addr}"));
    let out = Command::new("bash")
        .args(["-euc", &script])
        .output()
        .expect("bash and curl");
    let _ = serve.kill();
    let _ = serve.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("JSON: {l}")))
        .collect();
    assert_eq!(answers.len(), 5, "{stdout}");
    assert_eq!(answers[0]["admitted"], true, "{stdout}");
    let admission = answers[0]["admission"].as_str().unwrap();
    assert!(
        admission.starts_with("1-") && admission.len() == 34,
        "the number and its secret: {admission}"
    );
    assert_eq!(answers[0]["window"]["rest"]["remaining"], 15);
    assert_eq!(answers[1]["admitted"], false);
    assert!(
        answers[1]["reason"]
            .as_str()
            .unwrap()
            .starts_with("pool app-42: 20 REST do not fit above the reserve 5 in the 15 left of "),
        "{stdout}"
    );
    assert_eq!(answers[2], serde_json::json!({"released": true}));
    assert_eq!(
        answers[3],
        serde_json::json!({"released": false, "already": true})
    );
    let app = answers[4]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "app-42")
        .unwrap();
    assert_eq!(app["rest"]["remaining"], 15, "{app}");
    assert_eq!(app["admissions"]["open"], 0, "{app}");
}
