//! Reads what GitHub says about rate limits: the `GET /rate_limit` body, the `x-ratelimit-*`,
//! `retry-after` and `date` headers, the GraphQL `rateLimit` object, and what kind of limit (if
//! any) a response reports.
//!
//! Everything here is tolerant of what GitHub adds or drops over time (buckets come and go) and
//! strict about what it relies on: a bucket with a negative or fractional count is an error,
//! not a guess.

mod classify;
mod graphql;
mod headers;
mod rate_limit;
mod response_text;
pub mod time;

pub use classify::{
    classify, classify_at, resource_for_path, Classification, Classified, DEFAULT_PRIMARY_WINDOW_S,
};
pub use graphql::{parse_graphql_rate_limit, GraphqlRateLimit};
pub use headers::{parse_headers, HeaderObservation};
pub use rate_limit::{
    is_unlimited_answer, parse_rate_limit_body, parse_rate_limit_response, RateSnapshot,
};
pub use response_text::{looks_like_response, parse_response_text, SavedResponse};

use deferral_protocol::Resource;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The bucket GitHub charges REST requests (other than search) to.
pub const REST_RESOURCE: &str = Resource::Rest.bucket();
/// The bucket GitHub charges GraphQL points to.
pub const GRAPHQL_RESOURCE: &str = Resource::Graphql.bucket();

/// One rate-limit window of one resource, as GitHub reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateWindow {
    pub limit: u64,
    pub remaining: u64,
    /// Absent in some inputs (e.g. hand-written rate state); derived as `limit - remaining`.
    #[serde(default)]
    pub used: Option<u64>,
    /// End of the window, epoch seconds (server clock).
    pub reset: u64,
}

impl RateWindow {
    /// As JSON: the same value as `serde_json::to_value(self)`, written out so the wasm build does not carry
    /// serde's struct serializer into `Value` for this type (tests/to_value.rs checks they agree).
    pub fn to_value(&self) -> serde_json::Value {
        crate::json::object(vec![
            ("limit", self.limit.into()),
            ("remaining", self.remaining.into()),
            ("used", self.used.into()),
            ("reset", self.reset.into()),
        ])
    }
}

/// What kind of signal could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalErrorKind {
    /// The body is not JSON.
    MalformedJson,
    /// The JSON does not have the documented shape.
    UnexpectedShape,
    /// A count or time is negative, fractional or not a number.
    InvalidNumber,
    /// A timestamp is neither ISO 8601 nor epoch seconds.
    InvalidTime,
}

impl SignalErrorKind {
    /// Stable machine code.
    pub fn code(self) -> &'static str {
        match self {
            SignalErrorKind::MalformedJson => "malformed-json",
            SignalErrorKind::UnexpectedShape => "unexpected-shape",
            SignalErrorKind::InvalidNumber => "invalid-number",
            SignalErrorKind::InvalidTime => "invalid-time",
        }
    }
}

/// A rate signal that could not be read, with the JSON path of the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalError {
    pub kind: SignalErrorKind,
    pub path: String,
}

impl SignalError {
    pub(crate) fn new(kind: SignalErrorKind, path: impl Into<String>) -> Self {
        SignalError {
            kind,
            path: path.into(),
        }
    }

    /// Stable machine code.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl fmt::Display for SignalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            SignalErrorKind::MalformedJson => "the rate signal is not valid json",
            SignalErrorKind::UnexpectedShape => {
                "the rate signal does not have the documented shape"
            }
            SignalErrorKind::InvalidNumber => "a rate count is not a non-negative integer",
            SignalErrorKind::InvalidTime => {
                "a rate timestamp is neither iso 8601 nor epoch seconds"
            }
        };
        write!(f, "{what} (at {})", self.path)
    }
}

impl std::error::Error for SignalError {}

/// Reads a non-negative integer that fits in u64 (GitHub never sends fractions for counts).
pub(crate) fn count(value: &serde_json::Value, path: &str) -> Result<u64, SignalError> {
    value
        .as_u64()
        .ok_or_else(|| SignalError::new(SignalErrorKind::InvalidNumber, path))
}
