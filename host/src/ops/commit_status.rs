//! A deferral's face on its commit (DESIGN section 11): one commit status per deferral whose
//! origin named a commit (`deferral_commits`, [`crate::store::CommitRef`]), context
//! `deferral/...`, updated at each change of its state only:
//!
//! | deferral | status | description |
//! |---|---|---|
//! | `deferred` | `pending` | when it may resume, its expected start, its pool |
//! | `resumable` | `pending` | resumed, which attempt (linking the run it dispatched) |
//! | `complete` | `success` | resumed (an environment gate: approved, the job runs); the run linked |
//! | `blocked` | `failure` | blocked, and why |
//! | `cancelled` | `error` | expired or cancelled |
//!
//! `POST /repos/{owner}/{repo}/statuses/{sha}` (`statuses: write`; GitHub keeps at most 1,000
//! statuses per commit and context). The statuses are written after `run`'s pass, never in its
//! way: at most a budget a pass ([`BUDGET`] unless the operator sets one), none once the
//! quota stops the client (what is left is written by the next passes, which read from where
//! this one stopped), and a deferral that
//! changed several times between two passes gets one status, its last (coalesced). Each is sent
//! once across replicas ([`crate::ops::once`], key `status:<id>:<state>:<attempt>`), and only
//! while the deferral is still in that state when read again just before the write (so a
//! replica with an older page never writes a state over the later one another replica wrote;
//! what is left is the few milliseconds between that read and GitHub taking the write).
//!
//! A commit kept with [`Face::CheckRun`] gets a check run instead, with the same text
//! ([`crate::ops::check_run`], key `check:<id>:<state>:<attempt>`).

use crate::clock::iso8601;
use crate::github::client::{CallError, GithubClient};
use crate::launch::kinds::approval;
use crate::ops::once::{self, Claim};
use crate::pools::PoolOptions;
use crate::store::{launch_kind, CommitRef, Deferral, Face, PageOrder, Store};
use deferral_core::lifecycle::State;
use serde_json::json;

/// `commit-status` of a `[[watch]]` or `[[gate]]` table: `false` (nothing on the commit, the
/// default), `true` or `"status"` (a commit status), `"check-run"` (a check run with buttons,
/// a GitHub App's only; see [`crate::ops::check_run`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaceSetting(pub Option<Face>);

impl<'de> serde::Deserialize<'de> for FaceSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FaceSetting, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Flag(bool),
            Named(String),
        }
        match Raw::deserialize(d)? {
            Raw::Flag(false) => Ok(FaceSetting(None)),
            Raw::Flag(true) => Ok(FaceSetting(Some(Face::Status))),
            Raw::Named(name) if name == "status" => Ok(FaceSetting(Some(Face::Status))),
            Raw::Named(name) if name == "check-run" => Ok(FaceSetting(Some(Face::CheckRun))),
            Raw::Named(name) => Err(serde::de::Error::custom(format!(
                "commit-status {name:?} is none of true, false, \"status\", \"check-run\""
            ))),
        }
    }
}

/// Where deferral `id`'s status goes: the commit a record through the port named beside its
/// receipt (the Action's `coordinator-commit`, checked by the protocol's rules).
pub fn commit_ref(commit: deferral_protocol::Commit, id: &str) -> CommitRef {
    CommitRef {
        deferral_id: id.to_string(),
        repo: commit.repo,
        sha: commit.sha,
        context: commit.context,
        face: Face::Status,
    }
}

/// Statuses (or check runs) written at most in one pass unless the operator sets another
/// budget (`run --commit-status-budget`).
pub const BUDGET: usize = 100;

/// What one pass of [`update`] wrote, and whether it went through everything it read.
#[derive(Debug, Default)]
pub struct Written {
    /// A line per status, for the log.
    pub said: Vec<String>,
    /// Cut short (the budget spent, or the quota stopped the client) or a write to try again:
    /// the next pass must read from the same `since_ms`, not from its own start.
    pub left: bool,
}
/// Deferrals read at most per state in one pass: the most recently changed first.
pub const SCAN: usize = 10_000;
/// GitHub keeps at most this many characters of a description.
pub const MAX_DESCRIPTION: usize = 140;
/// Tries of one status before it is given up.
const MAX_TRIES: u32 = 5;

