//! An `exec:` target that is a FIFO with the x bit (issue 29 item 6): the door check that reads
//! a program's `#!` line must never wait for a writer. `record`, `retry` and `serve` refuse it
//! at once as not a program (`launch-not-executable`); before, each hung until someone wrote to
//! the FIFO (32 such requests hung every handler of `serve`).

mod common;

use common::{Host, HOUR};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(20);
const TOKEN: &str = "fifo-test-token-not-real-0123456789";

fn fifo(path: &Path) -> String {
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo(3) only reads it.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o755) }, 0);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("exec:{}", path.display())
}

/// Waits for `child` until the deadline; a child still running then is killed and fails the test.
fn output_by_deadline(mut child: Child, what: &str) -> std::process::Output {
    let give_up = Instant::now() + DEADLINE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > give_up {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} hung on the FIFO for {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn refused_as_not_a_program(out: &std::process::Output, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{what}: {stdout}");
    let answer: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        answer["error"]["code"], "launch-not-executable",
        "{what}: {answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("FIFO"),
        "{what} says what it is: {message}"
    );
}

#[test]
fn record_refuses_a_fifo_without_waiting() {
    let host = Host::new();
    let launch = fifo(&host.path("prog"));
    let receipt = host.path("receipt.json");
    let text = deferral_host_conformance::distinct_handoff(common::now(), 0, HOUR).to_json();
    std::fs::write(&receipt, text).unwrap();
    let child = host
        .command(&["record", "--launch", &launch, receipt.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    refused_as_not_a_program(&output_by_deadline(child, "record"), "record");
}

#[test]
fn retry_refuses_a_fifo_without_waiting() {
    let host = Host::new();
    let (id, handle) = host.record("exec:/bin/false", 0, HOUR, &[]);
    host.tick(&[]);
    assert_eq!(host.status(&id)["state"], "blocked");
    let launch = fifo(&host.path("prog"));
    let child = host
        .command(&["retry", &id, "--handle", &handle, "--launch", &launch])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    refused_as_not_a_program(&output_by_deadline(child, "retry"), "retry");
}

/// POST /v1/deferrals with a read deadline: a hung handler fails the test instead of hanging it.
fn post_record(addr: &str, launch: &str) -> (u16, Value) {
    let receipt = deferral_host_conformance::distinct_handoff(common::now(), 0, HOUR).to_json();
    let body = serde_json::json!({"receipt": serde_json::from_str::<Value>(&receipt).unwrap(), "launch": launch}).to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(DEADLINE)).unwrap();
    write!(
        stream,
        "POST /v1/deferrals HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .expect("serve answers before the deadline");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (
        head[9..12].parse().unwrap(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

#[test]
fn serve_refuses_a_fifo_without_waiting() {
    let host = Host::new();
    let launch = fifo(&host.path("prog"));
    let (mut serve, addr) = host.spawn_serve(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--allow-launch",
            "exec:",
        ],
        TOKEN,
        Stdio::null(),
    );
    let (status, answer) = post_record(&addr, &launch);
    let _ = serve.kill();
    let _ = serve.wait();
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "launch-not-executable", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("FIFO"),
        "{answer}"
    );
}
