//! The short answers about one deferral after a step: `{cause, id, state}` and the fields each
//! step adds. Fields in alphabetical order (see the module above).

use crate::store::{AttemptStatus, Deferral};
use serde::Serialize;

/// `{cause, id, state}`: `cancel` and `report` answer this, and so do `POST /v1/deferrals/ID/cancel`
/// and `POST /v1/deferrals/ID/outcome` (`outcome` with the new receipt when still deferred).
#[derive(Debug, Serialize)]
pub struct StateView<'a> {
    pub cause: &'a str,
    pub id: &'a str,
    pub state: &'static str,
}

impl<'a> StateView<'a> {
    pub fn of(d: &'a Deferral) -> StateView<'a> {
        StateView {
            cause: &d.cause,
            id: &d.id,
            state: d.state.as_str(),
        }
    }
}

/// `{attempt_status, cause, id, state}`: `resolve`, and a recovered attempt in the tick report.
#[derive(Debug, Serialize)]
pub struct ResolvedView<'a> {
    pub attempt_status: Option<&'static str>,
    pub cause: &'a str,
    pub id: &'a str,
    pub state: &'static str,
}

impl<'a> ResolvedView<'a> {
    pub fn of(d: &'a Deferral) -> ResolvedView<'a> {
        ResolvedView {
            attempt_status: d.attempt_status.map(AttemptStatus::as_str),
            cause: &d.cause,
            id: &d.id,
            state: d.state.as_str(),
        }
    }
}

/// `{attempt, cause, detail, id, state}`: a launched attempt in the tick report, `after` being
/// the deferral once its outcome is written.
#[derive(Debug, Serialize)]
pub struct AttemptView<'a> {
    pub attempt: u32,
    pub cause: &'a str,
    pub detail: Option<&'a str>,
    pub id: &'a str,
    pub state: &'static str,
}

impl<'a> AttemptView<'a> {
    pub fn of(id: &'a str, attempt: u32, after: &'a Deferral) -> AttemptView<'a> {
        AttemptView {
            attempt,
            cause: &after.cause,
            detail: after.detail.as_deref(),
            id,
            state: after.state.as_str(),
        }
    }
}

/// `{attempt, cause, detail, id, reentries, state}`: a dispatch given back (its re-entry count
/// given back too).
#[derive(Debug, Serialize)]
pub struct GivenBackView<'a> {
    pub attempt: u32,
    pub cause: &'a str,
    pub detail: Option<&'a str>,
    pub id: &'a str,
    pub reentries: u32,
    pub state: &'static str,
}

impl<'a> GivenBackView<'a> {
    pub fn of(id: &'a str, attempt: u32, after: &'a Deferral) -> GivenBackView<'a> {
        GivenBackView {
            attempt,
            cause: &after.cause,
            detail: after.detail.as_deref(),
            id,
            reentries: after.reentries,
            state: after.state.as_str(),
        }
    }
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

/// The tick report, as `tick` prints it: one JSON line on stdout (with `next` added).
#[derive(Debug, Serialize)]
pub struct TickView<'a> {
    pub dry_run: bool,
    pub expired: &'a [String],
    pub followed: &'a [serde_json::Value],
    pub github: Option<&'a serde_json::Value>,
    pub held: &'a [serde_json::Value],
    pub launched: &'a [serde_json::Value],
    pub rate_limit: Option<&'a serde_json::Value>,
    pub recovered: &'a [serde_json::Value],
    pub skipped: &'a [serde_json::Value],
    pub waiting: &'a [serde_json::Value],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::DeferralView;

    /// Printed directly or through a `Value` (sorted keys), a view is the same text: its fields
    /// are declared in alphabetical order.
    fn same_text(view: &impl Serialize) {
        let direct = serde_json::to_string(view).unwrap();
        assert_eq!(direct, crate::view::value(view).to_string());
    }

    #[test]
    fn every_view_declares_its_fields_in_alphabetical_order() {
        let (cause, id, state) = ("launched", "d1", "resumable");
        same_text(&StateView { cause, id, state });
        same_text(&ResolvedView {
            attempt_status: Some("dispatch-unknown"),
            cause,
            id,
            state,
        });
        same_text(&AttemptView {
            attempt: 1,
            cause,
            detail: Some("x"),
            id,
            state,
        });
        same_text(&GivenBackView {
            attempt: 1,
            cause,
            detail: None,
            id,
            reentries: 0,
            state,
        });
        same_text(&FollowedView {
            attempt: 1,
            cause,
            conclusion: "success",
            detail: None,
            id,
            run_id: 7,
            state,
        });
        same_text(&TickView {
            dry_run: false,
            expired: &[],
            followed: &[],
            github: None,
            held: &[],
            launched: &[],
            rate_limit: None,
            recovered: &[],
            skipped: &[],
            waiting: &[],
        });
        same_text(&DeferralView {
            attempt_status: None,
            attempts: 0,
            cause,
            created_ms: 1,
            detail: None,
            fence: 0,
            id,
            launch: "exec:/bin/true",
            lease_owner: None,
            lease_until_ms: None,
            max_reentries: 2,
            reason: "r",
            reentries: 0,
            resume_after: "a".into(),
            resume_after_ms: 2,
            resume_by: "b".into(),
            resume_by_ms: 3,
            state,
            updated_ms: 4,
        });
    }
}
