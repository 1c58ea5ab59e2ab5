//! `report`: the current attempt's outcome (`complete`, `blocked`, `deferred`), proven with its
//! wake-up handle (or, for an operator, the cancellation handle), as `deferral-host report`
//! and `POST /v1/deferrals/ID/outcome` both do it. Each entry reads its own input; checks and
//! the lifecycle step are here.

use crate::error::{HostError, HostErrorKind};
use crate::handle::handle_matches;
use crate::lifecycle::change::{load, position};
use crate::lifecycle::outcome::{check_new_receipt, end_attempt, Outcome};
use crate::store::{Deferral, Store};
use crate::view::{self, answers};
use deferral_core::lifecycle::{transition, Event, State};
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
    write_report(
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
    view::value(&answers::state_view(d))
}

/// Still deferred: the new retained receipt (its stored text), which the caller keeps as
/// `record` gave it the first.
pub fn next_receipt(store: &dyn Store, d: &Deferral) -> Result<Option<String>, HostError> {
    if d.state != State::Deferred {
        return Ok(None);
    }
    Ok(Some(store.current_receipt(&d.id)?.text))
}

/// The outcome a fresh process or an operator reports with `deferral-host report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    Complete,
    Blocked,
    Deferred,
}

/// The current attempt's outcome, proven with its wake-up handle (or, for an
/// operator, the cancellation handle). Invalid input changes nothing.
fn write_report(
    store: &dyn Store,
    id: &str,
    attempt: u32,
    handle: &str,
    outcome: Reported,
    receipt: Option<&str>,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let deferral = load(store, id)?;
    if deferral.state != State::Resumable {
        let event = match outcome {
            Reported::Complete => Event::Complete,
            Reported::Blocked => Event::Block,
            Reported::Deferred => Event::Defer,
        };
        transition(position(&deferral), event)?;
    }
    let wakeup_ok = deferral
        .wakeup_digest
        .as_deref()
        .is_some_and(|d| handle_matches(handle, d));
    if !wakeup_ok && !handle_matches(handle, &deferral.cancellation_digest) {
        return Err(HostError::new(
            HostErrorKind::WrongHandle,
            "the handle matches neither the current wake-up digest nor the cancellation digest",
        ));
    }
    if attempt != deferral.reentries {
        return Err(HostError::new(
            HostErrorKind::StaleAttempt,
            format!(
                "attempt {attempt} is not the current attempt {}",
                deferral.reentries
            ),
        ));
    }
    let detail = Some(format!(
        "reported by {}",
        if wakeup_ok {
            "the launch"
        } else {
            "the operator"
        }
    ));
    let outcome = match outcome {
        Reported::Complete => Outcome::Complete { detail },
        Reported::Blocked => Outcome::Blocked { detail },
        Reported::Deferred => {
            let text = receipt.ok_or_else(|| {
                HostError::new(
                    HostErrorKind::MissingReceipt,
                    "--outcome deferred needs the new receipt (a file or -)",
                )
            })?;
            check_new_receipt(store, &deferral, text)?;
            Outcome::Deferred {
                receipt: text.to_string(),
                detail,
            }
        }
    };
    end_attempt(store, &deferral, outcome, now_ms)
}
