//! How a finished attempt is shown: the CLI's one JSON line, the Action's outputs, the job
//! summary (with a Mermaid timeline of a deferral), the annotation and log line (escaped as
//! workflow-command data), and the human verdict for a terminal. All from one [`Finished`], so
//! the surfaces always agree, and none of them holds the token, scope, request or repository.

use super::markdown;
use crate::runner::{escape_data, escape_property};
use deferral_core::decision::{
    BindingFigures, Decision, Diagnostic, Resource, ResourceFigures, Status,
};
use deferral_core::exit::Exit;
use deferral_core::json::write_json_string;
use deferral_core::receipt::{Bindings, Receipt};
use deferral_core::signals::time::civil_from_ms;
use deferral_protocol::{LineFigures, LinePlan, PerResource};
use serde::Serialize;
use serde_json::value::RawValue;

/// Which command an attempt ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Gate,
    Resume,
}

/// A finished attempt.
#[derive(Debug, Clone)]
pub struct Finished {
    pub mode: Mode,
    /// `ready`, `deferred`, `blocked` or `error`.
    pub status: Status,
    pub code: Option<String>,
    /// For a stop before any decision: its message and JSON path.
    pub error: Option<(String, String)>,
    pub decision: Option<Decision>,
    pub receipt: Option<Receipt>,
    pub ownership: Option<&'static str>,
    pub field: Option<&'static str>,
    pub diagnostics: Vec<Diagnostic>,
    pub exit: Exit,
    /// The durable host's id, once a port retained the receipt.
    pub deferral_id: Option<String>,
    /// Where the raw cancellation handle of a retained receipt was written.
    pub handle_path: Option<String>,
    /// The pool named (`coordinator-pool`), when the gate has a durable port and a pool.
    pub pool: Option<String>,
    /// The pool's admission id, when the port admitted the plan.
    pub admission: Option<String>,
    /// Why the pool refused the plan (the port's words), when it did.
    pub pool_reason: Option<String>,
    /// The commit status the host keeps for a retained deferral (`coordinator-commit`).
    pub commit: Option<CommitLink>,
}

/// Where a retained deferral shows on GitHub: its status's context on a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitLink {
    /// The commit's page (`GITHUB_SERVER_URL/OWNER/REPO/commit/SHA`).
    pub url: String,
    pub context: String,
    pub sha: String,
}

/// JSON string text of `s`.
pub fn quote(s: &str) -> String {
    let mut out = String::new();
    write_json_string(&mut out, s);
    out
}

/// `2026-11-30T05:31:09.870Z`, as JavaScript's `toISOString`.
pub fn iso_ms(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_ms(ms);
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        ms % 1000
    )
}

/// `2026-11-30 05:31:09 UTC`.
pub fn utc_text(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_ms(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} UTC")
}

/// `2026-11-30 06:31:09 +01:00`: `ms` in a zone `offset_min` minutes east of UTC.
pub fn local_text(ms: u64, offset_min: i64) -> String {
    let shifted = i64::try_from(ms).unwrap_or(i64::MAX) + offset_min * 60_000;
    let (y, mo, d, h, mi, s) = civil_from_ms(u64::try_from(shifted).unwrap_or(0));
    let sign = if offset_min < 0 { '-' } else { '+' };
    let abs = offset_min.unsigned_abs();
    format!(
        "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} {sign}{:02}:{:02}",
        abs / 60,
        abs % 60
    )
}

/// The CLI's line: members in this order, the optional ones only when they apply.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    status: &'static str,
    mode: Mode,
    code: Option<&'a str>,
    reason: Option<&'a str>,
    resume_after: Option<String>,
    resume_by: Option<String>,
    fresh_approval_required: Option<bool>,
    unlimited: bool,
    rest: Option<LineFigures>,
    graphql: Option<LineFigures>,
    plan: Option<LinePlan>,
    secondary_minutes: u64,
    bindings: Option<BindingsLine<'a>>,
    diagnostics: Vec<CodeMessage<'a>>,
    /// Resume only (`null` when there is no ownership): absent, null or a value.
    #[allow(clippy::option_option)]
    #[serde(skip_serializing_if = "Option::is_none")]
    ownership: Option<Option<&'static str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deferral_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancellation_handle_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    admission: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pool_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deferred_receipt: Option<Box<RawValue>>,
}

