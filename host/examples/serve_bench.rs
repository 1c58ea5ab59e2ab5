//! Benchmark of `deferral-host serve` (the release binary beside this example):
//!
//! - `group_commit`: records per second through `serve` with 8 clients on kept-alive
//!   connections, against bare SQLite committing one row per transaction (WAL,
//!   `synchronous=FULL`) on the same disk, measured in the same run; then the store is
//!   counted: no answered record lost, none stored twice.
//! - `floors`: the same clients' requests that `serve` answers without its store (a `GET` of
//!   a path no route has) and reads of an unknown id: what a request costs before any record,
//!   as a ceiling on what one request per record can reach.
//! - `slow_clients`: the latency of a legitimate request on a new connection while 500
//!   connections trickle one header byte every 100 ms.
//!
//! ```text
//! bench/host/serve.sh [--records N] [--clients N] [--slow N] [--dir DIR]
//! ```
//! Prints one JSON document on one line on stdout (bench/run.mjs reads the last line),
//! progress on stderr.

use deferral_core::digest::sha256_hex;
use deferral_core::receipt::{Bindings, Reason, Receipt};
use deferral_host::clock::now_ms;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const HOUR: u64 = 3_600_000;
#[path = "common/serve.rs"]
mod serve;

use serve::{exchange, Serve};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// A distinct handoff receipt per `n` (its request digest), as a gate would emit.
fn receipt(n: usize) -> String {
    let now = now_ms();
    Receipt::handoff(
        Reason::RestReserve,
        now,
        now + 60_000,
        now + HOUR,
        Bindings {
            scope_digest: "a".repeat(64),
            request_digest: sha256_hex(format!("bench-{n}").as_bytes()),
            plan_digest: None,
        },
        true,
    )
    .expect("valid receipt")
    .to_json()
}

/// Bare SQLite: one row per `BEGIN IMMEDIATE` ... `COMMIT`, WAL, `synchronous=FULL`.
fn bare_sqlite(dir: &Path, count: usize) -> Value {
    let conn = rusqlite::Connection::open(dir.join("bare.db")).unwrap();
    let _: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .unwrap();
    conn.execute_batch(
        "PRAGMA synchronous=FULL; CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL);",
    )
    .unwrap();
    let bodies: Vec<String> = (0..count).map(receipt).collect();
    let start = Instant::now();
    for body in &bodies {
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        conn.execute("INSERT INTO rows (body) VALUES (?1)", [body])
            .unwrap();
        conn.execute_batch("COMMIT").unwrap();
    }
    let elapsed = start.elapsed();
    json!({
        "rows": count,
        "seconds": ms(elapsed) / 1e3,
        "rows_per_s": (count as f64 / elapsed.as_secs_f64()).round(),
    })
}

/// `serve` (the release binary beside this example) on a new SQLite store `dir/name`.
fn start_serve(dir: &Path, name: &str) -> Serve {
    let exe = std::env::current_exe().unwrap();
    let host = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("deferral-host");
    Serve::start(&host, &format!("sqlite:{}", dir.join(name).display()))
}

