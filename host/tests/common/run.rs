//! A `deferral-host run` child for tests: started on port 0 (the address read from its
//! `{"listening"}` line), its stderr kept in a file, spoken to over plain std sockets.

use super::{now, Host};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

pub const TOKEN: &str = "run-test-token-not-real-0123456789";

pub struct Run {
    pub child: Child,
    pub addr: String,
    pub log: PathBuf,
}

/// A client of a `run`'s port, to use from other threads.
#[derive(Clone)]
pub struct Client {
    pub addr: String,
}

impl Run {
    /// `deferral-host --store ... run --listen 127.0.0.1:0 EXTRA...`, its log in `NAME.log`.
    pub fn start(host: &Host, name: &str, extra: &[&str]) -> Run {
        let mut args = vec!["run", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let log = host.path(&format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let (child, addr) = host.spawn_serve(&args, TOKEN, Stdio::from(file));
        Run { child, addr, log }
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn client(&self) -> Client {
        Client {
            addr: self.addr.clone(),
        }
    }

    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        token: bool,
        body: &str,
    ) -> Option<(u16, Value)> {
        self.client().try_call(method, path, token, body)
    }

    pub fn call(&self, method: &str, path: &str, token: bool, body: &str) -> (u16, Value) {
        self.try_call(method, path, token, body)
            .unwrap_or_else(|| panic!("{method} {path}: no answer\n{}", self.log()))
    }

    pub fn try_record(&self, launch: &str, after_ms: u64, by_ms: u64) -> Option<(u16, Value)> {
        self.client().try_record(launch, after_ms, by_ms)
    }

    /// [`Run::try_record`], expecting 201; the answer.
    pub fn record(&self, launch: &str, after_ms: u64, by_ms: u64) -> Value {
        let (status, answer) = self
            .try_record(launch, after_ms, by_ms)
            .unwrap_or_else(|| panic!("no answer to a record\n{}", self.log()));
        assert_eq!(status, 201, "{answer}\n{}", self.log());
        answer
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the child this test started.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// Waits up to `bound` for the process to end; its exit code, or `None` if it still runs.
    pub fn exit_within(&mut self, bound: Duration) -> Option<i32> {
        let started = Instant::now();
        while started.elapsed() < bound {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status.code().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Client {
    /// One request; `None` when the connection is refused or cut (the port has stopped).
    pub fn try_call(
        &self,
        method: &str,
        path: &str,
        token: bool,
        body: &str,
    ) -> Option<(u16, Value)> {
        let mut stream = TcpStream::connect(&self.addr).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let auth = if token {
            format!("Authorization: Bearer {TOKEN}\r\n")
        } else {
            String::new()
        };
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: t\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        let (head, body) = answer.split_once("\r\n\r\n")?;
        Some((
            head.get(9..12)?.parse().ok()?,
            serde_json::from_str(body).unwrap_or(Value::Null),
        ))
    }

    /// Records a receipt whose window is `[now + after_ms, now + by_ms]` through the port.
    pub fn try_record(&self, launch: &str, after_ms: u64, by_ms: u64) -> Option<(u16, Value)> {
        let receipt = deferral_host_conformance::distinct_handoff(now(), after_ms, by_ms).to_json();
        let receipt: Value = serde_json::from_str(&receipt).unwrap();
        let body = json!({"receipt": receipt, "launch": launch}).to_string();
        self.try_call("POST", "/v1/deferrals", true, &body)
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `check` every 20 ms until it answers `Some`, for at most `bound`.
pub fn wait_for<T>(bound: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        if let Some(found) = check() {
            return Some(found);
        }
        if started.elapsed() > bound {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An `exec:` target that appends `ID MILLISECONDS` (the time it started) to `file`.
pub fn stamping_target(host: &Host, file: &std::path::Path) -> String {
    super::script(
        &host.path("stamp.sh"),
        &format!(
            "echo \"$DEFERRAL_ID $(date +%s%3N)\" >> {}",
            super::sq(file)
        ),
    )
}

/// The lines of a stamp file as (id, ms).
pub fn stamps(file: &std::path::Path) -> Vec<(String, u64)> {
    super::lines(file)
        .iter()
        .filter_map(|l| {
            let (id, ms) = l.split_once(' ')?;
            Some((id.to_string(), ms.parse().ok()?))
        })
        .collect()
}
