//! Says what kind of rate limit, if any, one GitHub response reports, following GitHub's
//! documented reactions: primary limits wait for the reset, secondary limits wait for
//! `retry-after` or at least a minute.

use super::headers::{parse_headers, HeaderObservation};
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

/// A classified response: the kind and the headers it was judged by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Classified {
    pub kind: Classification,
    pub headers: HeaderObservation,
}

/// Phrases GitHub uses in secondary-limit messages, current and older, lower-cased.
const SECONDARY_PHRASES: [&str; 3] = [
    "secondary rate limit",
    "abuse detection",
    "content creation",
];

/// The `message` of a JSON error body, else the whole text: a message is what GitHub words its
/// limits in, and looking only there keeps unrelated body content from matching.
fn message_text(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    match parsed
        .as_ref()
        .and_then(|v| v.get("message"))
        .and_then(Value::as_str)
    {
        Some(message) => message.to_ascii_lowercase(),
        None => body.to_ascii_lowercase(),
    }
}

/// `true` when a GraphQL body carries an error of type `RATE_LIMITED`.
fn graphql_rate_limited(body: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return false;
    };
    value
        .get("errors")
        .and_then(Value::as_array)
        .is_some_and(|errors| {
            errors
                .iter()
                .any(|e| e.get("type").and_then(Value::as_str) == Some("RATE_LIMITED"))
        })
}

/// Classifies one response from its status, `(name, value)` headers and body text.
///
/// Order matters where signals overlap: an explicit secondary-limit message wins over
/// `x-ratelimit-remaining: 0` (GitHub's wording is the stronger evidence), and `remaining: 0`
/// wins over a bare `retry-after` (the reset is then the documented resume time).
pub fn classify<K: AsRef<str>, V: AsRef<str>>(
    status: u16,
    headers: &[(K, V)],
    body: &str,
) -> Classified {
    let observed = parse_headers(headers);
    let kind = match status {
        404 if body
            .to_ascii_lowercase()
            .contains("rate limiting is not enabled") =>
        {
            Classification::Unlimited
        }
        200 if graphql_rate_limited(body) => Classification::PrimaryGraphql,
        403 | 429 => {
            let message = message_text(body);
            if SECONDARY_PHRASES.iter().any(|p| message.contains(p)) {
                Classification::Secondary
            } else if observed.remaining == Some(0) || message.contains("api rate limit exceeded") {
                // GitHub's primary-limit message also identifies a primary limit when a proxy
                // has stripped the headers.
                if observed.resource.as_deref() == Some(super::GRAPHQL_RESOURCE) {
                    Classification::PrimaryGraphql
                } else {
                    Classification::PrimaryRest
                }
            } else if observed.retry_after_s.is_some() {
                Classification::Secondary
            } else {
                Classification::NotRateLimited
            }
        }
        _ => Classification::NotRateLimited,
    };
    Classified {
        kind,
        headers: observed,
    }
}
