//! The short answers about one deferral after a step (`cancel`, `claim`, `outcome`/`report`,
//! `resolve`, a tick's launches, a followed run; the tick report is in [`crate::tick`]):
//! `{cause, id, state}` and the members each step adds, declared in alphabetical order (the order
//! the host has always written them), a receipt last and verbatim. The host fills them from its
//! store.

use serde::Serialize;
use serde_json::value::RawValue;

/// `{cause, id, state}`: `cancel` and `report` answer this, and so do `POST /v1/deferrals/ID/cancel`
/// and `POST /v1/deferrals/ID/outcome` (`outcome` with the new receipt when still deferred).
#[derive(Debug, Serialize)]
pub struct StateView<'a> {
    pub cause: &'a str,
    pub id: &'a str,
    pub state: &'static str,
}

/// `{attempt_status, cause, id, state}`: `resolve`, and a recovered attempt in the tick report.
#[derive(Debug, Serialize)]
pub struct ResolvedView<'a> {
    pub attempt_status: Option<&'static str>,
    pub cause: &'a str,
    pub id: &'a str,
    pub state: &'static str,
}

/// `{attempt, cause, detail, id, pool?, state}`: a launched attempt in the tick report once its
/// outcome is written, `pool` the pool that admitted it.
#[derive(Debug, Serialize)]
pub struct AttemptView<'a> {
    pub attempt: u32,
    pub cause: &'a str,
    pub detail: Option<&'a str>,
    pub id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<&'a str>,
    pub state: &'static str,
}

/// `{attempt, cause, detail, id, pool?, reentries, state}`: a dispatch given back (its re-entry
/// count given back too), `pool` the pool that admitted it.
#[derive(Debug, Serialize)]
pub struct GivenBackView<'a> {
    pub attempt: u32,
    pub cause: &'a str,
    pub detail: Option<&'a str>,
    pub id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<&'a str>,
    pub reentries: u32,
    pub state: &'static str,
}

/// `{attempt, cause, conclusion, detail, id, run_id, state}`: a followed run's outcome written.
#[derive(Debug, Serialize)]
pub struct FollowedView<'a> {
    pub attempt: u32,
    pub cause: &'a str,
    pub conclusion: &'a str,
    pub detail: Option<&'a str>,
    pub id: &'a str,
    pub run_id: u64,
    pub state: &'static str,
}

/// `cancel`'s answer: [`StateView`]'s members, and for a deferral cancelled before,
/// `already_cancelled` and a message saying how and when.
#[derive(Debug, Serialize)]
pub struct CancelAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub already_cancelled: Option<bool>,
    pub cause: &'a str,
    pub id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
    pub state: &'static str,
}

/// A claim's answer: the attempt proven, and the receipt it runs under (JSON text, verbatim).
#[derive(Debug, Serialize)]
pub struct ClaimAnswer<'a> {
    pub attempt: u32,
    pub attempt_status: Option<&'static str>,
    pub id: &'a str,
    pub lease_until_ms: Option<u64>,
    pub state: &'static str,
    pub receipt: &'a RawValue,
}

/// An outcome's answer: [`StateView`]'s members, and while still deferred the new retained
/// receipt (JSON text, verbatim), as `record` gave the first.
#[derive(Debug, Serialize)]
pub struct OutcomeAnswer<'a> {
    pub cause: &'a str,
    pub id: &'a str,
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<&'a RawValue>,
}

/// An error as every entry answers it: `{"error": ErrorDetail}`.
#[derive(Debug, Serialize)]
pub struct ErrorAnswer<'a> {
    pub error: ErrorDetail<'a>,
}

/// `{"code","message","path"?}`: the stable code, the words, and for a receipt the path of the
/// member that is wrong.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorDetail<'a> {
    pub code: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a str>,
}

/// One artifact `watch` (or a `workflow_run` delivery) recorded: its deferral and the handle,
/// shown this once.
#[derive(Debug, Clone, Serialize)]
pub struct Ingested {
    pub artifact_id: u64,
    pub cancellation_handle: String,
    pub id: String,
    /// The run that uploaded it, when GitHub said.
    pub run_id: Option<u64>,
}