/// `clients` threads, each on one kept-alive connection, send their own requests one after the
/// other as fast as they are answered; the answers and the time from the first to the last.
fn drive(
    addr: &str,
    requests: Vec<Vec<(&'static str, String, String)>>,
) -> (Vec<(u16, Value)>, Duration) {
    let start = Arc::new(Barrier::new(requests.len() + 1));
    let threads: Vec<_> = requests
        .into_iter()
        .map(|mine| {
            let (addr, start) = (addr.to_string(), start.clone());
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(&addr).unwrap();
                stream.set_nodelay(true).unwrap();
                start.wait();
                mine.iter()
                    .map(|(method, path, body)| exchange(&mut stream, method, path, body))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    start.wait();
    let started = Instant::now();
    let answers: Vec<(u16, Value)> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    (answers, started.elapsed())
}

/// One list of requests per client: `per_client` of them each, the `i`th of client `c` being
/// `request(c, i)` (method, path, body).
fn requests(
    clients: usize,
    per_client: usize,
    request: impl Fn(usize, usize) -> (&'static str, String, String),
) -> Vec<Vec<(&'static str, String, String)>> {
    (0..clients)
        .map(|c| (0..per_client).map(|i| request(c, i)).collect())
        .collect()
}

/// The body of the `n`th record, as a client of `serve` sends it.
fn record_body(n: usize) -> String {
    format!(
        "{{\"receipt\":{},\"launch\":\"workflow-dispatch:octo/app/sync.yml@main\"}}",
        receipt(n)
    )
}

/// What a request costs `serve` before any record: `count` requests from `clients` clients that
/// `serve` answers without its store (a `GET` of a path no route has, refused after the token
/// check), then `count` reads of an unknown id (a 404 from one indexed look-up on a store
/// connection). Both are smaller than a record's request, so no port that answers one request
/// per record can record faster than it answers the first kind.
fn floors(dir: &Path, count: usize, clients: usize) -> Value {
    let serve = start_serve(dir, "floor.db");
    let per_client = count / clients;
    let rate = |answers: &[(u16, Value)], elapsed: Duration, want: u16| {
        assert!(
            answers.iter().all(|(status, _)| *status == want),
            "every answer is {want}"
        );
        (answers.len() as f64 / elapsed.as_secs_f64()).round()
    };
    let unrouted = requests(clients, per_client, |_, _| {
        ("GET", "/v1/deferrals/d-none/x".to_string(), String::new())
    });
    let (answers, elapsed) = drive(&serve.addr, unrouted);
    let unrouted = rate(&answers, elapsed, 404);
    let reads = requests(clients, per_client, |c, i| {
        (
            "GET",
            format!("/v1/deferrals/d-none-{c}-{i}"),
            String::new(),
        )
    });
    let (answers, elapsed) = drive(&serve.addr, reads);
    let reads = rate(&answers, elapsed, 404);
    serve.stop();
    json!({
        "clients": clients,
        "requests": per_client * clients,
        "answered_without_the_store_per_s": unrouted,
        "reads_of_an_unknown_id_per_s": reads,
    })
}

fn group_commit(dir: &Path, count: usize, clients: usize) -> Value {
    let serve = start_serve(dir, "serve.db");
    let per_client = count / clients;
    let records = requests(clients, per_client, |c, i| {
        (
            "POST",
            "/v1/deferrals".to_string(),
            record_body(c * per_client + i),
        )
    });
    let (answers, elapsed) = drive(&serve.addr, records);
    serve.stop();
    let created: Vec<&str> = answers
        .iter()
        .filter(|(status, _)| *status == 201)
        .filter_map(|(_, body)| body["id"].as_str())
        .collect();
    let distinct: BTreeSet<&str> = created.iter().copied().collect();
    let conn = rusqlite::Connection::open(dir.join("serve.db")).unwrap();
    let stored: BTreeSet<String> = conn
        .prepare("SELECT id FROM deferrals")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let rows: u64 = conn
        .query_row("SELECT COUNT(*) FROM deferrals", [], |r| r.get(0))
        .unwrap();
    let lost = distinct.iter().filter(|id| !stored.contains(**id)).count();
    let total = per_client * clients;
    json!({
        "clients": clients,
        "records": total,
        "answered_201": created.len(),
        "seconds": ms(elapsed) / 1e3,
        "records_per_s": (total as f64 / elapsed.as_secs_f64()).round(),
        "rows_stored": rows,
        "lost": lost,
        "duplicated": rows.saturating_sub(distinct.len() as u64) + (created.len() - distinct.len()) as u64,
        "store": "SQLite, WAL, synchronous=FULL",
    })
}

/// `count` connections that each send a request head one byte every 100 ms until `stop`.
fn trickle(addr: &str, count: usize, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    let mut sockets: Vec<TcpStream> = (0..count)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect();
    for s in &mut sockets {
        let _ = s.write_all(b"POST /v1/deferrals HTTP/1.1\r\nX-Slow: ");
    }
    std::thread::spawn(move || {
        // Bounded: at most 120 s whatever happens.
        for _ in 0..1200 {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            for s in &mut sockets {
                let _ = s.write(b"a");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        sockets.len()
    })
}

fn slow_clients(dir: &Path, slow: usize, requests: usize) -> Value {
    let serve = start_serve(dir, "slow.db");
    let mut first = TcpStream::connect(&serve.addr).unwrap();
    let body = record_body(usize::MAX);
    let (status, recorded) = exchange(&mut first, "POST", "/v1/deferrals", &body);
    assert_eq!(status, 201, "{recorded}");
    drop(first);
    let path = format!("/v1/deferrals/{}", recorded["id"].as_str().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let trickler = trickle(&serve.addr, slow, stop.clone());
    std::thread::sleep(Duration::from_millis(500));
    let mut latencies = Vec::with_capacity(requests);
    for _ in 0..requests {
        let started = Instant::now();
        let mut stream = TcpStream::connect(&serve.addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let (status, _) = exchange(&mut stream, "GET", &path, "");
        assert_eq!(status, 200);
        latencies.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::SeqCst);
    let connected = trickler.join().unwrap();
    serve.stop();
    latencies.sort();
    let at = |p: f64| ms(latencies[((latencies.len() - 1) as f64 * p).round() as usize]);
    json!({
        "slow_connections": connected,
        "requests": requests,
        "latency_median_ms": at(0.5),
        "latency_p95_ms": at(0.95),
        "latency_max_ms": at(1.0),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let records: usize = arg(&args, "--records").map_or(4000, |v| v.parse().expect("--records N"));
    let clients: usize = arg(&args, "--clients").map_or(8, |v| v.parse().expect("--clients N"));
    let slow: usize = arg(&args, "--slow").map_or(500, |v| v.parse().expect("--slow N"));
    let keep = arg(&args, "--dir").map(PathBuf::from);
    let temp = tempfile::tempdir_in(keep.as_deref().unwrap_or(Path::new("."))).unwrap();
    let bare = bare_sqlite(temp.path(), records);
    eprintln!("bare sqlite: {bare}");
    let served = group_commit(temp.path(), records, clients);
    eprintln!("serve: {served}");
    let ratio = served["records_per_s"].as_f64().unwrap() / bare["rows_per_s"].as_f64().unwrap();
    let floor = floors(temp.path(), records, clients);
    eprintln!("floors: {floor}");
    let over = |key: &str| {
        let r = floor[key].as_f64().unwrap() / bare["rows_per_s"].as_f64().unwrap();
        (r * 100.0).round() / 100.0
    };
    let slow = slow_clients(temp.path(), slow, 50);
    eprintln!("slow clients: {slow}");
    println!(
        "{}",
        json!({
            "bench": "deferral-host serve",
            "command": "bench/host/serve.sh",
            "group_commit": {
                "bare_sqlite_one_row_commits": bare,
                "serve": served,
                "serve_over_bare": (ratio * 100.0).round() / 100.0,
                "floors": floor,
                "answered_without_the_store_over_bare": over("answered_without_the_store_per_s"),
                "reads_over_bare": over("reads_of_an_unknown_id_per_s"),
            },
            "slow_clients": slow,
        })
    );
}
