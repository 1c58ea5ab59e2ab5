//! One answer about a hold (issue 34 item 6): right after a tick holds work (2 of 4 fit a
//! pool's window), every surface gives the same end for the hold: the tick's report and its
//! summary, `tick --dry-run`, `status` (JSON and table: never "due now" for held work), `show`,
//! `status --pools`, the page (`status --html` and `serve`'s `GET /`), `GET /v1/pools` and
//! `GET /v1/deferrals/ID`. When a launch's report replaces the assumed window the hold was
//! decided on, every surface moves to the new end. Through the real binary and real sockets.

mod common;

use common::run::{Client, TOKEN};
use common::{now, script, Host, HOUR};
use deferral_host::clock::iso8601;
use serde_json::Value;

const POOL: &str = "app-42";

/// A gate's line deferred on REST (`limit`, `remaining`, a reserve of 5, a plan of 10) that
/// resets at `reset_s`.
fn gate_line(limit: u64, remaining: u64, reset_s: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    format!(
        r#"{{"status":"deferred","mode":"gate","code":"core-below-reserve","rest":{{"limit":{limit},"remaining":{remaining},"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"plan":{{"rest":10,"graphql":0,"contentCreating":10}},"deferredReceipt":{receipt}}}"#
    )
}

fn record_four(host: &Host, launch: &str, line: &dyn Fn() -> String) {
    for _ in 0..4 {
        host.expect(
            0,
            &["record", "--launch", launch, "--pool", POOL, "-"],
            &line(),
        );
    }
}

