//! Benchmark of the durable host's store: `record` throughput with full durability, and the
//! time `tick` needs to find due deferrals among 10^4, 10^5 and 10^6 stored ones.
//!
//! ```text
//! cargo run --release -p deferral-host --example bench -- [--records N] [--sizes 10000,100000,1000000] [--dir DIR]
//! ```
//! Prints one JSON document on stdout. Setup rows are bulk-inserted directly (one transaction);
//! the measured query is the one `tick` and `tick --dry-run` run (`Store::due`), plus the whole
//! dry-run plan (expirable, stale leases, due).

use deferral_host::clock::now_ms;
use deferral_host::lifecycle;
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{SqliteStore, Store};
use deferral_host::tick::{plan, TickOptions};
use deferral_host_conformance::distinct_handoff;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const HOUR: u64 = 3_600_000;
/// Due rows among the stored ones: what one tick finds and launches.
const DUE: usize = 100;
const QUERY_RUNS: usize = 50;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn bench_record(dir: &Path, count: usize) -> serde_json::Value {
    let path = dir.join("record.db");
    let store = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    // Distinct receipts (recording is idempotent by receipt digest).
    let now = now_ms();
    let receipts: Vec<String> = (0..count)
        .map(|_| distinct_handoff(now, 60_000, HOUR).to_json())
        .collect();
    let start = Instant::now();
    for text in &receipts {
        // Each record is its own BEGIN IMMEDIATE transaction, fsynced (WAL, synchronous=FULL).
        lifecycle::insert::insert_new(&store, text.as_bytes(), "exec:/bin/true", 2, now_ms())
            .unwrap();
    }
    let elapsed = start.elapsed();
    json!({
        "records": count,
        "seconds": (elapsed.as_secs_f64() * 1e3).round() / 1e3,
        "records_per_s": (count as f64 / elapsed.as_secs_f64()).round(),
        "durability": "WAL, synchronous=FULL, one transaction per record",
    })
}

/// `stored` rows: DUE due now, half of the rest deferred to the future, half complete.
fn bulk_load(path: &Path, stored: usize) {
    let store = SqliteStore::open(path, IntegrityCheck::Off).unwrap();
    let conn = store.connection();
    let now = now_ms() as i64;
    let digest = "a".repeat(64);
    conn.execute_batch("PRAGMA synchronous=OFF; BEGIN").unwrap();
    {
        let mut insert = conn
            .prepare(
                "INSERT INTO deferrals (id, state, fence, reentries, max_reentries, reason, resume_after_ms, \
                 resume_by_ms, launch, wakeup_digest, cancellation_digest, cause, receipt_seq, created_ms, updated_ms) \
                 VALUES (?1, ?2, 1, 0, 2, 'rest-reserve', ?3, ?4, 'exec:/bin/true', ?5, ?5, 'recorded', 0, ?6, ?6)",
            )
            .unwrap();
        for i in 0..stored {
            let (state, after) = if i % (stored / DUE) == 0 {
                ("deferred", now - 1000 - (i as i64 % 1000))
            } else if i % 2 == 0 {
                ("deferred", now + 60_000 + (i as i64 % 3_000_000))
            } else {
                ("complete", now - 60_000 - (i as i64 % 3_000_000))
            };
            let id = format!("d{i:024x}");
            insert
                .execute(rusqlite::params![
                    id,
                    state,
                    after,
                    after + HOUR as i64,
                    digest,
                    now - 1000
                ])
                .unwrap();
        }
    }
    conn.execute_batch("COMMIT; ANALYZE; PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
}

fn bench_due(dir: &Path, stored: usize) -> serde_json::Value {
    let path = dir.join(format!("due-{stored}.db"));
    let load = Instant::now();
    bulk_load(&path, stored);
    let load = load.elapsed();
    let open = Instant::now();
    let store = SqliteStore::open(&path, IntegrityCheck::Full).unwrap();
    let open_full = open.elapsed();
    let open = Instant::now();
    drop(SqliteStore::open(&path, IntegrityCheck::Quick).unwrap());
    let open_quick = open.elapsed();
    let options = TickOptions {
        dry_run: true,
        ..TickOptions::new(deferral_host::launch::Launchers::builtin())
    };
    let mut due_times = Vec::new();
    let mut plan_times = Vec::new();
    for run in 0..=QUERY_RUNS {
        let now = now_ms();
        let start = Instant::now();
        let due = store.due(now, 1000).unwrap();
        let due_time = start.elapsed();
        assert_eq!(due.len(), DUE, "the setup has {DUE} due rows");
        let start = Instant::now();
        let [expirable, stale, due] = plan(&store, &options, now).unwrap();
        let plan_time = start.elapsed();
        assert_eq!((expirable.len(), stale.len(), due.len()), (0, 0, DUE));
        if run > 0 {
            // Run 0 warms the page cache.
            due_times.push(due_time);
            plan_times.push(plan_time);
        }
    }
    due_times.sort();
    plan_times.sort();
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    drop(store);
    let _ = std::fs::remove_file(&path);
    json!({
        "stored": stored,
        "due": DUE,
        "due_query_median_ms": ms(percentile(&due_times, 0.5)),
        "due_query_p95_ms": ms(percentile(&due_times, 0.95)),
        "dry_run_plan_median_ms": ms(percentile(&plan_times, 0.5)),
        "open_with_integrity_check_ms": ms(open_full),
        "open_with_quick_check_ms": ms(open_quick),
        "bulk_load_s": (load.as_secs_f64() * 10.0).round() / 10.0,
        "file_mb": bytes / 1_000_000,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let records: usize = arg(&args, "--records").map_or(500, |v| v.parse().expect("--records N"));
    let sizes: Vec<usize> = arg(&args, "--sizes")
        .unwrap_or_else(|| "10000,100000,1000000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("--sizes N,N,N"))
        .collect();
    let keep = arg(&args, "--dir").map(PathBuf::from);
    let temp = tempfile::tempdir_in(keep.as_deref().unwrap_or(Path::new("."))).unwrap();
    let record = bench_record(temp.path(), records);
    eprintln!("record: {record}");
    let mut due = Vec::new();
    for stored in &sizes {
        let figures = bench_due(temp.path(), *stored);
        eprintln!("due: {figures}");
        due.push(figures);
    }
    let growth = match (due.first(), due.last()) {
        (Some(a), Some(b)) if due.len() > 1 => {
            let (a, b) = (
                a["due_query_median_ms"].as_f64().unwrap(),
                b["due_query_median_ms"].as_f64().unwrap(),
            );
            json!((b / a * 100.0).round() / 100.0)
        }
        _ => serde_json::Value::Null,
    };
    println!(
        "{}",
        json!({
            "bench": "deferral-host",
            "command": "cargo run --release -p deferral-host --example bench",
            "record": record,
            "tick_find_due": due,
            "due_query_growth_smallest_to_largest": growth,
        })
    );
}
