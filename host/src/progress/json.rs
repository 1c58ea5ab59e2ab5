//! `tick --log-format json`: each step of the pass, and the summary, as one JSON object a
//! line on stderr (see `crate::logs`). Entries are copied field by field from the report's
//! (`id`, `attempt`, `state`, `cause`, ...): a handle or receipt can never ride along.

use crate::launch::LaunchEnd;
use crate::logs;
use crate::ops::tick::{TickReport, TickStep};
use crate::store::Deferral;
use deferral_core::lifecycle::State;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// The report fields a log line may carry.
const ENTRY_FIELDS: [&str; 12] = [
    "id",
    "attempt",
    "state",
    "cause",
    "attempt_status",
    "detail",
    "error",
    "why",
    "skipped",
    "run_id",
    "run_url",
    "conclusion",
];

fn fields_of(entry: &Value) -> Value {
    let mut out = Map::new();
    for name in ENTRY_FIELDS {
        if let Some(value) = entry.get(name).filter(|v| !v.is_null()) {
            out.insert(name.to_string(), value.clone());
        }
    }
    Value::Object(out)
}

pub fn step(step: &TickStep) {
    match step {
        TickStep::Planned { expired, due } => logs::json(
            "info",
            "tick",
            "planned",
            json!({"expired": expired, "due": due}),
        ),
        TickStep::Launching { id, attempt } => logs::json(
            "info",
            "tick",
            "launching",
            json!({"id": id, "attempt": attempt}),
        ),
        TickStep::Launched(entry) => {
            let failed = matches!(entry.end, LaunchEnd::Failed(_));
            let level = if failed || entry.state() == Some(State::Blocked) {
                "warn"
            } else {
                "info"
            };
            logs::json(level, "tick", "launched", fields_of(&entry.to_json()));
        }
        TickStep::ClaimedElsewhere { id } => {
            logs::json("info", "tick", "claimed-elsewhere", json!({ "id": id }));
        }
        TickStep::Skipped(entry) => {
            logs::json("warn", "tick", "skipped", fields_of(&json!(entry)));
        }
    }
}

pub fn summary(report: &TickReport, next: Option<&Deferral>, now_ms: u64, started: Instant) {
    if let Some(follow) = &report.follow {
        for entry in &follow.followed {
            logs::json("info", "tick", "followed", fields_of(&entry.to_json()));
        }
    }
    let next = super::next_json(next, now_ms);
    let fields = json!({
        "dry_run": report.dry_run,
        "launched": report.launched.len(),
        "expired": report.expired.len(),
        "recovered": report.recovered.len(),
        "skipped": report.skipped.len(),
        "followed": report.follow.as_ref().map_or(0, |f| f.followed.len()),
        "waiting": report.follow.as_ref().map_or(0, |f| f.waiting.len()),
        "seconds": started.elapsed().as_secs_f64(),
        "next": next,
    });
    logs::json("info", "tick", "summary", fields);
}
