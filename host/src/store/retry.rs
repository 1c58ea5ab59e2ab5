//! The links between a blocked deferral and its retry (migration "retries"):
//!
//! * `retries`: one row per retry, `retry_id` the new deferral, `original_id` the blocked one it
//!   retries. `original_id` is unique, so a deferral is retried at most once, even when two
//!   operators race: the loser's insert rolls back with `Duplicate`.
//!
//! The blocked deferral's row, receipts and events stay as they were (history is append-only):
//! the link lives here only. The receipt digests stay keyed by the deferral that first recorded
//! them (`receipt_keys` is unique), and a look-up by digest or artifact follows the links to
//! the latest retry ([`latest_retry`]).

use super::StoreError;

/// A deferral's retry links, both ways.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetryLink {
    /// The blocked deferral this one retries.
    pub retry_of: Option<String>,
    /// The deferral that retries this one.
    pub retried_by: Option<String>,
}

/// The retry side of a store. Every backend implements it.
pub trait RetryStore {
    /// The retry links of `deferral_id` (none when it has none).
    fn retry_link(&self, deferral_id: &str) -> Result<RetryLink, StoreError>;
}

/// How many retries a look-up follows at most (a guard: each retry needs an operator).
const MAX_FOLLOWED: usize = 1000;

/// The last deferral of `id`'s retries (`id` itself when it was never retried).
pub fn latest_retry(store: &dyn RetryStore, id: String) -> Result<String, StoreError> {
    let mut current = id;
    for _ in 0..MAX_FOLLOWED {
        match store.retry_link(&current)?.retried_by {
            Some(next) => current = next,
            None => return Ok(current),
        }
    }
    Ok(current)
}
