//! Every change of a deferral, as the lifecycle's `transition` followed by one compare-and-set.
//!
//! Commands and the ticker call these functions; none of them picks a target state by hand.
//! The state machine (`deferral_core::lifecycle`) decides; the store writes the result only if
//! the row still has the `(state, fence)` that was read.

use crate::error::{HostError, HostErrorKind};
use crate::handle::{handle_digest, handle_matches, new_deferral_id, new_handle};
use crate::store::{
    AttemptStatus, Change, Deferral, Lease, NewDeferral, NewReceipt, RecordKeys, Store, StoreError,
    Update, Window,
};
use deferral_core::lifecycle::{transition, Cause, Event, Position, State};
use deferral_core::receipt::{validate, validate_str, Receipt};

/// Receipt kinds in the append-only receipts table.
pub const KIND_SUBMITTED: &str = crate::store::github::SUBMITTED_KIND;
pub const KIND_RETAINED: &str = "retained";
pub const KIND_CLAIMED: &str = "claimed";

/// What a state change writes besides the state itself.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    pub detail: Option<String>,
    /// Recorded instead of the lifecycle's plain `blocked` cause when the transition blocks
    /// (e.g. `approval-required`, `launch-not-found`); other causes are never replaced.
    pub block_cause: Option<String>,
    pub lease: Change<Lease>,
    pub wakeup_digest: Change<String>,
    pub attempt_status: Change<AttemptStatus>,
    pub receipts: Vec<NewReceipt>,
    pub window: Option<Window>,
}

