//! Benchmark of the status page, `GET /` on `deferral-host serve`, on stores of different sizes
//! (default 1,000 and 50,000 deferrals): time per page and the peak memory of the server under
//! parallel loads, with each figure's ratio to the smallest store measured in the same run.
//!
//! Each store is created by the binary under test (`init`, so its own schema), then filled
//! in one transaction by plain SQL inserts: every row of `deferrals` valid (states, windows,
//! digests, causes as the host writes them), each with its current receipt in `receipts`; no
//! events (the page reads none). Mix: 40% deferred (windows over the next 30 days), 5%
//! resumable, 25% complete, 15% blocked, 15% cancelled.
//!
//! Then, for each store, `serve` is started on it and measured:
//! - `sequential`: `--requests` pages one after the other, each on a new connection (median,
//!   p95, in ms, connect to last byte);
//! - `parallel`: `--parallel` clients at once, each fetching `--rounds` pages (wall time, the
//!   answers' statuses), after which `peak_rss_kb` is the server's `VmHWM` (its peak resident
//!   memory since start) and `rss_at_start_kb` its `VmRSS` before any page.
//!
//! ```text
//! bench/host/page.sh [--sizes 1000,50000] [--requests 30] [--parallel 16] [--rounds 5]
//!                    [--bin PATH] [--dir DIR]
//! ```
//! `--bin` benchmarks another build of `deferral-host` (an older one, for a before/after);
//! default: the one beside this example. One JSON document on stdout, progress on stderr.

use deferral_core::digest::sha256_hex;
use deferral_core::receipt::{Bindings, Reason, Receipt};
use deferral_host::clock::now_ms;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const HOUR: u64 = 3_600_000;
const DAY: u64 = 24 * HOUR;
// The serve start-up the serve benchmarks share (its `exchange` is not used here).
#[allow(dead_code)]
#[path = "common/serve.rs"]
mod serve;

use serve::{Serve, TOKEN};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A cheap deterministic spread (no RNG crate needed): the `i`-th value of a 64-bit LCG.
fn spread(i: u64) -> u64 {
    i.wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
        >> 20
}

/// Creates the store with `bin` (its own schema), then inserts `count` deferrals.
fn fill(bin: &Path, db: &Path, count: u64) -> Duration {
    let created = Command::new(bin)
        .arg("--store")
        .arg(format!("sqlite:{}", db.display()))
        .arg("init")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    assert!(created.status.success(), "{created:?}");
    let started = Instant::now();
    let now = now_ms();
    let receipt = Receipt::handoff(
        Reason::RestReserve,
        now,
        now + 60_000,
        now + HOUR,
        Bindings {
            scope_digest: "a".repeat(64),
            request_digest: "b".repeat(64),
            plan_digest: None,
        },
        true,
    )
    .expect("valid receipt")
    .to_json();
    let receipt_sha = sha256_hex(receipt.as_bytes());
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut deferral = tx
            .prepare(
                "INSERT INTO deferrals (id, state, fence, reentries, max_reentries, reason, \
                 resume_after_ms, resume_by_ms, launch, wakeup_digest, cancellation_digest, \
                 lease_owner, lease_until_ms, attempt_status, cause, detail, receipt_seq, \
                 created_ms, updated_ms) \
                 VALUES (?1, ?2, ?3, ?4, 2, 'rest-reserve', ?5, ?6, \
                 'workflow-dispatch:octo/app/resume.yml@main', ?7, ?8, ?9, ?10, ?11, ?12, ?13, \
                 last_insert_rowid() + 1, ?14, ?15)",
            )
            .unwrap();
        let mut stored = tx
            .prepare(
                "INSERT INTO receipts (deferral_id, kind, receipt, sha256, created_ms) \
                 VALUES (?1, 'retained', ?2, ?3, ?4)",
            )
            .unwrap();
        for i in 0..count {
            let id = deferral_host::handle::new_deferral_id();
            let created = now - (count - i) * 1_000;
            let after = now + 60_000 + spread(i) % (30 * DAY);
            let digest = sha256_hex(id.as_bytes());
            let (state, reentries, cause, detail) = match i % 20 {
                0..8 => ("deferred", 0, "recorded", None),
                8 => ("resumable", 1, "claimed", None),
                9..14 => ("complete", 1, "complete", None),
                14..17 => ("blocked", 1, "blocked", Some("exit 1")),
                _ => ("cancelled", 0, "expired", None),
            };
            let live = matches!(state, "deferred" | "resumable");
            let (window_after, updated) = if live {
                (after, created)
            } else {
                (created + 60_000, created + 60_000 + spread(i) % HOUR)
            };
            let resumable = state == "resumable";
            deferral
                .execute(rusqlite::params![
                    id,
                    state,
                    i64::from(reentries) * 2 + 1,
                    reentries,
                    i64::try_from(window_after).unwrap(),
                    i64::try_from(window_after + HOUR).unwrap(),
                    live.then(|| digest.clone()),
                    sha256_hex(digest.as_bytes()),
                    resumable.then_some("bench-ticker"),
                    resumable.then(|| i64::try_from(now + HOUR).unwrap()),
                    resumable.then_some("dispatched"),
                    cause,
                    detail,
                    i64::try_from(created).unwrap(),
                    i64::try_from(updated).unwrap(),
                ])
                .unwrap();
            stored
                .execute(rusqlite::params![
                    id,
                    receipt,
                    receipt_sha,
                    i64::try_from(created).unwrap()
                ])
                .unwrap();
        }
    }
    tx.commit().unwrap();
    started.elapsed()
}

