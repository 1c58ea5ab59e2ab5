//! `GET /` on `serve`: the status page, behind the same bearer token as the API, as HTML that
//! may load nothing (the same page `status --html` writes; in a browser: tests/browser/).

mod common;

use common::server::{Server, TOKEN};
use common::HOUR;
use std::io::{Read, Write};

/// One request on a new connection; the whole answer (head and body) as text.
fn get(server: &Server, path: &str, token: Option<&str>) -> String {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let mut stream = server.connect();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: test\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn get_slash_answers_the_status_page_behind_the_token() {
    let server = Server::start(&[]);
    let (id, _) = server.host.record("exec:/bin/true", 20 * 60_000, HOUR, &[]);
    let answer = get(&server, "/", Some(TOKEN));
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(
        head.contains("content-type: text/html; charset=utf-8"),
        "{head}"
    );
    assert!(
        !head.contains("application/json"),
        "one content type: {head}"
    );
    assert!(
        head.contains("content-security-policy: default-src 'none'; style-src 'unsafe-inline'"),
        "{head}"
    );
    assert!(body.starts_with("<!DOCTYPE html>"), "{body}");
    assert!(body.contains("Deferrals by state (1 in all)"), "{body}");
    assert!(
        body.contains(&id) && (body.contains("in 19 min") || body.contains("in 20 min")),
        "{body}"
    );
    assert!(!body.to_lowercase().contains("<script"), "{body}");

    for token in [None, Some("not-the-serve-token-0123456789")] {
        let refused = get(&server, "/", token);
        assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
        assert!(!refused.contains("Deferrals by state"), "{refused}");
    }
    let wrong_method = server.call("POST", "/", serde_json::Value::Null);
    assert_eq!(wrong_method.0, 405);
}
