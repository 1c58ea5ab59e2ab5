//! A pool's hold, worked out in one place for every surface that shows it: the tick's report
//! and its summary, `tick --dry-run`, `status` and `show` (a held deferral's `held`, never
//! "due now"), `status --pools`, `GET /v1/pools` and the page.
//!
//! The hold is what the next pass of admission would decide ([`admission::admit`], deciding
//! only): the row's own hold while it stands, or, once a report lifted it (a window learned, an
//! admission released), the decision made again from the row as it is now; so a report that
//! replaces an assumed window moves every surface's end to the new reset at once. The end is
//! the binding reset plus the buffer plus this host's jitter ([`admission::jitter_ms`], the
//! same on every read), so two surfaces read at the same moment give the same instant.

use super::admission::{self, Admit};
use super::PoolOptions;
use crate::error::HostError;
use crate::store::Store;

/// A pool that holds due deferrals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    pub why: Option<String>,
    /// When the held may be admitted (`None`: decided again at the next pass, when a report
    /// of what is admitted comes).
    pub until_ms: Option<u64>,
    /// The held deferrals among the first `limit` due (earliest first).
    pub held: Vec<String>,
    /// Due deferrals the pool would admit now (not held: their launch is due now).
    pub admit: Vec<String>,
}

/// How many due deferrals of a pool a surface examines (the tick's default `--limit`, which
/// is this number).
pub const EXAMINED: usize = 1000;

/// The hold of `pool` at `now_ms` as a pass with `options` would decide it (`None` when it
/// holds nothing).
pub fn of_pool(
    store: &dyn Store,
    pool: &str,
    now_ms: u64,
    options: &PoolOptions,
) -> Result<Option<Hold>, HostError> {
    let how = Admit {
        options,
        lease_ms: 0,
        skip_kinds: &[],
        limit: EXAMINED,
        dry_run: true,
        hold_only: false,
    };
    let pass = admission::admit(store, pool, &how, &|| now_ms)?;
    let d = pass.decision;
    if d.held.is_empty() {
        return Ok(None);
    }
    Ok(Some(Hold {
        why: d.reason,
        until_ms: d.hold_until_ms,
        held: d.held.into_iter().map(|c| c.id).collect(),
        admit: d.admit.into_iter().map(|c| c.id).collect(),
    }))
}

impl Hold {
    /// Whether a due deferral of the pool (without an admission of its own) is held: any the
    /// pool would not admit now (those past the examined ones included).
    pub fn holds(&self, id: &str) -> bool {
        !self.admit.iter().any(|a| a == id)
    }
}
