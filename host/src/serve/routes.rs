//! The endpoints of `serve`. Each one parses its JSON body and calls the operation
//! the command line calls, so the same lifecycle, compare-and-set and events apply.

mod admissions;
mod retry;

use super::http::{Request, Response};
use crate::clock::now_ms;
use crate::error::{HostError, HostErrorKind, EXIT_FAILURE, EXIT_INVALID};
use crate::lifecycle;
use crate::ops;
use crate::ops::record::{Allowed, Entry, Recorded};
use crate::ops::report::Reported;
use crate::pools::wire::refused;
use crate::store::Store;
use crate::view::deferral_with_run as with_run;
use deferral_protocol::answers::{ClaimAnswer, OutcomeAnswer};
use deferral_protocol::{CancelRequest, ClaimRequest, OutcomeKind, OutcomeRequest, RecordRequest};
use serde_json::value::RawValue;

/// What the server was told at start that the endpoints need.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Launch targets a request may name (`--allow-launch`: exact programs, never prefixes).
    pub launch_policy: crate::launch::LaunchPolicy,
    /// Check that a requested `exec:` program exists here (`serve --no-check` turns it off).
    pub check_programs: bool,
    /// How admission counts a window that reset (`serve --pool-buffer`, as `tick` has it).
    pub pools: crate::pools::PoolOptions,
}

