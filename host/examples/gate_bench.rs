//! Benchmark of the environment gate: `--jobs` jobs (24) waiting behind one environment whose
//! protection rule is the host's GitHub App, over one quota where 4 jobs fit a window, approved
//! by the real `deferral-host run` through the callback of the GitHub stand-in on loopback
//! (`host/tests/common/github.rs`, `gate.rs`: GitHub's payload and endpoint shapes, signed as
//! GitHub signs them).
//!
//! ```text
//! cargo build --release -p deferral-host --bin deferral-host --example gate_bench
//! target/release/examples/gate_bench [--jobs 24] [--dir DIR] [--postgres URL]
//! ```
//! The quota is a 45-request core window every 3 s (reset on multiples of 3 s of the epoch,
//! nothing spent); each job's plan costs 10, so 4 fit above the reserve. Two cases in one run:
//! one `run` on SQLite, and two `run` replicas on one PostgreSQL schema (with `--postgres` or
//! `DEFERRAL_TEST_POSTGRES_URL`) with the deliveries split between them, one of them sent to
//! both. For each: approvals, decisions refused by GitHub (a second decision of a job), jobs
//! approved early (more by the end of a window than fit the windows opened so far), windows
//! used against the minimum, how long after its window opened each approval arrived, and
//! GitHub requests per job. Runner minutes while waiting are zero by construction (the jobs
//! wait in their runs without a runner), so they are not measured here.

#[allow(dead_code)]
#[path = "../tests/common/checks.rs"]
mod checks;
#[allow(dead_code)]
#[path = "../tests/common/gate.rs"]
mod gate;
#[allow(dead_code)]
#[path = "../tests/common/github.rs"]
mod github;
#[path = "../tests/common/signing.rs"]
mod signing;
// The start of a listening port the benchmarks share.
#[allow(dead_code)]
#[path = "common/serve.rs"]
mod serve;

use gate::{requested, Decision};
use github::Standin;
use serde_json::{json, Value};
use signing::{app_key_pair, sign};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SECRET: &str = "bench-webhook-secret-not-real";
const WINDOW_S: u64 = 3;
const LIMIT: u64 = 45;
const COST: u64 = 10;
/// 4 jobs of 10 fit 45 less the reserve (the host's default 10%).
const FIT: usize = 4;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// A `run` child listening on loopback; killed when dropped.
struct Run {
    child: Child,
    addr: String,
}

impl Drop for Run {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the child this program started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

fn private_file(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn config(dir: &Path, name: &str, key: &Path) -> PathBuf {
    let secrets = dir.join("webhook-secret");
    private_file(&secrets, &format!("{SECRET}\n"));
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            r#"github-webhook-secret-file = {secrets:?}
http-timeout = "5s"
github-app-id = "4242"
github-app-key = {key:?}
rate-limit-pool = "app-42"
rate-limit-repo = "octo-org/app"
pool-buffer = "200ms"
pool-jitter = "0s"

[[gate]]
repo = "octo-org/app"
environment = "github-quota"
pool = "app-42"
cost = {COST}
"#,
            secrets = secrets.display().to_string(),
            key = key.display().to_string(),
        ),
    )
    .unwrap();
    path
}

