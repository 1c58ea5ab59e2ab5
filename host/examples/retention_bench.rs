//! The store's growth per N ended deferrals (default 10,000), and what `prune` gives back, on
//! SQLite and PostgreSQL (issue 34, item 7). Run by `bench/host/retention.sh`; prints one JSON
//! document on stdout (progress on stderr).
//!
//! Each deferral lives the life of an `exec:` launch that completes, through the library calls
//! `tick` makes (record, claim, end_attempt; no process is started): 3 receipts, 3 events. Then:
//! the store's bytes empty, after N, after `prune` (the batches of `ops::prune`, each timed:
//! the longest is the longest the store is held from the scheduler), after N more (is the freed
//! space used again?), and after pruning again and `VACUUM` (the space a compaction gives back).
//! SQLite: the file's bytes after a WAL checkpoint, and the free pages in it. PostgreSQL: the
//! bytes of the store's schema (tables, indexes, TOAST); a plain `VACUUM` (what autovacuum does)
//! follows each prune there, `VACUUM FULL` at the end.
//!
//!   retention_bench --dir DIR [--postgres URL] [--deferrals 10000]

use deferral_host::clock::now_ms;
use deferral_host::lifecycle;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::store::retention::{Horizon, Removed, DEFAULT_RETENTION_MS};
use deferral_host::store::sqlite::IntegrityCheck;
use deferral_host::store::{AttemptStatus, Store, StoreUrl};
use deferral_host_conformance::distinct_handoff;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

const HOUR: u64 = 3_600_000;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// Where a store is, and how its bytes are read.
enum Backend {
    Sqlite(PathBuf),
    Postgres { url: String, schema: String },
}

impl Backend {
    fn url(&self) -> String {
        match self {
            Backend::Sqlite(path) => format!("sqlite:{}", path.display()),
            Backend::Postgres { url, .. } => url.clone(),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres { .. } => "postgres",
        }
    }

    /// The store's bytes, and the bytes free for reuse inside them (SQLite's free pages; 0 on
    /// PostgreSQL, which reports no such figure cheaply).
    fn bytes(&self) -> (u64, u64) {
        match self {
            Backend::Sqlite(path) => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
                    .unwrap();
                let pragma = |name: &str| {
                    conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
                        .unwrap()
                };
                let free = pragma("freelist_count") * pragma("page_size");
                (std::fs::metadata(path).unwrap().len(), free as u64)
            }
            Backend::Postgres { url, schema } => {
                let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
                let bytes: i64 = client
                    .query_one(
                        "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
                         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
                        &[schema],
                    )
                    .unwrap()
                    .get(0);
                (bytes as u64, 0)
            }
        }
    }

    /// `VACUUM` (`full`: `VACUUM FULL` on PostgreSQL; SQLite has only the one that rewrites).
    fn vacuum(&self, full: bool) {
        match self {
            Backend::Sqlite(path) => {
                if full {
                    let conn = rusqlite::Connection::open(path).unwrap();
                    conn.execute_batch("VACUUM").unwrap();
                }
            }
            Backend::Postgres { url, schema } => {
                let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
                let tables: Vec<String> = client
                    .query(
                        "SELECT tablename FROM pg_tables WHERE schemaname = $1",
                        &[schema],
                    )
                    .unwrap()
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                let verb = if full { "VACUUM FULL" } else { "VACUUM" };
                client
                    .batch_execute(&format!("{verb} {}", tables.join(", ")))
                    .unwrap();
            }
        }
    }
}

