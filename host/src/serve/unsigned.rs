//! The webhook route up to its signature check. It takes no token, so until a body's
//! signature is checked the request is anyone's, and it is kept from what token holders need:
//!
//! * what can be refused from the head is refused before anything is kept: a method but POST
//!   (405), a `Content-Length` over the webhook's limit (413), a body that is not
//!   `application/json` (415, saying to choose it in the webhook's settings);
//! * webhook requests handled at once are a share of the connection cap
//!   ([`super::Limits::webhook_connections`]); past it, 503 `busy`. A refused request counts as
//!   idle, so it is shed for a newcomer like any connection without the token;
//! * a body must keep a minimum pace: [`PACE_ALLOWANCE`] plus its length at [`MIN_PACE`], and
//!   within the request deadline; a body that misses it gets 408 and the connection closes;
//! * the signature (an HMAC over up to the limit) is checked on a blocking thread, [`VERIFIERS`]
//!   at once, never on the runtime's threads that serve token holders' requests.
//!
//! So the bodies held before their signature is checked are at most the share times the
//! limit (64 MiB by default), and token holders keep the rest of the cap.

use super::app::App;
use super::http::{BodyLimits, Response};
use crate::webhook::Intake;
use hyper::header::{HeaderMap, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::http::request::Parts;
use std::time::Duration;
use tokio::sync::SemaphorePermit;
use tokio::time::Instant;

/// Webhook requests handled at once by default (with the default cap of 256: a quarter).
pub const DEFAULT_CONNECTIONS: usize = 64;
/// The largest webhook body read by default. GitHub caps a payload at 25 MB, but the
/// deliveries the host takes are far smaller: a `workflow_run` delivery is 20-40 KB (its run,
/// repository and sender objects), so 1 MiB leaves room for 25 times the largest seen.
pub const DEFAULT_MAX_BODY: usize = 1 << 20;
/// The time every body has, whatever its length.
pub const PACE_ALLOWANCE: Duration = Duration::from_secs(1);
/// The slowest a body may arrive after [`PACE_ALLOWANCE`], in bytes a second.
pub const MIN_PACE: u64 = 128 * 1024;
/// Signatures checked at once: each is CPU work over up to the limit's bytes, so a flood of
/// signed-looking bodies takes at most these threads' time.
pub const VERIFIERS: usize = 2;

/// The default share of `max_connections`: a quarter, at most [`DEFAULT_CONNECTIONS`], at
/// least one.
pub fn default_connections(max_connections: usize) -> usize {
    (max_connections / 4).clamp(1, DEFAULT_CONNECTIONS)
}

/// `bytes` as the docs and the 413 say it: `1 MiB`, `512 KiB`, or bytes.
pub fn said(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// What a webhook request is refused with before its body, or its turn among the webhook's
/// share of connections (held until it is answered).
pub fn admit<'a>(app: &'a App, parts: &Parts) -> Result<SemaphorePermit<'a>, Response> {
    if parts.method != hyper::Method::POST {
        return Err(
            Response::error(405, "method-not-allowed", "this endpoint answers POST only")
                .with_header("Allow", "POST"),
        );
    }
    let max = app.limits.webhook_max_body;
    if length(&parts.headers).is_some_and(|length| length > max) {
        return Err(Response::error(
            413,
            "body-too-large",
            &format!(
                "webhook deliveries are limited to {} (--webhook-max-body-bytes)",
                said(max)
            ),
        ));
    }
    check_type(&parts.headers)?;
    app.unsigned.try_acquire().map_err(|_| {
        Response::error(
            503,
            "busy",
            "the webhook is receiving as many deliveries as it takes at once; try again shortly",
        )
        .with_header("Retry-After", "1")
    })
}

/// `Content-Type` must be `application/json` (parameters allowed): GitHub sends a form
/// (`payload=...`) when the webhook is set to `application/x-www-form-urlencoded`.
fn check_type(headers: &HeaderMap) -> Result<(), Response> {
    let media = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim)
        .unwrap_or_default();
    if media.eq_ignore_ascii_case("application/json") {
        return Ok(());
    }
    let message = if media.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        "this delivery is form-encoded (application/x-www-form-urlencoded): in the webhook's settings on GitHub, choose application/json as its content type"
    } else {
        "a delivery must be sent as application/json: in the webhook's settings on GitHub, choose application/json as its content type"
    };
    Err(Response::error(415, "unsupported-media-type", message))
}

fn length(headers: &HeaderMap) -> Option<usize> {
    headers
        .get(CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// `limits` with the body's own deadline: [`PACE_ALLOWANCE`] plus its `Content-Length` at
/// [`MIN_PACE`] from now, or the request deadline if that comes first.
pub fn paced<S>(limits: BodyLimits<S>, headers: &HeaderMap) -> BodyLimits<S> {
    let bytes = length(headers).unwrap_or(0) as u64;
    let pace = PACE_ALLOWANCE + Duration::from_millis(bytes.saturating_mul(1000) / MIN_PACE);
    BodyLimits {
        deadline: limits.deadline.min(Instant::now() + pace),
        ..limits
    }
}

/// Whether `header` signs `body` with one of the intake's secrets, checked on a blocking thread
/// when one of the [`VERIFIERS`] turns is free; answers the body back.
pub async fn verify(
    app: &App,
    intake: &Intake,
    header: Option<&str>,
    body: Vec<u8>,
) -> (bool, Vec<u8>) {
    let Ok(_turn) = app.verifying.acquire().await else {
        return (false, body);
    };
    let (intake, header) = (intake.clone(), header.map(str::to_string));
    tokio::task::spawn_blocking(move || (intake.verify(header.as_deref(), &body), body))
        .await
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_said_in_their_largest_whole_unit() {
        assert_eq!(said(1 << 20), "1 MiB");
        assert_eq!(said(4 << 20), "4 MiB");
        assert_eq!(said(1536 << 10), "1536 KiB");
        assert_eq!(said(1000), "1000 bytes");
    }

    #[test]
    fn the_default_share_is_a_quarter_of_the_cap_within_bounds() {
        assert_eq!(default_connections(256), 64);
        assert_eq!(default_connections(1024), 64);
        assert_eq!(default_connections(16), 4);
        assert_eq!(default_connections(2), 1);
    }

    #[test]
    fn a_form_is_told_to_choose_json_and_json_with_a_charset_passes() {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            "application/json; charset=utf-8".parse().unwrap(),
        );
        assert!(check_type(&headers).is_ok());
        headers.insert(
            CONTENT_TYPE,
            "application/x-www-form-urlencoded".parse().unwrap(),
        );
        let refused = check_type(&headers).unwrap_err();
        assert_eq!(refused.status, 415);
        assert!(refused.body.contains("choose application/json"));
        headers.remove(CONTENT_TYPE);
        assert_eq!(check_type(&headers).unwrap_err().status, 415);
    }
}
