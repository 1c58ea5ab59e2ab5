//! With a GitHub App: ask GitHub to redeliver the `workflow_run`, `deployment_protection_rule`
//! and `check_run` (a button pressed) deliveries that failed in the last three days (GitHub
//! keeps them that long and never retries one by itself; a lost `deployment_protection_rule`
//! would leave its job waiting 30 days).
//!
//! `GET /app/hook/deliveries?per_page=100` (the App's JWT; newest first, paged with a `cursor`
//! in `Link: rel="next"`) lists every delivery attempt: `id` (of the attempt), `guid` (the
//! `X-GitHub-Delivery`, shared by an attempt and its redeliveries), `delivered_at`,
//! `status_code`, `event`. A `guid` is redelivered (`POST /app/hook/deliveries/{id}/attempts`,
//! its newest attempt) when none of its attempts got a 2xx, its newest attempt is younger than
//! three days, and that attempt failed for a reason another try can mend ([`worth_retrying`]:
//! no answer, 408, 429, 5xx). A delivery the port refused for what it is (401 `bad-signature`,
//! 400 malformed, 413 too large, 415 not JSON) would be refused again, so it is never asked for
//! again. A delivery the port took but GitHub saw fail (an answer later than its 10 s) is asked
//! for once more; the port knows it by its signed identity and answers 200 `already`.

use crate::github::client::{CallError, GithubClient};
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
    status: u64,
}

/// Whether an attempt GitHub saw answered `status` (0: no answer in time, or no connection)
/// may fare better on another try: the port was away, slow or busy. Any other answer is about
/// the delivery itself and would be given again.
pub fn worth_retrying(status: u64) -> bool {
    matches!(status, 0 | 408 | 429 | 500..=599)
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
pub fn sweep(client: &GithubClient, now_ms: u64) -> Swept {
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
            if !matches!(
                event,
                Some("workflow_run" | super::deployment::EVENT | super::check_run::EVENT)
            ) {
                continue;
            }
            let status = entry
                .get("status_code")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            by_guid.entry(guid.to_string()).or_default().push(Attempt {
                id,
                delivered_ms: at,
                status,
            });
        }
        cursor = next_cursor(reply.header("link"));
        if older || cursor.is_none() || page.is_empty() {
            break;
        }
    }
    for attempts in by_guid.values() {
        if attempts.iter().any(|a| (200..300).contains(&a.status)) {
            continue;
        }
        let Some(newest) = attempts.iter().max_by_key(|a| a.delivered_ms) else {
            continue;
        };
        if !worth_retrying(newest.status) {
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

#[cfg(test)]
mod tests {
    use super::{next_cursor, worth_retrying};

    #[test]
    fn only_a_failure_another_try_can_mend_is_retried() {
        for status in [0, 408, 429, 500, 502, 503, 504] {
            assert!(worth_retrying(status), "{status}");
        }
        for status in [301, 400, 401, 403, 404, 405, 413, 415, 422] {
            assert!(!worth_retrying(status), "{status}");
        }
    }

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
