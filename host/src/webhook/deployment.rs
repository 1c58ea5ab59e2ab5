//! A `deployment_protection_rule` delivery (action `requested`), as GitHub's webhook
//! description `webhook-deployment-protection-rule-requested` gives it: `environment` (its
//! name), `event`, `deployment_callback_url`
//! (`.../repos/{owner}/{repo}/actions/runs/{run_id}/deployment_protection_rule`), `deployment`
//! (with its `id` and `created_at`), `repository`, `installation`, `sender`.
//!
//! What the host keeps of it is [`GateRequest`]: where to answer (repository, run, environment)
//! and the request's identity ([`GateRequest::identity`]), which a redelivery, a second replica
//! or GitHub asking again for the same job all share, and a re-run (a new deployment) does not.

pub use crate::ops::gate::request::GateRequest;
use deferral_core::signals::time::parse_iso8601;
use serde_json::Value;

pub use crate::ops::gate::request::EVENT;

/// GitHub caps an environment's name at 255 characters.
const MAX_ENVIRONMENT_CHARS: usize = 255;

/// What a verified `deployment_protection_rule` delivery asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateDelivery {
    Requested(Box<GateRequest>),
    /// Another action: why it is ignored.
    Ignored(String),
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// `(owner/repo, run id, attempt)` of a callback URL: the path's
/// `/repos/{owner}/{repo}/actions/runs/{run_id}[/attempts/{n}]/deployment_protection_rule`.
fn callback_parts(url: &str) -> Option<(String, u64, Option<u64>)> {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("", |at| &rest[at..]));
    let path = path.split(['?', '#']).next()?;
    let at = path.rfind("/repos/")?;
    let parts: Vec<&str> = path[at + "/repos/".len()..].split('/').collect();
    let [owner, repo, "actions", "runs", run, tail @ ..] = parts.as_slice() else {
        return None;
    };
    let attempt = match tail {
        ["deployment_protection_rule"] => None,
        ["attempts", n, "deployment_protection_rule"] => Some(n.parse().ok()?),
        _ => return None,
    };
    crate::launch::github_names::check_repo(&format!("{owner}/{repo}")).ok()?;
    Some((format!("{owner}/{repo}"), run.parse().ok()?, attempt))
}

/// Reads a verified `deployment_protection_rule` delivery; `Err` says what a `requested` one
/// lacks.
pub fn read(body: &[u8]) -> Result<GateDelivery, String> {
    let (value, action) = super::payload::with_action(body)?;
    if action != "requested" {
        return Ok(GateDelivery::Ignored(format!(
            "deployment_protection_rule action {action:?} is not followed"
        )));
    }
    let environment = text(&value, "environment")
        .filter(|e| !e.is_empty() && e.chars().count() <= MAX_ENVIRONMENT_CHARS)
        .filter(|e| !e.chars().any(char::is_control))
        .ok_or(
            "environment is missing, empty, longer than 255 characters or has a control character",
        )?;
    let url =
        text(&value, "deployment_callback_url").ok_or("deployment_callback_url is missing")?;
    let (repo, run_id, run_attempt) = callback_parts(&url).ok_or(
        "deployment_callback_url is not .../repos/OWNER/REPO/actions/runs/RUN_ID/deployment_protection_rule",
    )?;
    let deployment = value.get("deployment").filter(|d| d.is_object());
    let repository = value.get("repository").unwrap_or(&Value::Null);
    if let Some(named) = text(repository, "full_name") {
        if !named.eq_ignore_ascii_case(&repo) {
            return Err(format!(
                "repository.full_name {named:?} is not the callback URL's repository {repo:?}"
            ));
        }
    }
    Ok(GateDelivery::Requested(Box::new(GateRequest {
        repo,
        repo_id: repository.get("id").and_then(Value::as_u64),
        run_id,
        run_attempt,
        environment,
        deployment_id: deployment.and_then(|d| d.get("id")).and_then(Value::as_u64),
        created_ms: deployment
            .and_then(|d| text(d, "created_at"))
            .and_then(|t| parse_iso8601(&t)),
        sha: deployment
            .and_then(|d| text(d, "sha"))
            .or_else(|| text(&value, "sha")),
        event: text(&value, "event"),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn requested() -> Value {
        json!({"action": "requested", "environment": "github-quota", "event": "push",
            "deployment_callback_url": "https://api.github.com/repos/octo-org/app/actions/runs/1234/deployment_protection_rule",
            "deployment": {"id": 77, "sha": "0123456789abcdef0123456789abcdef01234567",
                "environment": "github-quota", "created_at": "2026-12-05T12:00:00Z"},
            "repository": {"id": 4242, "full_name": "octo-org/app"},
            "installation": {"id": 7}, "sender": {"login": "octocat"}})
    }

    #[test]
    fn a_requested_rule_is_read_from_its_callback_url_and_deployment() {
        let GateDelivery::Requested(r) = read(requested().to_string().as_bytes()).unwrap() else {
            panic!("not requested");
        };
        assert_eq!(
            (r.repo.as_str(), r.run_id, r.environment.as_str()),
            ("octo-org/app", 1234, "github-quota")
        );
        assert_eq!(
            (r.deployment_id, r.repo_id, r.run_attempt),
            (Some(77), Some(4242), None)
        );
        assert_eq!(r.created_ms, parse_iso8601("2026-12-05T12:00:00Z"));
        let mut again = requested();
        again["sender"] = json!({"login": "someone-else"});
        let GateDelivery::Requested(same) = read(again.to_string().as_bytes()).unwrap() else {
            panic!()
        };
        assert_eq!(
            same.identity(),
            r.identity(),
            "the sender is not the request"
        );
        let mut rerun = requested();
        rerun["deployment"]["id"] = json!(78);
        let GateDelivery::Requested(rerun) = read(rerun.to_string().as_bytes()).unwrap() else {
            panic!()
        };
        assert_ne!(
            rerun.identity(),
            r.identity(),
            "a re-run is another request"
        );
    }

    #[test]
    fn what_a_requested_rule_lacks_is_said_and_other_actions_are_ignored() {
        assert!(matches!(
            read(br#"{"action":"approved"}"#),
            Ok(GateDelivery::Ignored(_))
        ));
        assert!(read(b"{").is_err());
        for (key, bad) in [
            (
                "deployment_callback_url",
                json!("https://api.github.com/repos/o/r/pulls/1"),
            ),
            ("deployment_callback_url", json!(null)),
            ("environment", json!("")),
            ("environment", json!("a\nb")),
            ("repository", json!({"id": 1, "full_name": "mallory/app"})),
        ] {
            let mut body = requested();
            body[key] = bad;
            assert!(read(body.to_string().as_bytes()).is_err(), "{key}");
        }
        assert_eq!(
            callback_parts("https://ghe.example/api/v3/repos/o/r/actions/runs/9/attempts/2/deployment_protection_rule"),
            Some(("o/r".into(), 9, Some(2)))
        );
    }
}