/// A route known to the server, with the methods it answers.
enum Route<'a> {
    /// `/`: the status page (HTML) for people.
    Page,
    /// `/metrics`: Prometheus' text format (`crate::metrics::serve`).
    Metrics,
    Deferrals,
    Deferral(&'a str),
    /// `/v1/receipts/{digest}`: the deferral that recorded or was issued that receipt.
    Receipt(&'a str),
    Action(&'a str, &'a str),
    /// `/v1/pools`: each pool's state.
    Pools,
    /// `/v1/admissions`: a runner asks to admit its plan's cost.
    Admissions,
    /// `/v1/admissions/{seq}/release`.
    Release(&'a str),
    /// `/v1/github/webhook`: answered by `super::webhook` when configured, before the token.
    GithubWebhook,
}

fn route(path: &str) -> Option<Route<'_>> {
    if path == "/" {
        return Some(Route::Page);
    }
    if path == "/metrics" {
        return Some(Route::Metrics);
    }
    if path == "/v1/pools" {
        return Some(Route::Pools);
    }
    if path == crate::webhook::PATH {
        return Some(Route::GithubWebhook);
    }
    if path == "/v1/admissions" {
        return Some(Route::Admissions);
    }
    if let Some(rest) = path.strip_prefix("/v1/admissions/") {
        return match rest.split('/').collect::<Vec<_>>()[..] {
            [seq, "release"] if !seq.is_empty() => Some(Route::Release(seq)),
            _ => None,
        };
    }
    if let Some(digest) = path.strip_prefix("/v1/receipts/") {
        return (!digest.is_empty() && !digest.contains('/')).then_some(Route::Receipt(digest));
    }
    let rest = path.strip_prefix("/v1/deferrals")?;
    if rest.is_empty() {
        return Some(Route::Deferrals);
    }
    let rest = rest.strip_prefix('/')?;
    match rest.split('/').collect::<Vec<_>>()[..] {
        [id] if !id.is_empty() => Some(Route::Deferral(id)),
        [id, action @ ("cancel" | "claim" | "outcome" | "retry")] if !id.is_empty() => {
            Some(Route::Action(id, action))
        }
        _ => None,
    }
}

/// `GET /`, the status page (which has its own bound on how many are drawn at once).
pub fn is_page(path: &str) -> bool {
    matches!(route(path), Some(Route::Page))
}

fn allowed_method(route: &Route<'_>) -> &'static str {
    match route {
        Route::Page | Route::Metrics | Route::Deferral(_) | Route::Receipt(_) | Route::Pools => {
            "GET"
        }
        Route::Deferrals
        | Route::Action(..)
        | Route::Admissions
        | Route::Release(_)
        | Route::GithubWebhook => "POST",
    }
}

/// Answers a request's head before its body is read: unknown route (404) or wrong method (405).
pub fn check_route(method: &str, path: &str) -> Option<Response> {
    let Some(found) = route(path) else {
        return Some(Response::error(
            404,
            "unknown-route",
            "no such endpoint (see deferral-host serve --help)",
        ));
    };
    let allow = allowed_method(&found);
    (method != allow).then(|| {
        Response::error(
            405,
            "method-not-allowed",
            &format!("this endpoint answers {allow} only"),
        )
        .with_header("Allow", allow)
    })
}

/// The HTTP status of a host error: its exit class, with the few codes that have their own.
pub fn status_of(err: &HostError) -> u16 {
    match (err.kind(), err.exit_code) {
        (Some(HostErrorKind::NotFound), _) => 404,
        (Some(HostErrorKind::WrongHandle | HostErrorKind::LaunchNotAllowed), _) => 403,
        (Some(HostErrorKind::LaunchConflict), _) => 409,
        (Some(HostErrorKind::InvalidRequest), _) => 400,
        // The store's file was removed or replaced under the port: not this request's fault,
        // and not answered until the host is restarted on a store (as `/readyz` says).
        (Some(HostErrorKind::StoreReplaced), _) => 503,
        (_, EXIT_INVALID) => 422,
        (_, EXIT_FAILURE) => 500,
        _ => 409,
    }
}

fn error_response(err: &HostError) -> Response {
    Response::json(status_of(err), err.to_json_value().to_string())
}

/// Handles one admitted request with its body.
pub fn handle(store: &dyn Store, policy: &Policy, request: &Request) -> Response {
    let result = match route(&request.path) {
        Some(Route::Page) => crate::html::store_page(store, now_ms())
            .and_then(|page| {
                crate::pools::view::with_held_section(store, page, now_ms(), &policy.pools)
            })
            .map(Response::html),
        Some(Route::Metrics) => crate::metrics::serve::exposition(store).map(|text| {
            Response::json(200, text).with_header("Content-Type", crate::metrics::CONTENT_TYPE)
        }),
        Some(Route::Deferrals) => record(store, policy, &request.body),
        Some(Route::Deferral(id)) => lifecycle::change::load(store, id).map(|d| {
            let mut view = with_run(store, &d);
            crate::pools::view::Pools::with_options(policy.pools.clone()).annotate(
                store,
                &d,
                &mut view,
                now_ms(),
            );
            Response::json(200, view.to_string())
        }),
        Some(Route::Receipt(digest)) => by_receipt(store, policy, digest),
        Some(Route::Pools) => crate::pools::view::pools_json(store, now_ms(), &policy.pools)
            .map(|pools| Response::json(200, pools.to_string())),
        Some(Route::Admissions) => admissions::admit(store, policy, &request.body),
        Some(Route::Release(seq)) => admissions::release(store, seq, &request.body),
        Some(Route::Action(id, "cancel")) => cancel(store, id, &request.body),
        Some(Route::Action(id, "claim")) => claim(store, id, &request.body),
        Some(Route::Action(id, "retry")) => retry::retry(store, policy, id, &request.body),
        Some(Route::Action(id, _)) => outcome(store, id, &request.body),
        Some(Route::GithubWebhook) => Err(HostError::new(
            HostErrorKind::NotFound,
            "webhooks are not configured: start serve or run with --github-webhook-secret-file",
        )),
        None => Err(HostError::new(HostErrorKind::NotFound, "no such endpoint")),
    };
    result.unwrap_or_else(|err| error_response(&err))
}

fn record(store: &dyn Store, policy: &Policy, body: &[u8]) -> Result<Response, HostError> {
    let request = RecordRequest::read(body).map_err(refused)?;
    let entry = Entry {
        allowed: Allowed::Policy(&policy.launch_policy),
        check_programs: policy.check_programs,
        artifact_name: None,
    };
    let checked = crate::ops::record::check(request, entry, now_ms())?;
    let recorded = crate::ops::record::record(store, checked, &now_ms)?;
    // Recorded already: the same deferral, 200 instead of 201, no new handle.
    let status = match recorded {
        Recorded::New { .. } => 201,
        Recorded::Existing(_) => 200,
    };
    let location = format!("/v1/deferrals/{}", recorded.deferral().id);
    Ok(Response::json_of(status, &recorded.answer()?).with_header("Location", location))
}

/// `GET /v1/receipts/{digest}`: the deferral by the digest of its recorded handoff receipt or
/// of any receipt the host issued for it (the core's `digest`, lowercase hex), as
/// `GET /v1/deferrals/{id}` answers it.
fn by_receipt(store: &dyn Store, policy: &Policy, digest: &str) -> Result<Response, HostError> {
    let not_found = || {
        HostError::new(
            HostErrorKind::NotFound,
            format!("no deferral has a receipt with digest {digest}"),
        )
    };
    if digest.len() != 64
        || !digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(not_found());
    }
    let id = store
        .find_by_receipt_digest(digest)?
        .ok_or_else(not_found)?;
    let d = lifecycle::change::load(store, &id)?;
    let mut view = with_run(store, &d);
    crate::pools::view::Pools::with_options(policy.pools.clone()).annotate(
        store,
        &d,
        &mut view,
        now_ms(),
    );
    Ok(Response::json(200, view.to_string()))
}

fn cancel(store: &dyn Store, id: &str, body: &[u8]) -> Result<Response, HostError> {
    let request = CancelRequest::read(body).map_err(refused)?;
    let cancelled = crate::ops::cancel::cancel_once(store, id, &request.handle, now_ms())?;
    Ok(Response::json_of(200, &cancelled.answer()))
}

fn claim(store: &dyn Store, id: &str, body: &[u8]) -> Result<Response, HostError> {
    let request = ClaimRequest::read(body).map_err(refused)?;
    let proof = ops::claim::verify_claim(store, id, &request.wakeup_handle, now_ms())?;
    let d = &proof.deferral;
    Ok(Response::json_of(
        200,
        &ClaimAnswer {
            attempt: d.reentries,
            attempt_status: d.attempt_status.map(crate::store::AttemptStatus::as_str),
            id: &d.id,
            lease_until_ms: d.lease_until_ms,
            state: d.state.as_str(),
            receipt: stored_receipt(&proof.receipt_json)?,
        },
    ))
}

fn outcome(store: &dyn Store, id: &str, body: &[u8]) -> Result<Response, HostError> {
    let body = OutcomeRequest::read(body).map_err(refused)?;
    let request = crate::ops::report::ReportRequest {
        id,
        attempt: body.attempt,
        handle: &body.handle,
        outcome: match body.outcome {
            OutcomeKind::Complete => Reported::Complete,
            OutcomeKind::Blocked => Reported::Blocked,
            OutcomeKind::Deferred => Reported::Deferred,
        },
        receipt: body.receipt.as_deref(),
    };
    let d = crate::ops::report::report(store, &request, now_ms())?;
    // Still deferred: the caller gets the new retained receipt, as `record` gives the first.
    let current = crate::ops::report::next_receipt(store, &d)?;
    let receipt = current.as_deref().map(stored_receipt).transpose()?;
    Ok(Response::json_of(
        200,
        &OutcomeAnswer {
            cause: &d.cause,
            id: &d.id,
            state: d.state.as_str(),
            receipt,
        },
    ))
}

/// A receipt's stored text as JSON to embed verbatim.
fn stored_receipt(text: &str) -> Result<&RawValue, HostError> {
    serde_json::from_str(text.trim()).map_err(|e| {
        HostError::new(
            HostErrorKind::StoreCorrupt,
            format!("a stored receipt is not JSON: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_methods() {
        assert!(check_route("POST", "/v1/deferrals").is_none());
        assert!(check_route("GET", "/v1/deferrals/d1").is_none());
        assert!(check_route("POST", "/v1/deferrals/d1/claim").is_none());
        assert!(check_route("POST", "/v1/admissions").is_none());
        assert!(check_route("POST", "/v1/admissions/7/release").is_none());
        assert_eq!(check_route("GET", "/v1/admissions").unwrap().status, 405);
        assert_eq!(check_route("POST", "/v1/admissions/7").unwrap().status, 404);
        assert_eq!(check_route("GET", "/v1/deferrals").unwrap().status, 405);
        assert_eq!(check_route("POST", "/v1/deferrals/d1").unwrap().status, 405);
        assert!(check_route("GET", "/").is_none(), "the status page");
        assert_eq!(check_route("POST", "/").unwrap().status, 405);
        for path in [
            "/index.html",
            "/v1",
            "/v1/deferrals/",
            "/v1/deferrals/d1/x",
            "/v1/deferralsx",
        ] {
            assert_eq!(check_route("GET", path).unwrap().status, 404, "{path}");
        }
    }

    #[test]
    fn statuses_follow_the_error_class() {
        let cases = [
            (HostError::new(HostErrorKind::NotFound, ""), 404),
            (HostError::new(HostErrorKind::InvalidDigest, ""), 422),
            (HostError::new(HostErrorKind::InvalidRequest, ""), 400),
            (HostError::new(HostErrorKind::WrongHandle, ""), 403),
            (HostError::new(HostErrorKind::StaleAttempt, ""), 409),
            (HostError::new(HostErrorKind::Conflict, ""), 409),
            (HostError::new(HostErrorKind::Backend, ""), 500),
        ];
        for (err, status) in cases {
            assert_eq!(status_of(&err), status, "{}", err.code);
        }
    }
}
