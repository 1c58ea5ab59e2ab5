//! The one call that answers an environment gate: `POST
//! /repos/{owner}/{repo}/actions/runs/{run_id}/deployment_protection_rule` with
//! `{environment_name, state, comment}`, answered 204; without `state` it is a status report (a
//! progress comment on the waiting job). Only a GitHub App's installation token
//! may make it (Deployments: read and write), and only for its own rule.

use crate::github::client::{CallError, GithubClient};
use serde_json::json;

/// GitHub keeps at most this many characters of a comment.
pub const MAX_COMMENT_CHARS: usize = 1024;

/// The decision sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Rejected,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }
}

/// How the call went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    /// GitHub took the decision (2xx).
    Taken(u16),
    /// Not taken, and nothing changed on GitHub: a rate limit (403/429) or never sent (GitHub
    /// unreachable, the quota stopped the call). It may be sent again.
    NotTaken(String),
    /// GitHub refused it (another 4xx: the run or rule is gone, decided already, or the App may
    /// not review it): sending it again changes nothing.
    Refused(u16, String),
    /// Sent, and whether GitHub took it is not known (5xx, the connection broke after sending).
    Unknown(String),
}

/// `text` cut to GitHub's limit on a comment.
pub fn comment_of(text: &str) -> String {
    if text.chars().count() <= MAX_COMMENT_CHARS {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(MAX_COMMENT_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// Sends `decision` for `environment` of run `run_id` in `repo` (`owner/name`).
pub fn decide(
    client: &GithubClient,
    repo: &str,
    run_id: u64,
    environment: &str,
    decision: Decision,
    comment: &str,
) -> Answered {
    let body = json!({
        "environment_name": environment,
        "state": decision.as_str(),
        "comment": comment_of(comment),
    });
    send(client, repo, run_id, &body)
}

/// Sends a status report (a progress comment: the body without `state`) for `environment` of
/// run `run_id` in `repo`: the job keeps waiting. GitHub takes at most 10 a deployment.
pub fn report(
    client: &GithubClient,
    repo: &str,
    run_id: u64,
    environment: &str,
    comment: &str,
) -> Answered {
    let body = json!({"environment_name": environment, "comment": comment_of(comment)});
    send(client, repo, run_id, &body)
}

fn send(client: &GithubClient, repo: &str, run_id: u64, body: &serde_json::Value) -> Answered {
    let path = format!("/repos/{repo}/actions/runs/{run_id}/deployment_protection_rule");
    let body = body.to_string();
    match client.call("POST", &path, Some(repo), &[], Some(body.as_bytes())) {
        Ok(reply) if (200..300).contains(&reply.status) => Answered::Taken(reply.status),
        Ok(reply) if reply.status == 403 || reply.status == 429 => {
            let message = reply.message();
            let limited = reply.header("retry-after").is_some()
                || reply.header("x-ratelimit-remaining") == Some("0")
                || message.to_ascii_lowercase().contains("rate limit");
            if limited {
                Answered::NotTaken(format!("HTTP {}: {message}", reply.status))
            } else {
                Answered::Refused(reply.status, message)
            }
        }
        Ok(reply) if (400..500).contains(&reply.status) => {
            Answered::Refused(reply.status, reply.message())
        }
        Ok(reply) => Answered::Unknown(format!("HTTP {}: {}", reply.status, reply.message())),
        Err(CallError::NotSent(message) | CallError::QuotaStop(message)) => {
            Answered::NotTaken(message)
        }
        Err(CallError::AfterSend(message) | CallError::TooLarge(message)) => {
            Answered::Unknown(message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_is_cut_to_githubs_limit() {
        assert_eq!(comment_of("short"), "short");
        let long = "é".repeat(2000);
        assert_eq!(comment_of(&long).chars().count(), MAX_COMMENT_CHARS);
    }
}
