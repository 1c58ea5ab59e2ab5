//! What a pass did, typed: [`TickReport`] and the entries of its lists. The progress lines and
//! the metrics read these; [`TickReport::to_json`] makes the JSON line `tick` prints on stdout
//! (with `next` added), once, at the edge.

use super::Held;
use crate::launch::Launched;
use crate::ops::follow::followed::Followed;
use crate::ops::follow::FollowReport;
use crate::store::{AttemptStatus, Deferral};
use crate::view::{self, answers};
pub use deferral_protocol::tick::{GithubCalls, RateLimitLearned, Skipped};
use deferral_protocol::tick::{RecoveredEntry, TickView};
use serde_json::Value;

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
    pub rate_limit: Option<RateLimitLearned>,
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

    /// The report's entry: `{attempt_status, cause, id, state}` (`{attempt_status, id}` planned).
    pub fn entry(&self) -> RecoveredEntry<'_> {
        match self {
            Recovered::Done(after) => RecoveredEntry::Done(answers::resolved_view(after)),
            Recovered::Planned { id, attempt_status } => RecoveredEntry::Planned {
                attempt_status: attempt_status.map(AttemptStatus::as_str),
                id,
            },
        }
    }
}

impl TickReport {
    /// The JSON line `tick` prints (the caller adds `next`).
    pub fn to_json(&self) -> Value {
        let recovered: Vec<_> = self.recovered.iter().map(Recovered::entry).collect();
        let launched: Vec<_> = self.launched.iter().map(Launched::entry).collect();
        let held: Vec<_> = self.held.iter().map(Held::entry).collect();
        let followed: Vec<_> = (self.follow.iter())
            .flat_map(|f| f.followed.iter().map(Followed::entry))
            .collect();
        view::value(&TickView {
            dry_run: self.dry_run,
            expired: &self.expired,
            followed: &followed,
            github: self.github.as_ref(),
            held: &held,
            launched: &launched,
            rate_limit: self.rate_limit.as_ref(),
            recovered: &recovered,
            skipped: &self.skipped,
            waiting: self.follow.as_ref().map_or(&[], |f| &f.waiting),
        })
    }
}

#[cfg(test)]
mod pinned;
