//! The admission vectors (`tests/vectors/admissions/cases.json`) through the core natively: a
//! driver answers each step the core asks for (GitHub's one `GET /rate_limit`, the port's
//! `POST /v1/admissions` and `POST /v1/deferrals`) from the case, and checks the steps, the
//! bodies sent and what the gate ended with, and that the host's readers (`deferral_protocol`'s)
//! read what was sent and the CLI's line as written. `tests/node/admission-vectors.test.mjs` runs
//! the same file through dist/.

use deferral_protocol::{AdmissionRequest, Cost, GateLine, RateState};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::HashMap;

mod common;

use common::contains;

/// A port's answer as the shell hands it over: status and the body as text.
fn port_reply(reply: &Value, sent: &Value) -> Value {
    let body = match (&reply["body"], reply.get("retained_as")) {
        (_, Some(as_)) => {
            let mut receipt = sent["receipt"].clone();
            receipt["ownership"] = json!({"disposition": "retained", "mode": "durable-host",
                "wakeup_digest": "a".repeat(64), "cancellation_digest": "b".repeat(64)});
            json!({"id": as_["id"], "receipt": receipt, "cancellation_handle": as_["handle"]})
                .to_string()
        }
        (Value::String(text), None) => text.clone(),
        (other, None) => other.to_string(),
    };
    json!({"status": reply["status"], "headers": [], "body": body})
}

struct Run {
    steps: Vec<String>,
    done: Value,
    sent: Vec<(String, Value)>,
    github_requests: usize,
    /// Bodies with a cost and rate that the host's readers read back.
    read_back: usize,
}

fn drive(doc: &Value, case: &Value) -> Run {
    let name = case["name"].as_str().unwrap();
    let action = case["surface"] == "action";
    let mut env = case.get("env").cloned().unwrap_or_else(|| {
        json!({"GITHUB_TOKEN": "test-token-not-real",
            "DEFERRAL_COORDINATOR_TOKEN": "test-port-token-not-real"})
    });
    let mut input = json!({"surface": if action { "action" } else { "cli" },
        "now_ms": doc["now_ms"], "utc_offset_min": 0, "tmpdir": "/tmp", "stderr_tty": false,
        "crossing": 0, "file_sizes": []});
    if action {
        env = json!({"INPUT_TOKEN": "test-token-not-real", "RUNNER_TEMP": "/tmp",
            "GITHUB_STEP_SUMMARY": "/tmp/summary.md"});
        for (k, v) in case["inputs"].as_object().unwrap() {
            env[format!("INPUT_{}", k.to_uppercase())] = v.clone();
        }
    } else {
        input["argv"] = case["argv"].clone();
    }
    input["env"] = env;
    let mut run = Run {
        steps: Vec::new(),
        done: Value::Null,
        sent: Vec::new(),
        github_requests: 0,
        read_back: 0,
    };
    for _ in 0..8 {
        let step: Value =
            serde_json::from_str(&deferral_driver::run::run_json(&input.to_string(), &[])).unwrap();
        run.steps.push(step["step"].as_str().unwrap().to_string());
        if step["step"] == "done" {
            run.done = step;
            return run;
        }
        let request = &step["request"];
        let url = request["url"].as_str().unwrap();
        let into = request["into"].as_str().unwrap_or("answer").to_string();
        let error_into = request["error_into"].as_str().unwrap_or("transport_error");
        let body: Value = request["body"]
            .as_str()
            .map_or(Value::Null, |b| serde_json::from_str(b).unwrap());
        if let Some(text) = request["body"].as_str() {
            run.read_back += usize::from(host_reads_as_sent(name, url, text));
        }
        run.sent.push((url.to_string(), body.clone()));
        let reply = if url.ends_with("/rate_limit") {
            run.github_requests += 1;
            Some(doc["github"][case["github"].as_str().unwrap()].clone())
        } else {
            let which = if url.ends_with("/v1/admissions") {
                "admission"
            } else {
                assert!(url.ends_with("/v1/deferrals"), "{name}: {url}");
                "retain"
            };
            let reply = &case[which];
            assert!(
                reply.is_object(),
                "{name}: asked {url} without a {which} answer"
            );
            match reply["error"].as_str() {
                Some(e) => {
                    input[error_into] = Value::from(e);
                    None
                }
                None => Some(port_reply(reply, &body)),
            }
        };
        if let Some(reply) = reply {
            input[into] = reply;
        }
        input["crossing"] = Value::from(input["crossing"].as_u64().unwrap() + 1);
    }
    panic!("{name}: no done step after 8 crossings");
}

