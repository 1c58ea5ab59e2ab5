//! Benchmark of one admission across runners (issue 19): several runners asking one `serve`
//! over one pool, and several tickers admitting from one pool on one PostgreSQL store.
//!
//! ```text
//! bench/host/admissions.sh [--rounds N] [--jobs 24,48]
//! # = admissions_bench --bin target/release/deferral-host --postgres URL [--rounds N] [--jobs N,..] [--dir DIR]
//! ```
//! Prints one JSON document on stdout (progress on stderr).
//!
//! * `runners`: twelve clients at once, each on a kept-alive connection to `serve`, ask
//!   `POST /v1/admissions` in one pool with the same observed state (a 45-request window,
//!   reserve 5, so 40 fit), four requests each per round, a fresh pool per round, for three
//!   cost mixes. Per round: the cost admitted (must be at most 40), the most that the asked
//!   costs could fill of 40 (a subset sum), their ratio (goal: at least 0.8). Beside it, in the
//!   same run: what the same runners would spend deciding alone on that state (all of it), and
//!   one client asking the same requests one after the other (latency without contention).
//!   On SQLite and on PostgreSQL.
//! * `tickers`: the backlog of `bench/host/pools.sh` (N jobs of 10 behind a 45-request window of
//!   3 s, `exec:` launches that play the resume and report) on one PostgreSQL store, with three
//!   `tick` processes started at once every 250 ms, beside one ticker in the same run. Per
//!   window: the cost the store admitted (from its `admissions` table, must be at most 40) and
//!   the launches that began in it (at most 4).

use deferral_host::clock::now_ms;
use deferral_host_conformance::backlog::Backlog;
use serde_json::{json, Value};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

#[path = "common/serve.rs"]
mod serve;

use serve::{exchange, Serve};
const LIMIT: u64 = 45;
const RESERVE: u64 = 5;
const CLIENTS: usize = 12;
const PER_ROUND: usize = 4;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// A fresh schema on the server at `base`; answers the URL that uses it.
fn pg_schema(base: &str) -> String {
    let name = format!("bench_{}", &deferral_host::handle::new_handle()[..12]);
    let mut admin = postgres::Client::connect(base, postgres::NoTls).expect("connect");
    admin
        .batch_execute(&format!("CREATE SCHEMA {name}"))
        .expect("create schema");
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}options=-c%20search_path%3D{name}")
}

/// The cost of request `i` of client `c` in round `r` of a mix.
fn cost_of(mix: &str, c: usize, r: usize, i: usize) -> u64 {
    match mix {
        "3 each" => 3,
        "1 to 7" => 1 + ((c * 3 + r + i * 5) % 7) as u64,
        _ => [1, 3, 10, 20][(c + r + i) % 4],
    }
}

/// The most of `room` that some of `costs` fill together (a subset sum).
fn best_fill(costs: &[u64], room: u64) -> u64 {
    let room = room as usize;
    let mut can = vec![false; room + 1];
    can[0] = true;
    for &c in costs {
        let c = c as usize;
        for s in (c..=room).rev() {
            if can[s - c] {
                can[s] = true;
            }
        }
    }
    (0..=room).rev().find(|s| can[*s]).unwrap_or(0) as u64
}

fn body(pool: &str, cost: u64, reset_ms: u64) -> String {
    json!({"pool": pool, "cost": {"rest": cost},
        "rate": {"observed_ms": now_ms(), "rest": {"limit": LIMIT, "remaining": LIMIT, "reserve": RESERVE, "reset_ms": reset_ms}}})
    .to_string()
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    ms(sorted[((sorted.len() - 1) as f64 * p).round() as usize])
}

