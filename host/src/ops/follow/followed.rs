//! A dispatched run followed to its end: [`Followed`], as the follow step returns it (the tick
//! report's `followed` list, the webhook worker's log line). The progress lines read it typed;
//! [`Followed::entry`] makes the report's entry.

use crate::error::HostError;
use crate::store::Deferral;
use crate::view::{self, answers::FollowedView};
use deferral_protocol::tick::FollowedEntry;
use serde_json::Value;

/// One attempt whose run completed.
#[derive(Debug, Clone)]
pub struct Followed {
    pub id: String,
    pub attempt: u32,
    pub run_id: u64,
    pub end: FollowEnd,
}

/// What following the completed run did.
#[derive(Debug, Clone)]
pub enum FollowEnd {
    /// The run's outcome is written: its conclusion as shown, the deferral as it is after.
    Written {
        conclusion: String,
        after: Box<Deferral>,
    },
    /// Nothing written, and why (another ticker recorded it first).
    Skipped(&'static str),
    /// The outcome could not be written.
    Failed(HostError),
}

impl Followed {
    /// What it led to, as a progress line says it: the state written, why it was skipped, or
    /// the error's message.
    pub fn outcome(&self) -> &str {
        match &self.end {
            FollowEnd::Written { after, .. } => after.state.as_str(),
            FollowEnd::Skipped(why) => why,
            FollowEnd::Failed(err) => &err.message,
        }
    }

    /// The run's conclusion as shown, when the outcome was written.
    pub fn conclusion(&self) -> Option<&str> {
        match &self.end {
            FollowEnd::Written { conclusion, .. } => Some(conclusion),
            _ => None,
        }
    }

    /// `{attempt, cause, conclusion, detail, id, run_id, state}` when written; `{id, attempt,
    /// run_id}` with `skipped` or `error` otherwise.
    pub fn entry(&self) -> FollowedEntry<'_> {
        let (id, attempt, run_id) = (self.id.as_str(), self.attempt, self.run_id);
        match &self.end {
            FollowEnd::Written { conclusion, after } => FollowedEntry::Written(FollowedView {
                attempt,
                cause: &after.cause,
                conclusion,
                detail: after.detail.as_deref(),
                id,
                run_id,
                state: after.state.as_str(),
            }),
            FollowEnd::Skipped(why) => FollowedEntry::Skipped {
                attempt,
                id,
                run_id,
                skipped: why,
            },
            FollowEnd::Failed(err) => FollowedEntry::Failed {
                attempt,
                error: err.detail(),
                id,
                run_id,
            },
        }
    }

    /// [`Followed::entry`] as a JSON value (a log line prints it or copies fields of it).
    pub fn to_json(&self) -> Value {
        view::value(&self.entry())
    }
}
