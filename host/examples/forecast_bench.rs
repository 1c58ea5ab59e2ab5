//! Benchmark of the reads that forecast a pool (issue 34, "Reads that cost what they show"): the
//! record answer (`POST /v1/deferrals`), `GET /v1/pools`, `GET /v1/deferrals/ID`, the status
//! page (`GET /`) and `GET /metrics` on `deferral-host serve`, for two pools in one run:
//!
//! - `small` (the baseline): 10 deferrals of one fairness key due now;
//! - `large`: 10,000 deferrals due now, each with its own fairness key, and one deferral 30 days
//!   away (less an hour, so the forecast's 30-day horizon holds it).
//!
//! Both pools have learned a 3-second window (two reports of resets 3 s apart, the second read
//! after the first reset passed: the shortest window the ledger learns), a limit of 45 and a reserve of 5: 4 jobs of 10 a window. Each store is created by
//! the binary under test (`init`) and filled through the library's `record` (the CLI's path).
//! Each read is made `--requests` times one after the other, each on a new connection (connect
//! to last byte): median, p95 and max in ms, and the large pool's median over the small one's.
//!
//! ```text
//! bench/host/forecast.sh [--requests 20] [--keys 10000] [--bin PATH] [--dir DIR]
//! ```
//! `--bin` benchmarks another build of `deferral-host` (an older one: expect minutes a read).
//! One JSON document on stdout, progress on stderr.

use deferral_host::lifecycle::insert::{insert_once, Insertion};
use deferral_host::store::pools::{Cost, Observation, PoolTag, Resource, Window};
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{RecordKeys, SqliteStore, Store};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "common/serve.rs"]
mod serve;

use serve::{init, spawn_listening, TOKEN};

const HOUR: u64 = 3_600_000;
const DAY: u64 = 24 * HOUR;
/// The goal of the issue: every read that forecasts a pool, in the large pool.
const GOAL_MS: f64 = 50.0;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn now() -> u64 {
    deferral_host::clock::now_ms()
}

/// Records one deferral of cost 10 in pool `app-42`, due `after_ms` from now, with `seen`
/// reports. A receipt's window is at most a day after it was issued: one due later was issued
/// an hour before it is due.
fn put(
    store: &dyn Store,
    key: &str,
    priority: i64,
    after_ms: u64,
    seen: Vec<Observation>,
) -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = now();
    // Distinct receipts (recording is idempotent by receipt): issued a millisecond apart.
    let issued = t + after_ms.saturating_sub(HOUR) - n;
    let receipt = deferral_core::receipt::Receipt::handoff(
        deferral_core::receipt::Reason::RestReserve,
        issued,
        t + after_ms,
        t + after_ms + 2 * HOUR,
        deferral_core::receipt::Bindings {
            scope_digest: "a".repeat(64),
            request_digest: "b".repeat(64),
            plan_digest: None,
        },
        true,
    )
    .expect("a valid receipt")
    .to_json();
    let keys = RecordKeys {
        pool: Some(PoolTag {
            pool: Some("app-42".into()),
            cost: Some(Cost::default().with(Resource::Rest, 10)),
            seen,
            priority: Some(priority),
            fairness_key: Some(key.into()),
        }),
        ..RecordKeys::default()
    };
    match insert_once(store, receipt.as_bytes(), "exec:/bin/true", 2, keys, t).unwrap() {
        Insertion::New(r) => r.deferral.id,
        Insertion::Existing(d) => panic!("recorded twice: {}", d.id),
    }
}

/// Creates and fills a store: the learned 3-second window, `keys` deferrals due now (each its
/// own key when `own_keys`), and, with `far`, one 30 days away. Answers the far one's id (or
/// the first's).
fn fill(bin: &Path, db: &Path, keys: usize, own_keys: bool, far: bool) -> String {
    init(bin, &format!("sqlite:{}", db.display()));
    let store = SqliteStore::open(db, IntegrityCheck::Quick).unwrap();
    let t = now();
    // Two reports read while their windows were ahead, the second after the first's reset had
    // passed, of resets 3 s apart: the shortest window the ledger learns (resets within 2 s
    // are one window, and a runner cannot claim time that has not passed).
    let first = t + 1_500;
    for (i, reset) in [first, first + 3_000].into_iter().enumerate() {
        while i > 0 && now() <= first {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let seen = Observation {
            resource: Resource::Rest,
            window: Window {
                limit: 45,
                remaining: 0,
                reserve: 5,
                reset_ms: reset,
            },
            observed_ms: now(),
            source: "record".into(),
            deferral_id: None,
        };
        put(&store, &format!("learn-{i}"), 0, 0, vec![seen]);
    }
    let mut shown = if far {
        Some(put(&store, "far", 1, 30 * DAY - HOUR, Vec::new()))
    } else {
        None
    };
    for i in 0..keys {
        let key = if own_keys {
            format!("job-{i}")
        } else {
            "job".to_string()
        };
        let id = put(&store, &key, 0, 0, Vec::new());
        shown.get_or_insert(id);
    }
    shown.unwrap()
}

/// One request on a new connection: its status and the time to its last byte.
fn timed(addr: &str, method: &str, path: &str, body: &str) -> (u16, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(600)))
        .unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let took = started.elapsed();
    let status = String::from_utf8_lossy(&answer[9..12]).parse().unwrap_or(0);
    (status, took)
}