/// One mix on one store: `rounds` rounds of twelve clients at once, then the same requests
/// from one client one after the other.
fn runners_mix(serve: &Serve, store: &str, mix: &str, rounds: usize) -> Value {
    let reset_ms = now_ms() + 600_000;
    let start = Arc::new(Barrier::new(CLIENTS));
    let prefix = format!("{}-{}", store, mix.replace([' ', ','], ""));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (addr, start, prefix, mix) = (
                serve.addr.clone(),
                start.clone(),
                prefix.clone(),
                mix.to_string(),
            );
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(&addr).unwrap();
                stream.set_nodelay(true).unwrap();
                let mut out = Vec::new();
                for r in 0..rounds {
                    start.wait();
                    let pool = format!("{prefix}-{r}");
                    for i in 0..PER_ROUND {
                        let cost = cost_of(&mix, c, r, i);
                        let asked = Instant::now();
                        let (status, answer) = exchange(
                            &mut stream,
                            "POST",
                            "/v1/admissions",
                            &body(&pool, cost, reset_ms),
                        );
                        out.push((r, cost, status, answer, asked.elapsed()));
                    }
                }
                out
            })
        })
        .collect();
    let wall = Instant::now();
    let answers: Vec<_> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let wall = wall.elapsed();
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    let (_, pools) = exchange(&mut stream, "GET", "/v1/pools", "");
    let mut per_round = Vec::new();
    let (mut worst_ratio, mut over, mut busy) = (f64::MAX, 0, 0);
    let (mut admitted_total, mut fits_total, mut alone_total) = (0, 0, 0);
    for r in 0..rounds {
        let mine: Vec<_> = answers.iter().filter(|a| a.0 == r).collect();
        let asked: Vec<u64> = mine.iter().map(|a| a.1).collect();
        let admitted: u64 = mine.iter().filter(|a| a.2 == 201).map(|a| a.1).sum();
        busy += mine.iter().filter(|a| a.2 == 409).count();
        let pool = format!("{prefix}-{r}");
        let stored = pools["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pool"] == pool.as_str())
            .map_or(0, |p| p["admissions"]["cost"]["rest"].as_u64().unwrap_or(0));
        assert_eq!(
            stored, admitted,
            "round {r}: the store's open admissions are the answers'"
        );
        let fits = best_fill(&asked, LIMIT - RESERVE);
        if admitted > LIMIT - RESERVE {
            over += 1;
        }
        let ratio = admitted as f64 / fits as f64;
        worst_ratio = worst_ratio.min(ratio);
        admitted_total += admitted;
        fits_total += fits;
        // Deciding alone on the same state, every runner proceeds: 45 - cost >= 5.
        alone_total += asked.iter().filter(|c| LIMIT - **c >= RESERVE).sum::<u64>();
        per_round.push(json!({"admitted": admitted, "fits": fits}));
    }
    let mut latencies: Vec<Duration> = answers.iter().map(|a| a.4).collect();
    latencies.sort();
    // Baseline in the same run: one client, the same requests, one after the other.
    let mut alone_latencies = Vec::new();
    let single = Instant::now();
    for r in 0..rounds {
        let pool = format!("{prefix}-single-{r}");
        for c in 0..CLIENTS {
            for i in 0..PER_ROUND {
                let asked = Instant::now();
                let (status, answer) = exchange(
                    &mut stream,
                    "POST",
                    "/v1/admissions",
                    &body(&pool, cost_of(mix, c, r, i), reset_ms),
                );
                assert!(status == 200 || status == 201, "{status} {answer}");
                alone_latencies.push(asked.elapsed());
            }
        }
    }
    let single = single.elapsed();
    alone_latencies.sort();
    let requests = answers.len();
    json!({
        "mix": mix,
        "rounds": rounds,
        "requests": requests,
        "rounds_over_limit": over,
        "pool_busy_answers": busy,
        "admitted_cost": admitted_total,
        "fits_cost": fits_total,
        "admitted_over_fits": (admitted_total as f64 / fits_total as f64 * 1000.0).round() / 1000.0,
        "worst_round_admitted_over_fits": (worst_ratio * 1000.0).round() / 1000.0,
        "alone_cost": alone_total,
        "alone_over_window": (alone_total as f64 / ((LIMIT - RESERVE) * rounds as u64) as f64 * 100.0).round() / 100.0,
        "twelve_clients": {"requests_per_s": (requests as f64 / wall.as_secs_f64()).round(),
            "latency_median_ms": percentile(&latencies, 0.5), "latency_p95_ms": percentile(&latencies, 0.95)},
        "one_client": {"requests_per_s": (requests as f64 / single.as_secs_f64()).round(),
            "latency_median_ms": percentile(&alone_latencies, 0.5), "latency_p95_ms": percentile(&alone_latencies, 0.95)},
        "rounds_detail": per_round,
    })
}

fn runners(bin: &Path, store_name: &str, store: &str, rounds: usize) -> Value {
    let serve = Serve::start(bin, store);
    let mixes: Vec<Value> = ["3 each", "1 to 7", "1, 3, 10, 20"]
        .iter()
        .map(|mix| {
            let out = runners_mix(&serve, store_name, mix, rounds);
            eprintln!("runners {store_name} {mix}: {}", {
                let mut brief = out.clone();
                brief.as_object_mut().unwrap().remove("rounds_detail");
                brief
            });
            out
        })
        .collect();
    serve.stop();
    json!({"store": store_name, "clients": CLIENTS, "per_client_per_round": PER_ROUND,
           "window": {"limit": LIMIT, "reserve": RESERVE}, "mixes": mixes})
}

