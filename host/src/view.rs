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
