//! The status page's pools (`GET /` and `status --html`): each pool's windows, what is admitted,
//! what waits and when the forecast expects it drained (`expected_drain`, as `status --pools`
//! and `GET /v1/pools` have it), then per pool the first [`SHOWN`] waiting deferrals with their
//! expected start and `will-expire` (as `status` and `show --json` have them). Everything taken
//! from the store is escaped; empty when no pool is listed.

use super::expect::pool_forecast;
use super::forecast::Expected;
use super::PoolOptions;
use crate::clock::iso8601;
use crate::error::HostError;
use crate::html::escape;
use crate::human_time::relative;
use crate::store::pools::{Candidate, PoolRow, Resource, LISTED_IDLE_MS};
use crate::store::Store;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Waiting deferrals listed per pool (the forecast itself plays the whole backlog).
pub const SHOWN: usize = 100;

/// The section: a table of the pools, then each pool's waiting deferrals.
pub fn section_html(store: &dyn Store, now_ms: u64) -> Result<String, HostError> {
    let rows = store.pools(now_ms, now_ms.saturating_sub(LISTED_IDLE_MS))?;
    if rows.is_empty() {
        return Ok(String::new());
    }
    let mut table = String::from("<h2>Pools</h2>\n<table><tr><th>pool</th>");
    for r in Resource::ALL {
        let _ = write!(table, "<th>{} left</th>", r.title());
    }
    table.push_str("<th>admitted</th><th>waiting</th><th>forecast</th></tr>\n");
    let mut waiting = String::new();
    for row in &rows {
        let options = PoolOptions::default();
        let forecast = pool_forecast(store, &row.name, now_ms, &options)?;
        let admitted = store.open_admissions(&row.name, now_ms)?.len();
        let drain = match (forecast.expected.is_empty(), forecast.drain_ms) {
            (true, _) => "nothing waiting".to_string(),
            (false, Some(t)) => format!(
                "expected drain <span class=\"at\">{}</span> ({})",
                iso8601(t),
                relative(t, now_ms)
            ),
            (false, None) => "not drained within 30 days".to_string(),
        };
        let windows: String = Resource::ALL
            .into_iter()
            .map(|r| format!("<td>{}</td>", window_html(row, r)))
            .collect();
        let _ = writeln!(
            table,
            "<tr><td><b class=\"at\">{name}</b></td>{windows}<td>{admitted}</td>\
             <td>{n}</td><td>{drain}</td></tr>",
            name = escape(&row.name),
            n = forecast.expected.len(),
        );
        if !forecast.expected.is_empty() {
            let expected: HashMap<&str, &Expected> = forecast
                .expected
                .iter()
                .map(|e| (e.id.as_str(), e))
                .collect();
            let shown = store.pool_backlog(&row.name, now_ms, SHOWN)?;
            waiting.push_str(&waiting_html(
                &row.name,
                &shown,
                &expected,
                forecast.expected.len(),
            ));
        }
    }
    table.push_str("</table>\n");
    table.push_str(&waiting);
    Ok(table)
}

/// `12 of 45 (reserve 5), resets at ...`, or `-` for a resource the pool has not seen.
fn window_html(row: &PoolRow, resource: Resource) -> String {
    row.window(resource).map_or("-".to_string(), |w| {
        format!(
            "{} of {} (reserve {}), resets <span class=\"at\">{}</span>",
            w.left(),
            w.limit,
            w.reserve,
            iso8601(w.reset_ms)
        )
    })
}

/// One pool's waiting deferrals, earliest expected start first (those not forecast last).
fn waiting_html(
    pool: &str,
    shown: &[Candidate],
    expected: &HashMap<&str, &Expected>,
    total: usize,
) -> String {
    let mut rows: Vec<(&Candidate, Option<&Expected>)> = shown
        .iter()
        .map(|c| (c, expected.get(c.id.as_str()).copied()))
        .collect();
    rows.sort_by_key(|(c, e)| {
        let start = e.and_then(|e| e.start_ms);
        (start.is_none(), start, c.resume_after_ms, c.id.clone())
    });
    let mut out = format!(
        "<h3>Waiting in {} ({total}{})</h3>\n<div class=\"wide\"><table><tr><th>deferral</th><th>priority</th>\
         <th>fairness key</th><th>due</th><th>expected start</th><th>resume by</th><th></th></tr>\n",
        escape(pool),
        if total > rows.len() {
            format!(", the first {} shown", rows.len())
        } else {
            String::new()
        }
    );
    for (c, e) in rows {
        let start = e.and_then(|e| e.start_ms).map_or_else(
            || "not within 30 days".to_string(),
            |t| format!("<span class=\"at\">{}</span>", iso8601(t)),
        );
        let flag = if e.is_some_and(|e| e.will_expire) {
            "<b class=\"expire\">will-expire</b>"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<tr><td><code>{id}</code></td><td>{priority}</td><td>{key}</td>\
             <td><span class=\"at\">{due}</span></td><td>{start}</td>\
             <td><span class=\"at\">{by}</span></td><td>{flag}</td></tr>",
            id = escape(&c.id),
            priority = c.priority,
            key = escape(&c.key),
            due = iso8601(c.resume_after_ms),
            by = iso8601(c.resume_by_ms),
        );
    }
    out.push_str("</table></div>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_caller_named_is_escaped_and_a_late_start_is_flagged() {
        let c = Candidate {
            id: "d-1".into(),
            resume_after_ms: 1_000,
            attempt: 1,
            cost: None,
            priority: 2,
            key: "<img src=x>".into(),
            tenant: "t".into(),
            resume_by_ms: 2_000,
        };
        let e = Expected {
            id: "d-1".into(),
            start_ms: Some(3_000),
            will_expire: true,
            priority: 2,
            key: c.key.clone(),
        };
        let map = HashMap::from([("d-1", &e)]);
        let html = waiting_html("p<1>", std::slice::from_ref(&c), &map, 1);
        assert!(
            !html.contains("<img") && html.contains("&lt;img src=x&gt;"),
            "{html}"
        );
        assert!(html.contains("Waiting in p&lt;1&gt; (1)"), "{html}");
        let row = html.lines().find(|l| l.contains("d-1")).unwrap();
        assert!(
            row.contains(&iso8601(3_000)) && row.contains("will-expire"),
            "{row}"
        );
        let unflagged = Expected {
            will_expire: false,
            start_ms: None,
            ..e.clone()
        };
        let map = HashMap::from([("d-1", &unflagged)]);
        let html = waiting_html("p", std::slice::from_ref(&c), &map, 3);
        assert!(!html.contains("will-expire"), "{html}");
        assert!(html.contains("not within 30 days"), "{html}");
        assert!(html.contains("(3, the first 1 shown)"), "{html}");
    }
}