/// One resource's figures in the line (the protocol's, which the host reads).
fn figures(f: &ResourceFigures) -> LineFigures {
    LineFigures {
        limit: f.limit,
        remaining: f.remaining,
        reserve: f.reserve,
        planned_cost: f.planned_cost,
        reset: f.reset,
        ok: f.ok,
    }
}

/// A receipt's bindings as the receipt spells them.
#[derive(Serialize)]
pub struct BindingsLine<'a> {
    pub scope_digest: &'a str,
    pub request_digest: &'a str,
    pub plan_digest: Option<&'a str>,
}

impl<'a> From<&'a Bindings> for BindingsLine<'a> {
    fn from(b: &'a Bindings) -> BindingsLine<'a> {
        BindingsLine {
            scope_digest: &b.scope_digest,
            request_digest: &b.request_digest,
            plan_digest: b.plan_digest.as_deref(),
        }
    }
}

impl<'a> From<&'a BindingFigures> for BindingsLine<'a> {
    fn from(b: &'a BindingFigures) -> BindingsLine<'a> {
        BindingsLine {
            scope_digest: &b.scope_digest,
            request_digest: &b.request_digest,
            plan_digest: b.plan_digest.as_deref(),
        }
    }
}

/// A diagnostic, or an error's code and message.
#[derive(Serialize)]
pub struct CodeMessage<'a> {
    pub code: &'a str,
    pub message: &'a str,
}

/// A stop's error in the line.
#[derive(Serialize)]
struct ErrorLine<'a> {
    code: &'a str,
    message: &'a str,
    path: &'a str,
}

impl Finished {
    fn reason(&self) -> Option<&str> {
        self.receipt
            .as_ref()
            .map(|r| r.reason.as_str())
            .or_else(|| self.decision.as_ref().and_then(|d| d.reason))
    }

    fn resume_after(&self) -> Option<u64> {
        self.receipt
            .as_ref()
            .map(|r| r.resume_after_ms)
            .or_else(|| self.decision.as_ref().and_then(|d| d.resume_after_ms))
    }

    fn resume_by(&self) -> Option<u64> {
        self.receipt
            .as_ref()
            .map(|r| r.resume_by_ms)
            .or_else(|| self.decision.as_ref().and_then(|d| d.resume_by_ms))
    }

    /// The receipt to hand on: a deferral's, or the handoff receipt kept when a durable port
    /// then failed (status error).
    fn deferred_receipt(&self) -> Option<&Receipt> {
        self.receipt
            .as_ref()
            .filter(|_| self.status == Status::Deferred || self.status == Status::Error)
    }

    /// The first diagnostic's message for the stop code, or the error message.
    fn why(&self) -> Option<&str> {
        if let Some((message, _)) = &self.error {
            return Some(message);
        }
        let code = self.code.as_deref()?;
        self.diagnostics
            .iter()
            .find(|d| d.code == code)
            .map(|d| d.message.as_str())
    }

