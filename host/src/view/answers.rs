//! The short answers about one deferral after a step, filled from the store: the types are the
//! protocol's ([`deferral_protocol::answers`]), members in alphabetical order.

use crate::store::{AttemptStatus, Deferral};
pub use deferral_protocol::answers::{
    AttemptView, FollowedView, GivenBackView, ResolvedView, StateView,
};
pub use deferral_protocol::tick::TickView;
#[cfg(test)]
use serde::Serialize;

/// `{cause, id, state}` of `d`.
pub fn state_view(d: &Deferral) -> StateView<'_> {
    StateView {
        cause: &d.cause,
        id: &d.id,
        state: d.state.as_str(),
    }
}

/// `{attempt_status, cause, id, state}` of `d`.
pub fn resolved_view(d: &Deferral) -> ResolvedView<'_> {
    ResolvedView {
        attempt_status: d.attempt_status.map(AttemptStatus::as_str),
        cause: &d.cause,
        id: &d.id,
        state: d.state.as_str(),
    }
}

/// Attempt `attempt` of deferral `id` launched, `after` the deferral once its outcome is written.
pub fn attempt_view<'a>(id: &'a str, attempt: u32, after: &'a Deferral) -> AttemptView<'a> {
    AttemptView {
        attempt,
        cause: &after.cause,
        detail: after.detail.as_deref(),
        id,
        pool: None,
        state: after.state.as_str(),
    }
}

/// Attempt `attempt` of deferral `id` given back (its re-entry count given back too).
pub fn given_back_view<'a>(id: &'a str, attempt: u32, after: &'a Deferral) -> GivenBackView<'a> {
    GivenBackView {
        attempt,
        cause: &after.cause,
        detail: after.detail.as_deref(),
        id,
        pool: None,
        reentries: after.reentries,
        state: after.state.as_str(),
    }
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
            pool: Some("app"),
            state,
        });
        same_text(&GivenBackView {
            attempt: 1,
            cause,
            detail: None,
            id,
            pool: None,
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
