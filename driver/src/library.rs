//! The JS library's decisions (`library/` in the repository): which call is refused, with which
//! code and message, and what the library's defaults are. The JS asks [`answer`] with an op and
//! the facts it holds (texts, the JS type of an argument, what a port answered), and throws or
//! returns what comes back; it defines no code, message or default of its own.
//!
//! * [`op`]: the ops, one enum per part with its `ALL` list.
//! * [`error`]: the codes (with `ALL`), one message template each, and the JS error forms.
//! * [`input`]: receipts as the JS hands them over (text, or an object's JSON and what JSON
//!   could not hold), and upstream's governed-handoff builder with its default window.
//! * [`upstream`]: upstream's host `createResumableDeferralHost(port, nowMs)`.
//! * [`serve`]: the serve client form, the port client, the serve-backed port and key store;
//!   [`record_order`]: the priority and fairness key a deferral is recorded with.
//! * [`pool`]: one admission across runners: the serve port's `admit` and `release`, and what
//!   the Octokit gate sends and folds with a port and a pool.
//! * [`octokit`]: `deferral/octokit`'s gate: its options, defaults and decisions; with
//!   [`octokit_request`] (a request's bucket and plan) and [`octokit_answer`] (what an answer
//!   tells the gate), [`octokit_budget`] (what an admitted plan still pays for) and
//!   [`octokit_report`] (its line for deferral-host's report file).
//!
//! ```
//! let answer = deferral_driver::library::answer(r#"{"op":"port_state","state":"cancelled","cause":"expired"}"#);
//! assert_eq!(answer, r#"{"ok":true,"state":"expired"}"#);
//! ```

pub mod error;
pub mod input;
pub mod octokit;
pub mod octokit_answer;
pub mod octokit_budget;
pub mod octokit_report;
pub mod octokit_request;
pub mod op;
pub mod pool;
pub mod record_order;
pub mod serve;
pub mod upstream;

use error::Refusal;
use serde_json::{Map, Value};

pub(crate) use deferral_core::json::object as obj;

/// An op of any part of the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Upstream(upstream::Op),
    Serve(serve::Op),
    Octokit(octokit::Op),
    Pool(pool::Op),
}

impl Op {
    /// The op of a name, from whichever part holds it.
    pub fn parse(name: &str) -> Option<Op> {
        upstream::Op::parse(name)
            .map(Op::Upstream)
            .or_else(|| serve::Op::parse(name).map(Op::Serve))
            .or_else(|| octokit::Op::parse(name).map(Op::Octokit))
            .or_else(|| pool::Op::parse(name).map(Op::Pool))
    }
}

/// Every op's name, each part's in its order.
pub fn names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = upstream::Op::ALL.iter().map(|o| o.as_str()).collect();
    out.extend(serve::Op::ALL.iter().map(|o| o.as_str()));
    out.extend(octokit::Op::ALL.iter().map(|o| o.as_str()));
    out.extend(pool::Op::ALL.iter().map(|o| o.as_str()));
    out
}

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
    let name = v["op"].as_str().unwrap_or_default();
    let result = match Op::parse(name) {
        Some(Op::Upstream(op)) => upstream::run(op, &v),
        Some(Op::Serve(op)) => serve::run(op, &v),
        Some(Op::Octokit(op)) => octokit::run(op, &v),
        Some(Op::Pool(op)) => pool::run(op, &v),
        None => Err(Refusal::new(
            error::Form::Type,
            error::Code::UnknownOp,
            &[("op", name)],
        )),
    };
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
