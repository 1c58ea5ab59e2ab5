//! What a launcher kind returns: [`Launched`], how one claimed attempt ended (or, with
//! `--dry-run`, what would be launched). It stays typed through the pass, the progress lines
//! and the metrics; [`Launched::entry`] makes the entry of the tick report's `launched` list,
//! at the edge.

use crate::error::HostError;
use crate::store::{AttemptStatus, Deferral};
use crate::view::{
    self,
    answers::{attempt_view, given_back_view, AttemptView, GivenBackView},
};
use deferral_core::lifecycle::State;
use deferral_protocol::tick::LaunchedEntry;
use serde_json::Value;

/// One launch of a pass.
#[derive(Debug, Clone)]
pub struct Launched {
    pub id: String,
    /// The attempt's number; `None` only when a refusal could not be written.
    pub attempt: Option<u32>,
    pub end: LaunchEnd,
    /// The pool whose admission let it launch (set by the pass, not by the launcher).
    pub pool: Option<String>,
}

/// How a launch ended.
#[derive(Debug, Clone)]
pub enum LaunchEnd {
    /// Its outcome is written: the deferral as it is after.
    Finished(Deferral),
    /// The claim was given back, its re-entry with it: the deferral as it is after.
    GivenBack(Deferral),
    /// Dispatched (or unknown): the lease is held while the run is followed.
    Held {
        state: State,
        attempt_status: AttemptStatus,
        detail: Option<String>,
        /// The run GitHub named in its answer (a dispatch it accepted).
        run: Option<RunLinks>,
    },
    /// The outcome could not be written.
    Failed(HostError),
    /// `--dry-run`: this target would be launched.
    Planned { launch: String },
}

/// A dispatched run's URLs, each `None` when GitHub did not say.
#[derive(Debug, Clone, Default)]
pub struct RunLinks {
    pub run_url: Option<String>,
    pub html_url: Option<String>,
}

impl Launched {
    pub fn new(id: &str, attempt: u32, end: LaunchEnd) -> Launched {
        Launched {
            id: id.to_string(),
            attempt: Some(attempt),
            end,
            pool: None,
        }
    }

    /// An attempt whose outcome could not be written (`attempt` `None`: not known).
    pub fn failed(id: &str, attempt: Option<u32>, err: HostError) -> Launched {
        Launched {
            id: id.to_string(),
            attempt,
            end: LaunchEnd::Failed(err),
            pool: None,
        }
    }

    /// The state the launch left, when it was written.
    pub fn state(&self) -> Option<State> {
        match &self.end {
            LaunchEnd::Finished(after) | LaunchEnd::GivenBack(after) => Some(after.state),
            LaunchEnd::Held { state, .. } => Some(*state),
            LaunchEnd::Failed(_) | LaunchEnd::Planned { .. } => None,
        }
    }

    /// What the launch led to, as the progress lines and the metrics name it: the state it
    /// left, `dispatched` (or `dispatch-unknown`) for a run held while still resumable, `error`
    /// when nothing was written.
    pub fn outcome(&self) -> &'static str {
        match &self.end {
            LaunchEnd::Held {
                state: State::Resumable,
                attempt_status,
                ..
            } => attempt_status.as_str(),
            _ => self.state().map_or("error", State::as_str),
        }
    }

    /// Why it ended so: the written detail, or the error's message.
    pub fn why(&self) -> Option<&str> {
        match &self.end {
            LaunchEnd::Finished(after) | LaunchEnd::GivenBack(after) => after.detail.as_deref(),
            LaunchEnd::Held { detail, .. } => detail.as_deref(),
            LaunchEnd::Failed(err) => Some(&err.message),
            LaunchEnd::Planned { .. } => None,
        }
    }

    /// The report's entry: `{attempt, cause, detail, id, state}` for a written outcome (with
    /// `reentries` when given back; `attempt_status` and the run's URLs when held),
    /// `{id, attempt, error}` when nothing was written, `{id, attempt, launch}` planned; `pool`
    /// added when a pool admitted it.
    pub fn entry(&self) -> LaunchedEntry<'_> {
        let (id, attempt) = (self.id.as_str(), self.attempt.unwrap_or_default());
        let pool = self.pool.as_deref();
        match &self.end {
            LaunchEnd::Finished(after) => LaunchedEntry::Finished(AttemptView {
                pool,
                ..attempt_view(id, attempt, after)
            }),
            LaunchEnd::GivenBack(after) => LaunchedEntry::GivenBack(GivenBackView {
                pool,
                ..given_back_view(id, attempt, after)
            }),
            LaunchEnd::Held {
                state,
                attempt_status,
                detail,
                run: None,
            } => LaunchedEntry::Held {
                attempt,
                attempt_status: attempt_status.as_str(),
                detail: detail.as_deref(),
                id,
                pool,
                state: state.as_str(),
            },
            LaunchEnd::Held {
                state,
                attempt_status,
                detail,
                run: Some(run),
            } => LaunchedEntry::HeldRun {
                attempt,
                attempt_status: attempt_status.as_str(),
                detail: detail.as_deref(),
                html_url: run.html_url.as_deref(),
                id,
                pool,
                run_url: run.run_url.as_deref(),
                state: state.as_str(),
            },
            LaunchEnd::Failed(err) => LaunchedEntry::Failed {
                attempt: self.attempt,
                error: err.detail(),
                id,
                pool,
            },
            LaunchEnd::Planned { launch } => LaunchedEntry::Planned {
                attempt,
                id,
                launch,
                pool,
            },
        }
    }

    /// [`Launched::entry`] as a JSON value (a log line copies fields of it).
    pub fn to_json(&self) -> Value {
        view::value(&self.entry())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::HostErrorKind;

    fn keys(entry: &Value) -> Vec<&str> {
        entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }

    /// The entries that are not a view of their own keep the fields the report always had.
    #[test]
    fn each_end_keeps_its_report_fields() {
        let held = |run| {
            let end = LaunchEnd::Held {
                state: State::Resumable,
                attempt_status: AttemptStatus::Dispatched,
                detail: Some("HTTP 204".into()),
                run,
            };
            Launched::new("d1", 2, end)
        };
        let dispatched = held(Some(RunLinks::default()));
        assert_eq!(
            dispatched.to_json().to_string(),
            r#"{"attempt":2,"attempt_status":"dispatched","detail":"HTTP 204","html_url":null,"id":"d1","run_url":null,"state":"resumable"}"#
        );
        assert_eq!(
            keys(&held(None).to_json()),
            ["attempt", "attempt_status", "detail", "id", "state"]
        );
        assert_eq!(
            (dispatched.outcome(), dispatched.why()),
            ("dispatched", Some("HTTP 204"))
        );
        let err = HostError::new(HostErrorKind::Conflict, "changed meanwhile");
        let failed = Launched::failed("d1", Some(2), err.clone());
        assert_eq!(keys(&failed.to_json()), ["attempt", "error", "id"]);
        assert_eq!(failed.to_json()["error"], err.to_json_value()["error"]);
        assert_eq!(
            (failed.outcome(), failed.why()),
            ("error", Some("changed meanwhile"))
        );
        assert_eq!(
            keys(&Launched::failed("d1", None, err).to_json()),
            ["error", "id"]
        );
        let mut planned = Launched::new(
            "d1",
            1,
            LaunchEnd::Planned {
                launch: "exec:/bin/true".into(),
            },
        );
        planned.pool = Some("app".into());
        assert_eq!(
            planned.to_json().to_string(),
            r#"{"attempt":1,"id":"d1","launch":"exec:/bin/true","pool":"app"}"#
        );
    }
}
