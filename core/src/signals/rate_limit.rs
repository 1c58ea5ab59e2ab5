//! Reads the `GET /rate_limit` response: every bucket under `resources`, whatever its name.

use super::{count, RateWindow, SignalError, SignalErrorKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The rate state of every resource GitHub reported, or "unlimited" (GitHub Enterprise Server
/// with rate limiting disabled).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateSnapshot {
    /// `true` when the server does not rate-limit at all; `resources` is then empty.
    #[serde(default)]
    pub unlimited: bool,
    /// Bucket name (`core`, `graphql`, `search`, ...) to its window.
    #[serde(default)]
    pub resources: BTreeMap<String, RateWindow>,
}

impl RateSnapshot {
    /// As JSON: the same value as `serde_json::to_value(self)`, written out so the wasm build does not carry
    /// serde's struct serializer into `Value` for this type (tests/to_value.rs checks they agree).
    pub fn to_value(&self) -> Value {
        let mut resources = serde_json::Map::new();
        for (name, window) in &self.resources {
            resources.insert(name.clone(), window.to_value());
        }
        crate::json::object(vec![
            ("unlimited", self.unlimited.into()),
            ("resources", resources.into()),
        ])
    }

    /// The snapshot of a server without rate limits.
    pub fn unlimited() -> Self {
        RateSnapshot {
            unlimited: true,
            resources: BTreeMap::new(),
        }
    }
}

/// Reads a `GET /rate_limit` 200 body.
///
/// Unknown buckets are kept (they cost nothing and may matter later) and skipped if their shape
/// is not the usual one, because GitHub adds and reshapes buckets without notice; `core` and
/// `graphql`, which decisions rest on, must be well formed. A missing `graphql` is simply
/// absent; the deprecated top-level `rate` (a copy of `core`) is ignored.
pub fn parse_rate_limit_body(body: &str) -> Result<RateSnapshot, SignalError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|_| SignalError::new(SignalErrorKind::MalformedJson, "$"))?;
    let resources = value
        .get("resources")
        .and_then(Value::as_object)
        .ok_or_else(|| SignalError::new(SignalErrorKind::UnexpectedShape, "$.resources"))?;
    let mut snapshot = RateSnapshot::default();
    for (name, bucket) in resources {
        let path = format!("$.resources.{name}");
        match parse_window(bucket, &path) {
            Ok(window) => {
                snapshot.resources.insert(name.clone(), window);
            }
            Err(error) if name == super::REST_RESOURCE || name == super::GRAPHQL_RESOURCE => {
                return Err(error)
            }
            Err(_) => {}
        }
    }
    Ok(snapshot)
}

/// How GitHub Enterprise Server says it does not rate-limit, lower-cased: "Rate limiting is not
/// enabled." (404), and the legacy "No rate limit for white listed users" (404 or 200).
const UNLIMITED_PHRASES: [&str; 2] = [
    "rate limiting is not enabled",
    "no rate limit for white listed users",
];

/// `true` when a 404 or 200 answer says the server does not rate-limit: its message (or, when it
/// is not JSON, its text) holds one of GitHub Enterprise Server's phrases, and it carries no
/// `resources` (a real `/rate_limit` body is never read as unlimited).
pub fn is_unlimited_answer(status: u16, body: &str) -> bool {
    if status != 200 && status != 404 {
        return false;
    }
    let json: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if json.get("resources").is_some() {
        return false;
    }
    let text = match json.get("message").and_then(Value::as_str) {
        Some(message) => message.to_ascii_lowercase(),
        None if json.is_null() => body.to_ascii_lowercase(),
        None => return false,
    };
    UNLIMITED_PHRASES.iter().any(|p| text.contains(p))
}

/// Reads a `GET /rate_limit` response of any status: an answer saying the server does not
/// rate-limit ([`is_unlimited_answer`]) is [`RateSnapshot::unlimited`], any other 200 is parsed,
/// anything else is an error.
pub fn parse_rate_limit_response(status: u16, body: &str) -> Result<RateSnapshot, SignalError> {
    if is_unlimited_answer(status, body) {
        return Ok(RateSnapshot::unlimited());
    }
    match status {
        200 => parse_rate_limit_body(body),
        _ => Err(SignalError::new(SignalErrorKind::UnexpectedShape, "$")),
    }
}

/// Reads one `{limit, used, remaining, reset}` bucket; `used` may be absent in older servers.
pub(crate) fn parse_window(bucket: &Value, path: &str) -> Result<RateWindow, SignalError> {
    if !bucket.is_object() {
        return Err(SignalError::new(SignalErrorKind::UnexpectedShape, path));
    }
    let field = |name: &str| -> Result<u64, SignalError> {
        let at = format!("{path}.{name}");
        let value = bucket
            .get(name)
            .ok_or_else(|| SignalError::new(SignalErrorKind::UnexpectedShape, &at))?;
        count(value, &at)
    };
    let used = match bucket.get("used") {
        Some(v) => Some(count(v, &format!("{path}.used"))?),
        None => None,
    };
    Ok(RateWindow {
        limit: field("limit")?,
        remaining: field("remaining")?,
        used,
        reset: field("reset")?,
    })
}
