//! What one `GET /rate_limit` answer tells an attempt, whether it came live (status, headers,
//! body) or from a saved file (a body, or a whole answer as `gh api -i rate_limit` saves it).
//!
//! This is the only place that turns that answer into rate state or into a coded failure:
//! credential problems are [`Exit::Auth`], transport and provider failures [`Exit::Provider`],
//! never guessed into a deferral.

use crate::exit::Exit;
use crate::ledger::Observation;
use crate::observe::{answer_of, error_value};
use crate::signals::{
    classify_at, is_unlimited_answer, looks_like_response, parse_rate_limit_body,
    parse_rate_limit_response, parse_response_text, Classification, RateSnapshot, SignalError,
};
use serde_json::{json, Value};
use std::fmt;

/// Where the answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// One live request made by this attempt.
    Live,
    /// A file saved earlier (`--rate-state`): its `date` says nothing about this clock.
    File,
}

/// What the attempt learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateRead {
    /// The buckets; `None` only when `/rate_limit` itself answered with a secondary limit.
    pub snapshot: Option<RateSnapshot>,
    /// Everything to record into the ledger, in order.
    pub observations: Vec<Observation>,
    /// Server clock minus local clock, from a live answer's `date`.
    pub clock_offset_ms: Option<i64>,
    /// Set when `/rate_limit` answered with a secondary limit: its `retry-after`, if any.
    pub secondary: Option<Option<u64>>,
}

/// Why no rate state could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RateReadError {
    /// 401: the token is missing, expired or revoked.
    BadCredentials,
    /// 403 that is not a rate limit.
    Forbidden,
    /// 404 other than an answer saying the server does not rate-limit.
    NotFound,
    /// Any other status.
    ProviderError { status: u16 },
    /// A primary limit without the headers that say which bucket and how large it is.
    RateLimitedWithoutReset { status: u16 },
    /// A live 200 whose body cannot be read.
    Unreadable { status: u16, error: SignalError },
    /// A saved file that is neither a `/rate_limit` body nor a saved answer.
    InvalidFile { detail: String, path: String },
}

impl RateReadError {
    /// Every code this module answers, for tests that walk them.
    pub const CODES: [&'static str; 7] = [
        "bad-credentials",
        "forbidden",
        "not-found",
        "provider-error",
        "rate-limited-without-reset",
        "unreadable-rate-state",
        "invalid-rate-state",
    ];

    /// Stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            RateReadError::BadCredentials => "bad-credentials",
            RateReadError::Forbidden => "forbidden",
            RateReadError::NotFound => "not-found",
            RateReadError::ProviderError { .. } => "provider-error",
            RateReadError::RateLimitedWithoutReset { .. } => "rate-limited-without-reset",
            RateReadError::Unreadable { .. } => "unreadable-rate-state",
            RateReadError::InvalidFile { .. } => "invalid-rate-state",
        }
    }

    /// The exit class the attempt ends with.
    pub fn exit(&self) -> Exit {
        match self {
            RateReadError::BadCredentials | RateReadError::Forbidden => Exit::Auth,
            RateReadError::InvalidFile { .. } => Exit::Invalid,
            _ => Exit::Provider,
        }
    }

    /// JSON path of the offending value, where one applies.
    pub fn path(&self) -> &str {
        match self {
            RateReadError::Unreadable { error, .. } => &error.path,
            RateReadError::InvalidFile { path, .. } => path,
            _ => "$",
        }
    }
}

impl fmt::Display for RateReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateReadError::BadCredentials => f.write_str(
                "GitHub refused the token (401): it is missing, expired or revoked; check the token input (or GITHUB_TOKEN/GH_TOKEN)",
            ),
            RateReadError::Forbidden => f.write_str(
                "GitHub refused access (403, not a rate limit): the token lacks permission or is blocked by an IP allow list or SSO enforcement",
            ),
            RateReadError::NotFound => f.write_str(
                "GET /rate_limit answered 404: check GITHUB_API_URL (GitHub Enterprise Server uses https://HOST/api/v3)",
            ),
            RateReadError::ProviderError { status } => {
                write!(f, "GET /rate_limit answered HTTP {status}; no decision was made")
            }
            RateReadError::RateLimitedWithoutReset { status } => write!(
                f,
                "GET /rate_limit answered {status} (rate limited) without the x-ratelimit-limit or x-ratelimit-used header needed to record its window"
            ),
            RateReadError::Unreadable { status, error } => write!(
                f,
                "GET /rate_limit answered {status} with a body Deferral cannot read: {error}"
            ),
            RateReadError::InvalidFile { detail, .. } => write!(
                f,
                "the rate state file is not a GET /rate_limit answer ({detail}); expected its JSON body (gh api rate_limit > FILE) or the whole answer with headers (gh api -i rate_limit > FILE, or curl -i)"
            ),
        }
    }
}

impl std::error::Error for RateReadError {}

