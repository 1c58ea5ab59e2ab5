//! What `tick` tells a person on stderr while it works: a line per launch and outcome (a
//! progress bar instead when stderr is a terminal), then one summary line with the next
//! wake-up. The JSON report stays on stdout; `--quiet` turns all of this off.

use crate::clock::iso8601;
use crate::human_time::{relative, span};
use crate::ops::tick::{TickReport, TickStep};
use crate::store::Deferral;
use serde_json::Value;
use std::io::Write;
use std::time::Instant;

mod json;

const BAR_WIDTH: usize = 30;

pub struct TickProgress {
    mode: Mode,
    started: Instant,
    due: usize,
    done: usize,
    /// Outcomes by resulting state (`complete`, `deferred`, `blocked`, `resumable`, `error`).
    outcomes: Vec<(String, usize)>,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Mode {
    Quiet,
    Lines,
    Bar,
    /// `--log-format json` (see `json`).
    Json,
}

impl TickProgress {
    /// `terminal`: stderr is a terminal (draw a bar); `quiet`: print nothing.
    pub fn new(terminal: bool, quiet: bool) -> TickProgress {
        let mode = match (quiet, terminal) {
            (true, _) => Mode::Quiet,
            (false, _) if crate::logs::is_json() => Mode::Json,
            (false, true) => Mode::Bar,
            (false, false) => Mode::Lines,
        };
        TickProgress {
            mode,
            started: Instant::now(),
            due: 0,
            done: 0,
            outcomes: Vec::new(),
        }
    }

    fn print(&self, text: &str) {
        // A failed write to stderr is not worth failing the tick for.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    fn line(&self, text: &str) {
        match self.mode {
            Mode::Quiet | Mode::Json => {}
            Mode::Lines => self.print(&format!("tick: {text}\n")),
            // Clear the bar, print the line, redraw the bar under it.
            Mode::Bar => self.print(&format!("\r\x1b[2K{text}\n{}", self.bar())),
        }
    }

    fn bar(&self) -> String {
        let filled = (self.done * BAR_WIDTH).checked_div(self.due).unwrap_or(0);
        format!(
            "[{}{}] {}/{} launched  {}",
            "#".repeat(filled),
            ".".repeat(BAR_WIDTH - filled),
            self.done,
            self.due,
            self.counts()
        )
    }