/// The status a deferral's commit shows for it now: `(state, description)`.
pub fn status_of(
    store: &dyn Store,
    d: &Deferral,
    now_ms: u64,
    pools: &PoolOptions,
) -> (&'static str, String) {
    let hm = |ms: u64| iso8601(ms)[11..16].to_string() + "Z";
    let gate = launch_kind(&d.launch) == approval::NAME;
    match d.state {
        State::Ready | State::Deferred => {
            let pool = store.pool_of(&d.id).ok().flatten().map(|(p, _)| p);
            let expected = crate::pools::expect::of_deferral(store, &d.id, now_ms, pools)
                .ok()
                .flatten()
                .and_then(|e| e.start_ms);
            let mut text = format!("deferred until {}", hm(d.resume_after_ms.max(now_ms)));
            if let Some(start) = expected {
                text.push_str(&format!("; expected start {}", hm(start)));
            }
            text.push_str(&format!("; resume by {}", hm(d.resume_by_ms)));
            if let Some(pool) = pool {
                text.push_str(&format!(" (pool {pool})"));
            }
            ("pending", text)
        }
        State::Resumable => ("pending", format!("resumed: attempt {}", d.reentries)),
        State::Complete if gate => ("success", "approved: the job runs".into()),
        State::Complete => ("success", "resumed and done".into()),
        State::Blocked => ("failure", format!("blocked: {}", d.cause)),
        State::Cancelled if d.cause == "expired" => (
            "error",
            format!("expired: not started by {}", hm(d.resume_by_ms)),
        ),
        State::Cancelled => ("error", format!("cancelled: {}", d.cause)),
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_DESCRIPTION {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(MAX_DESCRIPTION - 1).collect();
    cut.push('…');
    cut
}

/// Writes the status of each deferral with a commit that changed at `since_ms` or after (all
/// those changed last, at most [`SCAN`] per state, with `None`), at most `budget` of them.
pub fn update(
    store: &dyn Store,
    client: &GithubClient,
    now_ms: u64,
    since_ms: Option<u64>,
    budget: usize,
    pools: &PoolOptions,
) -> Written {
    let mut said = Vec::new();
    let mut left = false;
    let mut spent = 0;
    for state in State::ALL {
        let Ok(changed) = store.first_in_state(state, PageOrder::LastChanged, SCAN) else {
            continue;
        };
        let recent = changed
            .iter()
            .take_while(|d| since_ms.is_none_or(|since| d.updated_ms >= since));
        for d in recent {
            if spent >= budget || client.quota.borrow().stopped().is_some() {
                return Written { said, left: true };
            }
            let Ok(Some(commit)) = store.commit_of(&d.id) else {
                continue;
            };
            let kind = match commit.face {
                Face::Status => "status",
                Face::CheckRun => "check",
            };
            let key = format!("{kind}:{}:{}:{}", d.id, d.state.as_str(), d.reentries);
            let n = match once::claim(store, &key, MAX_TRIES, now_ms) {
                Claim::Mine(n) => n,
                Claim::Busy => {
                    left = true;
                    continue;
                }
                Claim::GivenUp => continue,
            };
            // The page read above may be stale: another replica may have moved the deferral on
            // (and written the later status) since. A status of a state it left would land
            // after the later one and stay on the commit, so read it again just before
            // writing; a deferral that moved is written by a later pass.
            let moved = match store.get(&d.id) {
                Ok(Some(now)) => now.state != d.state || now.reentries != d.reentries,
                _ => true,
            };
            if moved {
                once::failed(store, &key, n, now_ms);
                continue;
            }
            spent += 1;
            let (state, description) = status_of(store, d, now_ms, pools);
            let link = run_link(store, d);
            let written = match commit.face {
                Face::Status => post(client, &commit, state, &description, link.as_deref()),
                Face::CheckRun => crate::ops::check_run::write(
                    store,
                    client,
                    &commit,
                    d,
                    &description,
                    link.as_deref(),
                    now_ms,
                ),
            };
            match written {
                Ok(status) => {
                    once::done(store, &key, now_ms);
                    let state = match commit.face {
                        Face::Status => state,
                        Face::CheckRun => d.state.as_str(),
                    };
                    said.push(format!(
                        "{}: {} {state} on {} (HTTP {status})",
                        d.id,
                        commit.face.as_str(),
                        commit.sha
                    ));
                }
                Err((sent, why)) => {
                    if sent {
                        once::done(store, &key, now_ms);
                    } else {
                        once::failed(store, &key, n, now_ms);
                        left = true;
                    }
                    said.push(format!("{}: status not written: {why}", d.id));
                }
            }
        }
    }
    Written { said, left }
}

/// The page of the run the deferral's current attempt dispatched, if any (the status links it).
fn run_link(store: &dyn Store, d: &Deferral) -> Option<String> {
    if d.reentries == 0 {
        return None;
    }
    let run = store.run_of(&d.id, d.reentries).ok().flatten()?;
    run.html_url
        .filter(|url| url.starts_with("https://") || url.starts_with("http://"))
}

/// `Err((reached GitHub, why))`.
fn post(
    client: &GithubClient,
    commit: &CommitRef,
    state: &str,
    description: &str,
    link: Option<&str>,
) -> Result<u16, (bool, String)> {
    let path = format!("/repos/{}/statuses/{}", commit.repo, commit.sha);
    let mut body =
        json!({"state": state, "description": cut(description), "context": commit.context});
    if let Some(link) = link {
        body["target_url"] = json!(link);
    }
    let body = body.to_string();
    match client.call(
        "POST",
        &path,
        Some(&commit.repo),
        &[],
        Some(body.as_bytes()),
    ) {
        Ok(reply) if (200..300).contains(&reply.status) => Ok(reply.status),
        Ok(reply) if reply.status == 403 || reply.status == 429 => {
            Err((false, format!("HTTP {}: {}", reply.status, reply.message())))
        }
        Ok(reply) => Err((true, format!("HTTP {}: {}", reply.status, reply.message()))),
        Err(CallError::NotSent(why) | CallError::QuotaStop(why)) => Err((false, why)),
        Err(CallError::AfterSend(why) | CallError::TooLarge(why)) => Err((true, why)),
    }
}
