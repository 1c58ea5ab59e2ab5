//! Benchmark of pools (issue 19): a backlog behind one quota, and the tick's cost with many
//! held deferrals, each side by side with a host without pools in the same run.
//!
//! ```text
//! cargo run -p deferral-host --example pools_bench -- --new-bin PATH --old-bin PATH \
//!     [--jobs 24,48] [--sizes 10000,100000] [--dir DIR]
//! ```
//! `bench/host/pools.sh` builds both binaries and runs this. Prints one JSON document.
//!
//! * `backlog`: N jobs of 10 writes behind one 45-request window (reserve 5, so 4 fit a
//!   window), every gate deferred to the same reset, `exec:` launches of a script that plays
//!   the resume against a stand-in window of 3 s, a tick every 250 ms
//!   (`deferral_host_conformance::backlog`). The new host records each gate's line in a pool;
//!   the old one records the bare receipts (what it takes).
//! * `tick`: one `tick` (the binary, `--integrity off`, wall time, median of 7) on a store
//!   with N held deferrals (due, their pool's window spent: the new host) and with N waiting
//!   deferrals (not yet due: both hosts), filled with direct SQL in one transaction.

use deferral_host::clock::now_ms;
use deferral_host_conformance::backlog::Backlog;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn list(args: &[String], name: &str, default: &str) -> Vec<usize> {
    arg(args, name)
        .unwrap_or_else(|| default.to_string())
        .split(',')
        .map(|n| n.parse().expect("a number"))
        .collect()
}

fn backlog(bin: &Path, jobs: usize, gate_lines: bool, root: &Path) -> Value {
    let dir = tempfile::tempdir_in(root).unwrap();
    let store = format!("sqlite:{}", dir.path().join("host.db").display());
    let scenario = Backlog {
        bin,
        store: &store,
        dir: dir.path(),
        jobs,
        limit: 45,
        reserve: 5,
        cost: 10,
        window_s: 3,
        gate_lines,
        work_line: false,
        report_file: true,
        deadline: Duration::from_secs(30 + 6 * jobs as u64),
        tick_every: Duration::from_millis(250),
        tickers: 1,
    };
    let run = scenario.run();
    let minimum = scenario.minimum_windows();
    let used = run.windows.len() as u64;
    json!({
        "jobs": jobs,
        "complete": run.count("complete"),
        "blocked": run.count("blocked"),
        "launches": run.launches,
        "wasted_launches": run.launches.saturating_sub(run.count("complete")),
        "windows_used": used,
        "minimum_windows": minimum,
        "target_windows": (1.1 * minimum as f64).floor() as u64 + 1,
        "seconds": run.elapsed.as_secs_f64().round(),
    })
}

/// Creates the store with `bin` (its own schema), then bulk-loads `n` deferrals: `held`
/// (due, in the default pool whose window is spent and held) or waiting (due in an hour).
fn fill(bin: &Path, path: &Path, n: usize, held: bool) {
    let status = Command::new(bin)
        .arg("--store")
        .arg(format!("sqlite:{}", path.display()))
        .arg("init")
        .output()
        .unwrap();
    assert!(status.status.success(), "the store is created");
    let conn = rusqlite::Connection::open(path).unwrap();
    let now = now_ms() as i64;
    let after = if held { now - 60_000 } else { now + 3_600_000 };
    conn.execute_batch("BEGIN").unwrap();
    {
        let mut insert = conn
            .prepare(
                "INSERT INTO deferrals (id, state, fence, reentries, max_reentries, reason, resume_after_ms, resume_by_ms, \
                 launch, wakeup_digest, cancellation_digest, cause, receipt_seq, created_ms, updated_ms) \
                 VALUES (?1, 'deferred', 1, 0, 2, 'rest-reserve', ?2, ?3, 'exec:/bin/true', ?4, ?4, 'recorded', 0, ?5, ?5)",
            )
            .unwrap();
        let digest = "0".repeat(64);
        for i in 0..n {
            insert
                .execute(rusqlite::params![
                    format!("d{i:08}"),
                    after + (i % 1000) as i64,
                    now + 86_400_000,
                    digest,
                    now
                ])
                .unwrap();
        }
    }
    if held {
        conn.execute("UPDATE deferrals SET rest_cost = 10", [])
            .unwrap();
        conn.execute(
            "UPDATE pools SET version = version + 1, rest_limit = 45, rest_remaining = 5, rest_reserve = 5, \
             rest_reset_ms = ?1, rest_observed_ms = ?2, rest_source = 'bench', hold_until_ms = ?1, \
             hold_reason = 'pool default: 0 of at least 1000 fit the window that resets in an hour' WHERE name = 'default'",
            rusqlite::params![now + 3_600_000, now],
        )
        .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
}

/// Median wall time of `tick` on the store (7 runs after one warm-up).
fn tick_ms(bin: &Path, path: &Path) -> f64 {
    let mut times = Vec::new();
    for run in 0..8 {
        let start = Instant::now();
        let out = Command::new(bin)
            .arg("--store")
            .arg(format!("sqlite:{}", path.display()))
            .args(["--integrity", "off", "tick", "--quiet"])
            .env_remove("GITHUB_TOKEN")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        if run > 0 {
            times.push(start.elapsed());
        }
    }
    times.sort();
    (times[times.len() / 2].as_secs_f64() * 1e4).round() / 10.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let new = PathBuf::from(arg(&args, "--new-bin").expect("--new-bin PATH"));
    let old = PathBuf::from(arg(&args, "--old-bin").expect("--old-bin PATH"));
    let root = PathBuf::from(arg(&args, "--dir").unwrap_or_else(|| "bench/host".into()));
    let mut backlogs = Vec::new();
    // `--jobs 0`: no backlog, the tick figures only.
    for jobs in list(&args, "--jobs", "24").into_iter().filter(|&j| j > 0) {
        eprintln!("backlog of {jobs}: with pools");
        let with = backlog(&new, jobs, true, &root);
        eprintln!("backlog of {jobs}: without pools");
        let without = backlog(&old, jobs, false, &root);
        backlogs.push(json!({"jobs": jobs, "pools": with, "without_pools": without}));
    }
    let mut ticks = Vec::new();
    for n in list(&args, "--sizes", "10000,100000") {
        let dir = tempfile::tempdir_in(&root).unwrap();
        let file = |name: &str| dir.path().join(name);
        eprintln!("tick with {n} deferrals");
        fill(&new, &file("held.db"), n, true);
        fill(&new, &file("waiting-new.db"), n, false);
        fill(&old, &file("waiting-old.db"), n, false);
        ticks.push(json!({
            "deferrals": n,
            "pools_held_ms": tick_ms(&new, &file("held.db")),
            "pools_waiting_ms": tick_ms(&new, &file("waiting-new.db")),
            "without_pools_waiting_ms": tick_ms(&old, &file("waiting-old.db")),
        }));
    }
    let growth = |key: &str| {
        let first = ticks.first().and_then(|t| t[key].as_f64()).unwrap_or(0.0);
        let last = ticks.last().and_then(|t| t[key].as_f64()).unwrap_or(0.0);
        ((last / first) * 100.0).round() / 100.0
    };
    let out = json!({
        "backlog": backlogs,
        "tick": ticks,
        "tick_growth": {
            "pools_held": growth("pools_held_ms"),
            "pools_waiting": growth("pools_waiting_ms"),
            "without_pools_waiting": growth("without_pools_waiting_ms"),
        },
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
