//! A job waiting behind an environment gate, as the host keeps it from GitHub's
//! `deployment_protection_rule` delivery (read in `crate::webhook::deployment`): where to
//! answer, and the request's identity.

use serde_json::{json, Value};

/// The event's name in `X-GitHub-Event`.
pub const EVENT: &str = "deployment_protection_rule";

/// One job waiting behind an environment whose rule is this host's App.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateRequest {
    /// `owner/name`, as the callback URL names it (the repository the decision is posted to).
    pub repo: String,
    /// `repository.id`, when given.
    pub repo_id: Option<u64>,
    pub run_id: u64,
    /// The run attempt, when the callback URL names one (`.../runs/{id}/attempts/{n}/...`).
    pub run_attempt: Option<u64>,
    pub environment: String,
    /// `deployment.id`: a re-run of the job makes a new deployment.
    pub deployment_id: Option<u64>,
    /// `deployment.created_at` in epoch ms: when the job began to wait.
    pub created_ms: Option<u64>,
    /// The commit (`deployment.sha`, else `sha`).
    pub sha: Option<String>,
    /// The event that started the run (`event`).
    pub event: Option<String>,
}

impl GateRequest {
    /// What makes two deliveries the same request: the repository, the run, the environment,
    /// and the run's attempt and deployment when given. Without a token, login, URL or payload.
    pub fn identity(&self) -> Value {
        json!({
            "gate": EVENT,
            "repository": self.repo_id.map_or_else(|| json!(self.repo.to_ascii_lowercase()), |id| json!(id)),
            "run_id": self.run_id,
            "run_attempt": self.run_attempt,
            "environment": self.environment,
            "deployment_id": self.deployment_id,
        })
    }
}