/// The cost and rate the gate sends a port, read back with the host's readers (the protocol's),
/// write the same bytes again: the admission request whole, the members beside a receipt.
fn host_reads_as_sent(name: &str, url: &str, text: &str) -> bool {
    let members: HashMap<String, Box<RawValue>> = serde_json::from_str(text).unwrap();
    let (Some(cost), Some(rate)) = (members.get("cost"), members.get("rate")) else {
        return false;
    };
    let read = |raw: &RawValue| serde_json::from_str::<Value>(raw.get()).unwrap();
    let cost = Cost::read(&read(cost)).unwrap_or_else(|e| panic!("{name}: {url}: {e}"));
    let rate = RateState::read(&read(rate)).unwrap_or_else(|e| panic!("{name}: {url}: {e}"));
    assert_eq!(serde_json::to_string(&cost).unwrap(), members["cost"].get());
    assert_eq!(serde_json::to_string(&rate).unwrap(), members["rate"].get());
    if url.ends_with("/v1/admissions") {
        let pool = read(&members["pool"]).as_str().unwrap().to_string();
        let again = AdmissionRequest { pool, cost, rate };
        assert_eq!(serde_json::to_string(&again).unwrap(), text, "{name}");
    }
    true
}

/// The CLI's line, read as the host reads it: the same figures, the receipt's exact text.
fn host_reads_the_line(name: &str, stdout: &str, line: &Value) {
    let read = GateLine::parse(stdout)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .unwrap_or_else(|| panic!("{name}: not read as a gate line"));
    assert_eq!(
        Some(read.status.as_str()),
        line["status"].as_str(),
        "{name}"
    );
    for (resource, figures) in read.per_resource.iter() {
        assert_eq!(
            serde_json::to_value(figures).unwrap(),
            line[resource.as_str()],
            "{name}"
        );
    }
    if let Some(receipt) = &read.receipt {
        assert_eq!(
            serde_json::from_str::<Value>(receipt).unwrap(),
            line["deferredReceipt"],
            "{name}"
        );
    }
}

#[test]
fn admission_vectors_answer_natively() {
    let text = include_str!("../../tests/vectors/admissions/cases.json");
    let doc: Value = serde_json::from_str(text).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 25);
    let mut read_back = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let run = drive(&doc, case);
        read_back += run.read_back;
        let done = &run.done;
        let steps: Vec<&str> = case["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(run.steps, steps, "{name}: {done}");
        assert_eq!(done["exit"], case["exit"], "{name}: {done}");
        assert!(
            run.github_requests <= 1,
            "{name}: GitHub gets one request at most"
        );
        let sent = |end: &str| {
            run.sent
                .iter()
                .find(|(url, _)| url.ends_with(end))
                .map(|(_, body)| body.clone())
        };
        if let Some(expected) = case.get("admit_body") {
            assert_eq!(sent("/v1/admissions").as_ref(), Some(expected), "{name}");
        }
        if let Some(expected) = case.get("retain_body") {
            let body = sent("/v1/deferrals").unwrap();
            assert!(contains(&body, expected), "{name}: {body}");
        }
        if let Some(keys) = case.get("retain_keys") {
            let body = sent("/v1/deferrals").unwrap();
            let mut got: Vec<&String> = body.as_object().unwrap().keys().collect();
            let mut want: Vec<String> = serde_json::from_value(keys.clone()).unwrap();
            got.sort();
            want.sort();
            assert_eq!(got, want.iter().collect::<Vec<_>>(), "{name}");
        }
        let stdout = done["stdout"].as_str().unwrap();
        let mut message = String::new();
        if case["surface"] == "action" {
            assert!(
                contains(&done["outputs"], &case["outputs"]),
                "{name}: {done}"
            );
            message = stdout.to_string();
        } else {
            let line: Value = serde_json::from_str(stdout).unwrap();
            assert!(contains(&line, &case["line"]), "{name}: {line}");
            host_reads_the_line(name, stdout, &line);
            if let Some(at) = case.get("resume_after") {
                let digest = line["bindings"]["request_digest"].as_str().unwrap();
                let head = u64::from_str_radix(&digest[..16], 16).unwrap();
                let jitter = head % (at["jitter_max_ms"].as_u64().unwrap() + 1);
                let expected =
                    at["reset_ms"].as_u64().unwrap() + at["buffer_ms"].as_u64().unwrap() + jitter;
                assert_eq!(
                    line["deferredReceipt"]["resume_after_ms"], expected,
                    "{name}"
                );
            }
            for key in case["line_lacks"].as_array().into_iter().flatten() {
                assert!(line.get(key.as_str().unwrap()).is_none(), "{name}: {line}");
            }
            if let Some(m) = line["error"]["message"].as_str() {
                message = m.to_string();
            }
        }
        for part in case["message_has"].as_array().into_iter().flatten() {
            let part = part.as_str().unwrap();
            assert!(message.contains(part), "{name}: {message:?} lacks {part:?}");
        }
        let summary: String = done["writes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["path"] == "/tmp/summary.md")
            .map(|w| w["text"].as_str().unwrap())
            .collect();
        for part in case["summary_has"].as_array().into_iter().flatten() {
            let part = part.as_str().unwrap();
            assert!(summary.contains(part), "{name}: {summary}\nlacks {part:?}");
        }
    }
    assert!(read_back >= 10, "only {read_back} bodies read back");
}
