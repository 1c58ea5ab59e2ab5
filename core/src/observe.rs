//! Records what one GitHub answer says about the rate state into the ledger: the JSON entry
//! shared by the wasm build, the CLI's `observe` and the shared response vectors
//! (`tests/vectors/responses/`).
//!
//! Input: `{"ledger"?: <deferral-ledger-v1 or null>, "path"?: "/search/code", "status": 403,
//! "headers": [[name, value], ...] or {name: value}, "body": "<text>", "now_ms": <ms>}`, or
//! `"text"` (a whole answer as `curl -i` or `gh api -i` save it) instead of status, headers and
//! body.
//! Output: `{"ok":true,"kind","resource","headers","buckets","retry_after_s","hold_until_ms",
//! "ledger"}` or
//! `{"ok":false,"error":{"code","path","message"}}`.

use crate::ledger::Ledger;
use crate::signals::{classify_at, parse_response_text, Classified};
use serde_json::{json, Value};

/// An error answer: `{"ok":false,"error":{code,path,message}}`.
pub fn error_value(code: &str, path: &str, message: &str) -> Value {
    json!({"ok": false, "error": {"code": code, "path": path, "message": message}})
}

/// Reads `headers` given as `[[name, value], ...]` (repeats allowed, order kept) or as an
/// object `{name: value}` (how Node's `IncomingMessage.headers` and saved answers hold them).
///
/// # Errors
/// An error answer (`invalid-input` at `$.headers`) for any other shape.
pub fn header_pairs(value: &Value) -> Result<Vec<(String, String)>, Value> {
    let bad = || {
        error_value(
            "invalid-input",
            "$.headers",
            "headers must be [[name, value], ...] or {name: value}",
        )
    };
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .map(|pair| match pair.as_array().map(Vec::as_slice) {
                Some([Value::String(k), Value::String(v)]) => Ok((k.clone(), v.clone())),
                _ => Err(bad()),
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(v) => Ok((k.clone(), v.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}

/// An answer as the signal functions take it: status, `(name, value)` headers, body text.
pub type Answer = (u16, Vec<(String, String)>, String);

/// Reads `{status, headers, body}`.
///
/// # Errors
/// An error answer (`invalid-input`) naming the field of the wrong shape.
pub fn answer_of(v: &Value) -> Result<Answer, Value> {
    let status = v["status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .ok_or_else(|| {
            error_value(
                "invalid-input",
                "$.status",
                "status must be an HTTP status number",
            )
        })?;
    let headers = header_pairs(&v["headers"])?;
    let body = match &v["body"] {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    Ok((status, headers, body))
}

/// The kind and headers of a classified answer as JSON.
pub fn classified_value(c: &Classified) -> Value {
    json!({"kind": c.kind.as_str(), "headers": c.headers.to_value()})
}

/// Records one answer into the ledger given in `input` (see the module docs).
pub fn observe_value(v: &Value) -> Value {
    observe(v).unwrap_or_else(|e| e)
}

fn observe(v: &Value) -> Result<Value, Value> {
    if !v.is_object() {
        return Err(error_value(
            "invalid-input",
            "$",
            "the input must be a JSON object",
        ));
    }
    let (status, headers, body) = match v["text"].as_str() {
        Some(text) => {
            let saved = parse_response_text(text).ok_or_else(|| {
                error_value(
                    "invalid-response",
                    "$.text",
                    "the response does not start with an HTTP status line (save it with curl -i or gh api -i)",
                )
            })?;
            (saved.status, saved.headers, saved.body)
        }
        None => answer_of(v)?,
    };
    let now = v["now_ms"].as_u64().ok_or_else(|| {
        error_value(
            "invalid-input",
            "$.now_ms",
            "now_ms must be epoch milliseconds",
        )
    })?;
    let mut ledger = match &v["ledger"] {
        Value::Null => Ledger::new(),
        // The ledger file's text as read (under the shell's lock); blank is a new ledger.
        Value::String(text) if text.trim().is_empty() => Ledger::new(),
        Value::String(text) => Ledger::from_json(text).map_err(|e| {
            error_value(
                "invalid-ledger",
                "$.ledger",
                &format!("the ledger file is not a deferral-ledger-v1 document: {e}"),
            )
        })?,
        other => Ledger::from_value(other)
            .map_err(|e| error_value("invalid-ledger", "$.ledger", &e.to_string()))?,
    };
    let path = v["path"].as_str();
    let c = classify_at(path, status, &headers, &body);
    let recorded = ledger.observe_response(&c, now);
    let buckets: Vec<&String> = c
        .snapshot
        .as_ref()
        .map(|s| s.resources.keys().collect())
        .unwrap_or_default();
    let mut out = classified_value(&c);
    out["ok"] = json!(true);
    out["resource"] = json!(recorded.map(|(resource, _)| resource));
    out["buckets"] = json!(buckets);
    out["retry_after_s"] = json!(c.headers.retry_after_s_at(now));
    out["hold_until_ms"] = json!(ledger.hold_until(now));
    out["ledger"] = ledger.to_value();
    Ok(out)
}

/// [`observe_value`] over JSON text.
pub fn observe_json(input: &str) -> String {
    let value = match serde_json::from_str::<Value>(input) {
        Ok(v) => observe_value(&v),
        Err(e) => error_value("invalid-json", "$", &format!("the input is not JSON: {e}")),
    };
    serde_json::to_string(&value).unwrap_or_default()
}
