//! Upstream's host, `createResumableDeferralHost(port, nowMs)` over a durable port
//! `{schedule, state, cancel}`: each call's checks, in upstream's order, and the port's states
//! read through the lifecycle.

use super::error::{Code, Form, Refusal, INVALID_RECEIPT, INVALID_TRANSITION};
use super::input::{handoff, receipt, refused};
use super::obj;
use super::op::ops;
use super::{shown, Answer};
use deferral_core::lifecycle::{self, Event, Position, State};
use deferral_core::receipt::{ErrorCode, Receipt};
use serde_json::Value;

ops! {
    /// Upstream's host and receipt functions.
    Op {
        Parse => "parse",
        Handoff => "handoff",
        HostForm => "host_form",
        Retain => "retain",
        Retained => "retained",
        Cancel => "cancel",
        Resume => "resume",
        MayRun => "may_run",
        Titles => "titles",
        Outcome => "outcome",
        Codes => "codes",
    }
}

/// Answers one of this part's ops.
pub fn run(op: Op, v: &Value) -> Answer {
    match op {
        Op::Parse => receipt(&v["receipt"], Form::Receipt).map(|r| text(&r)),
        Op::Handoff => handoff(&v["input"]).map(|r| text(&r)),
        Op::HostForm => host_form(v),
        Op::Retain => retain(v),
        Op::Retained => retained(v),
        Op::Cancel => retained_receipt(v).map(|r| text(&r)),
        Op::Resume => resume(v),
        Op::MayRun if may_run(&v["state"]) => Ok(obj(vec![("run", Value::Bool(true))])),
        // Any state but resumable: the fresh process is not run (upstream's answer).
        Op::MayRun => Ok(obj(vec![
            ("run", Value::Bool(false)),
            ("result", status("blocked")),
        ])),
        Op::Titles => Ok(obj(vec![
            ("invalid_receipt", Value::from(INVALID_RECEIPT)),
            ("invalid_transition", Value::from(INVALID_TRANSITION)),
        ])),
        Op::Outcome => outcome(v),
        Op::Codes => Ok(obj(vec![(
            "codes",
            Value::Array(Code::ALL.iter().map(|c| Value::from(c.as_str())).collect()),
        )])),
    }
}

/// A fresh process's result: `{status}`.
fn status(status: &str) -> Value {
    obj(vec![("status", Value::from(status))])
}

fn text(receipt: &Receipt) -> Value {
    obj(vec![("receipt", Value::from(receipt.to_json()))])
}

fn type_error(code: Code, got: &Value) -> Refusal {
    Refusal::new(Form::Type, code, &[("got", &shown(got)), ("missing", "")])
}

/// Which form of `createResumableDeferralHost` the arguments are: durable (upstream's) when the
/// first has every method of a durable port, the serve client when it has none and no clock follows.
fn host_form(v: &Value) -> Answer {
    let methods = v["methods"].as_object().cloned().unwrap_or_default();
    let missing: Vec<&str> = ["schedule", "state", "cancel"]
        .into_iter()
        .filter(|m| methods.get(*m).and_then(Value::as_bool) != Some(true))
        .collect();
    let second = v["second"].as_str().unwrap_or("undefined");
    if missing.is_empty() {
        if second != "function" && second != "undefined" {
            return Err(type_error(Code::InvalidClock, &v["second"]));
        }
        return Ok(obj(vec![("durable", Value::Bool(true))]));
    }
    // Half a durable port is a mistake to name, not a serve client missing its url.
    if missing.len() < 3 || second == "function" {
        return Err(Refusal::new(
            Form::Type,
            Code::InvalidDurablePort,
            &[("missing", &missing.join(", "))],
        ));
    }
    Ok(obj(vec![("durable", Value::Bool(false))]))
}

fn transition(code: Code, values: &[(&str, &str)]) -> Refusal {
    Refusal::new(Form::Transition, code, values)
}

/// The clock's reading: epoch milliseconds as a whole number.
fn now(v: &Value) -> Result<u64, Refusal> {
    v["now"]
        .as_u64()
        .ok_or_else(|| type_error(Code::InvalidNow, &v["now"]))
}

