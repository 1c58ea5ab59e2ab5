//! A deferral's face on its commit as a check run (`commit-status = "check-run"`, a GitHub
//! App's only: `checks: write`), written where [`crate::ops::commit_status`] writes a status,
//! with the same text, the same once-per-state-change rule and the same budget:
//!
//! | deferral | check run | button |
//! |---|---|---|
//! | `ready`, `deferred` | `completed`, `neutral`: deferred until, expected start, pool | cancel |
//! | `resumable` | `in_progress`: resumed, the run linked | |
//! | `complete` | `completed`, `success` | |
//! | `blocked` | `completed`, `failure`, and why | retry |
//! | `cancelled` | `completed`, `cancelled` (`timed_out` when expired) | retry |
//!
//! GitHub shows a check run's buttons (`actions`) only once it is `completed`, so a waiting
//! deferral is shown completed with conclusion `neutral` (neither passed nor failed) and its
//! cancel button. GitHub documents moving a run to `completed`, not moving it on from there
//! (integrators report that a completed run cannot be set back to `in_progress`), so the host
//! PATCHes its check run only while that run is not completed (`resumable` to its end), and
//! otherwise POSTs a new one of the same name on the same commit: GitHub shows the newest
//! check run of a name. Every check run made is kept (`check_runs`), so a press on an older
//! one still finds its deferral ([`crate::ops::press`]).
//!
//! Retry is offered only while the deferral's window is open (an expired one has nothing left
//! to retry) and never for an environment gate's job (its deployment was rejected already).

use crate::clock::iso8601;
use crate::github::client::{CallError, GithubClient};
use crate::launch::kinds::approval;
use crate::store::{launch_kind, CheckRunRef, CommitRef, Deferral, Store};
use deferral_core::lifecycle::State;
use serde_json::{json, Value};

/// The identifier of the cancel button (a `requested_action` delivery names it).
pub const CANCEL: &str = "cancel";
/// The identifier of the retry button.
pub const RETRY: &str = "retry";

/// What a check run shows for a deferral's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// `completed` or `in_progress`.
    pub status: &'static str,
    pub conclusion: Option<&'static str>,
    /// The button offered, if any.
    pub button: Option<&'static str>,
}

/// What deferral `d` shows now.
pub fn shown(d: &Deferral, now_ms: u64) -> Shown {
    let done = |conclusion, button| Shown {
        status: "completed",
        conclusion: Some(conclusion),
        button,
    };
    let retry =
        (d.resume_by_ms > now_ms && launch_kind(&d.launch) != approval::NAME).then_some(RETRY);
    match d.state {
        State::Ready | State::Deferred => done("neutral", Some(CANCEL)),
        State::Resumable => Shown {
            status: "in_progress",
            conclusion: None,
            button: None,
        },
        State::Complete => done("success", None),
        State::Blocked => done("failure", retry),
        State::Cancelled if d.cause == "expired" => done("timed_out", None),
        State::Cancelled => done("cancelled", retry),
    }
}

/// The button as GitHub takes it: label at most 20 characters, description at most 40,
/// identifier at most 20.
fn action(button: &str) -> Value {
    match button {
        CANCEL => {
            json!({"label": "Cancel", "description": "Stop waiting: cancel this deferral", "identifier": CANCEL})
        }
        _ => {
            json!({"label": "Retry", "description": "Wait again in the same pool", "identifier": RETRY})
        }
    }
}

/// The body of a create (`name`, `head_sha`, `external_id` too) or of an update.
fn body(
    commit: &CommitRef,
    d: &Deferral,
    description: &str,
    link: Option<&str>,
    now_ms: u64,
    create: bool,
) -> Value {
    let shown = shown(d, now_ms);
    let title: String = description.chars().take(120).collect();
    let mut summary = format!("{description}\n\nDeferral `{}`.", d.id);
    match shown.button {
        Some(CANCEL) => summary.push_str(
            " Someone with write access to the repository may press **Cancel** to stop it waiting.",
        ),
        Some(_) => summary.push_str(
            " Someone with write access to the repository may press **Retry** to have it wait again.",
        ),
        None => {}
    }
    let mut body = json!({
        "status": shown.status,
        "output": {"title": title, "summary": summary},
        "actions": shown.button.map(action).into_iter().collect::<Vec<_>>(),
    });
    if create {
        body["name"] = json!(commit.context);
        body["head_sha"] = json!(commit.sha);
        body["external_id"] = json!(d.id);
        body["started_at"] = json!(iso8601(d.created_ms.min(now_ms)));
    }
    if let Some(conclusion) = shown.conclusion {
        body["conclusion"] = json!(conclusion);
        body["completed_at"] = json!(iso8601(now_ms));
    }
    if let Some(link) = link {
        body["details_url"] = json!(link);
    }
    body
}

/// Writes deferral `d`'s check run: PATCHes its latest one while that is not completed, else
/// POSTs a new one; what was written is kept. `Err((reached GitHub, why))`.
pub fn write(
    store: &dyn Store,
    client: &GithubClient,
    commit: &CommitRef,
    d: &Deferral,
    description: &str,
    link: Option<&str>,
    now_ms: u64,
) -> Result<u16, (bool, String)> {
    let latest = store
        .latest_check_run(&d.id)
        .map_err(|e| (false, e.to_string()))?
        .filter(|run| !run.completed);
    let (method, path, create) = match &latest {
        Some(run) => (
            "PATCH",
            format!("/repos/{}/check-runs/{}", commit.repo, run.check_run_id),
            false,
        ),
        None => ("POST", format!("/repos/{}/check-runs", commit.repo), true),
    };
    let sent = body(commit, d, description, link, now_ms, create).to_string();
    let reply = match client.call(
        method,
        &path,
        Some(&commit.repo),
        &[],
        Some(sent.as_bytes()),
    ) {
        Ok(reply) => reply,
        Err(CallError::NotSent(why) | CallError::QuotaStop(why)) => return Err((false, why)),
        Err(CallError::AfterSend(why) | CallError::TooLarge(why)) => return Err((true, why)),
    };
    if reply.status == 403 || reply.status == 429 {
        return Err((false, format!("HTTP {}: {}", reply.status, reply.message())));
    }
    if !(200..300).contains(&reply.status) {
        return Err((true, format!("HTTP {}: {}", reply.status, reply.message())));
    }
    let id = match latest {
        Some(run) => run.check_run_id,
        None => reply
            .json()
            .ok()
            .and_then(|v| v.get("id").and_then(Value::as_u64))
            .ok_or((true, "the created check run's answer has no id".to_string()))?,
    };
    let kept = CheckRunRef {
        check_run_id: id,
        repo: commit.repo.clone(),
        deferral_id: d.id.clone(),
        state: d.state.as_str().to_string(),
        completed: shown(d, now_ms).status == "completed",
        written_ms: now_ms,
    };
    store
        .put_check_run(&kept)
        .map_err(|e| (true, format!("check run {id} written but not kept: {e}")))?;
    Ok(reply.status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buttons_fit_githubs_limits() {
        for button in [CANCEL, RETRY] {
            let a = action(button);
            assert!(a["label"].as_str().unwrap().chars().count() <= 20);
            assert!(a["description"].as_str().unwrap().chars().count() <= 40);
            assert!(a["identifier"].as_str().unwrap().chars().count() <= 20);
            assert_eq!(a["identifier"], button);
        }
    }
}
