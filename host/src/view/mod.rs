//! The JSON views of host data that more than one surface prints, as typed `Serialize`
//! structs: `status --json`, `show --json` and `serve`'s `GET /v1/deferrals/ID` show a deferral
//! the same way ([`DeferralView`]); the short answers of `cancel`, `report`, `resolve`, `tick`
//! and the follow step are in [`answers`]. Kept here so that `cli`, `serve` and `tick` depend on
//! it instead of on each other.
//!
//! Fields are declared in alphabetical order: the JSON text is the same whether a view is
//! printed directly or through a `serde_json::Value` (whose maps sort their keys).

pub mod answers;

use crate::clock::iso8601;
use crate::store::{AttemptStatus, Deferral};
use serde::Serialize;
use serde_json::{json, Value};

/// A deferral as `status --json` and `show --json` print it.
#[derive(Debug, Serialize)]
pub struct DeferralView<'a> {
    pub attempt_status: Option<&'static str>,
    pub attempts: u32,
    pub cause: &'a str,
    pub created_ms: u64,
    pub detail: Option<&'a str>,
    pub fence: u64,
    pub id: &'a str,
    pub launch: &'a str,
    pub lease_owner: Option<&'a str>,
    pub lease_until_ms: Option<u64>,
    pub max_reentries: u32,
    pub reason: &'a str,
    pub reentries: u32,
    pub resume_after: String,
    pub resume_after_ms: u64,
    pub resume_by: String,
    pub resume_by_ms: u64,
    pub state: &'static str,
    pub updated_ms: u64,
}

impl<'a> DeferralView<'a> {
    pub fn of(d: &'a Deferral) -> DeferralView<'a> {
        DeferralView {
            attempt_status: d.attempt_status.map(AttemptStatus::as_str),
            attempts: d.reentries,
            cause: &d.cause,
            created_ms: d.created_ms,
            detail: d.detail.as_deref(),
            fence: d.fence,
            id: &d.id,
            launch: &d.launch,
            lease_owner: d.lease_owner.as_deref(),
            lease_until_ms: d.lease_until_ms,
            max_reentries: d.max_reentries,
            reason: &d.reason,
            reentries: d.reentries,
            resume_after: iso8601(d.resume_after_ms),
            resume_after_ms: d.resume_after_ms,
            resume_by: iso8601(d.resume_by_ms),
            resume_by_ms: d.resume_by_ms,
            state: d.state.as_str(),
            updated_ms: d.updated_ms,
        }
    }
}

/// A view as a JSON value (for answers that add fields to it).
pub fn value(view: &impl Serialize) -> Value {
    serde_json::to_value(view).expect("a view serializes")
}

/// A deferral as JSON for `status --json` and `show --json`.
pub fn deferral_json(d: &Deferral) -> Value {
    value(&DeferralView::of(d))
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
