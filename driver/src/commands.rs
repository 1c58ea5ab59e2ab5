//! The small commands, whole: `validate` and `explain` of a receipt, `digest` of an input. Each
//! answers an [`Answer`]: the exit code, the one JSON line for stdout, and the human text a
//! terminal may show on stderr.

use crate::attempt::view::{iso_ms, local_text, quote, BindingsLine};
use deferral_core::digest::{input_value, sha256_hex};
use deferral_core::exit::Exit;
use deferral_core::receipt::{validate, Ownership, Receipt, ReceiptError};
use deferral_core::receipt_hint::with_hint;
use serde::Serialize;
use serde_json::Value;

/// What a small command answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub exit: Exit,
    /// The one JSON line for stdout, without its line break.
    pub line: String,
    /// Text for a person (stderr), empty when there is none.
    pub text: String,
}

fn answer(exit: Exit, line: &str, text: &str) -> Answer {
    Answer {
        exit,
        line: line.to_string(),
        text: text.to_string(),
    }
}

/// `{"status", "error": {"code", ...}}`: a refusal's line (`E` keeps its members' order).
#[derive(Serialize)]
pub struct StatusError<E> {
    pub status: &'static str,
    pub error: E,
}

impl<E: Serialize> StatusError<E> {
    /// The line's text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A code, where and why, in this order.
#[derive(Serialize)]
pub struct CodePathMessage<'a> {
    pub code: &'a str,
    pub path: &'a str,
    pub message: &'a str,
}

/// A code, why and where, in this order.
#[derive(Serialize)]
pub struct CodeMessagePath<'a> {
    pub code: &'a str,
    pub message: &'a str,
    pub path: &'a str,
}

/// A time for a person and for a program.
#[derive(Serialize)]
struct Time {
    utc: String,
    local: String,
}

/// Who holds a receipt, in `explain`.
#[derive(Serialize)]
struct OwnershipLine {
    disposition: &'static str,
    mode: &'static str,
}

/// `explain`'s line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplainLine<'a> {
    status: &'static str,
    state: &'static str,
    reason: &'a str,
    issued_at: Time,
    resume_after: Time,
    resume_by: Time,
    due_in_ms: u64,
    ownership: OwnershipLine,
    fresh_approval_required: bool,
    bindings: BindingsLine<'a>,
    explanation: &'a str,
}

/// `digest`'s line.
#[derive(Serialize)]
struct DigestLine<'a> {
    kind: &'a str,
    digest: String,
}

fn invalid(error: &ReceiptError) -> (String, String) {
    let line = StatusError {
        status: "invalid",
        error: CodePathMessage {
            code: error.code(),
            path: &error.path,
            message: &error.message,
        },
    }
    .to_json();
    // The path and message quote the receipt (a key, a value): outside words.
    let text = format!(
        "Not a valid deferred-receipt-v1: {} at {}: {}\n",
        error.code(),
        crate::terminal::one_line(&error.path),
        crate::terminal::one_line(&error.message)
    );
    (line, text)
}

/// `deferral validate`'s line for a valid receipt, the receipt in the contract's order.
#[derive(serde::Serialize)]
struct ValidLine<'a> {
    status: &'static str,
    #[serde(borrow)]
    receipt: Option<&'a serde_json::value::RawValue>,
}

/// `deferral validate`: `{"status":"valid","receipt"}` (exit 0) or `{"status":"invalid","error"}`
/// (exit 2).
pub fn validate_command(bytes: &[u8]) -> Answer {
    match validate(bytes) {
        Ok(r) => {
            let receipt = r.to_json();
            let line = serde_json::to_string(&ValidLine {
                status: "valid",
                receipt: serde_json::from_str(&receipt).unwrap_or_default(),
            })
            .unwrap_or_default();
            answer(Exit::Ok, &line, "")
        }
        Err(e) => {
            let (line, text) = invalid(&with_hint(bytes, e));
            answer(Exit::Invalid, &line, &text)
        }
    }
}

/// `2h 5m 3s`: a span for a person.
pub fn span(ms: u64) -> String {
    let mut s = (ms + 500) / 1000;
    let mut parts = Vec::new();
    for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] {
        if s >= size {
            parts.push(format!("{}{unit}", s / size));
            s %= size;
        }
    }
    if s > 0 || parts.is_empty() {
        parts.push(format!("{s}s"));
    }
    parts.join(" ")
}

fn reason_text(r: &Receipt) -> &'static str {
    match r.reason.as_str() {
        "rest-reserve" => "the REST API quota (core) was at or below its reserve",
        "graphql-reserve" => "the GraphQL point quota was at or below its reserve",
        _ => "GitHub answered with a secondary rate limit",
    }
}

