//! Metrics and structured logs through the real binary: `tick --metrics-file` (atomic, the
//! expected families, values as the store holds them), `GET /metrics` on `serve` (only with
//! the token), and `--log-format json` (one JSON object a line, no secret).

mod common;

use common::exposition::{self, Exposition};
use common::server::{Server, TOKEN};
use common::{now, script, Host, HOUR};
use serde_json::Value;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;

const FAMILIES: [&str; 10] = [
    "deferral_host_deferrals",
    "deferral_host_deferrals_by_state",
    "deferral_host_tick_last_run_timestamp_seconds",
    "deferral_host_tick_duration_seconds",
    "deferral_host_tick_failed",
    "deferral_host_tick_launches",
    "deferral_host_tick_expired",
    "deferral_host_tick_recovered",
    "deferral_host_tick_skipped",
    "deferral_host_tick_store_errors",
];

fn read(path: &std::path::Path) -> Exposition {
    exposition::parse(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn tick_writes_its_metrics_file_atomically_with_the_expected_families() {
    let host = Host::new();
    let ok = script(&host.path("ok.sh"), "exit 0");
    let fails = script(&host.path("fails.sh"), "exit 3");
    host.record(&ok, 0, HOUR, &[]);
    host.record(&ok, 0, HOUR, &[]);
    host.record(&fails, 0, HOUR, &[]);
    host.record(&ok, HOUR, 2 * HOUR, &[]);
    let metrics_dir = host.path("textfile");
    std::fs::create_dir(&metrics_dir).unwrap();
    let file = metrics_dir.join("deferral.prom");
    let before = now() / 1000;
    host.tick(&["--quiet", "--metrics-file", file.to_str().unwrap()]);

    let first = read(&file);
    for family in FAMILIES {
        assert!(first.families.contains_key(family), "{family} missing");
    }
    assert!(
        first.families.values().all(|t| t == "gauge"),
        "{:?}",
        first.families
    );
    let launches = |e: &Exposition, outcome| {
        e.value(
            "deferral_host_tick_launches",
            &[("kind", "exec"), ("outcome", outcome)],
        )
    };
    assert_eq!(launches(&first, "complete"), Some(2.0));
    assert_eq!(launches(&first, "blocked"), Some(1.0));
    assert_eq!(launches(&first, "deferred"), Some(0.0));
    assert_eq!(first.value("deferral_host_tick_failed", &[]), Some(0.0));
    let ran = first
        .value("deferral_host_tick_last_run_timestamp_seconds", &[])
        .unwrap();
    assert!(
        ran >= before as f64 && ran <= (now() / 1000 + 1) as f64,
        "{ran}"
    );
    // The gauges are what the store holds.
    let store = host.open_any();
    for (state, n) in store.count_by_state().unwrap() {
        let shown = first.value(
            "deferral_host_deferrals_by_state",
            &[("state", state.as_str())],
        );
        assert_eq!(shown, Some(n as f64), "{state}");
    }
    assert_eq!(
        first.value(
            "deferral_host_deferrals_by_state",
            &[("state", "cancelled")]
        ),
        Some(0.0)
    );
    assert_eq!(
        first.value(
            "deferral_host_deferrals",
            &[("state", "deferred"), ("cause", "recorded")]
        ),
        Some(1.0)
    );
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);

    // Atomic: a reader holding the old file reads it whole after the next tick replaced it,
    // and nothing but the file is left in the collector's directory.
    let mut held = std::fs::File::open(&file).unwrap();
    let old_text = std::fs::read_to_string(&file).unwrap();
    host.tick(&["--quiet", "--metrics-file", file.to_str().unwrap()]);
    let mut seen = String::new();
    held.read_to_string(&mut seen).unwrap();
    assert_eq!(
        seen, old_text,
        "the file was rewritten in place, not replaced"
    );
    let second = read(&file);
    assert_eq!(
        launches(&second, "complete"),
        Some(0.0),
        "a tick's file holds what that tick did"
    );
    assert_eq!(
        second.value("deferral_host_deferrals_by_state", &[("state", "complete")]),
        Some(2.0)
    );
    let left: Vec<_> = std::fs::read_dir(&metrics_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, [std::ffi::OsString::from("deferral.prom")]);
}

#[test]
fn a_failed_tick_still_writes_its_file_and_says_it_failed() {
    let host = Host::uncreated();
    // A store that cannot be opened: a directory where the SQLite file should be
    // (`foreign-store`, issue 29 item 7).
    std::fs::create_dir(&host.db).unwrap();
    let file = host.path("deferral.prom");
    let out = host.run(
        &["tick", "--quiet", "--metrics-file", file.to_str().unwrap()],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let metrics = read(&file);
    assert_eq!(metrics.value("deferral_host_tick_failed", &[]), Some(1.0));
    assert_eq!(
        metrics.value(
            "deferral_host_tick_store_errors",
            &[("code", "foreign-store")]
        ),
        Some(1.0)
    );
    assert!(
        !metrics.families.contains_key("deferral_host_deferrals"),
        "no gauges without a store"
    );
}

/// `GET /metrics` with `token` (or none); status, content type, body.
fn get_metrics(server: &Server, token: Option<&str>) -> (u16, String, String) {
    use std::io::Write;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let mut stream = server.connect();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: test\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("Content-Type: ")
                .or_else(|| l.strip_prefix("content-type: "))
        })
        .unwrap_or_default()
        .to_string();
    (status, content_type, body.to_string())
}

