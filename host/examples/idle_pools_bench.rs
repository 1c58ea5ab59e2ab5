//! Idle pools cost nothing (issue 26): `tick` with nothing due, `status --pools --json` (what
//! `GET /v1/pools` answers) and the status page (`status --html`) on a store with 50 idle pools
//! and on one with 50,000, each also holding one busy pool with a held backlog. Median wall time
//! of 7 runs of the binary each (`--integrity off`: what the command itself does; the open's
//! full check, which reads every page of the store whatever it holds, is measured apart), and
//! the ratio of the large store to the small one.
//!
//! ```text
//! cargo run -p deferral-host --example idle_pools_bench -- [--sizes 50,50000] [--bin PATH]
//! ```
//! The stores are made by the binary (`init`), the idle pools (each with a REST window whose
//! reset passed two hours ago, written two hours ago) inserted with plain SQL in one
//! transaction. One JSON document on stdout.

use deferral_host::clock::now_ms;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn host(bin: &str, store: &str, args: &[&str], stdin: &str) -> String {
    host_checked(bin, store, "full", args, stdin)
}

/// `integrity`: the open's check (`full`, the default, reads every page of the store).
fn host_checked(bin: &str, store: &str, integrity: &str, args: &[&str], stdin: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(bin)
        .arg("--store")
        .arg(store)
        .arg("--integrity")
        .arg(integrity)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("deferral-host runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fill(path: &Path, idle: usize) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let long_ago = i64::try_from(now_ms()).unwrap() - 2 * 3_600_000;
    let tx = conn.unchecked_transaction().unwrap();
    {
        let mut pool = tx
            .prepare("INSERT INTO pools (name, version, updated_ms) VALUES (?1, 1, ?2)")
            .unwrap();
        let mut window = tx
            .prepare(
                "INSERT INTO pool_windows (pool, resource, window_limit, remaining, spent, spent_at_report, \
                 reserve, reset_ms, reset_known, opened_after_ms, length_ms, next_limit, observed_ms, source) \
                 VALUES (?1, 'rest', 5000, 4000, 0, 0, 500, ?2, 1, 0, 3600000, 5000, ?2, 'bench')",
            )
            .unwrap();
        for i in 0..idle {
            let name = format!("idle-{i}");
            pool.execute(rusqlite::params![name, long_ago]).unwrap();
            window.execute(rusqlite::params![name, long_ago]).unwrap();
        }
    }
    tx.commit().unwrap();
}

/// A busy pool: 20 deferrals due now behind a window with nothing left above the reserve.
fn busy(bin: &str, store: &str, dir: &Path) {
    let reset_s = now_ms() / 1000 + 1800;
    for i in 0..20 {
        let receipt = deferral_host_conformance::distinct_handoff(now_ms(), 0, 3_600_000).to_json();
        let line = format!(
            r#"{{"status":"deferred","mode":"gate","rest":{{"limit":45,"remaining":5,"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0}},"deferredReceipt":{receipt}}}"#
        );
        let _ = i;
        host(
            bin,
            store,
            &[
                "record",
                "--launch",
                "exec:/bin/true",
                "--pool",
                "busy",
                "--no-check",
                "-",
            ],
            &line,
        );
    }
    let _ = dir;
}

fn median_ms(mut run: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[3] * 10.0).round() / 10.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bin = arg(&args, "--bin").unwrap_or_else(|| {
        let exe = std::env::current_exe().unwrap();
        let debug = exe.parent().unwrap().parent().unwrap();
        debug.join("deferral-host").display().to_string()
    });
    let sizes: Vec<usize> = arg(&args, "--sizes")
        .unwrap_or_else(|| "50,50000".into())
        .split(',')
        .map(|n| n.parse().expect("a number"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut rows: Vec<Value> = Vec::new();
    for idle in &sizes {
        let path = dir.path().join(format!("idle-{idle}.db"));
        let store = format!("sqlite:{}", path.display());
        host(&bin, &store, &["init"], "");
        fill(&path, *idle);
        busy(&bin, &store, dir.path());
        let page = dir.path().join(format!("page-{idle}.html"));
        let listed = host(&bin, &store, &["status", "--pools", "--json"], "");
        let listed: Value = serde_json::from_str(&listed).unwrap();
        eprintln!(
            "{idle} idle pools: {} listed",
            listed["pools"].as_array().unwrap().len()
        );
        let off = |args: &[&str]| {
            median_ms(|| {
                host_checked(&bin, &store, "off", args, "");
            })
        };
        rows.push(json!({
            "idle_pools": idle,
            "pools_listed": listed["pools"].as_array().unwrap().len(),
            "tick_ms": off(&["tick", "--quiet", "--pool-jitter", "0s"]),
            "status_pools_ms": off(&["status", "--pools", "--json"]),
            "page_ms": off(&["status", "--html", page.to_str().unwrap()]),
            "open_with_full_check_ms": median_ms(|| {
                host(&bin, &store, &["status", "--pools", "--json"], "");
            }),
        }));
    }
    let first = rows[0].clone();
    let last = rows[rows.len() - 1].clone();
    let ratio = |key: &str| {
        let (a, b) = (first[key].as_f64().unwrap(), last[key].as_f64().unwrap());
        ((b / a) * 100.0).round() / 100.0
    };
    println!(
        "{}",
        json!({
            "runs": rows,
            "ratio_largest_to_smallest": {
                "tick": ratio("tick_ms"),
                "status_pools": ratio("status_pools_ms"),
                "page": ratio("page_ms"),
            }
        })
    );
}
