//! `status`: the deferrals (a table, `--json`, or a page with `--html`), or the pools
//! (`--pools`).

use super::run_url;
use crate::cli::args::{Cli, StatusArgs};
use crate::cli::store_open::open_store;
use crate::cli::text::*;
use crate::clock::now_ms;
use crate::error::HostError;
use crate::lifecycle;
use crate::store::ListQuery;
use crate::view::deferral_with_run as with_run;
use serde_json::{json, Value};

pub(in crate::cli) fn execute(cli: &Cli, args: &StatusArgs) -> Result<(), HostError> {
    let store = open_store(cli)?;
    if args.pools {
        // `status` takes no pool flags: the defaults of `tick` (a hold a pass wrote is shown
        // as written, whatever its flags).
        let options = crate::pools::PoolOptions::default();
        if args.json {
            out!(
                "{}",
                crate::pools::view::pools_json(&*store, now_ms(), &options)?
            );
        } else {
            print!(
                "{}",
                crate::pools::view::pools_text(&*store, now_ms(), &options)?
            );
        }
        return Ok(());
    }
    if let Some(path) = &args.html {
        // Only what the page draws (as `GET /` reads it), whatever the store holds.
        let rows = match &args.id {
            Some(id) => vec![lifecycle::change::load(&*store, id)?],
            None => crate::html::page_rows(
                &*store,
                args.state,
                args.limit.unwrap_or(crate::html::MAX_ROWS),
            )?,
        };
        let page = crate::html::status_page(&store.count_by_state()?, &rows, now_ms());
        let page = crate::pools::view::with_held_section(
            &*store,
            page,
            now_ms(),
            &crate::pools::PoolOptions::default(),
        )?;
        crate::html::write_page_file(path, &page)?;
        out!(
            "{}",
            json!({"html": path.display().to_string(), "bytes": page.len(), "deferrals": rows.len()})
        );
        return Ok(());
    }
    let rows = match &args.id {
        Some(id) => vec![lifecycle::change::load(&*store, id)?],
        None => store.list(&ListQuery {
            state: args.state,
            limit: args.limit,
        })?,
    };
    if args.json {
        let mut pools = crate::pools::view::Pools::default();
        let now = now_ms();
        let list: Vec<Value> = rows
            .iter()
            .map(|d| {
                let mut view = with_run(&*store, d);
                pools.annotate(&*store, d, &mut view, now);
                view
            })
            .collect();
        match &args.id {
            Some(_) => out!("{}", list[0]),
            None => out!("{}", json!({ "deferrals": list })),
        }
    } else {
        // One reading of the clock for the table and the lines below it: one hold, one end.
        let now = now_ms();
        let mut pools = crate::pools::view::Pools::default();
        let mut text = status_table(&rows, now, &mut |d| pools.held(&*store, d, now));
        // The workflow run of each current attempt that has one, below the table.
        for d in &rows {
            if let Some(url) = run_url(&*store, d) {
                text.push_str(&format!("run of {}: {}\n", d.id, printable(&url)));
            }
            if let Some(why) = pools.held_text(&*store, d, now) {
                text.push_str(&format!("held {}: {}\n", d.id, printable(&why)));
            }
            if let Some(start) = pools.expected_text(&*store, d, now) {
                text.push_str(&format!("expected start {}: {start}\n", d.id));
            }
        }
        print!("{text}");
    }
    Ok(())
}
