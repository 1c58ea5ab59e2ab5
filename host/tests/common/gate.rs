//! The environment gate's side of the GitHub stand-in: the `deployment_protection_rule`
//! delivery GitHub sends a rule's App (shaped as GitHub's webhook description
//! `webhook-deployment-protection-rule-requested`), and the callback that takes the App's
//! decision (`POST /repos/{owner}/{repo}/actions/runs/{run_id}/deployment_protection_rule`,
//! `{environment_name, state, comment}`, 204), which remembers every decision it was sent.

use super::github::{epoch_s, iso, REPO, REPO_ID};
use serde_json::{json, Value};

/// Status reports GitHub takes for one deployment.
pub const MAX_REPORTS: usize = 10;

/// One decision (or status report: `state` empty) the callback was sent.
#[derive(Debug, Clone)]
pub struct Decision {
    /// When it arrived (epoch ms).
    pub at_ms: u64,
    pub run_id: u64,
    pub environment: String,
    pub state: String,
    pub comment: String,
    /// Whether the stand-in took it (a second decision of one waiting job is refused).
    pub taken: bool,
}

/// Answers one decision as GitHub does: 204 when taken; 422 when the body is not the documented
/// one or the job has no request waiting (it was decided already). A body without `state` is a
/// status report (a progress comment, state `""` here): at most [`MAX_REPORTS`] a job, and none
/// once it is decided.
pub fn decide(decisions: &mut Vec<Decision>, run_id: u64, body: &[u8]) -> (u16, Option<Value>) {
    let body: Value = serde_json::from_slice(body).unwrap_or_default();
    let environment = body["environment_name"].as_str().unwrap_or_default();
    let state = body["state"].as_str().unwrap_or_default();
    let comment = body["comment"].as_str().unwrap_or_default();
    let report = body.get("state").is_none();
    let well_formed = !environment.is_empty()
        && (matches!(state, "approved" | "rejected") || (report && !comment.is_empty()))
        && comment.chars().count() <= 1024
        && body.as_object().is_some_and(|o| {
            o.keys()
                .all(|k| ["environment_name", "state", "comment"].contains(&k.as_str()))
        });
    if !well_formed {
        return (422, Some(json!({"message": "Invalid request."})));
    }
    let decided = decisions.iter().any(|d| {
        d.taken && !d.state.is_empty() && d.run_id == run_id && d.environment == environment
    });
    let reports = decisions
        .iter()
        .filter(|d| d.taken && d.state.is_empty() && d.run_id == run_id)
        .count();
    if report && !decided && reports >= MAX_REPORTS {
        decisions.push(Decision {
            at_ms: epoch_ms(),
            run_id,
            environment: environment.into(),
            state: String::new(),
            comment: comment.into(),
            taken: false,
        });
        return (422, Some(json!({"message": "Too many status reports"})));
    }
    decisions.push(Decision {
        at_ms: epoch_ms(),
        run_id,
        environment: environment.into(),
        state: state.into(),
        comment: comment.into(),
        taken: !decided,
    });
    if decided {
        return (
            422,
            Some(json!({"message": "No pending deployment requests to approve or reject"})),
        );
    }
    (204, None)
}

/// The commit of run `run_id` in [`requested`].
pub fn sha_of(run_id: u64) -> String {
    format!("{run_id:040x}")
}

pub fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The delivery of a job of run `run_id` waiting behind `environment`, its deployment
/// `deployment_id` made `waited_s` seconds ago, with callbacks to `api`.
pub fn requested(
    api: &str,
    run_id: u64,
    environment: &str,
    deployment_id: u64,
    waited_s: u64,
) -> Value {
    let created = iso(epoch_s() - waited_s);
    // Each run on a commit of its own.
    let sha = sha_of(run_id);
    json!({
        "action": "requested",
        "environment": environment,
        "event": "push",
        "sha": sha,
        "ref": "refs/heads/main",
        "deployment_callback_url": format!("{api}/repos/{REPO}/actions/runs/{run_id}/deployment_protection_rule"),
        "deployment": {
            "url": format!("{api}/repos/{REPO}/deployments/{deployment_id}"),
            "id": deployment_id,
            "node_id": "DE_kwDOtest",
            "task": "deploy",
            "original_environment": environment,
            "environment": environment,
            "description": null,
            "created_at": created,
            "updated_at": created,
            "statuses_url": format!("{api}/repos/{REPO}/deployments/{deployment_id}/statuses"),
            "repository_url": format!("{api}/repos/{REPO}"),
            "creator": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "sha": sha,
            "ref": "main",
            "payload": {},
            "transient_environment": false,
            "production_environment": false,
            "performed_via_github_app": null,
        },
        "pull_requests": [],
        "repository": {"id": REPO_ID, "node_id": "R_kgDOtest", "name": "app", "full_name": REPO,
            "private": false, "owner": {"login": "octo-org", "id": 1, "type": "Organization"},
            "default_branch": "main"},
        "organization": {"login": "octo-org", "id": 1},
        "installation": {"id": 7, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNw=="},
        "sender": {"login": "octocat", "id": 583231, "type": "User"},
    })
}

/// `GET /rate_limit` of a core window `seconds` long with `limit` requests, nothing spent, its
/// reset the next multiple of `seconds` (epoch seconds): the quota resets as a clock ticks.
pub fn rate_window(seconds: u64, limit: u64) -> Value {
    let reset = (epoch_s() / seconds + 1) * seconds;
    let core = json!({"limit": limit, "used": 0, "remaining": limit, "reset": reset});
    let graphql = json!({"limit": 5000, "used": 0, "remaining": 5000, "reset": epoch_s() + 3600});
    json!({"resources": {"core": core, "graphql": graphql}, "rate": core})
}

/// One commit status written.
#[derive(Debug, Clone)]
pub struct StatusPost {
    pub at_ms: u64,
    pub sha: String,
    pub state: String,
    pub description: String,
    pub context: String,
    pub target_url: Option<String>,
}

/// Answers `POST /repos/{owner}/{repo}/statuses/{sha}` as GitHub does: 201 with the status, or
/// 422 when the state is not one of GitHub's, the description is over 140 characters or the
/// commit is not a full SHA.
pub fn status(posts: &mut Vec<StatusPost>, sha: &str, body: &[u8]) -> (u16, Value) {
    let body: Value = serde_json::from_slice(body).unwrap_or_default();
    let state = body["state"].as_str().unwrap_or_default();
    let description = body["description"].as_str().unwrap_or_default();
    let context = body["context"].as_str().unwrap_or("default");
    let ok = matches!(state, "error" | "failure" | "pending" | "success")
        && description.chars().count() <= 140
        && sha.len() == 40
        && sha.bytes().all(|b| b.is_ascii_hexdigit());
    if !ok {
        return (422, json!({"message": "Validation Failed"}));
    }
    posts.push(StatusPost {
        at_ms: epoch_ms(),
        sha: sha.into(),
        state: state.into(),
        description: description.into(),
        context: context.into(),
        target_url: body["target_url"].as_str().map(str::to_string),
    });
    (
        201,
        json!({"id": posts.len(), "state": state, "description": description, "context": context}),
    )
}
