//! `GET /` in a browser (issue 28 item 5): without credentials the page answers a Basic
//! challenge (`realm="deferral"`), takes the serve token as the password under any user name,
//! and still takes the bearer token; the JSON API takes bearer tokens only. Neither the token
//! nor the header that carried it is ever logged. The real binary on a real loopback port, for
//! `serve` and for `run` (the same port code).

mod common;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use common::server::{Server, TOKEN};
use common::HOUR;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// One `GET` with `authorization` (the whole header value) on a new connection: its status,
/// its head (lowercased) and its body.
fn get(server: &Server, path: &str, authorization: Option<&str>) -> (u16, String, String) {
    get_at(&server.addr, path, authorization)
}

fn get_at(addr: &str, path: &str, authorization: Option<&str>) -> (u16, String, String) {
    let auth = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: test\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head[9..12].parse().expect("a status code");
    (status, head.to_ascii_lowercase(), body.to_string())
}

fn basic(user: &str, password: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{user}:{password}")))
}

fn challenged(head: &str) -> bool {
    head.lines()
        .any(|l| l.trim() == "www-authenticate: basic realm=\"deferral\"")
}

#[test]
fn a_browser_without_the_token_is_asked_for_it_as_the_basic_password() {
    let server = Server::start(&[]);
    let (id, _) = server.host.record("exec:/bin/true", 20 * 60_000, HOUR, &[]);

    let (status, head, body) = get(&server, "/", None);
    assert_eq!(status, 401, "{head}");
    assert!(challenged(&head), "the Basic challenge: {head}");
    assert!(
        head.contains("content-type: text/html; charset=utf-8"),
        "{head}"
    );
    assert!(head.contains("cache-control: no-store"), "{head}");
    assert!(
        body.contains("password") && body.contains("user name"),
        "says what to enter: {body}"
    );
    assert!(!body.contains("Deferrals by state"), "{body}");

    for wrong in [
        basic("operator", "not-the-serve-token-0123456789"),
        basic("operator", ""),
        basic("", &TOKEN[..TOKEN.len() - 1]),
        format!("Basic {}", STANDARD.encode(TOKEN)), // no colon: no password at all
        "Basic !!not-base64!!".to_string(),
        "Basic".to_string(),
        format!("Digest {}", STANDARD.encode(format!("u:{TOKEN}"))),
    ] {
        let (status, head, body) = get(&server, "/", Some(&wrong));
        assert_eq!(status, 401, "{wrong}: {head}");
        assert!(challenged(&head), "{wrong}: {head}");
        assert!(!body.contains(&id), "{wrong}: {body}");
    }

    for user in ["operator", "", "any name, with spaces"] {
        let (status, head, body) = get(&server, "/", Some(&basic(user, TOKEN)));
        assert_eq!(status, 200, "user {user:?}: {head}");
        assert!(head.contains("cache-control: no-store"), "{head}");
        assert!(head.contains("x-frame-options: deny"), "{head}");
        assert!(body.contains("Deferrals by state (1 in all)"), "{body}");
        assert!(body.contains(&id), "{body}");
    }
    // The scheme's name in any case, and a password with a colon in it stays whole.
    let (status, ..) = get(
        &server,
        "/",
        Some(&format!("bAsIc {}", STANDARD.encode(format!("x:{TOKEN}")))),
    );
    assert_eq!(status, 200);

    let (status, _, body) = get(&server, "/", Some(&format!("Bearer {TOKEN}")));
    assert_eq!(status, 200, "the bearer token still opens the page");
    assert!(body.contains(&id), "{body}");
}

#[test]
fn the_json_api_takes_the_bearer_token_only() {
    let server = Server::start(&[]);
    let (id, _) = server.host.record("exec:/bin/true", 20 * 60_000, HOUR, &[]);
    for path in [
        format!("/v1/deferrals/{id}"),
        "/v1/pools".to_string(),
        "/metrics".to_string(),
        "/no-such-route".to_string(),
    ] {
        let (status, head, body) = get(&server, &path, Some(&basic("operator", TOKEN)));
        assert_eq!(status, 401, "{path}: {head}");
        assert!(
            head.lines().any(|l| l.trim() == "www-authenticate: bearer"),
            "{path}: the bearer answer, not a Basic prompt: {head}"
        );
        assert!(!challenged(&head), "{path}: {head}");
        let body: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(body["error"]["code"], "unauthorized", "{path}: {body}");
    }
    let (status, ..) = get(
        &server,
        &format!("/v1/deferrals/{id}"),
        Some(&format!("Bearer {TOKEN}")),
    );
    assert_eq!(status, 200);
    // The probes need nothing, as before.
    assert_eq!(get(&server, "/healthz", None).0, 200);
    assert_eq!(get(&server, "/readyz", None).0, 200);
}

#[test]
fn the_log_never_holds_the_token_or_the_header_that_carried_it() {
    let server = Server::start(&[]);
    let right = basic("operator", TOKEN);
    let wrong = basic("operator", "not-the-serve-token-0123456789");
    assert_eq!(get(&server, "/", Some(&right)).0, 200);
    assert_eq!(get(&server, "/", Some(&wrong)).0, 401);
    assert_eq!(get(&server, "/v1/pools", Some(&right)).0, 401);
    assert_eq!(get(&server, "/", Some(&format!("Bearer {TOKEN}"))).0, 200);
    // Each line is written before its answer is sent; polled all the same.
    let started = Instant::now();
    let log = loop {
        let log = String::from_utf8_lossy(&server.log()).into_owned();
        if log.matches("GET / 200").count() == 2 || started.elapsed() > Duration::from_secs(10) {
            break log;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(log.matches("GET / 200").count(), 2, "{log}");
    assert!(log.contains("GET /v1/pools 401"), "{log}");
    assert!(log.contains("GET / 401"), "{log}");
    for secret in [
        TOKEN,
        &right["Basic ".len()..],
        &wrong["Basic ".len()..],
        "not-the-serve-token",
    ] {
        assert!(!log.contains(secret), "{secret:?} logged: {log}");
    }
    assert!(!log.to_ascii_lowercase().contains("authorization"), "{log}");
    assert!(!log.contains("Basic"), "{log}");
}

#[test]
fn runs_port_opens_the_page_the_same_way() {
    let host = common::Host::new();
    let run = common::run::Run::start(&host, "run", &[]);
    let token = common::run::TOKEN;
    let (status, head, _) = get_at(&run.addr, "/", None);
    assert_eq!(status, 401, "{head}");
    assert!(challenged(&head), "{head}");
    let (status, _, body) = get_at(&run.addr, "/", Some(&basic("ops", token)));
    assert_eq!(status, 200);
    assert!(body.contains("Deferrals by state"), "{body}");
    let (status, head, _) = get_at(&run.addr, "/v1/pools", Some(&basic("ops", token)));
    assert_eq!(status, 401, "{head}");
    let (status, ..) = get_at(&run.addr, "/v1/pools", Some(&format!("Bearer {token}")));
    assert_eq!(status, 200);
    let started = Instant::now();
    let log = loop {
        let log = run.log();
        if log.contains("GET /v1/pools 200") || started.elapsed() > Duration::from_secs(10) {
            break log;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(log.contains("GET / 200"), "{log}");
    assert!(!log.contains(token), "{log}");
    assert!(
        !log.contains(&basic("ops", token)["Basic ".len()..]),
        "{log}"
    );
}
