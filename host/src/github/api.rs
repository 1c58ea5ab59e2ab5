//! The REST calls the loop makes, each one request (see docs/host-github.md for their quota cost).
//! List calls send `If-None-Match` with the ETag stored from the last answer: a 304 costs no
//! primary quota and the stored (compact) answer is used again.

use super::client::{CallError, GithubClient, Reply};
use crate::error::HostErrorKind;
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
    pub fn kind(&self) -> HostErrorKind {
        match self {
            ApiError::Call(CallError::QuotaStop(_)) => HostErrorKind::GithubQuota,
            ApiError::Call(_) => HostErrorKind::GithubUnreachable,
            ApiError::Status { .. } => HostErrorKind::GithubError,
            ApiError::Shape(_) => HostErrorKind::GithubAnswer,
        }
    }

    pub fn code(&self) -> &'static str {
        self.kind().code()
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
    /// `None` when GitHub answers `status: null` (the run is not under way yet): it waits.
    pub status: Option<String>,
    pub conclusion: Option<String>,
    /// The run's API URL (GitHub's `url` of a run, `run_url` of a dispatch answer).
    pub url: String,
    /// The run's page.
    pub html_url: String,
    pub display_title: String,
}

impl RunInfo {
    fn from_value(v: &Value) -> Option<RunInfo> {
        Some(RunInfo {
            id: v.get("id")?.as_u64()?,
            status: v.get("status").and_then(Value::as_str).map(str::to_string),
            conclusion: v
                .get("conclusion")
                .and_then(Value::as_str)
                .map(str::to_string),
            url: v
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
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
               "url": self.url, "html_url": self.html_url, "display_title": self.display_title})
    }
}

/// An artifact, as much as the loop needs. The `workflow_run` fields other than `id` are
/// optional in GitHub's description (and absent from older servers): `None` then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactInfo {
    pub id: u64,
    pub name: String,
    pub expired: bool,
    pub size_in_bytes: u64,
    pub run_id: Option<u64>,
    /// `workflow_run.repository_id`: the repository the run ran in.
    pub repository_id: Option<u64>,
    /// `workflow_run.head_repository_id`: the repository its commit came from (a fork's id for
    /// a fork's pull request).
    pub head_repository_id: Option<u64>,
    /// `workflow_run.head_branch`.
    pub head_branch: Option<String>,
    /// `workflow_run.head_sha`: the commit the run ran on.
    pub head_sha: Option<String>,
    /// `digest` (`sha256:HEX` of the zip), present for artifacts uploaded by
    /// actions/upload-artifact v4 and later: checked against the downloaded bytes.
    pub digest: Option<String>,
    /// `created_at` (when it was uploaded), as epoch ms; `None` when absent or unreadable.
    pub created_ms: Option<u64>,
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

impl ArtifactInfo {
    fn from_value(v: &Value) -> Option<ArtifactInfo> {
        let run = v.get("workflow_run").unwrap_or(&Value::Null);
        Some(ArtifactInfo {
            id: v.get("id")?.as_u64()?,
            name: v.get("name")?.as_str()?.to_string(),
            expired: v.get("expired").and_then(Value::as_bool).unwrap_or(false),
            size_in_bytes: v.get("size_in_bytes").and_then(Value::as_u64).unwrap_or(0),
            run_id: run.get("id").and_then(Value::as_u64),
            repository_id: run.get("repository_id").and_then(Value::as_u64),
            head_repository_id: run.get("head_repository_id").and_then(Value::as_u64),
            head_branch: str_of(run, "head_branch"),
            head_sha: str_of(run, "head_sha"),
            digest: str_of(v, "digest"),
            created_ms: v
                .get("created_at")
                .and_then(Value::as_str)
                .and_then(deferral_core::signals::time::parse_iso8601),
        })
    }

    fn to_value(&self) -> Value {
        json!({"id": self.id, "name": self.name, "expired": self.expired,
               "size_in_bytes": self.size_in_bytes, "digest": self.digest,
               "created_at": self.created_ms.map(crate::clock::iso8601),
               "workflow_run": {"id": self.run_id, "repository_id": self.repository_id,
                                "head_repository_id": self.head_repository_id, "head_branch": self.head_branch,
                                "head_sha": self.head_sha}})
    }
}

/// A repository as a workflow run names it (`repository`, `head_repository`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRef {
    pub id: Option<u64>,
    /// `owner/name`.
    pub full_name: Option<String>,
}

