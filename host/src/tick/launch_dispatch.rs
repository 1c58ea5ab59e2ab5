//! The `workflow-dispatch:` launcher of a tick: dispatches the workflow for a claimed deferral
//! and holds the lease while GitHub runs it (the follow step learns how it ended). A dispatch
//! that never reached GitHub gives its claim back without spending the re-entry.

use super::Run;
use crate::coordinator::{self, Outcome};
use crate::github::client::GithubClient;
use crate::github::dispatch::{self, DispatchRequest, DispatchResult};
use crate::store::{AttemptStatus, Change, Lease, RunRecord};
use deferral_core::receipt::validate_str;
use serde_json::{json, Value};

/// The workflow a target names.
pub(super) struct Workflow<'a> {
    pub owner: &'a str,
    pub repo: &'a str,
    pub workflow: &'a str,
    pub git_ref: &'a str,
}

pub(super) fn run(run: &Run<'_>, github: Option<&GithubClient>, target: &Workflow<'_>) -> Value {
    let Some(client) = github else {
        return run.finish(Outcome::Returned {
            detail: "dispatch not sent: GITHUB_TOKEN is not set".into(),
        });
    };
    let (id, attempt, claimed) = (run.id(), run.attempt(), run.claimed);
    // The dispatched run never sees the wake-up handle (dispatch inputs are readable by anyone
    // who can read the run), so it could not prove a retained claim: it gets the
    // governed-handoff form of the same receipt, and its concurrency group gives the
    // exclusivity that form relies on. The host keeps the lease and follows the run.
    let handoff_json = validate_str(&claimed.receipt_json)
        .map(|r| r.as_handoff().to_json())
        .unwrap_or_else(|_| claimed.receipt_json.clone());
    let result = dispatch::dispatch(
        client,
        &DispatchRequest {
            owner: target.owner,
            repo: target.repo,
            workflow: target.workflow,
            git_ref: target.git_ref,
            deferral_id: id,
            attempt,
            receipt_json: &handoff_json,
        },
    );
    match result {
        DispatchResult::Accepted { status, run: found } => {
            // The run to follow (or, without its id, to find by its title).
            let _ = run.store.put_run(&RunRecord {
                deferral_id: id.to_string(),
                attempt,
                run_id: found.as_ref().map(|r| r.run_id),
                run_url: found.as_ref().and_then(|r| r.run_url.clone()),
                html_url: found.as_ref().and_then(|r| r.html_url.clone()),
                workflow: format!("{}/{}/{}", target.owner, target.repo, target.workflow),
                dispatched_ms: (run.now_ms)(),
            });
            let mut entry = hold(
                run,
                AttemptStatus::Dispatched,
                "dispatched",
                format!("HTTP {status}"),
            );
            entry["run_url"] = json!(found.as_ref().and_then(|r| r.run_url.clone()));
            entry["html_url"] = json!(found.and_then(|r| r.html_url));
            entry
        }
        DispatchResult::Unknown { message } => hold(
            run,
            AttemptStatus::DispatchUnknown,
            "dispatch-unknown",
            message,
        ),
        // Nothing reached GitHub: the claim is given back, no re-entry spent.
        DispatchResult::NotSent { message } if client.unreachable().is_some() => {
            give_back(run, format!("dispatch not sent: {message}"))
        }
        // Refused (403/429) or stopped for the pass: not dispatched; the re-entry counts.
        DispatchResult::NotSent { message } => run.finish(Outcome::Returned {
            detail: format!("dispatch not sent: {message}"),
        }),
        DispatchResult::Rejected { status, message } => run.finish(Outcome::Blocked {
            detail: Some(format!("dispatch rejected: HTTP {status}: {message}")),
        }),
    }
}

/// Gives the claim back (see [`coordinator::give_back`]); the report line.
fn give_back(run: &Run<'_>, detail: String) -> Value {
    let (id, attempt) = (run.id(), run.attempt());
    match coordinator::give_back(run.store, &run.claimed.deferral, detail, (run.now_ms)()) {
        Ok(after) => {
            json!({"id": id, "attempt": attempt, "state": after.state.as_str(), "cause": after.cause, "reentries": after.reentries, "detail": after.detail})
        }
        Err(err) => {
            json!({"id": id, "attempt": attempt, "error": err.to_json_value()["error"]})
        }
    }
}

/// Dispatched or unknown: holds the lease until resume_by, so no tick launches it again; the
/// run's outcome is followed (or reported), or an operator resolves the unknown.
fn hold(run: &Run<'_>, status: AttemptStatus, event: &str, detail: String) -> Value {
    let (id, attempt, claimed) = (run.id(), run.attempt(), run.claimed);
    let effects = coordinator::Effects {
        detail: Some(detail),
        attempt_status: Change::Set(status),
        lease: Change::Set(Lease {
            owner: run.owner.to_string(),
            until_ms: claimed.deferral.resume_by_ms,
        }),
        ..Default::default()
    };
    match coordinator::note(
        run.store,
        &claimed.deferral,
        event,
        event,
        effects,
        (run.now_ms)(),
    ) {
        Ok(after) => {
            json!({"id": id, "attempt": attempt, "state": after.state.as_str(), "attempt_status": status.as_str(), "detail": after.detail})
        }
        Err(err) => {
            json!({"id": id, "attempt": attempt, "error": err.to_json_value()["error"]})
        }
    }
}
