//! A commit status for a deferral recorded through the port (the Action's `coordinator-commit`),
//! through the real `deferral-host run --commit-status-port` against the GitHub stand-in on
//! loopback: `POST /v1/deferrals` with `commit` beside the receipt; the commit shows the
//! deferral `pending` while it waits and `success` once its launch completes, each once; a
//! commit that does not check is refused 400 before anything is recorded; `run` without
//! credentials refuses the flag.

mod common;

use common::github::{Standin, REPO};
use common::webhook::{within, HookServe};
use common::{now, Host, HOUR};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::time::Duration;

/// One request to the port with its bearer token: status and JSON answer.
fn post(run: &HookServe, path: &str, body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let mut stream = std::net::TcpStream::connect(&run.addr).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        common::server::TOKEN,
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

/// `run --commit-status-port`, taking `exec:` launches, against the stand-in.
fn run_with_statuses(host: &Host, standin: &Standin) -> HookServe {
    HookServe::start_command(
        host,
        standin,
        "run",
        &["--allow-launch", "exec:", "--commit-status-port"],
    )
}

fn sha(n: u8) -> String {
    format!("{n:02x}").repeat(20)
}

fn statuses_of(standin: &Standin, sha: &str) -> Vec<(String, String)> {
    standin
        .state
        .lock()
        .unwrap()
        .commit_statuses
        .iter()
        .filter(|p| p.sha == sha)
        .map(|p| (p.state.clone(), p.context.clone()))
        .collect()
}

#[test]
fn a_port_record_with_a_commit_shows_on_that_commit_from_pending_to_success() {
    let host = Host::new();
    let standin = Standin::start();
    let run = run_with_statuses(&host, &standin);
    let context = "deferral/label-sync";
    // Waits an hour: pending.
    let waiting = deferral_host_conformance::distinct_handoff(now(), HOUR, 2 * HOUR).to_json();
    let body = json!({"receipt": serde_json::from_str::<Value>(&waiting).unwrap(),
        "launch": "exec:/bin/true",
        "commit": {"repo": REPO, "sha": sha(1).to_uppercase(), "context": context}});
    let (status, answer) = post(&run, "/v1/deferrals", &body);
    assert_eq!(status, 201, "{answer}\n{}", run.log_text());
    // Due now: launched, complete, success.
    let due = deferral_host_conformance::distinct_handoff(now() - 1000, 0, HOUR).to_json();
    let body = json!({"receipt": serde_json::from_str::<Value>(&due).unwrap(),
        "launch": "exec:/bin/true",
        "commit": {"repo": REPO, "sha": sha(2), "context": context}});
    let (status, answer) = post(&run, "/v1/deferrals", &body);
    assert_eq!(status, 201, "{answer}");
    let done = answer["id"].as_str().unwrap().to_string();
    let seen = within(Duration::from_secs(15), || {
        let first = statuses_of(&standin, &sha(1));
        let second = statuses_of(&standin, &sha(2));
        let ended = second.last().is_some_and(|(s, _)| s == "success");
        (!first.is_empty() && ended).then_some((first, second))
    });
    let (first, second) = seen.unwrap_or_else(|| {
        panic!(
            "{:#?}\n{}",
            standin.state.lock().unwrap().commit_statuses,
            run.log_text()
        )
    });
    assert_eq!(first, [("pending".to_string(), context.to_string())]);
    assert!(
        second.len() <= 3 && second.iter().all(|(_, c)| c == context),
        "{second:?}"
    );
    assert_eq!(host.status(&done)["state"], "complete");
}

#[test]
fn a_commit_that_does_not_check_is_refused_and_nothing_is_recorded() {
    let host = Host::new();
    let standin = Standin::start();
    let run = run_with_statuses(&host, &standin);
    let receipt = deferral_host_conformance::distinct_handoff(now(), HOUR, 2 * HOUR).to_json();
    let receipt: Value = serde_json::from_str(&receipt).unwrap();
    for (commit, says) in [
        (
            json!({"repo": REPO, "sha": "abc123", "context": "deferral/x"}),
            "sha",
        ),
        (
            json!({"repo": "no-slash", "sha": sha(3), "context": "deferral/x"}),
            "repo",
        ),
        (
            json!({"repo": REPO, "sha": sha(3), "context": "ci/build"}),
            "context",
        ),
        (
            json!({"repo": REPO, "sha": sha(3), "context": "deferral/x", "extra": 1}),
            "commit",
        ),
        (json!("a string"), "commit"),
    ] {
        let body = json!({"receipt": receipt, "launch": "exec:/bin/true", "commit": commit});
        let (status, answer) = post(&run, "/v1/deferrals", &body);
        assert_eq!(status, 400, "{commit}: {answer}");
        assert_eq!(answer["error"]["code"], "invalid-request", "{answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains(says),
            "{commit}: {answer}"
        );
    }
    let listed = host.expect(0, &["status", "--json"], "");
    assert_eq!(listed["deferrals"], json!([]), "{listed}");
}

#[test]
fn run_refuses_commit_statuses_without_github_credentials() {
    let host = Host::new();
    let out = host
        .command(&["run", "--listen", "127.0.0.1:0", "--commit-status-port"])
        .env("DEFERRAL_SERVE_TOKEN", common::server::TOKEN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let line: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(line["error"]["code"], "no-github-credentials", "{out:?}");
}
