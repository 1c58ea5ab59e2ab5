//! The JSON views of host data that more than one surface prints: `status --json`,
//! `show --json` and `serve`'s `GET /v1/deferrals/ID` show a deferral the same way. Kept here
//! so that `cli` and `serve` both depend on it instead of on each other.

use crate::clock::iso8601;
use crate::store::{AttemptStatus, Deferral};
use serde_json::{json, Value};

/// A deferral as JSON for `status --json` and `show --json`.
pub fn deferral_json(d: &Deferral) -> Value {
    json!({
        "id": d.id,
        "state": d.state.as_str(),
        "cause": d.cause,
        "detail": d.detail,
        "reason": d.reason,
        "resume_after_ms": d.resume_after_ms,
        "resume_after": iso8601(d.resume_after_ms),
        "resume_by_ms": d.resume_by_ms,
        "resume_by": iso8601(d.resume_by_ms),
        "reentries": d.reentries,
        "max_reentries": d.max_reentries,
        "attempts": d.reentries,
        "attempt_status": d.attempt_status.map(AttemptStatus::as_str),
        "launch": d.launch,
        "fence": d.fence,
        "lease_owner": d.lease_owner,
        "lease_until_ms": d.lease_until_ms,
        "created_ms": d.created_ms,
        "updated_ms": d.updated_ms,
    })
}

/// [`deferral_json`] with the current attempt's workflow run as GitHub names it (`run_id`,
/// `run_url` its API URL, `html_url` its page; each null when unknown), as `status --json`,
/// `show --json`, `GET /v1/deferrals/ID` and `GET /v1/receipts/DIGEST` print it.
pub fn deferral_with_run(store: &dyn crate::store::Store, d: &Deferral) -> Value {
    let mut value = deferral_json(d);
    let run = store.run_of(&d.id, d.reentries).ok().flatten();
    value["run_id"] = json!(run.as_ref().and_then(|r| r.run_id));
    value["run_url"] = json!(run.as_ref().and_then(|r| r.run_url.clone()));
    value["html_url"] = json!(run.and_then(|r| r.html_url));
    // The retry links both ways (`deferral-host retry`); null when there are none.
    let link = store.retry_link(&d.id).unwrap_or_default();
    value["retry_of"] = json!(link.retry_of);
    value["retried_by"] = json!(link.retried_by);
    value
}
