//! The rate functions of the core, as JSON text in and out (see `docs/decision.md` for the
//! shapes). Like the receipt functions, every answer is `{"ok":true,...}` or
//! `{"ok":false,"error":{"code","path","message"}}`; nothing here throws into JS.

use crate::{compact, error};
use deferral_core::decision;
use deferral_core::ledger::{Ledger, Observation};
use deferral_core::rate_state;
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

fn ledger_at(value: &Value, path: &str) -> Result<Ledger, Value> {
    Ledger::from_value(value).map_err(|e| error(e.code(), path, &e.to_string()))
}

/// Ledger file text -> `{"ok":true,"ledger":{...}}`, or `invalid-ledger` with the reason (not
/// JSON, nested too deep, another version, unknown fields).
#[wasm_bindgen]
pub fn read_ledger(text: &str) -> String {
    answer(
        Ledger::from_json(text)
            .map(|ledger| json!({"ok": true, "ledger": ledger.to_value()}))
            .map_err(|e| {
                error(
                    "invalid-ledger",
                    "$",
                    &format!("the ledger file is not a deferral-ledger-v1 document: {e}"),
                )
            }),
    )
}

/// `{ledgers: [ledger, ...], observations?: [observation, ...], now_ms?}` -> `{"ok":true,
/// "ledger":{...}}`: the join of the ledgers with the observations applied in order, pruned of
/// expired secondary holds when `now_ms` is given. Observations are
/// `{"kind":"window","resource","window":{limit,remaining,used?,reset},"observed_at_ms"}`,
/// `{"kind":"strike","at_ms","retry_after_s"}` or `{"kind":"clock","offset_ms","observed_at_ms"}`.
#[wasm_bindgen]
pub fn merge_ledger(input: &str) -> String {
    answer(object(input).and_then(|v| {
        let mut ledger = Ledger::new();
        if let Some(list) = v["ledgers"].as_array() {
            for (i, item) in list.iter().enumerate() {
                ledger = ledger.merge(&ledger_at(item, &format!("$.ledgers[{i}]"))?);
            }
        }
        if let Some(list) = v["observations"].as_array() {
            for (i, item) in list.iter().enumerate() {
                let observation = Observation::from_value(item).map_err(|e| {
                    error(
                        "invalid-observation",
                        &format!("$.observations[{i}]"),
                        &e.to_string(),
                    )
                })?;
                ledger.apply(&observation);
            }
        }
        if let Some(now) = v["now_ms"].as_u64() {
            ledger.prune(now);
        }
        Ok(json!({"ok": true, "ledger": ledger.to_value()}))
    }))
}

/// `{ledger?, path?, status, headers, body, now_ms}` -> `{"ok":true,"kind","resource","headers",
/// "buckets","hold_until_ms","ledger"}`: records one answer (its window, every bucket of a
/// `/rate_limit` body, the clock offset, and a strike when it hit a secondary limit), exactly as
/// the native `observe::observe_json`.
#[wasm_bindgen]
pub fn observe_response(input: &str) -> String {
    deferral_core::observe::observe_json(input)
}

/// What one `GET /rate_limit` answer tells an attempt: `{"source":"live","status","headers",
/// "body","now_ms"}` or `{"source":"file","text","now_ms"}` -> `{"ok":true,"snapshot",
/// "observations","clock_offset_ms","secondary"}`, or an error with its `exit` class, exactly as
/// the native `rate_state::read_json`.
#[wasm_bindgen]
pub fn read_rate_state(input: &str) -> String {
    rate_state::read_json(input)
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
