//! `cancel` as the command line and `serve` answer it: cancelling a deferral that is cancelled
//! already changes nothing and says so ("already cancelled (by operator at T)", exit 0), as the
//! JS port treats it; any other ended state is still `illegal-transition`.

use crate::clock::iso8601;
use crate::error::{HostError, HostErrorKind};
use crate::lifecycle::change::{apply, load, require_cancellation_handle, Effects};
use crate::store::{Deferral, Store};
use deferral_core::lifecycle::{Event, State};

/// What a cancel did: the deferral, and the sentence when it was cancelled before.
#[derive(Debug, Clone)]
pub struct Cancelled {
    pub deferral: Deferral,
    pub already: Option<String>,
}

impl Cancelled {
    /// `{"cause","id","state"}`, with `"already_cancelled":true,"message"` for a repeat.
    pub fn answer(&self) -> deferral_protocol::answers::CancelAnswer<'_> {
        let d = &self.deferral;
        deferral_protocol::answers::CancelAnswer {
            already_cancelled: self.already.as_ref().map(|_| true),
            cause: &d.cause,
            id: &d.id,
            message: self.already.as_deref(),
            state: d.state.as_str(),
        }
    }
}

/// Cancels with the cancellation handle; a deferral cancelled already (by anyone, or by its
/// window closing) answers how and when, and nothing is written.
pub fn cancel_once(
    store: &dyn Store,
    id: &str,
    handle: &str,
    now_ms: u64,
) -> Result<Cancelled, HostError> {
    let deferral = load(store, id)?;
    require_cancellation_handle(&deferral, handle, "cancel")?;
    if deferral.state == State::Cancelled {
        return already(store, deferral);
    }
    match cancel(store, id, handle, now_ms) {
        Ok(deferral) => Ok(Cancelled {
            deferral,
            already: None,
        }),
        // Cancelled by another caller between our read and write: the same answer.
        // (Its write lost the compare-and-set, or `cancel`'s own read saw the cancelled row.)
        Err(err) if err.is_conflict() || err.kind() == Some(HostErrorKind::IllegalTransition) => {
            let now = load(store, id)?;
            if now.state == State::Cancelled {
                return already(store, now);
            }
            Err(err)
        }
        Err(err) => Err(err),
    }
}

fn already(store: &dyn Store, deferral: Deferral) -> Result<Cancelled, HostError> {
    let events = store.events(&deferral.id)?;
    let how = events
        .iter()
        .rev()
        .find(|e| e.to_state == State::Cancelled)
        .map(|e| {
            let by = match (e.event.as_str(), e.detail.as_deref()) {
                ("expire", _) => "expired: its window closed".to_string(),
                (_, Some(detail)) if !detail.is_empty() => format!("by {detail}"),
                _ => format!("cause {}", e.cause),
            };
            format!("already cancelled ({by} at {})", iso8601(e.at_ms))
        })
        .unwrap_or_else(|| "already cancelled".to_string());
    Ok(Cancelled {
        deferral,
        already: Some(how),
    })
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