/// A line of `/proc/PID/status` of `serve` in kB (`VmRSS`, `VmHWM`).
fn memory_kb(serve: &Serve, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", serve.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc status"))
}

/// `GET /` on a new connection: status, body length, time from connect to the last byte.
fn page(addr: &str) -> (u16, usize, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let elapsed = started.elapsed();
    let status = std::str::from_utf8(&answer[9..12])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(0, |p| answer.len() - p - 4);
    (status, body, elapsed)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    ms(sorted[i])
}

fn measure(
    bin: &Path,
    dir: &Path,
    size: u64,
    requests: usize,
    parallel: usize,
    rounds: usize,
) -> Value {
    let db = dir.join(format!("page-{size}.db"));
    let filled = fill(bin, &db, size);
    eprintln!("{size}: filled in {} ms", ms(filled));
    let serve = Serve::start(bin, &format!("sqlite:{}", db.display()));
    let rss_at_start = memory_kb(&serve, "VmRSS");
    let mut bytes = 0;
    for _ in 0..3 {
        let (status, len, _) = page(&serve.addr);
        assert_eq!(status, 200, "warm-up page");
        bytes = len;
    }
    let mut times: Vec<Duration> = (0..requests)
        .map(|_| {
            let (status, _, took) = page(&serve.addr);
            assert_eq!(status, 200);
            took
        })
        .collect();
    times.sort();
    let started = Instant::now();
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..parallel)
            .map(|_| {
                scope.spawn(|| {
                    (0..rounds)
                        .map(|_| page(&serve.addr).0)
                        .collect::<Vec<u16>>()
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let wall = started.elapsed();
    let peak = memory_kb(&serve, "VmHWM");
    serve.stop();
    let ok = statuses.iter().filter(|s| **s == 200).count();
    let busy = statuses.iter().filter(|s| **s == 503).count();
    let result = json!({
        "stored": size,
        "page_bytes": bytes,
        "sequential": {"requests": requests, "median_ms": percentile(&times, 0.5), "p95_ms": percentile(&times, 0.95)},
        "parallel": {"clients": parallel, "pages": statuses.len(), "ok": ok, "busy_503": busy,
                     "other": statuses.len() - ok - busy, "wall_ms": ms(wall)},
        "rss_at_start_kb": rss_at_start,
        "peak_rss_kb": peak,
    });
    eprintln!("{size}: {result}");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    result
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<u64> = arg(&args, "--sizes")
        .unwrap_or_else(|| "1000,50000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("--sizes N,N"))
        .collect();
    let number = |name: &str, default: usize| {
        arg(&args, name).map_or(default, |v| v.parse().expect("a whole number"))
    };
    let (requests, parallel, rounds) = (
        number("--requests", 30),
        number("--parallel", 16),
        number("--rounds", 5),
    );
    let bin = arg(&args, "--bin").map_or_else(
        || {
            let exe = std::env::current_exe().unwrap();
            exe.parent()
                .unwrap()
                .parent()
                .unwrap()
                .join("deferral-host")
        },
        PathBuf::from,
    );
    let keep = arg(&args, "--dir").map(PathBuf::from);
    let temp = tempfile::tempdir_in(keep.as_deref().unwrap_or(Path::new("."))).unwrap();
    let results: Vec<Value> = sizes
        .iter()
        .map(|size| measure(&bin, temp.path(), *size, requests, parallel, rounds))
        .collect();
    let base = &results[0];
    let ratio = |r: &Value, pick: &dyn Fn(&Value) -> f64| round2(pick(r) / pick(base));
    let ratios: Vec<Value> = results
        .iter()
        .skip(1)
        .map(|r| {
            json!({
                "stored": r["stored"],
                "median_ms": ratio(r, &|v| v["sequential"]["median_ms"].as_f64().unwrap()),
                "p95_ms": ratio(r, &|v| v["sequential"]["p95_ms"].as_f64().unwrap()),
                "parallel_wall_ms": ratio(r, &|v| v["parallel"]["wall_ms"].as_f64().unwrap()),
                "peak_rss_kb": ratio(r, &|v| v["peak_rss_kb"].as_f64().unwrap()),
            })
        })
        .collect();
    println!(
        "{}",
        json!({
            "bench": "deferral-host status page",
            "command": "bench/host/page.sh",
            "bin": bin.display().to_string(),
            "sizes": results,
            "ratio_to_smallest": ratios,
        })
    );
}
