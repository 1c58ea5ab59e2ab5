//! The WebAssembly surface of `deferral-driver` and `deferral-core`: a handful of functions, JSON
//! text in and out. An export that no shipped JS calls is deleted (issue 20 removed ten): what
//! is left is what `shared/wasm.js`, `shared/http.js`, `library/` and the Octokit plugin call,
//! and the tests through dist/ go through these same functions.
//!
//! Every function returns a JSON object with `"ok": true` and its result, or `"ok": false` and
//! an `error` object carrying a stable `code`, a `path` where one applies, and a `message`.
//! Errors are data, never JS exceptions, so the JS side has one way to read every answer.

use deferral_core::{digest, lifecycle};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

// The library's entry uses the rate engine (the Octokit plugin's decisions): only with it.
#[cfg(feature = "rate")]
mod library;
#[cfg(feature = "rate")]
pub use library::*;
#[cfg(feature = "rate")]
mod rate;
mod validate_input;
#[cfg(feature = "rate")]
pub use rate::*;
pub use validate_input::{input_buffer, validate_input};

/// The SHA-256 of the canonical JSON of an input.
///
/// `kind` is `value` (the text must be JSON), `scope` or `request` (JSON when it parses, else
/// the text as a JSON string, as the Action treats its inputs), or `plan` (a JSON object).
#[wasm_bindgen]
pub fn digest(kind: &str, text: &str) -> String {
    let value = match kind {
        "scope" | "request" => Ok(digest::input_value(text)),
        "value" | "plan" => serde_json::from_str::<Value>(text)
            .map_err(|e| error("invalid-json", "$", &format!("the {kind} is not JSON: {e}"))),
        other => Err(error(
            "invalid-kind",
            "$",
            &format!("unknown digest kind {other:?}; use value, scope, request or plan"),
        )),
    };
    let value = match value {
        Ok(Value::Object(map)) if kind == "plan" => Value::Object(map),
        Ok(_) if kind == "plan" => {
            return compact(&error("invalid-plan", "$", "a plan must be a JSON object"))
        }
        Ok(v) => v,
        Err(e) => return compact(&e),
    };
    match deferral_core::jcs::canonicalize(&value) {
        Ok(canonical) => compact(&json!({
            "ok": true,
            "kind": kind,
            "digest": digest::sha256_hex(canonical.as_bytes()),
            "canonical": canonical,
        })),
        Err(e) => compact(&error("non-canonical-number", "$", &e.to_string())),
    }
}

/// Applies a lifecycle event: input `{"state","event","reentries","max_reentries"}`.
#[wasm_bindgen]
pub fn lifecycle_transition(input: &str) -> String {
    let v: Value = match serde_json::from_str(input) {
        Ok(v) => v,
        Err(e) => return compact(&error("invalid-json", "$", &e.to_string())),
    };
    let state = v["state"].as_str().and_then(lifecycle::State::parse);
    let event = v["event"].as_str().and_then(lifecycle::Event::parse);
    let (Some(state), Some(event)) = (state, event) else {
        return compact(&error(
            "invalid-input",
            "$",
            "state and event must name a known state and event",
        ));
    };
    let max = v["max_reentries"]
        .as_u64()
        .unwrap_or(lifecycle::DEFAULT_MAX_REENTRIES as u64) as u32;
    let reentries = v["reentries"].as_u64().unwrap_or(0) as u32;
    let at = lifecycle::Position {
        state,
        reentries,
        max_reentries: max,
    };
    match lifecycle::transition(at, event) {
        Ok(step) => compact(&json!({
            "ok": true,
            "state": step.to.state.as_str(),
            "reentries": step.to.reentries,
            "max_reentries": step.to.max_reentries,
            "cause": step.cause.as_str(),
            "terminal": step.to.state.is_terminal(),
        })),
        Err(e) => compact(&error(e.code(), "$.event", &e.to_string())),
    }
}

/// Compact JSON text of a value: the same bytes as `value.to_string()`, without reaching
/// `Value`'s `Display`, which also carries a pretty printer and an `io::Write` adapter (~3 KB
/// of wasm). Serializing a `Value` cannot fail: its keys are strings.
pub(crate) fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

pub(crate) fn error(code: &str, path: &str, message: &str) -> Value {
    json!({"ok": false, "error": {"code": code, "path": path, "message": message}})
}
