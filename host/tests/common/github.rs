//! A stateful stand-in for GitHub's REST API on loopback, for the loop tests: two listeners,
//! the API (127.0.0.1) and blob storage (127.0.0.2, another host as far as the client can
//! tell), both over `http://`. Response shapes follow GitHub's REST docs (workflow runs,
//! artifacts, dispatches with `return_run_details`, installation tokens).
//!
//! Each dispatched run follows the next [`Script`] queued (default: succeeds with no
//! artifact at once). List calls carry an ETag and answer 304 to a matching `If-None-Match`.
//! The blob listener records any `Authorization` header it sees; tests assert it saw none.
//!
//! It speaks one REST API version ([`Standin::speaking`]; [`Standin::start`] takes
//! `DEFERRAL_TEST_GITHUB_API_VERSION`, default `2022-11-28`) and answers 400 to a request whose
//! `X-GitHub-Api-Version` is another. Under `2026-03-10` the dispatch refuses
//! `return_run_details` and always answers 200 with the run, and `GET /rate_limit` has no `rate`.
//! Artifacts carry `digest` (`sha256:HEX` of their zip), as upload-artifact v4's do.

use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const TOKEN: &str = "test-token-not-real";
pub const REPO: &str = "octo-org/app";
pub const WORKFLOW: &str = "resume.yml";
pub const TARGET: &str = "workflow-dispatch:octo-org/app/resume.yml@main";
/// The repository's id, its default branch, and a fork of it (another repository).
pub const REPO_ID: u64 = 4242;
pub const DEFAULT_BRANCH: &str = "main";
pub const FORK: &str = "mallory/app";
pub const FORK_ID: u64 = 6666;

/// What the run of one dispatch does.
#[derive(Debug, Clone)]
pub struct Script {
    /// How many list calls see the run in progress before it completes.
    pub polls_in_progress: u32,
    pub conclusion: &'static str,
    /// A receipt uploaded as `deferred-receipt` (the JSON text), if any.
    pub artifact: Option<String>,
    /// The artifact is expired when listed.
    pub artifact_expired: bool,
    /// Raw zip bytes instead of a zip of `artifact` (for unreadable artifacts).
    pub artifact_zip: Option<Vec<u8>>,
    /// The dispatch is answered 204 without run details (GitHub Enterprise Server before them).
    pub answer_204: bool,
    /// The dispatch is refused with a 422 naming `return_run_details` first.
    pub refuse_run_details: bool,
    /// The run's title, instead of the `run-name` of docs/examples/resume.yml.
    pub display_title: Option<String>,
    /// The run is answered with `status: null` until the test sets it completed.
    pub status_null: bool,
    /// The artifact's stated `digest` instead of the sha256 of its zip.
    pub artifact_digest: Option<String>,
}

impl Default for Script {
    fn default() -> Script {
        Script {
            polls_in_progress: 0,
            conclusion: "success",
            artifact: None,
            artifact_expired: false,
            artifact_zip: None,
            answer_204: false,
            refuse_run_details: false,
            display_title: None,
            status_null: false,
            artifact_digest: None,
        }
    }
}

/// Where a run comes from: its event, workflow file, branch and head repository.
#[derive(Debug, Clone)]
pub struct Origin {
    pub event: &'static str,
    /// The run's `path` (`.github/workflows/FILE`, as GitHub gives it).
    pub path: String,
    pub head_branch: String,
    /// The head repository is a fork ([`FORK`]), not [`REPO`].
    pub fork: bool,
}