    fn counts(&self) -> String {
        self.outcomes
            .iter()
            .map(|(state, n)| format!("{n} {state}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn count(&mut self, state: &str) {
        match self.outcomes.iter_mut().find(|(s, _)| s == state) {
            Some((_, n)) => *n += 1,
            None => self.outcomes.push((state.to_string(), 1)),
        }
    }

    /// One step of the pass, as `tick::tick_observed` reports it.
    pub fn step(&mut self, step: TickStep) {
        if self.mode == Mode::Json {
            return json::step(&step);
        }
        match step {
            TickStep::Planned { expired, due } => {
                self.due = due;
                if expired > 0 {
                    self.line(&format!("expired {expired} past their resume-by"));
                }
                if self.mode == Mode::Bar && due > 0 {
                    self.print(&self.bar());
                }
            }
            TickStep::Launching { id, attempt } => {
                if self.mode == Mode::Lines {
                    self.line(&format!("launching {id} (attempt {attempt})"));
                }
            }
            TickStep::Launched(entry) => {
                self.done += 1;
                // A dispatched run stays `resumable` until it reports or is followed: say `dispatched`.
                let state = entry.outcome();
                self.count(state);
                let id = &entry.id;
                let why = entry.why().map(|d| format!(" ({d})")).unwrap_or_default();
                // On a terminal only what needs a look gets its own line above the bar.
                if self.mode == Mode::Lines || state != "complete" {
                    self.line(&format!("{id}: {state}{why}"));
                } else if self.mode == Mode::Bar {
                    self.print(&format!("\r\x1b[2K{}", self.bar()));
                }
            }
            TickStep::ClaimedElsewhere { id } => {
                self.done += 1;
                self.line(&format!("{id}: claimed by another ticker first"));
            }
            TickStep::Skipped(entry) => {
                self.done += 1;
                self.count("skipped");
                self.line(&format!("{}: skipped ({})", entry.id, entry.why));
            }
        }
    }

    /// The closing lines: each workflow run followed to its end, then what the pass did and
    /// when the next deferral wakes.
    pub fn summary(&self, report: &TickReport, next: Option<&Deferral>, now_ms: u64) {
        if self.mode == Mode::Quiet {
            return;
        }
        if self.mode == Mode::Json {
            return json::summary(report, next, now_ms, self.started);
        }
        let followed = report.follow.as_ref().map_or(&[][..], |f| &f.followed[..]);
        for entry in followed {
            let text = format!(
                "{}: run {} {}: {}",
                entry.id,
                entry.run_id,
                entry.conclusion().unwrap_or("?"),
                entry.outcome(),
            );
            match self.mode {
                Mode::Bar => self.print(&format!("\r\x1b[2K{text}\n")),
                _ => self.print(&format!("tick: {text}\n")),
            }
        }
        // Held by their pool: one line per pool (see `pools`).
        for held in &report.held {
            let text = format!(
                "held {}: {}",
                held.ids.len(),
                held.why.as_deref().unwrap_or("the pool holds")
            );
            match self.mode {
                Mode::Bar => self.print(&format!("\r\x1b[2K{text}\n")),
                _ => self.print(&format!("tick: {text}\n")),
            }
        }
        let waiting = report.follow.as_ref().map_or(0, |f| f.waiting.len());
        let follow = if report.follow.is_some() {
            format!(", followed {} run(s), {waiting} waiting", followed.len())
        } else {
            String::new()
        };
        // Held deferrals are due again when their pool's hold ends, even with nothing else waiting.
        let held_until = report.held.iter().filter_map(|h| h.until_ms).min();
        let held_count: usize = report.held.iter().map(|h| h.ids.len()).sum();
        let next = match (next, held_until) {
            (None, Some(until)) => format!("the held are due again at {}", iso8601(until)),
            (next, _) => next_text(next, now_ms),
        };
        let text = if report.dry_run {
            if report.launched.is_empty()
                && report.expired.is_empty()
                && report.recovered.is_empty()
            {
                if held_count > 0 {
                    format!("tick --dry-run: nothing to launch, {held_count} held; {next}\n")
                } else {
                    format!("tick --dry-run: nothing due; {next}\n")
                }
            } else {
                format!(
                    "tick --dry-run: would launch {}, expire {}, recover {}; {next}\n",
                    report.launched.len(),
                    report.expired.len(),
                    report.recovered.len()
                )
            }
        } else {
            let counts = self.counts();
            format!(
                "{}tick: launched {}{}, expired {}, recovered {}, skipped {}{follow} in {}; {next}\n",
                if self.mode == Mode::Bar && self.due > 0 {
                    "\r\x1b[2K"
                } else {
                    ""
                },
                report.launched.len(),
                if counts.is_empty() {
                    String::new()
                } else {
                    format!(" ({counts})")
                },
                report.expired.len(),
                report.recovered.len(),
                report.skipped.len(),
                elapsed(self.started),
            )
        };
        self.print(&text);
    }
}

/// `0.4 s` under a minute, else as [`span`] says it.
fn elapsed(started: Instant) -> String {
    let took = started.elapsed();
    if took.as_secs() < 60 {
        format!("{:.1} s", took.as_secs_f64())
    } else {
        span(u64::try_from(took.as_millis()).unwrap_or(u64::MAX))
    }
}

fn next_text(next: Option<&Deferral>, now_ms: u64) -> String {
    match next {
        Some(d) => format!(
            "next: {} at {} ({})",
            d.id,
            iso8601(d.resume_after_ms),
            relative(d.resume_after_ms, now_ms)
        ),
        None => "no wake-up is scheduled".to_string(),
    }
}

/// The report's `next` member: the deferral that becomes due next, or null.
pub fn next_json(next: Option<&Deferral>, now_ms: u64) -> Value {
    next.map_or(Value::Null, |d| {
        serde_json::json!({
            "id": d.id,
            "resume_after_ms": d.resume_after_ms,
            "resume_after": iso8601(d.resume_after_ms),
            "in_ms": d.resume_after_ms.saturating_sub(now_ms),
        })
    })
}
