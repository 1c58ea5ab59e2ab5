//! A `deferral-host serve` child on port 0 and a minimal HTTP/1.1 client for it.

use super::Host;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

pub const TOKEN: &str = "exec-test-token-not-real-0123456789";

pub struct Serve {
    child: Child,
    pub addr: String,
}

impl Serve {
    pub fn start(host: &Host, allow: &[&str]) -> Serve {
        Serve::start_with(host, allow, &[])
    }

    /// [`Serve::start`] with more flags (`--no-check`, ...).
    pub fn start_with(host: &Host, allow: &[&str], extra: &[&str]) -> Serve {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        for a in allow {
            args.extend_from_slice(&["--allow-launch", a]);
        }
        let (child, addr) = host.spawn_serve(&args, TOKEN, Stdio::null());
        Serve { child, addr }
    }

    /// POST /v1/deferrals; answers (status, body).
    pub fn record(&self, launch: &str) -> (u16, Value) {
        let receipt =
            deferral_host_conformance::distinct_handoff(super::now(), 0, super::HOUR).to_json();
        let body = serde_json::json!({"receipt": serde_json::from_str::<Value>(&receipt).unwrap(), "launch": launch});
        self.post("/v1/deferrals", &body.to_string())
    }

    /// POST `path` with `body` and the token; answers (status, body as JSON or Null).
    pub fn post(&self, path: &str, body: &str) -> (u16, Value) {
        self.call("POST", path, body)
    }

    /// GET `path` with the token; answers (status, body as JSON or Null).
    pub fn get(&self, path: &str) -> (u16, Value) {
        self.call("GET", path, "")
    }

    fn call(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let (status, text) = self.call_text(method, path, body);
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// `method path` with `body` and the token; answers (status, the body's exact text).
    pub fn call_text(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        (head[9..12].parse().unwrap(), body.to_string())
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
