//! What a pass did, typed: [`TickReport`] and the entries of its lists. The progress lines and
//! the metrics read these; [`TickReport::to_json`] makes the JSON line `tick` prints on stdout
//! (with `next` added), once, at the edge.

use super::Held;
use crate::launch::Launched;
use crate::ops::follow::followed::Followed;
use crate::ops::follow::FollowReport;
use crate::store::{AttemptStatus, Deferral};
use crate::view::{
    self,
    answers::{self, TickView},
};
use serde::Serialize;
use serde_json::{json, Value};

/// What a pass did (or, with `--dry-run`, would do).
#[derive(Debug, Default)]
pub struct TickReport {
    pub dry_run: bool,
    pub expired: Vec<String>,
    pub recovered: Vec<Recovered>,
    pub launched: Vec<Launched>,
    pub skipped: Vec<Skipped>,
    /// Each pool that held deferrals.
    pub held: Vec<Held>,
    /// The follow step (see `ops::follow`), when a GitHub client is configured.
    pub follow: Option<FollowReport>,
    /// GitHub calls made.
    pub github: Option<GithubCalls>,
    /// What the host's own `GET /rate_limit` taught its pool (`--rate-limit-pool`).
    pub rate_limit: Option<Value>,
}

/// A due deferral the pass did not launch, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub id: String,
    pub why: String,
}

impl Skipped {
    pub fn new(id: &str, why: impl Into<String>) -> Skipped {
        Skipped {
            id: id.to_string(),
            why: why.into(),
        }
    }
}

/// An attempt whose lease had ended.
#[derive(Debug, Clone)]
pub enum Recovered {
    /// Recovered: the deferral as it is after.
    Done(Box<Deferral>),
    /// `--dry-run`: would be recovered.
    Planned {
        id: String,
        attempt_status: Option<AttemptStatus>,
    },
}

impl Recovered {
    pub fn id(&self) -> &str {
        match self {
            Recovered::Done(after) => &after.id,
            Recovered::Planned { id, .. } => id,
        }
    }

    /// `{attempt_status, cause, id, state}` (`{attempt_status, id}` planned).
    pub fn to_json(&self) -> Value {
        match self {
            Recovered::Done(after) => view::value(&answers::resolved_view(after)),
            Recovered::Planned { id, attempt_status } => {
                json!({"id": id, "attempt_status": attempt_status.map(AttemptStatus::as_str)})
            }
        }
    }
}

/// The report's `github` part: calls made, why they stopped, errors met while following.
#[derive(Debug, Clone, Serialize)]
pub struct GithubCalls {
    pub requests: u32,
    pub not_modified: u32,
    pub blob: u32,
    pub stopped: Option<String>,
    pub unreachable: Option<String>,
    pub errors: Vec<Value>,
}

impl TickReport {
    pub fn to_json(&self) -> Value {
        let recovered: Vec<Value> = self.recovered.iter().map(Recovered::to_json).collect();
        let launched: Vec<Value> = self.launched.iter().map(Launched::to_json).collect();
        let skipped: Vec<Value> = self.skipped.iter().map(view::value).collect();
        let held: Vec<Value> = self.held.iter().map(Held::to_json).collect();
        let followed: Vec<Value> = (self.follow.iter())
            .flat_map(|f| f.followed.iter().map(Followed::to_json))
            .collect();
        let github = self.github.as_ref().map(view::value);
        view::value(&TickView {
            dry_run: self.dry_run,
            expired: &self.expired,
            followed: &followed,
            github: github.as_ref(),
            held: &held,
            launched: &launched,
            rate_limit: self.rate_limit.as_ref(),
            recovered: &recovered,
            skipped: &skipped,
            waiting: self.follow.as_ref().map_or(&[], |f| &f.waiting),
        })
    }
}

#[cfg(test)]
mod pinned;
