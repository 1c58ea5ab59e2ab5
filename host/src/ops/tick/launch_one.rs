//! One due deferral of a pass, claimed and launched by its kind (or refused, when its stored
//! target no longer parses); a kind that is not ready leaves it due, skipped.

use super::TickOptions;
use crate::error::HostError;
use crate::launch::{Attempt, LaunchEnd, LaunchPass, Launched, Launchers};
use crate::lifecycle;
use crate::lifecycle::outcome::Outcome;
use crate::store::{AttemptStatus, Deferral, Store};

/// Not launched, and why.
pub(super) struct Skip(pub(super) String);

/// The kinds that cannot launch in this pass, each with why ([`crate::launch::Launcher::not_ready`]).
pub(super) fn not_ready(
    pass: &LaunchPass<'_>,
    launchers: &Launchers,
) -> Vec<(&'static str, String)> {
    launchers
        .iter()
        .filter_map(|kind| kind.not_ready(pass).map(|why| (kind.name(), why)))
        .collect()
}

/// `--dry-run`: `d` would be launched as attempt `attempt`.
pub(super) fn planned(d: &Deferral, attempt: u32) -> Launched {
    let end = LaunchEnd::Planned {
        launch: d.launch.clone(),
    };
    Launched::new(&d.id, attempt, end)
}

/// Blocks a claimed deferral whose stored target does not parse (cause `invalid-launch`).
fn refuse_claimed(store: &dyn Store, claimed: &Deferral, err: HostError, now: u64) -> Launched {
    let outcome = Outcome::BlockedBecause {
        cause: err.code.clone(),
        detail: Some(format!("refused at launch, never run: {}", err.message)),
    };
    match lifecycle::outcome::end_attempt(store, claimed, outcome, now) {
        Ok(after) => Launched::new(&claimed.id, after.reentries, LaunchEnd::Finished(after)),
        Err(err) => Launched::failed(&claimed.id, None, err),
    }
}

/// Blocks a due deferral whose stored target no longer parses (cause `invalid-launch`),
/// claiming it first so the refusal is one compare-and-set like any launch outcome.
fn refuse_stored_target(
    store: &dyn Store,
    d: &Deferral,
    owner: &str,
    options: &TickOptions,
    now_ms: &dyn Fn() -> u64,
    err: HostError,
) -> Option<Launched> {
    let lease_ms = options.lease_ms();
    let at = now_ms();
    let refused = lifecycle::claim::claim(
        store,
        d,
        owner,
        at.saturating_add(lease_ms),
        AttemptStatus::Launching,
        at,
    );
    match refused {
        Ok(claimed) => Some(refuse_claimed(store, &claimed.deferral, err, now_ms())),
        // Another ticker got there first.
        Err(e) if e.is_conflict() => None,
        Err(e) => Some(Launched::failed(&d.id, None, e)),
    }
}

pub(super) fn launch(
    store: &dyn Store,
    d: &Deferral,
    owner: &str,
    options: &TickOptions,
    now_ms: &dyn Fn() -> u64,
) -> Result<Option<Launched>, Skip> {
    let target = match options.launchers.parse(&d.launch) {
        Ok(target) => target,
        // Stored by an older version (e.g. a shell command line): refused, never run.
        Err(err) => return Ok(refuse_stored_target(store, d, owner, options, now_ms, err)),
    };
    let kind = target.kind();
    let pass = options.pass(store, now_ms);
    // Checked before claiming, so missing credentials or a spent quota use no re-entry.
    if let Some(why) = kind.not_ready(&pass) {
        return Err(Skip(why));
    }
    let claimed_at = now_ms();
    let claimed = match lifecycle::claim::claim(
        store,
        d,
        owner,
        claimed_at.saturating_add(pass.lease_ms),
        kind.claimed_status(),
        claimed_at,
    ) {
        Ok(claimed) => claimed,
        // Another ticker claimed it first (or it changed): not ours to launch.
        Err(err) if err.is_conflict() => return Ok(None),
        Err(err) => return Err(Skip(format!("{}: {}", err.code, err.message))),
    };
    // The kind runs the launch and records how it ended (see `launch::kinds`).
    let attempt = Attempt {
        pass: &pass,
        claimed: &claimed,
        owner,
    };
    Ok(Some(kind.launch(&target, &attempt)))
}
