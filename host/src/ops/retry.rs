//! A way back from `blocked`: `deferral-host retry ID --handle H [--launch T] [--max-reentries N]`
//! (and `POST /v1/deferrals/ID/retry`).
//!
//! A retry is a new deferral linked to the blocked one (`store::retry`): the blocked deferral's
//! current receipt put back to its handoff form and retained again (the same bindings and
//! window), a fresh re-entry count, the launch target given (or the old one), and the same
//! cancellation digest, so the handle that proves the retry also cancels or retries the new
//! deferral. It waits in the blocked deferral's pool with its planned cost, as any deferral of
//! that pool does. The blocked deferral's row, receipts and events are left as they were.

use crate::clock::iso8601;
use crate::error::{HostError, HostErrorKind};
use crate::handle::{handle_digest, new_deferral_id, new_handle};
use crate::launch::Launchers;
use crate::lifecycle::change::{load, require_cancellation_handle, window_of, KIND_RETAINED};
use crate::store::pools::PoolTag;
use crate::store::{Deferral, NewDeferral, NewReceipt, RecordKeys, Store, StoreError};
use deferral_core::lifecycle::{transition, Event, Position, State};
use deferral_core::receipt::{validate_str, Receipt};

/// The receipt kind of a retry's first receipt: the blocked deferral's current receipt in its
/// handoff form (its digest stays keyed by the deferral that first had it).
pub const KIND_RETRIED: &str = "retried";

/// The cause a retry's new deferral is recorded with.
pub const CAUSE_RETRY: &str = "retry";

/// What a retry asks for.
#[derive(Debug, Clone, Default)]
pub struct RetryRequest<'a> {
    pub id: &'a str,
    /// The blocked deferral's raw cancellation handle.
    pub handle: &'a str,
    /// The corrected target; the blocked deferral's when `None`.
    pub launch: Option<&'a str>,
    /// The new deferral's bound; the blocked deferral's when `None`.
    pub max_reentries: Option<u32>,
    /// Check that an `exec:` program exists here (`--no-check` turns it off).
    pub check_program: bool,
}

/// The new deferral and its retained receipt.
#[derive(Debug, Clone)]
pub struct Retried {
    pub deferral: Deferral,
    pub retry_of: String,
    pub receipt: Receipt,
}

impl Retried {
    /// `{"id","retry_of","state","launch","max_reentries","receipt"}`, the receipt in the
    /// contract's field order.
    pub fn to_json(&self) -> String {
        let answer = deferral_protocol::RetryAnswer {
            id: &self.deferral.id,
            launch: &self.deferral.launch,
            max_reentries: self.deferral.max_reentries,
            retry_of: &self.retry_of,
            state: self.deferral.state.as_str(),
            receipt: &self.receipt.to_json(),
        };
        serde_json::to_string(&answer).unwrap_or_default()
    }
}

fn already_retried(id: &str, by: &str) -> HostError {
    HostError::new(
        HostErrorKind::AlreadyRetried,
        format!("deferral {id} was retried already as {by}; retry {by} if it ended blocked too"),
    )
}

/// Retries a blocked deferral whose window is still open, proven by its cancellation handle.
pub fn retry(store: &dyn Store, request: &RetryRequest, now_ms: u64) -> Result<Retried, HostError> {
    let original = load(store, request.id)?;
    require_cancellation_handle(&original, request.handle, "retry")?;
    if original.state != State::Blocked {
        let id = &original.id;
        return Err(HostError::new(
            HostErrorKind::NotBlocked,
            format!(
                "deferral {id} is {} ({}): only a deferral that ended blocked can be retried",
                original.state.as_str(),
                original.cause
            ),
        ));
    }
    retry_ended(store, &original, request, now_ms)
}

