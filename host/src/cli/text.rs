//! The text forms for people: the `status` table and `show`'s report.

use crate::clock::iso8601;
use crate::human_time::relative;
use crate::pools::hold::Hold;
use crate::store::{AttemptStatus, Deferral};
use deferral_core::lifecycle::State;

/// Text from the store as it may be printed to a terminal: every control character (escape
/// sequences, carriage returns, newlines) written as `\u{..}`, so stored text can neither
/// restyle the terminal nor fake a line of output.
pub(super) fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

pub(super) fn table(rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| printable(cell)).collect())
        .collect();
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// When a deferral is due, as a person reads it: `in 23 min`, `due now`, `launched`, or
/// `held until ...` for one its pool holds (`held`: its hold's end, see `pools::hold`; never
/// "due now" for held work).
pub(super) fn due_text(d: &Deferral, now: u64, held: Option<&Hold>) -> String {
    match d.state {
        State::Deferred if now < d.resume_after_ms => relative(d.resume_after_ms, now),
        State::Deferred if held.is_some() => match held.and_then(|h| h.until_ms) {
            Some(until) => format!("held until {}", iso8601(until)),
            None => "held (next pass decides)".to_string(),
        },
        State::Deferred if now <= d.resume_by_ms => "due now".to_string(),
        State::Deferred => "expires at the next tick".to_string(),
        State::Resumable => "launched".to_string(),
        _ => "-".to_string(),
    }
}

/// `held` answers each row's hold (see [`due_text`]).
pub(super) fn status_table(
    rows: &[Deferral],
    now: u64,
    held: &mut dyn FnMut(&Deferral) -> Option<Hold>,
) -> String {
    let mut cells = vec![[
        "ID",
        "STATE",
        "DUE",
        "CAUSE",
        "REASON",
        "RESUME-AFTER",
        "RESUME-BY",
        "RE-ENTRIES",
        "ATTEMPT",
    ]
    .map(String::from)
    .to_vec()];
    for d in rows {
        cells.push(vec![
            d.id.clone(),
            d.state.as_str().to_string(),
            due_text(d, now, held(d).as_ref()),
            d.cause.clone(),
            d.reason.clone(),
            iso8601(d.resume_after_ms),
            iso8601(d.resume_by_ms),
            format!("{}/{}", d.reentries, d.max_reentries),
            d.attempt_status
                .map_or("-", AttemptStatus::as_str)
                .to_string(),
        ]);
    }
    let mut out = table(&cells);
    out.push_str(&format!("{} deferral(s)\n", rows.len()));
    out
}

pub(super) fn show_text(
    d: &Deferral,
    receipts: &[crate::store::StoredReceipt],
    events: &[crate::store::EventRecord],
    now: u64,
    held: Option<&Hold>,
) -> String {
    let mut out = String::new();
    let field = |out: &mut String, name: &str, value: String| {
        out.push_str(&format!("{name:<14}{}\n", printable(&value)));
    };
    field(&mut out, "id", d.id.clone());
    field(
        &mut out,
        "state",
        format!(
            "{} ({}{})",
            d.state,
            d.cause,
            d.detail
                .as_ref()
                .map(|x| format!(": {x}"))
                .unwrap_or_default()
        ),
    );
    field(&mut out, "due", due_text(d, now, held));
    field(&mut out, "reason", d.reason.clone());
    field(&mut out, "resume-after", iso8601(d.resume_after_ms));
    field(&mut out, "resume-by", iso8601(d.resume_by_ms));
    field(
        &mut out,
        "re-entries",
        format!("{}/{}", d.reentries, d.max_reentries),
    );
    field(
        &mut out,
        "attempt",
        d.attempt_status
            .map_or("-", AttemptStatus::as_str)
            .to_string(),
    );
    field(&mut out, "launch", d.launch.clone());
    field(&mut out, "fence", d.fence.to_string());
    if let (Some(owner), Some(until)) = (&d.lease_owner, d.lease_until_ms) {
        field(
            &mut out,
            "lease",
            format!("{owner} until {}", iso8601(until)),
        );
    }
    out.push_str(&format!("\nreceipts ({}, append-only):\n", receipts.len()));
    for r in receipts {
        let current = if r.seq == d.receipt_seq {
            " (current)"
        } else {
            ""
        };
        out.push_str(&format!(
            "  #{} {} {} sha256 {}{current}\n    {}\n",
            r.seq,
            iso8601(r.created_ms),
            printable(&r.kind),
            printable(&r.sha256),
            printable(&r.text)
        ));
    }
    out.push_str(&format!("\nevents ({}, append-only):\n", events.len()));
    let mut cells = vec![[
        "AT",
        "EVENT",
        "FROM",
        "TO",
        "CAUSE",
        "FENCE",
        "RE-ENTRIES",
        "DETAIL",
    ]
    .map(String::from)
    .to_vec()];
    for e in events {
        cells.push(vec![
            iso8601(e.at_ms),
            e.event.clone(),
            e.from_state.map_or("-", State::as_str).to_string(),
            e.to_state.as_str().to_string(),
            e.cause.clone(),
            e.fence.to_string(),
            e.reentries.to_string(),
            e.detail.clone().unwrap_or_default(),
        ]);
    }
    for line in table(&cells).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    out
}
