//! The host's client for GitHub's REST API, on [`super::transport`]: it adds the credentials
//! ([`Auth`]), the quota ([`Quota`]) and the count of calls by kind.
//!
//! * Redirects are followed by [`GithubClient::download`] itself, which sends `Authorization`
//!   only to the API's own origin (an artifact's 302 goes to blob storage on another host,
//!   which must never see the token).
//! * Every answer's rate headers go through [`Quota`].
//! * The first time GitHub could not be reached at all is remembered
//!   ([`GithubClient::unreachable`]): the ticker then claims no more dispatches in this pass.

use super::auth::Auth;
use super::quota::Quota;
use super::transport::{origin, Transport};
pub use super::transport::{
    parse_api_url, proxy_from_env, CallError, Reply, API_VERSION, MAX_JSON_BYTES,
};
use std::cell::RefCell;
use std::time::Duration;
use ureq::http;

pub const DEFAULT_API_URL: &str = "https://api.github.com";
/// Largest artifact zip downloaded (a receipt is a few hundred bytes).
pub const MAX_ARTIFACT_BYTES: u64 = 1 << 20;
const MAX_REDIRECTS: usize = 3;

/// A GitHub REST client: the transport, the credentials, the quota seen so far.
pub struct GithubClient {
    transport: Transport,
    auth: Auth,
    pub quota: RefCell<Quota>,
    calls: RefCell<CallLog>,
}

/// How many requests were made, by kind (for the report and the benchmarks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallLog {
    /// Requests answered with something other than 304.
    pub requests: u32,
    /// Requests answered 304 Not Modified (no primary quota spent).
    pub not_modified: u32,
    /// Requests to blob storage (not GitHub's API, no quota).
    pub blob: u32,
    /// Answers by request kind (`super::request_kind`) and HTTP status, for the metrics.
    pub by_kind: std::collections::BTreeMap<(&'static str, u16), u32>,
}

impl GithubClient {
    /// A client for `api_url` with `auth`, without a proxy; `timeout` bounds each whole request.
    pub fn new(
        api_url: &str,
        auth: Auth,
        timeout: Duration,
        quota: Quota,
    ) -> Result<GithubClient, String> {
        GithubClient::with_proxy(api_url, auth, timeout, quota, None)
    }

