//! The fleet benchmark (issue 26 item 7): 200 jobs in 4 pools with different limits and costs,
//! jobs whose work prints its own last line, another program spending part of one pool's
//! windows beside the host, two tickers at once on one store (PostgreSQL in
//! `bench/host/fleet.sh`). Per pool: jobs complete, launches, re-deferrals (and how many fell in
//! windows the other program spent in), windows used against the minimum, held time.
//!
//! ```text
//! cargo run -p deferral-host --example fleet_bench -- --bin PATH --store URL [--tickers 2]
//! ```
//! Prints one JSON document.

use deferral_host_conformance::fleet::{Fleet, PoolSpec};
use std::path::Path;
use std::time::Duration;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bin = arg(&args, "--bin").expect("--bin PATH (the deferral-host binary)");
    let store = arg(&args, "--store").expect("--store URL");
    let tickers: usize = arg(&args, "--tickers").map_or(2, |t| t.parse().expect("a number"));
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet {
        bin: Path::new(&bin),
        store: &store,
        dir: dir.path(),
        pools: vec![
            PoolSpec {
                name: "app-a",
                jobs: 60,
                limit: 45,
                reserve: 5,
                cost: 10,
                other: 0,
            },
            PoolSpec {
                name: "app-b",
                jobs: 60,
                limit: 100,
                reserve: 10,
                cost: 15,
                other: 0,
            },
            PoolSpec {
                name: "user-c",
                jobs: 40,
                limit: 60,
                reserve: 0,
                cost: 5,
                other: 0,
            },
            PoolSpec {
                name: "app-d",
                jobs: 40,
                limit: 200,
                reserve: 20,
                cost: 30,
                other: 60,
            },
        ],
        window_s: 3,
        tickers,
        tick_every: Duration::from_millis(250),
        deadline: Duration::from_secs(240),
    };
    println!("{}", fleet.run());
}