fn fresh_sqlite(dir: &Path) -> Backend {
    let path = dir.join(format!("retention-bench-{}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    Backend::Sqlite(path)
}

fn fresh_postgres(base: &str) -> Backend {
    let schema = format!("bench_{}", &deferral_host::handle::new_handle()[..12]);
    let mut admin = postgres::Client::connect(base, postgres::NoTls).expect("connect");
    admin
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .expect("create schema");
    let separator = if base.contains('?') { '&' } else { '?' };
    Backend::Postgres {
        url: format!("{base}{separator}options=-c%20search_path%3D{schema}"),
        schema,
    }
}

/// N deferrals recorded, claimed and completed, as a tick that launches them writes them.
fn fill(store: &dyn Store, n: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        let now = now_ms();
        let text = distinct_handoff(now, 0, HOUR).to_json();
        let recorded =
            lifecycle::insert::insert_new(store, text.as_bytes(), "exec:/bin/true", 2, now)
                .expect("record");
        let claimed = lifecycle::claim::claim(
            store,
            &recorded.deferral,
            "bench",
            now + HOUR,
            AttemptStatus::Launching,
            now_ms(),
        )
        .expect("claim");
        lifecycle::outcome::end_attempt(
            store,
            &claimed.deferral,
            Outcome::Complete {
                detail: Some("exit 0".into()),
            },
            now_ms(),
        )
        .expect("end_attempt");
    }
    start.elapsed().as_secs_f64()
}

fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Prunes everything ended, as `prune` does 31 days from now (the default retention, 30 days,
/// then covers every deferral just made), one batch of 100 at a time, each timed.
fn prune(store: &dyn Store) -> Value {
    let horizon = Horizon::at(
        now_ms() + DEFAULT_RETENTION_MS + 24 * HOUR,
        DEFAULT_RETENTION_MS,
    );
    let counted = store.count_prunable(&horizon).expect("count");
    let mut removed = Removed::default();
    let mut batches = Vec::new();
    let start = Instant::now();
    loop {
        let began = Instant::now();
        let this = store.prune_ended(&horizon, 100).expect("prune");
        batches.push(began.elapsed().as_secs_f64() * 1000.0);
        removed.merge(&this);
        if this.of("deferrals") < 100 {
            break;
        }
    }
    let total_s = start.elapsed().as_secs_f64();
    for table in ["deferrals", "receipts", "events"] {
        assert_eq!(
            removed.of(table),
            counted.of(table),
            "the count of {table} is what went"
        );
    }
    json!({
        "deferrals": removed.of("deferrals"),
        "rows": removed.total(),
        "receipts": removed.of("receipts"),
        "events": removed.of("events"),
        "batches": batches.len(),
        "batch_ms_median": percentile(&batches, 0.5),
        "batch_ms_p99": percentile(&batches, 0.99),
        "batch_ms_max": percentile(&batches, 1.0),
        "total_s": total_s,
    })
}

fn measure(backend: &Backend, n: usize) -> Value {
    eprintln!("retention_bench: {} with {n} deferrals", backend.name());
    let store: Box<dyn Store + Send> = StoreUrl::parse(&backend.url())
        .expect("store url")
        .open(IntegrityCheck::Off)
        .expect("open the store");
    let (empty, _) = backend.bytes();
    let fill_s = fill(&*store, n);
    let (full, _) = backend.bytes();
    let pruned = prune(&*store);
    let (after_prune, free_after_prune) = backend.bytes();
    backend.vacuum(false);
    let (after_autovacuum, _) = backend.bytes();
    fill(&*store, n);
    let (after_refill, free_after_refill) = backend.bytes();
    let second = prune(&*store);
    backend.vacuum(true);
    let (after_vacuum_full, _) = backend.bytes();
    json!({
        "store": backend.name(),
        "deferrals": n,
        "fill_s": fill_s,
        "empty_bytes": empty,
        "after_n_bytes": full,
        "bytes_per_deferral": (full - empty) as f64 / n as f64,
        "prune": pruned,
        "after_prune_bytes": after_prune,
        "free_after_prune_bytes": free_after_prune,
        "after_plain_vacuum_bytes": after_autovacuum,
        "after_n_more_bytes": after_refill,
        "free_after_n_more_bytes": free_after_refill,
        "second_prune": second,
        "after_prune_and_vacuum_full_bytes": after_vacuum_full,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(arg(&args, "--dir").unwrap_or_else(|| ".".into()));
    // The store URL takes an absolute path only.
    let dir = std::fs::canonicalize(&dir).expect("--dir exists");
    let n: usize = arg(&args, "--deferrals")
        .map(|v| v.parse().expect("--deferrals N"))
        .unwrap_or(10_000);
    let postgres = arg(&args, "--postgres")
        .or_else(|| std::env::var("DEFERRAL_TEST_POSTGRES_URL").ok())
        .filter(|u| !u.is_empty());
    let mut results = Vec::new();
    let lite = fresh_sqlite(&dir);
    results.push(measure(&lite, n));
    if let Backend::Sqlite(path) = &lite {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
    match postgres {
        Some(base) => {
            let pg = fresh_postgres(&base);
            results.push(measure(&pg, n));
            if let Backend::Postgres { schema, .. } = &pg {
                let mut admin = postgres::Client::connect(&base, postgres::NoTls).unwrap();
                let _ = admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"));
            }
        }
        None => eprintln!(
            "retention_bench: no --postgres URL (or DEFERRAL_TEST_POSTGRES_URL): SQLite only"
        ),
    }
    println!("{}", json!({ "retention": results }));
}
