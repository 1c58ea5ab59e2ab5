//! The `workflow-dispatch` kind: `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`, a GitHub
//! `workflow_dispatch` (see [`crate::github::dispatch`]), each part checked against GitHub's
//! rules ([`github_names`]). It needs a GitHub client that can reach GitHub with quota left;
//! the dispatch holds the lease while GitHub runs the workflow, and the follow step
//! ([`crate::ops::follow`]) learns how the run ended. A dispatch that never reached GitHub
//! gives its claim back without spending the re-entry; one that may have reached it is
//! `dispatch-unknown`, for an operator to resolve. `serve` accepts these targets by default.

use crate::error::HostError;
use crate::github::client::GithubClient;
use crate::github::dispatch::{self, DispatchRequest, DispatchResult};
use crate::launch::attempt::{Attempt, LaunchPass};
use crate::launch::github_names;
use crate::launch::kind::{invalid, Launcher, Target};
use crate::launch::launched::{LaunchEnd, Launched, RunLinks};
use crate::launch::recover;
use crate::lifecycle;
use crate::lifecycle::outcome::Outcome;
use crate::store::{AttemptStatus, Change, Deferral, Lease, RunRecord, Store};
use deferral_core::receipt::validate_str;

pub struct WorkflowDispatch;

impl Launcher for WorkflowDispatch {
    fn name(&self) -> &'static str {
        "workflow-dispatch"
    }

    fn form(&self) -> &'static str {
        "workflow-dispatch:OWNER/REPO/WORKFLOW@REF"
    }

    /// Owner, repository, workflow and ref.
    fn parse(&self, text: &str, rest: &str) -> Result<Vec<String>, HostError> {
        let bad = |why: &str| {
            invalid(
                text,
                format!(
                    "{why}: use {} (e.g. workflow-dispatch:octo/app/sync.yml@main)",
                    self.form()
                ),
            )
        };
        let (path, git_ref) = rest.split_once('@').ok_or_else(|| bad("has no @REF"))?;
        let [owner, repo, workflow] = path.split('/').collect::<Vec<_>>()[..] else {
            return Err(bad("is not OWNER/REPO/WORKFLOW"));
        };
        if let Some(part) = github_names::first_bad_part(owner, repo, workflow, git_ref) {
            return Err(bad(&format!("has a {part} that GitHub does not allow")));
        }
        Ok([owner, repo, workflow, git_ref].map(String::from).to_vec())
    }

    fn allowed_by_default(&self) -> bool {
        true
    }

    /// No credentials, GitHub could not be reached, or the GitHub quota for the pass is spent.
    fn not_ready(&self, pass: &LaunchPass<'_>) -> Option<String> {
        match pass.github {
            None => Some("GITHUB_TOKEN is not set".into()),
            Some(client) => client.not_ready(),
        }
    }

    fn claimed_status(&self) -> AttemptStatus {
        AttemptStatus::Dispatching
    }

    fn launch(&self, target: &Target, run: &Attempt<'_>) -> Launched {
        let [owner, repo, workflow, git_ref] = target.parts() else {
            unreachable!("a workflow-dispatch target has four parts");
        };
        let workflow = Workflow {
            owner,
            repo,
            workflow,
            git_ref,
        };
        dispatch_workflow(run, run.pass.github, &workflow)
    }

    /// A dispatch that was being sent becomes `dispatch-unknown`; one sent (or unknown) is left
    /// for the follow step or an operator.
    fn recover(
        &self,
        store: &dyn Store,
        d: &Deferral,
        now_ms: u64,
    ) -> Result<Option<Deferral>, HostError> {
        match d.attempt_status {
            Some(AttemptStatus::Dispatching) => {
                let effects = lifecycle::change::Effects {
                    detail: Some("lease-expired: the ticker stopped while dispatching".into()),
                    attempt_status: Change::Set(AttemptStatus::DispatchUnknown),
                    lease: Change::Set(Lease {
                        owner: "operator".into(),
                        until_ms: d.resume_by_ms,
                    }),
                    ..Default::default()
                };
                lifecycle::change::note(
                    store,
                    d,
                    "dispatch-unknown",
                    "lease-expired",
                    effects,
                    now_ms,
                )
                .map(Some)
            }
            Some(AttemptStatus::Dispatched | AttemptStatus::DispatchUnknown) => Ok(None),
            Some(AttemptStatus::Launching) | None => recover::returned(store, d, now_ms).map(Some),
        }
    }

    /// Dispatched runs are followed to their outcomes by the pass ([`crate::ops::follow`]).
    fn ends_on_github(&self) -> bool {
        true
    }
}