/// The tick's report and its summary line on stderr.
fn tick(host: &Host, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["tick"];
    args.extend_from_slice(extra);
    let out = host.run(&args, "");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = serde_json::from_slice(&out.stdout).unwrap();
    (report, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn text(host: &Host, args: &[&str]) -> String {
    let out = host.run(args, "");
    assert_eq!(out.status.code(), Some(0), "{args:?} {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `serve` on port 0, for the surfaces only the port has.
struct Serve {
    child: std::process::Child,
    client: Client,
}

impl Serve {
    fn start(host: &Host) -> Serve {
        let (child, addr) = host.spawn_serve(
            &["serve", "--listen", "127.0.0.1:0"],
            TOKEN,
            std::process::Stdio::null(),
        );
        Serve {
            child,
            client: Client { addr },
        }
    }

    fn get(&self, path: &str) -> Value {
        let (status, body) = self.client.try_call("GET", path, true, "").unwrap();
        assert_eq!(status, 200, "{path}: {body}");
        body
    }

    /// The page's HTML (not JSON, so read raw).
    fn page(&self) -> String {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&self.client.addr).unwrap();
        write!(
            stream,
            "GET / HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut page = String::new();
        stream.read_to_string(&mut page).unwrap();
        page
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every surface's end for the pool's hold, with the surface's name; `held` the deferrals
/// held. Text surfaces give the instant as they print it.
fn every_end(host: &Host, serve: &Serve, held: &[String]) -> Vec<(String, Option<String>)> {
    let mut ends = Vec::new();
    let (dry, summary) = tick(host, &["--dry-run"]);
    ends.push((
        "tick --dry-run".into(),
        ms(dry["held"][0]["until_ms"].as_u64()),
    ));
    ends.push(("tick --dry-run summary".into(), summary_end(&summary)));
    let status = host.expect(0, &["status", "--json"], "");
    for d in status["deferrals"].as_array().unwrap() {
        if held.iter().any(|id| d["id"] == id.as_str()) {
            ends.push((
                format!("status {}", d["id"]),
                ms(d["held"]["until_ms"].as_u64()),
            ));
        }
    }
    let table = text(host, &["status"]);
    for id in held {
        let row = table.lines().find(|l| l.starts_with(id.as_str())).unwrap();
        ends.push((
            format!("status table {id}"),
            printed_end(row, "held until "),
        ));
        let show = host.expect(0, &["show", "--json", id], "");
        ends.push((
            format!("show {id}"),
            ms(show["deferral"]["held"]["until_ms"].as_u64()),
        ));
        let shown = text(host, &["show", id]);
        let due = shown.lines().find(|l| l.starts_with("due")).unwrap();
        ends.push((
            format!("show text due {id}"),
            printed_end(due, "held until "),
        ));
        let api = serve.get(&format!("/v1/deferrals/{id}"));
        ends.push((
            format!("GET /v1/deferrals/{id}"),
            ms(api["held"]["until_ms"].as_u64()),
        ));
    }
    // `held` false with an end would be two answers: an end counts only with `held`.
    let held_end = |pool: &Value| {
        ms(pool["hold_until_ms"]
            .as_u64()
            .filter(|_| pool["held"] == true))
    };
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    ends.push(("status --pools".into(), held_end(&pools["pools"][0])));
    let pools_text = text(host, &["status", "--pools"]);
    ends.push((
        "status --pools table".into(),
        printed_end(&pools_text, "due again at "),
    ));
    let api = serve.get("/v1/pools");
    ends.push(("GET /v1/pools".into(), held_end(&api["pools"][0])));
    let file = host.path("status.html");
    host.expect(0, &["status", "--html", file.to_str().unwrap()], "");
    let page = std::fs::read_to_string(&file).unwrap();
    let marker = "due again at <span class=\"at\">";
    ends.push(("status --html".into(), printed_end(&page, marker)));
    ends.push(("GET /".into(), printed_end(&serve.page(), marker)));
    ends
}

/// The instant printed right after `marker` in `text` (ISO 8601 to the millisecond).
fn printed_end(text: &str, marker: &str) -> Option<String> {
    let at = text.find(marker)? + marker.len();
    text.get(at..at + 24).map(str::to_string)
}

fn summary_end(stderr: &str) -> Option<String> {
    printed_end(stderr, "the held are due again at ")
}

/// An end given in milliseconds, as the text surfaces print it.
fn ms(end: Option<u64>) -> Option<String> {
    end.map(iso8601)
}

/// The first `expected_start_ms` anywhere in `view`.
fn expected_start(view: &serde_json::Value) -> Option<u64> {
    match view {
        serde_json::Value::Object(map) => map
            .get("expected_start_ms")
            .and_then(serde_json::Value::as_u64)
            .or_else(|| map.values().find_map(expected_start)),
        serde_json::Value::Array(items) => items.iter().find_map(expected_start),
        _ => None,
    }
}

/// Every surface gives `until`.
fn all_say(ends: &[(String, Option<String>)], until: u64) {
    let want = Some(iso8601(until));
    let wrong: Vec<_> = ends.iter().filter(|(_, end)| *end != want).collect();
    assert!(
        wrong.is_empty(),
        "every surface gives the tick's end {} ({until}); these do not: {wrong:?}",
        iso8601(until)
    );
}

/// The tick's own answer: the held, and the end its report and its summary give.
fn tick_held(host: &Host) -> (Vec<String>, u64) {
    let (report, summary) = tick(host, &[]);
    let held = &report["held"][0];
    assert_eq!(
        (
            held["pool"].as_str(),
            held["held"].as_u64(),
            held["admitted"].as_u64()
        ),
        (Some(POOL), Some(2), Some(2)),
        "2 of 4 fit: {report}"
    );
    let until = held["until_ms"].as_u64().expect("the hold has an end");
    assert_eq!(summary_end(&summary), ms(Some(until)), "{summary}");
    let ids = held["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_string())
        .collect();
    (ids, until)
}

#[test]
fn right_after_a_tick_holds_every_surface_gives_the_same_end() {
    let host = Host::new();
    let reset_s = now() / 1000 + 600;
    record_four(&host, "exec:/bin/true", &|| gate_line(45, 25, reset_s));
    let serve = Serve::start(&host);
    let (held, until) = tick_held(&host);
    // The reset the gate saw plus the buffer (1 s) and this host's jitter (at most 2 s).
    assert!(
        (reset_s * 1000 + 1000..=reset_s * 1000 + 3000).contains(&until),
        "{} for a reset at {}",
        iso8601(until),
        iso8601(reset_s * 1000)
    );
    all_say(&every_end(&host, &serve, &held), until);
    // The forecast says the same time: the held start when the hold ends, not at the bare reset
    // plus the buffer (this host's jitter is in both).
    let view = serve.get(&format!("/v1/deferrals/{}", held[0]));
    assert_eq!(
        expected_start(&view).map(iso8601),
        Some(iso8601(until)),
        "the forecast's start of a held deferral is the hold's end: {view}"
    );
    let table = text(&host, &["status"]);
    assert!(
        !table.contains("due now"),
        "held work is never due now:\n{table}"
    );
}

#[test]
fn a_report_that_replaces_the_assumed_window_moves_every_end() {
    let host = Host::new();
    // The gate saw a window whose reset has passed: the pool assumes the next one an hour on.
    let passed_s = now() / 1000 - 30;
    let real_reset_s = now() / 1000 + 600;
    // Each launch reports what it saw last: the window's real reset, nothing left above the
    // reserve.
    let target = script(
        &host.path("reports.sh"),
        &format!(
            "echo '{{\"status\":\"ready\",\"mode\":\"resume\",\"code\":null,\"rest\":{{\"limit\":25,\"remaining\":5,\"reserve\":5,\"plannedCost\":10,\"reset\":{real_reset_s},\"ok\":true}},\"graphql\":null}}'"
        ),
    );
    record_four(&host, &target, &|| gate_line(25, 25, passed_s));
    let serve = Serve::start(&host);
    let (held, until) = tick_held(&host);
    assert!(
        until < real_reset_s * 1000 + 3001,
        "the tick's end is the reported window's ({}), not the assumed one's: {}",
        iso8601(real_reset_s * 1000),
        iso8601(until)
    );
    assert!(until >= real_reset_s * 1000 + 1000, "{}", iso8601(until));
    all_say(&every_end(&host, &serve, &held), until);
}

#[test]
fn a_report_after_the_tick_moves_every_end_from_the_assumed_window() {
    let host = Host::new();
    let passed_s = now() / 1000 - 30;
    // The launches report nothing: the pool keeps the window it assumed an hour on.
    record_four(&host, "exec:/bin/true", &|| gate_line(25, 25, passed_s));
    let serve = Serve::start(&host);
    let (held, assumed) = tick_held(&host);
    assert!(
        assumed > now() + HOUR - 120_000,
        "held until the assumed window's reset, about an hour on: {}",
        iso8601(assumed)
    );
    all_say(&every_end(&host, &serve, &held), assumed);
    // A gate in the same pool reports the window as it really is: it resets in ten minutes.
    let real_reset_s = now() / 1000 + 600;
    host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "--pool", POOL, "-"],
        &gate_line(25, 5, real_reset_s),
    );
    let ends = every_end(&host, &serve, &held);
    let (_, first) = &ends[0];
    let moved = first.clone().expect("still held");
    assert!(
        moved.as_str() < iso8601(real_reset_s * 1000 + 3001).as_str()
            && moved.as_str() >= iso8601(real_reset_s * 1000 + 1000).as_str(),
        "the end moves to the reported reset {} plus the buffer and jitter: {moved}",
        iso8601(real_reset_s * 1000)
    );
    let wrong: Vec<_> = ends
        .iter()
        .filter(|(_, end)| end.as_ref() != Some(&moved))
        .collect();
    assert!(
        wrong.is_empty(),
        "every surface moves to {moved}; these do not: {wrong:?}"
    );
}