#[test]
fn serve_answers_metrics_only_with_the_token() {
    let server = Server::start(&["--allow-launch", "exec:/bin/true"]);
    for _ in 0..3 {
        server.record("exec:/bin/true");
    }
    let (status, _, body) = get_metrics(&server, None);
    assert_eq!(status, 401, "{body}");
    assert!(!body.contains("deferral_host_"), "{body}");
    let (status, _, body) = get_metrics(&server, Some("wrong-token-0123456789abcdef"));
    assert_eq!(status, 401, "{body}");

    let (status, content_type, body) = get_metrics(&server, Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    let metrics = exposition::parse(&body);
    assert_eq!(
        metrics.value("deferral_host_deferrals_by_state", &[("state", "deferred")]),
        Some(3.0)
    );
    assert_eq!(
        metrics.value(
            "deferral_host_deferrals",
            &[("state", "deferred"), ("cause", "recorded")]
        ),
        Some(3.0)
    );
    assert_eq!(
        metrics.families["deferral_host_http_requests_total"],
        "counter"
    );
    assert_eq!(
        metrics.families["deferral_host_store_errors_total"],
        "counter"
    );
    // The three records and the two refused scrapes, counted over the process lifetime.
    let requests = |route, status| {
        metrics.value(
            "deferral_host_http_requests_total",
            &[("route", route), ("status", status)],
        )
    };
    assert_eq!(requests("record", "201"), Some(3.0));
    assert_eq!(requests("metrics", "401"), Some(2.0));
    assert_eq!(
        metrics.value(
            "deferral_host_store_errors_total",
            &[("code", "store-error")]
        ),
        Some(0.0)
    );
}

/// Every line of `log` as a JSON object; none holds any of `secrets`.
fn json_lines(log: &str, secrets: &[&str]) -> Vec<Value> {
    assert!(!log.trim().is_empty(), "no log at all");
    log.lines()
        .map(|line| {
            for secret in secrets {
                assert!(!line.contains(secret), "a secret in the log: {line}");
            }
            let value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            assert!(
                value.is_object() && value["ts"].is_string() && value["event"].is_string(),
                "{line}"
            );
            value
        })
        .collect()
}

#[test]
fn serve_logs_json_lines_without_the_token_or_handles() {
    let host = Host::new();
    let log = std::fs::File::create(host.path("serve.log")).unwrap();
    let (child, addr) = host.spawn_serve(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--allow-launch",
            "exec:/bin/true",
            "--log-format",
            "json",
        ],
        TOKEN,
        std::process::Stdio::from(log),
    );
    let mut server = Server { host, child, addr };
    let (id, handle, _) = server.record("exec:/bin/true");
    let (status, _) = server.call(
        "POST",
        &format!("/v1/deferrals/{id}/cancel"),
        serde_json::json!({ "handle": handle }),
    );
    assert_eq!(status, 200);
    let (status, _) = server.call_with(
        "GET",
        "/v1/deferrals/d%0a%1b[2J",
        Some("not-the-token-at-all"),
        "",
    );
    assert_eq!(status, 401);
    get_metrics(&server, Some(TOKEN));
    assert_eq!(
        server.terminate_within(std::time::Duration::from_secs(10)),
        Some(0)
    );
    let text = String::from_utf8(server.log()).unwrap();
    let lines = json_lines(&text, &[TOKEN, &handle, "not-the-token-at-all"]);
    let requests: Vec<_> = lines.iter().filter(|l| l["event"] == "request").collect();
    assert_eq!(requests.len(), 4, "{text}");
    assert_eq!(requests[0]["path"], "/v1/deferrals");
    assert_eq!(requests[0]["status"], 201);
    assert_eq!(requests[2]["status"], 401);
    assert_eq!(requests[2]["path"], "/v1/deferrals/d%0a%1b[2J");
    assert!(lines.iter().any(|l| l["message"] == "stopped"), "{text}");
}

