//! The status page (`status --html FILE`, and `GET /` on `serve`): one self-contained HTML
//! document with counts per state, a timeline of pending windows and recent outcomes with
//! their causes. No script, no external asset (a Content-Security-Policy of `default-src
//! 'none'` says so to the browser); every text taken from the store is escaped. The page reads
//! only what it draws: counts per state in one query, and at most [`MAX_ROWS`] rows of each
//! state it shows, by bounded queries in the order it draws them.

use crate::clock::iso8601;
use crate::error::{HostError, HostErrorKind};
use crate::human_time::relative;
use crate::store::{Deferral, PageOrder, Store, StoreError};
use deferral_core::lifecycle::State;
use std::fmt::Write as _;
use std::path::Path;

/// What the page may load: nothing but its own inline style (also in the page's `<meta>`, where
/// a browser ignores `frame-ancestors`: `serve` adds [`FRAME_ANCESTORS`] in its header).
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// No site may show the page in a frame (sent as a header only: see above).
pub const FRAME_ANCESTORS: &str = "frame-ancestors 'none'";

/// Most rows in the timeline and in the outcomes table; the counts cover the whole store.
pub const MAX_ROWS: usize = 100;

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.sub{color:#59636e;margin:0 0 16px}
.counts{display:flex;gap:10px;flex-wrap:wrap}
.count{border:1px solid #d1d9e0;border-radius:6px;padding:8px 14px;min-width:84px}
.count b{display:block;font-size:24px}
.deferred{border-left:6px solid #0969da}.resumable{border-left:6px solid #bf8700}
.complete{border-left:6px solid #1a7f37}.blocked{border-left:6px solid #cf222e}
.cancelled{border-left:6px solid #818b98}.ready{border-left:6px solid #8250df}
table{border-collapse:collapse}td,th{border-bottom:1px solid #d1d9e0;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{font-size:12px}.at{white-space:nowrap}
svg text{font:12px system-ui,sans-serif;fill:#1f2328}
.empty{color:#59636e}
h3{font-size:14px;margin:18px 0 6px}.expire{color:#cf222e}.wide{overflow-x:auto}
";

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page for a whole store (what `GET /` on `serve` answers).
///
/// # Errors
/// A store failure.
pub fn store_page(store: &dyn Store, now: u64) -> Result<String, HostError> {
    let rows = page_rows(store, None, MAX_ROWS)?;
    Ok(status_page(&store.count_by_state()?, &rows, now))
}

/// The rows the page draws, and no others: the `limit` (at most [`MAX_ROWS`]) earliest pending
/// windows and the `limit` latest outcomes, of state `only` when given. Each state is one
/// bounded query in the page's order, so the union holds the first rows of each kind.
///
/// # Errors
/// A store failure.
pub fn page_rows(
    store: &dyn Store,
    only: Option<State>,
    limit: usize,
) -> Result<Vec<Deferral>, StoreError> {
    let limit = limit.min(MAX_ROWS);
    let wanted = |state: &State| only.is_none_or(|only| only == *state);
    let read = |states: &[State], order: PageOrder| -> Result<Vec<Deferral>, StoreError> {
        let mut rows = Vec::new();
        for state in states.iter().filter(|s| wanted(s)) {
            rows.extend(store.first_in_state(*state, order, limit)?);
        }
        Ok(rows)
    };
    let mut pending = read(&[State::Deferred, State::Resumable], PageOrder::WindowOpens)?;
    sort_pending(&mut pending);
    pending.truncate(limit);
    let mut done = read(
        &[State::Complete, State::Blocked, State::Cancelled],
        PageOrder::LastChanged,
    )?;
    sort_done(&mut done);
    done.truncate(limit);
    pending.extend(done);
    Ok(pending)
}

fn sort_pending<D: std::borrow::Borrow<Deferral>>(rows: &mut [D]) {
    rows.sort_by(|a, b| {
        let (a, b) = (a.borrow(), b.borrow());
        (a.resume_after_ms, &a.id).cmp(&(b.resume_after_ms, &b.id))
    });
}

fn sort_done<D: std::borrow::Borrow<Deferral>>(rows: &mut [D]) {
    rows.sort_by(|a, b| {
        let (a, b) = (a.borrow(), b.borrow());
        (b.updated_ms, &b.id).cmp(&(a.updated_ms, &a.id))
    });
}

/// Writes the page to `path` without following a symlink planted there, through
/// [`crate::replace_file`] (mode `0600`): `path` ends up a regular file and whatever a link
/// there pointed to is left untouched.
///
/// # Errors
/// `unwritable-output` when the file cannot be created, written or renamed.
pub fn write_page_file(path: &Path, page: &str) -> Result<(), HostError> {
    crate::replace_file::replace_file(path, page.as_bytes(), 0o600).map_err(|err| {
        HostError::new(
            HostErrorKind::UnwritableOutput,
            format!("cannot write {}: {err}", path.display()),
        )
    })
}

/// The whole page. `counts` per state (from the whole store), `rows` the deferrals to draw.
pub fn status_page(counts: &[(State, u64)], rows: &[Deferral], now: u64) -> String {
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>deferral-host status</title><style>{STYLE}</style></head><body>\n\
         <h1>deferral-host status</h1><p class=\"sub\">as of <span class=\"at\">{}</span></p>\n",
        iso8601(now)
    );
    page.push_str(&counts_section(counts));
    page.push_str(&timeline_section(rows, now));
    page.push_str(&outcomes_section(rows, now));
    page.push_str("</body></html>\n");
    page
}

fn counts_section(counts: &[(State, u64)]) -> String {
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    let mut out = format!("<h2>Deferrals by state ({total} in all)</h2><div class=\"counts\">");
    for state in State::ALL {
        let n = counts
            .iter()
            .find(|(s, _)| *s == state)
            .map_or(0, |(_, n)| *n);
        let _ = write!(
            out,
            "<div class=\"count {0}\"><b>{n}</b>{0}</div>",
            state.as_str()
        );
    }
    out.push_str("</div>\n");
    out
}

/// Pending windows (deferred and resumable) on one time axis, earliest first, with a line at now.
fn timeline_section(rows: &[Deferral], now: u64) -> String {
    let mut pending: Vec<&Deferral> = rows
        .iter()
        .filter(|d| matches!(d.state, State::Deferred | State::Resumable))
        .collect();
    sort_pending(&mut pending);
    pending.truncate(MAX_ROWS);
    let mut out = String::from("<h2>Pending windows (resume after → resume by)</h2>\n");
    if pending.is_empty() {
        out.push_str("<p class=\"empty\">Nothing is waiting.</p>\n");
        return out;
    }
    let start = pending
        .iter()
        .map(|d| d.resume_after_ms)
        .min()
        .unwrap_or(now)
        .min(now);
    let end = pending
        .iter()
        .map(|d| d.resume_by_ms)
        .max()
        .unwrap_or(now)
        .max(now + 1);
    let (label_w, bar_w, row_h) = (330.0_f64, 560.0_f64, 24.0_f64);
    #[allow(clippy::cast_precision_loss)] // screen positions, not times
    let x = |t: u64| label_w + (t.saturating_sub(start)) as f64 / (end - start) as f64 * bar_w;
    #[allow(clippy::cast_precision_loss)]
    let height = 56.0 + row_h * pending.len() as f64;
    let _ = write!(
        out,
        "<svg width=\"{w}\" height=\"{height}\" role=\"img\" aria-label=\"pending windows\">",
        w = label_w + bar_w + 20.0
    );
    for (i, d) in pending.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let y = 26.0 + row_h * i as f64;
        let color = if d.state == State::Resumable {
            "#bf8700"
        } else {
            "#0969da"
        };
        let (x0, x1) = (x(d.resume_after_ms), x(d.resume_by_ms));
        let _ = write!(
            out,
            "<text x=\"0\" y=\"{ty}\">{id} · {state}, {due}</text>\
             <rect x=\"{x0:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"16\" rx=\"3\" fill=\"{color}\">\
             <title>{id}: {after} → {by}</title></rect>",
            ty = y + 12.0,
            id = escape(&d.id),
            state = d.state.as_str(),
            due = escape(&relative(d.resume_after_ms, now)),
            w = (x1 - x0).max(2.0),
            after = iso8601(d.resume_after_ms),
            by = iso8601(d.resume_by_ms),
        );
    }
    let axis_y = height - 22.0;
    let _ = writeln!(
        out,
        "<line x1=\"{n:.1}\" y1=\"18\" x2=\"{n:.1}\" y2=\"{axis_y}\" stroke=\"#cf222e\" stroke-width=\"2\"/>\
         <text x=\"{n:.1}\" y=\"12\" fill=\"#cf222e\" text-anchor=\"middle\">now</text>\
         <text x=\"{label_w}\" y=\"{by}\">{s}</text>\
         <text x=\"{e:.1}\" y=\"{by}\" text-anchor=\"end\">{end_text}</text></svg>",
        n = x(now),
        by = axis_y + 14.0,
        s = iso8601(start),
        e = label_w + bar_w,
        end_text = iso8601(end),
    );
    out
}

/// The latest outcomes (complete, blocked, cancelled), newest first, with cause and detail.
fn outcomes_section(rows: &[Deferral], now: u64) -> String {
    let mut done: Vec<&Deferral> = rows.iter().filter(|d| d.state.is_terminal()).collect();
    sort_done(&mut done);
    done.truncate(MAX_ROWS);
    let mut out = String::from("<h2>Recent outcomes</h2>\n");
    if done.is_empty() {
        out.push_str("<p class=\"empty\">No outcome yet.</p>\n");
        return out;
    }
    out.push_str(
        "<table><tr><th>when</th><th>deferral</th><th>outcome</th><th>cause</th>\
         <th>detail</th><th>re-entries</th><th>reason</th></tr>\n",
    );
    for d in done {
        let _ = writeln!(
            out,
            "<tr class=\"{state}\"><td>{when}<br><code class=\"at\">{at}</code></td><td><code>{id}</code></td>\
             <td>{state}</td><td>{cause}</td><td>{detail}</td><td>{re}/{max}</td><td>{reason}</td></tr>",
            state = d.state.as_str(),
            when = escape(&relative(d.updated_ms, now)),
            at = iso8601(d.updated_ms),
            id = escape(&d.id),
            cause = escape(&d.cause),
            // A detail that only repeats the cause (a cancel: `operator`, `operator`) is said once.
            detail = escape(d.detail.as_deref().filter(|x| *x != d.cause).unwrap_or("")),
            re = d.reentries,
            max = d.max_reentries,
            reason = escape(&d.reason),
        );
    }
    out.push_str("</table>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_covers_markup_and_both_quotes() {
        assert_eq!(
            escape("<img src=x onerror='a(\"1\")'>&"),
            "&lt;img src=x onerror=&#39;a(&quot;1&quot;)&#39;&gt;&amp;"
        );
    }
}
