//! What is left of a launch whose ticker stopped: its process group is ended, and the deferral
//! goes back to `deferred` for a new launch (the default [`super::Launcher::recover`]).

use super::process_group::{self, StaleGroup};
use crate::error::{HostError, HostErrorKind};
use crate::lifecycle;
use crate::lifecycle::outcome::Outcome;
use crate::store::{Deferral, Store};
use std::time::Duration;

/// How long a recovering ticker waits for a killed process group to be gone.
const GROUP_GONE_WAIT: Duration = Duration::from_secs(5);

/// A lease that ended without an outcome: whatever the old launch left running is ended (and
/// seen gone) before the deferral goes back to `deferred`, so two launches of it never overlap.
pub fn returned(store: &dyn Store, d: &Deferral, now_ms: u64) -> Result<Deferral, HostError> {
    let ended = end_old_launch(store, d)?;
    lifecycle::outcome::end_attempt(
        store,
        d,
        Outcome::Returned {
            detail: format!(
                "lease-expired: the launch did not report before its lease ended{ended}"
            ),
        },
        now_ms,
    )
}

/// Ends the process group recorded for the current attempt of `d`, if any is left. Returns a
/// note for the event's detail, or `launch-still-running` (the deferral is not recovered by
/// this tick) when the group is on another machine or does not die.
pub fn end_old_launch(store: &dyn Store, d: &Deferral) -> Result<String, HostError> {
    let Some(process) = store.launch_process(&d.id)? else {
        return Ok(String::new());
    };
    if process.fence != d.fence {
        return Ok(String::new());
    }
    match process_group::end_stale_group(&process, GROUP_GONE_WAIT) {
        StaleGroup::Gone => Ok("; its process group had ended".into()),
        StaleGroup::Killed(n) => Ok(format!(
            "; its process group {} was killed ({n} processes) and is gone",
            process.pgid
        )),
        StaleGroup::Elsewhere(machine) => Err(HostError::new(
            HostErrorKind::LaunchStillRunning,
            format!(
                "the stale launch's process group {} runs on machine {machine}; a ticker there recovers it (or it expires)",
                process.pgid
            ),
        )),
        StaleGroup::StillRunning(n) => Err(HostError::new(
            HostErrorKind::LaunchStillRunning,
            format!(
                "the stale launch's process group {} still has {n} processes after SIGKILL",
                process.pgid
            ),
        )),
    }
}
