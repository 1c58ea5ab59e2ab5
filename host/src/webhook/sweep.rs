//! With a GitHub App: ask GitHub to redeliver the `workflow_run` and `deployment_protection_rule`
//! deliveries that failed in the last three days (GitHub keeps them that long and never retries
//! one by itself; a lost `deployment_protection_rule` would leave its job waiting 30 days).
//!
//! `GET /app/hook/deliveries?per_page=100` (the App's JWT; newest first, paged with a `cursor`
//! in `Link: rel="next"`) lists every delivery attempt: `id` (of the attempt), `guid` (the
//! `X-GitHub-Delivery`, shared by an attempt and its redeliveries), `delivered_at`,
//! `status_code`, `event`. A `guid` is redelivered (`POST /app/hook/deliveries/{id}/attempts`,
//! its newest attempt) when none of its attempts got a 2xx, its newest attempt is younger than
//! three days, and this store has not noted it (the port took it, whatever it answered).

use crate::github::client::{CallError, GithubClient};
use crate::store::Store;
use deferral_core::signals::time::parse_iso8601;
use serde_json::Value;
use std::collections::BTreeMap;

/// How far back GitHub keeps deliveries, and so how far the sweep looks.
pub const WINDOW_MS: u64 = 3 * 24 * 3_600_000;
/// Pages of 100 read at most in one sweep.
const MAX_PAGES: usize = 20;

/// What one sweep did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub listed: usize,
    /// Delivery attempts GitHub was asked to redeliver.
    pub redelivered: Vec<u64>,
    pub errors: Vec<String>,
}

struct Attempt {
    id: u64,
    delivered_ms: u64,
    ok: bool,
}

/// The `cursor` of a `Link` header's `rel="next"`.
fn next_cursor(link: Option<&str>) -> Option<String> {
    link?.split(',').find_map(|part| {
        let (url, rel) = part.split_once(';')?;
        if !rel.contains("rel=\"next\"") {
            return None;
        }
        let url = url.trim().trim_start_matches('<').trim_end_matches('>');
        let query = url.split_once('?')?.1;
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix("cursor=").map(str::to_string))
    })
}

/// One sweep at `now_ms`.
pub fn sweep(client: &GithubClient, store: &dyn Store, now_ms: u64) -> Swept {
    let mut swept = Swept::default();
    let since = now_ms.saturating_sub(WINDOW_MS);
    let mut by_guid: BTreeMap<String, Vec<Attempt>> = BTreeMap::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let path = match &cursor {
            Some(c) => format!("/app/hook/deliveries?per_page=100&cursor={c}"),
            None => "/app/hook/deliveries?per_page=100".to_string(),
        };
        let reply = match client.app_call("GET", &path, None) {
            Ok(reply) if reply.status == 200 => reply,
            Ok(reply) => {
                swept.errors.push(format!(
                    "GET /app/hook/deliveries: HTTP {}: {}",
                    reply.status,
                    reply.message()
                ));
                break;
            }
            Err(err) => {
                swept
                    .errors
                    .push(format!("GET /app/hook/deliveries: {}", err.message()));
                break;
            }
        };
        let Ok(Value::Array(page)) = reply.json().map_err(|e: CallError| e) else {
            swept
                .errors
                .push("GET /app/hook/deliveries: not a list".into());
            break;
        };
        let mut older = false;
        for entry in &page {
            let (Some(id), Some(guid), Some(at)) = (
                entry.get("id").and_then(Value::as_u64),
                entry.get("guid").and_then(Value::as_str),
                entry
                    .get("delivered_at")
                    .and_then(Value::as_str)
                    .and_then(parse_iso8601),
            ) else {
                continue;
            };
            swept.listed += 1;
            if at < since {
                older = true;
                continue;
            }
            let event = entry.get("event").and_then(Value::as_str);
            if !matches!(event, Some("workflow_run" | super::deployment::EVENT)) {
                continue;
            }
            let status = entry
                .get("status_code")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            by_guid.entry(guid.to_string()).or_default().push(Attempt {
                id,
                delivered_ms: at,
                ok: (200..300).contains(&status),
            });
        }
        cursor = next_cursor(reply.header("link"));
        if older || cursor.is_none() || page.is_empty() {
            break;
        }
    }
    for (guid, attempts) in by_guid {
        if attempts.iter().any(|a| a.ok) {
            continue;
        }
        let Some(newest) = attempts.iter().max_by_key(|a| a.delivered_ms) else {
            continue;
        };
        // Noted here: the port took it (and may have answered 5xx after): not again.
        if store_has(store, &guid) {
            continue;
        }
        let path = format!("/app/hook/deliveries/{}/attempts", newest.id);
        match client.app_call("POST", &path, Some(b"{}")) {
            Ok(reply) if (200..300).contains(&reply.status) => swept.redelivered.push(newest.id),
            Ok(reply) => swept.errors.push(format!(
                "redeliver {}: HTTP {}: {}",
                newest.id,
                reply.status,
                reply.message()
            )),
            Err(err) => swept
                .errors
                .push(format!("redeliver {}: {}", newest.id, err.message())),
        }
    }
    swept
}

/// Whether the store noted `guid` already (checked without noting it: a redelivery must still
/// be new when it arrives).
fn store_has(store: &dyn Store, guid: &str) -> bool {
    store.delivery_noted(guid).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::next_cursor;

    #[test]
    fn the_next_page_is_read_from_link() {
        let link = r#"<https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_123>; rel="next", <https://api.github.com/app/hook/deliveries?per_page=100>; rel="first""#;
        assert_eq!(next_cursor(Some(link)).as_deref(), Some("v1_123"));
        assert_eq!(
            next_cursor(Some(r#"<https://x/?cursor=a>; rel="prev""#)),
            None
        );
        assert_eq!(next_cursor(None), None);
    }
}
