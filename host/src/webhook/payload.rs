//! What a verified delivery asks for, read from `X-GitHub-Event` and the JSON body (GitHub's
//! `workflow_run` payload: `action`, `workflow_run` (a run as the REST API gives it) and
//! `repository`). Only `workflow_run` `completed` leads to work.
//!
//! A delivery is known by what the signature covers ([`CompletedRun::key`]), never by
//! `X-GitHub-Delivery`, which anyone who captured a signed delivery can change at will.

use crate::github::api::{RepoRef, RunInfo, RunOrigin};
use deferral_core::signals::time::parse_iso8601;
use serde_json::Value;

/// A completed run, as the delivery describes it: everything following it needs, so the run
/// itself is never asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedRun {
    /// `repository.full_name`: where the run ran.
    pub repo: String,
    /// `repository.id`: the repository whatever its name is now.
    pub repo_id: Option<u64>,
    /// `repository.default_branch`: the branch a watch trusts when it names none.
    pub default_branch: Option<String>,
    /// `workflow_run.run_attempt`: 1, then one more for each re-run of the run.
    pub run_attempt: u64,
    /// `workflow_run.updated_at` (ms since the epoch): when the run completed, as the signed
    /// body says; `None` when it says nothing readable.
    pub updated_ms: Option<u64>,
    pub run: RunInfo,
    pub origin: RunOrigin,
}

impl CompletedRun {
    /// Whether the signed body says the run completed before `horizon_ms`: then no delivery
    /// GitHub can still make carries it ([`super::REPLAY_HORIZON_MS`]).
    pub fn completed_before(&self, horizon_ms: u64) -> bool {
        self.updated_ms.is_some_and(|at| at < horizon_ms)
    }