impl Origin {
    /// A scheduled run of `nightly.yml` on the default branch.
    pub fn schedule() -> Origin {
        Origin {
            event: "schedule",
            path: ".github/workflows/nightly.yml".into(),
            head_branch: DEFAULT_BRANCH.into(),
            fork: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Run {
    pub id: u64,
    pub origin: Origin,
    /// `status: null` in every answer while set.
    pub status_null: bool,
    pub display_title: String,
    pub polls_left: u32,
    pub conclusion: &'static str,
    pub completed: bool,
    pub created_at: String,
}

#[derive(Debug, Clone)]
pub struct Artifact {
    pub id: u64,
    pub name: String,
    pub run_id: u64,
    pub expired: bool,
    pub zip: Vec<u8>,
    /// `digest` as listed; `None`: the sha256 of `zip`.
    pub digest: Option<String>,
    /// `created_at` as listed (when it was uploaded).
    pub created_at: String,
}

/// One request the API listener answered.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub status: u16,
    pub authorization: Option<String>,
    pub body: String,
}

#[derive(Default)]
pub struct State {
    pub scripts: VecDeque<Script>,
    pub runs: Vec<Run>,
    pub artifacts: Vec<Artifact>,
    pub seen: Vec<Seen>,
    pub dispatches: Vec<serde_json::Value>,
    /// `Authorization` headers the blob host received (must stay empty).
    pub blob_authorizations: Vec<String>,
    pub blob_requests: u32,
    /// `x-ratelimit-remaining` of the next answer (counts down on each non-304 answer).
    pub remaining: u64,
    /// The next answer is a 403 secondary rate limit.
    pub secondary_limit: bool,
    /// App auth: the App's public key (PEM) and the tokens issued, with their expiry (epoch s).
    pub app_public_key: Option<Vec<u8>>,
    pub app_id: String,
    pub installation_tokens: Vec<(String, u64)>,
    /// Lifetime of installation tokens, seconds.
    pub token_lifetime_s: u64,
    pub jwts_verified: u32,
    /// Artifacts' `workflow_run` carries only its `id` (as older servers answer).
    pub bare_artifact_runs: bool,
    /// Answer `POST .../access_tokens` with this status and body instead of issuing a token.
    pub access_token_answer: Option<(u16, serde_json::Value)>,
    /// GraphQL points left, as `GET /rate_limit` states them.
    pub graphql_remaining: u64,
    /// Answer `GET /rate_limit` with this status and body instead of the documented shape.
    pub rate_limit_answer: Option<(u16, serde_json::Value)>,
    /// The REST API version spoken (`X-GitHub-Api-Version` expected on every request).
    pub api_version: String,
    /// The App's webhook deliveries, as `GET /app/hook/deliveries` lists them (newest first).
    pub hook_deliveries: Vec<serde_json::Value>,
    /// Delivery attempts the App asked to redeliver (`POST /app/hook/deliveries/{id}/attempts`).
    pub redelivered: Vec<u64>,
    /// Environment gates' decisions (`POST .../runs/{id}/deployment_protection_rule`).
    pub gate_decisions: Vec<super::gate::Decision>,
    /// Commit statuses written (`POST /repos/{owner}/{repo}/statuses/{sha}`).
    pub commit_statuses: Vec<super::gate::StatusPost>,
    /// `GET /rate_limit` answers a core window of this many seconds, `(seconds, limit)`, its
    /// reset the next multiple of it, nothing spent (see [`super::gate::rate_window`]).
    pub rate_window: Option<(u64, u64)>,
    /// Check runs made and written (`POST`/`PATCH /repos/{owner}/{repo}/check-runs`).
    pub checks: super::checks::Checks,
    /// Collaborators' permissions (`GET .../collaborators/{login}/permission`); others: 404.
    pub permissions: std::collections::HashMap<String, String>,
    next_id: u64,
}

pub struct Standin {
    pub api: String,
    pub blob: String,
    pub state: Arc<Mutex<State>>,
}

pub fn epoch_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

pub fn iso(s: u64) -> String {
    deferral_core::signals::time::format_iso8601(s * 1000)
}

/// A zip holding one file `receipt.json` with `text` (deflated, as actions/upload-artifact does).
pub fn zip_of(text: &str) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("receipt.json", options).unwrap();
    zip.write_all(text.as_bytes()).unwrap();
    zip.finish().unwrap();
    out.into_inner()
}

struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(pos) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        let n = stream.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            l.split_once(':')
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = stream.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
    }
    Some(Request {
        method,
        path,
        headers,
        body: data[head_end..].to_vec(),
    })
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn json(status: u16, value: serde_json::Value) -> Answer {
        Answer {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }
}

