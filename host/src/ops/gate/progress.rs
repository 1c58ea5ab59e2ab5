//! Progress comments: a job waiting behind an environment gate shows, on its run's page, why it
//! waits: how many of its pool's held deferrals are expected to start before it, when it is
//! expected to start, and its resume-by. GitHub takes a status report (the decision's call
//! without `state`, [`decide::report`]) at most 10 times a deployment, so the host sends one
//! each time the job starts to wait (when it is recorded, and again after a re-entry): at most
//! one more than the deferral's re-entries, which stay far under 10.
//!
//! Each is sent once across replicas and restarts ([`crate::ops::once`], key
//! `gate-progress:<id>:<attempt>`), and only while the deferral still waits when read again
//! just before the call (a job approved meanwhile gets none). Like the commit statuses, they are
//! written after the pass, at most [`BUDGET`] a pass, none once the quota stops the client. A
//! job expected to start within [`SOON_MS`] gets none: it is about to be approved.

use super::settle::Settled;
use crate::clock::iso8601;
use crate::github::client::GithubClient;
use crate::launch::kinds::approval::decide::{self, Answered};
use crate::launch::kinds::approval::{self, EnvironmentGate};
use crate::launch::Launcher;
use crate::ops::once::{self, Claim};
use crate::pools::forecast::Forecast;
use crate::pools::PoolOptions;
use crate::store::{launch_kind, Deferral, PageOrder, Store};
use deferral_core::lifecycle::State;
use std::collections::BTreeMap;

/// Reports sent at most in one pass.
pub const BUDGET: usize = 50;
/// Waiting deferrals read at most per state in one pass: the most recently changed first.
pub const SCAN: usize = 10_000;
/// A job expected to start this soon gets no comment: it is about to be approved.
pub const SOON_MS: u64 = 5_000;
/// Tries of one report before it is given up.
const MAX_TRIES: u32 = 3;

/// Sends the progress comment of each gate deferral that started to wait at `since_ms` or after
/// (every waiting one, at most [`SCAN`] per state, with `None`) and has none for this wait yet.
pub fn report(
    store: &dyn Store,
    client: &GithubClient,
    now_ms: u64,
    since_ms: Option<u64>,
    pools: &PoolOptions,
) -> Vec<Settled> {
    let mut said = Vec::new();
    let mut forecasts: BTreeMap<String, Option<Forecast>> = BTreeMap::new();
    let mut spent = 0;
    for state in [State::Deferred, State::Ready] {
        let Ok(waiting) = store.first_in_state(state, PageOrder::LastChanged, SCAN) else {
            continue;
        };
        let recent = waiting
            .iter()
            .take_while(|d| since_ms.is_none_or(|since| d.updated_ms >= since))
            .filter(|d| launch_kind(&d.launch) == approval::NAME);
        for d in recent {
            if spent >= BUDGET || client.quota.borrow().stopped().is_some() {
                return said;
            }
            let key = format!("gate-progress:{}:{}", d.id, d.reentries);
            if once::is_done(store, &key) {
                // Said already for this wait: no forecast to read.
                continue;
            }
            let (comment, start) = progress_text(store, d, now_ms, pools, &mut forecasts);
            if start.is_some_and(|start| start <= now_ms.saturating_add(SOON_MS)) {
                // About to be approved: a comment would say nothing the approval does not, and
                // could cross it on the way (another replica approving it meanwhile).
                continue;
            }
            let n = match once::claim(store, &key, MAX_TRIES, now_ms) {
                Claim::Mine(n) => n,
                Claim::Busy | Claim::GivenUp => continue,
            };
            let still = store.get(&d.id).ok().flatten().is_some_and(|now| {
                matches!(now.state, State::Deferred | State::Ready) && now.reentries == d.reentries
            });
            if !still {
                // Approved (or ended) since the page was read: nothing to say any more.
                once::done(store, &key, now_ms);
                continue;
            }
            let Some((repo, run_id, environment)) = callback_of(d) else {
                once::done(store, &key, now_ms);
                continue;
            };
            spent += 1;
            let answered = decide::report(client, &repo, run_id, &environment, &comment);
            let line = match answered {
                Answered::Taken(status) => format!("progress reported (HTTP {status}): {comment}"),
                Answered::NotTaken(why) => {
                    once::failed(store, &key, n, now_ms);
                    said.push(Settled {
                        id: d.id.clone(),
                        said: format!("progress not sent, next pass tries again: {why}"),
                    });
                    continue;
                }
                Answered::Refused(status, message) => {
                    format!("progress refused: HTTP {status}: {message}")
                }
                Answered::Unknown(message) => format!("progress sent, answer unknown: {message}"),
            };
            once::done(store, &key, now_ms);
            said.push(Settled {
                id: d.id.clone(),
                said: line,
            });
        }
    }
    said
}

/// `(OWNER/REPO, run id, environment)` of a gate deferral's target.
fn callback_of(d: &Deferral) -> Option<(String, u64, String)> {
    let text = d.launch.get(approval::NAME.len() + 1..)?;
    let parts = EnvironmentGate.parse(&d.launch, text).ok()?;
    let [owner, repo, run_id, environment] = &parts[..] else {
        return None;
    };
    Some((
        format!("{owner}/{repo}"),
        run_id.parse().ok()?,
        environment.clone(),
    ))
}

/// What waits ahead of the job and when it is expected to start (one forecast per pool a
/// pass): the comment, and the expected start.
fn progress_text(
    store: &dyn Store,
    d: &Deferral,
    now_ms: u64,
    pools: &PoolOptions,
    forecasts: &mut BTreeMap<String, Option<Forecast>>,
) -> (String, Option<u64>) {
    let pool = crate::pools::pool_name_of(store, &d.id);
    let forecast = forecasts
        .entry(pool.clone())
        .or_insert_with(|| crate::pools::expect::pool_forecast(store, &pool, now_ms, pools).ok());
    let mine = forecast.as_ref().and_then(|f| f.of(&d.id));
    let start = mine.and_then(|e| e.start_ms);
    let ahead = match (forecast.as_ref(), start) {
        (Some(f), Some(start)) => Some(
            f.expected
                .iter()
                .filter(|e| e.id != d.id && e.start_ms.is_some_and(|s| s < start))
                .count(),
        ),
        _ => None,
    };
    let mut text = format!(
        "deferral-host: this job waits in pool {pool} (deferral {})",
        d.id
    );
    match (ahead, start) {
        (Some(ahead), Some(start)) => text.push_str(&format!(
            "; {ahead} held deferrals are expected to start before it; expected start {}",
            iso8601(start)
        )),
        _ => text.push_str("; no expected start yet (the pool's window is not known)"),
    }
    text.push_str(&format!(
        "; it is rejected if it has not started by {}.",
        iso8601(d.resume_by_ms)
    ));
    if mine.is_some_and(|e| e.will_expire) {
        text.push_str(" As the pool stands it will not start in time.");
    }
    (text, start)
}
