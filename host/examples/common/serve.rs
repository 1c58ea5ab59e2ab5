//! What the serve benchmarks share: a `deferral-host serve` child on loopback and one request
//! on a kept-alive connection. Included by `#[path]` (not an example of its own).

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub const TOKEN: &str = "bench-token-not-real-0123456789";

pub struct Serve {
    pub child: Child,
    pub addr: String,
}

/// Starts `command` (a `serve` or `run` listening on `127.0.0.1:0`) and waits for its
/// `{"listening"}` line: the child and the address it listens on.
pub fn spawn_listening(command: &mut Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ready: Value = serde_json::from_str(&line).expect("a {\"listening\"} line");
    (child, ready["listening"].as_str().unwrap().to_string())
}

/// The `deferral-host` to run: `DEFERRAL_HOST_BIN`, else the one built beside the examples (not
/// every benchmark that includes this file uses it).
#[allow(dead_code)]
pub fn host_bin() -> std::path::PathBuf {
    std::env::var("DEFERRAL_HOST_BIN").map_or_else(
        |_| {
            std::env::current_exe()
                .unwrap()
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join("deferral-host")
        },
        std::path::PathBuf::from,
    )
}

/// `bin --store STORE init`: creates the store if it is missing (only `init` creates one;
/// `serve` and `run` refuse a missing store), harmless on one that exists.
pub fn init(bin: &Path, store: &str) {
    let out = Command::new(bin)
        .args(["--store", store, "init"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    assert!(out.status.success(), "init: {out:?}");
}

impl Serve {
    /// Creates the store if needed ([`init`]), starts `bin --store STORE serve` on a free
    /// loopback port and waits for its `{"listening"}` line.
    pub fn start(bin: &Path, store: &str) -> Serve {
        init(bin, store);
        let (child, addr) = spawn_listening(
            Command::new(bin)
                .args(["--store", store, "serve", "--listen", "127.0.0.1:0"])
                .env("DEFERRAL_SERVE_TOKEN", TOKEN),
        );
        Serve { addr, child }
    }

    pub fn stop(mut self) {
        // SAFETY: kill(2) on the child this program started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// One request on a kept-alive connection: status and JSON body.
pub fn exchange(stream: &mut TcpStream, method: &str, path: &str, body: &str) -> (u16, Value) {
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(&*stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line[9..12].parse().unwrap();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut bytes = vec![0u8; length];
    reader.read_exact(&mut bytes).unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}