/// Retries a deferral that ended blocked, or cancelled by someone (not expired), whose window
/// is still open, for someone GitHub says may write to its repository (a check run's retry
/// button, see `ops::press`): no handle, its own launch and bound. Its retry keeps its commit.
pub fn retry_pressed(store: &dyn Store, id: &str, now_ms: u64) -> Result<Retried, HostError> {
    let original = load(store, id)?;
    let ended = original.state == State::Blocked
        || (original.state == State::Cancelled && original.cause != "expired");
    if !ended {
        return Err(HostError::new(
            HostErrorKind::NotBlocked,
            format!(
                "deferral {id} is {} ({}): only one that ended blocked or cancelled can be retried",
                original.state.as_str(),
                original.cause
            ),
        ));
    }
    let request = RetryRequest {
        id,
        ..RetryRequest::default()
    };
    let retried = retry_ended(store, &original, &request, now_ms)?;
    if let Some(mut commit) = store.commit_of(id)? {
        commit.deferral_id = retried.deferral.id.clone();
        store.put_commit(&commit)?;
    }
    Ok(retried)
}

/// The retry of `original`, which ended: linked once, its window still open.
fn retry_ended(
    store: &dyn Store,
    original: &Deferral,
    request: &RetryRequest,
    now_ms: u64,
) -> Result<Retried, HostError> {
    let id = &original.id;
    if let Some(by) = store.retry_link(id)?.retried_by {
        return Err(already_retried(id, &by));
    }
    if original.resume_by_ms < now_ms {
        return Err(HostError::new(
            HostErrorKind::RetryExpired,
            format!(
                "deferral {id}'s window closed at {}: nothing is left to retry; run the gate again \
                 (it emits a new handoff receipt) and record that receipt",
                iso8601(original.resume_by_ms)
            ),
        ));
    }
    let launch = request.launch.unwrap_or(&original.launch);
    let target = Launchers::builtin().parse(launch)?;
    if request.check_program {
        target.check_installed()?;
    }
    let max_reentries = request.max_reentries.unwrap_or(original.max_reentries);
    let current = validate_str(&store.current_receipt(id)?.text)?;
    let handoff = current.as_handoff();
    let wakeup_digest = handle_digest(&new_handle());
    let retained = handoff.retain(&wakeup_digest, &original.cancellation_digest)?;
    let step = transition(Position::new(max_reentries), Event::Record)?;
    let new = NewDeferral {
        id: new_deferral_id(),
        state: step.to.state,
        reentries: step.to.reentries,
        max_reentries,
        cause: CAUSE_RETRY.to_string(),
        launch: launch.to_string(),
        window: window_of(&retained),
        wakeup_digest,
        cancellation_digest: original.cancellation_digest.clone(),
        receipts: vec![
            NewReceipt::new(KIND_RETRIED, handoff.to_json()),
            NewReceipt::new(KIND_RETAINED, retained.to_json()),
        ],
        at_ms: now_ms,
        keys: RecordKeys {
            retry_of: Some(id.clone()),
            artifact_name: store.artifact_name(id)?,
            pool: same_pool(store, id)?,
            ..RecordKeys::default()
        },
    };
    let deferral = match store.insert(&new) {
        Ok(deferral) => deferral,
        // Another operator retried it between our look-up and insert.
        Err(StoreError::Duplicate(new_id)) => {
            return Err(match store.retry_link(id)?.retried_by {
                Some(by) => already_retried(id, &by),
                None => StoreError::Duplicate(new_id).into(),
            })
        }
        Err(err) => return Err(err.into()),
    };
    Ok(Retried {
        deferral,
        retry_of: id.clone(),
        receipt: retained,
    })
}

/// The pool and planned cost of the deferral retried, so its retry waits in the same pool for
/// the same room (never in `default` at no cost). The rate state it saw is the pool's already.
fn same_pool(store: &dyn Store, id: &str) -> Result<Option<PoolTag>, HostError> {
    Ok(store.pool_of(id)?.map(|(pool, cost)| PoolTag {
        pool: Some(pool),
        cost,
        seen: Vec::new(),
        ..PoolTag::default()
    }))
}