/// The backlog on a fresh PostgreSQL schema with `tickers` tickers.
fn tickers(bin: &Path, base: &str, jobs: usize, tickers: usize, root: &Path) -> Value {
    let dir = tempfile::tempdir_in(root).unwrap();
    let store = pg_schema(base);
    let scenario = Backlog {
        bin,
        store: &store,
        dir: dir.path(),
        jobs,
        limit: LIMIT,
        reserve: RESERVE,
        cost: 10,
        window_s: 3,
        gate_lines: true,
        work_line: false,
        report_file: true,
        deadline: Duration::from_secs(30 + 6 * jobs as u64),
        tick_every: Duration::from_millis(250),
        tickers,
    };
    let run = scenario.run();
    let mut client = postgres::Client::connect(&store, postgres::NoTls).unwrap();
    let window_ms = 3000i64;
    let rows = client
        .query(
            "SELECT admitted_ms / $1 AS w, SUM(COALESCE(rest_cost, 0))::BIGINT, COUNT(*) FROM admissions \
             WHERE pool = 'app-42' GROUP BY w ORDER BY w",
            &[&window_ms],
        )
        .unwrap();
    let per_window: Vec<(i64, i64, i64)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let most_cost = per_window.iter().map(|w| w.1).max().unwrap_or(0);
    let most_launches = run
        .launches_per_window
        .iter()
        .map(|w| w.1)
        .max()
        .unwrap_or(0);
    let minimum = scenario.minimum_windows();
    json!({
        "jobs": jobs,
        "tickers": tickers,
        "complete": run.count("complete"),
        "blocked": run.count("blocked"),
        "launches": run.launches,
        "wasted_launches": run.launches.saturating_sub(run.count("complete")),
        "windows_used": run.windows.len(),
        "minimum_windows": minimum,
        "most_admitted_cost_in_a_window": most_cost,
        "most_launches_in_a_window": most_launches,
        "windows_over_limit": per_window.iter().filter(|w| w.1 > (LIMIT - RESERVE) as i64).count(),
        "admitted_cost_per_window": per_window.iter().map(|w| w.1).collect::<Vec<_>>(),
        "seconds": run.elapsed.as_secs_f64().round(),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bin = PathBuf::from(arg(&args, "--bin").expect("--bin PATH (deferral-host)"));
    let postgres = arg(&args, "--postgres").expect("--postgres URL (a server to make schemas on)");
    let rounds: usize = arg(&args, "--rounds").map_or(10, |v| v.parse().expect("--rounds N"));
    let jobs: Vec<usize> = arg(&args, "--jobs")
        .unwrap_or_else(|| "24".into())
        .split(',')
        .map(|n| n.parse().expect("a number"))
        .collect();
    let root = PathBuf::from(arg(&args, "--dir").unwrap_or_else(|| ".".into()));
    let temp = tempfile::tempdir_in(&root).unwrap();
    let sqlite = format!("sqlite:{}", temp.path().join("runners.db").display());
    let on_sqlite = runners(&bin, "sqlite", &sqlite, rounds);
    let on_postgres = runners(&bin, "postgres", &pg_schema(&postgres), rounds);
    let mut backlog = Vec::new();
    // `--jobs 0`: the runners only, no backlog.
    for &n in jobs.iter().filter(|&&n| n > 0) {
        for t in [1, 3] {
            let out = tickers(&bin, &postgres, n, t, temp.path());
            eprintln!("tickers: {out}");
            backlog.push(out);
        }
    }
    let mixes: Vec<&Value> = [&on_sqlite, &on_postgres]
        .iter()
        .flat_map(|r| r["mixes"].as_array().unwrap())
        .collect();
    let checks = json!({
        "runners_never_over_the_window": mixes.iter().all(|m| m["rounds_over_limit"] == 0),
        "runners_admit_at_least_80_percent_of_what_fits": mixes.iter()
            .all(|m| m["worst_round_admitted_over_fits"].as_f64().unwrap() >= 0.8),
        "tickers_never_over_the_window": backlog.iter().all(|t| t["windows_over_limit"] == 0),
        "tickers_waste_no_launch": backlog.iter().all(|t| t["wasted_launches"] == 0),
    });
    eprintln!("checks: {checks}");
    println!(
        "{}",
        json!({
            "bench": "deferral-host admissions across runners and tickers",
            "command": "bench/host/admissions.sh",
            "checks": checks,
            "runners": [on_sqlite, on_postgres],
            "tickers": backlog,
        })
    );
}
