//! The HTTP layer under the GitHub client, on `ureq` (synchronous, rustls): one agent for one
//! API base, the request and its bounded answer, and what a failure means. It knows nothing of
//! credentials, quota or ETags ([`super::client`] adds those), so GitHub App authentication
//! ([`super::app`]) can make its own calls on it.
//!
//! * TLS trusts the system's certificate store (a GitHub Enterprise Server with a private CA)
//!   as well as Mozilla's bundled roots.
//! * `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` and `NO_PROXY` are honoured like the Action does.
//! * Redirects are never followed by `ureq` (the client follows them itself).
//! * Every body read is bounded.
//! * It tells failures before anything was sent (safe to try again) from failures after, and
//!   remembers the first time GitHub could not be reached at all ([`Transport::unreachable`]).

use std::cell::RefCell;
use std::time::Duration;
use ureq::http;

/// `X-GitHub-Api-Version` of every request unless `--github-api-version` names another.
pub const API_VERSION: &str = "2022-11-28";
use super::api_version::ApiVersion;
/// Largest JSON answer read (a page of 100 runs is well under this).
pub const MAX_JSON_BYTES: u64 = 8 << 20;

/// One answer: status, headers (names lower-case) and the bounded body.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Result<serde_json::Value, CallError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            CallError::AfterSend(format!("HTTP {}: the answer is not JSON: {e}", self.status))
        })
    }

    /// GitHub's `message` field, or the start of the body.
    pub fn message(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| {
                v.get("message")
                    .and_then(|m| m.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| text.chars().take(200).collect())
    }
}

/// Why a call did not produce an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// Nothing reached the server (name lookup, connect, TLS handshake, proxy refused).
    NotSent(String),
    /// The request was (at least partly) sent, then the exchange failed.
    AfterSend(String),
    /// The host stopped calling GitHub for this pass: the reserve is reached or a secondary
    /// limit is in force. Nothing was sent.
    QuotaStop(String),
    /// The answer's body is larger than the bound for its kind; it was not read further.
    TooLarge(String),
}

impl CallError {
    pub fn message(&self) -> &str {
        match self {
            CallError::NotSent(m)
            | CallError::AfterSend(m)
            | CallError::QuotaStop(m)
            | CallError::TooLarge(m) => m,
        }
    }
}

/// One agent for one API base, and whether the API could be reached in this pass.
pub struct Transport {
    agent: ureq::Agent,
    /// The API base without a trailing slash (`https://api.github.com`, `https://ghe/api/v3`).
    api: String,
    /// Why nothing could be sent to the API in this pass, once that happened.
    unreachable: RefCell<Option<String>>,
    /// `X-GitHub-Api-Version` of every request.
    version: ApiVersion,
}

/// ureq's own name lookup, with a failed lookup reported as `HostNotFound` (ureq passes the
/// system resolver's error on as plain I/O, which could not be told from a failure after the
/// request was sent): a name that does not resolve certainly received nothing.
#[derive(Debug, Default)]
struct LookupResolver(ureq::unversioned::resolver::DefaultResolver);

impl ureq::unversioned::resolver::Resolver for LookupResolver {
    fn resolve(
        &self,
        uri: &http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        self.0
            .resolve(uri, config, timeout)
            .map_err(|err| match err {
                ureq::Error::Io(_) => ureq::Error::HostNotFound,
                other => other,
            })
    }
}

/// The trust roots: the system's certificates, then Mozilla's bundled ones.
fn root_certs() -> ureq::tls::RootCerts {
    let mut certs: Vec<ureq::tls::Certificate<'static>> = Vec::new();
    // Unreadable system certificates are skipped: the bundled roots still apply.
    for cert in rustls_native_certs::load_native_certs().certs {
        certs.push(ureq::tls::Certificate::from_der(cert.as_ref()).to_owned());
    }
    for cert in webpki_root_certs::TLS_SERVER_ROOT_CERTS {
        certs.push(ureq::tls::Certificate::from_der(cert.as_ref()).to_owned());
    }
    ureq::tls::RootCerts::new_with_certs(&certs)
}

