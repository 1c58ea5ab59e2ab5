//! Says what kind of rate limit, if any, one GitHub response reports, following GitHub's
//! documented reactions: primary limits wait for the reset, secondary limits wait for
//! `retry-after` or at least a minute.

use super::headers::{parse_headers, HeaderObservation};
use super::rate_limit::{is_unlimited_answer, parse_rate_limit_body, RateSnapshot};
use super::RateWindow;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of limit a response reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Classification {
    /// The REST primary limit (any non-GraphQL bucket) is exhausted; resume at its reset.
    PrimaryRest,
    /// The GraphQL point budget is exhausted (or smaller than the query's cost).
    PrimaryGraphql,
    /// A secondary (abuse, concurrency, content-creation) limit; resume after `retry-after`.
    Secondary,
    /// The server does not rate-limit at all (GitHub Enterprise Server, limits disabled).
    Unlimited,
    /// Not a rate limit (success, or an unrelated error).
    NotRateLimited,
}

impl Classification {
    /// The stable kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::PrimaryRest => "primary-rest",
            Classification::PrimaryGraphql => "primary-graphql",
            Classification::Secondary => "secondary",
            Classification::Unlimited => "unlimited",
            Classification::NotRateLimited => "not-rate-limited",
        }
    }
}

/// A classified response: the kind, the headers it was judged by, and, for a `GET /rate_limit`
/// answer, every bucket of its body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Classified {
    pub kind: Classification,
    pub headers: HeaderObservation,
    /// The buckets of a `GET /rate_limit` 200 answer; `None` for any other answer.
    #[serde(default)]
    pub snapshot: Option<RateSnapshot>,
}

/// Phrases GitHub uses in secondary-limit messages, current and older, lower-cased.
const SECONDARY_PHRASES: [&str; 3] = [
    "secondary rate limit",
    "abuse detection",
    "content creation",
];

/// Phrases of GitHub's primary-limit messages (REST and the newer GraphQL wording), lower-cased.
const PRIMARY_PHRASES: [&str; 2] = ["api rate limit exceeded", "api rate limit already exceeded"];

/// GraphQL error `type`s that mean the point budget is spent (older and newer spelling).
const GRAPHQL_LIMIT_TYPES: [&str; 2] = ["RATE_LIMITED", "RATE_LIMIT"];

/// The `message` of a JSON error body, else the whole text: a message is what GitHub words its
/// limits in, and looking only there keeps unrelated body content from matching.
fn message_text(body: &Value, text: &str) -> String {
    match body.get("message").and_then(Value::as_str) {
        Some(message) => message.to_ascii_lowercase(),
        None => text.to_ascii_lowercase(),
    }
}

/// `true` when a GraphQL body carries a rate-limit error: type `RATE_LIMITED` or `RATE_LIMIT`,
/// code `graphql_rate_limit`, or GitHub's primary-limit wording in the error's message.
fn graphql_rate_limited(body: &Value) -> bool {
    let Some(errors) = body.get("errors").and_then(Value::as_array) else {
        return false;
    };
    errors.iter().any(|e| {
        let field = |name: &str| e.get(name).and_then(Value::as_str);
        field("type").is_some_and(|t| GRAPHQL_LIMIT_TYPES.contains(&t))
            || field("code") == Some("graphql_rate_limit")
            || field("message").is_some_and(|m| {
                let m = m.to_ascii_lowercase();
                PRIMARY_PHRASES.iter().any(|p| m.contains(p))
            })
    })
}

/// The bucket a request to `path` counts against, for answers without `x-ratelimit-resource`.
/// `path` may be a whole URL and may carry a query; GitHub Enterprise Server's `/api/v3` and
/// `/api/graphql` prefixes are understood.
pub fn resource_for_path(path: &str) -> &'static str {
    let without_scheme = path.split_once("://").map_or(path, |(_, rest)| {
        rest.find('/').map_or("/", |slash| &rest[slash..])
    });
    let bare = without_scheme
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .trim_end_matches('/');
    let rest = bare.strip_prefix("/api/v3").unwrap_or(bare);
    if rest == "/graphql" || rest == "/api/graphql" {
        super::GRAPHQL_RESOURCE
    } else if rest == "/search/code" || rest.starts_with("/search/code/") {
        "code_search"
    } else if rest.starts_with("/search/") {
        "search"
    } else {
        super::REST_RESOURCE
    }
}

/// `true` when `path` names the `GET /rate_limit` endpoint.
fn is_rate_limit_path(path: &str) -> bool {
    let bare = path.split(['?', '#']).next().unwrap_or_default();
    bare.trim_end_matches('/').ends_with("/rate_limit")
}

/// Classifies one response from its status, `(name, value)` headers and body text, with no
/// request path known (see [`classify_at`]).
pub fn classify<K: AsRef<str>, V: AsRef<str>>(
    status: u16,
    headers: &[(K, V)],
    body: &str,
) -> Classified {
    classify_at(None, status, headers, body)
}

