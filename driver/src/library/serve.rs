//! The library's side of `deferral-host serve`: the port client's options and failures, the
//! serve client form of the host (ids, handles, outcomes), the serve-backed durable port with
//! upstream's methods, and its key store. Every refusal is a `PortError` with status 0 (nothing
//! was sent), but for the key store's `TypeError`.

use super::error::{Code, Form, Refusal};
use super::input::receipt;
use super::op::ops;
use super::{done, obj};
use super::{shown, Answer};
use crate::port_answer;
use deferral_core::digest::digest;
use deferral_core::lifecycle::{self, Event, Position, State, DEFAULT_MAX_REENTRIES};
use deferral_core::receipt::Receipt;
use serde_json::Value;

/// How long the port client waits for one answer, unless told.
pub const PORT_TIMEOUT_MS: u64 = 15_000;

ops! {
    /// The serve client, the serve-backed port and its key store.
    Op {
        PortClient => "port_client",
        PortFailure => "port_failure",
        ClientRetain => "client_retain",
        ClientRetained => "client_retained",
        ClientOutcome => "client_outcome",
        ClientCancel => "client_cancel",
        ClientStep => "client_step",
        ClientClaim => "client_claim",
        ServePort => "serve_port",
        Schedule => "schedule",
        Scheduled => "scheduled",
        KeyStoreFailed => "key_store_failed",
        RecordedDigest => "recorded_digest",
        PortState => "port_state",
        PortDeferral => "port_deferral",
        CancelHandle => "cancel_handle",
        CancelRefused => "cancel_refused",
        StoreKey => "store_key",
        RecordOrder => "record_order",
    }
}

/// Answers one of this part's ops.
pub fn run(op: Op, v: &Value) -> Answer {
    match op {
        Op::PortClient => port_client(v),
        Op::PortFailure => Err(port_failure(v)),
        Op::ClientRetain => client_retain(v),
        Op::ClientRetained => client_retained(v),
        Op::ClientOutcome => client_outcome(v),
        Op::ClientCancel => step(&v["deferral"], Event::Cancel).map(|()| done()),
        Op::ClientStep => client_step(v),
        Op::ClientClaim => client_claim(v),
        Op::ServePort => serve_port(v),
        Op::Schedule => schedule(v),
        Op::Scheduled => scheduled(v),
        Op::KeyStoreFailed => Err(port(
            Code::KeyStoreFailed,
            &[("id", &shown(&v["id"])), ("why", &shown(&v["why"]))],
        )),
        Op::RecordedDigest => {
            recorded_digest(&v["receipt"]).map(|d| obj(vec![("digest", Value::from(d))]))
        }
        Op::PortState => Ok(obj(vec![("state", Value::from(port_state(v)))])),
        Op::PortDeferral => port_deferral(v),
        Op::CancelHandle => cancel_handle(v),
        Op::CancelRefused => Ok(obj(vec![(
            "ignore",
            Value::Bool(v["code"] == "illegal-transition" && v["state"] == "cancelled"),
        )])),
        Op::StoreKey => store_key(&v["key"]),
        Op::RecordOrder => super::record_order::record_order(v),
    }
}

fn port(code: Code, values: &[(&str, &str)]) -> Refusal {
    Refusal::new(Form::Port, code, values)
}

/// `createPortClient({url, token, timeoutMs})`: a URL of http or https, a token; the timeout.
fn port_client(v: &Value) -> Answer {
    let url = v["url"].as_str().unwrap_or_default();
    let what = if url.is_empty() {
        "a url, e.g. http://127.0.0.1:8787".to_string()
    } else if v["token"].as_bool() != Some(true) {
        "its bearer token".to_string()
    } else {
        let scheme = url
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if scheme == "http" || scheme == "https" {
            let timeout = v["timeout_ms"].as_u64().unwrap_or(PORT_TIMEOUT_MS);
            return Ok(obj(vec![
                ("timeout_ms", Value::from(timeout)),
                (
                    "max_bytes",
                    Value::from(crate::attempt::limits::MAX_ANSWER_BYTES),
                ),
            ]));
        }
        format!("an http: or https: URL, not {}", shown(&v["url"]))
    };
    Err(port(Code::InvalidPort, &[("what", &what)]))
}