fn write_answer(stream: &mut TcpStream, answer: &Answer) {
    let reason = match answer.status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        302 => "Found",
        304 => "Not Modified",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        410 => "Gone",
        _ => "Unprocessable Entity",
    };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\nConnection: close\r\nContent-Length: {}\r\n",
        answer.status,
        answer.body.len()
    );
    for (k, v) in &answer.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    // One write: head and body in one segment, no wait on the peer's delayed ACK.
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&answer.body);
    let _ = stream.set_nodelay(true);
    let _ = stream.write_all(&bytes);
    let _ = stream.flush();
}

fn serve(listener: TcpListener, handle: impl Fn(Request) -> Answer + Send + 'static) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            if let Some(request) = read_request(&mut stream) {
                let answer = handle(request);
                write_answer(&mut stream, &answer);
            }
        }
    });
}

/// `DEFERRAL_TEST_GITHUB_API_VERSION`, else `2022-11-28`.
pub fn default_api_version() -> String {
    std::env::var("DEFERRAL_TEST_GITHUB_API_VERSION")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "2022-11-28".into())
}

impl Standin {
    /// A stand-in speaking [`default_api_version`].
    pub fn start() -> Standin {
        Standin::speaking(&default_api_version())
    }

    /// A stand-in speaking REST API version `version` (`2022-11-28` or `2026-03-10`).
    pub fn speaking(version: &str) -> Standin {
        let api_listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let blob_listener = TcpListener::bind("127.0.0.2:0").unwrap();
        let api = format!("http://{}", api_listener.local_addr().unwrap());
        let blob = format!("http://{}", blob_listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            remaining: 4999,
            graphql_remaining: 5000,
            token_lifetime_s: 3600,
            next_id: 1000,
            api_version: version.to_string(),
            ..State::default()
        }));
        let api_state = state.clone();
        let blob_base = blob.clone();
        let api_base = api.clone();
        serve(api_listener, move |request| {
            let mut state = api_state.lock().unwrap();
            let authorization = request.header("authorization").map(str::to_string);
            let mut answer = api_answer(&mut state, &request, &api_base, &blob_base);
            // A 304 costs no quota, nor does GET /rate_limit (GitHub's REST docs).
            if answer.status != 304 && request.path != "/rate_limit" {
                state.remaining = state.remaining.saturating_sub(1);
            }
            for (k, v) in [
                ("x-ratelimit-limit", state.remaining.max(5000).to_string()),
                ("x-ratelimit-remaining", state.remaining.to_string()),
                (
                    "x-ratelimit-used",
                    5000u64.saturating_sub(state.remaining).to_string(),
                ),
                ("x-ratelimit-reset", (epoch_s() + 3600).to_string()),
                ("x-ratelimit-resource", "core".to_string()),
            ] {
                answer.headers.push((k.into(), v));
            }
            state.seen.push(Seen {
                method: request.method.clone(),
                path: request.path.clone(),
                status: answer.status,
                authorization,
                body: String::from_utf8_lossy(&request.body).into_owned(),
            });
            answer
        });
        let blob_state = state.clone();
        serve(blob_listener, move |request| {
            let mut state = blob_state.lock().unwrap();
            state.blob_requests += 1;
            if let Some(auth) = request.header("authorization") {
                state.blob_authorizations.push(auth.to_string());
            }
            let id: Option<u64> = request
                .path
                .strip_prefix("/blob/")
                .and_then(|rest| rest.split('?').next())
                .and_then(|id| id.parse().ok());
            match state.artifacts.iter().find(|a| Some(a.id) == id) {
                Some(artifact) => Answer {
                    status: 200,
                    headers: vec![("Content-Type".into(), "application/zip".into())],
                    body: artifact.zip.clone(),
                },
                None => Answer::json(404, serde_json::json!({"message": "no such blob"})),
            }
        });
        Standin { api, blob, state }
    }

    pub fn script(&self, script: Script) {
        self.state.lock().unwrap().scripts.push_back(script);
    }

    /// A run of another workflow (a schedule) that deferred and uploaded `receipt`.
    pub fn scheduled_run_with_artifact(&self, receipt: &str, expired: bool) -> (u64, u64) {
        self.run_with_artifact(Origin::schedule(), zip_of(receipt), expired)
    }

    /// A completed run from `origin` that uploaded `zip` as `deferred-receipt`.
    pub fn run_with_artifact(&self, origin: Origin, zip: Vec<u8>, expired: bool) -> (u64, u64) {
        let run_id = self.completed_run(origin, "Nightly sync");
        let mut state = self.state.lock().unwrap();
        state.next_id += 1;
        let artifact_id = state.next_id;
        state.artifacts.push(Artifact {
            id: artifact_id,
            name: "deferred-receipt".into(),
            run_id,
            expired,
            zip,
            digest: None,
            created_at: iso(epoch_s()),
        });
        (run_id, artifact_id)
    }

    /// Artifact `artifact_id` listed as uploaded `seconds` before now.
    pub fn uploaded_ago(&self, artifact_id: u64, seconds: u64) {
        let mut state = self.state.lock().unwrap();
        let artifact = state
            .artifacts
            .iter_mut()
            .find(|a| a.id == artifact_id)
            .expect("an artifact of the stand-in");
        artifact.created_at = iso(epoch_s() - seconds);
    }

    /// A run from `origin`, completed (`failure`), titled `title`, with no artifact.
    pub fn completed_run(&self, origin: Origin, title: &str) -> u64 {
        let mut state = self.state.lock().unwrap();
        state.next_id += 1;
        let run_id = state.next_id;
        state.runs.push(Run {
            id: run_id,
            origin,
            status_null: false,
            display_title: title.into(),
            polls_left: 0,
            conclusion: "failure",
            completed: true,
            created_at: iso(epoch_s()),
        });
        run_id
    }

    /// The REST API version it speaks.
    pub fn api_version(&self) -> String {
        self.state.lock().unwrap().api_version.clone()
    }

    /// The body GitHub delivers to a webhook when run `run_id` completes (`workflow_run`,
    /// action `completed`): the run as the REST API gives it and the repository. The run is
    /// marked completed here too.
    pub fn completed_delivery(&self, run_id: u64) -> serde_json::Value {
        let mut state = self.state.lock().unwrap();
        let run = state
            .runs
            .iter_mut()
            .find(|r| r.id == run_id)
            .expect("a run of the stand-in");
        run.completed = true;
        run.status_null = false;
        let run = run_json(run, &self.api);
        serde_json::json!({
            "action": "completed",
            "workflow_run": run,
            "workflow": {"id": 161335, "path": run["path"]},
            "repository": {"id": REPO_ID, "full_name": REPO, "fork": false, "default_branch": DEFAULT_BRANCH},
            "sender": {"login": "octocat", "type": "User"},
        })
    }

    /// The id of the newest run (the last one dispatched or made).
    pub fn last_run_id(&self) -> u64 {
        self.state.lock().unwrap().runs.last().expect("a run").id
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    pub fn dispatch_count(&self) -> usize {
        self.state.lock().unwrap().dispatches.len()
    }

    pub fn blob_authorizations(&self) -> Vec<String> {
        self.state.lock().unwrap().blob_authorizations.clone()
    }
}

