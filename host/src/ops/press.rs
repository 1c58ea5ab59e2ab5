//! A check run's button pressed ([`Press`], read from a `check_run` delivery in
//! `crate::webhook::check_run`), applied once:
//!
//! 1. the press is claimed once across replicas and redeliveries ([`crate::ops::once`], key
//!    [`Press::key`]: what the signature covers): a replay changes nothing;
//! 2. the check run must be one this host made, found by its id and repository;
//! 3. GitHub is asked whether the sender may write to the repository (`GET
//!    /repos/{owner}/{repo}/collaborators/{username}/permission`: `permission` or `role_name`
//!    `admin`, `maintain` or `write`); the payload is never believed;
//! 4. `cancel` cancels a deferral still waiting (`ready`, `deferred`); `retry` retries one that
//!    ended blocked or cancelled while its window is open ([`crate::ops::retry::retry_pressed`]),
//!    as `deferral-host retry` does, the retry keeping the commit and so getting a check run.
//!
//! Whatever is not honoured changes nothing and says why (HTTP 202 at the port).

use crate::github::client::GithubClient;
use crate::lifecycle;
use crate::lifecycle::change::Effects;
use crate::ops::check_run::{CANCEL, RETRY};
use crate::ops::once::{self, Claim};
use crate::store::Store;
use deferral_core::lifecycle::{Event, State};
use serde_json::{json, Value};

/// One button pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Press {
    /// `repository.full_name`.
    pub repo: String,
    /// `repository.id`, when given.
    pub repo_id: Option<u64>,
    /// `check_run.id`.
    pub check_run_id: u64,
    /// `requested_action.identifier`: the button.
    pub identifier: String,
    /// `sender.login`: who pressed it (asked about, never believed).
    pub sender: String,
    /// `sender.id`, when given.
    pub sender_id: Option<u64>,
}

impl Press {
    /// The press's identity from the signed body: the repository, the check run, the button
    /// and who pressed it. A redelivery or a replay under another `X-GitHub-Delivery` shares
    /// it; a press of another button, on another check run or by someone else does not.
    pub fn key(&self) -> String {
        let repo = match self.repo_id {
            Some(id) => id.to_string(),
            None => self.repo.to_ascii_lowercase(),
        };
        let sender = match self.sender_id {
            Some(id) => id.to_string(),
            None => self.sender.to_ascii_lowercase(),
        };
        format!(
            "check_run requested_action {repo} {} {} {sender}",
            self.check_run_id, self.identifier
        )
    }
}

/// Tries of one press whose permission could not be asked.
const MAX_TRIES: u32 = 3;

/// The roles that may press a button.
const WRITERS: [&str; 3] = ["admin", "maintain", "write"];

/// What a press did: the port's status (200 done or already, 202 not honoured, 503 try again)
/// and its answer, and a line for the log.
#[derive(Debug, Clone)]
pub struct Pressed {
    pub status: u16,
    pub answer: Value,
}

impl Pressed {
    fn ignored(why: String) -> Pressed {
        Pressed {
            status: 202,
            answer: json!({"ignored": why}),
        }
    }
}

/// What GitHub says of the sender.
enum Permission {
    Writes(String),
    Not(String),
    /// GitHub could not be asked (unreachable, quota, a limit): the press may come again.
    Unknown(String),
}

fn permission(client: &GithubClient, repo: &str, login: &str) -> Permission {
    let path = format!("/repos/{repo}/collaborators/{login}/permission");
    let reply = match client.call("GET", &path, Some(repo), &[], None) {
        Ok(reply) => reply,
        Err(err) => return Permission::Unknown(err.message().to_string()),
    };
    match reply.status {
        200 => {}
        404 => return Permission::Not("not a collaborator".into()),
        403 | 429 | 500.. => {
            return Permission::Unknown(format!("HTTP {}: {}", reply.status, reply.message()))
        }
        status => return Permission::Not(format!("HTTP {status}: {}", reply.message())),
    }
    let body = match reply.json() {
        Ok(body) => body,
        Err(err) => return Permission::Unknown(err.message().to_string()),
    };
    let field = |key: &str| body.get(key).and_then(Value::as_str).unwrap_or_default();
    let (permission, role) = (field("permission"), field("role_name"));
    let said = format!("permission {permission:?}, role {role:?}");
    if WRITERS.contains(&permission) || WRITERS.contains(&role) {
        Permission::Writes(said)
    } else {
        Permission::Not(said)
    }
}

/// Applies `press` once at `now_ms`.
pub fn apply(store: &dyn Store, client: &GithubClient, press: &Press, now_ms: u64) -> Pressed {
    let key = press.key();
    let n = match once::claim(store, &key, MAX_TRIES, now_ms) {
        Claim::Mine(n) => n,
        Claim::Busy | Claim::GivenUp => {
            return Pressed {
                status: 200,
                answer: json!({"already": true}),
            }
        }
    };
    let run = match store.check_run(&press.repo, press.check_run_id) {
        Ok(Some(run)) => run,
        Ok(None) => {
            once::done(store, &key, now_ms);
            return Pressed::ignored(format!(
                "check run {} of {} is not one this host made",
                press.check_run_id, press.repo
            ));
        }
        Err(err) => {
            once::failed(store, &key, n, now_ms);
            return Pressed {
                status: 503,
                answer: json!({"error": {"code": "store-unavailable", "message": err.to_string()}}),
            };
        }
    };
    let said = match permission(client, &run.repo, &press.sender) {
        Permission::Writes(said) => said,
        Permission::Not(said) => {
            once::done(store, &key, now_ms);
            return Pressed::ignored(format!(
                "{} may not write to {} ({said}): the press changes nothing",
                press.sender, run.repo
            ));
        }
        Permission::Unknown(why) => {
            once::failed(store, &key, n, now_ms);
            return Pressed {
                status: 503,
                answer: json!({"error": {"code": "github-unreachable",
                    "message": format!("cannot ask GitHub whether {} may write: {why}", press.sender)}}),
            };
        }
    };
    once::done(store, &key, now_ms);
    let id = run.deferral_id.as_str();
    let done = match press.identifier.as_str() {
        CANCEL => cancel(store, id, &press.sender, now_ms),
        RETRY => crate::ops::retry::retry_pressed(store, id, now_ms)
            .map(|r| json!({"deferral": id, "retried_as": r.deferral.id, "state": r.deferral.state.as_str()}))
            .map_err(|e| e.message),
        other => Err(format!("{other:?} is no button of this host's")),
    };
    match done {
        Ok(mut answer) => {
            answer["pressed"] = json!(press.identifier);
            answer["by"] = json!(press.sender);
            answer["permission"] = json!(said);
            Pressed {
                status: 200,
                answer,
            }
        }
        Err(why) => Pressed::ignored(why),
    }
}

/// Cancels deferral `id` while it waits, as pressed by `login`.
fn cancel(store: &dyn Store, id: &str, login: &str, now_ms: u64) -> Result<Value, String> {
    let deferral = lifecycle::change::load(store, id).map_err(|e| e.message)?;
    if !matches!(deferral.state, State::Ready | State::Deferred) {
        return Err(format!(
            "deferral {id} is {} ({}): only a waiting one is cancelled",
            deferral.state.as_str(),
            deferral.cause
        ));
    }
    let effects = Effects {
        detail: Some(format!("{login} on GitHub")),
        ..Effects::default()
    };
    let cancelled = lifecycle::change::apply(store, &deferral, Event::Cancel, effects, now_ms)
        .map_err(|e| e.message)?;
    Ok(json!({"deferral": id, "state": cancelled.state.as_str()}))
}