    /// The delivery's identity, from the signed body alone: the event and action, the
    /// repository (its id, or its name when the payload gives none), the run and its attempt.
    /// GitHub's redelivery and a replay under a fresh `X-GitHub-Delivery` share it; a re-run's
    /// completion (the next attempt) has its own.
    pub fn key(&self) -> String {
        let repo = match self.repo_id {
            Some(id) => id.to_string(),
            None => self.repo.to_ascii_lowercase(),
        };
        format!(
            "workflow_run completed {repo} {} {}",
            self.run.id, self.run_attempt
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// `ping`: GitHub checks the hook when it is created.
    Ping,
    Completed(Box<CompletedRun>),
    /// Any other event or action: why it is ignored.
    Ignored(String),
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn repo_ref(v: &Value) -> Option<RepoRef> {
    v.as_object()?;
    Some(RepoRef {
        id: v.get("id").and_then(Value::as_u64),
        full_name: text(v, "full_name"),
    })
}

/// Reads a verified delivery; `Err` when a `workflow_run` delivery lacks what it must have.
pub fn read(event: &str, body: &[u8]) -> Result<Delivery, String> {
    match event {
        "ping" => return Ok(Delivery::Ping),
        "workflow_run" => {}
        other => {
            return Ok(Delivery::Ignored(format!(
                "event {other:?} is not followed"
            )))
        }
    }
    let (value, action) = with_action(body)?;
    if action != "completed" {
        return Ok(Delivery::Ignored(format!(
            "workflow_run action {action:?} is not followed"
        )));
    }
    let run = value
        .get("workflow_run")
        .filter(|r| r.is_object())
        .ok_or("a workflow_run delivery without workflow_run")?;
    let id = run
        .get("id")
        .and_then(Value::as_u64)
        .ok_or("workflow_run.id is not a number")?;
    let repository = value.get("repository").unwrap_or(&Value::Null);
    let repo = text(repository, "full_name")
        .or_else(|| run.get("repository").and_then(|r| text(r, "full_name")))
        .ok_or("the delivery names no repository")?;
    let repo_id = repository
        .get("id")
        .or_else(|| run.get("repository").and_then(|r| r.get("id")))
        .and_then(Value::as_u64);
    Ok(Delivery::Completed(Box::new(CompletedRun {
        repo,
        repo_id,
        default_branch: text(repository, "default_branch"),
        // A payload from before re-runs existed names no attempt: its run's first.
        run_attempt: run.get("run_attempt").and_then(Value::as_u64).unwrap_or(1),
        updated_ms: run
            .get("updated_at")
            .and_then(Value::as_str)
            .and_then(parse_iso8601),
        run: RunInfo {
            id,
            status: text(run, "status"),
            conclusion: text(run, "conclusion"),
            url: text(run, "url").unwrap_or_default(),
            html_url: text(run, "html_url").unwrap_or_default(),
            display_title: text(run, "display_title").unwrap_or_default(),
        },
        origin: RunOrigin {
            id,
            event: text(run, "event"),
            path: text(run, "path"),
            head_branch: text(run, "head_branch"),
            repository: run.get("repository").and_then(repo_ref),
            head_repository: run.get("head_repository").and_then(repo_ref),
        },
    })))
}

/// A delivery's body as JSON and its `action` (empty when it has none); `Err` when the body is
/// not JSON.
pub fn with_action(body: &[u8]) -> Result<(Value, String), String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let action = value
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Ok((value, action))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn completed(body: &serde_json::Value) -> CompletedRun {
        match read("workflow_run", body.to_string().as_bytes()) {
            Ok(Delivery::Completed(run)) => *run,
            other => panic!("not read as completed: {other:?}"),
        }
    }

    #[test]
    fn the_key_is_the_repository_the_run_and_its_attempt() {
        let body = |repo: serde_json::Value, attempt: serde_json::Value| {
            json!({"action": "completed",
                "workflow_run": {"id": 7, "run_attempt": attempt, "conclusion": "success"},
                "repository": repo, "sender": {"login": "octocat"}})
        };
        let named = json!({"id": 1, "full_name": "octo-org/app"});
        let key = completed(&body(named.clone(), json!(2))).key();
        assert_eq!(key, "workflow_run completed 1 7 2");
        // What the signature does not cover changes nothing; what it covers does.
        let mut other = body(named.clone(), json!(2));
        other["sender"] = json!({"login": "someone-else"});
        assert_eq!(completed(&other).key(), key);
        assert_ne!(completed(&body(named.clone(), json!(3))).key(), key);
        let elsewhere = json!({"id": 6666, "full_name": "mallory/app"});
        assert_ne!(completed(&body(elsewhere, json!(2))).key(), key);
        // No repository id: the name, whatever its case; no attempt: the first.
        let unnumbered = json!({"full_name": "Octo-Org/App"});
        assert_eq!(
            completed(&body(unnumbered, serde_json::Value::Null)).key(),
            "workflow_run completed octo-org/app 7 1"
        );
    }

    #[test]
    fn a_completed_run_is_read_and_everything_else_is_ignored() {
        let body = json!({"action": "completed",
            "workflow_run": {"id": 30433642, "status": "completed", "conclusion": "success",
                "event": "workflow_dispatch", "path": ".github/workflows/resume.yml",
                "head_branch": "main", "display_title": "Resume d_1 #1",
                "html_url": "https://github.com/octo-org/app/actions/runs/30433642",
                "url": "https://api.github.com/repos/octo-org/app/actions/runs/30433642",
                "repository": {"id": 1, "full_name": "octo-org/app"},
                "head_repository": {"id": 1, "full_name": "octo-org/app"}},
            "repository": {"id": 1, "full_name": "octo-org/app", "default_branch": "main"}});
        let Delivery::Completed(run) = read("workflow_run", body.to_string().as_bytes()).unwrap()
        else {
            panic!("not read as completed");
        };
        assert_eq!((run.repo.as_str(), run.run.id), ("octo-org/app", 30433642));
        assert_eq!(run.run.conclusion.as_deref(), Some("success"));
        assert_eq!(run.default_branch.as_deref(), Some("main"));
        assert_eq!(run.key(), "workflow_run completed 1 30433642 1");
        assert_eq!(read("ping", b"{}").unwrap(), Delivery::Ping);
        assert!(matches!(
            read("push", b"not even json"),
            Ok(Delivery::Ignored(_))
        ));
        let requested = json!({"action": "requested", "workflow_run": {"id": 1}});
        assert!(matches!(
            read("workflow_run", requested.to_string().as_bytes()),
            Ok(Delivery::Ignored(_))
        ));
        assert!(read("workflow_run", b"{").is_err());
        assert!(read("workflow_run", br#"{"action":"completed"}"#).is_err());
    }
}
