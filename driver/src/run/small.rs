//! The commands that need no rate state: `validate` and `explain` of a receipt, `digest` of an
//! input, and `observe`, which records one saved answer into the ledger under its lock.

use super::args::Parsed;
use super::{done, error_done, Files};
use crate::attempt::limits::read_entry;
use crate::attempt::view::iso_ms;
use crate::attempt::AttemptError;
use crate::commands::StatusError;
use crate::commands::{digest_command, explain_command, validate_command, Answer};
use crate::crossing::Crossing;
use crate::step::Step;
use deferral_core::exit::Exit;
use deferral_core::observe::observe_value;
use serde_json::{json, Value};

fn read_step(entries: &[(&str, &str)]) -> Step {
    Step::Read {
        read: entries.iter().map(|(n, p)| read_entry(n, p)).collect(),
        request: None,
        lock: None,
        stdout: String::new(),
    }
}

/// A small command's answer as the last step; its text goes to stderr if `human`.
fn last_step(answer: &Answer, human: bool) -> Step {
    let text = if human { answer.text.as_str() } else { "" };
    done(
        answer.exit,
        &format!("{}\n", answer.line),
        text,
        Vec::new(),
        None,
    )
}

/// Runs `validate`, `explain`, `digest` or `observe` one step further.
pub fn run(name: &str, p: &Parsed, v: &Crossing, files: &Files) -> Step {
    let now = v.now_ms;
    match name {
        "validate" | "explain" => {
            let Some(path) = p.positionals.first() else {
                return error_done(
                    &AttemptError::MissingInput {
                        input: "receipt as a file path, or - for standard input",
                    },
                    "",
                );
            };
            let Some(bytes) = files.bytes("receipt") else {
                return read_step(&[("receipt", path)]);
            };
            if name == "validate" {
                return last_step(&validate_command(bytes), false);
            }
            let offset = v.utc_offset_min;
            let human = !p.is_set("quiet") && (p.is_set("text") || v.stderr_tty);
            last_step(&explain_command(bytes, now, offset), human)
        }
        "digest" => {
            let kind = p.value("kind").unwrap_or("value");
            let text = match (p.value("file"), p.positionals.first()) {
                (Some(path), _) => match files.bytes("input") {
                    Some(b) => String::from_utf8_lossy(b).into_owned(),
                    None => return read_step(&[("input", path)]),
                },
                (None, Some(text)) => text.clone(),
                (None, None) => {
                    return error_done(
                        &AttemptError::MissingInput {
                            input: "JSON to digest, or --file FILE",
                        },
                        "",
                    )
                }
            };
            last_step(&digest_command(kind, &text), false)
        }
        _ => observe(p, files, now),
    }
}

fn observe(p: &Parsed, files: &Files, now: u64) -> Step {
    let Some(ledger_path) = p.value("ledger-file") else {
        return error_done(
            &AttemptError::MissingInput {
                input: "ledger file (--ledger-file FILE)",
            },
            "",
        );
    };
    let mut input = json!({"now_ms": now, "path": p.value("path")});
    let mut pending = Vec::new();
    if let Some(path) = p.value("response") {
        match files.bytes("response") {
            Some(b) => input["text"] = String::from_utf8_lossy(b).into(),
            None => pending.push(("response", path)),
        }
    } else {
        let Some(status) = p.value("status") else {
            return error_done(
                &AttemptError::MissingInput {
                    input:
                        "response: --response FILE|-, or --status N with --header \"name: value\"",
                },
                "",
            );
        };
        let status = status
            .trim()
            .parse::<u16>()
            .ok()
            .filter(|s| (100..=599).contains(s));
        let Some(status) = status else {
            return error_done(&AttemptError::InvalidStatus, "");
        };
        let mut headers = Vec::new();
        for h in p
            .flags
            .get("header")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match h
                .as_str()
                .and_then(|h| h.split_once(':'))
                .filter(|(n, _)| !n.trim().is_empty())
            {
                Some((name, value)) => headers.push(json!([name.trim(), value.trim()])),
                None => return error_done(&AttemptError::InvalidHeader, ""),
            }
        }
        input["status"] = status.into();
        input["headers"] = headers.into();
        if let Some(path) = p.value("body") {
            match files.bytes("body") {
                Some(b) => input["body"] = String::from_utf8_lossy(b).into(),
                None => pending.push(("body", path)),
            }
        }
    }
    if !pending.is_empty() {
        return read_step(&pending);
    }
    // The ledger is read under its lock: no bytes for a ledger that does not exist yet.
    let Some(ledger) = files.get("ledger") else {
        return Step::Lock {
            lock: crate::attempt::limits::lock(ledger_path),
            stdout: String::new(),
        };
    };
    input["ledger"] = ledger.map_or(Value::Null, |b| String::from_utf8_lossy(b).into());
    let answer = observe_value(&input);
    if answer["ok"] != true {
        let e = &answer["error"];
        let line = StatusError {
            status: "error",
            error: e,
        }
        .to_json();
        return done(Exit::Invalid, &(line + "\n"), "", Vec::new(), None);
    }
    let windowed = !answer["resource"].is_null();
    let headers = &answer["headers"];
    let line = json!({
        "status": "recorded",
        "kind": answer["kind"],
        "resource": answer["resource"],
        "remaining": if windowed { headers["remaining"].clone() } else { Value::Null },
        "reset": if windowed { headers["reset"].clone() } else { Value::Null },
        "retryAfterS": answer["retry_after_s"],
        "buckets": answer["buckets"],
        "secondaryHoldUntil": answer["hold_until_ms"].as_u64().map(iso_ms),
    });
    let ledger_text = format!(
        "{}\n",
        serde_json::to_string(&answer["ledger"]).unwrap_or_default()
    );
    done(
        Exit::Ok,
        &format!("{}\n", serde_json::to_string(&line).unwrap_or_default()),
        "",
        Vec::new(),
        Some(&ledger_text),
    )
}
