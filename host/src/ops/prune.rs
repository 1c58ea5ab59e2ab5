//! `prune`: ended deferrals older than the retention removed with their rows, and the
//! bookkeeping GitHub no longer needs (`deferral-host prune`, and `run --retention` in its own
//! thread). What may go is the store's rule (`store::retention`); this is the loop of small
//! batches, each its own short transaction, with a pause between them so that the scheduler,
//! the port and other processes on the store take their turns.

use crate::clock::iso8601;
use crate::error::HostError;
use crate::store::retention::{Horizon, Removed};
use crate::store::Store;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// Deferrals a batch removes at most (each with its rows: a few dozen rows in all).
pub const BATCH: usize = 100;

/// The pause between two batches.
pub const PAUSE: Duration = Duration::from_millis(10);

#[derive(Debug, Clone)]
pub struct PruneOptions {
    /// Ended deferrals last changed longer ago than this go.
    pub retention: Duration,
    /// Count what would go; remove nothing.
    pub dry_run: bool,
    pub batch: usize,
    pub pause: Duration,
}

/// What a prune removed (or, with `dry_run`, would remove).
#[derive(Debug, Clone, Serialize)]
pub struct Pruned {
    pub dry_run: bool,
    /// Ended deferrals last changed at or before this instant (ISO 8601) went.
    pub ended_before: String,
    /// Webhook delivery ids and cached answers from at or before this instant went.
    pub bookkeeping_before: String,
    /// The ended deferrals removed.
    pub deferrals: u64,
    /// Rows removed per table, the deferrals' among them.
    pub rows: BTreeMap<&'static str, u64>,
    /// Transactions it took (0 for a dry run).
    pub batches: u64,
    /// A stop came before the end (`run` stopping): what is left goes next time.
    pub stopped: bool,
}

impl Pruned {
    fn new(options: &PruneOptions, horizon: &Horizon, removed: &Removed) -> Pruned {
        Pruned {
            dry_run: options.dry_run,
            ended_before: iso8601(horizon.ended_before_ms),
            bookkeeping_before: iso8601(horizon.bookkeeping_before_ms),
            deferrals: removed.of("deferrals"),
            rows: removed.rows.clone(),
            batches: 0,
            stopped: false,
        }
    }

    /// One sentence for people: what went (or would go), by kind.
    pub fn sentence(&self) -> String {
        let verb = if self.dry_run {
            "would remove"
        } else {
            "removed"
        };
        let n = |table: &str| self.rows.get(table).copied().unwrap_or(0);
        format!(
            "{verb} {} ended deferrals last changed before {} ({} receipts, {} events, {} runs, \
             {} admissions, {} pool observations; {} rows in all), {} webhook delivery ids and {} \
             cached answers from before {}",
            self.deferrals,
            self.ended_before,
            n("receipts"),
            n("events"),
            n("runs"),
            n("admissions"),
            n("pool_observations"),
            self.rows.values().sum::<u64>(),
            n("github_deliveries"),
            n("http_cache"),
            self.bookkeeping_before,
        )
    }
}

/// Prunes (or counts, with `dry_run`) at `now_ms`, in batches until none is left or `stop`
/// says so (it is asked between batches).
pub fn prune(
    store: &dyn Store,
    options: &PruneOptions,
    now_ms: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Pruned, HostError> {
    let retention_ms = u64::try_from(options.retention.as_millis()).unwrap_or(u64::MAX);
    let horizon = Horizon::at(now_ms, retention_ms);
    if options.dry_run {
        let counted = store.count_prunable(&horizon)?;
        return Ok(Pruned::new(options, &horizon, &counted));
    }
    let batch = options.batch.max(1);
    let mut removed = Removed::default();
    let mut batches = 0;
    // The deferrals' batches, then the rest's: each loop ends at a batch that was not full.
    for ended in [true, false] {
        loop {
            if stop() {
                let mut pruned = Pruned::new(options, &horizon, &removed);
                pruned.batches = batches;
                pruned.stopped = true;
                return Ok(pruned);
            }
            let this = if ended {
                store.prune_ended(&horizon, batch)?
            } else {
                store.prune_bookkeeping(&horizon, batch)?
            };
            batches += 1;
            removed.merge(&this);
            let full = if ended {
                this.of("deferrals") >= batch as u64
            } else {
                this.rows.values().any(|n| *n >= batch as u64)
            };
            if !full {
                break;
            }
            std::thread::sleep(options.pause);
        }
    }
    let mut pruned = Pruned::new(options, &horizon, &removed);
    pruned.batches = batches;
    Ok(pruned)
}

/// A retention as `--older-than` and `run --retention` take it: a duration (`30d`, `72h`) of at
/// least [`MIN_RETENTION_MS`](crate::store::retention::MIN_RETENTION_MS).
pub fn parse_retention(text: &str) -> Result<Duration, String> {
    let retention = crate::clock::parse_duration(text)?;
    let min = Duration::from_millis(crate::store::retention::MIN_RETENTION_MS);
    if retention < min {
        return Err(format!(
            "{text:?} is shorter than the shortest retention, 2d (a receipt spans up to a day: \
             a deferral removed sooner could have its receipt recorded again)"
        ));
    }
    Ok(retention)
}
