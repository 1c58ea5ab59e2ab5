//! Throughput of `record` and `tick` on one store, SQLite or PostgreSQL, through the library
//! paths the CLI uses: `lifecycle::insert::insert_new` for each of N receipts (each its own transaction),
//! then one `tick` that claims and launches all N (`exec:/bin/true`, each launch waited for and
//! its outcome written back). Each round uses a fresh store (a new SQLite file, or a new
//! PostgreSQL schema); the JSON on stdout has every round and the medians.
//!
//! ```text
//! cargo run --release -p deferral-host --example store_bench -- --store sqlite --dir DIR [--records N] [--rounds R]
//! cargo run --release -p deferral-host --example store_bench -- --store postgres://USER@HOST:PORT/DB [--records N] [--rounds R] [--tick no]
//! ```
//! Written to compare two builds of the host in the same run (see BENCHMARKS.md, "One SQL layer").

use deferral_host::clock::now_ms;
use deferral_host::lifecycle;
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{Store, StoreUrl};
use deferral_host::tick::{tick, TickOptions};
use deferral_host_conformance::distinct_handoff;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

const HOUR: u64 = 3_600_000;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// A fresh store for one round: its URL.
fn fresh(store: &str, dir: &Path, round: usize) -> String {
    if store == "sqlite" {
        let path = dir.join(format!("store-bench-{}-{round}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        return format!("sqlite:{}", path.display());
    }
    let name = format!("bench_{}", &deferral_host::handle::new_handle()[..12]);
    let mut admin = postgres::Client::connect(store, postgres::NoTls).expect("connect");
    admin
        .batch_execute(&format!("CREATE SCHEMA {name}"))
        .expect("create schema");
    let separator = if store.contains('?') { '&' } else { '?' };
    format!("{store}{separator}options=-c%20search_path%3D{name}&sslmode=disable")
}

fn options(limit: usize) -> TickOptions {
    TickOptions {
        limit,
        ..TickOptions::new(deferral_host::launch::Launchers::builtin())
    }
}

fn round(url: &str, records: usize, ticks: bool) -> (f64, f64, u64) {
    let store: Box<dyn Store + Send> = StoreUrl::parse(url)
        .expect("store url")
        .open(IntegrityCheck::Off)
        .expect("open the store");
    let now = now_ms();
    let receipts: Vec<String> = (0..records)
        .map(|_| distinct_handoff(now, 0, HOUR).to_json())
        .collect();
    let start = Instant::now();
    for text in &receipts {
        lifecycle::insert::insert_new(&*store, text.as_bytes(), "exec:/bin/true", 2, now_ms())
            .expect("record");
    }
    let record_s = start.elapsed().as_secs_f64();
    if !ticks {
        return (records as f64 / record_s, 0.0, 0);
    }
    let cpu = own_cpu_ticks();
    let start = Instant::now();
    let report = tick(&*store, &options(records), now_ms).expect("tick");
    let tick_s = start.elapsed().as_secs_f64();
    assert_eq!(
        report.launched.len(),
        records,
        "the tick launches every record"
    );
    (
        records as f64 / record_s,
        records as f64 / tick_s,
        own_cpu_ticks() - cpu,
    )
}

/// This process's own CPU time so far (user + system, children not counted), from
/// `/proc/self/stat`, in clock ticks (0 where there is no such file).
fn own_cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    field(11) + field(12)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let store = arg(&args, "--store").unwrap_or_else(|| "sqlite".into());
    let dir = PathBuf::from(arg(&args, "--dir").unwrap_or_else(|| "bench/host".into()));
    let records: usize = arg(&args, "--records").map_or(300, |v| v.parse().expect("--records N"));
    let rounds: usize = arg(&args, "--rounds").map_or(3, |v| v.parse().expect("--rounds N"));
    // `--tick no`: only the records (for many short rounds of the record path alone).
    let ticks = arg(&args, "--tick").is_none_or(|v| v != "no");
    let mut record_rates = Vec::new();
    let mut tick_rates = Vec::new();
    let mut tick_cpu = Vec::new();
    for r in 0..rounds {
        let url = fresh(&store, &dir, r);
        let (record, tick, cpu) = round(&url, records, ticks);
        eprintln!("round {r}: record {record:.0}/s, tick {tick:.0}/s");
        record_rates.push(record.round());
        tick_rates.push(tick.round());
        tick_cpu.push(cpu);
        if let Some(path) = url.strip_prefix("sqlite:") {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{path}{suffix}"));
            }
        }
    }
    let backend = if store == "sqlite" {
        "sqlite"
    } else {
        "postgres"
    };
    println!(
        "{}",
        json!({
            "store": backend,
            "records": records,
            "record_per_s": record_rates,
            "tick_launches_per_s": tick_rates,
            "record_median_per_s": median(record_rates.clone()),
            "tick_median_per_s": median(tick_rates.clone()),
            // The bench's own CPU time in the tick (clock ticks, usually 1/100 s; the launched
            // processes not counted): what the host's code costs, less sensitive to load.
            "tick_own_cpu_ticks": tick_cpu,
        })
    );
}