    /// The CLI's one JSON line (without the newline).
    pub fn line(&self) -> String {
        let d = self.decision.as_ref();
        let line = Line {
            status: self.status.as_str(),
            mode: self.mode,
            code: self.code.as_deref(),
            reason: self.reason(),
            resume_after: self.resume_after().map(iso_ms),
            resume_by: self.resume_by().map(iso_ms),
            fresh_approval_required: self.receipt.as_ref().map(|r| r.fresh_approval_required),
            unlimited: d.is_some_and(|d| d.unlimited),
            rest: d.and_then(|d| d.rest.as_ref()).map(figures),
            graphql: d.and_then(|d| d.graphql.as_ref()).map(figures),
            plan: d.and_then(|d| d.plan.as_ref()).map(|p| LinePlan {
                cost: PerResource::from_fn(|r| p.of(r)),
                secondary_points: PerResource::from_fn(|r| p.secondary_points(r)),
                content_creating: p.content_creating,
                secondary_minutes: p.secondary_minutes,
            }),
            secondary_minutes: d.map_or(0, |d| d.secondary.minutes),
            bindings: d.and_then(|d| d.bindings.as_ref()).map(BindingsLine::from),
            diagnostics: self
                .diagnostics
                .iter()
                .map(|x| CodeMessage {
                    code: &x.code,
                    message: &x.message,
                })
                .collect(),
            ownership: (self.mode == Mode::Resume).then_some(self.ownership),
            field: self.field.filter(|_| self.mode == Mode::Resume),
            deferral_id: self.deferral_id.as_deref(),
            cancellation_handle_path: self.handle_path.as_deref(),
            pool: self.pool.as_deref(),
            admission: self.admission.as_deref(),
            pool_reason: self.pool_reason.as_deref(),
            error: self.error.as_ref().map(|(message, path)| ErrorLine {
                code: self.code.as_deref().unwrap_or("error"),
                message,
                path: if path.is_empty() { "$" } else { path },
            }),
            deferred_receipt: self
                .deferred_receipt()
                .and_then(|r| RawValue::from_string(r.to_json()).ok()),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }

    /// The Action's outputs, in action.yml's order (strings; empty when not applicable).
    pub fn outputs(&self, receipt_path: &str, handle_path: &str) -> Vec<(&'static str, String)> {
        let d = self.decision.as_ref();
        let deferred = self.deferred_receipt();
        let text = |v: Option<String>| v.unwrap_or_default();
        vec![
            ("status", self.status.to_string()),
            ("deferred-receipt", text(deferred.map(Receipt::to_json))),
            ("receipt-path", receipt_path.to_string()),
            ("reason", text(self.reason().map(str::to_string))),
            (
                "resume-after",
                text(deferred.map(|r| iso_ms(r.resume_after_ms))),
            ),
            ("resume-by", text(deferred.map(|r| iso_ms(r.resume_by_ms)))),
            (
                "fresh-approval-required",
                text(
                    self.receipt
                        .as_ref()
                        .map(|r| r.fresh_approval_required.to_string()),
                ),
            ),
            ("deferral-id", text(self.deferral_id.clone())),
            ("cancellation-handle-path", handle_path.to_string()),
            ("admission-id", text(self.admission.clone())),
            (
                "rest-remaining",
                text(
                    d.and_then(|d| d.rest.as_ref())
                        .map(|f| f.remaining.to_string()),
                ),
            ),
            (
                "graphql-remaining",
                text(
                    d.and_then(|d| d.graphql.as_ref())
                        .map(|f| f.remaining.to_string()),
                ),
            ),
        ]
    }

    /// One sentence: what happened and, on deferral, when a fresh attempt may start.
    pub fn explain_line(&self) -> String {
        let d = self.decision.as_ref();
        match self.status {
            Status::Ready if d.is_some_and(|d| d.unlimited) => {
                "Ready: the server does not enforce rate limits.".to_string()
            }
            Status::Ready => {
                let rest = d
                    .and_then(|d| d.rest.as_ref())
                    .map_or("?".to_string(), |f| f.remaining.to_string());
                let graphql = d
                    .and_then(|d| d.graphql.as_ref())
                    .map(|f| format!(", GraphQL {} remaining", f.remaining))
                    .unwrap_or_default();
                let admitted = match (&self.pool, &self.admission) {
                    (Some(pool), Some(id)) => format!("; admitted in pool {pool} (admission {id})"),
                    _ => String::new(),
                };
                format!("Ready: REST {rest} remaining{graphql}{admitted}.")
            }
            Status::Deferred => {
                let refused = match (&self.pool, &self.pool_reason) {
                    (Some(pool), Some(why)) => format!(" Pool {pool} refused: {why}"),
                    _ => String::new(),
                };
                let status = match &self.commit {
                    Some(c) => format!(
                        " Its status {} on commit {} follows it: {}",
                        c.context,
                        &c.sha[..7.min(c.sha.len())],
                        c.url
                    ),
                    None => String::new(),
                };
                format!(
                    "Deferred ({}): a fresh attempt may start at {} and must start by {}. Nothing was changed; resume with the receipt.{refused}{status}",
                    self.reason().unwrap_or("?"),
                    self.resume_after().map(iso_ms).unwrap_or_default(),
                    self.resume_by().map(iso_ms).unwrap_or_default()
                )
            }
            _ => {
                let (label, code, why) = self.stop_parts().unwrap_or(("Error", "error", ""));
                format!("{label} ({code}): {why}")
            }
        }
    }

    /// Blocked or error: the label, the stop code and why (which may quote outside words).
    fn stop_parts(&self) -> Option<(&'static str, &str, &str)> {
        match self.status {
            Status::Blocked => {
                let why = self.why().unwrap_or(self.code.as_deref().unwrap_or(""));
                Some(("Blocked", self.code.as_deref().unwrap_or("blocked"), why))
            }
            Status::Ready | Status::Deferred => None,
            Status::Error => Some((
                "Error",
                self.code.as_deref().unwrap_or("error"),
                self.why()
                    .or_else(|| self.diagnostics.first().map(|d| d.message.as_str()))
                    .unwrap_or("no decision was made"),
            )),
        }
    }

    /// The Markdown job summary.
    pub fn summary(&self) -> String {
        let headline = match self.status {
            Status::Ready => "Ready: the planned work fits above the reserve",
            Status::Deferred => "Deferred: the work stopped before running out of quota",
            Status::Blocked => "Blocked: this work must not run as it stands",
            Status::Error
                if self.pool.is_some() && self.receipt.is_none() && self.decision.is_some() =>
            {
                "Error: the pool did not admit the work, so none of it ran"
            }
            Status::Error => "Error: no decision was made",
        };
        let mut lines = vec![format!("### Deferral: {headline}"), String::new()];
        let d = self.decision.as_ref();
        if d.is_some_and(|d| d.unlimited) {
            lines.push("The server does not enforce primary rate limits (GitHub Enterprise Server with rate limiting off).".into());
            lines.push(String::new());
        }
        let rows: Vec<(&str, &ResourceFigures)> = d
            .into_iter()
            .flat_map(Resource::checked)
            .map(|(r, f)| (r.title, f))
            .collect();
        if !rows.is_empty() {
            lines.push(
                "| resource | limit | remaining | reserve | planned cost | reset | fits |".into(),
            );
            lines.push("|---|---:|---:|---:|---:|---|---|".into());
            for (name, f) in rows {
                lines.push(format!(
                    "| {name} | {} | {} | {} | {} | {} | {} |",
                    f.limit,
                    f.remaining,
                    f.reserve,
                    f.planned_cost,
                    utc_text(f.reset.saturating_mul(1000)),
                    if f.ok { "yes" } else { "**no**" }
                ));
            }
            lines.push(String::new());
        }
        if let (Some(pool), Some(id)) = (&self.pool, &self.admission) {
            lines.push(format!(
                "Admitted in pool {} as admission {}: runners sharing the pool count this plan's cost against it until the admission is released or its window ends.",
                markdown::literal(pool),
                markdown::literal(id)
            ));
            lines.push(String::new());
        }
        if let Some(r) = self.deferred_receipt() {
            lines.push("| deferral | |".into());
            lines.push("|---|---|".into());
            lines.push(format!(
                "| reason | {} |",
                markdown::cell(r.reason.as_str())
            ));
            lines.push(format!(
                "| resume after | {} |",
                utc_text(r.resume_after_ms)
            ));
            lines.push(format!("| resume by | {} |", utc_text(r.resume_by_ms)));
            lines.push(format!(
                "| fresh approval required | {} |",
                if r.fresh_approval_required {
                    "yes"
                } else {
                    "no"
                }
            ));
            if let Some(pool) = &self.pool {
                lines.push(match &self.pool_reason {
                    Some(why) => format!(
                        "| pool | {} refused: {} |",
                        markdown::cell(pool),
                        markdown::cell(why)
                    ),
                    None => format!("| pool | {} |", markdown::cell(pool)),
                });
            }
            if let Some(id) = &self.deferral_id {
                lines.push(format!(
                    "| durable host | retained as {} |",
                    markdown::cell(id)
                ));
            }
            if let Some(c) = &self.commit {
                lines.push(format!(
                    "| commit status | {} on [{}]({}) |",
                    markdown::cell(&c.context),
                    &c.sha[..7.min(c.sha.len())],
                    c.url
                ));
            }
            lines.push(String::new());
            lines.extend(self.timeline(r));
            lines.push(String::new());
            lines.push(if self.deferral_id.is_some() {
                "No work ran. The durable host wakes a fresh run at the resume time.".into()
            } else {
                "No work ran. Start a fresh run with the `deferred-receipt` output as the `receipt` input at or after the resume time.".into()
            });
            lines.push(String::new());
        }
        if let Some((label, code, why)) = self.stop_parts() {
            // Codes are ours, but a message may quote a plan's keys or a port's words.
            lines.push(format!(
                "{label} ({}): {}",
                markdown::literal(code),
                markdown::literal(why)
            ));
            lines.push(String::new());
        }
        let notes: Vec<&Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|x| Some(x.code.as_str()) != self.code.as_deref())
            .collect();
        if !notes.is_empty() {
            lines.push("<details><summary>Diagnostics</summary>".into());
            lines.push(String::new());
            for x in notes {
                lines.push(format!(
                    "- {}: {}",
                    markdown::literal(&x.code),
                    markdown::literal(&x.message)
                ));
            }
            lines.push(String::new());
            lines.push("</details>".into());
            lines.push(String::new());
        }
        lines.join("\n")
    }

