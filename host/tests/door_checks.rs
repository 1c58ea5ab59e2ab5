//! Mistakes caught at the door, through the real binary: an `exec:` program that is not there
//! (record, serve), a store path that names no store (every command but init; record, serve
//! and run in store_init.rs), `watch` without `OWNER/REPO` (before any request) and with `GH_TOKEN` only, a second
//! `cancel`, and misspelled commands and flags.

mod common;

use common::github::Standin;
use common::server::{error_code, Server};
use common::{now, script, sq, Host, HOUR};
use serde_json::{json, Value};

fn receipt() -> String {
    deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json()
}

#[test]
fn record_refuses_an_exec_program_that_is_not_there() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    let missing = format!("exec:{} --flag", host.path("resume-sync.sh").display());
    let plain = host.path("plain.sh");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let no_interpreter = script(&host.path("interp.sh"), "true");
    std::fs::write(host.path("interp.sh"), "#!/no/such/sh\n").unwrap();
    let cases = [
        (missing.clone(), "launch-not-found"),
        (format!("exec:{}", sq(&plain)), "launch-not-executable"),
        (
            format!("exec:{}", host.dir.path().display()),
            "launch-not-executable",
        ),
        (no_interpreter, "launch-not-found"),
    ];
    for (launch, code) in &cases {
        let out = host.expect(2, &["record", "--launch", launch, "-"], &receipt());
        assert_eq!(out["error"]["code"], *code, "{launch}: {out}");
        assert!(out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--no-check"));
    }
    assert_eq!(
        host.expect(0, &["status", "--json"], "")["deferrals"],
        json!([]),
        "nothing recorded"
    );
    // A target that lives on another ticker's machine: --no-check.
    let out = host.expect(
        0,
        &["record", "--launch", &missing, "--no-check", "-"],
        &receipt(),
    );
    assert!(out["id"].is_string());
    let good = script(&host.path("ok.sh"), "true");
    host.expect(0, &["record", "--launch", &good, "-"], &receipt());
}

#[test]
fn serve_refuses_an_exec_program_that_is_not_there() {
    let host = Host::new();
    let missing = format!("exec:{}", host.path("nope").display());
    // An allowed program that is missing: serve does not start.
    let mut child = host
        .command(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--allow-launch",
            &missing,
        ])
        .env("DEFERRAL_SERVE_TOKEN", common::server::TOKEN)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "serve must refuse to start");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["error"]["code"], "launch-not-found", "{answer}");
    let server = Server::start_on(host, &["--allow-launch", "exec:"]);
    let body = |launch: &str| json!({"receipt": serde_json::from_str::<Value>(&receipt()).unwrap(), "launch": launch});
    let (status, out) = server.call("POST", "/v1/deferrals", body(&missing));
    assert_eq!(
        (status, error_code(&out)),
        (422, "launch-not-found"),
        "{out}"
    );
    assert_eq!(server.count(), 0);
    let (status, _) = server.call("POST", "/v1/deferrals", body("exec:/bin/true"));
    assert_eq!(status, 201);
    drop(server);
    let server = Server::start(&["--allow-launch", "exec:", "--no-check"]);
    let missing = format!("exec:{}", server.host.path("nope").display());
    let (status, out) = server.call("POST", "/v1/deferrals", body(&missing));
    assert_eq!(status, 201, "--no-check: {out}");
}

#[test]
fn commands_refuse_a_store_that_does_not_exist() {
    let dir = Host::new();
    let typo = dir.path("hots.db");
    let host = Host::with_store(&format!("sqlite:{}", typo.display()));
    for args in [
        vec!["tick"],
        vec!["status"],
        vec!["show", "d_x"],
        vec!["cancel", "d_x", "--handle", "h"],
        vec!["retry", "d_x", "--handle", "h"],
        vec![
            "report",
            "d_x",
            "--attempt",
            "1",
            "--outcome",
            "complete",
            "--handle",
            "h",
        ],
    ] {
        let out = host.expect(2, &args, "");
        assert_eq!(out["error"]["code"], "store-not-found", "{args:?}: {out}");
        let message = out["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&typo.display().to_string()) && message.contains("init"),
            "{message}"
        );
        assert!(!typo.exists(), "{args:?} made no store");
    }
    let out = host.expect(0, &["init"], "");
    assert_eq!(out["created"], true);
    assert_eq!(host.expect(0, &["init"], "")["created"], false);
    host.expect(0, &["tick"], "");
    host.expect(0, &["status"], "");
}

