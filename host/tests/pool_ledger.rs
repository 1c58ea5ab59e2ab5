//! The pool's ledger is right on its own (issue 26): a backlog whose work prints a JSON line of
//! its own last, with no `--rate-limit-pool`, so the host learns nothing from the attempts that
//! went ahead. The pool must remember what it admitted into the window that opened when the
//! last known reset passed (an assumed window), not take that window as full again.
//!
//! 24 jobs of 10 writes behind one 45-request window with a reserve of 5 (4 fit a window):
//! 24 complete with 24 launches in at most 7 windows, on SQLite with one ticker and on
//! PostgreSQL with three tickers at once.

mod common;

use common::Host;
use deferral_host_conformance::backlog::Backlog;
use std::path::Path;
use std::time::Duration;

fn scenario<'a>(
    host: &'a Host,
    bin: &'a Path,
    report_file: bool,
    tickers: usize,
    deadline_s: u64,
) -> Backlog<'a> {
    Backlog {
        bin,
        store: &host.store,
        dir: host.dir.path(),
        jobs: 24,
        limit: 45,
        reserve: 5,
        cost: 10,
        window_s: 3,
        gate_lines: true,
        work_line: true,
        report_file,
        deadline: Duration::from_secs(deadline_s),
        tick_every: Duration::from_millis(250),
        tickers,
    }
}

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_deferral-host"))
}

/// Nothing reports (the work's own line is last, no report file): the first wave is admitted
/// into the window that opens at the reset, charged there when it ends, and nothing more is
/// launched into that window; the rest are held with an end (the assumed reset, at most an
/// hour and the tolerance away), shown by `status` and `tick --dry-run`.
#[test]
fn with_nothing_reported_no_second_wave_goes_into_a_spent_window() {
    let host = Host::new();
    let run = scenario(&host, bin(), false, 1, 12).run();
    assert_eq!(
        (run.launches, run.count("complete")),
        (4, 4),
        "one wave of 4 in four windows, every launch completes: per window {:?}",
        run.launches_per_window
    );
    let dry = host.expect(0, &["tick", "--dry-run"], "");
    let held = &dry["held"][0];
    assert_eq!(
        (held["pool"].as_str(), held["held"].as_u64()),
        (Some("app-42"), Some(20)),
        "{dry}"
    );
    assert!(
        held["until_ms"].as_u64().is_some(),
        "the hold has an end: {dry}"
    );
    let listed = host.expect(0, &["status", "--json"], "");
    let ends: Vec<u64> = listed["deferrals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["state"] == "deferred")
        .map(|d| d["held"]["until_ms"].as_u64().unwrap_or(0))
        .collect();
    let now = deferral_host::clock::now_ms();
    assert_eq!(ends.len(), 20, "{listed}");
    assert!(
        ends.iter()
            .all(|t| *t > now && *t <= now + 3_600_000 + 2_000),
        "every held deferral shows its end (the assumed reset): {ends:?} at {now}"
    );
}

fn herd(host: &Host, tickers: usize) {
    let scenario = scenario(host, bin(), true, tickers, 60);
    let run = scenario.run();
    let minimum = scenario.minimum_windows();
    assert_eq!(
        run.count("complete"),
        24,
        "every job completes: {:?} {:?}; launches per window {:?}",
        run.states,
        run.causes,
        run.launches_per_window
    );
    assert_eq!(
        run.launches, 24,
        "one launch per job, none into a spent window: per window {:?}",
        run.launches_per_window
    );
    let used = run.windows.len() as u64;
    assert!(
        used <= minimum + 1,
        "{used} windows used ({:?}), the minimum is {minimum}",
        run.windows
    );
}

/// The done-when of issue 26: the work's own line is last, no `--rate-limit-pool`; the CLI's
/// line reaches the host on the report file.
#[test]
fn a_backlog_whose_work_prints_its_own_last_line_launches_once_per_job() {
    herd(&Host::new(), 1);
}

#[test]
fn postgres_three_tickers_a_backlog_whose_work_prints_its_own_last_line() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    herd(&Host::with_store(&schema.url), 3);
}
