//! Metric labels come from a closed list (issue 29 item 3): GitHub (or whatever answers in its
//! place on loopback) does not choose a `cause`, and every `serve` route has its own `route`.

mod common;

use common::exposition::{self, Exposition};
use common::github::{Script, Standin, TARGET};
use common::github_cli::{run_host, tick};
use common::server::Server;
use common::{Host, HOUR};
use serde_json::json;
use std::collections::BTreeSet;

const GITHUB_CAUSES: [&str; 11] = [
    "run-action_required",
    "run-cancelled",
    "run-failure",
    "run-neutral",
    "run-skipped",
    "run-stale",
    "run-startup_failure",
    "run-success",
    "run-timed_out",
    "run-other",
    "run-unknown",
];

fn causes(metrics: &Exposition) -> BTreeSet<String> {
    metrics
        .samples
        .iter()
        .filter(|s| s.name == "deferral_host_deferrals")
        .map(|s| s.labels["cause"].clone())
        .collect()
}

#[test]
fn made_up_conclusions_are_run_other_with_the_conclusion_bounded_in_the_detail() {
    let standin = Standin::start();
    let host = Host::new();
    let huge: &'static str = Box::leak("x".repeat(20_000).into_boxed_str());
    let mut made_up: Vec<&'static str> = (0..30)
        .map(|i| &*Box::leak(format!("made_up_{i}").into_boxed_str()))
        .collect();
    made_up.push(huge);
    made_up.push("forged\n::warning::line\u{202e}");
    let mut ids = Vec::new();
    for conclusion in made_up.iter().copied().chain(["failure"]) {
        let (id, _) = host.record(TARGET, 0, HOUR, &[]);
        standin.script(Script {
            conclusion,
            ..Script::default()
        });
        ids.push((id, conclusion));
    }
    tick(&host, &standin);
    let file = host.path("deferral.prom");
    let (out, output) = run_host(
        &host,
        &standin,
        &[
            "tick",
            "--http-timeout",
            "5s",
            "--metrics-file",
            file.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{output}");
    assert!(
        !output.contains("\n::warning::line") && !output.contains('\u{202e}'),
        "the tick's own lines show the conclusion escaped: {output}"
    );
    for (id, conclusion) in &ids {
        let status = host.status(id);
        let detail = status["detail"].as_str().unwrap();
        if *conclusion == "failure" {
            assert_eq!(status["cause"], "run-failure", "{status}");
            continue;
        }
        assert_eq!(
            (status["state"].as_str(), status["cause"].as_str()),
            (Some("blocked"), Some("run-other")),
            "{status}"
        );
        assert!(
            detail.contains("https://github.example/"),
            "the run's page: {detail}"
        );
        assert!(detail.len() < 200, "bounded: {} bytes", detail.len());
        assert!(
            !detail.contains('\n') && !detail.contains('\u{202e}'),
            "{detail:?}"
        );
        let kept: String = conclusion.chars().take(20).collect();
        let kept = kept.replace('\n', "\\u{a}");
        assert!(detail.contains(&kept), "the conclusion is kept: {detail}");
    }
    let metrics = exposition::parse(&std::fs::read_to_string(&file).unwrap());
    let seen = causes(&metrics);
    assert!(
        seen.iter()
            .all(|c| !c.starts_with("run-") || GITHUB_CAUSES.contains(&c.as_str())),
        "{seen:?}"
    );
    assert_eq!(
        metrics.value(
            "deferral_host_deferrals",
            &[("state", "blocked"), ("cause", "run-other")]
        ),
        Some(made_up.len() as f64)
    );
}

#[test]
fn a_cause_an_older_version_stored_unbounded_is_a_bounded_label() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    let (id, _) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    {
        // As an older host wrote a run's conclusion: straight into the cause.
        let conn = rusqlite::Connection::open(&host.db).unwrap();
        let cause = format!("run-{}", "y".repeat(20_000));
        conn.execute(
            "UPDATE deferrals SET cause = ?1 WHERE id = ?2",
            (&cause, &id),
        )
        .unwrap();
    }
    let file = host.path("deferral.prom");
    host.tick(&["--quiet", "--metrics-file", file.to_str().unwrap()]);
    let metrics = exposition::parse(&std::fs::read_to_string(&file).unwrap());
    assert_eq!(
        causes(&metrics),
        BTreeSet::from(["run-other".to_string()]),
        "{metrics:?}"
    );
}

#[test]
fn every_route_is_counted_under_its_own_label() {
    let server = Server::start(&["--allow-launch", "exec:/bin/true"]);
    let (id, _, _) = server.record("exec:/bin/true");
    let calls = [
        ("POST", "/v1/admissions".to_string(), "admissions"),
        ("POST", "/v1/admissions/1/release".to_string(), "release"),
        ("GET", "/v1/pools".to_string(), "pools"),
        ("POST", format!("/v1/deferrals/{id}/retry"), "retry"),
    ];
    let mut expected = Vec::new();
    for (method, path, route) in &calls {
        let (status, answer) = server.call(method, path, json!({}));
        expected.push((*route, status.to_string(), answer));
    }
    let metrics = exposition::parse(&server_metrics_text(&server));
    for (route, status, answer) in expected {
        assert_eq!(
            metrics.value(
                "deferral_host_http_requests_total",
                &[("route", route), ("status", &status)]
            ),
            Some(1.0),
            "{route} {status} ({answer})"
        );
    }
    let unknown: f64 = metrics
        .samples
        .iter()
        .filter(|s| s.name == "deferral_host_http_requests_total" && s.labels["route"] == "unknown")
        .map(|s| s.value)
        .sum();
    assert_eq!(unknown, 0.0, "none of them is unknown");
}

/// `GET /metrics` as raw text (the answer is not JSON).
fn server_metrics_text(server: &Server) -> String {
    use std::io::{Read, Write};
    let mut stream = server.connect();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        common::server::TOKEN
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.split_once("\r\n\r\n").unwrap().1.to_string()
}
