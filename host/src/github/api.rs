//! The REST calls the loop makes, each one request (see docs/host.md for their quota cost).
//! List calls send `If-None-Match` with the ETag stored from the last answer: a 304 costs no
//! primary quota and the stored (compact) answer is used again.

use super::client::{CallError, GithubClient, Reply};
use crate::store::Store;
use serde_json::{json, Value};

/// Why a GitHub call gave no usable answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    Call(CallError),
    /// GitHub answered with an error status.
    Status {
        status: u16,
        message: String,
    },
    /// The answer does not have the documented shape.
    Shape(String),
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Call(CallError::QuotaStop(_)) => "github-quota",
            ApiError::Call(_) => "github-unreachable",
            ApiError::Status { .. } => "github-error",
            ApiError::Shape(_) => "github-answer",
        }
    }

    pub fn message(&self) -> String {
        match self {
            ApiError::Call(err) => err.message().to_string(),
            ApiError::Status { status, message } => format!("HTTP {status}: {message}"),
            ApiError::Shape(message) => message.clone(),
        }
    }

    pub fn is_quota_stop(&self) -> bool {
        matches!(self, ApiError::Call(CallError::QuotaStop(_)))
    }
}

impl From<CallError> for ApiError {
    fn from(err: CallError) -> ApiError {
        ApiError::Call(err)
    }
}

/// A workflow run, as much as the loop needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    pub id: u64,
    pub status: String,
    pub conclusion: Option<String>,
    pub html_url: String,
    pub display_title: String,
}

impl RunInfo {
    fn from_value(v: &Value) -> Option<RunInfo> {
        Some(RunInfo {
            id: v.get("id")?.as_u64()?,
            status: v.get("status")?.as_str()?.to_string(),
            conclusion: v
                .get("conclusion")
                .and_then(Value::as_str)
                .map(str::to_string),
            html_url: v
                .get("html_url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            display_title: v
                .get("display_title")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    }

    fn to_value(&self) -> Value {
        json!({"id": self.id, "status": self.status, "conclusion": self.conclusion,
               "html_url": self.html_url, "display_title": self.display_title})
    }
}

/// An artifact, as much as the loop needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactInfo {
    pub id: u64,
    pub name: String,
    pub expired: bool,
    pub size_in_bytes: u64,
    pub run_id: Option<u64>,
}

impl ArtifactInfo {
    fn from_value(v: &Value) -> Option<ArtifactInfo> {
        Some(ArtifactInfo {
            id: v.get("id")?.as_u64()?,
            name: v.get("name")?.as_str()?.to_string(),
            expired: v.get("expired").and_then(Value::as_bool).unwrap_or(false),
            size_in_bytes: v.get("size_in_bytes").and_then(Value::as_u64).unwrap_or(0),
            run_id: v
                .get("workflow_run")
                .and_then(|r| r.get("id"))
                .and_then(Value::as_u64),
        })
    }

    fn to_value(&self) -> Value {
        json!({"id": self.id, "name": self.name, "expired": self.expired,
               "size_in_bytes": self.size_in_bytes, "workflow_run": {"id": self.run_id}})
    }
}

fn ok_json(reply: &Reply) -> Result<Value, ApiError> {
    if !(200..300).contains(&reply.status) {
        return Err(ApiError::Status {
            status: reply.status,
            message: reply.message(),
        });
    }
    Ok(reply.json()?)
}

/// A list call with its ETag: the stored compact answer on 304, else the new one (stored).
/// `pick` turns GitHub's answer into the compact one kept in the store.
fn cached_list(
    client: &GithubClient,
    store: &dyn Store,
    path: &str,
    repo: &str,
    pick: impl Fn(&Value) -> Result<Value, ApiError>,
    now_ms: u64,
) -> Result<Value, ApiError> {
    let key = format!("{}{path}", client.api_url());
    let cached = store.cached(&key).ok().flatten();
    let headers: Vec<(&str, String)> = cached
        .as_ref()
        .map(|(etag, _)| vec![("If-None-Match", etag.clone())])
        .unwrap_or_default();
    let reply = client.call("GET", path, Some(repo), &headers, None)?;
    if reply.status == 304 {
        if let Some(body) = cached.and_then(|(_, body)| serde_json::from_str(&body).ok()) {
            return Ok(body);
        }
    }
    let compact = pick(&ok_json(&reply)?)?;
    if let Some(etag) = reply.header("etag") {
        // A failed cache write only costs a full answer next time.
        let _ = store.put_cached(&key, etag, &compact.to_string(), now_ms);
    }
    Ok(compact)
}

fn runs_of(answer: &Value) -> Result<Value, ApiError> {
    let runs = answer
        .get("workflow_runs")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Shape("no workflow_runs in the answer".into()))?;
    let compact: Vec<Value> = runs
        .iter()
        .filter_map(RunInfo::from_value)
        .map(|r| r.to_value())
        .collect();
    Ok(json!({"total_count": answer.get("total_count"), "runs": compact}))
}

fn parse_runs(compact: &Value) -> Vec<RunInfo> {
    compact
        .get("runs")
        .and_then(Value::as_array)
        .map(|runs| runs.iter().filter_map(RunInfo::from_value).collect())
        .unwrap_or_default()
}

/// `GET /repos/{o}/{r}/actions/workflows/{wf}/runs?event=workflow_dispatch[&status=completed]&created=>=SINCE&per_page=100`
/// (with its ETag). Returns the runs and whether the page was full (more may exist).
pub fn list_runs(
    client: &GithubClient,
    store: &dyn Store,
    repo: &str,
    workflow: &str,
    completed_only: bool,
    created_since: &str,
    now_ms: u64,
) -> Result<(Vec<RunInfo>, bool), ApiError> {
    let status = if completed_only {
        "&status=completed"
    } else {
        ""
    };
    let path = format!(
        "/repos/{repo}/actions/workflows/{workflow}/runs?event=workflow_dispatch{status}&created=%3E%3D{}&per_page=100",
        encode(created_since)
    );
    let compact = cached_list(client, store, &path, repo, runs_of, now_ms)?;
    let runs = parse_runs(&compact);
    let full = runs.len() >= 100;
    Ok((runs, full))
}

/// `GET /repos/{o}/{r}/actions/runs/{id}`.
pub fn get_run(client: &GithubClient, repo: &str, run_id: u64) -> Result<RunInfo, ApiError> {
    let reply = client.call(
        "GET",
        &format!("/repos/{repo}/actions/runs/{run_id}"),
        Some(repo),
        &[],
        None,
    )?;
    RunInfo::from_value(&ok_json(&reply)?)
        .ok_or_else(|| ApiError::Shape("not a workflow run".into()))
}

fn artifacts_of(answer: &Value) -> Result<Value, ApiError> {
    let list = answer
        .get("artifacts")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Shape("no artifacts in the answer".into()))?;
    let compact: Vec<Value> = list
        .iter()
        .filter_map(ArtifactInfo::from_value)
        .map(|a| a.to_value())
        .collect();
    Ok(json!({"artifacts": compact}))
}