fn unauthorized() -> Answer {
    Answer::json(401, serde_json::json!({"message": "Bad credentials"}))
}

/// `GET /rate_limit` as GitHub documents it: `resources` with `core`, `graphql` and other
/// buckets, each `{limit, used, remaining, reset}` (epoch seconds), and the deprecated `rate`.
fn rate_limit_json(state: &State) -> serde_json::Value {
    let reset = epoch_s() + 3600;
    let bucket = |limit: u64, remaining: u64| serde_json::json!({"limit": limit, "used": limit.saturating_sub(remaining), "remaining": remaining, "reset": reset});
    let core = bucket(state.remaining.max(5000), state.remaining);
    let mut answer = serde_json::json!({
        "resources": {
            "core": core,
            "search": bucket(30, 30),
            "graphql": bucket(5000, state.graphql_remaining),
            "integration_manifest": bucket(5000, 5000),
            "code_search": bucket(10, 10),
        },
        "rate": core,
    });
    if state.api_version == "2026-03-10" {
        // Removed in 2026-03-10: `resources.core` says the same.
        answer.as_object_mut().unwrap().remove("rate");
    }
    answer
}

/// The token is the fixed test token or an installation token still valid.
fn authorized(state: &State, request: &Request) -> bool {
    let Some(bearer) = request
        .header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    if state.app_public_key.is_some() {
        let now = epoch_s();
        return state
            .installation_tokens
            .iter()
            .any(|(t, exp)| t == bearer && *exp > now);
    }
    bearer == TOKEN
}

