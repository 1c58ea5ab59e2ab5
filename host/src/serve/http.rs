//! The request and answer types the routes see (method, path, headers, body in; status, headers,
//! JSON body out), and their conversion from and to hyper's. hyper parses and frames HTTP/1.1;
//! this file adds what `serve` asks of a body: `Content-Length` only, at most 16 KiB (the
//! webhook's: its own limit), read before a deadline into one buffer of its length.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue, CONTENT_LENGTH, EXPECT, TRANSFER_ENCODING};
use std::time::Duration;
use tokio::time::Instant;

/// Request bodies larger than this are refused with 413 before they are read.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// The policy of every answer but the page: JSON is never a document that loads anything.
pub const API_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";
/// What is read and thrown away of a refused body, so the answer is not lost to a reset.
const DISCARD_BYTES: usize = 1 << 20;
const DISCARD_TIME: Duration = Duration::from_secs(1);

/// A request as the routes see it: head and the whole body.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path without the query string.
    pub path: String,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// A request head (no body yet) from hyper's parts; header values that are not text are kept
    /// lossily (no route reads them).
    pub fn from_parts(parts: &hyper::http::request::Parts) -> Request {
        Request {
            method: parts.method.as_str().to_string(),
            path: parts.uri.path().to_string(),
            headers: parts
                .headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: Vec::new(),
        }
    }

    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// An answer: a status, a JSON body, and any extra headers (`Allow`, `WWW-Authenticate`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(&'static str, String)>,
}

impl Response {
    pub fn json(status: u16, body: String) -> Response {
        Response {
            status,
            body,
            headers: Vec::new(),
        }
    }

    /// A typed answer written as its JSON.
    pub fn json_of<T: serde::Serialize>(status: u16, answer: &T) -> Response {
        match serde_json::to_string(answer) {
            Ok(body) => Response::json(status, body),
            Err(e) => Response::error(
                500,
                "backend",
                &format!("the answer could not be written: {e}"),
            ),
        }
    }

    /// A 200 HTML page (the status page), with a policy that lets it load nothing.
    pub fn html(body: String) -> Response {
        Response::json(200, body)
            .with_header("content-type", "text/html; charset=utf-8")
            .with_header(
                "content-security-policy",
                format!(
                    "{}; {}",
                    crate::html::CONTENT_SECURITY_POLICY,
                    crate::html::FRAME_ANCESTORS
                ),
            )
    }

    /// `{"error":{"code","message"}}` with `status`.
    pub fn error(status: u16, code: &str, message: &str) -> Response {
        let body = serde_json::json!({"error": {"code": code, "message": message}});
        Response::json(status, body.to_string())
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    /// hyper's form: the body with a final newline (friendly to curl), JSON and never cached
    /// unless the route set its own `Content-Type` or `Cache-Control`. Every answer tells a
    /// browser not to guess its type, not to send the page's address on, and (unless the route
    /// set its own policy) to load nothing for it and show it in no frame.
    pub fn into_hyper(self) -> hyper::Response<Full<Bytes>> {
        let mut body = self.body.into_bytes();
        body.push(b'\n');
        let mut out = hyper::Response::new(Full::new(Bytes::from(body)));
        *out.status_mut() = hyper::StatusCode::from_u16(self.status)
            .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
        let headers = out.headers_mut();
        for (name, value) in self.headers {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.append(name, value);
            }
        }
        headers
            .entry("content-type")
            .or_insert(HeaderValue::from_static("application/json"));
        headers
            .entry("cache-control")
            .or_insert(HeaderValue::from_static("no-store"));
        headers
            .entry("content-security-policy")
            .or_insert(HeaderValue::from_static(API_CONTENT_SECURITY_POLICY));
        headers.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
        // `frame-ancestors` for browsers that predate it.
        headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
        out
    }
}

/// Why a body could not be had; each is one error answer.
fn refuse(status: u16, code: &str, message: &str) -> Response {
    Response::error(status, code, message)
}

/// How long the body may take and what stops waiting for it early (server shutdown).
pub struct BodyLimits<S> {
    pub deadline: Instant,
    pub stopping: S,
}

