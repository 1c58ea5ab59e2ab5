//! Reads the rate headers of any GitHub response: `x-ratelimit-*`, `retry-after` and `date`.

use super::time::parse_http_date;
use super::RateWindow;
use serde::{Deserialize, Serialize};

/// What one response's headers say. Every field is optional because GitHub omits them on some
/// responses; a value that does not parse is treated as absent rather than guessed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderObservation {
    /// `x-ratelimit-resource` (`core`, `graphql`, `search`, ...).
    pub resource: Option<String>,
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    pub used: Option<u64>,
    /// `x-ratelimit-reset`, epoch seconds.
    pub reset: Option<u64>,
    /// `retry-after` in seconds (an HTTP-date value is converted against `date`).
    pub retry_after_s: Option<u64>,
    /// `retry-after` given as an HTTP-date in an answer without `date`: the instant itself,
    /// epoch milliseconds, to be measured against the local clock
    /// ([`HeaderObservation::retry_after_s_at`]).
    #[serde(default)]
    pub retry_after_at_ms: Option<u64>,
    /// `date`, epoch milliseconds (server clock, one-second resolution).
    pub date_ms: Option<u64>,
}

impl HeaderObservation {
    /// As JSON: the same value as `serde_json::to_value(self)`, written out so the wasm build does not carry
    /// serde's struct serializer into `Value` for this type (tests/to_value.rs checks they agree).
    pub fn to_value(&self) -> serde_json::Value {
        crate::json::object(vec![
            ("resource", self.resource.clone().into()),
            ("limit", self.limit.into()),
            ("remaining", self.remaining.into()),
            ("used", self.used.into()),
            ("reset", self.reset.into()),
            ("retry_after_s", self.retry_after_s.into()),
            ("retry_after_at_ms", self.retry_after_at_ms.into()),
            ("date_ms", self.date_ms.into()),
        ])
    }

    /// The resource and window the headers describe, when the resource is named (by
    /// `x-ratelimit-resource`, or by the request path [`super::classify_at`] was given) and limit,
    /// remaining and reset are all present. An unnamed bucket is no window: a search answer
    /// without its resource header must not be recorded as `core`.
    pub fn window(&self) -> Option<(String, RateWindow)> {
        let window = RateWindow {
            limit: self.limit?,
            remaining: self.remaining?,
            used: self.used,
            reset: self.reset?,
        };
        Some((self.resource.clone()?, window))
    }

    /// Seconds to wait from `local_now_ms`: `retry-after` in seconds, or an HTTP-date without
    /// `date` compared with the local clock (rounded up; a date in the past is 0).
    pub fn retry_after_s_at(&self, local_now_ms: u64) -> Option<u64> {
        self.retry_after_s.or_else(|| {
            self.retry_after_at_ms
                .map(|at| at.saturating_sub(local_now_ms).div_ceil(1000))
        })
    }

    /// `true` when the answer carries a `retry-after` in either form.
    pub fn has_retry_after(&self) -> bool {
        self.retry_after_s.is_some() || self.retry_after_at_ms.is_some()
    }

    /// Server clock minus local clock, from `date`: add it to a local time to get server time,
    /// subtract it from a server time (a reset) to get local time.
    pub fn clock_offset_ms(&self, local_now_ms: u64) -> Option<i64> {
        self.date_ms
            .map(|server| server as i64 - local_now_ms as i64)
    }
}

fn integer(value: &str) -> Option<u64> {
    let value = value.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

/// Reads the rate headers from `(name, value)` pairs. Names match case-insensitively (HTTP/2
/// lower-cases them, HTTP/1.1 servers may not); the first occurrence of a name wins.
pub fn parse_headers<K: AsRef<str>, V: AsRef<str>>(headers: &[(K, V)]) -> HeaderObservation {
    let get = |wanted: &str| {
        headers
            .iter()
            .find(|(k, _)| k.as_ref().trim().eq_ignore_ascii_case(wanted))
            .map(|(_, v)| v.as_ref())
    };
    let date_ms = get("date").and_then(parse_http_date);
    // RFC 9110 allows seconds or an HTTP-date; GitHub sends seconds. A date is measured against
    // the server's own `date` when there is one; without it, the instant is kept for the caller
    // to compare with its local clock.
    let retry_after = get("retry-after");
    let retry_after_date = retry_after
        .filter(|v| integer(v).is_none())
        .and_then(parse_http_date);
    let retry_after_s = retry_after.and_then(integer).or_else(|| {
        let at = retry_after_date?;
        Some(at.saturating_sub(date_ms?).div_ceil(1000))
    });
    let retry_after_at_ms = retry_after_date.filter(|_| date_ms.is_none());
    HeaderObservation {
        resource: get("x-ratelimit-resource")
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty()),
        limit: get("x-ratelimit-limit").and_then(integer),
        remaining: get("x-ratelimit-remaining").and_then(integer),
        used: get("x-ratelimit-used").and_then(integer),
        reset: get("x-ratelimit-reset").and_then(integer),
        retry_after_s,
        retry_after_at_ms,
        date_ms,
    }
}
