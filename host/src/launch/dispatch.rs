//! `workflow-dispatch:` launches: `POST {api}/repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches`
//! with `{"ref", "inputs": {"deferral_id", "attempt", "receipt"}}` and nothing else.
//!
//! The token comes from `GITHUB_TOKEN` and goes only into the `Authorization` header; it is
//! never logged, stored or put in an error message. The API base is `GITHUB_API_URL`
//! (default `https://api.github.com`).

use super::http::{self, HttpError, Request, Url};
use std::time::Duration;

pub const DEFAULT_API_URL: &str = "https://api.github.com";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispatchResult {
    /// 2xx: GitHub created the dispatch event.
    Accepted { status: u16 },
    /// A 4xx other than 403/429: GitHub refused it; trying again will not help.
    Rejected { status: u16, message: String },
    /// Certainly not dispatched (nothing sent, or 403/429 limits): safe to try again later.
    NotSent { message: String },
    /// Sent, then the exchange failed (timeout, reset, 5xx): it may or may not have run.
    Unknown { message: String },
}

pub struct DispatchRequest<'a> {
    pub api_url: &'a str,
    pub token: &'a str,
    pub owner: &'a str,
    pub repo: &'a str,
    pub workflow: &'a str,
    pub git_ref: &'a str,
    pub deferral_id: &'a str,
    pub attempt: u32,
    /// The claimed receipt in its governed-handoff form (the run cannot hold the wake-up handle).
    pub receipt_json: &'a str,
    pub timeout: Duration,
}

/// The JSON body: only the ref and the three inputs (all strings, as `workflow_dispatch` wants).
pub fn body(request: &DispatchRequest) -> String {
    serde_json::json!({
        "ref": request.git_ref,
        "inputs": {
            "deferral_id": request.deferral_id,
            "attempt": request.attempt.to_string(),
            "receipt": request.receipt_json,
        }
    })
    .to_string()
}

fn message_of(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.get("message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.chars().take(200).collect())
}

pub fn dispatch(request: &DispatchRequest) -> DispatchResult {
    let url = match Url::parse(request.api_url) {
        Ok(url) => url,
        Err(message) => {
            return DispatchResult::NotSent {
                message: format!("GITHUB_API_URL: {message}"),
            }
        }
    };
    let path = format!(
        "/repos/{}/{}/actions/workflows/{}/dispatches",
        request.owner, request.repo, request.workflow
    );
    let body = body(request);
    let headers = [
        ("Accept", "application/vnd.github+json".to_string()),
        ("Authorization", format!("Bearer {}", request.token)),
        ("Content-Type", "application/json".to_string()),
        (
            "User-Agent",
            concat!("deferral-host/", env!("CARGO_PKG_VERSION")).to_string(),
        ),
        ("X-GitHub-Api-Version", "2022-11-28".to_string()),
    ];
    let sent = http::send(&Request {
        method: "POST",
        url: &url,
        path: &path,
        headers: &headers,
        body: body.as_bytes(),
        timeout: request.timeout,
    });
    match sent {
        Ok(response) if (200..300).contains(&response.status) => DispatchResult::Accepted {
            status: response.status,
        },
        Ok(response) if response.status == 403 || response.status == 429 => {
            DispatchResult::NotSent {
                message: format!("HTTP {}: {}", response.status, message_of(&response.body)),
            }
        }
        Ok(response) if (400..500).contains(&response.status) => DispatchResult::Rejected {
            status: response.status,
            message: message_of(&response.body),
        },
        Ok(response) => DispatchResult::Unknown {
            message: format!("HTTP {}: {}", response.status, message_of(&response.body)),
        },
        Err(HttpError::NotSent(message)) => DispatchResult::NotSent { message },
        Err(HttpError::AfterSend(message)) => DispatchResult::Unknown { message },
    }
}
