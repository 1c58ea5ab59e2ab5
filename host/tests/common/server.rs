//! A `deferral-host serve` child process for tests: started on port 0 over a temporary store,
//! spoken to over plain std sockets, its log (stderr) kept in a file the test can read.

use super::{now, Host, HOUR};
use deferral_host::store::{ListQuery, Store};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

pub const TOKEN: &str = "serve-test-token-0123456789abcdef";

pub struct Server {
    pub host: Host,
    pub child: Child,
    pub addr: String,
}

/// One HTTP answer: status, head text, body parsed as JSON (Null when it is not JSON).
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: Value,
}

/// Reads one answer from `stream`, framed by its `Content-Length` (the connection may stay open).
pub fn read_answer(stream: &mut TcpStream) -> std::io::Result<Answer> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        let read = match stream.read(&mut byte) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => other?,
        };
        if read == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("closed after {:?}", String::from_utf8_lossy(&buf)),
            ));
        }
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).to_string();
    let status = head[9..12].parse().expect("a status code");
    let length = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body)?;
    Ok(Answer {
        status,
        head,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

/// A request with the serve token, `Content-Length` and `Connection: close` unless `keep`.
pub fn request(method: &str, path: &str, body: &str, keep: bool) -> String {
    let close = if keep { "" } else { "Connection: close\r\n" };
    format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {TOKEN}\r\n{close}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        Server::start_on(Host::new(), extra)
    }

    pub fn start_on(host: Host, extra: &[&str]) -> Server {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let log = std::fs::File::create(host.path("serve.log")).unwrap();
        let (child, addr) = host.spawn_serve(&args, TOKEN, Stdio::from(log));
        Server { host, child, addr }
    }

    /// What the server has logged so far.
    pub fn log(&self) -> Vec<u8> {
        std::fs::read(self.host.path("serve.log")).unwrap()
    }

    /// The log once it contains `needle`, polled for up to `within`; panics with the log if not.
    pub fn log_containing(&self, needle: &str, within: Duration) -> String {
        let started = std::time::Instant::now();
        loop {
            let text = String::from_utf8_lossy(&self.log()).into_owned();
            if text.contains(needle) {
                return text;
            }
            assert!(
                started.elapsed() < within,
                "{needle:?} not logged within {within:?}: {text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
    }

    /// Sends raw bytes on a new connection and reads one answer.
    pub fn raw(&self, bytes: &[u8]) -> (u16, String, Value) {
        let mut stream = self.connect();
        stream.write_all(bytes).unwrap();
        let answer = read_answer(&mut stream).unwrap();
        (answer.status, answer.head, answer.body)
    }

    pub fn call_with(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> (u16, Value) {
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: test\r\n{auth}Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let (status, _, json) = self.raw(request.as_bytes());
        (status, json)
    }

    pub fn call(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        self.call_with(method, path, Some(TOKEN), &text)
    }

    /// The time a `GET` of an unknown deferral takes on a new connection, with a 5 s cap.
    pub fn timed_get(&self) -> Result<(u16, Duration), String> {
        let started = Instant::now();
        let mut stream = TcpStream::connect(&self.addr).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
            .write_all(request("GET", "/v1/deferrals/dx", "", false).as_bytes())
            .map_err(|e| e.to_string())?;
        let answer = read_answer(&mut stream).map_err(|e| e.to_string())?;
        Ok((answer.status, started.elapsed()))
    }

    pub fn record(&self, launch: &str) -> (String, String, Value) {
        // A distinct receipt each call: recording is idempotent by receipt digest.
        let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
        let body = format!("{{\"receipt\":{receipt},\"launch\":{}}}", json!(launch));
        let (status, out) = self.call_with("POST", "/v1/deferrals", Some(TOKEN), &body);
        assert_eq!(status, 201, "{out}");
        let id = out["id"].as_str().unwrap().to_string();
        let cancel = out["cancellation_handle"].as_str().unwrap().to_string();
        (id, cancel, out)
    }

    pub fn count(&self) -> usize {
        self.host.open().list(&ListQuery::default()).unwrap().len()
    }

    /// Sends SIGTERM and waits up to `bound` for the process to end; its exit code, or `None`.
    pub fn terminate_within(&mut self, bound: Duration) -> Option<i32> {
        // SAFETY: kill(2) on the child this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
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

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn error_code(value: &Value) -> &str {
    value["error"]["code"].as_str().unwrap_or("<none>")
}