/// The proxy the environment names (`ALL_PROXY`, `HTTPS_PROXY`, `HTTP_PROXY`, lower-case too),
/// with `NO_PROXY`'s exceptions; `None` when none is set. Called by `cli.rs` only.
pub fn proxy_from_env() -> Option<ureq::Proxy> {
    ureq::Proxy::try_from_env()
}

/// Validates an API base URL: `http(s)://host[:port][/path]`, no credentials.
pub fn parse_api_url(text: &str) -> Result<String, String> {
    let uri: http::Uri = text.parse().map_err(|_| format!("{text:?} is not a URL"))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        _ => return Err(format!("{text:?} is not an http:// or https:// URL")),
    }
    let authority = uri
        .authority()
        .ok_or_else(|| format!("{text:?} has no host"))?;
    if authority.as_str().contains('@') {
        return Err(format!("{text:?} must not carry credentials"));
    }
    if uri.query().is_some() {
        return Err(format!("{text:?} must not have a query"));
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// `scheme://authority` of a URL, lower-cased, with the default port made explicit.
pub(super) fn origin(uri: &http::Uri) -> Option<String> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Some(format!("{scheme}://{host}:{port}"))
}

impl Transport {
    /// A transport to `api_url` through `proxy` (the command line passes what
    /// `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` say, see [`proxy_from_env`]);
    /// `timeout` bounds each whole request.
    pub fn new(
        api_url: &str,
        timeout: Duration,
        proxy: Option<ureq::Proxy>,
    ) -> Result<Transport, String> {
        let api = parse_api_url(api_url)?;
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(root_certs())
            .build();
        let config = ureq::Agent::config_builder()
            .tls_config(tls)
            .proxy(proxy)
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .user_agent(concat!("deferral-host/", env!("CARGO_PKG_VERSION")))
            .build();
        let agent = ureq::Agent::with_parts(
            config,
            ureq::unversioned::transport::DefaultConnector::default(),
            LookupResolver::default(),
        );
        Ok(Transport {
            agent,
            api,
            unreachable: RefCell::new(None),
            version: ApiVersion::default(),
        })
    }

    /// The same transport speaking `version`.
    pub fn with_version(mut self, version: ApiVersion) -> Transport {
        self.version = version;
        self
    }

    pub fn version(&self) -> ApiVersion {
        self.version
    }

    pub fn api_url(&self) -> &str {
        &self.api
    }

    /// Why GitHub could not be reached in this pass, if it could not: a request to the API
    /// failed before any byte of it was written (name lookup, connect, TLS handshake, proxy),
    /// or the App's JWT could not be signed. Nothing else will get through either.
    pub fn unreachable(&self) -> Option<String> {
        self.unreachable.borrow().clone()
    }

    /// Records why nothing can be sent (the first cause is kept).
    /// Forgets that GitHub was unreachable (a new pass of `run`).
    pub(crate) fn new_pass(&self) {
        *self.unreachable.borrow_mut() = None;
    }

    pub(crate) fn note_unreachable(&self, why: &str) {
        self.unreachable
            .borrow_mut()
            .get_or_insert_with(|| why.to_string());
    }

    /// Sends one request to `path` on the API with `authorization`, the answer bounded to
    /// [`MAX_JSON_BYTES`] (the App's own JWT calls use this).
    pub fn call_with(
        &self,
        method: &str,
        path: &str,
        authorization: &str,
        body: Option<&[u8]>,
    ) -> Result<Reply, CallError> {
        let url = format!("{}{path}", self.api);
        self.send(method, &url, Some(authorization), &[], body, MAX_JSON_BYTES)
    }

    /// Whether `url` is on the API's origin (not blob storage).
    pub fn is_api(&self, url: &str) -> bool {
        let of = |u: &str| u.parse::<http::Uri>().ok().as_ref().and_then(origin);
        of(url).is_some_and(|o| Some(o) == of(&self.api))
    }

