//! `POST /v1/admissions` `{"pool","cost","rate"}` and `POST /v1/admissions/{seq}/release`
//! `{"rate"?}`: one admission across runners (see `ops::admit`). A bad body is 400 with its
//! code (`invalid-request`, `invalid-pool`, `invalid-cost`, `invalid-rate-state`), and nothing
//! is admitted or recorded.

use super::Policy;
use crate::clock::now_ms;
use crate::error::{HostError, HostErrorKind, EXIT_INVALID};
use crate::ops::admit::{self, Verdict};
use crate::ops::release::{self, Released};
use crate::pools::wire;
use crate::serve::http::Response;
use crate::store::Store;
use deferral_protocol::{AdmissionRequest, ReleaseAnswer, ReleaseRequest};

/// Bad input to these endpoints is 400, whatever its code.
fn answer(result: Result<Response, HostError>) -> Result<Response, HostError> {
    result.or_else(|err| {
        if err.exit_code == EXIT_INVALID && err.kind() != Some(HostErrorKind::NotFound) {
            Ok(Response::json(400, err.to_json_value().to_string()))
        } else {
            Err(err)
        }
    })
}

pub(super) fn admit(
    store: &dyn Store,
    policy: &Policy,
    body: &[u8],
) -> Result<Response, HostError> {
    answer(decide(store, policy, body))
}

fn decide(store: &dyn Store, policy: &Policy, body: &[u8]) -> Result<Response, HostError> {
    let AdmissionRequest { pool, cost, rate } =
        AdmissionRequest::read(body).map_err(wire::refused)?;
    let seen = wire::observations(&rate, "runner admission", now_ms());
    let asked = admit::ask(store, &pool, &cost, &seen, &policy.pools, &now_ms)?;
    let status = match asked.verdict {
        Verdict::Admitted { .. } => 201,
        Verdict::Refused { .. } => 200,
    };
    Ok(Response::json(status, asked.to_json().to_string()))
}

/// `admission` is the whole admission as answered: `SEQ-SECRET`.
pub(super) fn release(
    store: &dyn Store,
    admission: &str,
    body: &[u8],
) -> Result<Response, HostError> {
    let not_found = || {
        HostError::new(
            HostErrorKind::NotFound,
            format!(
                "no runner admission {:?}",
                admission.chars().take(80).collect::<String>()
            ),
        )
    };
    let (seq, secret) = admission.split_once('-').unwrap_or((admission, ""));
    let digits = !seq.is_empty() && seq.len() <= 20 && seq.bytes().all(|b| b.is_ascii_digit());
    let seq: u64 = match seq.parse() {
        Ok(n) if digits => n,
        _ => return Err(not_found()),
    };
    answer(release_seq(store, seq, secret, body))
}

fn release_seq(
    store: &dyn Store,
    seq: u64,
    secret: &str,
    body: &[u8],
) -> Result<Response, HostError> {
    let request = ReleaseRequest::read(body).map_err(wire::refused)?;
    let seen = request.rate.map_or_else(Vec::new, |rate| {
        wire::observations(&rate, &format!("runner release {seq}"), now_ms())
    });
    let out = match release::release(store, seq, secret, &seen, &now_ms)? {
        Released::Released => ReleaseAnswer::Released,
        Released::Already => ReleaseAnswer::Already,
    };
    Ok(Response::json(
        200,
        serde_json::to_string(&out).unwrap_or_default(),
    ))
}