    /// A Mermaid timeline of the deferral, which GitHub renders in the job summary: issued,
    /// the provider's reset, resume after, resume by.
    fn timeline(&self, r: &Receipt) -> Vec<String> {
        let mut events: Vec<(u64, String)> = vec![
            (r.issued_at_ms, "issued (the gate stopped)".into()),
            (r.resume_after_ms, "resume after".into()),
            (r.resume_by_ms, "resume by (the receipt expires)".into()),
        ];
        if let Some(d) = &self.decision {
            let offset = d.clock_offset_ms;
            for (r, f) in Resource::checked(d) {
                let name = r.short;
                if !f.ok {
                    let local =
                        i64::try_from(f.reset.saturating_mul(1000)).unwrap_or(i64::MAX) - offset;
                    events.push((
                        u64::try_from(local).unwrap_or(0),
                        format!("{name} quota resets"),
                    ));
                }
            }
            if let Some(until) = d.secondary.hold_until_ms {
                events.push((until, "secondary limit hold ends".into()));
            }
        }
        events.sort_by_key(|(at, _)| *at);
        let mut out = vec![
            "```mermaid".to_string(),
            "timeline".to_string(),
            "    title Deferral (UTC)".to_string(),
        ];
        for (at, what) in events {
            // Mermaid's timeline splits on `:`: the time is written without colons.
            let (y, mo, d, h, mi, s) = civil_from_ms(at);
            out.push(format!(
                "    {y:04}-{mo:02}-{d:02} {h:02}h{mi:02}m{s:02}s : {what}"
            ));
        }
        out.push("```".to_string());
        out
    }