fn start(bin: &Path, store: &str, config: &Path, standin: &Standin, log: &Path) -> Run {
    let mut child = Command::new(bin)
        .args([
            "--store",
            store,
            "run",
            "--listen",
            "127.0.0.1:0",
            "--config",
        ])
        .arg(config)
        .env(
            "DEFERRAL_SERVE_TOKEN",
            "bench-serve-token-not-real-0123456789",
        )
        .env("GITHUB_API_URL", &standin.api)
        .env("DEFERRAL_GITHUB_API_VERSION", standin.api_version())
        .env_remove("GITHUB_TOKEN")
        .env_remove("HTTPS_PROXY")
        .env_remove("HTTP_PROXY")
        .stdout(Stdio::piped())
        .stderr(Stdio::from(std::fs::File::create(log).unwrap()))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = serde_json::from_str::<Value>(&line)
        .ok()
        .and_then(|v| v["listening"].as_str().map(str::to_string))
        .unwrap_or_else(|| {
            panic!(
                "run did not start: {line}\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            )
        });
    Run { child, addr }
}

/// One signed `deployment_protection_rule` delivery: the status and the answer.
fn deliver(addr: &str, delivery: &str, body: &[u8]) -> (u16, Value) {
    let signature = sign(SECRET, body);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /v1/github/webhook HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nX-GitHub-Event: deployment_protection_rule\r\nX-GitHub-Delivery: {delivery}\r\nX-Hub-Signature-256: {signature}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(body).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `jobs` jobs delivered to `stores.len()` replicas in turn (the first also sent to every
/// replica at once), then waited for until each is approved.
fn case(bin: &Path, dir: &Path, name: &str, stores: &[String], jobs: u64) -> Value {
    let (key, public) = app_key_pair(dir);
    let standin = Standin::start();
    {
        let mut state = standin.state.lock().unwrap();
        state.app_public_key = Some(public);
        state.app_id = "4242".into();
        state.rate_window = Some((WINDOW_S, LIMIT));
    }
    serve::init(bin, &stores[0]);
    let config = config(dir, name, &key);
    let runs: Vec<Run> = stores
        .iter()
        .enumerate()
        .map(|(n, store)| {
            start(
                bin,
                store,
                &config,
                &standin,
                &dir.join(format!("{name}-{n}.log")),
            )
        })
        .collect();
    let started = Instant::now();
    let mut redeliveries = 0;
    for n in 0..jobs {
        let body = requested(&standin.api, 5000 + n, "github-quota", 9000 + n, 1).to_string();
        let targets: Vec<&Run> = if n == 0 {
            runs.iter().collect()
        } else {
            vec![&runs[n as usize % runs.len()]]
        };
        for run in targets {
            let (status, answer) = deliver(&run.addr, &format!("bench-{n}"), body.as_bytes());
            assert_eq!(status, 200, "{answer}");
            redeliveries += usize::from(answer["already"] == true);
        }
    }
    let delivered_ms = started.elapsed().as_millis() as u64;
    let approvals = |d: &[Decision]| d.iter().filter(|d| d.state == "approved").count();
    loop {
        let d = standin.state.lock().unwrap().gate_decisions.clone();
        if approvals(&d) >= jobs as usize {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{} of {jobs} approved after 120 s",
            approvals(&d)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let all_approved_ms = started.elapsed().as_millis() as u64;
    // A moment for anything sent late (a second approval would arrive now).
    std::thread::sleep(Duration::from_millis(WINDOW_S * 1000));
    drop(runs);
    let decisions = standin.state.lock().unwrap().gate_decisions.clone();
    let approved: Vec<&Decision> = decisions.iter().filter(|d| d.state == "approved").collect();
    let mut runs_approved: Vec<u64> = approved.iter().map(|d| d.run_id).collect();
    runs_approved.sort_unstable();
    runs_approved.dedup();
    let mut windows: Vec<u64> = approved.iter().map(|d| d.at_ms / 1000 / WINDOW_S).collect();
    windows.sort_unstable();
    let first = windows[0];
    let early = windows
        .iter()
        .enumerate()
        .filter(|(n, w)| *n >= FIT * (**w - first + 1) as usize)
        .count();
    let used = (windows[windows.len() - 1] - first + 1) as usize;
    let mut after_open: Vec<u64> = approved
        .iter()
        .map(|d| d.at_ms % (WINDOW_S * 1000))
        .collect();
    after_open.sort_unstable();
    let seen = standin.seen();
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for s in &seen {
        let path = s.path.split('?').next().unwrap_or_default();
        let kind = if path == "/rate_limit" {
            "rate limit reads"
        } else if path.ends_with("/deployment_protection_rule") {
            "decisions and progress reports"
        } else if path.contains("/statuses/") {
            "commit statuses"
        } else if path.contains("/access_tokens") {
            "installation tokens"
        } else if path.ends_with("/installation") {
            "installation lookups"
        } else if path.starts_with("/app/hook/deliveries") {
            "redelivery sweep"
        } else {
            "other"
        };
        *kinds.entry(kind).or_default() += 1;
    }
    json!({
        "case": name,
        "replicas": stores.len(),
        "jobs": jobs,
        "fit_per_window": FIT,
        "window_s": WINDOW_S,
        "approvals": approved.len(),
        "jobs_approved": runs_approved.len(),
        "rejections": decisions.iter().filter(|d| d.state == "rejected").count(),
        "progress_reports": decisions.iter().filter(|d| d.state.is_empty()).count(),
        "decisions_refused": decisions.iter().filter(|d| !d.taken && !d.state.is_empty()).count(),
        "progress_reports_refused": decisions.iter().filter(|d| !d.taken && d.state.is_empty()).count(),
        "deliveries_already_recorded": redeliveries,
        "approved_early": early,
        "windows_used": used,
        "windows_minimum": (jobs as usize).div_ceil(FIT),
        "approval_after_window_open_ms": {
            "median": percentile(&after_open, 0.5),
            "max": after_open[after_open.len() - 1],
        },
        "deliveries_answered_ms": delivered_ms,
        "all_approved_after_first_delivery_ms": all_approved_ms,
        "github_requests": seen.len(),
        "github_requests_per_job": seen.len() as f64 / jobs as f64,
        "github_requests_by_kind": kinds,
    })
}

fn postgres_schema(base: &str) -> (String, String) {
    let name = format!("gate_bench_{}", std::process::id());
    let mut admin = postgres::Client::connect(base, postgres::NoTls).expect("connect");
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
        ))
        .unwrap();
    let separator = if base.contains('?') { '&' } else { '?' };
    (
        name.clone(),
        format!("{base}{separator}options=-c%20search_path%3D{name}"),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let jobs: u64 = arg(&args, "--jobs").map_or(24, |n| n.parse().unwrap());
    let base = arg(&args, "--dir").unwrap_or_else(|| ".".into());
    let bin = serve::host_bin();
    let dir = tempfile::Builder::new()
        .prefix("gate-bench")
        .tempdir_in(base)
        .unwrap();
    let mut cases = Vec::new();
    eprintln!("gate_bench: {jobs} jobs, one run on SQLite");
    let sqlite = format!("sqlite:{}", dir.path().join("gate.db").display());
    cases.push(case(&bin, dir.path(), "sqlite", &[sqlite], jobs));
    let postgres = arg(&args, "--postgres")
        .or_else(|| std::env::var("DEFERRAL_TEST_POSTGRES_URL").ok())
        .filter(|u| !u.is_empty());
    match postgres {
        Some(base) => {
            eprintln!("gate_bench: {jobs} jobs, two run replicas on PostgreSQL");
            let (schema, url) = postgres_schema(&base);
            cases.push(case(
                &bin,
                dir.path(),
                "postgres",
                &[url.clone(), url],
                jobs,
            ));
            let mut admin = postgres::Client::connect(&base, postgres::NoTls).unwrap();
            let _ = admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"));
        }
        None => {
            eprintln!("gate_bench: no --postgres URL (or DEFERRAL_TEST_POSTGRES_URL): SQLite only")
        }
    }
    println!("{}", json!({"bench": "environment gate", "cases": cases}));
}
