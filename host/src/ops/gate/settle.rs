//! The rejections: a gate deferral that ended without its approval (expired before its pool had
//! room for it, cancelled, blocked) is rejected through its callback, with a comment saying
//! why, so the job fails at once instead of waiting out GitHub's 30 days.
//!
//! Each is answered once across replicas and restarts ([`crate::ops::once`], key
//! `gate-reject:<id>`): a try is claimed in the store first, another is tried only when the last
//! is known not to have reached GitHub (unreachable, quota stopped), up to [`MAX_TRIES`].

use crate::github::client::GithubClient;
use crate::launch::kinds::approval::decide::{self, Answered, Decision};
use crate::launch::kinds::approval::{self, EnvironmentGate, CAUSE_REFUSED};
use crate::launch::Launcher;
use crate::ops::once::{self, Claim};
use crate::store::{launch_kind, Deferral, PageOrder, Store};
use deferral_core::lifecycle::State;

/// Tries to send one rejection at most.
pub const MAX_TRIES: u32 = 10;
/// GitHub lets a rule wait 30 days: older deferrals are not answered any more.
const ANSWERABLE_MS: u64 = 31 * 24 * 3_600_000;

/// One rejection sent (or given up), for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub id: String,
    pub said: String,
}

/// The once-key of rejecting `id` (see [`crate::ops::once`]).
fn reject_key(id: &str) -> String {
    format!("gate-reject:{id}")
}

/// Ended deferrals read at most per state in one settle: the most recently changed first.
pub const SCAN: usize = 10_000;

/// Rejects the gate deferrals that ended unapproved and are not answered yet, among those of
/// each ending state changed last (at most [`SCAN`]), and only those changed at `since_ms` or
/// after when given (`run` gives the start of its last settle, so a pass reads what ended
/// since; its follow passes give `None` and read back as far as GitHub lets a job wait).
pub fn settle(
    store: &dyn Store,
    client: &GithubClient,
    now_ms: u64,
    since_ms: Option<u64>,
) -> Vec<Settled> {
    let mut settled = Vec::new();
    for state in [State::Cancelled, State::Blocked] {
        let ended = match store.first_in_state(state, PageOrder::LastChanged, SCAN) {
            Ok(ended) => ended,
            Err(err) => {
                settled.push(Settled {
                    id: String::new(),
                    said: format!("cannot list {} deferrals: {err}", state.as_str()),
                });
                continue;
            }
        };
        let recent = ended
            .iter()
            .take_while(|d| since_ms.is_none_or(|since| d.updated_ms >= since));
        for d in recent.filter(|d| answerable(d, now_ms)) {
            if let Some(said) = settle_one(store, client, d, now_ms) {
                settled.push(Settled {
                    id: d.id.clone(),
                    said,
                });
            }
        }
    }
    settled
}

fn answerable(d: &Deferral, now_ms: u64) -> bool {
    launch_kind(&d.launch) == approval::NAME
        && d.cause != CAUSE_REFUSED
        && d.updated_ms.saturating_add(ANSWERABLE_MS) > now_ms
}

/// Rejects `d` if no try of it was answered; `None` when there was nothing to do.
fn settle_one(
    store: &dyn Store,
    client: &GithubClient,
    d: &Deferral,
    now_ms: u64,
) -> Option<String> {
    let key = reject_key(&d.id);
    if once::is_done(store, &key) {
        return None;
    }
    let text = &d.launch[approval::NAME.len() + 1..];
    let Ok(parts) = EnvironmentGate.parse(&d.launch, text) else {
        once::done(store, &key, now_ms);
        return Some(format!(
            "target {:?} does not parse: not answered",
            d.launch
        ));
    };
    let [owner, repo, run_id, environment] = &parts[..] else {
        return None;
    };
    let n = match once::claim(store, &key, MAX_TRIES, now_ms) {
        Claim::Mine(n) => n,
        Claim::Busy => return None,
        Claim::GivenUp => return Some(format!("not rejected after {MAX_TRIES} tries: given up")),
    };
    let repo = format!("{owner}/{repo}");
    let run_id: u64 = run_id.parse().unwrap_or_default();
    let comment = why(store, d);
    let answered = decide::decide(
        client,
        &repo,
        run_id,
        environment,
        Decision::Rejected,
        &comment,
    );
    let said = match &answered {
        Answered::Taken(status) => format!("rejected (HTTP {status}): {comment}"),
        Answered::NotTaken(why) => {
            once::failed(store, &key, n, now_ms);
            return Some(format!(
                "rejection not sent (try {}), next pass tries again: {why}",
                n + 1
            ));
        }
        Answered::Refused(status, message) => {
            format!("rejection refused: HTTP {status}: {message}")
        }
        Answered::Unknown(message) => format!("rejection sent, answer unknown: {message}"),
    };
    once::done(store, &key, now_ms);
    Some(said)
}

/// The rejection's comment: why the job was not let through.
fn why(store: &dyn Store, d: &Deferral) -> String {
    let pool = crate::pools::pool_name_of(store, &d.id);
    let detail = d
        .detail
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    let resume_by = crate::clock::iso8601(d.resume_by_ms);
    let why = match (d.state, d.cause.as_str()) {
        (State::Cancelled, "expired") => match d.detail.as_deref().filter(|t| !t.is_empty()) {
            Some(why) => format!("not started before its resume-by {resume_by}: {why}"),
            None => format!(
                "not started before its resume-by {resume_by}: pool {pool} had no room for it in time"
            ),
        },
        (State::Cancelled, _) => format!("cancelled by an operator{detail}"),
        (_, cause) => format!("blocked ({cause}){detail}"),
    };
    format!(
        "deferral-host: deferral {} {why}. The job did not run; run it again when the quota allows.",
        d.id
    )
}
