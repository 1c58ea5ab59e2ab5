//! Which runs' artifacts `watch` ingests: the rules, on what GitHub says of a run.
//!
//! A run is trusted only when all of these hold, checked in this order (the first that fails
//! is the reason in the report):
//!
//! 1. `fork`: its head repository is the repository itself (ids compared when GitHub gives
//!    both, else `full_name`s, case-insensitively); a run with no head repository is not;
//! 2. `branch-not-named`: its `head_branch` is one of `--branch` (default: the repository's
//!    default branch);
//! 3. `event-not-named`: its `event` is one of `--event` (default: any but `pull_request` and
//!    `pull_request_target`);
//! 4. `workflow-not-named`: its workflow file is one of `--workflow` (default: any).
//!
//! An artifact's own `workflow_run` already tells a fork (`head_repository_id` differs from
//! `repository_id`) and the branch, so those are passed over without asking for the run.

use super::api::{ArtifactInfo, RunOrigin};
use serde_json::{json, Value};

/// Events ingested only when named with `--event`: their runs carry a pull request's code.
pub const PULL_REQUEST_EVENTS: [&str; 2] = ["pull_request", "pull_request_target"];

/// Where workflow files live; `--workflow FILE` without a `/` means this directory's `FILE`.
pub const WORKFLOW_DIR: &str = ".github/workflows/";

/// What the operator named (empty: the default).
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// File names (`gate.yml`) or paths (`.github/workflows/gate.yml`).
    pub workflows: Vec<String>,
    pub branches: Vec<String>,
    pub events: Vec<String>,
}

/// Why a run's artifact is not ingested: a stable reason and what was seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Skip {
    pub reason: &'static str,
    pub seen: Value,
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "every caller returns it as the check's answer"
)]
fn skip(reason: &'static str, seen: Value) -> Option<Skip> {
    Some(Skip { reason, seen })
}

impl Trust {
    /// A fork, as the artifact's own `workflow_run` tells it (no call needed).
    pub fn artifact_fork(&self, artifact: &ArtifactInfo) -> Option<Skip> {
        match (artifact.repository_id, artifact.head_repository_id) {
            (Some(repository), Some(head)) if repository != head => {
                skip("fork", json!({"head_repository_id": head}))
            }
            _ => None,
        }
    }

    /// A branch not named, as the artifact's own `workflow_run` tells it (`branches` are the
    /// branches trusted, see [`Trust::branches_or`]).
    pub fn artifact_branch(&self, artifact: &ArtifactInfo, branches: &[String]) -> Option<Skip> {
        match &artifact.head_branch {
            Some(branch) if !branches.contains(branch) => {
                skip("branch-not-named", json!({"branch": branch}))
            }
            _ => None,
        }
    }

    /// The branches trusted: those named, else the default branch.
    pub fn branches_or(&self, default_branch: &str) -> Vec<String> {
        if self.branches.is_empty() {
            vec![default_branch.to_string()]
        } else {
            self.branches.clone()
        }
    }

    /// The run's verdict: `None` when its artifact may be ingested. `repo` is `owner/name`.
    pub fn judge_run(&self, repo: &str, run: &RunOrigin, branches: &[String]) -> Option<Skip> {
        if !is_repository_itself(repo, run) {
            let head = run.head_repository.as_ref();
            return skip(
                "fork",
                json!({"head_repository": head.and_then(|h| h.full_name.clone()),
                       "head_repository_id": head.and_then(|h| h.id)}),
            );
        }
        match &run.head_branch {
            Some(branch) if branches.contains(branch) => {}
            branch => return skip("branch-not-named", json!({"branch": branch})),
        }
        let event = run.event.as_deref().unwrap_or_default();
        let event_ok = if self.events.is_empty() {
            !event.is_empty() && !PULL_REQUEST_EVENTS.contains(&event)
        } else {
            self.events.iter().any(|e| e == event)
        };
        if !event_ok {
            return skip("event-not-named", json!({"event": run.event}));
        }
        if !self.workflows.is_empty() {
            let path = run.path.as_deref().map(workflow_path).unwrap_or_default();
            if !self.workflows.iter().any(|w| names_workflow(w, path)) {
                return skip("workflow-not-named", json!({"workflow": run.path}));
            }
        }
        None
    }
}

/// The run's head repository is the repository: same id when GitHub gives both ids, else the
/// same `full_name` (GitHub compares names case-insensitively).
fn is_repository_itself(repo: &str, run: &RunOrigin) -> bool {
    let Some(head) = &run.head_repository else {
        return false;
    };
    let repository = run.repository.as_ref();
    if let (Some(head_id), Some(id)) = (head.id, repository.and_then(|r| r.id)) {
        return head_id == id;
    }
    head.full_name
        .as_deref()
        .is_some_and(|name| name.eq_ignore_ascii_case(repo))
}

/// A run's `path` without the `@REF` GitHub may append.
fn workflow_path(path: &str) -> &str {
    path.split_once('@').map_or(path, |(file, _)| file)
}

/// `--workflow` value `named` names the workflow at `path`: a value with a `/` is the whole
/// path; one without is a file name in `.github/workflows/`.
fn names_workflow(named: &str, path: &str) -> bool {
    if named.contains('/') {
        named == path
    } else {
        path.strip_prefix(WORKFLOW_DIR) == Some(named)
    }
}