#[test]
fn postgres_without_the_schema_is_store_not_found() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    let host = Host::with_store(&schema.url);
    let out = host.expect(2, &["tick"], "");
    assert_eq!(out["error"]["code"], "store-not-found", "{out}");
    assert!(
        !out.to_string().contains("postgres://"),
        "the URL may hold a password"
    );
    let mut client = schema.client();
    let tables: i64 = client
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1",
            &[&schema.name],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 0, "nothing created");
    assert_eq!(host.expect(0, &["init"], "")["created"], true);
    host.expect(0, &["status"], "");
}

#[test]
fn watch_checks_the_repository_before_any_request_and_reads_gh_token() {
    let standin = Standin::start();
    let host = Host::new();
    host.expect(0, &["init"], "");
    for repo in [
        "octo",
        "octo/app/x",
        "octo/",
        "octo!/app",
        "octo/a b",
        "octo/..",
    ] {
        let out = host
            .command(&[
                "watch",
                repo,
                "--launch",
                "workflow-dispatch:octo/app/r.yml@main",
            ])
            .env("GITHUB_TOKEN", "test-token-not-real")
            .env("GITHUB_API_URL", &standin.api)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{repo}");
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(answer["error"]["code"], "invalid-repo", "{repo}: {answer}");
    }
    assert!(standin.seen().is_empty(), "no request was made");
    // GH_TOKEN alone is a token, as for the deferral CLI.
    let out = host
        .command(&[
            "watch",
            common::github::REPO,
            "--launch",
            common::github::TARGET,
        ])
        .env("GH_TOKEN", common::github::TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let seen = standin.seen();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|s| s
            .authorization
            .as_deref()
            .is_some_and(|a| a.ends_with(common::github::TOKEN))),
        "{seen:?}"
    );
}

#[test]
fn a_second_cancel_says_already_cancelled() {
    let host = Host::new();
    let (id, handle) = host.record("exec:/bin/true", HOUR, 2 * HOUR, &[]);
    let first = host.expect(0, &["cancel", &id, "--handle", &handle], "");
    assert_eq!(first["state"], "cancelled");
    assert_eq!(first.get("already_cancelled"), None);
    let events = host.expect(0, &["show", "--json", &id], "")["events"].clone();
    let out = host.run(&["cancel", &id, "--handle", &handle], "");
    assert_eq!(out.status.code(), Some(0));
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            again["state"].as_str(),
            again["already_cancelled"].as_bool()
        ),
        (Some("cancelled"), Some(true))
    );
    let message = again["message"].as_str().unwrap();
    assert!(
        message.starts_with("already cancelled (by operator at 20"),
        "{message}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("already cancelled"));
    assert_eq!(
        host.expect(0, &["show", "--json", &id], "")["events"],
        events,
        "nothing written"
    );
    // Still proven by the handle; an ended deferral of another kind is still refused.
    let wrong = deferral_host::handle::new_handle();
    assert_eq!(
        host.expect(5, &["cancel", &id, "--handle", &wrong], "")["error"]["code"],
        "wrong-handle"
    );
    let (done, done_handle) = host.record("exec:/bin/true", 0, HOUR, &[]);
    host.tick(&[]);
    let out = host.expect(5, &["cancel", &done, "--handle", &done_handle], "");
    assert_eq!(out["error"]["code"], "illegal-transition");
    // Through serve: 200 with the same answer.
    let server = Server::start_on(host, &[]);
    let (status, out) = server.call(
        "POST",
        &format!("/v1/deferrals/{id}/cancel"),
        json!({"handle": handle}),
    );
    assert_eq!(
        (status, out["already_cancelled"].as_bool()),
        (200, Some(true)),
        "{out}"
    );
}

#[test]
fn misspelled_commands_and_flags_get_a_suggestion() {
    let host = Host::new();
    for (args, code, tip) in [
        (vec!["statsu"], "unknown-command", "'status'"),
        (vec!["status", "--jsno"], "unknown-flag", "'--json'"),
        (
            vec!["record", "--lanch", "exec:/bin/true", "-"],
            "unknown-flag",
            "'--launch'",
        ),
    ] {
        let out = host.expect(2, &args, "");
        assert_eq!(out["error"]["code"], code, "{args:?}");
        let message = out["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("similar") && message.contains(tip),
            "{args:?}: {message}"
        );
    }
}
