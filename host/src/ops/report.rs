//! `report`: the current attempt's outcome (`complete`, `blocked`, `deferred`), proven with its
//! wake-up handle (or, for an operator, the cancellation handle), as `deferral-host report`
//! and `POST /v1/deferrals/ID/outcome` both do it. Each entry reads its own input; the
//! lifecycle step is [`coordinator::report`].

use crate::coordinator::{self, Reported};
use crate::error::HostError;
use crate::store::{Deferral, Store};
use crate::view::{self, answers::StateView};
use deferral_core::lifecycle::State;
use serde_json::Value;

/// What is reported.
pub struct ReportRequest<'a> {
    pub id: &'a str,
    pub attempt: u32,
    pub handle: &'a str,
    pub outcome: Reported,
    /// The next receipt, with `deferred` (as the process wrote it).
    pub receipt: Option<&'a str>,
}

/// Writes the outcome; the deferral as it is after.
pub fn report(
    store: &dyn Store,
    request: &ReportRequest<'_>,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    coordinator::report(
        store,
        request.id,
        request.attempt,
        request.handle,
        request.outcome,
        request.receipt,
        now_ms,
    )
}

/// `{cause, id, state}`.
pub fn answer(d: &Deferral) -> Value {
    view::value(&StateView::of(d))
}

/// Still deferred: the new retained receipt (its stored text), which the caller keeps as
/// `record` gave it the first.
pub fn next_receipt(store: &dyn Store, d: &Deferral) -> Result<Option<String>, HostError> {
    if d.state != State::Deferred {
        return Ok(None);
    }
    Ok(Some(store.current_receipt(&d.id)?.text))
}