/// Verifies the App JWT (RS256, the App's public key, `iss` the App id).
fn verify_jwt(state: &mut State, request: &Request) -> bool {
    let (Some(key), Some(jwt)) = (
        state.app_public_key.clone(),
        request
            .header("authorization")
            .and_then(|v| v.strip_prefix("Bearer ")),
    ) else {
        return false;
    };
    let Ok(key) = jsonwebtoken::DecodingKey::from_rsa_pem(&key) else {
        return false;
    };
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_issuer(&[state.app_id.as_str()]);
    validation.set_required_spec_claims(&["exp", "iat", "iss"]);
    let ok = jsonwebtoken::decode::<serde_json::Value>(jwt, &key, &validation).is_ok();
    if ok {
        state.jwts_verified += 1;
    }
    ok
}

fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", &deferral_core::digest::sha256_hex(body)[..16])
}

/// A list answer with an ETag; 304 when the client already has it.
fn listed(request: &Request, value: serde_json::Value) -> Answer {
    let body = value.to_string().into_bytes();
    let etag = etag_of(&body);
    if request.header("if-none-match") == Some(etag.as_str()) {
        return Answer {
            status: 304,
            headers: vec![("ETag".into(), etag)],
            body: Vec::new(),
        };
    }
    Answer {
        status: 200,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("ETag".into(), etag),
        ],
        body,
    }
}

/// A repository as a run names it (GitHub's `minimal-repository`, the fields the host reads).
fn repository_json(fork: bool) -> serde_json::Value {
    let (id, full_name) = if fork {
        (FORK_ID, FORK)
    } else {
        (REPO_ID, REPO)
    };
    serde_json::json!({"id": id, "full_name": full_name, "fork": fork})
}

fn run_json(run: &Run, api: &str) -> serde_json::Value {
    let status = match (run.status_null, run.completed) {
        (true, _) => serde_json::Value::Null,
        (false, true) => serde_json::json!("completed"),
        (false, false) => serde_json::json!("in_progress"),
    };
    serde_json::json!({
        "id": run.id,
        "run_attempt": 1,
        "name": "Resume",
        "display_title": run.display_title,
        "event": run.origin.event,
        "path": run.origin.path,
        "head_branch": run.origin.head_branch,
        "head_sha": "0123456789abcdef0123456789abcdef01234567",
        "repository": repository_json(false),
        "head_repository": repository_json(run.origin.fork),
        "status": status,
        "conclusion": if run.completed && !run.status_null { serde_json::json!(run.conclusion) } else { serde_json::Value::Null },
        "html_url": format!("https://github.example/{REPO}/actions/runs/{}", run.id),
        "url": format!("{api}/repos/{REPO}/actions/runs/{}", run.id),
        "created_at": run.created_at,
    })
}