/// Classifies one response to a request for `path` (when known).
///
/// Order matters where signals overlap: an explicit secondary-limit message wins over
/// `x-ratelimit-remaining: 0` (GitHub's wording is the stronger evidence), and `remaining: 0`
/// wins over a bare `retry-after` (the reset is then the documented resume time).
///
/// A 401's `x-ratelimit-*` headers describe the anonymous per-IP bucket, not the token's quota:
/// they are dropped, so nothing records them as a window. An answer without
/// `x-ratelimit-resource` is attributed by `path` ([`resource_for_path`]).
pub fn classify_at<K: AsRef<str>, V: AsRef<str>>(
    path: Option<&str>,
    status: u16,
    headers: &[(K, V)],
    body: &str,
) -> Classified {
    let mut observed = parse_headers(headers);
    if status == 401 {
        observed.resource = None;
        observed.limit = None;
        observed.remaining = None;
        observed.used = None;
        observed.reset = None;
    } else if observed.resource.is_none() {
        observed.resource = path.map(|p| resource_for_path(p).to_string());
    }
    let json: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let kind = match status {
        200 | 404 if is_unlimited_answer(status, body) => Classification::Unlimited,
        200 if graphql_rate_limited(&json) => Classification::PrimaryGraphql,
        403 | 429 => {
            let message = message_text(&json, body);
            if SECONDARY_PHRASES.iter().any(|p| message.contains(p)) {
                Classification::Secondary
            } else if graphql_rate_limited(&json) {
                Classification::PrimaryGraphql
            } else if observed.remaining == Some(0)
                || PRIMARY_PHRASES.iter().any(|p| message.contains(p))
            {
                // GitHub's primary-limit message also identifies a primary limit when a proxy
                // has stripped the headers.
                if observed.resource.as_deref() == Some(super::GRAPHQL_RESOURCE) {
                    Classification::PrimaryGraphql
                } else {
                    Classification::PrimaryRest
                }
            } else if observed.has_retry_after() {
                Classification::Secondary
            } else {
                Classification::NotRateLimited
            }
        }
        _ => Classification::NotRateLimited,
    };
    let snapshot = rate_limit_snapshot(path, status, &json, body);
    Classified {
        kind,
        headers: observed,
        snapshot,
    }
}

/// How long a primary limit holds when its answer gives no usable reset (none, or one already
/// past on the server clock): one hour, the length of GitHub's primary windows.
pub const DEFAULT_PRIMARY_WINDOW_S: u64 = 3_600;

impl Classified {
    /// `true` for a primary limit (REST, search or GraphQL).
    pub fn is_primary(&self) -> bool {
        matches!(
            self.kind,
            Classification::PrimaryRest | Classification::PrimaryGraphql
        )
    }

    /// The window to record for this answer at `server_now_s` (epoch seconds, server clock).
    ///
    /// Any answer: its headers' window ([`HeaderObservation::window`]). A primary limit: the
    /// headers' remaining (0 when absent) until their reset when that is later than now; with
    /// no reset, or one already past, the bucket is spent (remaining 0) for
    /// [`DEFAULT_PRIMARY_WINDOW_S`] from now. Its bucket is `graphql` for a
    /// GraphQL limit, else the named resource (`x-ratelimit-resource`, or the request's path),
    /// else `core`: GitHub's own documented 403 names no bucket, and a primary limit that names
    /// none is still a spent bucket, never nothing (issue 26); its limit is
    /// `x-ratelimit-limit`, else `x-ratelimit-used` (all of it is used), else `known_limit` of
    /// the bucket (what was seen before); without any, nothing is recorded.
    pub fn window(
        &self,
        server_now_s: u64,
        known_limit: impl Fn(&str) -> Option<u64>,
    ) -> Option<(String, RateWindow)> {
        if !self.is_primary() {
            return self.headers.window();
        }
        let resource = if self.kind == Classification::PrimaryGraphql {
            super::GRAPHQL_RESOURCE.to_string()
        } else {
            self.headers
                .resource
                .clone()
                .unwrap_or_else(|| super::REST_RESOURCE.to_string())
        };
        let limit = self
            .headers
            .limit
            .or(self.headers.used)
            .or_else(|| known_limit(&resource))?;
        let window = match self.headers.reset {
            // GraphQL refuses a query that costs more than what is left: its remaining stands.
            Some(reset) if reset > server_now_s => RateWindow {
                limit,
                remaining: self.headers.remaining.unwrap_or(0).min(limit),
                used: self.headers.used,
                reset,
            },
            _ => RateWindow {
                limit,
                remaining: 0,
                used: Some(limit),
                reset: server_now_s.saturating_add(DEFAULT_PRIMARY_WINDOW_S),
            },
        };
        Some((resource, window))
    }
}

/// The buckets of a `GET /rate_limit` 200 answer: known by its path, or without one by its
/// shape (`resources` and the deprecated top-level `rate`, which only that endpoint answers).
fn rate_limit_snapshot(
    path: Option<&str>,
    status: u16,
    json: &Value,
    body: &str,
) -> Option<RateSnapshot> {
    if status != 200 {
        return None;
    }
    let looks_like = json.get("resources").is_some_and(Value::is_object)
        && json.get("rate").is_some_and(Value::is_object);
    if !path.map_or(looks_like, is_rate_limit_path) {
        return None;
    }
    parse_rate_limit_body(body).ok()
}