fn summary(mut times: Vec<Duration>) -> Value {
    times.sort();
    let at = |p: f64| ms(times[((times.len() - 1) as f64 * p).round() as usize]);
    json!({"median_ms": at(0.5), "p95_ms": at(0.95), "max_ms": at(1.0)})
}

/// Measures every forecasting read `requests` times on the store `db`.
fn measure(bin: &Path, db: &Path, shown: &str, requests: usize) -> Value {
    let store = format!("sqlite:{}", db.display());
    let (mut child, addr) = spawn_listening(
        Command::new(bin)
            .args(["--store", &store, "serve", "--listen", "127.0.0.1:0"])
            .args(["--allow-launch", "exec:", "--no-check"])
            .env("DEFERRAL_SERVE_TOKEN", TOKEN),
    );
    let deferral = format!("/v1/deferrals/{shown}");
    let reads: [(&str, &str, &str); 5] = [
        ("record_answer", "POST", "/v1/deferrals"),
        ("pools", "GET", "/v1/pools"),
        ("deferral", "GET", &deferral),
        ("page", "GET", "/"),
        ("metrics", "GET", "/metrics"),
    ];
    let mut out = serde_json::Map::new();
    for (name, method, path) in reads {
        eprintln!("forecast bench: {} {name}", db.display());
        let mut times = Vec::new();
        for _ in 0..requests {
            let body = if method == "POST" {
                let t = now();
                static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let receipt = deferral_core::receipt::Receipt::handoff(
                    deferral_core::receipt::Reason::RestReserve,
                    t - n,
                    t,
                    t + HOUR,
                    deferral_core::receipt::Bindings {
                        scope_digest: "c".repeat(64),
                        request_digest: "d".repeat(64),
                        plan_digest: None,
                    },
                    true,
                )
                .expect("a valid receipt")
                .to_json();
                // Priority 1: within the look of the forecast, which answers its start.
                format!(
                    r#"{{"receipt":{receipt},"launch":"exec:/bin/true","pool":"app-42","cost":{{"rest":10}},"priority":1,"fairness_key":"asked-{n}"}}"#
                )
            } else {
                String::new()
            };
            let (status, took) = timed(&addr, method, path, &body);
            assert!((200..300).contains(&status), "{method} {path}: {status}");
            times.push(took);
        }
        out.insert(name.to_string(), summary(times));
    }
    // SAFETY: kill(2) on the child this program started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    Value::Object(out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let requests: usize = arg(&args, "--requests").map_or(20, |v| v.parse().unwrap());
    let keys: usize = arg(&args, "--keys").map_or(10_000, |v| v.parse().unwrap());
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
    eprintln!("forecast bench: filling the small pool");
    let small_db = temp.path().join("small.db");
    let small_shown = fill(&bin, &small_db, 10, false, false);
    eprintln!("forecast bench: filling the large pool ({keys} keys)");
    let filling = Instant::now();
    let large_db = temp.path().join("large.db");
    let large_shown = fill(&bin, &large_db, keys, true, true);
    let fill_s = filling.elapsed().as_secs_f64();
    let small = measure(&bin, &small_db, &small_shown, requests);
    let large = measure(&bin, &large_db, &large_shown, requests);
    let mut ratios = serde_json::Map::new();
    let mut worst: f64 = 0.0;
    for (name, figures) in large.as_object().unwrap() {
        let median = |v: &Value| v["median_ms"].as_f64().unwrap();
        ratios.insert(
            name.clone(),
            json!(((median(figures) / median(&small[name])) * 100.0).round() / 100.0),
        );
        worst = worst.max(figures["p95_ms"].as_f64().unwrap());
    }
    println!(
        "{}",
        json!({
            "bench": "deferral-host reads that forecast a pool",
            "command": "bench/host/forecast.sh",
            "bin": bin.display().to_string(),
            "requests": requests,
            "window_length_ms": 3_000,
            "large_keys": keys,
            "large_fill_s": (fill_s * 10.0).round() / 10.0,
            "small": small,
            "large": large,
            "large_over_small_median": ratios,
            "large_worst_p95_ms": worst,
            "goal_ms": GOAL_MS,
            "goal_met": worst < GOAL_MS,
        })
    );
}
