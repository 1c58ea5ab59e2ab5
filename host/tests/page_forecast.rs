//! The status page's pools (issue 28 item 4, on the page): each pool's expected drain, as
//! `GET /v1/pools` has it, and each deferral its pool starts later than it is due with its
//! expected start and `will-expire`. Through the real binary: `GET /` on `serve`.

mod common;

use common::server::{Server, TOKEN};
use common::{now, HOUR};
use deferral_host::clock::iso8601;
use serde_json::Value;
use std::io::{Read, Write};

fn gate_line(reset_s: u64, after_ms: u64, by_ms: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), after_ms, by_ms).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":45,"remaining":0,"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0,"contentCreating":10}},"deferredReceipt":{receipt}}}"#
    )
}

fn page(server: &Server) -> String {
    let mut stream = server.connect();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    answer.split_once("\r\n\r\n").unwrap().1.to_string()
}

/// 4 jobs of 10 fill the window after the reset (45 less a reserve of 5); the fifth starts a
/// window later, after its own window ends: the page names the pool's drain time and flags it.
#[test]
fn the_page_shows_each_pools_drain_and_the_deferrals_it_starts_late() {
    let server = Server::start(&[]);
    let host = &server.host;
    let reset_s = now() / 1000 + 60;
    let after = reset_s * 1000 - now();
    let record = |pool: &str| {
        let args = ["record", "--launch", "exec:/bin/true", "--pool", pool, "-"];
        host.expect(0, &args, &gate_line(reset_s, after, after + 600_000))
    };
    let ids: Vec<Value> = (0..5).map(|_| record("app-42")).collect();
    let late = &ids[4];
    assert_eq!(late["will_expire"], true, "{late}");
    let late_id = late["id"].as_str().unwrap();
    let late_start = late["expected_start_ms"].as_u64().unwrap();

    let (status, pools) = server.call("GET", "/v1/pools", Value::Null);
    assert_eq!(status, 200, "{pools}");
    let pool = &pools["pools"][0];
    assert_eq!(pool["pool"], "app-42", "{pools}");
    let drain = pool["expected_drain"].as_str().expect("a drain time");
    assert_eq!(pool["expected_drain_ms"].as_u64(), Some(late_start));

    let body = page(&server);
    let section = &body[body.find("<h2>Pools").expect("a pools section")..];
    assert!(section.contains("app-42"), "{section}");
    assert!(
        section.contains(&format!("expected drain <span class=\"at\">{drain}</span>")),
        "the pool's drain time, as GET /v1/pools has it: {section}"
    );
    let row = section
        .lines()
        .find(|l| l.contains(late_id))
        .unwrap_or_else(|| panic!("a row for {late_id}: {section}"));
    assert!(row.contains(&iso8601(late_start)), "{row}");
    assert!(row.contains("will-expire"), "{row}");
    let first = section
        .lines()
        .find(|l| l.contains(ids[0]["id"].as_str().unwrap()))
        .expect("the first is listed too");
    assert!(!first.contains("will-expire"), "{first}");
    assert_eq!(
        body.matches("will-expire").count(),
        1,
        "only the fifth: {body}"
    );
    // The page stays a page that loads nothing.
    assert!(!body.to_lowercase().contains("<script"), "{body}");
}

/// A pool with nothing held says so, and no drain time.
#[test]
fn a_pool_with_nothing_waiting_has_no_drain_time_on_the_page() {
    let server = Server::start(&[]);
    let reset_s = now() / 1000 + 60;
    let line = gate_line(reset_s, 0, HOUR);
    let args = [
        "record",
        "--launch",
        "exec:/bin/true",
        "--pool",
        "app-7",
        "-",
    ];
    let recorded = server.host.expect(0, &args, &line);
    let id = recorded["id"].as_str().unwrap();
    server.host.expect(
        0,
        &[
            "cancel",
            id,
            "--handle",
            recorded["cancellation_handle"].as_str().unwrap(),
        ],
        "",
    );
    let body = page(&server);
    let section = &body[body.find("<h2>Pools").expect("a pools section")..];
    assert!(section.contains("app-7"), "{section}");
    assert!(section.contains("nothing waiting"), "{section}");
    assert!(!section.contains("expected drain"), "{section}");
}
