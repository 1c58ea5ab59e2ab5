//! `serve` records a receipt once (the same receipt again answers 200 with the same id) and
//! finds a deferral by the digest of any of its receipts: `GET /v1/receipts/{digest}`.

mod common;

use common::{now, Host, HOUR};
use deferral_core::digest::digest;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

const TOKEN: &str = "serve-test-token-not-real";

struct Server {
    _host: Host,
    child: Child,
    addr: String,
}

impl Server {
    fn start() -> Server {
        let host = Host::new();
        let (child, addr) =
            host.spawn_serve(&["serve", "--listen", "127.0.0.1:0"], TOKEN, Stdio::null());
        Server {
            _host: host,
            child,
            addr,
        }
    }

    fn call(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
        let status = head[9..12].parse().unwrap();
        (status, serde_json::from_str(body).unwrap_or(Value::Null))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_same_receipt_twice_answers_200_with_the_same_deferral() {
    let server = Server::start();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let body = format!(
        "{{\"receipt\":{receipt},\"launch\":{}}}",
        json!("workflow-dispatch:o/r/w.yml@main")
    );
    let (status, first) = server.call("POST", "/v1/deferrals", &body);
    assert_eq!(status, 201, "{first}");
    let (status, again) = server.call("POST", "/v1/deferrals", &body);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["id"], first["id"]);
    assert_eq!(again["already_recorded"], true);
    assert!(again.get("cancellation_handle").is_none(), "no new handle");
}

#[test]
fn a_deferral_is_found_by_the_digest_of_any_of_its_receipts() {
    let server = Server::start();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    let body = format!(
        "{{\"receipt\":{receipt},\"launch\":{}}}",
        json!("workflow-dispatch:o/r/w.yml@main")
    );
    let (_, recorded) = server.call("POST", "/v1/deferrals", &body);
    let id = recorded["id"].as_str().unwrap();
    let (_, by_id) = server.call("GET", &format!("/v1/deferrals/{id}"), "");
    let handoff_digest = digest(&serde_json::from_str(&receipt).unwrap()).unwrap();
    let retained_digest = digest(&recorded["receipt"]).unwrap();
    for d in [handoff_digest, retained_digest] {
        let (status, found) = server.call("GET", &format!("/v1/receipts/{d}"), "");
        assert_eq!(status, 200, "{found}");
        assert_eq!(found, by_id, "the same JSON as GET /v1/deferrals/{{id}}");
    }
    let (status, missing) = server.call("GET", &format!("/v1/receipts/{}", "0".repeat(64)), "");
    assert_eq!(
        (status, missing["error"]["code"].as_str()),
        (404, Some("not-found"))
    );
    let (status, bad) = server.call("GET", "/v1/receipts/NOT-A-DIGEST", "");
    assert_eq!(
        (status, bad["error"]["code"].as_str()),
        (404, Some("not-found"))
    );
    let (status, _) = server.call("POST", &format!("/v1/receipts/{}", "0".repeat(64)), "{}");
    assert_eq!(status, 405);
}
