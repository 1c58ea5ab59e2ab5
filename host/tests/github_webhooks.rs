//! GitHub's webhooks through the real `deferral-host serve`, against the GitHub stand-in on
//! loopback: a signed `workflow_run` `completed` delivery ends its dispatched deferral within
//! 2 s with no request for the run itself; a wrong or missing signature changes nothing (401);
//! the same delivery twice has one effect; a run whose delivery never comes is still followed
//! by `tick`; a watched repository's trusted run has its receipt ingested, a fork's never.

mod common;

use common::github::{zip_of, Origin, Script, Standin, REPO, TARGET};
use common::github_cli::{receipt, tick};
use common::signing::sign;
use common::webhook::{completions, refuses_each, run_polls, within, HookServe, SECRET};
use common::{Host, HOUR};
use std::time::{Duration, Instant};

#[test]
fn a_signed_completed_delivery_ends_its_deferral_within_2s_without_a_poll_of_its_run() {
    delivered_and_complete(Host::new());
}

#[test]
fn postgres_a_signed_completed_delivery_ends_its_deferral() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    delivered_and_complete(Host::with_store(&schema.url).init());
}

fn delivered_and_complete(host: Host) {
    let standin = Standin::start();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    let run_id = standin.last_run_id();
    let serve = HookServe::start(&host, &standin, &[]);
    let before = standin.seen().len();
    let body = standin.completed_delivery(run_id).to_string();
    let sent = Instant::now();
    let (status, answer) = serve.deliver_signed("workflow_run", "delivery-1", body.as_bytes());
    assert_eq!(
        (status, &answer["queued"]),
        (200, &serde_json::json!(true)),
        "{answer}"
    );
    let ended = within(Duration::from_secs(2), || {
        (host.status(&id)["state"] == "complete").then(Instant::now)
    });
    assert!(
        ended.is_some(),
        "not complete within 2 s of the delivery: {} {}",
        host.status(&id),
        serve.log_text()
    );
    assert!(ended.unwrap() - sent < Duration::from_secs(2));
    assert_eq!(run_polls(&standin, before, run_id), Vec::<String>::new());
    let asked: Vec<String> = standin.seen()[before..]
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert_eq!(
        asked,
        vec![format!(
            "/repos/{REPO}/actions/runs/{run_id}/artifacts?name=deferred-receipt"
        )],
        "its artifacts only"
    );
    // GitHub redelivers with the same X-GitHub-Delivery: answered, and nothing happens.
    let (status, answer) = serve.deliver_signed("workflow_run", "delivery-1", body.as_bytes());
    assert_eq!(
        (status, &answer["already"]),
        (200, &serde_json::json!(true)),
        "{answer}"
    );
    let log = common::webhook::within(Duration::from_secs(2), || {
        let text = serve.log_text();
        text.contains("webhook delivery-1: run").then_some(text)
    });
    assert!(log.is_some(), "the worker logs what it did");
    assert_eq!(standin.seen().len(), before + 1, "no second effect");
    assert_eq!(completions(&host, &id), 1);
}

#[test]
fn a_wrong_or_missing_signature_changes_nothing() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    let run_id = standin.last_run_id();
    let serve = HookServe::start(&host, &standin, &[]);
    let body = refuses_each(
        &serve,
        &host,
        &standin,
        (&id, run_id),
        "delivery-2",
        |body| {
            vec![
                None,
                Some(sign("not-the-secret", body)),
                Some(sign(SECRET, b"another body")),
                Some("sha256=".to_string()),
            ]
        },
    );
    // Nothing was stored: the same delivery, signed, is the first.
    let (status, answer) = serve.deliver_signed("workflow_run", "delivery-2", body.as_bytes());
    assert_eq!(
        (status, &answer["queued"]),
        (200, &serde_json::json!(true)),
        "{answer}"
    );
    assert!(within(Duration::from_secs(2), || (host.status(&id)["state"]
        == "complete")
        .then_some(()))
    .is_some());
}

