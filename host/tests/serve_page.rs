//! `GET /` on `serve`: the status page, behind the same bearer token as the API, as HTML that
//! may load nothing (the same page `status --html` writes; in a browser: tests/browser/).

mod common;

use common::server::{Server, TOKEN};
use common::{now, Host, HOUR};
use deferral_host::lifecycle;
use deferral_host::lifecycle::outcome::Outcome;
use deferral_host::store::{AttemptStatus, Store};
use serde_json::Value;
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

/// The head of an answer, lowercased, and its body.
fn split(answer: &str) -> (String, &str) {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.to_ascii_lowercase(), body)
}

#[test]
fn the_page_and_the_api_answers_tell_the_browser_not_to_sniff_frame_or_refer() {
    let server = Server::start(&[]);
    let (id, _) = server.host.record("exec:/bin/true", 60_000, HOUR, &[]);
    let (head, _) = split(&get(&server, "/", Some(TOKEN)));
    assert!(head.starts_with("http/1.1 200"), "{head}");
    for wanted in [
        "x-content-type-options: nosniff",
        "referrer-policy: no-referrer",
        "frame-ancestors 'none'",
    ] {
        assert!(head.contains(wanted), "the page lacks {wanted}: {head}");
    }
    let csp = head
        .lines()
        .find(|l| l.starts_with("content-security-policy:"))
        .unwrap();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    // The API's answers (found, refused, unknown) carry them too, with a policy that allows
    // nothing at all.
    for (path, token, status) in [
        (format!("/v1/deferrals/{id}"), Some(TOKEN), "200"),
        (format!("/v1/deferrals/{id}"), None, "401"),
        ("/nowhere".to_string(), Some(TOKEN), "404"),
    ] {
        let (head, _) = split(&get(&server, &path, token));
        assert!(head.starts_with(&format!("http/1.1 {status}")), "{head}");
        for wanted in [
            "x-content-type-options: nosniff",
            "referrer-policy: no-referrer",
            "content-security-policy: default-src 'none'; frame-ancestors 'none'",
        ] {
            assert!(head.contains(wanted), "{path} lacks {wanted}: {head}");
        }
    }
}

/// Fills `store` with more deferrals of every kind than the page draws: 130 waiting (windows
/// opening at spread-out times), 12 resumable, and 150 outcomes (cancelled, complete, blocked).
fn fill(store: &dyn Store) {
    let t = now();
    let record = |after_ms: u64| {
        let text = deferral_host_conformance::distinct_handoff(now(), after_ms, 2 * HOUR).to_json();
        lifecycle::insert::insert_new(store, text.as_bytes(), "exec:/bin/true", 2, now())
            .unwrap()
            .deferral
    };
    for i in 0..130u64 {
        record(60_000 + (i * 7919 % 130) * 20_000);
    }
    for i in 0..162u64 {
        let d = record(0);
        match i {
            0..12 => {
                lifecycle::claim::claim(
                    store,
                    &d,
                    "test",
                    t + HOUR,
                    AttemptStatus::Launching,
                    now(),
                )
                .unwrap();
            }
            12..72 => {
                lifecycle::change::expire(store, &d, now()).unwrap();
            }
            _ => {
                let c = lifecycle::claim::claim(
                    store,
                    &d,
                    "test",
                    t + HOUR,
                    AttemptStatus::Launching,
                    now(),
                )
                .unwrap();
                let outcome = if i % 2 == 0 {
                    Outcome::Complete { detail: None }
                } else {
                    Outcome::Blocked {
                        detail: Some(format!("exit {i}")),
                    }
                };
                lifecycle::outcome::end_attempt(store, &c.deferral, outcome, now()).unwrap();
            }
        }
    }
}

/// The page on a store holding more rows than it draws: the counts cover the whole store (as
/// `status --json` lists it), the timeline draws exactly the 100 earliest pending windows and the
/// outcomes table exactly the 100 latest outcomes, in that order.
fn page_draws_the_first_rows_and_counts_them_all(host: Host) {
    fill(&*host.open_any());
    let listed = host.expect(0, &["status", "--json"], "");
    let rows = listed["deferrals"].as_array().unwrap();
    assert_eq!(rows.len(), 292);
    let field = |d: &Value, name: &str| d[name].as_u64().unwrap();
    let id = |d: &Value| d["id"].as_str().unwrap().to_string();
    let state = |d: &Value| d["state"].as_str().unwrap().to_string();

    let mut pending: Vec<&Value> = rows
        .iter()
        .filter(|d| matches!(state(d).as_str(), "deferred" | "resumable"))
        .collect();
    pending.sort_by_key(|d| (field(d, "resume_after_ms"), id(d)));
    let mut done: Vec<&Value> = rows
        .iter()
        .filter(|d| matches!(state(d).as_str(), "complete" | "blocked" | "cancelled"))
        .collect();
    done.sort_by_key(|d| std::cmp::Reverse((field(d, "updated_ms"), id(d))));
    assert_eq!((pending.len(), done.len()), (142, 150));

    let server = Server::start_on(host, &[]);
    let answer = get(&server, "/", Some(TOKEN));
    let (head, page) = split(&answer);
    assert!(head.starts_with("http/1.1 200"), "{head}");

    for s in [
        "deferred",
        "resumable",
        "complete",
        "blocked",
        "cancelled",
        "ready",
    ] {
        let n = rows.iter().filter(|d| state(d) == s).count();
        let shown = format!("<div class=\"count {s}\"><b>{n}</b>{s}</div>");
        assert!(page.contains(&shown), "{s}: {n} expected: {page}");
    }
    assert!(page.contains("Deferrals by state (292 in all)"), "{page}");

    let (timeline, outcomes) = page.split_once("<h2>Recent outcomes</h2>").unwrap();
    // Where each row is drawn (None: not drawn), in the page's order.
    let drawn = |section: &str, marker: &dyn Fn(&str) -> String, of: &[&Value]| {
        let mut at: Vec<(usize, String)> = of
            .iter()
            .filter_map(|d| section.find(&marker(&id(d))).map(|p| (p, id(d))))
            .collect();
        at.sort();
        at.into_iter().map(|(_, id)| id).collect::<Vec<_>>()
    };
    let expected = |of: &[&Value]| of.iter().take(100).map(|d| id(d)).collect::<Vec<_>>();
    let in_timeline = drawn(timeline, &|id| format!(">{id} · "), &pending);
    assert_eq!(
        in_timeline,
        expected(&pending),
        "the 100 earliest windows, earliest first"
    );
    let in_outcomes = drawn(outcomes, &|id| format!("<code>{id}</code>"), &done);
    assert_eq!(
        in_outcomes,
        expected(&done),
        "the 100 latest outcomes, newest first"
    );
}

#[test]
fn the_page_draws_at_most_100_rows_of_each_kind_and_counts_every_row() {
    page_draws_the_first_rows_and_counts_them_all(Host::new());
}

#[test]
fn the_page_draws_at_most_100_rows_of_each_kind_and_counts_every_row_on_postgres() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    page_draws_the_first_rows_and_counts_them_all(Host::with_store(&schema.url));
}