    /// The workflow commands the Action prints: the log line, and an annotation unless ready.
    pub fn commands(&self, failed: bool) -> Vec<String> {
        let line = self.explain_line();
        let mut out = vec![format!("deferral: {}", escape_data(&line))];
        if self.status != Status::Ready {
            let level = if failed {
                "error"
            } else if self.status == Status::Deferred {
                "warning"
            } else {
                "notice"
            };
            out.push(format!(
                "::{level} title={}::{}",
                escape_property(&format!("Deferral: {}", self.status)),
                escape_data(&line)
            ));
        }
        out
    }

    /// The human verdict for a terminal: status, reason, figures, when to resume (local time
    /// `offset_min` east of UTC, and UTC).
    pub fn verdict(&self, offset_min: i64) -> String {
        // Outside words (a port's code, reason, ids and refusal) go through `one_line`.
        use crate::terminal::one_line;
        let mut head = format!("deferral: {}", self.status);
        if let Some(code) = &self.code {
            head.push_str(&format!(" ({})", one_line(code)));
        }
        if let Some(reason) = self.reason() {
            head.push_str(&format!(", reason {}", one_line(reason)));
        }
        let mut lines = vec![head];
        let d = self.decision.as_ref();
        let rows: Vec<(&str, &ResourceFigures)> = d
            .into_iter()
            .flat_map(Resource::checked)
            .map(|(r, f)| (r.short, f))
            .collect();
        if !rows.is_empty() {
            lines.push(format!(
                "  {:<8} {:>9} {:>8} {:>6}  fits",
                "resource", "remaining", "reserve", "cost"
            ));
            for (name, f) in rows {
                lines.push(format!(
                    "  {name:<8} {:>9} {:>8} {:>6}  {}",
                    f.remaining,
                    f.reserve,
                    f.planned_cost,
                    if f.ok { "yes" } else { "no" }
                ));
            }
        }
        if let Some(r) = self.deferred_receipt() {
            for (label, at) in [
                ("resume after", r.resume_after_ms),
                ("resume by   ", r.resume_by_ms),
            ] {
                lines.push(format!(
                    "  {label} {} ({})",
                    local_text(at, offset_min),
                    iso_ms(at)
                ));
            }
        }
        match (&self.pool, &self.admission, &self.pool_reason) {
            (Some(pool), Some(id), _) => lines.push(format!(
                "  admitted in pool {} as {}",
                one_line(pool),
                one_line(id)
            )),
            (Some(pool), None, Some(why)) => lines.push(format!(
                "  pool {} refused: {}",
                one_line(pool),
                one_line(why)
            )),
            _ => {}
        }
        if let Some(why) = self.why() {
            lines.push(format!("  {}", one_line(why)));
        }
        lines.join("\n") + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_words_reach_the_summary_only_inside_code_spans() {
        let hostile = "`](x) ![t](http://evil.example/i.png)\n# h <img src=x> *e* |";
        let f = Finished {
            mode: Mode::Gate,
            status: Status::Error,
            code: Some("coordinator-failed".into()),
            error: Some((format!("port said {hostile}"), String::new())),
            decision: None,
            receipt: None,
            ownership: None,
            field: None,
            diagnostics: vec![
                Diagnostic {
                    code: "coordinator-failed".into(),
                    message: "the stop itself".into(),
                },
                Diagnostic {
                    code: hostile.into(),
                    message: hostile.into(),
                },
            ],
            exit: Exit::Provider,
            deferral_id: None,
            handle_path: None,
            pool: None,
            admission: None,
            pool_reason: None,
            commit: None,
        };
        let summary = f.summary();
        let spanned = markdown::literal(hostile);
        let lines: Vec<&str> = summary.lines().collect();
        assert!(lines.contains(
            &format!(
                "Error (`coordinator-failed`): {}",
                markdown::literal(&format!("port said {hostile}"))
            )
            .as_str()
        ));
        assert!(lines.contains(&format!("- {spanned}: {spanned}").as_str()));
        // Nothing of it outside a span: no line of its own, no heading, no HTML block.
        assert!(!lines
            .iter()
            .any(|l| l.starts_with("# h") || l.starts_with('<') && l.contains("img")));
        assert_eq!(summary.matches("evil.example").count(), 3, "{summary}");
    }

    #[test]
    fn times_read_as_javascript_and_people_write_them() {
        assert_eq!(iso_ms(1_800_000_000_123), "2027-01-15T08:00:00.123Z");
        assert_eq!(utc_text(1_800_000_000_123), "2027-01-15 08:00:00 UTC");
        assert_eq!(
            local_text(1_800_000_000_000, -300),
            "2027-01-15 03:00:00 -05:00"
        );
        assert_eq!(
            local_text(1_800_000_000_000, 330),
            "2027-01-15 13:30:00 +05:30"
        );
    }
}