/// The workflow a target names.
struct Workflow<'a> {
    owner: &'a str,
    repo: &'a str,
    workflow: &'a str,
    git_ref: &'a str,
}

fn dispatch_workflow(
    run: &Attempt<'_>,
    github: Option<&GithubClient>,
    target: &Workflow<'_>,
) -> Launched {
    let Some(client) = github else {
        return run.record_outcome(Outcome::Returned {
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
            let _ = run.store().put_run(&RunRecord {
                deferral_id: id.to_string(),
                attempt,
                run_id: found.as_ref().map(|r| r.run_id),
                run_url: found.as_ref().and_then(|r| r.run_url.clone()),
                html_url: found.as_ref().and_then(|r| r.html_url.clone()),
                workflow: format!("{}/{}/{}", target.owner, target.repo, target.workflow),
                dispatched_ms: run.now_ms(),
            });
            let links = RunLinks {
                run_url: found.as_ref().and_then(|r| r.run_url.clone()),
                html_url: found.and_then(|r| r.html_url),
            };
            hold(
                run,
                AttemptStatus::Dispatched,
                "dispatched",
                format!("HTTP {status}"),
                Some(links),
            )
        }
        DispatchResult::Unknown { message } => hold(
            run,
            AttemptStatus::DispatchUnknown,
            "dispatch-unknown",
            message,
            None,
        ),
        // Nothing reached GitHub: the claim is given back, no re-entry spent.
        DispatchResult::NotSent { message } if client.unreachable().is_some() => {
            give_back(run, format!("dispatch not sent: {message}"))
        }
        // Refused (403/429) or stopped for the pass: not dispatched; the re-entry counts.
        DispatchResult::NotSent { message } => run.record_outcome(Outcome::Returned {
            detail: format!("dispatch not sent: {message}"),
        }),
        DispatchResult::Rejected { status, message } => run.record_outcome(Outcome::Blocked {
            detail: Some(format!("dispatch rejected: HTTP {status}: {message}")),
        }),
    }
}

/// Gives the claim back (see [`lifecycle::claim::give_back`]).
fn give_back(run: &Attempt<'_>, detail: String) -> Launched {
    let (id, attempt) = (run.id(), run.attempt());
    match lifecycle::claim::give_back(run.store(), &run.claimed.deferral, detail, run.now_ms()) {
        Ok(after) => Launched::new(id, attempt, LaunchEnd::GivenBack(after)),
        Err(err) => Launched::failed(id, Some(attempt), err),
    }
}

/// Dispatched or unknown: holds the lease until resume_by, so no tick launches it again; the
/// run's outcome is followed (or reported), or an operator resolves the unknown.
fn hold(
    run: &Attempt<'_>,
    status: AttemptStatus,
    event: &str,
    detail: String,
    links: Option<RunLinks>,
) -> Launched {
    let (id, attempt, claimed) = (run.id(), run.attempt(), run.claimed);
    let effects = lifecycle::change::Effects {
        detail: Some(detail),
        attempt_status: Change::Set(status),
        lease: Change::Set(Lease {
            owner: run.owner.to_string(),
            until_ms: claimed.deferral.resume_by_ms,
        }),
        ..Default::default()
    };
    match lifecycle::change::note(
        run.store(),
        &claimed.deferral,
        event,
        event,
        effects,
        run.now_ms(),
    ) {
        Ok(after) => Launched::new(
            id,
            attempt,
            LaunchEnd::Held {
                state: after.state,
                attempt_status: status,
                detail: after.detail,
                run: links,
            },
        ),
        Err(err) => Launched::failed(id, Some(attempt), err),
    }
}
