//! A backlog behind one quota, through the real binary: 24 jobs of 10 writes behind one
//! 45-request window with a reserve of 5, all deferred by their gate to the same reset, recorded
//! with `exec:` launches of a script that plays the resume against a stand-in "GitHub" (a
//! counter file whose window resets every few seconds) and prints the resume line, with a tick
//! every quarter second. Without pools every job wakes at the reset, 4 use the window and 20
//! defer again, spending a re-entry each: after two windows 16 are blocked (`reentry-limit`)
//! with 44 launches. With pools the host admits what fits: 24 complete with 24 launches.

mod common;

use common::{now, script, Host};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// The stand-in window, in seconds (GitHub's is an hour).
const WINDOW_S: u64 = 3;
const LIMIT: u64 = 45;
const RESERVE: u64 = 5;
const COST: u64 = 10;
const JOBS: usize = 24;

/// The resume as a script: reads the stand-in window (`gh`: "window spent"), spends COST when
/// it fits above the reserve (exit 0, a `ready` line with the state it read), else defers its
/// receipt to the next reset (exit 6, a `deferred` line). Each launch is a line of `launches`,
/// each spend the window it spent in, in `spends`.
fn resume_script(dir: &Path) -> String {
    let d = dir.display();
    let body = format!(
        r#"receipt=$(cat)
now=$(date +%s%3N)
k=$((now / {w}000))
reset=$(((k + 1) * {w}))
exec 9>>'{d}/lock'
flock 9
read wk spent < '{d}/gh' || {{ wk=$k; spent=0; }}
[ "$wk" = "$k" ] || spent=0
remaining=$(({limit} - spent))
echo "$DEFERRAL_ID" >> '{d}/launches'
rest="\"rest\":{{\"limit\":{limit},\"remaining\":$remaining,\"reserve\":{reserve},\"plannedCost\":{cost},\"reset\":$reset,\"ok\":true}}"
if [ $((remaining - {cost})) -ge {reserve} ]; then
  echo "$k $((spent + {cost}))" > '{d}/gh'
  echo "$k" >> '{d}/spends'
  echo "{{\"status\":\"ready\",\"mode\":\"resume\",\"code\":null,$rest,\"graphql\":null}}"
  exit 0
fi
after=$((reset * 1000 + 200))
new=$(printf '%s' "$receipt" | sed -e "s/\"resume_after_ms\":[0-9]*/\"resume_after_ms\":$after/" -e "s/\"resume_by_ms\":[0-9]*/\"resume_by_ms\":$((after + 120000))/")
echo "{{\"status\":\"deferred\",\"mode\":\"resume\",\"code\":\"core-below-reserve\",$rest,\"graphql\":null,\"deferredReceipt\":$new}}"
exit 6"#,
        w = WINDOW_S,
        limit = LIMIT,
        reserve = RESERVE,
        cost = COST,
    );
    script(&dir.join("resume.sh"), &body)
}

/// The gate's line for one job deferred to the reset `reset_s` of a spent window.
fn gate_line(reset_s: u64) -> String {
    let at = now();
    let after = reset_s * 1000 + 200 - at;
    let receipt = deferral_host_conformance::distinct_handoff(at, after, after + 120_000).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","reason":"rest-reserve","rest":{{"limit":{LIMIT},"remaining":0,"reserve":{RESERVE},"plannedCost":{COST},"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":{COST},"graphql":0,"contentCreating":{COST}}},"deferredReceipt":{receipt}}}"#
    )
}

struct Run {
    states: Vec<String>,
    causes: Vec<String>,
    launches: usize,
    windows: Vec<u64>,
    /// A dry-run tick taken while jobs were held.
    held_seen: Option<Value>,
}

