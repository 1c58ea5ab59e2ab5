//! Reads the GraphQL `rateLimit { cost limit nodeCount remaining resetAt used }` object.

use super::time::parse_iso8601;
use super::{count, RateWindow, SignalError, SignalErrorKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// GraphQL's own report of its primary limit. Only `limit`, `remaining` and `resetAt` are
/// required; the other fields are present only when the query asked for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphqlRateLimit {
    pub cost: Option<u64>,
    pub limit: u64,
    pub node_count: Option<u64>,
    pub remaining: u64,
    /// `resetAt`, converted to epoch seconds.
    pub reset: u64,
    pub used: Option<u64>,
}

impl GraphqlRateLimit {
    /// The `graphql` window this report describes.
    pub fn window(&self) -> RateWindow {
        RateWindow {
            limit: self.limit,
            remaining: self.remaining,
            used: self.used,
            reset: self.reset,
        }
    }
}

/// Reads a `rateLimit` object, given either the object itself or a whole GraphQL response
/// (`{"data": {"rateLimit": {...}}}`). `resetAt` may be ISO 8601 text or epoch seconds (as a
/// number or a string of digits).
pub fn parse_graphql_rate_limit(value: &Value) -> Result<GraphqlRateLimit, SignalError> {
    let (object, path) = match value.pointer("/data/rateLimit") {
        Some(inner) => (inner, "$.data.rateLimit"),
        None => (value, "$"),
    };
    if !object.is_object() {
        return Err(SignalError::new(SignalErrorKind::UnexpectedShape, path));
    }
    let required = |name: &str| -> Result<&Value, SignalError> {
        object.get(name).ok_or_else(|| {
            SignalError::new(SignalErrorKind::UnexpectedShape, format!("{path}.{name}"))
        })
    };
    let optional = |name: &str| -> Result<Option<u64>, SignalError> {
        match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => count(v, &format!("{path}.{name}")).map(Some),
        }
    };
    let reset_path = format!("{path}.resetAt");
    let reset = reset_seconds(required("resetAt")?)
        .ok_or_else(|| SignalError::new(SignalErrorKind::InvalidTime, reset_path))?;
    Ok(GraphqlRateLimit {
        cost: optional("cost")?,
        limit: count(required("limit")?, &format!("{path}.limit"))?,
        node_count: optional("nodeCount")?,
        remaining: count(required("remaining")?, &format!("{path}.remaining"))?,
        reset,
        used: optional("used")?,
    })
}

fn reset_seconds(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse().ok()
        }
        // Round a fractional reset up: resuming a moment late is safe, early is not.
        Value::String(text) => parse_iso8601(text).map(|ms| ms.div_ceil(1000)),
        _ => None,
    }
}
