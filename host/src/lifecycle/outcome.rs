//! How a launch ended, written: complete, blocked, deferred again on a new receipt of the same
//! bindings, or progress (a new receipt of the same scope becomes a successor deferral).

use super::change::{apply, apply_caused, window_of, Effects, KIND_RETAINED, KIND_SUBMITTED};
use super::insert::{insert_once, Insertion};
use crate::error::{HostError, HostErrorKind};
use crate::handle::{handle_digest, new_handle};
use crate::store::{Change, Deferral, NewReceipt, RecordKeys, Store};
use deferral_core::lifecycle::Event;
use deferral_core::receipt::{validate_str, Receipt};

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
pub fn end_attempt(
    store: &dyn Store,
    deferral: &Deferral,
    outcome: Outcome,
    now_ms: u64,
) -> Result<Deferral, HostError> {
    end_attempt_chained(store, deferral, outcome, DEFAULT_MAX_CHAIN, now_ms)
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
    let successor = match insert_once(
        store,
        handoff.as_bytes(),
        &deferral.launch,
        deferral.max_reentries,
        keys,
        now_ms,
    ) {
        Ok(Insertion::New(rec)) => rec.deferral.id,
        Ok(Insertion::Existing(d)) => d.id,
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

/// [`end_attempt`] with the chain bound given.
pub fn end_attempt_chained(
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