#[test]
fn ping_other_events_and_other_actions_are_answered_and_ignored() {
    let standin = Standin::start();
    let host = Host::new();
    let serve = HookServe::start(&host, &standin, &[]);
    let (status, _) = serve.deliver_signed(
        "ping",
        "p-1",
        br#"{"zen":"Keep it logically awesome.","hook_id":1}"#,
    );
    assert_eq!(status, 200);
    let (status, answer) = serve.deliver_signed("push", "p-2", br#"{"ref":"refs/heads/main"}"#);
    assert_eq!(status, 202, "{answer}");
    let requested = br#"{"action":"requested","workflow_run":{"id":7}}"#;
    let (status, answer) = serve.deliver_signed("workflow_run", "p-3", requested);
    assert_eq!(status, 202, "{answer}");
    assert!(standin.seen().is_empty());
    // Over the limit (25 MiB): 413 before the body is read.
    let mut stream = std::net::TcpStream::connect(&serve.addr).unwrap();
    std::io::Write::write_all(
        &mut stream,
        format!("POST /v1/github/webhook HTTP/1.1\r\nHost: t\r\nX-GitHub-Event: workflow_run\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n", 25 * 1024 * 1024 + 1).as_bytes(),
    )
    .unwrap();
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    // A completed workflow_run that names no run: 400, nothing queued.
    let (status, answer) =
        serve.deliver_signed("workflow_run", "p-4", br#"{"action":"completed"}"#);
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &serde_json::json!("invalid-request"))
    );
    assert!(standin.seen().is_empty());
}

#[test]
fn a_run_whose_delivery_never_comes_is_followed_by_tick() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let _serve = HookServe::start(&host, &standin, &[]);
    tick(&host, &standin);
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    let polled = tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete", "{}", polled.output);
}

#[test]
fn a_watched_repositorys_trusted_run_is_ingested_and_a_forks_is_not() {
    let standin = Standin::start();
    let host = Host::new();
    host.expect(0, &["init"], "");
    let serve = HookServe::start(
        &host,
        &standin,
        &["--watch", REPO, "--watch-launch", TARGET],
    );
    let (trusted, _) = standin.scheduled_run_with_artifact(&receipt(HOUR / 2, 'd', 'e'), false);
    let fork = Origin {
        fork: true,
        ..Origin::schedule()
    };
    let (forked, _) = standin.run_with_artifact(fork, zip_of(&receipt(HOUR / 2, 'f', 'e')), false);
    for (n, run) in [(1, forked), (2, trusted)] {
        let body = standin.completed_delivery(run).to_string();
        let (status, answer) =
            serve.deliver_signed("workflow_run", &format!("w-{n}"), body.as_bytes());
        assert_eq!(status, 200, "{answer}");
    }
    let listed = within(Duration::from_secs(2), || {
        let all = host.expect(0, &["status", "--json"], "")["deferrals"].clone();
        (all.as_array().unwrap().len() == 1).then_some(all)
    });
    assert!(listed.is_some(), "{}", serve.log_text());
    let log = common::webhook::within(Duration::from_secs(2), || {
        let text = serve.log_text();
        (text.contains("w-1") && text.contains("w-2")).then_some(text)
    })
    .unwrap();
    assert!(log.contains("not trusted: fork"), "{log}");
    let downloads = standin
        .seen()
        .iter()
        .filter(|s| s.path.ends_with("/zip"))
        .count();
    assert_eq!(downloads, 1, "the fork's artifact is never downloaded");
}

#[test]
fn tick_follow_interval_leaves_a_fresh_run_to_its_webhook_and_polls_it_later() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    let dispatched = standin.seen().len();
    let every = ["tick", "--follow-interval", "3s"];
    let (out, text) = common::github_cli::run_host(&host, &standin, &every);
    assert!(out.status.success(), "{text}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["waiting"][0]["why"]
            .as_str()
            .unwrap_or_default()
            .contains("--follow-interval"),
        "{report}"
    );
    assert_eq!(
        standin.seen().len(),
        dispatched,
        "no list call within the interval"
    );
    // No delivery came: a pass after the interval follows the run.
    let followed = within(Duration::from_secs(15), || {
        let (out, _) = common::github_cli::run_host(&host, &standin, &every);
        assert!(out.status.success());
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(followed.is_some(), "{}", host.status(&id));
}