fn artifact_json(a: &Artifact, state: &State, api: &str) -> serde_json::Value {
    let runs = &state.runs;
    let origin = runs
        .iter()
        .find(|r| r.id == a.run_id)
        .map(|r| r.origin.clone())
        .unwrap_or_else(Origin::schedule);
    let head_repository_id = if origin.fork { FORK_ID } else { REPO_ID };
    let workflow_run = if state.bare_artifact_runs {
        serde_json::json!({"id": a.run_id})
    } else {
        serde_json::json!({"id": a.run_id, "repository_id": REPO_ID, "head_repository_id": head_repository_id,
                           "head_branch": origin.head_branch, "head_sha": "0123456789abcdef0123456789abcdef01234567"})
    };
    serde_json::json!({
        "id": a.id,
        "name": a.name,
        "size_in_bytes": a.zip.len(),
        "expired": a.expired,
        "created_at": a.created_at,
        "archive_download_url": format!("{api}/repos/{REPO}/actions/artifacts/{}/zip", a.id),
        "digest": a.digest.clone().unwrap_or_else(|| format!("sha256:{}", deferral_core::digest::sha256_hex(&a.zip))),
        "workflow_run": workflow_run,
    })
}

fn query(path: &str) -> BTreeMap<String, String> {
    path.split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn api_answer(state: &mut State, request: &Request, api: &str, blob: &str) -> Answer {
    let path = request.path.as_str();
    let route = path.split('?').next().unwrap_or_default();
    let q = query(path);
    if request.header("x-github-api-version") != Some(state.api_version.as_str()) {
        return Answer::json(
            400,
            serde_json::json!({"message": format!("this stand-in speaks API version {}, not {:?}",
                state.api_version, request.header("x-github-api-version"))}),
        );
    }
    let new_version = state.api_version == "2026-03-10";
    // App endpoints: authenticated by the JWT.
    if route == format!("/repos/{REPO}/installation") {
        if !verify_jwt(state, request) {
            return unauthorized();
        }
        return Answer::json(200, serde_json::json!({"id": 7, "app_id": state.app_id}));
    }
    if route == "/app/hook/deliveries" && request.method == "GET" {
        if !verify_jwt(state, request) {
            return unauthorized();
        }
        return Answer::json(200, serde_json::Value::Array(state.hook_deliveries.clone()));
    }
    if let Some(id) = route
        .strip_prefix("/app/hook/deliveries/")
        .and_then(|rest| rest.strip_suffix("/attempts"))
        .and_then(|id| id.parse::<u64>().ok())
        .filter(|_| request.method == "POST")
    {
        if !verify_jwt(state, request) {
            return unauthorized();
        }
        state.redelivered.push(id);
        return Answer::json(202, serde_json::json!({}));
    }
    if route == "/app/installations/7/access_tokens" && request.method == "POST" {
        if !verify_jwt(state, request) {
            return unauthorized();
        }
        if let Some((status, body)) = state.access_token_answer.clone() {
            return Answer::json(status, body);
        }
        let n = state.installation_tokens.len() + 1;
        let token = format!("test-installation-token-not-real-{n}");
        let expires = epoch_s() + state.token_lifetime_s;
        state.installation_tokens.push((token.clone(), expires));
        return Answer::json(
            201,
            serde_json::json!({"token": token, "expires_at": iso(expires)}),
        );
    }
    if !authorized(state, request) {
        return unauthorized();
    }
    if state.secondary_limit {
        state.secondary_limit = false;
        let mut answer = Answer::json(
            403,
            serde_json::json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}),
        );
        answer.headers.push(("retry-after".into(), "60".into()));
        return answer;
    }
    if route == "/rate_limit" && request.method == "GET" {
        if let Some((status, body)) = state.rate_limit_answer.clone() {
            return Answer::json(status, body);
        }
        if let Some((seconds, limit)) = state.rate_window {
            return Answer::json(200, super::gate::rate_window(seconds, limit));
        }
        return Answer::json(200, rate_limit_json(state));
    }
    let runs_prefix = format!("/repos/{REPO}/actions/runs/");
    if route == format!("/repos/{REPO}/check-runs") && request.method == "POST" {
        let (status, body) = state.checks.create(&request.body);
        return Answer::json(status, body);
    }
    if let Some(id) = route
        .strip_prefix(&format!("/repos/{REPO}/check-runs/"))
        .and_then(|id| id.parse::<u64>().ok())
        .filter(|_| request.method == "PATCH")
    {
        let (status, body) = state.checks.update(id, &request.body);
        return Answer::json(status, body);
    }
    if let Some(login) = route
        .strip_prefix(&format!("/repos/{REPO}/collaborators/"))
        .and_then(|rest| rest.strip_suffix("/permission"))
        .filter(|_| request.method == "GET")
    {
        let permission = state.permissions.get(login).cloned();
        let (status, body) = super::checks::permission_answer(login, permission.as_deref());
        return Answer::json(status, body);
    }
    if let Some(sha) = route
        .strip_prefix(&format!("/repos/{REPO}/statuses/"))
        .filter(|_| request.method == "POST")
    {
        let (status, body) = super::gate::status(&mut state.commit_statuses, sha, &request.body);
        return Answer::json(status, body);
    }
    if let Some(run_id) = route
        .strip_prefix(&runs_prefix)
        .and_then(|rest| rest.strip_suffix("/deployment_protection_rule"))
        .and_then(|id| id.parse::<u64>().ok())
        .filter(|_| request.method == "POST")
    {
        let (status, body) = super::gate::decide(&mut state.gate_decisions, run_id, &request.body);
        return match body {
            Some(body) => Answer::json(status, body),
            None => Answer {
                status,
                headers: Vec::new(),
                body: Vec::new(),
            },
        };
    }
    let workflow_prefix = format!("/repos/{REPO}/actions/workflows/{WORKFLOW}/");
    if route == format!("{workflow_prefix}dispatches") && request.method == "POST" {
        let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let script = state.scripts.front().cloned().unwrap_or_default();
        if (new_version || script.refuse_run_details) && body.get("return_run_details").is_some() {
            return Answer::json(
                422,
                serde_json::json!({"message": "Invalid request.\n\n\"return_run_details\" is not a permitted key."}),
            );
        }
        state.scripts.pop_front();
        state.next_id += 1;
        let run_id = state.next_id;
        let inputs = &body["inputs"];
        let title = script.display_title.clone().unwrap_or_else(|| {
            format!(
                "Resume {} #{}",
                inputs["deferral_id"].as_str().unwrap_or_default(),
                inputs["attempt"].as_str().unwrap_or_default()
            )
        });
        state.runs.push(Run {
            id: run_id,
            origin: Origin {
                event: "workflow_dispatch",
                path: format!(".github/workflows/{WORKFLOW}"),
                head_branch: DEFAULT_BRANCH.into(),
                fork: false,
            },
            status_null: script.status_null,
            display_title: title,
            polls_left: script.polls_in_progress,
            conclusion: script.conclusion,
            completed: false,
            created_at: iso(epoch_s()),
        });
        if script.artifact.is_some() || script.artifact_zip.is_some() {
            state.next_id += 1;
            let id = state.next_id;
            let zip = script
                .artifact_zip
                .clone()
                .unwrap_or_else(|| zip_of(script.artifact.as_deref().unwrap_or_default()));
            state.artifacts.push(Artifact {
                id,
                name: "deferred-receipt".into(),
                run_id,
                expired: script.artifact_expired,
                zip,
                digest: script.artifact_digest.clone(),
                created_at: iso(epoch_s()),
            });
        }
        state.dispatches.push(body);
        // 2026-03-10: the dispatch always answers 200 with the run.
        if !new_version && (script.answer_204 || script.refuse_run_details) {
            return Answer {
                status: 204,
                headers: Vec::new(),
                body: Vec::new(),
            };
        }
        return Answer::json(
            200,
            serde_json::json!({
                "workflow_run_id": run_id,
                "run_url": format!("{api}/repos/{REPO}/actions/runs/{run_id}"),
                "html_url": format!("https://github.example/{REPO}/actions/runs/{run_id}"),
            }),
        );
    }
    if route == format!("{workflow_prefix}runs") {
        // Each list call is a moment passing: runs in progress move on.
        for run in state
            .runs
            .iter_mut()
            .filter(|r| !r.completed && !r.status_null)
        {
            if run.polls_left == 0 {
                run.completed = true;
            } else {
                run.polls_left -= 1;
            }
        }
        let completed_only = q.get("status").map(String::as_str) == Some("completed");
        let per_page: usize = q.get("per_page").and_then(|p| p.parse().ok()).unwrap_or(30);
        let all: Vec<serde_json::Value> = state
            .runs
            .iter()
            .rev()
            .filter(|r| {
                r.origin.event == "workflow_dispatch"
                    && r.origin.path.ends_with(WORKFLOW)
                    && (!completed_only || (r.completed && !r.status_null))
            })
            .map(|r| run_json(r, api))
            .collect();
        // The first page only, newest first, as GitHub pages it.
        let page: Vec<serde_json::Value> = all.iter().take(per_page.min(100)).cloned().collect();
        return listed(
            request,
            serde_json::json!({"total_count": all.len(), "workflow_runs": page}),
        );
    }
    if route == format!("/repos/{REPO}") {
        return listed(
            request,
            serde_json::json!({"id": REPO_ID, "full_name": REPO, "fork": false, "default_branch": DEFAULT_BRANCH}),
        );
    }
    if route == format!("/repos/{REPO}/actions/runs") {
        // The repository's runs of every workflow, newest first, the first page only.
        let per_page: usize = q.get("per_page").and_then(|p| p.parse().ok()).unwrap_or(30);
        let page: Vec<serde_json::Value> = state
            .runs
            .iter()
            .rev()
            .take(per_page.min(100))
            .map(|r| run_json(r, api))
            .collect();
        return listed(
            request,
            serde_json::json!({"total_count": state.runs.len(), "workflow_runs": page}),
        );
    }
    if let Some(rest) = route.strip_prefix(&runs_prefix) {
        let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let id: u64 = id.parse().unwrap_or(0);
        let Some(run) = state.runs.iter().find(|r| r.id == id) else {
            return Answer::json(404, serde_json::json!({"message": "Not Found"}));
        };
        if tail.is_empty() {
            return Answer::json(200, run_json(run, api));
        }
        if tail == "artifacts" {
            let name = q.get("name").cloned();
            let list: Vec<serde_json::Value> = state
                .artifacts
                .iter()
                .filter(|a| a.run_id == id && name.as_ref().is_none_or(|n| &a.name == n))
                .map(|a| artifact_json(a, state, api))
                .collect();
            return Answer::json(
                200,
                serde_json::json!({"total_count": list.len(), "artifacts": list}),
            );
        }
    }
    if route == format!("/repos/{REPO}/actions/artifacts") {
        let name = q.get("name").cloned();
        let list: Vec<serde_json::Value> = state
            .artifacts
            .iter()
            .rev()
            .filter(|a| name.as_ref().is_none_or(|n| &a.name == n))
            .map(|a| artifact_json(a, state, api))
            .collect();
        return listed(
            request,
            serde_json::json!({"total_count": list.len(), "artifacts": list}),
        );
    }
    if let Some(rest) = route.strip_prefix(&format!("/repos/{REPO}/actions/artifacts/")) {
        if let Some(id) = rest
            .strip_suffix("/zip")
            .and_then(|id| id.parse::<u64>().ok())
        {
            return match state.artifacts.iter().find(|a| a.id == id) {
                Some(a) if a.expired => {
                    Answer::json(410, serde_json::json!({"message": "Artifact has expired"}))
                }
                Some(_) => Answer {
                    status: 302,
                    headers: vec![(
                        "Location".into(),
                        format!("{blob}/blob/{id}?sig=test-signature-not-real"),
                    )],
                    body: Vec::new(),
                },
                None => Answer::json(404, serde_json::json!({"message": "Not Found"})),
            };
        }
    }
    Answer::json(
        404,
        serde_json::json!({"message": "Not Found", "path": path}),
    )
}
