//! Reads the `GET /rate_limit` response: every bucket under `resources`, whatever its name.

use super::{count, SignalError, SignalErrorKind, Window};
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
    pub resources: BTreeMap<String, Window>,
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

/// Reads a `GET /rate_limit` response of any status: 200 is parsed, a 404 whose message says
/// "Rate limiting is not enabled" is [`RateSnapshot::unlimited`], anything else is an error.
pub fn parse_rate_limit_response(status: u16, body: &str) -> Result<RateSnapshot, SignalError> {
    match status {
        200 => parse_rate_limit_body(body),
        404 if body
            .to_ascii_lowercase()
            .contains("rate limiting is not enabled") =>
        {
            Ok(RateSnapshot::unlimited())
        }
        _ => Err(SignalError::new(SignalErrorKind::UnexpectedShape, "$")),
    }
}

/// Reads one `{limit, used, remaining, reset}` bucket; `used` may be absent in older servers.
pub(crate) fn parse_window(bucket: &Value, path: &str) -> Result<Window, SignalError> {
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
    Ok(Window {
        limit: field("limit")?,
        remaining: field("remaining")?,
        used,
        reset: field("reset")?,
    })
}
