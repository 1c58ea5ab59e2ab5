//! The port under hostile clients (docs/security.md), through the real binary with GitHub's
//! webhooks on: the webhook route takes no token, so anyone who reaches the port can open
//! requests on it. With 256 of them open, trickling their bodies or sending large ones as fast
//! as loopback goes, every token holder's request is answered within a second and the host
//! stays under 200 MB (under `serve` and `run`); past its share of the connection cap a
//! webhook request is refused at once; a stalled webhook body is cut off long before the
//! request deadline; a body over the webhook's limit is refused unread, and the limit is a
//! flag; a form-encoded delivery is told to choose `application/json`.

mod common;

use common::github::Standin;
use common::server::{error_code, read_answer, request};
use common::signing::sign;
use common::tcp_state::{ports, wait_all_read};
use common::webhook::{secret_file, within, HookServe, SECRET};
use common::Host;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Connections the attack keeps open: the default connection cap.
const ATTACKERS: usize = 256;
/// What the host may hold in memory under the attack.
const MEMORY_CAP_KB: u64 = 200 * 1024;
/// How long token holders ask while the attack runs.
const ATTACK_TIME: Duration = Duration::from_secs(3);
/// One flood at a time: two at once would share the machine's cores and each slow the other.
static ONE_FLOOD: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// A `sha256=` header of the right shape made with no secret the host knows.
const FORGED: &str = "sha256=0000000000000000000000000000000000000000000000000000000000000000";

/// A field of `/proc/PID/status` in kB (`VmRSS`, `VmHWM`); 0 once the process is gone.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// What each attacking connection does after its request head.
#[derive(Clone, Copy)]
enum Attack {
    /// Announces a 100,000-byte body and sends one byte of it every 100 ms.
    Slow,
    /// Sends a body of 1 MiB (even connections) or 8 MiB (odd ones) as fast as it can.
    Large,
}

