//! Fair pools through the real binary (issue 28): fairness keys take turns, priority 1 goes
//! first inside the urgent share, and the forecast flags `will-expire` at record.
//!
//! The backlogs run against the stand-in window of `deferral_host_conformance::backlog` (a
//! counter file whose window of 45 requests resets every 3 s, a reserve of 5).

mod common;

use common::{now, Host};
use deferral_host_conformance::backlog::{Backlog, Job};
use std::path::Path;
use std::time::Duration;

/// The binary under test (`DEFERRAL_HOST_BIN=<an older build>` runs the first test against it).
fn bin() -> &'static Path {
    static BIN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    Path::new(BIN.get_or_init(|| {
        std::env::var("DEFERRAL_HOST_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_deferral-host").to_string())
    }))
}

fn scenario(host: &Host, jobs: usize, cost: u64) -> Backlog<'_> {
    Backlog {
        bin: bin(),
        store: &host.store,
        dir: host.dir.path(),
        jobs,
        limit: 45,
        reserve: 5,
        cost,
        window_s: 3,
        gate_lines: true,
        work_line: false,
        report_file: true,
        deadline: Duration::from_secs(60),
        tick_every: Duration::from_millis(250),
        tickers: 1,
    }
}

/// A job launched by its own program: its default fairness key is that program.
fn of_program(name: &str) -> Job {
    Job {
        program: Some(name.into()),
        ..Job::default()
    }
}

/// 40 jobs of one program (`resume-sync.sh`), then 4 of another (`resume-labeler.sh`) recorded
/// after them and due after them (8 fit a window): the fairness keys default to the programs,
/// the labeler's 4 take turns with the sync and start in the first window they are due in
/// (earliest first alone starts them in the sixth), and the whole backlog still completes in
/// the minimum windows + 1, one launch per job, none deferred again. No flag is needed: an
/// older host runs it as it is (`DEFERRAL_HOST_BIN`) and starves the labeler.
#[test]
fn a_small_key_behind_a_large_one_starts_within_two_windows() {
    let host = Host::new();
    let backlog = scenario(&host, 44, 5);
    let mut jobs: Vec<Job> = (0..40).map(|_| of_program("sync")).collect();
    jobs.extend((0..4).map(|_| of_program("labeler")));
    let run = backlog.run_jobs(&jobs, &[]);
    assert_eq!(
        (run.count("complete"), run.launches),
        (44, 44),
        "every job completes with one launch: {:?} {:?}",
        run.states,
        run.causes
    );
    let first = run.windows[0];
    let window_of = |id: &str| run.spends.iter().find(|s| s.1 == id).map(|s| s.0);
    for id in &run.ids[40..] {
        let k = window_of(id).expect("the labeler job spent");
        assert!(
            k <= first + 1,
            "labeler job {id} started in window {k}, due in {first}: {:?}",
            run.spends
        );
    }
    // The forecast: once the pool has seen two resets (it knows the window is 3 s, not an
    // hour), each drain time it forecast is within one window of the actual drain.
    let drained = run.drained_ms.expect("the backlog drained");
    let learned = first * 3_000 + 3 * 3_000;
    let late: Vec<i64> = run
        .drain_forecasts
        .iter()
        .filter(|(at, _)| *at >= learned)
        .map(|(_, drain)| *drain as i64 - drained as i64)
        .collect();
    eprintln!(
        "forecast minus actual drain (ms), once the window is learned: {late:?}; every one \
         (when, forecast): {:?}",
        run.drain_forecasts
    );
    assert!(
        !late.is_empty(),
        "forecasts read: {:?}",
        run.drain_forecasts
    );
    assert!(
        late.iter().all(|d| d.abs() <= 3_000),
        "a drain forecast more than a window off: {late:?}"
    );
    let minimum = backlog.minimum_windows();
    assert!(
        run.windows.len() as u64 <= minimum + 1,
        "{} windows ({:?}), the minimum is {minimum}",
        run.windows.len(),
        run.windows
    );
}

/// 16 jobs of priority 0 behind the window, and 2 of priority 1 recorded while they drain, due
/// at the next reset; a quarter of each window is kept for priority > 0 (10 of 40): the 2
/// start in the window they are due in, and priority 0 never takes more than 3 jobs of 10 a
/// window (30 of 40).
#[test]
fn priority_one_recorded_behind_a_backlog_starts_in_the_next_window_inside_the_urgent_share() {
    let host = Host::new();
    let backlog = scenario(&host, 18, 10);
    let mut jobs: Vec<Job> = (0..16)
        .map(|_| Job {
            key: Some("nightly sync".into()),
            ..Job::default()
        })
        .collect();
    jobs.extend((0..2).map(|_| Job {
        priority: Some(1),
        late: true,
        ..Job::default()
    }));
    let run = backlog.run_jobs(&jobs, &["--pool-urgent-share", "app-42=0.25"]);
    assert_eq!(
        (run.count("complete"), run.launches),
        (18, 18),
        "{:?} {:?}",
        run.states,
        run.causes
    );
    let due = run.late_due_window.expect("the urgent jobs were recorded");
    for id in &run.ids[16..] {
        let k = run.spends.iter().find(|s| s.1 == *id).map(|s| s.0);
        assert_eq!(k, Some(due), "urgent job {id}: {:?}", run.spends);
    }
    for w in &run.windows {
        let of_zero = run
            .spends
            .iter()
            .filter(|s| s.0 == *w && run.ids[..16].contains(&s.1))
            .count();
        assert!(of_zero <= 3, "window {w}: {of_zero} of priority 0");
    }
}

fn gate_line(remaining: u64, reset_s: u64, after_ms: u64, by_ms: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), after_ms, by_ms).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":{remaining},"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0,"contentCreating":10}},"deferredReceipt":{receipt}}}"#
    )
}

/// 4 jobs of 10 fill the window after the reset (45 less a reserve of 5): a fifth whose window
/// ends before the one after that opens is flagged `will-expire` when recorded, and in
/// `status`; the first is not.
#[test]
fn a_deferral_that_cannot_start_before_its_resume_by_is_flagged_at_record() {
    let host = Host::new();
    let reset_s = now() / 1000 + 60;
    let after = reset_s * 1000 - now();
    let record = |by_ms: u64, extra: &[&str]| {
        let mut args = vec!["record", "--launch", "exec:/bin/true", "--pool", "app-42"];
        args.extend(extra);
        args.push("-");
        host.expect(0, &args, &gate_line(0, reset_s, after, by_ms))
    };
    let first = record(after + 600_000, &[]);
    assert_eq!(first["will_expire"], false, "{first}");
    assert!(first["expected_start"].is_string(), "{first}");
    for _ in 0..3 {
        record(after + 600_000, &[]);
    }
    let late = record(after + 600_000, &[]);
    assert_eq!(
        late["will_expire"], true,
        "the window after the next: {late}"
    );
    let start = late["expected_start_ms"].as_u64().unwrap();
    assert!(start >= reset_s * 1000 + 3_600_000, "{late}");
    // Priority 1 goes before the four: it starts in the next window.
    let urgent = record(after + 600_000, &["--priority", "1"]);
    assert_eq!(urgent["will_expire"], false, "{urgent}");
    let shown = host.status(late["id"].as_str().unwrap());
    assert_eq!(shown["will_expire"], true, "{shown}");
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let pool = &pools["pools"][0];
    assert_eq!(pool["expected_drain_ms"].as_u64(), Some(start), "{pool}");
    let text = host.run(&["status"], "");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("will-expire"), "{text}");
}