    /// A client that reaches GitHub through `proxy` (the command line passes what
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` say, see [`proxy_from_env`]).
    pub fn with_proxy(
        api_url: &str,
        auth: Auth,
        timeout: Duration,
        quota: Quota,
        proxy: Option<ureq::Proxy>,
    ) -> Result<GithubClient, String> {
        Ok(GithubClient {
            transport: Transport::new(api_url, timeout, proxy)?,
            auth,
            quota: RefCell::new(quota),
            calls: RefCell::new(CallLog::default()),
        })
    }

    pub fn api_url(&self) -> &str {
        self.transport.api_url()
    }

    /// The same client speaking API `version` (`--github-api-version`).
    pub fn with_api_version(mut self, version: super::api_version::ApiVersion) -> GithubClient {
        self.transport = self.transport.with_version(version);
        self
    }

    pub fn api_version(&self) -> super::api_version::ApiVersion {
        self.transport.version()
    }

    /// Starts another pass in a process that keeps its client (`run`): the quota may be
    /// spent again (the next answer says whether it is still at the reserve), GitHub is tried
    /// again if it was unreachable, and the calls are counted from zero. The App's tokens stay.
    pub fn new_pass(&self) {
        self.quota.borrow_mut().new_pass();
        self.transport.new_pass();
        *self.calls.borrow_mut() = CallLog::default();
    }

    pub fn calls(&self) -> CallLog {
        self.calls.borrow().clone()
    }

    /// Why GitHub could not be reached in this pass, if it could not: a request to the API
    /// failed before any byte of it was written (name lookup, connect, TLS handshake, proxy),
    /// or the App's JWT could not be signed. Nothing else will get through either.
    pub fn unreachable(&self) -> Option<String> {
        self.transport.unreachable()
    }

    /// Why no call should be made now, if none should: GitHub is [unreachable](Self::unreachable)
    /// in this pass, or the quota stopped the client. What a launcher that calls GitHub waits
    /// for.
    pub fn not_ready(&self) -> Option<String> {
        match self.unreachable() {
            Some(why) => Some(format!("github unreachable: {why}")),
            None => self
                .quota
                .borrow()
                .stopped()
                .map(|why| format!("github quota: {why}")),
        }
    }

    /// One API request to `path` (starting with `/`, may hold a query), with the credentials
    /// for `repo` (`owner/name`; an App exchanges its token per repository).
    pub fn call(
        &self,
        method: &str,
        path: &str,
        repo: Option<&str>,
        extra_headers: &[(&str, String)],
        body: Option<&[u8]>,
    ) -> Result<Reply, CallError> {
        self.quota.borrow().check()?;
        let authorization = self
            .auth
            .authorization(&self.transport, repo, &|kind, reply| {
                self.observe(reply);
                self.tally(kind, reply.status);
            })?;
        let url = format!("{}{path}", self.api_url());
        let reply = self.transport.send(
            method,
            &url,
            Some(&authorization),
            extra_headers,
            body,
            MAX_JSON_BYTES,
        )?;
        self.observe(&reply);
        self.tally(super::request_kind::of(method, path), reply.status);
        Ok(reply)
    }

    /// Whether the client authenticates as a GitHub App (so [`GithubClient::app_call`] works).
    pub fn is_app(&self) -> bool {
        matches!(self.auth, Auth::App(_))
    }

    /// One call as the App itself (its JWT, not an installation's token): `GET /app/...`.
    /// `NotSent` when the client is not an App.
    pub fn app_call(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> Result<Reply, CallError> {
        let Auth::App(app) = &self.auth else {
            return Err(CallError::NotSent(
                "only a GitHub App (--github-app-id) can make this call".into(),
            ));
        };
        let jwt = app.jwt()?;
        let reply = self
            .transport
            .call_with(method, path, &format!("Bearer {jwt}"), body)?;
        self.observe(&reply);
        self.tally(super::request_kind::of(method, path), reply.status);
        Ok(reply)
    }

    fn tally(&self, kind: &'static str, status: u16) {
        *self
            .calls
            .borrow_mut()
            .by_kind
            .entry((kind, status))
            .or_default() += 1;
    }

    fn observe(&self, reply: &Reply) {
        let mut calls = self.calls.borrow_mut();
        if reply.status == 304 {
            calls.not_modified += 1;
        } else {
            calls.requests += 1;
        }
        drop(calls);
        self.quota
            .borrow_mut()
            .observe(reply.status, &reply.headers, &reply.body);
    }

    /// Downloads `path` (an artifact's `/zip`), following up to three redirects itself: the
    /// `Authorization` header goes only to the API's origin, never to another host.
    pub fn download(&self, path: &str, repo: Option<&str>) -> Result<Reply, CallError> {
        self.quota.borrow().check()?;
        let authorization = self
            .auth
            .authorization(&self.transport, repo, &|kind, reply| {
                self.observe(reply);
                self.tally(kind, reply.status);
            })?;
        let api_origin = self
            .api_url()
            .parse::<http::Uri>()
            .ok()
            .as_ref()
            .and_then(origin);
        let mut url = format!("{}{path}", self.api_url());
        for hop in 0..=MAX_REDIRECTS {
            let uri: http::Uri = url
                .parse()
                .map_err(|_| CallError::AfterSend(format!("redirect to a bad URL {url:?}")))?;
            let same_origin = origin(&uri).is_some_and(|o| Some(o) == api_origin);
            let auth = same_origin.then_some(authorization.as_str());
            let reply = self
                .transport
                .send("GET", &url, auth, &[], None, MAX_ARTIFACT_BYTES)?;
            if same_origin {
                self.observe(&reply);
                self.tally(super::request_kind::of("GET", path), reply.status);
            } else {
                self.calls.borrow_mut().blob += 1;
                self.tally(super::request_kind::BLOB, reply.status);
            }
            if !matches!(reply.status, 301 | 302 | 303 | 307 | 308) {
                return Ok(reply);
            }
            let location = reply.header("location").ok_or_else(|| {
                CallError::AfterSend(format!("HTTP {} without a Location", reply.status))
            })?;
            if hop == MAX_REDIRECTS {
                break;
            }
            url = location.to_string();
        }
        Err(CallError::AfterSend(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }
}