fn parse_artifacts(compact: &Value) -> Vec<ArtifactInfo> {
    compact
        .get("artifacts")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(ArtifactInfo::from_value).collect())
        .unwrap_or_default()
}

/// `GET /repos/{o}/{r}/actions/runs/{id}/artifacts?name=NAME`.
pub fn run_artifacts(
    client: &GithubClient,
    repo: &str,
    run_id: u64,
    name: &str,
) -> Result<Vec<ArtifactInfo>, ApiError> {
    let path = format!(
        "/repos/{repo}/actions/runs/{run_id}/artifacts?name={}",
        encode(name)
    );
    let reply = client.call("GET", &path, Some(repo), &[], None)?;
    Ok(parse_artifacts(&artifacts_of(&ok_json(&reply)?)?))
}

/// `GET /repos/{o}/{r}/actions/artifacts?name=NAME&per_page=100` (with its ETag).
pub fn repo_artifacts(
    client: &GithubClient,
    store: &dyn Store,
    repo: &str,
    name: &str,
    now_ms: u64,
) -> Result<Vec<ArtifactInfo>, ApiError> {
    let path = format!(
        "/repos/{repo}/actions/artifacts?name={}&per_page=100",
        encode(name)
    );
    let compact = cached_list(client, store, &path, repo, artifacts_of, now_ms)?;
    Ok(parse_artifacts(&compact))
}

/// `GET /repos/{o}/{r}/actions/artifacts/{id}/zip`: a 302 to blob storage, followed without
/// the token. The zip's bytes, at most `client::MAX_ARTIFACT_BYTES`.
pub fn download_artifact(
    client: &GithubClient,
    repo: &str,
    artifact_id: u64,
) -> Result<Vec<u8>, ApiError> {
    let reply = client.download(
        &format!("/repos/{repo}/actions/artifacts/{artifact_id}/zip"),
        Some(repo),
    )?;
    if reply.status != 200 {
        return Err(ApiError::Status {
            status: reply.status,
            message: reply.message(),
        });
    }
    Ok(reply.body)
}

/// Percent-encodes a query value (artifact names are letters, digits, `-_.` in practice).
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
