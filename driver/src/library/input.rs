//! Receipts as the JS hands them over, and upstream's governed-handoff builder.
//!
//! A receipt arrives as its text (a string the caller gave), or as an encoded JS value:
//! `{"text": JSON or null, "dropped": [[key, js type]], "why": message}`, where `dropped` lists
//! the values JSON cannot hold (undefined, functions, symbols) and `why` says why the value has
//! no JSON form at all (a BigInt, a cycle). Such a value is not the document it seems.

use super::error::{Form, Refusal};
use deferral_core::json::object as obj;
use deferral_core::receipt::{validate, ErrorCode, Receipt, ReceiptError};
use deferral_core::receipt_hint::with_hint;
use serde_json::{Map, Value};

/// One minute after issue: upstream's default `resume_after_ms`.
pub const HANDOFF_RESUME_AFTER_MS: u64 = 60_000;
/// Fifteen minutes after issue: upstream's default `resume_by_ms`.
pub const HANDOFF_RESUME_BY_MS: u64 = 15 * 60_000;

/// A refusal in the receipt's own terms (the receipt crate keeps its constructor to itself).
pub(super) fn refused(code: ErrorCode, path: &str, message: String) -> ReceiptError {
    ReceiptError {
        code,
        path: path.to_string(),
        message,
    }
}

fn not_an_object(got: &str) -> ReceiptError {
    refused(
        ErrorCode::NotAnObject,
        "$",
        format!("$ must be an object, not {got}"),
    )
}

fn no_json_value(path: &str, kind: &str) -> ReceiptError {
    refused(
        ErrorCode::WrongType,
        path,
        format!("{path} must be a JSON value, not {kind}"),
    )
}

/// The text of an encoded value, or the refusal of what JSON could not hold.
fn text_of(v: &Value) -> Result<String, ReceiptError> {
    if let Some(text) = v.as_str() {
        return Ok(text.to_string());
    }
    if let Some(why) = v["why"].as_str() {
        return Err(not_an_object(&format!(
            "a value without a JSON form ({why})"
        )));
    }
    if let Some([key, kind]) = v["dropped"]
        .as_array()
        .and_then(|d| d.first())
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        let (key, kind) = (key.as_str().unwrap_or(""), kind.as_str().unwrap_or(""));
        return Err(if key.is_empty() {
            not_an_object(kind)
        } else {
            no_json_value(&format!("$..{key}"), kind)
        });
    }
    v["text"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| not_an_object("undefined"))
}

/// Validates an encoded receipt; a refusal in `form`.
pub fn receipt(v: &Value, form: Form) -> Result<Receipt, Refusal> {
    let checked = text_of(v)
        .and_then(|text| validate(text.as_bytes()).map_err(|e| with_hint(text.as_bytes(), e)));
    checked.map_err(|e| Refusal::receipt(form, &e))
}

// Upstream's input names and where each goes in the receipt.
const FIELDS: [(&str, &str); 6] = [
    ("resource", "$.reason"),
    ("issuedAtMs", "$.issued_at_ms"),
    ("scopeDigest", "$.bindings.scope_digest"),
    ("requestDigest", "$.bindings.request_digest"),
    ("planDigest", "$.bindings.plan_digest"),
    ("freshApprovalRequired", "$.fresh_approval_required"),
];

/// `createGovernedHandoffReceipt(input)`: resource `rest` or `graphql` names the reason; the
/// window defaults to one minute until fifteen minutes after issue (upstream's).
pub fn handoff(v: &Value) -> Result<Receipt, Refusal> {
    let refuse = |e: ReceiptError| Refusal::receipt(Form::Receipt, &e);
    if v["why"].is_string() {
        return Err(refuse(
            text_of(v)
                .err()
                .unwrap_or_else(|| not_an_object("undefined")),
        ));
    }
    let fields: Map<String, Value> = v["text"]
        .as_str()
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|value| match value {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default();
    let dropped: Vec<&str> = v["dropped"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d[0].as_str())
        .collect();
    // An absent field would be refused by the validator as missing; upstream's callers get
    // the JS reading of it (undefined), as when they wrote `planDigest: undefined`.
    for (name, path) in FIELDS {
        if !fields.contains_key(name) {
            let kind = if dropped.contains(&name) {
                "undefined"
            } else {
                "absent"
            };
            return Err(refuse(no_json_value(path, kind)));
        }
    }
    let reason = match fields["resource"].as_str() {
        Some("rest") => Value::from("rest-reserve"),
        Some("graphql") => Value::from("graphql-reserve"),
        _ => fields["resource"].clone(),
    };
    let issued = fields["issuedAtMs"].clone();
    let window = |name: &str, after: u64| match fields.get(name) {
        Some(given) if !given.is_null() => given.clone(),
        _ => issued.as_u64().map_or_else(
            || issued.clone(),
            |at| Value::from(at.saturating_add(after)),
        ),
    };
    let handoff = obj(vec![
        ("disposition", Value::from("handoff")),
        ("mode", Value::from("governed-handoff")),
        ("wakeup_digest", Value::Null),
        ("cancellation_digest", Value::Null),
    ]);
    let bindings = obj(vec![
        ("scope_digest", fields["scopeDigest"].clone()),
        ("request_digest", fields["requestDigest"].clone()),
        ("plan_digest", fields["planDigest"].clone()),
    ]);
    let text = obj(vec![
        ("schema", Value::from(1)),
        ("version", Value::from("deferred-receipt-v1")),
        ("status", Value::from("deferred")),
        ("reason", reason),
        ("issued_at_ms", issued.clone()),
        (
            "resume_after_ms",
            window("resumeAfterMs", HANDOFF_RESUME_AFTER_MS),
        ),
        ("resume_by_ms", window("resumeByMs", HANDOFF_RESUME_BY_MS)),
        ("bindings", bindings),
        ("ownership", handoff),
        (
            "fresh_approval_required",
            fields["freshApprovalRequired"].clone(),
        ),
    ]);
    let text = serde_json::to_string(&text).unwrap_or_default();
    validate(text.as_bytes()).map_err(refuse)
}