/// Where `now` stands against the window: the refusal when outside it (edges are inside).
fn window(r: &Receipt, now: u64) -> Result<(), Refusal> {
    if now < r.resume_after_ms {
        let wait = (r.resume_after_ms - now).to_string();
        return Err(transition(Code::NotYetDue, &[("wait", &wait)]));
    }
    if now > r.resume_by_ms {
        return Err(transition(Code::Expired, &[]));
    }
    Ok(())
}

/// `retain(receipt)`: a governed handoff whose window has not passed.
fn retain(v: &Value) -> Answer {
    let r = receipt(&v["receipt"], Form::Receipt)?;
    if r.is_retained() {
        return Err(transition(Code::AlreadyRetained, &[]));
    }
    match window(&r, now(v)?) {
        Err(e) if e.code == Code::Expired.as_str() => Err(e),
        _ => Ok(text(&r)),
    }
}

/// The retained form of the handoff with the digests the port's `schedule` answered.
fn retained(v: &Value) -> Answer {
    let r = receipt(&v["receipt"], Form::Receipt)?;
    let handles: Value = v["handles"]["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null);
    let digest = |name: &str, field: &str| {
        handles[name].as_str().map(str::to_string).ok_or_else(|| {
            let path = format!("$.ownership.{field}");
            let e = refused(
                ErrorCode::WrongType,
                &path,
                format!("{path} must be a string, not {}", shown(&handles[name])),
            );
            Refusal::receipt(Form::Receipt, &e)
        })
    };
    let wakeup = digest("wakeupDigest", "wakeup_digest")?;
    let cancellation = digest("cancellationDigest", "cancellation_digest")?;
    r.retain(&wakeup, &cancellation)
        .map(|r| text(&r))
        .map_err(|e| Refusal::receipt(Form::Receipt, &e))
}

/// Cancel and resume take the retained receipt only.
fn retained_receipt(v: &Value) -> Result<Receipt, Refusal> {
    let r = receipt(&v["receipt"], Form::Receipt)?;
    if !r.is_retained() {
        return Err(transition(Code::NotRetained, &[]));
    }
    Ok(r)
}

/// `resume(receipt, freshProcess)` before the port is asked: retained, due, not expired, and a
/// fresh process to run.
fn resume(v: &Value) -> Answer {
    let r = retained_receipt(v)?;
    window(&r, now(v)?)?;
    if v["fresh"].as_str() != Some("function") {
        return Err(type_error(Code::InvalidFreshProcess, &v["fresh"]));
    }
    Ok(text(&r))
}

/// The port's answers as lifecycle states: `expired` is the host's cancellation by expiry.
pub fn lifecycle_state(port_state: &str) -> Option<State> {
    match port_state {
        "expired" => Some(State::Cancelled),
        other => State::parse(other).filter(|s| *s != State::Ready),
    }
}

/// May a fresh process's attempt end from the port's state? Only where the lifecycle lets
/// `complete` follow (from `resumable`).
pub fn may_run(port_state: &Value) -> bool {
    port_state
        .as_str()
        .and_then(lifecycle_state)
        .is_some_and(|state| {
            lifecycle::transition(
                Position {
                    state,
                    ..Position::new(1)
                },
                Event::Complete,
            )
            .is_ok()
        })
}

/// The fresh process's answer, checked: a known status, and for `deferred` a valid receipt of
/// the same scope (another scope is other work, never a continuation: DESIGN.md section 8).
fn outcome(v: &Value) -> Answer {
    let status = v["status"].as_str().unwrap_or_default();
    match status {
        "complete" | "blocked" => Ok(obj(vec![("result", self::status(status))])),
        "deferred" => {
            let previous = receipt(&v["previous"], Form::Receipt)?;
            let next = receipt(&v["next"], Form::Receipt)?;
            if next.bindings.scope_digest != previous.bindings.scope_digest {
                let blocked = obj(vec![
                    ("status", Value::from("blocked")),
                    ("code", Value::from("binding-mismatch")),
                    ("field", Value::from("scope_digest")),
                ]);
                return Ok(obj(vec![("result", blocked)]));
            }
            Ok(obj(vec![
                ("result", self::status("deferred")),
                ("receipt", Value::from(next.to_json())),
            ]))
        }
        _ => Err(transition(
            Code::InvalidOutcome,
            &[("got", &shown(&v["status"]))],
        )),
    }
}
