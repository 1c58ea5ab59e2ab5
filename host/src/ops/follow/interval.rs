//! `tick --follow-interval D`: polling as the reconciler of webhooks. A workflow's dispatched
//! runs are listed at most once every D: not before D has passed since the last list call for
//! that workflow, nor since the oldest of its attempts was dispatched (a run gets D for its
//! `workflow_run` delivery to arrive and end it first). Without the flag every pass follows.
//!
//! The time of each workflow's last pass is kept beside the ETags, in the store's HTTP cache
//! (`follow-pass:` keys), so that every ticker on the store sees it.

use crate::store::Store;

fn key(api_url: &str, workflow: &str) -> String {
    format!("follow-pass:{api_url}/{workflow}")
}

/// When the workflow's runs were last listed, if the store remembers.
fn last_pass(store: &dyn Store, api_url: &str, workflow: &str) -> Option<u64> {
    let (_, body) = store.cached(&key(api_url, workflow)).ok().flatten()?;
    body.parse().ok()
}

/// Whether the workflow is due a list call at `now_ms` (its oldest pending attempt was
/// dispatched at `oldest_dispatch_ms`).
pub fn due(
    store: &dyn Store,
    api_url: &str,
    workflow: &str,
    every_ms: u64,
    oldest_dispatch_ms: u64,
    now_ms: u64,
) -> bool {
    let since = last_pass(store, api_url, workflow)
        .unwrap_or(0)
        .max(oldest_dispatch_ms);
    now_ms.saturating_sub(since) >= every_ms
}

/// Remembers that the workflow's runs were listed at `now_ms` (a failed write costs an early
/// list call next time, nothing else).
pub fn passed(store: &dyn Store, api_url: &str, workflow: &str, now_ms: u64) {
    let _ = store.put_cached(&key(api_url, workflow), "", &now_ms.to_string(), now_ms);
}
