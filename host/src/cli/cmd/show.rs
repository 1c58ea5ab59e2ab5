//! `show ID`: one deferral with its receipts, events and observations, as text or `--json`.

use super::run_url;
use crate::cli::args::{Cli, ShowArgs};
use crate::cli::store_open::open_store;
use crate::cli::text::*;
use crate::clock::{iso8601, now_ms};
use crate::error::HostError;
use crate::lifecycle;
use crate::view::deferral_with_run as with_run;
use deferral_core::lifecycle::State;
use serde_json::{json, Value};

pub(in crate::cli) fn execute(cli: &Cli, args: &ShowArgs) -> Result<(), HostError> {
    let store = open_store(cli)?;
    let d = lifecycle::change::load(&*store, &args.id)?;
    let receipts = store.receipts(&d.id)?;
    let events = store.events(&d.id)?;
    if args.json {
        let receipts: Vec<Value> = receipts
                .iter()
                .map(|r| {
                    json!({"seq": r.seq, "kind": r.kind, "sha256": r.sha256, "created_ms": r.created_ms,
                           "current": r.seq == d.receipt_seq, "receipt": serde_json::from_str::<Value>(&r.text).unwrap_or(Value::String(r.text.clone()))})
                })
                .collect();
        let events: Vec<Value> = events
                .iter()
                .map(|e| {
                    json!({"seq": e.seq, "at_ms": e.at_ms, "at": iso8601(e.at_ms), "event": e.event,
                           "from": e.from_state.map(State::as_str), "to": e.to_state.as_str(), "cause": e.cause,
                           "fence": e.fence, "reentries": e.reentries, "detail": e.detail})
                })
                .collect();
        let mut view = with_run(&*store, &d);
        crate::pools::view::Pools::default().annotate(&*store, &d, &mut view, now_ms());
        let observations = crate::pools::view::observations_json(&*store, &d.id)?;
        out!(
            "{}",
            json!({"deferral": view, "receipts": receipts, "events": events, "observations": observations})
        );
    } else {
        let now = now_ms();
        let mut pools = crate::pools::view::Pools::default();
        let held = pools.held(&*store, &d, now);
        let mut text = show_text(&d, &receipts, &events, now, held.as_ref());
        if let Some(url) = run_url(&*store, &d) {
            let url = printable(&url);
            text = text.replacen("\nfence ", &format!("\nrun           {url}\nfence "), 1);
        }
        let link = store.retry_link(&d.id)?;
        for (name, other) in [("retry-of", link.retry_of), ("retried-by", link.retried_by)] {
            if let Some(other) = other {
                let line = format!("\n{name:<14}{}\nfence ", printable(&other));
                text = text.replacen("\nfence ", &line, 1);
            }
        }
        if let Some(why) = pools.held_text(&*store, &d, now) {
            let why = printable(&why);
            text = text.replacen("\nfence ", &format!("\nheld          {why}\nfence "), 1);
        }
        if let Some(start) = pools.expected_text(&*store, &d, now_ms()) {
            let line = format!("\nexpected      {start}\nfence ");
            text = text.replacen("\nfence ", &line, 1);
        }
        print!("{text}");
    }
    Ok(())
}
