//! Wake latency of `deferral-host run` (the release binary beside this example) against a
//! once-a-minute cron `tick`: when each deferral is launched, minus when it was due.
//!
//! - `run`: N deferrals (200) recorded through `run`'s port, due at spread times over S
//!   seconds (30), each launching an `exec:` program that writes down when it started; latency
//!   is that time minus the deferral's `resume_after_ms`.
//! - `cron_tick`: computed from the same due times, not waited for (a real minute cron would
//!   take minutes of wall time per figure): cron starts `tick` once a minute, so a deferral due
//!   at t starts at the next tick at or after t, plus the time a real `tick` takes from its start
//!   to a launch, measured here on the same machine (one `tick` over 20 due deferrals). Taken
//!   over 60 phases of the minute (1 s apart), as a crontab's minute falls anywhere.
//!
//! ```text
//! bench/host/run-wake.sh [--deferrals N] [--spread-s S]
//! ```
//! Prints one JSON document on one line on stdout, progress on stderr.

use deferral_core::digest::sha256_hex;
use deferral_core::receipt::{Bindings, Reason, Receipt};
use deferral_host::clock::now_ms;
use deferral_host::store::{IntegrityCheck, SqliteStore};
use serde_json::{json, Value};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HOUR: u64 = 3_600_000;
// Only its token and `exchange`: `run` is started here, not `serve`.
#[allow(dead_code)]
#[path = "common/serve.rs"]
mod serve;

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

fn receipt(n: u64, resume_after: u64) -> String {
    Receipt::handoff(
        Reason::RestReserve,
        now_ms().min(resume_after),
        resume_after,
        resume_after + HOUR,
        Bindings {
            scope_digest: "a".repeat(64),
            request_digest: sha256_hex(format!("wake-{n}-{resume_after}").as_bytes()),
            plan_digest: None,
        },
        true,
    )
    .expect("a handoff receipt")
    .to_json()
}

fn stamps(file: &Path) -> Vec<(String, u64)> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (id, ms) = l.split_once(' ')?;
            Some((id.to_string(), ms.parse().ok()?))
        })
        .collect()
}

fn wait_for_stamps(file: &Path, n: usize, bound: Duration) -> Vec<(String, u64)> {
    let started = Instant::now();
    loop {
        let seen = stamps(file);
        if seen.len() >= n || started.elapsed() > bound {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `{n, min_ms, median_ms, p99_ms, max_ms}` of latencies in ms.
fn stats(mut late: Vec<i64>) -> Value {
    late.sort_unstable();
    let at = |q: usize| late[((late.len() * q).div_ceil(100)).max(1) - 1];
    json!({"n": late.len(), "min_ms": late[0], "median_ms": at(50), "p99_ms": at(99), "max_ms": late[late.len() - 1]})
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = arg(&args, "--deferrals", 200);
    let spread = arg(&args, "--spread-s", 30) * 1000;
    let bin: PathBuf = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("deferral-host");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stamps");
    let script = dir.path().join("stamp.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$DEFERRAL_ID $(date +%s%3N)\" >> '{}'\n",
            file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let target = format!("exec:{}", script.display());

    // run: the port and the scheduler in one process.
    let store = format!("sqlite:{}", dir.path().join("run.db").display());
    serve::init(&bin, &store);
    let (mut child, addr) = serve::spawn_listening(
        Command::new(&bin)
            .args([
                "--store",
                &store,
                "run",
                "--listen",
                "127.0.0.1:0",
                "--quiet",
                "--follow-interval",
                "10m",
                "--allow-launch",
                &target,
            ])
            .env("DEFERRAL_SERVE_TOKEN", serve::TOKEN),
    );
    let mut conn = TcpStream::connect(&addr).unwrap();
    let first = now_ms() + 3000;
    let mut due = std::collections::BTreeMap::new();
    eprintln!(
        "run-wake: recording {n} deferrals due over {} s",
        spread / 1000
    );
    for i in 0..n {
        // Spread evenly, each moved by a pseudo-random part of its slot.
        let slot = spread / n;
        let at = first + i * slot + (i * 7919) % slot.max(1);
        let body = json!({"receipt": serde_json::from_str::<Value>(&receipt(i, at)).unwrap(), "launch": target}).to_string();
        let (status, answer) = serve::exchange(&mut conn, "POST", "/v1/deferrals", &body);
        assert_eq!(status, 201, "{answer}");
        due.insert(answer["id"].as_str().unwrap().to_string(), at);
    }
    let seen = wait_for_stamps(&file, n as usize, Duration::from_millis(spread + 60_000));
    assert_eq!(seen.len(), n as usize, "every deferral launched once");
    let run_late: Vec<i64> = seen
        .iter()
        .map(|(id, at)| *at as i64 - due[id] as i64)
        .collect();
    let early = run_late.iter().filter(|l| **l < 0).count();
    // SAFETY: kill(2) on the child this program started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();

    // What one real `tick` takes from its start to each launch, over 20 due deferrals.
    let tick_db = dir.path().join("tick.db");
    let tick_file = dir.path().join("tick-stamps");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$DEFERRAL_ID $(date +%s%3N)\" >> '{}'\n",
            tick_file.display()
        ),
    )
    .unwrap();
    {
        let store = SqliteStore::open(&tick_db, IntegrityCheck::Full).unwrap();
        let now = now_ms();
        for i in 0..20 {
            deferral_host::lifecycle::insert::insert_new(
                &store,
                receipt(1_000_000 + i, now - 1000).as_bytes(),
                &target,
                2,
                now,
            )
            .unwrap();
        }
    }
    let started = now_ms();
    let status = Command::new(&bin)
        .args([
            "--store",
            &format!("sqlite:{}", tick_db.display()),
            "tick",
            "--quiet",
        ])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let tick_delays: Vec<i64> = stamps(&tick_file)
        .iter()
        .map(|(_, at)| *at as i64 - started as i64)
        .collect();
    assert_eq!(tick_delays.len(), 20);
    let tick_stats = stats(tick_delays.clone());
    let tick_median = tick_stats["median_ms"].as_i64().unwrap();
    // Over 60 phases of the cron minute (a crontab's minute boundary falls anywhere relative
    // to when work happens to be due), so the figure does not depend on this run's clock.
    let cron_late: Vec<i64> = (0..60u64)
        .flat_map(|phase| {
            due.values().map(move |&t| {
                let shifted = t + 60_000 - phase * 1000;
                (shifted.div_ceil(60_000) * 60_000 - shifted) as i64 + tick_median
            })
        })
        .collect();
    let run = stats(run_late);
    let cron = stats(cron_late);
    println!(
        "{}",
        json!({
            "deferrals": n,
            "spread_s": spread / 1000,
            "run": {"latency": run, "early": early},
            "cron_tick": {
                "model": "computed, not waited for: for each due time and each of 60 phases of the cron minute (1 s apart), the next tick at or after it, plus the median time a real tick took from its start to a launch",
                "latency": cron,
                "tick_start_to_launch": tick_stats
            },
            "median_ratio_cron_over_run": cron["median_ms"].as_f64().unwrap() / run["median_ms"].as_f64().unwrap().max(1.0),
        })
    );
}