/// Reads the body of an admitted request: `Content-Length` framing only (a POST without it is
/// 411, `Transfer-Encoding` is 501), at most [`MAX_BODY_BYTES`] (413), complete before the
/// deadline (408), or the server stops waiting (503).
pub async fn read_body<S: std::future::Future>(
    method: &str,
    headers: &HeaderMap,
    body: Incoming,
    limits: BodyLimits<S>,
) -> Result<Vec<u8>, Response> {
    read_body_up_to(method, headers, body, limits, MAX_BODY_BYTES, "16 KiB").await
}

/// [`read_body`] with another bound: `max` bytes, said as `said` in the 413 (the webhook's).
pub async fn read_body_up_to<S: std::future::Future>(
    method: &str,
    headers: &HeaderMap,
    body: Incoming,
    limits: BodyLimits<S>,
    max: usize,
    said: &str,
) -> Result<Vec<u8>, Response> {
    if headers.contains_key(TRANSFER_ENCODING) {
        return Err(refused_unread(
            headers,
            body,
            refuse(
                501,
                "unsupported-transfer-encoding",
                "send the body with Content-Length, not Transfer-Encoding",
            ),
        )
        .await);
    }
    // hyper has already refused (400) two different Content-Length values and merged equal ones.
    let length = match headers.get(CONTENT_LENGTH) {
        None if method == "POST" => {
            return Err(refuse(
                411,
                "length-required",
                "a POST needs Content-Length",
            ))
        }
        None => 0,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|text| text.trim().parse::<usize>().ok())
            .ok_or_else(|| refuse(400, "bad-request", "Content-Length is not a number"))?,
    };
    if length > max {
        let answer = refuse(
            413,
            "body-too-large",
            &format!("request bodies are limited to {said}"),
        );
        return Err(refused_unread(headers, body, answer).await);
    }
    tokio::select! {
        read = tokio::time::timeout_at(limits.deadline, collect(body, length)) => match read {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(refuse(400, "bad-request", "the body ended before its Content-Length")),
            // The rest of the body may still come: the connection cannot carry another request.
            Err(_) => Err(refuse(408, "timeout", "the request was not received in time")
                .with_header("Connection", "close")),
        },
        _ = limits.stopping => Err(stopping()),
    }
}

/// The body's `length` bytes, kept in one buffer of that size (hyper frames the body by its
/// `Content-Length`, so no more arrives); `None` if it ends short or fails.
async fn collect(mut body: Incoming, length: usize) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(length);
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.ok()?.into_data() {
            if bytes.len() + data.len() > length {
                return None;
            }
            bytes.extend_from_slice(&data);
        }
        // One frame a turn: many bodies arriving at once share the runtime's threads with
        // every other request instead of each taking a long run of reads.
        tokio::task::yield_now().await;
    }
    (bytes.len() == length).then_some(bytes)
}

/// The answer to a request that arrives while the server stops.
pub fn stopping() -> Response {
    refuse(503, "stopping", "the server is stopping; try again").with_header("Connection", "close")
}

/// Answers `answer` without using the body. A client that already sent it gets its bytes read
/// and dropped for a moment first: closing a socket with unread data makes the kernel send a
/// reset, and the client could lose the answer. A client that waits for `100 Continue` has sent
/// nothing and is answered at once. The connection closes after.
pub async fn refused_unread(headers: &HeaderMap, mut body: Incoming, answer: Response) -> Response {
    let waits = headers
        .get(EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let has_body = headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get(CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    if has_body && !waits {
        let discard = async {
            let mut seen = 0usize;
            while seen < DISCARD_BYTES {
                match body.frame().await {
                    Some(Ok(frame)) => seen += frame.data_ref().map_or(0, Bytes::len),
                    _ => break,
                }
                // One frame a turn, as in `collect`.
                tokio::task::yield_now().await;
            }
        };
        let _ = tokio::time::timeout(DISCARD_TIME, discard).await;
    }
    if has_body {
        answer.with_header("Connection", "close")
    } else {
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::Response;

    #[test]
    fn json_by_default_and_a_route_may_set_its_own_type() {
        let json = Response::json(200, "{}".into()).into_hyper();
        assert_eq!(json.headers()["content-type"], "application/json");
        assert_eq!(json.headers()["cache-control"], "no-store");
        let page = Response::json(200, "<p>".into())
            .with_header("Content-Type", "text/html; charset=utf-8")
            .into_hyper();
        let types: Vec<_> = page.headers().get_all("content-type").iter().collect();
        assert_eq!(types, ["text/html; charset=utf-8"]);
    }
}
