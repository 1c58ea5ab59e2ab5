//! A durable port's answers as every client of the core checks them (the Action's coordinator
//! step and the library's serve-backed port alike): a deferral id is 1 to 64 of
//! `[A-Za-z0-9_-]` (it goes into file names and URL paths), a cancellation handle is 64
//! lowercase hex, a retained receipt is a valid receipt of the work that was sent, and a state
//! is one of the lifecycle's. An admission answer (`POST /v1/admissions`) is of the pool that
//! was asked, says `admitted` true or false, and carries whole figures only: an admission id
//! like a deferral id, or a refusal's reason and the pool's window. Each refusal says what was
//! wrong, never what was answered.

use deferral_core::lifecycle::State;
use deferral_core::receipt::{validate, Receipt};
use deferral_protocol::{AdmissionAnswer, Problem, ReleaseAnswer, Windows, MAX_FIGURE};
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

/// The `rest` and `graphql` windows of an answer (either may be absent; members the driver
/// does not know are left unread), each checked: the protocol's reading, in a port refusal's
/// words. Not an object: no windows.
pub fn pool_windows(v: &Value) -> Result<Windows, Unusable> {
    if !v.is_object() {
        return Ok(Windows::default());
    }
    Windows::read_answer(v).map_err(|e| match e.problem {
        Problem::NotObject => "a window resource that is not an object",
        Problem::AboveLimit => "a window whose remaining or reserve is above its limit",
        _ => "a window whose limit, remaining, reserve and reset_ms are not all whole numbers",
    })
}

fn whole(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64).filter(|n| *n <= MAX_FIGURE)
}

/// An admission answer for `pool`: `{"admitted":true,"admission","pool","expires_ms","window"}`
/// or `{"admitted":false,"pool","reason","window"}`, every part checked.
pub fn check_admission(
    answer: &Map<String, Value>,
    pool: &str,
) -> Result<AdmissionAnswer, Unusable> {
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
        return Ok(AdmissionAnswer::Admitted {
            admission: id.to_string(),
            pool: pool.to_string(),
            expires_ms,
            window,
        });
    }
    let reason = answer
        .get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty() && r.len() <= MAX_POOL_REASON)
        .ok_or("a refusal without a reason of 1 to 1024 bytes")?;
    if window.is_empty() {
        return Err("a refusal whose window holds neither rest nor graphql");
    }
    Ok(AdmissionAnswer::Refused {
        pool: pool.to_string(),
        reason: reason.to_string(),
        window,
    })
}

/// A release answer: `{"released":true}` or `{"released":false,"already":true}`; answers
/// whether it had been released already.
pub fn check_release(answer: &Map<String, Value>) -> Result<bool, Unusable> {
    match ReleaseAnswer::read(answer) {
        Some(ReleaseAnswer::Released) => Ok(false),
        Some(ReleaseAnswer::Already) => Ok(true),
        None => Err("a release answer that is neither released nor already released"),
    }
}