/// `deferral explain`: the receipt for a person, at `now_ms`, local times `offset_min` east of
/// UTC.
pub fn explain_command(bytes: &[u8], now_ms: u64, offset_min: i64) -> Answer {
    let r = match validate(bytes) {
        Ok(r) => r,
        Err(e) => {
            let (line, text) = invalid(&with_hint(bytes, e));
            return answer(Exit::Invalid, &line, &text);
        }
    };
    let state = if now_ms < r.resume_after_ms {
        "not-yet-due"
    } else if now_ms > r.resume_by_ms {
        "expired"
    } else {
        "due"
    };
    let when = match state {
        "not-yet-due" => format!(
            "It is not due yet: a fresh attempt may start in {}.",
            span(r.resume_after_ms - now_ms)
        ),
        "due" => format!(
            "It is due now; the window closes in {}.",
            span(r.resume_by_ms - now_ms)
        ),
        _ => format!(
            "It expired {} ago: it can no longer resume; start the work afresh.",
            span(now_ms - r.resume_by_ms)
        ),
    };
    let retained = matches!(r.ownership, Ownership::Retained { .. });
    let at = |label: &str, ms: u64| {
        format!(
            "{label}{} (local {})",
            iso_ms(ms),
            local_text(ms, offset_min)
        )
    };
    let lines = [
        format!(
            "Deferred because {} ({}).",
            reason_text(&r),
            r.reason.as_str()
        ),
        at("Issued:        ", r.issued_at_ms),
        at("Resume after:  ", r.resume_after_ms),
        at("Resume by:     ", r.resume_by_ms),
        when,
        if retained {
            "Ownership: retained by a durable host, which wakes it; only the holder of the wake-up handle can claim it.".to_string()
        } else {
            "Ownership: handoff; whoever resumes it must provide its own exclusivity (e.g. a workflow concurrency group).".to_string()
        },
        if r.fresh_approval_required {
            "Fresh approval is required before the work resumes.".to_string()
        } else {
            "No fresh approval is required.".to_string()
        },
    ];
    let explanation = lines.join("\n");
    let time = |ms: u64| Time {
        utc: iso_ms(ms),
        local: local_text(ms, offset_min),
    };
    let (disposition, mode) = if retained {
        ("retained", "durable-host")
    } else {
        ("handoff", "governed-handoff")
    };
    let line = ExplainLine {
        status: "valid",
        state,
        reason: r.reason.as_str(),
        issued_at: time(r.issued_at_ms),
        resume_after: time(r.resume_after_ms),
        resume_by: time(r.resume_by_ms),
        due_in_ms: r.resume_after_ms.saturating_sub(now_ms),
        ownership: OwnershipLine { disposition, mode },
        fresh_approval_required: r.fresh_approval_required,
        bindings: BindingsLine::from(&r.bindings),
        explanation: &explanation,
    };
    let line = serde_json::to_string(&line).unwrap_or_default();
    answer(Exit::Ok, &line, &(explanation + "\n"))
}

/// `deferral digest`: `{"kind","digest"}` of an input read as its kind (`value`: JSON;
/// `scope`, `request`: JSON when it parses, else the text as a string; `plan`: a JSON object).
pub fn digest_command(kind: &str, text: &str) -> Answer {
    let fail = |code: &str, message: &str| {
        let line = StatusError {
            status: "error",
            error: CodeMessagePath {
                code,
                message,
                path: "$",
            },
        }
        .to_json();
        answer(Exit::Invalid, &line, "")
    };
    let value = match kind {
        "scope" | "request" => input_value(text),
        "value" | "plan" => match serde_json::from_str::<Value>(text) {
            Ok(v) => v,
            Err(e) => return fail("invalid-json", &format!("the {kind} is not JSON: {e}")),
        },
        other => {
            return fail(
                "invalid-kind",
                &format!(
                    "unknown digest kind {}; use value, scope, request or plan",
                    quote(other)
                ),
            )
        }
    };
    if kind == "plan" && !value.is_object() {
        return fail("invalid-plan", "a plan must be a JSON object");
    }
    match deferral_core::jcs::canonicalize(&value) {
        Ok(canonical) => {
            let line = DigestLine {
                kind,
                digest: sha256_hex(canonical.as_bytes()),
            };
            let line = serde_json::to_string(&line).unwrap_or_default();
            answer(Exit::Ok, &line, "")
        }
        Err(e) => fail("non-canonical-number", &e.to_string()),
    }
}
