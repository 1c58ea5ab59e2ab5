//! `run --retention DURATION`: the prune of `deferral-host prune` (see [`crate::ops::prune`]) at
//! start and then every hour, in a thread of its own with a store connection of its own. Never
//! on the scheduler's pass: the passes and the port wait at most for one small batch (one short
//! transaction), and the batches pause between them. A stop is seen between batches.

use super::wake::Wake;
use crate::clock::now_ms;
use crate::ops::prune::{prune, PruneOptions};
use crate::store::{IntegrityCheck, Store, StoreUrl};
use std::sync::Arc;
use std::time::Duration;

/// How often it prunes.
pub const EVERY: Duration = Duration::from_secs(3600);

/// Deferrals per batch: a quarter of the command's, so that a pass or a request waiting for
/// the store waits for a shorter transaction.
const BATCH: usize = 25;

/// The pause between two batches: longer than the command's, for the same reason.
const PAUSE: Duration = Duration::from_millis(50);

fn log(level: &str, message: &str) {
    crate::logs::message(level, "run", message);
}

/// Starts the thread that prunes with `retention` until `stop` is rung.
pub fn start(
    store: StoreUrl,
    retention: Duration,
    stop: Arc<Wake>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("deferral-retention".into())
        .spawn(move || keep(&store, retention, &stop))
}

fn keep(url: &StoreUrl, retention: Duration, stop: &Wake) {
    let options = PruneOptions {
        retention,
        dry_run: false,
        batch: BATCH,
        pause: PAUSE,
    };
    let mut store: Option<Box<dyn Store + Send>> = None;
    loop {
        if store.is_none() {
            match url.open_existing(IntegrityCheck::Off) {
                Ok(opened) => store = Some(opened),
                Err(err) => log("warn", &format!("prune: cannot open the store: {err}")),
            }
        }
        if let Some(connection) = &store {
            match prune(&**connection, &options, now_ms(), &|| stop.is_stopping()) {
                Ok(pruned) => {
                    if pruned.rows.values().any(|n| *n > 0) {
                        log("info", &format!("prune: {}", pruned.sentence()));
                    }
                }
                Err(err) => {
                    log("warn", &format!("prune: {err}; trying again in an hour"));
                    // A connection that failed is opened again next time.
                    store = None;
                }
            }
        }
        if stop.wait(EVERY).stop {
            return;
        }
    }
}