impl RepoRef {
    fn from_value(v: &Value) -> Option<RepoRef> {
        v.as_object()?;
        Some(RepoRef {
            id: v.get("id").and_then(Value::as_u64),
            full_name: str_of(v, "full_name"),
        })
    }

    fn to_value(&self) -> Value {
        json!({"id": self.id, "full_name": self.full_name})
    }
}

/// Where a workflow run comes from: what `watch` decides trust by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOrigin {
    pub id: u64,
    pub event: Option<String>,
    /// The workflow file, `.github/workflows/FILE` (GitHub may append `@REF`).
    pub path: Option<String>,
    pub head_branch: Option<String>,
    pub repository: Option<RepoRef>,
    /// `None` when GitHub gives none (a deleted fork).
    pub head_repository: Option<RepoRef>,
}

impl RunOrigin {
    fn from_value(v: &Value) -> Option<RunOrigin> {
        Some(RunOrigin {
            id: v.get("id")?.as_u64()?,
            event: str_of(v, "event"),
            path: str_of(v, "path"),
            head_branch: str_of(v, "head_branch"),
            repository: v.get("repository").and_then(RepoRef::from_value),
            head_repository: v.get("head_repository").and_then(RepoRef::from_value),
        })
    }

    fn to_value(&self) -> Value {
        json!({"id": self.id, "event": self.event, "path": self.path, "head_branch": self.head_branch,
               "repository": self.repository.as_ref().map(RepoRef::to_value),
               "head_repository": self.head_repository.as_ref().map(RepoRef::to_value)})
    }
}

/// A repository, as much as `watch` needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoInfo {
    pub id: Option<u64>,
    pub default_branch: String,
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

/// A GET with its ETag: the stored compact answer on 304, else the new one (stored).
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

fn origins_of(answer: &Value) -> Result<Value, ApiError> {
    let runs = answer
        .get("workflow_runs")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::Shape("no workflow_runs in the answer".into()))?;
    let compact: Vec<Value> = runs
        .iter()
        .filter_map(RunOrigin::from_value)
        .map(|r| r.to_value())
        .collect();
    Ok(json!({"runs": compact}))
}

/// `GET /repos/{o}/{r}/actions/runs?per_page=100` (with its ETag): where the newest runs of
/// every workflow come from.
pub fn repo_run_origins(
    client: &GithubClient,
    store: &dyn Store,
    repo: &str,
    now_ms: u64,
) -> Result<Vec<RunOrigin>, ApiError> {
    let path = format!("/repos/{repo}/actions/runs?per_page=100");
    let compact = cached_list(client, store, &path, repo, origins_of, now_ms)?;
    Ok(compact
        .get("runs")
        .and_then(Value::as_array)
        .map(|runs| runs.iter().filter_map(RunOrigin::from_value).collect())
        .unwrap_or_default())
}

/// `GET /repos/{o}/{r}/actions/runs/{id}` (with its ETag): where one run comes from.
pub fn run_origin(
    client: &GithubClient,
    store: &dyn Store,
    repo: &str,
    run_id: u64,
    now_ms: u64,
) -> Result<RunOrigin, ApiError> {
    let pick = |answer: &Value| {
        RunOrigin::from_value(answer)
            .map(|r| r.to_value())
            .ok_or_else(|| ApiError::Shape("not a workflow run".into()))
    };
    let path = format!("/repos/{repo}/actions/runs/{run_id}");
    let compact = cached_list(client, store, &path, repo, pick, now_ms)?;
    RunOrigin::from_value(&compact).ok_or_else(|| ApiError::Shape("not a workflow run".into()))
}

/// `GET /repos/{o}/{r}` (with its ETag): the repository's id and default branch.
pub fn repository(
    client: &GithubClient,
    store: &dyn Store,
    repo: &str,
    now_ms: u64,
) -> Result<RepoInfo, ApiError> {
    let pick = |answer: &Value| {
        let branch = str_of(answer, "default_branch")
            .ok_or_else(|| ApiError::Shape("no default_branch in the repository".into()))?;
        Ok(json!({"id": answer.get("id").and_then(Value::as_u64), "default_branch": branch}))
    };
    let compact = cached_list(client, store, &format!("/repos/{repo}"), repo, pick, now_ms)?;
    Ok(RepoInfo {
        id: compact.get("id").and_then(Value::as_u64),
        default_branch: str_of(&compact, "default_branch")
            .ok_or_else(|| ApiError::Shape("no default_branch in the repository".into()))?,
    })
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
