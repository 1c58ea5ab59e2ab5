//! `resolve`: an operator looked up a `dispatch-unknown` attempt and says whether its dispatch
//! reached GitHub (`deferral-host resolve`).

use crate::error::{HostError, HostErrorKind};
use crate::lifecycle::change::{load, note, require_cancellation_handle, Effects};
use crate::lifecycle::outcome::{end_attempt, Outcome};
use crate::store::{AttemptStatus, Change, Deferral, Store};
use deferral_core::lifecycle::State;

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
        end_attempt(
            store,
            &deferral,
            Outcome::Returned {
                detail: "operator: the dispatch did not reach GitHub".into(),
            },
            now_ms,
        )
    }
}
