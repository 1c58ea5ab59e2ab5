//! Pools: the host schedules against the quota, not the clock (DESIGN section 9).
//!
//! A pool is one quota boundary (an App installation, a user's token, an Enterprise Server).
//! A deferral belongs to one pool and has a planned cost per resource; the pool's row holds
//! the last known window per resource. At each tick, [`admission`] admits a pool's due
//! deferrals earliest first while their cost fits above the reserve in what is left of the
//! window, less what is admitted and not yet reported; the rest are held (not claimed, no
//! re-entry counted) until the pool's next reset plus a buffer and a jitter. [`observe`]
//! teaches the pool from every attempt's last JSON line and releases its admission; [`mod@line`]
//! reads the gate's line at record; [`request`] admits a runner's plan across runners
//! (`POST /v1/admissions`), in the shapes [`wire`] reads. Pool and cost are host metadata
//! beside a receipt, never a field of one.

pub mod admission;
pub mod expect;
pub mod fair;
pub mod forecast;
pub mod hold;
pub mod line;
pub mod observe;
pub mod page;
pub mod turns;
pub mod update;
pub mod view;
pub mod wire;

use crate::error::HostError;
use std::time::Duration;

/// How admission waits for a window: after a reset, `buffer` (the host's and GitHub's clocks
/// differ) plus up to `jitter` (several hosts sharing a quota do not all start at once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolOptions {
    pub buffer: Duration,
    pub jitter: Duration,
    /// Weights per fairness key and urgent shares, per pool (see [`fair`]).
    pub fair: std::sync::Arc<fair::FairRules>,
}

impl Default for PoolOptions {
    fn default() -> PoolOptions {
        PoolOptions {
            buffer: Duration::from_secs(1),
            jitter: Duration::from_secs(2),
            fair: std::sync::Arc::default(),
        }
    }
}

/// The name of the pool deferral `id` waits in: its own, or the default pool when it has none
/// (or the store cannot say), as the words a host writes to GitHub name it.
pub fn pool_name_of(store: &dyn crate::store::Store, id: &str) -> String {
    store
        .pool_of(id)
        .ok()
        .flatten()
        .map_or_else(|| crate::store::pools::DEFAULT_POOL.to_string(), |(p, _)| p)
}

/// Checks a pool name given by a caller (`invalid-pool`, the protocol's rule).
pub fn check_name(name: &str) -> Result<(), HostError> {
    deferral_protocol::PoolName::parse(name)
        .map(drop)
        .map_err(wire::refused)
}