    /// One request to `url`, `Authorization` only when given, the body read up to `limit`.
    pub fn send(
        &self,
        method: &str,
        url: &str,
        authorization: Option<&str>,
        extra_headers: &[(&str, String)],
        body: Option<&[u8]>,
        limit: u64,
    ) -> Result<Reply, CallError> {
        let mut builder = http::Request::builder()
            .method(method)
            .uri(url)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", self.version.as_str());
        if let Some(value) = authorization {
            builder = builder.header("Authorization", value);
        }
        if body.is_some() {
            builder = builder.header("Content-Type", "application/json");
        }
        for (name, value) in extra_headers {
            builder = builder.header(*name, value.as_str());
        }
        let request = builder
            .body(body.unwrap_or_default().to_vec())
            .map_err(|e| CallError::NotSent(format!("cannot build the request: {e}")))?;
        let mut response = match self.agent.run(request) {
            Ok(response) => response,
            Err(err) => {
                // A bad URI or header concerns this request only; the other failures before
                // sending concern every request to this host.
                let this_request_only =
                    matches!(err, ureq::Error::BadUri(_) | ureq::Error::Http(_));
                let err = match err {
                    ureq::Error::HostNotFound => {
                        let host = url.parse::<http::Uri>().ok();
                        let host = host.as_ref().and_then(http::Uri::host).unwrap_or("?");
                        CallError::NotSent(format!("name lookup failed on the way to {host}"))
                    }
                    other => classify_error(other),
                };
                if let CallError::NotSent(why) = &err {
                    if !this_request_only && self.is_api(url) {
                        self.note_unreachable(why);
                    }
                }
                return Err(err);
            }
        };
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => CallError::TooLarge(format!(
                    "HTTP {status}: the answer is larger than {limit} bytes"
                )),
                other => CallError::AfterSend(format!("reading the answer failed: {other}")),
            })?;
        Ok(Reply {
            status,
            headers,
            body,
        })
    }
}

/// Which ureq failures certainly happened before any request byte was written.
fn classify_error(err: ureq::Error) -> CallError {
    use ureq::Error as E;
    let text = err.to_string();
    match err {
        E::HostNotFound
        | E::ConnectionFailed
        | E::BadUri(_)
        | E::Http(_)
        | E::InvalidProxyUrl
        | E::ConnectProxyFailed(_)
        | E::Tls(_)
        | E::Rustls(_)
        | E::RequireHttpsOnly(_)
        | E::TlsRequired => CallError::NotSent(text),
        E::Timeout(ureq::Timeout::Resolve | ureq::Timeout::Connect) => CallError::NotSent(text),
        // Kinds only a connect attempt returns (a send on a connected socket would be reset).
        E::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::HostUnreachable
                    | std::io::ErrorKind::NetworkUnreachable
                    | std::io::ErrorKind::AddrNotAvailable
            ) =>
        {
            CallError::NotSent(text)
        }
        E::Io(io) if is_handshake_failure(&io) => {
            CallError::NotSent(format!("TLS handshake failed: {text}"))
        }
        _ => CallError::AfterSend(text),
    }
}

/// A TLS error that only the handshake raises: the request, written after the handshake, was
/// never sent. (Any other I/O failure may come after the request went out.)
fn is_handshake_failure(io: &std::io::Error) -> bool {
    use rustls::Error as T;
    let Some(tls) = io.get_ref().and_then(|e| e.downcast_ref::<T>()) else {
        return false;
    };
    matches!(
        tls,
        T::InvalidCertificate(_)
            | T::InvalidMessage(_)
            | T::InappropriateHandshakeMessage { .. }
            | T::InappropriateMessage { .. }
            | T::PeerIncompatible(_)
            | T::NoCertificatesPresented
            | T::UnsupportedNameType
            | T::HandshakeNotComplete
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_urls() {
        assert_eq!(
            parse_api_url("https://api.github.com/").unwrap(),
            "https://api.github.com"
        );
        assert_eq!(
            parse_api_url("http://127.0.0.1:8080/api/v3/").unwrap(),
            "http://127.0.0.1:8080/api/v3"
        );
        assert!(parse_api_url("ftp://x").is_err());
        assert!(parse_api_url("http://user:pw@x").is_err());
    }

    #[test]
    fn origins_make_default_ports_explicit() {
        let a: http::Uri = "https://API.github.com/x".parse().unwrap();
        let b: http::Uri = "https://api.github.com:443/y".parse().unwrap();
        let c: http::Uri = "https://blob.example/y".parse().unwrap();
        assert_eq!(origin(&a), origin(&b));
        assert_ne!(origin(&a), origin(&c));
    }
}
