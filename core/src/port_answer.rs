//! A durable port's answers as every client of the core checks them (the Action's coordinator
//! step and the library's serve-backed port alike): a deferral id is 1 to 64 of
//! `[A-Za-z0-9_-]` (it goes into file names and URL paths), a cancellation handle is 64
//! lowercase hex, a retained receipt is a valid receipt of the work that was sent, and a state
//! is one of the lifecycle's. Each refusal says what was wrong, never what was answered.

use crate::lifecycle::State;
use crate::receipt::{validate, Receipt};
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
