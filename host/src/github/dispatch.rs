//! `workflow-dispatch:` launches: `POST {api}/repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches`
//! with `{"ref", "inputs": {"deferral_id", "attempt", "receipt"}, "return_run_details": true}`.
//!
//! GitHub answers 200 with `{"workflow_run_id", "run_url", "html_url"}`; a server without that
//! feature answers 204 (the run is then found by its `display_title`, see `ops::follow`).
//! A 400/422 whose message names `return_run_details` is sent once more without it.
//! Under API version 2026-03-10 the field is gone: the body never has it and the 200 answer
//! always holds the run (see [`super::api_version`]).
//! The token goes only into the `Authorization` header (see [`super::client`]).

use super::client::{CallError, GithubClient};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRef {
    pub run_id: u64,
    /// The run's API URL (`run_url`), when GitHub gave it.
    pub run_url: Option<String>,
    /// The run's page (`html_url`), for people, when GitHub gave it.
    pub html_url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispatchResult {
    /// 2xx: GitHub created the dispatch event (with the run when it said which).
    Accepted { status: u16, run: Option<RunRef> },
    /// A 4xx other than 403/429: GitHub refused it; trying again will not help.
    Rejected { status: u16, message: String },
    /// Certainly not dispatched (nothing sent, or 403/429 limits): safe to try again later.
    NotSent { message: String },
    /// Sent, then the exchange failed (timeout, reset, 5xx): it may or may not have run.
    Unknown { message: String },
}

pub struct DispatchRequest<'a> {
    pub owner: &'a str,
    pub repo: &'a str,
    pub workflow: &'a str,
    pub git_ref: &'a str,
    pub deferral_id: &'a str,
    pub attempt: u32,
    /// The claimed receipt in its governed-handoff form (the run cannot hold the wake-up handle).
    pub receipt_json: &'a str,
}

/// The JSON body: the ref, the three inputs (all strings, as `workflow_dispatch` wants) and,
/// when asked, `return_run_details`.
pub fn body(request: &DispatchRequest, run_details: bool) -> String {
    let mut body = serde_json::json!({
        "ref": request.git_ref,
        "inputs": {
            "deferral_id": request.deferral_id,
            "attempt": request.attempt.to_string(),
            "receipt": request.receipt_json,
        }
    });
    if run_details {
        body["return_run_details"] = serde_json::Value::Bool(true);
    }
    body.to_string()
}

fn run_of(body: &[u8]) -> Option<RunRef> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let text = |key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    };
    Some(RunRef {
        run_id: value.get("workflow_run_id")?.as_u64()?,
        run_url: text("run_url"),
        html_url: text("html_url"),
    })
}

pub fn dispatch(client: &GithubClient, request: &DispatchRequest) -> DispatchResult {
    let path = format!(
        "/repos/{}/{}/actions/workflows/{}/dispatches",
        request.owner, request.repo, request.workflow
    );
    let repo = format!("{}/{}", request.owner, request.repo);
    let mut run_details = client.api_version().asks_for_run_details();
    loop {
        let sent = client.call(
            "POST",
            &path,
            Some(&repo),
            &[],
            Some(body(request, run_details).as_bytes()),
        );
        return match sent {
            Ok(reply) if (200..300).contains(&reply.status) => DispatchResult::Accepted {
                status: reply.status,
                run: run_of(&reply.body),
            },
            Ok(reply) if reply.status == 403 || reply.status == 429 => DispatchResult::NotSent {
                message: format!("HTTP {}: {}", reply.status, reply.message()),
            },
            Ok(reply)
                if run_details
                    && matches!(reply.status, 400 | 422)
                    && reply.message().contains("return_run_details") =>
            {
                // An older server that does not know the field: it refused the whole request,
                // so sending it again without the field cannot dispatch twice.
                run_details = false;
                continue;
            }
            Ok(reply) if (400..500).contains(&reply.status) => DispatchResult::Rejected {
                status: reply.status,
                message: reply.message(),
            },
            Ok(reply) => DispatchResult::Unknown {
                message: format!("HTTP {}: {}", reply.status, reply.message()),
            },
            Err(CallError::NotSent(message) | CallError::QuotaStop(message)) => {
                DispatchResult::NotSent { message }
            }
            Err(CallError::AfterSend(message) | CallError::TooLarge(message)) => {
                DispatchResult::Unknown { message }
            }
        };
    }
}
