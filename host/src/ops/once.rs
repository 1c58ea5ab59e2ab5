//! A call to GitHub made once across replicas and restarts, by notes in the store's table of
//! things seen once ([`crate::store::LoopStore::note_delivery`], event [`EVENT`]):
//!
//! * `KEY`: done (GitHub answered, whatever it said): never again;
//! * `KEY:try:N`: try N is claimed by the replica that sends it;
//! * `KEY:failed:N`: try N never reached GitHub (unreachable, the quota stopped it), so try
//!   N + 1 may be claimed.
//!
//! A try claimed and not known to have failed is never followed by another (it is in flight,
//! or its replica stopped before it knew): so two replicas never both send one, at the price of
//! a call lost when a replica stops between its claim and GitHub's answer.

use crate::store::Store;

/// The event the notes carry in the store (a pruning of old deliveries must keep them).
pub const EVENT: &str = "once";

/// What [`claim`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This replica sends try N.
    Mine(u32),
    /// Done already, or a try is in flight: nothing to do.
    Busy,
    /// Every try failed: given up (and noted done).
    GivenUp,
}

fn try_key(key: &str, n: u32) -> String {
    format!("{key}:try:{n}")
}

fn failed_key(key: &str, n: u32) -> String {
    format!("{key}:failed:{n}")
}

/// Whether `key` is done.
pub fn is_done(store: &dyn Store, key: &str) -> bool {
    store.delivery_noted(key).unwrap_or(true)
}

/// Claims the next try of `key`, at most `max` of them.
pub fn claim(store: &dyn Store, key: &str, max: u32, now_ms: u64) -> Claim {
    if is_done(store, key) {
        return Claim::Busy;
    }
    for n in 0..max {
        match store.note_delivery(&try_key(key, n), EVENT, now_ms) {
            Ok(true) => return Claim::Mine(n),
            Ok(false) if store.delivery_noted(&failed_key(key, n)).unwrap_or(false) => {}
            Ok(false) | Err(_) => return Claim::Busy,
        }
    }
    done(store, key, now_ms);
    Claim::GivenUp
}

/// GitHub answered `key`'s call: never again.
pub fn done(store: &dyn Store, key: &str, now_ms: u64) {
    let _ = store.note_delivery(key, EVENT, now_ms);
}

/// Try `n` of `key` never reached GitHub: the next pass may claim the next.
pub fn failed(store: &dyn Store, key: &str, n: u32, now_ms: u64) {
    let _ = store.note_delivery(&failed_key(key, n), EVENT, now_ms);
}
