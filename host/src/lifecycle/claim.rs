//! The scheduler's claim of a due deferral for one launch (one re-entry), and its give-back
//! when the launch certainly never left this host.

use super::change::{planned, position, update_of, Effects, KIND_CLAIMED};
use crate::error::{HostError, HostErrorKind};
use crate::handle::{handle_digest, new_handle};
use crate::store::{AttemptStatus, Change, Deferral, Lease, NewReceipt, Store, StoreError, Update};
use deferral_core::lifecycle::{transition, Event, Position};
use deferral_core::receipt::{validate_str, Receipt};

/// A claimed launch: the deferral (now `resumable`), the raw wake-up handle for the fresh
/// process, and the retained receipt whose `wakeup_digest` is that handle's digest.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub deferral: Deferral,
    pub wakeup_handle: String,
    pub receipt: Receipt,
    pub receipt_json: String,
}

/// Claims a due deferral for one launch (one re-entry): rotates the wake-up handle, appends the
/// receipt given to the launch, and takes a lease until `lease_until_ms`.
pub fn claim(
    store: &dyn Store,
    deferral: &Deferral,
    owner: &str,
    lease_until_ms: u64,
    attempt: AttemptStatus,
    now_ms: u64,
) -> Result<Claimed, HostError> {
    let current = store.current_receipt(&deferral.id)?;
    let (update, mut claimed) = plan_claim(
        deferral,
        &current.text,
        owner,
        lease_until_ms,
        attempt,
        now_ms,
    )?;
    claimed.deferral = store.update(&deferral.id, &update)?;
    Ok(claimed)
}

/// The cause recorded when a claim is given back: its launch never left this host.
pub const CAUSE_NOT_SENT: &str = "not-sent";

/// Gives back a `workflow-dispatch:` claim whose dispatch certainly never reached GitHub
/// (nothing was written: name lookup, connect or TLS handshake failed, the App's JWT could not
/// be signed). A launch that was never sent is not a re-entry: the deferral goes back to
/// `deferred` with the re-entry the claim counted returned (the lifecycle decides, as for a
/// `defer` from where the deferral stood before the claim), cause `not-sent`, `detail` why.
pub fn give_back(
    store: &dyn Store,
    deferral: &Deferral,
    detail: String,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    if deferral.attempt_status != Some(AttemptStatus::Dispatching) || deferral.reentries == 0 {
        return Err(HostError::new(
            HostErrorKind::NotDispatching,
            format!(
                "deferral {} has no claimed dispatch to give back",
                deferral.id
            ),
        ));
    }
    let before_claim = Position {
        reentries: deferral.reentries - 1,
        ..position(deferral)
    };
    let step = transition(before_claim, Event::Defer)?;
    let effects = Effects {
        detail: Some(detail),
        lease: Change::Clear,
        attempt_status: Change::Clear,
        wakeup_digest: Change::Set(handle_digest(&new_handle())),
        ..Effects::default()
    };
    let target = (step.to.state, step.to.reentries);
    let update = update_of(
        deferral,
        target,
        "give-back",
        CAUSE_NOT_SENT,
        effects,
        now_ms,
    );
    Ok(store.update(&deferral.id, &update)?)
}

/// Why [`claim_next`] failed, and which deferral it had picked, if any (so that a ticker can
/// leave that one aside and go on with the others).
#[derive(Debug, Clone)]
pub struct ClaimNextFailure {
    pub id: Option<String>,
    pub error: HostError,
}

/// Claims the next due deferral in one transaction ([`Store::claim_next_due`]): the earliest
/// one no other ticker holds, with its attempt status from `attempt_for`. `None` when nothing
/// (else) is due.
pub fn claim_next(
    store: &dyn Store,
    next: &crate::store::NextDue,
    owner: &str,
    lease_ms: u64,
    attempt_for: &dyn Fn(&Deferral) -> AttemptStatus,
    now_ms: u64,
) -> Result<Option<Claimed>, ClaimNextFailure> {
    let mut picked: Option<String> = None;
    let mut claimed: Option<Claimed> = None;
    let result = store.claim_next_due(next, &mut |row, receipt| {
        picked = Some(row.id.clone());
        let receipt = receipt?;
        let (update, plan) = plan_claim(
            row,
            &receipt.text,
            owner,
            now_ms.saturating_add(lease_ms),
            attempt_for(row),
            now_ms,
        )
        .map_err(|e| StoreError::Corrupt(format!("deferral {}: {}", row.id, e)))?;
        claimed = Some(plan);
        Ok(update)
    });
    match result {
        Ok(Some(deferral)) => Ok(claimed.map(|c| Claimed { deferral, ..c })),
        Ok(None) => Ok(None),
        Err(err) => Err(ClaimNextFailure {
            id: picked,
            error: err.into(),
        }),
    }
}

/// The claim of `deferral` (whose current receipt is `current_text`) as an update, and what
/// the launch gets (its `deferral` is the row before the claim until the update is written).
fn plan_claim(
    deferral: &Deferral,
    current_text: &str,
    owner: &str,
    lease_until_ms: u64,
    attempt: AttemptStatus,
    now_ms: u64,
) -> Result<(Update, Claimed), HostError> {
    let current = validate_str(current_text)?;
    let wakeup_handle = new_handle();
    let receipt = current.as_handoff().retain(
        &handle_digest(&wakeup_handle),
        &deferral.cancellation_digest,
    )?;
    let receipt_json = receipt.to_json();
    let effects = Effects {
        lease: Change::Set(Lease {
            owner: owner.to_string(),
            until_ms: lease_until_ms,
        }),
        wakeup_digest: Change::Set(handle_digest(&wakeup_handle)),
        attempt_status: Change::Set(attempt),
        receipts: vec![NewReceipt::new(KIND_CLAIMED, receipt_json.clone())],
        ..Effects::default()
    };
    let update = planned(deferral, Event::Claim, effects, now_ms)?;
    Ok((
        update,
        Claimed {
            deferral: deferral.clone(),
            wakeup_handle,
            receipt,
            receipt_json,
        },
    ))
}
