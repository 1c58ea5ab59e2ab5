//! Every change of a deferral, as the core lifecycle's `transition` followed by one
//! compare-and-set on the row as it was read (`(state, fence)`): the store writes the result
//! only if nobody wrote in between. No caller picks a target state by hand; the state machine
//! (`deferral_core::lifecycle`) decides.

use crate::error::{HostError, HostErrorKind};
use crate::handle::handle_matches;
use crate::store::{
    AttemptStatus, Change, Deferral, Lease, NewReceipt, ResumeWindow, Store, StoreError, Update,
};
use deferral_core::lifecycle::{transition, Cause, Event, Position, State};
use deferral_core::receipt::Receipt;

/// Receipt kinds in the append-only receipts table.
pub const KIND_SUBMITTED: &str = crate::store::github::SUBMITTED_KIND;
pub const KIND_RETAINED: &str = "retained";
pub const KIND_CLAIMED: &str = "claimed";

/// What a state change writes besides the state itself.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    pub detail: Option<String>,
    /// Inserted instead of the lifecycle's plain `blocked` cause when the transition blocks
    /// (e.g. `approval-required`, `launch-not-found`); other causes are never replaced.
    pub block_cause: Option<String>,
    pub lease: Change<Lease>,
    pub wakeup_digest: Change<String>,
    pub attempt_status: Change<AttemptStatus>,
    pub receipts: Vec<NewReceipt>,
    pub window: Option<ResumeWindow>,
}

pub(crate) fn position(deferral: &Deferral) -> Position {
    Position {
        state: deferral.state,
        reentries: deferral.reentries,
        max_reentries: deferral.max_reentries,
    }
}

/// Applies a lifecycle event to `deferral` as read (compare-and-set on its state and fence).
/// A terminal target always drops the lease, the attempt and the wake-up digest.
pub fn apply(
    store: &dyn Store,
    deferral: &Deferral,
    event: Event,
    effects: Effects,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let update = planned(deferral, event, effects, now_ms)?;
    Ok(store.update(&deferral.id, &update)?)
}

/// The compare-and-set [`apply`] writes, without writing it.
pub(crate) fn planned(
    deferral: &Deferral,
    event: Event,
    effects: Effects,
    now_ms: u64,
) -> Result<Update, HostError> {
    planned_with(deferral, event, None, effects, now_ms)
}

/// [`planned`], with the event's cause named by the caller when `cause` is given.
fn planned_with(
    deferral: &Deferral,
    event: Event,
    cause: Option<&str>,
    mut effects: Effects,
    now_ms: u64,
) -> Result<Update, HostError> {
    let step = transition(position(deferral), event)?;
    if step.to.state.is_terminal() {
        effects.lease = Change::Clear;
        effects.attempt_status = Change::Clear;
        effects.wakeup_digest = Change::Clear;
    }
    let target = (step.to.state, step.to.reentries);
    let cause = match (cause, step.cause, effects.block_cause.take()) {
        (Some(cause), _, _) => cause.to_string(),
        (None, Cause::Blocked, Some(cause)) => cause,
        (None, cause, _) => cause.as_str().to_string(),
    };
    Ok(update_of(
        deferral,
        target,
        event.as_str(),
        &cause,
        effects,
        now_ms,
    ))
}

/// Like [`apply`], with the event's cause named by the caller (`chain-limit`, `run-failure`,
/// `artifact-expired`, ...). The lifecycle still decides whether the change is allowed and
/// what state it leads to.
pub fn apply_caused(
    store: &dyn Store,
    deferral: &Deferral,
    event: Event,
    cause: &str,
    effects: Effects,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let update = planned_with(deferral, event, Some(cause), effects, now_ms)?;
    Ok(store.update(&deferral.id, &update)?)
}

/// Records something about the current attempt that is not a state change (a dispatch was
/// accepted, its result is unknown, an operator resolved it). Still a compare-and-set.
pub fn note(
    store: &dyn Store,
    deferral: &Deferral,
    event: &str,
    cause: &str,
    effects: Effects,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let target = (deferral.state, deferral.reentries);
    let update = update_of(deferral, target, event, cause, effects, now_ms);
    Ok(store.update(&deferral.id, &update)?)
}

/// The one compare-and-set every change goes through: expected (state, fence) of `deferral`,
/// new state and re-entries, the event row, and the effects, in one store transaction.
pub(crate) fn update_of(
    deferral: &Deferral,
    (state, reentries): (State, u32),
    event: &str,
    cause: &str,
    effects: Effects,
    now_ms: u64,
) -> Update {
    Update {
        expect_state: deferral.state,
        expect_fence: deferral.fence,
        state,
        reentries,
        event: event.to_string(),
        cause: cause.to_string(),
        detail: effects.detail,
        bump_fence: true,
        lease: effects.lease,
        wakeup_digest: effects.wakeup_digest,
        attempt_status: effects.attempt_status,
        receipts: effects.receipts,
        window: effects.window,
        at_ms: now_ms,
    }
}

pub(crate) fn window_of(receipt: &Receipt) -> ResumeWindow {
    ResumeWindow {
        reason: receipt.reason.as_str().to_string(),
        resume_after_ms: receipt.resume_after_ms,
        resume_by_ms: receipt.resume_by_ms,
    }
}

/// Loads a deferral or fails with `not-found` (exit 2).
pub fn load(store: &dyn Store, id: &str) -> Result<Deferral, HostError> {
    store
        .get(id)?
        .ok_or_else(|| StoreError::NotFound(id.to_string()).into())
}

/// Refuses (`wrong-handle`) unless `handle` is the deferral's raw cancellation handle.
pub(crate) fn require_cancellation_handle(
    deferral: &Deferral,
    handle: &str,
    what: &str,
) -> Result<(), HostError> {
    if handle_matches(handle, &deferral.cancellation_digest) {
        return Ok(());
    }
    Err(HostError::new(
        HostErrorKind::WrongHandle,
        format!("{what} needs the deferral's cancellation handle; this one does not match"),
    ))
}

/// Cancels a deferral whose `resume_by_ms` passed (cause `expired`).
pub fn expire(store: &dyn Store, deferral: &Deferral, now_ms: u64) -> Result<Deferral, HostError> {
    apply(store, deferral, Event::Expire, Effects::default(), now_ms)
}
