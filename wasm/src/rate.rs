//! The rate functions of the core, as JSON text in and out (see `docs/decision.md` for the
//! shapes). Like the receipt functions, every answer is `{"ok":true,...}` or
//! `{"ok":false,"error":{"code","path","message"}}`; nothing here throws into JS.

use crate::{compact, error};
use deferral_core::decision;
use deferral_core::signals;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// Parses the input text as a JSON object, or answers the error as data.
fn object(input: &str) -> Result<Value, Value> {
    match serde_json::from_str::<Value>(input) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(error(
            "invalid-input",
            "$",
            "the input must be a JSON object",
        )),
        Err(e) => Err(error(
            "invalid-json",
            "$",
            &format!("the input is not JSON: {e}"),
        )),
    }
}

fn answer(result: Result<Value, Value>) -> String {
    match result {
        Ok(v) | Err(v) => compact(&v),
    }
}

/// `{status, body}` of `GET /rate_limit` -> `{"ok":true,"snapshot":{"unlimited":bool,
/// "resources":{name:{limit,remaining,used,reset}}}}`; a 404 "Rate limiting is not enabled" is
/// the unlimited snapshot. Unreadable bodies answer `malformed-json`, `unexpected-shape`, ...
#[wasm_bindgen]
pub fn parse_rate_limit(input: &str) -> String {
    answer(object(input).and_then(|v| {
        let status = v["status"]
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(200);
        let body = v["body"].as_str().unwrap_or_default();
        signals::parse_rate_limit_response(status, body)
            .map(|snapshot| json!({"ok": true, "snapshot": snapshot.to_value()}))
            .map_err(|e| error(e.code(), &e.path, &e.to_string()))
    }))
}

/// One crossing of a run of the CLI or the Action: see `deferral_driver::run`. `files` holds the
/// bytes of every file read so far, in the order the input's `file_sizes` names them.
#[wasm_bindgen]
pub fn run(input: &str, files: &[u8]) -> String {
    deferral_driver::run::run_json(input, files)
}

/// A decision input -> `{"ok":true,"decision":{status,code,reason,...,receipt}}`. The decision
/// is exactly what the native `decide_json` gives (input of the wrong shape is a decision with
/// status `error`, code `invalid-input`), so native and wasm answer the shared vectors alike.
#[wasm_bindgen]
pub fn decide(input: &str) -> String {
    format!(
        "{{\"ok\":true,\"decision\":{}}}",
        decision::decide_json(input)
    )
}

/// The proxy for a request: input `{"url", "env": {HTTPS_PROXY, NO_PROXY, ...}}`, answer
/// `{"ok":true,"proxy":URL|null}` or an `invalid-proxy` error. See `deferral_driver::proxy`.
#[wasm_bindgen]
pub fn proxy_for(input: &str) -> String {
    let v: Value = serde_json::from_str(input).unwrap_or_default();
    let env = v["env"].as_object().cloned().unwrap_or_default();
    match deferral_driver::proxy::proxy_for(v["url"].as_str().unwrap_or_default(), &env) {
        Ok(proxy) => compact(&json!({"ok": true, "proxy": proxy})),
        Err(detail) => compact(&error("invalid-proxy", "$.env", &detail)),
    }
}