/// Records the backlog (each job's gate line, or with `bare` its `deferredReceipt` only) and
/// ticks until every job has ended or `deadline` passes.
fn backlog(host: &Host, bare: bool, deadline: Duration) -> Run {
    let dir = host.dir.path();
    let launch = resume_script(dir);
    // The window before `reset_s` is spent: every gate defers to its reset, far enough away
    // for the recording to end before it.
    let k0 = (now() + 2_500).div_ceil(WINDOW_S * 1000) - 1;
    std::fs::write(dir.join("gh"), format!("{k0} {LIMIT}\n")).unwrap();
    let reset_s = (k0 + 1) * WINDOW_S;
    let mut ids = Vec::new();
    for i in 0..JOBS {
        let line = gate_line(reset_s);
        let input = if bare {
            serde_json::from_str::<Value>(&line).unwrap()["deferredReceipt"].to_string()
        } else {
            line
        };
        let file = dir.join(format!("gate-{i}.json"));
        std::fs::write(&file, input).unwrap();
        // Bare receipts are recorded as a host without pools would take them (the test then
        // also runs against such a build through DEFERRAL_HOST_BIN and shows the collapse).
        let mut args = vec!["record", "--launch", &launch];
        if !bare {
            args.extend(["--pool", "app-42"]);
        }
        args.push(file.to_str().unwrap());
        let out = host.expect(0, &args, "");
        ids.push(out["id"].as_str().unwrap().to_string());
    }
    let started = Instant::now();
    let mut held_seen = None;
    loop {
        if bare {
            host.tick(&["--quiet"]);
        } else {
            host.tick(&[
                "--quiet",
                "--pool-buffer",
                "200ms",
                "--pool-jitter",
                "100ms",
            ]);
        }
        let states: Vec<Value> = ids.iter().map(|id| host.status(id)).collect();
        let live = states
            .iter()
            .filter(|s| matches!(s["state"].as_str(), Some("deferred" | "resumable")))
            .count();
        if held_seen.is_none() && states.iter().any(|s| !s["held"].is_null()) {
            held_seen = Some(host.tick(&["--dry-run"]));
        }
        if live == 0 || started.elapsed() > deadline {
            let launches = common::lines(&dir.join("launches")).len();
            let mut windows: Vec<u64> = common::lines(&dir.join("spends"))
                .iter()
                .map(|k| k.parse::<u64>().unwrap() - k0)
                .collect();
            windows.dedup();
            return Run {
                states: states
                    .iter()
                    .map(|s| s["state"].as_str().unwrap().to_string())
                    .collect(),
                causes: states
                    .iter()
                    .map(|s| s["cause"].as_str().unwrap().to_string())
                    .collect(),
                launches,
                windows,
                held_seen,
            };
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_backlog_behind_one_window_completes_with_one_launch_per_job_in_the_fewest_windows() {
    let host = Host::new();
    let run = backlog(&host, false, Duration::from_secs(60));
    let complete = run.states.iter().filter(|s| *s == "complete").count();
    assert_eq!(
        complete, JOBS,
        "every job completes: {:?} {:?}",
        run.states, run.causes
    );
    assert_eq!(run.launches, JOBS, "one launch per job, none wasted");
    // 4 jobs fit a window (45 - 5 reserve = 40 = 4 x 10): at least 6 windows, at most one more.
    let fit = (LIMIT - RESERVE) / COST;
    let minimum = JOBS.div_ceil(fit as usize) as u64;
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
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let pool = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "app-42")
        .expect("the pool is listed");
    assert_eq!(pool["rest"]["limit"], LIMIT, "{pool}");
    assert_eq!(pool["admitted"], 0, "every admission was released: {pool}");
}

/// The same backlog recorded as bare receipts (cost unknown): the pool learns the window and
/// each job's cost from the first reports; no job is refused half-way.
#[test]
fn bare_receipts_are_admitted_alone_until_reports_teach_the_window() {
    let host = Host::new();
    let run = backlog(&host, true, Duration::from_secs(60));
    let blocked = run.states.iter().filter(|s| *s == "blocked").count();
    assert_eq!(blocked, 0, "{:?} {:?}", run.states, run.causes);
    assert!(
        run.states.iter().all(|s| s == "complete"),
        "{:?}",
        run.states
    );
}