fn position(deferral: &Deferral) -> Position {
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
fn planned(
    deferral: &Deferral,
    event: Event,
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
    let cause = match (step.cause, effects.block_cause.take()) {
        (Cause::Blocked, Some(cause)) => cause,
        (cause, _) => cause.as_str().to_string(),
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
    mut effects: Effects,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let step = transition(position(deferral), event)?;
    if step.to.state.is_terminal() {
        effects.lease = Change::Clear;
        effects.attempt_status = Change::Clear;
        effects.wakeup_digest = Change::Clear;
    }
    let target = (step.to.state, step.to.reentries);
    let update = update_of(deferral, target, event.as_str(), cause, effects, now_ms);
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
fn update_of(
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

pub(crate) fn window_of(receipt: &Receipt) -> Window {
    Window {
        reason: receipt.reason.as_str().to_string(),
        resume_after_ms: receipt.resume_after_ms,
        resume_by_ms: receipt.resume_by_ms,
    }
}

/// The result of `record`.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub deferral: Deferral,
    pub receipt: Receipt,
    /// The raw cancellation handle: shown once, never stored.
    pub cancellation_handle: String,
}

/// What `record_with` did: recorded a new deferral, or found the receipt (or artifact)
/// recorded already.
#[derive(Debug, Clone)]
pub enum Recording {
    New(Recorded),
    Existing(Deferral),
}

/// Validates a handoff receipt and records it as a new deferral owned by this host; a
/// receipt or artifact recorded already is an error (`already-recorded`). Entries that answer
/// the existing deferral instead use [`record_with`].
pub fn record(
    store: &dyn Store,
    text: &[u8],
    launch: &str,
    max_reentries: u32,
    now_ms: u64,
) -> Result<Recorded, HostError> {
    match record_with(
        store,
        text,
        launch,
        max_reentries,
        RecordKeys::default(),
        now_ms,
    )? {
        Recording::New(recorded) => Ok(recorded),
        Recording::Existing(d) => Err(HostError::new(
            HostErrorKind::AlreadyRecorded,
            format!("this receipt is recorded already as deferral {}", d.id),
        )),
    }
}

/// The deferral that holds a receipt with this digest (`None`: the text is not JSON) or this
/// artifact, if any.
pub fn find_recorded(
    store: &dyn Store,
    digest: Option<&str>,
    keys: &RecordKeys,
) -> Result<Option<Deferral>, HostError> {
    let by_digest = match digest {
        Some(digest) => store.find_by_receipt_digest(digest)?,
        None => None,
    };
    let by_artifact = match (&by_digest, &keys.artifact) {
        (None, Some(artifact)) => store.find_by_artifact(artifact.artifact_id)?,
        _ => None,
    };
    match by_digest.or(by_artifact) {
        // Retried: the receipt's deferral now is the latest retry (see `store::retry`).
        Some(id) => Ok(store.get(&crate::store::retry::latest_retry(store, id)?)?),
        None => Ok(None),
    }
}

/// Records a handoff receipt once: the same receipt (by its digest) or the same artifact
/// answers the deferral that has it, whichever entry (`record`, `serve`, `watch`, a followed
/// run) brings it, even when two entries race.
///
/// `launch` is stored as given: each entry parses it first with the launcher kinds it knows
/// (`crate::launch::Launchers::parse`, refusing `invalid-launch`), and `tick` parses it again
/// when it is due, blocking a target no kind parses (`invalid-launch`, never run).
pub fn record_with(
    store: &dyn Store,
    text: &[u8],
    launch: &str,
    max_reentries: u32,
    keys: RecordKeys,
    now_ms: u64,
) -> Result<Recording, HostError> {
    // A gate or resume line: its deferredReceipt, with its cost and rate state beside it.
    let (text, keys) = crate::pools::line::with_line(text, keys, now_ms)?;
    let text = &text[..];
    let receipt = validate(text)?;
    let submitted = String::from_utf8(text.to_vec())
        .map_err(|_| HostError::new(HostErrorKind::MalformedJson, "the receipt is not UTF-8"))?;
    if receipt.is_retained() {
        return Err(HostError::new(
            HostErrorKind::AlreadyRetained,
            "the receipt is already retained by a durable host; record the handoff receipt the gate emitted",
        ));
    }
    // A closed window is refused even when the receipt was recorded before: nothing to wake.
    if receipt.resume_by_ms < now_ms {
        return Err(HostError::new(
            HostErrorKind::Expired,
            "the receipt's resume_by_ms has passed; nothing to wake",
        ));
    }
    // The submitted receipt's digest is read once: for this look-up and for the store's index.
    let submitted = NewReceipt::new(KIND_SUBMITTED, submitted);
    if let Some(existing) = find_recorded(store, submitted.digest.as_deref(), &keys)? {
        return Ok(Recording::Existing(existing));
    }
    let step = transition(Position::new(max_reentries), Event::Record)?;
    // The record-time wake-up handle is never shown: each launch gets a fresh one (see claim).
    let cancellation_handle = new_handle();
    let cancellation_digest = handle_digest(&cancellation_handle);
    let wakeup_digest = handle_digest(&new_handle());
    let retained = receipt.retain(&wakeup_digest, &cancellation_digest)?;
    let new = NewDeferral {
        id: new_deferral_id(),
        state: step.to.state,
        reentries: step.to.reentries,
        max_reentries,
        cause: step.cause.as_str().to_string(),
        launch: launch.to_string(),
        window: window_of(&retained),
        wakeup_digest,
        cancellation_digest,
        receipts: vec![
            submitted.clone(),
            NewReceipt::new(KIND_RETAINED, retained.to_json()),
        ],
        at_ms: now_ms,
        keys: keys.clone(),
    };
    let deferral = match store.insert(&new) {
        Ok(deferral) => deferral,
        // Another entry recorded the same receipt or artifact between our look-up and insert.
        Err(StoreError::Duplicate(id)) => {
            return match find_recorded(store, submitted.digest.as_deref(), &keys)? {
                Some(existing) => Ok(Recording::Existing(existing)),
                None => Err(StoreError::Duplicate(id).into()),
            }
        }
        Err(err) => return Err(err.into()),
    };
    Ok(Recording::New(Recorded {
        deferral,
        receipt: retained,
        cancellation_handle,
    }))
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

/// Cancels a deferral: only the holder of the raw cancellation handle may.
pub fn cancel(
    store: &dyn Store,
    id: &str,
    handle: &str,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let deferral = load(store, id)?;
    require_cancellation_handle(&deferral, handle, "cancel")?;
    apply(
        store,
        &deferral,
        Event::Cancel,
        Effects {
            detail: Some("operator".into()),
            ..Effects::default()
        },
        now_ms,
    )
}

/// Cancels a deferral whose `resume_by_ms` passed (cause `expired`).
pub fn expire(store: &dyn Store, deferral: &Deferral, now_ms: u64) -> Result<Deferral, HostError> {
    apply(store, deferral, Event::Expire, Effects::default(), now_ms)
}

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

/// How a launch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Complete {
        detail: Option<String>,
    },
    Blocked {
        detail: Option<String>,
    },
    /// Blocked for a known reason, recorded as the cause (`approval-required`,
    /// `launch-not-found`, `invalid-launch`, ...) instead of the plain `blocked`.
    BlockedBecause {
        cause: String,
        detail: Option<String>,
    },
    /// Still limited: a new receipt (handoff or retained form) opens the next window.
    Deferred {
        receipt: String,
        detail: Option<String>,
    },
    /// The launch ended without a new receipt (lease expired, dispatch not sent): back to
    /// `deferred` on the current receipt, which counts the re-entry.
    Returned {
        detail: String,
    },
}

/// Checks a new receipt from a launch against the current one: valid, and the same scope
/// (the same bindings: deferred again; the same scope with another plan or request: progress).
pub fn check_new_receipt(
    store: &dyn Store,
    deferral: &Deferral,
    text: &str,
) -> Result<Receipt, HostError> {
    let new = validate_str(text)?;
    let current = validate_str(&store.current_receipt(&deferral.id)?.text)?;
    if new.bindings.scope_digest != current.bindings.scope_digest {
        let field = if new.bindings.scope_digest != current.bindings.scope_digest {
            "scope_digest"
        } else if new.bindings.request_digest != current.bindings.request_digest {
            "request_digest"
        } else {
            "plan_digest"
        };
        return Err(HostError::new(
            HostErrorKind::BindingMismatch,
            format!(
                "the new receipt's {field} differs from the deferral's; bindings are immutable"
            ),
        )
        .at(format!("$.bindings.{field}")));
    }
    Ok(new)
}

/// How many successors a chain may have before the next progress blocks (`chain-limit`).
pub const DEFAULT_MAX_CHAIN: u32 = 50;

/// Writes the outcome of the launch that claimed `deferral` (as returned by `claim`).
/// An invalid or mismatched new receipt blocks the deferral instead of deferring it.
pub fn finish(
    store: &dyn Store,
    deferral: &Deferral,
    outcome: Outcome,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    finish_chained(store, deferral, outcome, DEFAULT_MAX_CHAIN, now_ms)
}

/// Progress: the run did its part and deferred the next part of the same work (same scope,
/// another plan or request). The new receipt becomes a successor deferral with a fresh
/// re-entry count (recorded first, once, by its digest), then this one completes. A chain
/// longer than `max_chain` blocks instead (`chain-limit`).
fn progress(
    store: &dyn Store,
    deferral: &Deferral,
    new: &Receipt,
    max_chain: u32,
    detail: Option<String>,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let clear = |detail: String| Effects {
        detail: Some(detail),
        lease: Change::Clear,
        attempt_status: Change::Clear,
        ..Effects::default()
    };
    let chain = store.link(&deferral.id)?.chain;
    if chain >= max_chain {
        let why = format!("progress beyond the chain limit of {max_chain} successors");
        return apply_caused(
            store,
            deferral,
            Event::Block,
            "chain-limit",
            clear(why),
            now_ms,
        );
    }
    let keys = RecordKeys {
        predecessor: Some(deferral.id.clone()),
        artifact_name: store.artifact_name(&deferral.id)?,
        ..RecordKeys::default()
    };
    let handoff = new.as_handoff().to_json();
    let successor = match record_with(
        store,
        handoff.as_bytes(),
        &deferral.launch,
        deferral.max_reentries,
        keys,
        now_ms,
    ) {
        Ok(Recording::New(rec)) => rec.deferral.id,
        Ok(Recording::Existing(d)) => d.id,
        Err(err) => {
            let why = format!("successor refused: {}: {}", err.code, err.message);
            return apply_caused(
                store,
                deferral,
                Event::Block,
                "successor-refused",
                clear(why),
                now_ms,
            );
        }
    };
    let why = match detail {
        Some(detail) => format!("progress: successor {successor} ({detail})"),
        None => format!("progress: successor {successor}"),
    };
    apply_caused(
        store,
        deferral,
        Event::Complete,
        "progress",
        clear(why),
        now_ms,
    )
}

/// [`finish`] with the chain bound given.
pub fn finish_chained(
    store: &dyn Store,
    deferral: &Deferral,
    outcome: Outcome,
    max_chain: u32,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let clear = |detail: Option<String>| Effects {
        detail,
        lease: Change::Clear,
        attempt_status: Change::Clear,
        ..Effects::default()
    };
    match outcome {
        Outcome::Complete { detail } => {
            apply(store, deferral, Event::Complete, clear(detail), now_ms)
        }
        Outcome::Blocked { detail } => apply(store, deferral, Event::Block, clear(detail), now_ms),
        Outcome::BlockedBecause { cause, detail } => {
            let mut effects = clear(detail);
            effects.block_cause = Some(cause);
            apply(store, deferral, Event::Block, effects, now_ms)
        }
        Outcome::Returned { detail } => {
            let mut effects = clear(Some(detail));
            effects.wakeup_digest = Change::Set(handle_digest(&new_handle()));
            apply(store, deferral, Event::Defer, effects, now_ms)
        }
        Outcome::Deferred { receipt, detail } => {
            let new = match check_new_receipt(store, deferral, &receipt) {
                Ok(new) => new,
                Err(err) => {
                    let why = format!(
                        "new receipt refused: {} at {}: {}",
                        err.code,
                        err.path.unwrap_or_default(),
                        err.message
                    );
                    let mut effects = clear(Some(why));
                    effects.block_cause = Some(err.code);
                    return apply(store, deferral, Event::Block, effects, now_ms);
                }
            };
            let current = validate_str(&store.current_receipt(&deferral.id)?.text)?;
            if new.bindings != current.bindings {
                return progress(store, deferral, &new, max_chain, detail, now_ms);
            }
            // Re-retained: a fresh wake-up digest, the deferral's own cancellation digest, so
            // the operator's cancellation handle stays valid for the deferral's whole life.
            let wakeup_digest = handle_digest(&new_handle());
            let retained = new
                .as_handoff()
                .retain(&wakeup_digest, &deferral.cancellation_digest)?;
            let mut effects = clear(detail);
            effects.wakeup_digest = Change::Set(wakeup_digest);
            effects.receipts = vec![
                NewReceipt::new(KIND_SUBMITTED, receipt.trim().to_string()),
                NewReceipt::new(KIND_RETAINED, retained.to_json()),
            ];
            effects.window = Some(window_of(&retained));
            apply(store, deferral, Event::Defer, effects, now_ms)
        }
    }
}

/// The outcome a fresh process or an operator reports with `deferral-host report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    Complete,
    Blocked,
    Deferred,
}

/// `report`: the current attempt's outcome, proven with its wake-up handle (or, for an
/// operator, the cancellation handle). Invalid input changes nothing.
pub fn report(
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
    finish(store, &deferral, outcome, now_ms)
}

/// `resolve`: an operator looked up a `dispatch-unknown` attempt. `dispatched = true` waits
/// for the run's report; `false` returns the deferral to `deferred` (counts the re-entry).
pub fn resolve(
    store: &dyn Store,
    id: &str,
    handle: &str,
    dispatched: bool,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    let deferral = load(store, id)?;
    require_cancellation_handle(&deferral, handle, "resolve")?;
    if deferral.state != State::Resumable
        || deferral.attempt_status != Some(AttemptStatus::DispatchUnknown)
    {
        return Err(HostError::new(
            HostErrorKind::NotDispatchUnknown,
            format!("deferral {id} has no dispatch of unknown result to resolve"),
        ));
    }
    if dispatched {
        let effects = Effects {
            detail: Some("operator: the dispatch reached GitHub".into()),
            attempt_status: Change::Set(AttemptStatus::Dispatched),
            ..Effects::default()
        };
        note(store, &deferral, "resolve", "operator", effects, now_ms)
    } else {
        finish(
            store,
            &deferral,
            Outcome::Returned {
                detail: "operator: the dispatch did not reach GitHub".into(),
            },
            now_ms,
        )
    }
}

/// What a fresh process learns when it proves its claim: the attempt it is and the retained
/// receipt it was launched with.
#[derive(Debug, Clone)]
pub struct ClaimProof {
    pub deferral: Deferral,
    pub receipt_json: String,
}

/// A fresh process proves it holds the current attempt's wake-up handle (DESIGN section 6,
/// step 2: "reacquire and verify the claim"). Reads only: the attempt already belongs to the
/// launch that the ticker claimed, so nothing is written and the ticker's fence stays valid.
pub fn verify_claim(
    store: &dyn Store,
    id: &str,
    wakeup_handle: &str,
    now_ms: u64,
) -> Result<ClaimProof, HostError> {
    let deferral = load(store, id)?;
    if deferral.state != State::Resumable {
        return Err(HostError::new(
            HostErrorKind::NotResumable,
            format!(
                "deferral {id} is {}: no attempt is in progress",
                deferral.state.as_str()
            ),
        ));
    }
    let matches = deferral
        .wakeup_digest
        .as_deref()
        .is_some_and(|d| handle_matches(wakeup_handle, d));
    if !matches {
        return Err(HostError::new(
            HostErrorKind::WrongHandle,
            "the handle does not match the current attempt's wake-up digest",
        ));
    }
    if deferral.lease_until_ms.is_some_and(|until| until < now_ms) {
        return Err(HostError::new(
            HostErrorKind::LeaseExpired,
            "the attempt's lease has ended; the next tick recovers it",
        ));
    }
    let receipt_json = store.current_receipt(&deferral.id)?.text;
    Ok(ClaimProof {
        deferral,
        receipt_json,
    })
}
