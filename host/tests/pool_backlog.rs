//! A backlog behind one quota, through the real binary: 24 jobs of 10 writes behind one
//! 45-request window with a reserve of 5, all deferred by their gate to the same reset, recorded
//! with `exec:` launches of a script that plays the resume against a stand-in "GitHub" (a
//! counter file whose window resets every 3 s; see `deferral_host_conformance::backlog`), with
//! a tick every quarter second. Without pools every job wakes at the reset, 4 use the window
//! and 20 defer again, spending a re-entry each: after two windows 16 are blocked
//! (`reentry-limit`) with 44 launches. With pools the host admits what fits: 24 complete with
//! 24 launches. (`DEFERRAL_HOST_BIN=<a build without pools>` shows the collapse in the second
//! test, which records as any host takes it.)

mod common;

use common::Host;
use deferral_host_conformance::backlog::{Backlog, BacklogRun};
use std::path::Path;
use std::time::Duration;

fn run(host: &Host, gate_lines: bool) -> (BacklogRun, u64) {
    let bin = std::env::var("DEFERRAL_HOST_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_deferral-host").to_string());
    let scenario = Backlog {
        bin: Path::new(&bin),
        store: &host.store,
        dir: host.dir.path(),
        jobs: 24,
        limit: 45,
        reserve: 5,
        cost: 10,
        window_s: 3,
        gate_lines,
        work_line: false,
        report_file: true,
        deadline: Duration::from_secs(60),
        tick_every: Duration::from_millis(250),
        tickers: 1,
    };
    (scenario.run(), scenario.minimum_windows())
}

#[test]
fn a_backlog_behind_one_window_completes_with_one_launch_per_job_in_the_fewest_windows() {
    let host = Host::new();
    let (run, minimum) = run(&host, true);
    assert_eq!(
        run.count("complete"),
        24,
        "every job completes: {:?} {:?}",
        run.states,
        run.causes
    );
    assert_eq!(run.launches, 24, "one launch per job, none wasted");
    // 4 jobs fit a window (45 - 5 reserve = 40 = 4 x 10): at least 6 windows, at most one more.
    let used = run.windows.len() as u64;
    assert!(
        used <= minimum + 1,
        "{used} windows used ({:?}), the minimum is {minimum}",
        run.windows
    );
    let held = run.held_seen.expect("a tick saw held jobs");
    let entry = &held["held"][0];
    assert_eq!(entry["pool"], "app-42", "{held}");
    assert!(
        entry["why"]
            .as_str()
            .unwrap()
            .contains("fit the window that resets at"),
        "{held}"
    );
    assert!(held["launched"].as_array().unwrap().is_empty(), "{held}");
    let page = run.page_seen.expect("the status page at that moment");
    assert!(
        page.contains("Held by their pool") && page.contains("app-42"),
        "the status page shows the held jobs: {page}"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let pool = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "app-42")
        .expect("the pool is listed");
    assert_eq!(pool["rest"]["limit"], 45, "{pool}");
    assert_eq!(pool["admitted"], 0, "every admission was released: {pool}");
}

/// The same backlog recorded as bare receipts (cost unknown), as any host takes them: the pool
/// learns the window and each job's cost from the first reports, and no job is refused
/// half-way (a host without pools blocks 16 of 24 here).
#[test]
fn bare_receipts_are_never_refused_half_way_once_reports_teach_the_window() {
    let host = Host::new();
    let (run, _) = run(&host, false);
    assert_eq!(
        run.count("blocked"),
        0,
        "{:?} {:?}, {} launches",
        run.states,
        run.causes,
        run.launches
    );
    assert_eq!(run.count("complete"), 24, "{:?}", run.states);
}
