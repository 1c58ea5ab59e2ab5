//! PostgreSQL claims per second with several tickers on one database: each ticker (a thread
//! with its own connection, as separate processes or machines would have) claims the next due
//! deferral and records it complete, until nothing is due. Two ways are measured side by side:
//!
//! * `claim_next`: the atomic claim `tick` uses (`SELECT ... FOR UPDATE SKIP LOCKED LIMIT 1`
//!   and the compare-and-set in one transaction): tickers never wait for each other's rows;
//! * `list_then_claim`: each ticker lists the due deferrals and claims them one by one with the
//!   compare-and-set, as `tick` did before: tickers race, and the losers' work is wasted.
//!
//! ```text
//! source scripts/postgres-test-server.sh start
//! cargo run --release -p deferral-host --example pg_claims -- --deferrals 2000 --tickers 4
//! ```
//! Uses `DEFERRAL_TEST_POSTGRES_URL` (or `--url`); works in a fresh schema, dropped at the end.
//! Prints one JSON document.

use deferral_host::clock::now_ms;
use deferral_host::lifecycle;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::store::{AttemptStatus, IntegrityCheck, NextDue, PostgresStore, Store};
use deferral_host_conformance::handoff;
use serde_json::json;
use std::time::Instant;

const HOUR: u64 = 3_600_000;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn schema_url(base: &str, name: &str) -> String {
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}options=-c%20search_path%3D{name}&sslmode=disable")
}

fn fill(url: &str, count: usize) {
    let store = PostgresStore::open(url, IntegrityCheck::Off).expect("open the bench schema");
    let t = now_ms();
    for _ in 0..count {
        let text = handoff(t, 0, HOUR).to_json();
        lifecycle::insert::insert_new(&store, text.as_bytes(), "exec:/bin/true", 2, t)
            .expect("record");
    }
}

fn complete(store: &dyn Store, claimed: &lifecycle::claim::Claimed) {
    let done = Outcome::Complete { detail: None };
    lifecycle::outcome::end_attempt(store, &claimed.deferral, done, now_ms()).expect("end_attempt");
}

/// (claims, conflicts) of one ticker.
fn ticker(url: &str, atomic: bool) -> (u64, u64) {
    let store = PostgresStore::open(url, IntegrityCheck::Off).expect("open");
    let (mut claims, mut conflicts) = (0, 0);
    if atomic {
        let next = NextDue {
            now_ms: now_ms(),
            ..Default::default()
        };
        let launching = |_: &deferral_host::store::Deferral| AttemptStatus::Launching;
        while let Some(c) =
            lifecycle::claim::claim_next(&store, &next, "bench", 60_000, &launching, now_ms())
                .map_err(|f| f.error)
                .expect("claim_next")
        {
            complete(&store, &c);
            claims += 1;
        }
    } else {
        loop {
            let due = store.due(now_ms(), 1000).expect("due");
            if due.is_empty() {
                break;
            }
            for d in &due {
                let t = now_ms();
                match lifecycle::claim::claim(
                    &store,
                    d,
                    "bench",
                    t + 60_000,
                    AttemptStatus::Launching,
                    t,
                ) {
                    Ok(c) => {
                        complete(&store, &c);
                        claims += 1;
                    }
                    Err(err) if err.is_conflict() => conflicts += 1,
                    Err(err) => panic!("{err}"),
                }
            }
        }
    }
    (claims, conflicts)
}

fn run(base: &str, count: usize, tickers: usize, atomic: bool) -> serde_json::Value {
    let name = format!("bench_{}", &deferral_host::handle::new_handle()[..12]);
    let mut admin = postgres::Client::connect(base, postgres::NoTls).expect("connect");
    admin
        .batch_execute(&format!("CREATE SCHEMA {name}"))
        .expect("create schema");
    let url = schema_url(base, &name);
    fill(&url, count);
    let start = Instant::now();
    let results: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..tickers)
            .map(|_| scope.spawn(|| ticker(&url, atomic)))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    admin
        .batch_execute(&format!("DROP SCHEMA {name} CASCADE"))
        .expect("drop schema");
    let claims: u64 = results.iter().map(|r| r.0).sum();
    assert_eq!(claims, count as u64, "every deferral claimed exactly once");
    json!({
        "claims": claims,
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "claims_per_second": (claims as f64 / seconds).round(),
        "lost_compare_and_sets": results.iter().map(|r| r.1).sum::<u64>(),
        "per_ticker": results.iter().map(|r| r.0).collect::<Vec<_>>(),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let base = arg(&args, "--url")
        .or_else(|| std::env::var("DEFERRAL_TEST_POSTGRES_URL").ok())
        .expect(
            "--url or DEFERRAL_TEST_POSTGRES_URL (source scripts/postgres-test-server.sh start)",
        );
    let count: usize = arg(&args, "--deferrals").map_or(2000, |n| n.parse().unwrap());
    let tickers: usize = arg(&args, "--tickers").map_or(4, |n| n.parse().unwrap());
    let report = json!({
        "deferrals": count,
        "tickers": tickers,
        "claim_next": run(&base, count, tickers, true),
        "list_then_claim": run(&base, count, tickers, false),
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