/// A request that got no usable answer: unreachable (status 0) or no JSON error from the port.
fn port_failure(v: &Value) -> Refusal {
    let status = v["status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .unwrap_or(0);
    if status == 0 {
        let why = format!(
            "{} ({})",
            shown(&v["why"]),
            v["code"].as_str().unwrap_or("EIO")
        );
        return port(
            Code::PortUnreachable,
            &[("origin", &shown(&v["origin"])), ("why", &why)],
        );
    }
    let mut refusal = port(Code::PortError, &[("status", &status.to_string())]);
    refusal.status = status;
    refusal
}

fn launch_given(v: &Value) -> Result<(), Refusal> {
    match v["launch"].as_str() {
        Some(launch) if !launch.is_empty() => Ok(()),
        _ => Err(port(Code::InvalidLaunch, &[])),
    }
}

/// `retain(receipt, {launch})` of the serve client: a valid handoff receipt and a launch target.
fn client_retain(v: &Value) -> Answer {
    let r = receipt(&v["receipt"], Form::Port)?;
    if r.is_retained() {
        return Err(port(Code::AlreadyRetained, &[]).at("$.ownership"));
    }
    launch_given(v)?;
    Ok(done())
}

/// What the host answered must be a valid retained receipt of the same work.
fn client_retained(v: &Value) -> Answer {
    let sent = receipt(&v["sent"], Form::Port)?;
    let got = receipt(&v["answer"], Form::Port)?;
    if !got.is_retained() || got.bindings != sent.bindings {
        return Err(port(Code::UnexpectedReceipt, &[]));
    }
    Ok(obj(vec![("receipt", Value::from(got.to_json()))]))
}

/// The lifecycle event of a fresh process's outcome, with the new receipt of `deferred`.
fn client_outcome(v: &Value) -> Answer {
    let event = match v["outcome"].as_str() {
        Some("complete") => Event::Complete,
        Some("blocked") => Event::Block,
        Some("deferred") => Event::Defer,
        _ => {
            return Err(port(
                Code::InvalidOutcome,
                &[("got", &shown(&v["outcome"]))],
            ))
        }
    };
    if event == Event::Defer {
        if v["receipt"].is_null() {
            return Err(port(Code::MissingReceipt, &[]));
        }
        receipt(&v["receipt"], Form::Port)?;
    }
    Ok(obj(vec![("event", Value::from(event.as_str()))]))
}

/// The core's verdict on `event` from the deferral's position, as `deferral-host` reports it.
fn step(deferral: &Value, event: Event) -> Result<(), Refusal> {
    let number = |name: &str, default: u32| {
        deferral[name]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(default)
    };
    let state = deferral["state"]
        .as_str()
        .and_then(State::parse)
        .unwrap_or(State::Ready);
    let at = Position {
        state,
        reentries: number("reentries", 0),
        max_reentries: number("max_reentries", DEFAULT_MAX_REENTRIES),
    };
    lifecycle::transition(at, event)
        .map(|_| ())
        .map_err(|e| Refusal {
            form: Form::Port,
            status: 0,
            code: e.code().to_string(),
            path: Some("$.event".to_string()),
            message: e.to_string(),
        })
}

fn client_step(v: &Value) -> Answer {
    let event = v["event"]
        .as_str()
        .and_then(Event::parse)
        .unwrap_or(Event::Complete);
    step(&v["deferral"], event).map(|()| done())
}

/// The claim must be of the attempt the fresh process was launched for.
fn client_claim(v: &Value) -> Answer {
    if v["attempt"].is_null() || v["attempt"] == v["current"] {
        return Ok(done());
    }
    Err(port(
        Code::StaleAttempt,
        &[
            ("attempt", &shown(&v["attempt"])),
            ("current", &shown(&v["current"])),
        ],
    ))
}

/// `createServePort({launch, keyStore})`.
fn serve_port(v: &Value) -> Answer {
    launch_given(v)?;
    if v["key_store"].as_bool() != Some(true) {
        return Err(port(Code::InvalidKeyStore, &[]));
    }
    Ok(done())
}

/// The digest under which serve recorded a receipt: that of its handoff form.
fn handoff_digest(r: &Receipt) -> String {
    digest(&r.as_handoff().to_value()).unwrap_or_default()
}

fn recorded_digest(v: &Value) -> Result<String, Refusal> {
    receipt(v, Form::Receipt).map(|r| handoff_digest(&r))
}

/// `schedule(receipt)`: only the governed handoff the gate emitted.
fn schedule(v: &Value) -> Answer {
    let r = receipt(&v["receipt"], Form::Receipt)?;
    if r.is_retained() {
        return Err(port(Code::AlreadyRetained, &[]).at("$.ownership"));
    }
    Ok(obj(vec![
        ("receipt", Value::from(r.to_json())),
        ("digest", Value::from(handoff_digest(&r))),
    ]))
}

/// A port's answer that cannot be used, as the Action refuses a coordinator's.
fn unusable(detail: port_answer::Unusable) -> Refusal {
    port(Code::InvalidPortAnswer, &[("detail", detail)])
}

/// serve's answer to a record: a deferral id, the retained receipt of the digest sent, and the
/// cancellation handle (given to the first recorder only), each checked as the Action checks
/// them; answers the handle digests.
fn scheduled(v: &Value) -> Answer {
    port_answer::check_id(v["id"].as_str().unwrap_or_default()).map_err(unusable)?;
    if v["already_recorded"].as_bool() == Some(true) && v["receipt"].is_null() {
        return Err(port(Code::AlreadyRecorded, &[("id", &shown(&v["id"]))]));
    }
    if let Some(handle) = v.get("cancellation_handle").filter(|h| !h.is_null()) {
        port_answer::check_handle(handle.as_str().unwrap_or_default()).map_err(unusable)?;
    }
    let r = receipt(&v["receipt"], Form::Receipt)?;
    if !r.is_retained() || v["digest"].as_str() != Some(handoff_digest(&r).as_str()) {
        return Err(port(Code::UnexpectedReceipt, &[]));
    }
    let value = r.to_value();
    let handles = obj(vec![
        ("wakeupDigest", value["ownership"]["wakeup_digest"].clone()),
        (
            "cancellationDigest",
            value["ownership"]["cancellation_digest"].clone(),
        ),
    ]);
    Ok(obj(vec![("handles", handles)]))
}

/// A deferral the port found (`{id?, state}`, by id or by receipt digest): an id that can go
/// into a URL path, a state of the lifecycle.
fn port_deferral(v: &Value) -> Answer {
    if let Some(id) = v.get("id").filter(|id| !id.is_null()) {
        port_answer::check_id(id.as_str().unwrap_or_default()).map_err(unusable)?;
    }
    if let Some(state) = v.get("state").filter(|s| !s.is_null()) {
        port_answer::check_state(state.as_str().unwrap_or_default()).map_err(unusable)?;
    }
    Ok(done())
}

/// The host's states as upstream's port answers them; `ready` is `deferred`, a cancellation by
/// expiry is `expired`, and complete and blocked are kept as they are.
fn port_state(v: &Value) -> String {
    let state = v["state"].as_str().unwrap_or_default();
    match (state, v["cause"].as_str()) {
        ("cancelled", Some("expired")) => "expired".to_string(),
        ("ready", _) => "deferred".to_string(),
        _ => state.to_string(),
    }
}

fn cancel_handle(v: &Value) -> Answer {
    if v["known"].as_bool() == Some(true) {
        return Ok(done());
    }
    Err(port(Code::NoCancellationHandle, &[]))
}

/// A key store key is a receipt digest.
fn store_key(key: &Value) -> Answer {
    let ok = key.as_str().is_some_and(|k| {
        k.len() == 64 && k.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    });
    if ok {
        return Ok(done());
    }
    Err(Refusal::new(
        Form::Type,
        Code::InvalidKey,
        &[("key", &serde_json::to_string(key).unwrap_or_default())],
    ))
}