#[test]
fn tick_logs_json_lines_without_handles() {
    let host = Host::new();
    let seen = host.path("handle.txt");
    let ok = script(
        &host.path("ok.sh"),
        &format!(
            "printf %s \"$DEFERRAL_WAKEUP_HANDLE\" > '{}'; exit 0",
            seen.display()
        ),
    );
    let fails = script(&host.path("fails.sh"), "exit 3");
    let (_, cancel_ok) = host.record(&ok, 0, HOUR, &[]);
    let (_, cancel_fails) = host.record(&fails, 0, HOUR, &[]);
    let out = host.run(&["tick", "--log-format", "json"], "");
    assert_eq!(out.status.code(), Some(0));
    let wakeup = std::fs::read_to_string(&seen).unwrap();
    assert!(wakeup.len() >= 32, "the launch got its wake-up handle");
    let text = String::from_utf8(out.stderr).unwrap();
    let lines = json_lines(&text, &[&wakeup, &cancel_ok, &cancel_fails]);
    let events: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(
        events,
        [
            "planned",
            "launching",
            "launched",
            "launching",
            "launched",
            "summary"
        ],
        "{text}"
    );
    let states: Vec<&Value> = lines
        .iter()
        .filter(|l| l["event"] == "launched")
        .map(|l| &l["state"])
        .collect();
    assert!(
        states.contains(&&Value::from("complete")) && states.contains(&&Value::from("blocked")),
        "{text}"
    );
    assert_eq!(lines.last().unwrap()["launched"], 2);

    // An error ends the run as a JSON line too.
    let host = Host::uncreated();
    std::fs::create_dir(&host.db).unwrap();
    let out = host.run(&["tick", "--log-format", "json"], "");
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&String::from_utf8(out.stderr).unwrap(), &[]);
    assert_eq!(lines.last().unwrap()["level"], "error");
    assert!(lines.last().unwrap()["code"].is_string());
}

#[test]
fn tick_counts_github_requests_by_kind_and_status_and_304s_apart() {
    use common::github::{Script, Standin, TARGET, TOKEN as GITHUB_TOKEN};
    let host = Host::new();
    let standin = Standin::start();
    // The run stays in progress: later lists of it answer 304.
    standin.script(Script {
        polls_in_progress: 10,
        ..Script::default()
    });
    host.record(TARGET, 0, HOUR, &[]);
    let file = host.path("deferral.prom");
    let mut kinds_seen = std::collections::BTreeSet::new();
    let mut not_modified_seen = 0.0;
    for pass in 0..3 {
        let out = host
            .command(&[
                "tick",
                "--quiet",
                "--http-timeout",
                "5s",
                "--metrics-file",
                file.to_str().unwrap(),
            ])
            .env_remove("HTTPS_PROXY")
            .env_remove("https_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .env_remove("ALL_PROXY")
            .env_remove("all_proxy")
            .env("GITHUB_TOKEN", GITHUB_TOKEN)
            .env("GITHUB_API_URL", &standin.api)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(GITHUB_TOKEN));
        let metrics = exposition::parse(&text);
        let requests: Vec<_> = metrics
            .samples
            .iter()
            .filter(|s| s.name == "deferral_host_tick_github_requests")
            .collect();
        let total: f64 = requests.iter().map(|s| s.value).sum();
        let github = &report["github"];
        let reported = github["requests"].as_f64().unwrap()
            + github["not_modified"].as_f64().unwrap()
            + github["blob"].as_f64().unwrap();
        assert_eq!(total, reported, "pass {pass}: {text}\n{report}");
        let not_modified: f64 = requests
            .iter()
            .filter(|s| s.labels["status"] == "304")
            .map(|s| s.value)
            .sum();
        assert_eq!(
            not_modified,
            github["not_modified"].as_f64().unwrap(),
            "pass {pass}"
        );
        not_modified_seen += not_modified;
        kinds_seen.extend(requests.iter().map(|s| s.labels["kind"].clone()));
        if pass == 0 {
            let dispatched = metrics.value(
                "deferral_host_tick_launches",
                &[("kind", "workflow-dispatch"), ("outcome", "dispatched")],
            );
            assert_eq!(dispatched, Some(1.0), "{text}");
        }
    }
    assert!(kinds_seen.contains("dispatch"), "{kinds_seen:?}");
    assert!(
        !kinds_seen.contains("other"),
        "every call has its kind: {kinds_seen:?}"
    );
    assert!(
        not_modified_seen >= 1.0,
        "the unchanged run answered 304: {kinds_seen:?}"
    );
}
