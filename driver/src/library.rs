//! The JS library's decisions (`library/` in the repository): which call is refused, with which
//! code and message, and what the library's defaults are. The JS asks [`answer`] with an op and
//! the facts it holds (texts, the JS type of an argument, what a port answered), and throws or
//! returns what comes back; it defines no code, message or default of its own.
//!
//! * [`error`]: the codes (with `ALL`), one message template each, and the JS error forms.
//! * [`input`]: receipts as the JS hands them over (text, or an object's JSON and what JSON
//!   could not hold), and upstream's governed-handoff builder with its default window.
//! * [`upstream`]: upstream's host `createResumableDeferralHost(port, nowMs)`.
//! * [`serve`]: the serve client form, the port client, the serve-backed port and key store.
//! * [`pool`]: one admission across runners: the serve port's `admit` and `release`, and what
//!   the Octokit gate sends and folds with a port and a pool.
//! * [`octokit`]: `deferral/octokit`'s gate: its options, defaults and decisions; with
//!   [`octokit_request`] (a request's bucket and plan) and [`octokit_answer`] (what an answer
//!   tells the gate).
//!
//! ```
//! let answer = deferral_driver::library::answer(r#"{"op":"port_state","state":"cancelled","cause":"expired"}"#);
//! assert_eq!(answer, r#"{"ok":true,"state":"expired"}"#);
//! ```

pub mod error;
pub mod input;
pub mod octokit;
pub mod octokit_answer;
pub mod octokit_request;
pub mod pool;
pub mod serve;
pub mod upstream;

use error::Refusal;
use serde_json::{Map, Value};

pub(crate) use deferral_core::json::object as obj;

/// An op's answer with nothing to add to `ok`.
pub(crate) fn done() -> Value {
    Value::Object(Map::new())
}

/// What an op answers: fields to merge into `{"ok":true}`, or the refusal to throw.
pub type Answer = Result<Value, Refusal>;

/// Runs one op: `{"op": NAME, ...facts}` in, `{"ok":true,...}` or
/// `{"ok":false,"error":{"class","message","props"}}` out.
pub fn answer(input: &str) -> String {
    let v: Value = serde_json::from_str(input).unwrap_or(Value::Null);
    let op = v["op"].as_str().unwrap_or_default();
    let result = upstream::run(op, &v)
        .or_else(|| serve::run(op, &v))
        .or_else(|| octokit::run(op, &v))
        .or_else(|| pool::run(op, &v))
        .unwrap_or_else(|| {
            Err(Refusal::new(
                error::Form::Type,
                error::Code::UnknownOp,
                &[("op", op)],
            ))
        });
    let out = match result {
        Ok(Value::Object(mut fields)) => {
            fields.insert("ok".into(), Value::Bool(true));
            Value::Object(fields)
        }
        Ok(other) => obj(vec![("ok", Value::Bool(true)), ("value", other)]),
        Err(refusal) => obj(vec![
            ("ok", Value::Bool(false)),
            ("error", refusal.to_value()),
        ]),
    };
    serde_json::to_string(&out).unwrap_or_default()
}

/// The JSON text of a value as a message shows it (`undefined` when absent).
pub(crate) fn shown(v: &Value) -> String {
    match v {
        Value::Null => "undefined".to_string(),
        Value::String(s) if !s.is_empty() => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}