/// [`ATTACKERS`] threads, each with one webhook request open at a time, opening the next as
/// soon as the host closes the last, until dropped. A thread watching the host's memory stops
/// the attack if it passes [`MEMORY_CAP_KB`], so a host that keeps every body cannot take the
/// test machine's memory.
struct Flood {
    stop: Arc<AtomicBool>,
    /// Connections that have sent their first head.
    opened: Arc<AtomicUsize>,
    /// The highest `VmRSS` seen, in kB.
    peak_kb: Arc<AtomicU64>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Flood {
    fn start(addr: &str, pid: u32, attack: Attack) -> Flood {
        let stop = Arc::new(AtomicBool::new(false));
        let opened = Arc::new(AtomicUsize::new(0));
        let peak_kb = Arc::new(AtomicU64::new(0));
        let mut threads: Vec<_> = (0..ATTACKERS)
            .map(|i| {
                let (addr, stop, opened) = (addr.to_string(), stop.clone(), opened.clone());
                std::thread::spawn(move || attacker(&addr, i, attack, &stop, &opened))
            })
            .collect();
        let (watch_stop, watch_peak) = (stop.clone(), peak_kb.clone());
        threads.push(std::thread::spawn(move || {
            while !watch_stop.load(Ordering::SeqCst) {
                let rss = status_kb(pid, "VmRSS");
                watch_peak.fetch_max(rss, Ordering::SeqCst);
                if rss > MEMORY_CAP_KB {
                    watch_stop.store(true, Ordering::SeqCst);
                }
                // A sampling period, not a wait for a condition.
                std::thread::sleep(Duration::from_millis(5));
            }
        }));
        Flood {
            stop,
            opened,
            peak_kb,
            threads,
        }
    }

    /// Waits until every attacker has sent its first head (up to 30 s).
    fn wait_open(&self) {
        let all = within(Duration::from_secs(30), || {
            (self.opened.load(Ordering::SeqCst) >= ATTACKERS).then_some(())
        });
        assert!(
            all.is_some(),
            "only {} of {ATTACKERS} attackers connected",
            self.opened.load(Ordering::SeqCst)
        );
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// One attacker's loop: a webhook request with a forged signature, its body trickled or
/// streamed, then the next on a new connection once the host is done with this one.
fn attacker(addr: &str, i: usize, attack: Attack, stop: &AtomicBool, opened: &AtomicUsize) {
    let chunk = vec![b'x'; 64 * 1024];
    let length = match attack {
        Attack::Slow => 100_000,
        Attack::Large if i.is_multiple_of(2) => 1 << 20,
        Attack::Large => 8 << 20,
    };
    let mut first = true;
    let to = addr.parse().unwrap();
    while !stop.load(Ordering::SeqCst) {
        let Ok(mut s) = TcpStream::connect_timeout(&to, Duration::from_secs(1)) else {
            continue;
        };
        let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let head = format!(
            "POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-GitHub-Event: workflow_run\r\nX-GitHub-Delivery: attack-{i}\r\nX-Hub-Signature-256: {FORGED}\r\nContent-Length: {length}\r\n\r\n"
        );
        if s.write_all(head.as_bytes()).is_err() {
            continue;
        }
        if first {
            opened.fetch_add(1, Ordering::SeqCst);
            first = false;
        }
        let mut sent = 0;
        while sent < length && !stop.load(Ordering::SeqCst) {
            let n = match attack {
                Attack::Slow => 1,
                Attack::Large => chunk.len().min(length - sent),
            };
            match s.write(&chunk[..n]) {
                Ok(0) | Err(_) => break,
                Ok(n) => sent += n,
            }
            if let Attack::Slow = attack {
                // The pace of a slow client: this sleep is the behaviour under test.
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        // Whatever the host answered (or nothing): the next request goes on a new connection.
        let mut answer = [0u8; 512];
        let _ = s.read(&mut answer);
    }
}

/// A token holder's request on a new connection: its status and how long the answer took.
fn token_holder(addr: &str) -> (u16, Duration) {
    let started = Instant::now();
    let Ok(mut s) = TcpStream::connect(addr) else {
        return (0, started.elapsed());
    };
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    if s.write_all(request("GET", "/v1/deferrals/dx", "", false).as_bytes())
        .is_err()
    {
        return (0, started.elapsed());
    }
    let status = read_answer(&mut s).map_or(0, |a| a.status);
    (status, started.elapsed())
}

/// Under `attack`, token holders ask one after another for [`ATTACK_TIME`]: each is answered
/// (404, the deferral does not exist) within a second, and the host's memory, sampled all
/// along and its high-water mark at the end, stays under [`MEMORY_CAP_KB`].
fn token_holders_are_served_under(attack: Attack, command: &str) {
    let _alone = ONE_FLOOD.lock().unwrap_or_else(|e| e.into_inner());
    let host = Host::new();
    let standin = Standin::start();
    let secrets = secret_file(&host).display().to_string();
    let hook = HookServe::start_command(
        &host,
        &standin,
        command,
        &["--github-webhook-secret-file", &secrets],
    );
    let pid = hook.child.id();
    let flood = Flood::start(&hook.addr, pid, attack);
    flood.wait_open();
    let started = Instant::now();
    let mut answers = Vec::new();
    while started.elapsed() < ATTACK_TIME && !flood.stop.load(Ordering::SeqCst) {
        answers.push(token_holder(&hook.addr));
    }
    let high_water = status_kb(pid, "VmHWM").max(flood.peak_kb.load(Ordering::SeqCst));
    drop(flood);
    let refused: Vec<_> = answers
        .iter()
        .filter(|(status, _)| *status != 404)
        .collect();
    let slowest = answers
        .iter()
        .map(|(_, took)| *took)
        .max()
        .unwrap_or_default();
    eprintln!(
        "{} token holders' requests; slowest {slowest:?}; not 404: {}; host's high-water mark {} MB",
        answers.len(),
        refused.len(),
        high_water / 1024
    );
    let mut problems = Vec::new();
    if answers.len() < 3 {
        problems.push(format!(
            "only {} requests were made before the attack was stopped",
            answers.len()
        ));
    }
    if !refused.is_empty() || slowest >= Duration::from_secs(1) {
        problems.push(format!(
            "token holders refused or slow: {} of {} not 404 (the first: {:?}), slowest {slowest:?}",
            refused.len(),
            answers.len(),
            refused.iter().take(3).collect::<Vec<_>>()
        ));
    }
    if high_water >= MEMORY_CAP_KB {
        problems.push(format!("the host held {} MB", high_water / 1024));
    }
    assert!(problems.is_empty(), "{}", problems.join("; "));
}

#[test]
fn with_256_slow_webhook_bodies_open_token_holders_are_answered_within_a_second() {
    token_holders_are_served_under(Attack::Slow, "serve");
}

#[test]
fn with_256_large_webhook_bodies_streaming_the_host_stays_under_200_mb() {
    token_holders_are_served_under(Attack::Large, "serve");
}

#[test]
fn run_under_256_slow_webhook_bodies_answers_token_holders_within_a_second() {
    token_holders_are_served_under(Attack::Slow, "run");
}

#[test]
fn run_under_256_large_webhook_bodies_stays_under_200_mb() {
    token_holders_are_served_under(Attack::Large, "run");
}

#[test]
fn webhook_requests_past_their_share_of_the_cap_are_refused_and_token_holders_keep_the_rest() {
    let host = Host::new();
    let standin = Standin::start();
    // A cap of 8: the webhook's share is a quarter, 2.
    let hook = HookServe::start(&host, &standin, &["--max-connections", "8"]);
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|i| {
            let mut s = TcpStream::connect(&hook.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
            write!(
                s,
                "POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: share-{i}\r\nX-Hub-Signature-256: {FORGED}\r\nContent-Length: 100000\r\n\r\n{{"
            )
            .unwrap();
            s
        })
        .collect();
    // The host has read every head: 2 bodies are being read, 6 requests were refused.
    wait_all_read(&hook.addr, &ports(&slow.iter().collect::<Vec<_>>()));
    let (status, took) = token_holder(&hook.addr);
    assert_eq!(status, 404, "a token holder at the cap, after {took:?}");
    // A refused request is idle while its body is dropped: the token holder's connection may
    // have shed one of them (closed unanswered), never one whose body was being read.
    let mut codes: Vec<(u16, String)> = slow
        .iter_mut()
        .map(|s| match read_answer(s) {
            Ok(answer) => (answer.status, error_code(&answer.body).to_string()),
            Err(_) => (0, "shed".to_string()),
        })
        .collect();
    codes.sort();
    let count = |status: u16| codes.iter().filter(|(s, _)| *s == status).count();
    assert_eq!(
        (count(408), count(503) + count(0)),
        (2, 6),
        "2 bodies read until their pace ran out, 6 refused at once: {codes:?}"
    );
    assert!(count(0) <= 1, "{codes:?}");
    assert!(
        codes.iter().all(|(s, code)| *s == 0
            || (*s, code.as_str()) == (408, "timeout")
            || (*s, code.as_str()) == (503, "busy")),
        "{codes:?}"
    );
}

#[test]
fn a_webhook_share_as_large_as_the_cap_is_refused_at_start() {
    let host = Host::new();
    let out = host
        .command(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--max-connections",
            "8",
            "--webhook-connections",
            "8",
        ])
        .env("DEFERRAL_SERVE_TOKEN", common::server::TOKEN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let line: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(error_code(&line), "invalid-value", "{out:?}");
}

/// Sends a raw webhook request (`Connection: close`) and reads its answer.
fn post(addr: &str, content_type: &str, headers: &str, body: &[u8]) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let head = format!(
        "POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nContent-Type: {content_type}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // A refused body may be cut off: the answer is what counts.
    let _ = s.write_all(body);
    let answer = read_answer(&mut s).expect("an answer");
    (answer.status, answer.body)
}

#[test]
fn a_stalled_webhook_body_is_answered_408_within_its_pace_not_the_request_deadline() {
    let host = Host::new();
    let standin = Standin::start();
    let hook = HookServe::start(&host, &standin, &[]);
    let mut s = TcpStream::connect(&hook.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let started = Instant::now();
    write!(
        s,
        "POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-GitHub-Event: ping\r\nX-Hub-Signature-256: {FORGED}\r\nContent-Length: 1000\r\n\r\n{{"
    )
    .unwrap();
    let answer = read_answer(&mut s).expect("an answer");
    let took = started.elapsed();
    assert_eq!(
        (answer.status, error_code(&answer.body)),
        (408, "timeout"),
        "{:?}",
        answer.body
    );
    assert!(
        took < Duration::from_secs(3),
        "answered after {took:?}; the request deadline is 10 s"
    );
    assert!(answer
        .head
        .to_ascii_lowercase()
        .contains("connection: close"));
    let mut rest = Vec::new();
    assert_eq!(s.read_to_end(&mut rest).unwrap_or(0), 0, "then closed");
}

#[test]
fn a_webhook_body_over_the_limit_is_refused_unread_and_the_limit_is_a_flag() {
    let host = Host::new();
    let standin = Standin::start();
    let mut body = serde_json::json!({"zen": "a padded ping", "pad": ""});
    body["pad"] = Value::from("p".repeat(2 << 20));
    let body = body.to_string().into_bytes();
    let signed = format!(
        "X-GitHub-Event: ping\r\nX-GitHub-Delivery: big-ping\r\nX-Hub-Signature-256: {}\r\n",
        sign(SECRET, &body)
    );
    {
        let hook = HookServe::start(&host, &standin, &[]);
        let (status, answer) = post(&hook.addr, "application/json", &signed, &body);
        assert_eq!(
            (status, error_code(&answer)),
            (413, "body-too-large"),
            "{answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("1 MiB"), "{message}");
        assert!(message.contains("webhook-max-body-bytes"), "{message}");
    }
    let hook = HookServe::start(&host, &standin, &["--webhook-max-body-bytes", "4194304"]);
    let (status, answer) = post(&hook.addr, "application/json", &signed, &body);
    assert_eq!(
        (status, &answer["pong"]),
        (200, &Value::Bool(true)),
        "{answer}"
    );
}

#[test]
fn a_form_encoded_delivery_is_told_to_choose_application_json() {
    let host = Host::new();
    let standin = Standin::start();
    let hook = HookServe::start(&host, &standin, &[]);
    let before = standin.seen().len();
    // As GitHub sends it when the webhook's content type is application/x-www-form-urlencoded.
    let body = b"payload=%7B%22action%22%3A%22completed%22%7D".to_vec();
    let signed = format!(
        "X-GitHub-Event: workflow_run\r\nX-GitHub-Delivery: form-1\r\nX-Hub-Signature-256: {}\r\n",
        sign(SECRET, &body)
    );
    let (status, answer) = post(
        &hook.addr,
        "application/x-www-form-urlencoded",
        &signed,
        &body,
    );
    assert_eq!(
        (status, error_code(&answer)),
        (415, "unsupported-media-type"),
        "{answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("application/json"), "{message}");
    assert_eq!(
        standin.seen().len(),
        before,
        "GitHub was not asked anything"
    );
    // The same body as JSON's content type is taken as before (signed, then read).
    let (status, _) = post(
        &hook.addr,
        "application/json; charset=utf-8",
        &signed,
        &body,
    );
    assert_ne!(status, 415);
}