/// Reads one answer of `GET /rate_limit` received at `now_ms` (host clock).
///
/// # Errors
/// A [`RateReadError`] when the answer holds no usable rate state.
pub fn read_response(
    source: Source,
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_ms: u64,
) -> Result<RateRead, RateReadError> {
    let classified = classify_at(Some("/rate_limit"), status, headers, body);
    let clock_offset_ms = match source {
        Source::Live => classified.headers.clock_offset_ms(now_ms),
        Source::File => None,
    };
    let mut read = RateRead {
        snapshot: None,
        observations: Vec::new(),
        clock_offset_ms,
        secondary: None,
    };
    if let Some(offset_ms) = clock_offset_ms {
        read.observations.push(Observation::Clock {
            offset_ms,
            observed_at_ms: now_ms,
        });
    }
    if status == 200 || classified.kind == Classification::Unlimited {
        let snapshot = parse_rate_limit_response(status, body).map_err(|error| match source {
            Source::Live => RateReadError::Unreadable { status, error },
            Source::File => RateReadError::InvalidFile {
                detail: error.to_string(),
                path: error.path.clone(),
            },
        })?;
        read.set_snapshot(snapshot, now_ms);
        return Ok(read);
    }
    match classified.kind {
        Classification::Secondary => {
            let retry_after_s = classified.headers.retry_after_s_at(now_ms);
            read.secondary = Some(retry_after_s);
            read.observations.push(Observation::Strike {
                at_ms: now_ms,
                retry_after_s,
            });
            Ok(read)
        }
        Classification::PrimaryRest | Classification::PrimaryGraphql => {
            // /rate_limit does not count against the primary limit, but if a proxy or server
            // answers as if it did, its headers still describe the exhausted window.
            // Without a reset in the future, the default window (an hour from the answer).
            let server_now_ms = classified
                .headers
                .date_ms
                .unwrap_or_else(|| now_ms.saturating_add_signed(clock_offset_ms.unwrap_or(0)));
            let Some((resource, window)) = classified.window(server_now_ms / 1000, |_| None) else {
                return Err(RateReadError::RateLimitedWithoutReset { status });
            };
            let mut snapshot = RateSnapshot::default();
            snapshot.resources.insert(resource, window);
            read.set_snapshot(snapshot, now_ms);
            Ok(read)
        }
        _ => Err(match status {
            401 => RateReadError::BadCredentials,
            403 => RateReadError::Forbidden,
            404 => RateReadError::NotFound,
            _ => RateReadError::ProviderError { status },
        }),
    }
}

/// Reads a saved rate state: a `/rate_limit` JSON body, a saved Enterprise Server answer that
/// it does not rate-limit ("Rate limiting is not enabled", "No rate limit for white listed
/// users"), or a whole answer with its status line and headers.
///
/// # Errors
/// [`RateReadError::InvalidFile`] saying what was expected, or the error the saved answer
/// itself carries (a saved 401 is `bad-credentials`).
pub fn read_file(bytes: &[u8], now_ms: u64) -> Result<RateRead, RateReadError> {
    let invalid = |detail: &str| RateReadError::InvalidFile {
        detail: detail.to_string(),
        path: "$".to_string(),
    };
    let text = std::str::from_utf8(bytes).map_err(|_| invalid("it is not UTF-8 text"))?;
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if looks_like_response(text) {
        let saved = parse_response_text(text).ok_or_else(|| invalid("unreadable status line"))?;
        return read_response(
            Source::File,
            saved.status,
            &saved.headers,
            &saved.body,
            now_ms,
        );
    }
    if text.is_empty() {
        return Err(invalid("it is empty"));
    }
    if is_unlimited_answer(404, text) {
        return read_response(Source::File, 404, &[], text, now_ms);
    }
    let snapshot = parse_rate_limit_body(text).map_err(|error| RateReadError::InvalidFile {
        detail: error.to_string(),
        path: error.path.clone(),
    })?;
    let mut read = RateRead {
        snapshot: None,
        observations: Vec::new(),
        clock_offset_ms: None,
        secondary: None,
    };
    read.set_snapshot(snapshot, now_ms);
    Ok(read)
}

impl RateRead {
    fn set_snapshot(&mut self, snapshot: RateSnapshot, now_ms: u64) {
        for (resource, window) in &snapshot.resources {
            self.observations.push(Observation::Window {
                resource: resource.clone(),
                window: *window,
                observed_at_ms: now_ms,
            });
        }
        self.snapshot = Some(snapshot);
    }
}

impl RateRead {
    /// As JSON: `{"ok":true,"snapshot","observations","clock_offset_ms","secondary"}`.
    pub fn to_value(&self) -> Value {
        let observations: Vec<Value> = self
            .observations
            .iter()
            .map(|o| serde_json::to_value(o).unwrap_or(Value::Null))
            .collect();
        json!({
            "ok": true,
            "snapshot": self.snapshot.as_ref().map(RateSnapshot::to_value),
            "observations": observations,
            "clock_offset_ms": self.clock_offset_ms,
            "secondary": self.secondary.map(|retry_after_s| json!({"retry_after_s": retry_after_s})),
        })
    }
}

impl RateReadError {
    /// As JSON: `{"ok":false,"error":{code,path,message},"exit":N}`.
    pub fn to_value(&self) -> Value {
        let mut out = error_value(self.code(), self.path(), &self.to_string());
        out["exit"] = json!(self.exit().code());
        out
    }
}

/// [`read_response`] or [`read_file`] over JSON text: `{"source":"live","status","headers",
/// "body","now_ms"}` or `{"source":"file","text","now_ms"}`.
pub fn read_json(input: &str) -> String {
    let value = match serde_json::from_str::<Value>(input) {
        Ok(v) => read_value(&v),
        Err(e) => error_value("invalid-json", "$", &format!("the input is not JSON: {e}")),
    };
    serde_json::to_string(&value).unwrap_or_default()
}

fn read_value(v: &Value) -> Value {
    let now = v["now_ms"].as_u64().unwrap_or(0);
    let read = if v["source"] == "file" {
        let text = v["text"].as_str().unwrap_or_default();
        read_file(text.as_bytes(), now)
    } else {
        match answer_of(v) {
            Ok((status, headers, body)) => {
                read_response(Source::Live, status, &headers, &body, now)
            }
            Err(e) => return e,
        }
    };
    match read {
        Ok(r) => r.to_value(),
        Err(e) => e.to_value(),
    }
}
