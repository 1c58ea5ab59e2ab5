//! A durable port's answers as every client of the core checks them (the Action's coordinator
//! step and the library's serve-backed port alike): a deferral id is 1 to 64 of
//! `[A-Za-z0-9_-]` (it goes into file names and URL paths), a cancellation handle is 64
//! lowercase hex, a retained receipt is a valid receipt of the work that was sent, and a state
//! is one of the lifecycle's. An admission answer (`POST /v1/admissions`) is of the pool that
//! was asked, says `admitted` true or false, and carries whole figures only: an admission id
//! like a deferral id, or a refusal's reason and the pool's window. Each refusal says what was
//! wrong, never what was answered.

use deferral_core::lifecycle::State;
use deferral_core::pool::{PoolWindow, PoolWindows};
use deferral_core::receipt::{validate, Receipt};
use serde_json::{Map, Value};

/// What a port answered that cannot be used, in words for "the port answered {detail}".
pub type Unusable = &'static str;

/// A deferral id: 1 to 64 of `[A-Za-z0-9_-]`.
pub fn check_id(id: &str) -> Result<(), Unusable> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then_some(())
        .ok_or("a deferral id that is not 1 to 64 of [A-Za-z0-9_-]")
}

/// A cancellation handle: 64 lowercase hex.
pub fn check_handle(handle: &str) -> Result<(), Unusable> {
    let ok = handle.len() == 64
        && handle
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then_some(())
        .ok_or("a cancellation handle that is not 64 lowercase hex")
}

/// A deferral's state: one of the lifecycle's.
pub fn check_state(state: &str) -> Result<State, Unusable> {
    State::parse(state).ok_or("a state that is not one of the lifecycle's")
}

/// The retained receipt of an answer (text, or the receipt as JSON): valid, retained, and bound
/// to the same work as `sent`.
pub fn check_receipt(answer: Option<&Value>, sent: &Receipt) -> Result<Receipt, Unusable> {
    let text = match answer {
        Some(Value::String(s)) => s.clone(),
        Some(other) => serde_json::to_string(other).unwrap_or_default(),
        None => String::new(),
    };
    let Ok(receipt) = validate(text.as_bytes()) else {
        return Err("a receipt that is not a valid deferred-receipt-v1");
    };
    if !receipt.is_retained() || receipt.bindings != sent.bindings {
        return Err("a receipt that is not the retained form of the one sent");
    }
    Ok(receipt)
}

/// A record answer `{id, receipt, cancellation_handle}` to the handoff receipt `sent`: the id,
/// the retained receipt and the handle, each checked.
pub fn check_retained(
    answer: &Map<String, Value>,
    sent: &Receipt,
) -> Result<(String, Receipt, String), Unusable> {
    let text = |name: &str| answer.get(name).and_then(Value::as_str).unwrap_or("");
    let id = text("id");
    check_id(id)?;
    let handle = text("cancellation_handle");
    check_handle(handle)?;
    let receipt = check_receipt(answer.get("receipt"), sent)?;
    Ok((id.to_string(), receipt, handle.to_string()))
}

/// The longest refusal reason a port may give (it is shown in the summary and the JSON line).
pub const MAX_POOL_REASON: usize = 1024;

/// The largest time or count a port may state: 2^53 - 1, what JavaScript holds exactly.
const MAX_SAFE: u64 = (1 << 53) - 1;

/// A port's answer to an admission request, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// The plan's cost is admitted in the pool: the work may proceed.
    Admitted {
        id: String,
        expires_ms: u64,
        window: PoolWindows,
    },
    /// The pool has no room for it: why, and the pool's window.
    Refused { reason: String, window: PoolWindows },
}

fn whole(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64).filter(|n| *n <= MAX_SAFE)
}

fn pool_window(v: Option<&Value>) -> Result<Option<PoolWindow>, Unusable> {
    let v = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err("a window resource that is not an object"),
    };
    let figure = |name: &str| {
        whole(v.get(name)).ok_or(
            "a window whose limit, remaining, reserve and reset_ms are not all whole numbers",
        )
    };
    let w = PoolWindow {
        limit: figure("limit")?,
        remaining: figure("remaining")?,
        reserve: figure("reserve")?,
        reset_ms: figure("reset_ms")?,
    };
    if w.remaining > w.limit || w.reserve > w.limit {
        return Err("a window whose remaining or reserve is above its limit");
    }
    Ok(Some(w))
}

/// The `rest` and `graphql` windows of an object (either may be absent), each checked.
pub fn pool_windows(v: &Value) -> Result<PoolWindows, Unusable> {
    Ok(PoolWindows {
        rest: pool_window(v.get("rest"))?,
        graphql: pool_window(v.get("graphql"))?,
    })
}

/// An admission answer for `pool`: `{"admitted":true,"admission","pool","expires_ms","window"}`
/// or `{"admitted":false,"pool","reason","window"}`, every part checked.
pub fn check_admission(answer: &Map<String, Value>, pool: &str) -> Result<Admission, Unusable> {
    let admitted = answer
        .get("admitted")
        .and_then(Value::as_bool)
        .ok_or("an admission without admitted true or false")?;
    if answer.get("pool").and_then(Value::as_str) != Some(pool) {
        return Err("an admission of another pool than the one asked");
    }
    let window = match answer.get("window") {
        Some(w @ Value::Object(_)) => pool_windows(w)?,
        _ => return Err("an admission without a window object"),
    };
    if admitted {
        let id = answer
            .get("admission")
            .and_then(Value::as_str)
            .unwrap_or("");
        check_id(id).map_err(|_| "an admission id that is not 1 to 64 of [A-Za-z0-9_-]")?;
        let expires_ms =
            whole(answer.get("expires_ms")).ok_or("an admission without a whole expires_ms")?;
        return Ok(Admission::Admitted {
            id: id.to_string(),
            expires_ms,
            window,
        });
    }
    let reason = answer
        .get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty() && r.len() <= MAX_POOL_REASON)
        .ok_or("a refusal without a reason of 1 to 1024 bytes")?;
    if window.rest.is_none() && window.graphql.is_none() {
        return Err("a refusal whose window holds neither rest nor graphql");
    }
    Ok(Admission::Refused {
        reason: reason.to_string(),
        window,
    })
}

/// A release answer: `{"released":true}` or `{"released":false,"already":true}`; answers
/// whether it had been released already.
pub fn check_release(answer: &Map<String, Value>) -> Result<bool, Unusable> {
    match (
        answer.get("released").and_then(Value::as_bool),
        answer.get("already").and_then(Value::as_bool),
    ) {
        (Some(true), None | Some(false)) => Ok(false),
        (Some(false), Some(true)) => Ok(true),
        _ => Err("a release answer that is neither released nor already released"),
    }
}
