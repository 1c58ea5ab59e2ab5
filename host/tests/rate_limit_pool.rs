//! `tick --rate-limit-pool NAME`: before admission the host reads `GET /rate_limit` with its own
//! credentials (the loopback stand-in answers GitHub's documented shape, and, as GitHub, does
//! not count that call) and teaches the pool what is left, source `host rate_limit`; a spent
//! window holds the pool's deferrals; GitHub Enterprise Server without rate limiting teaches
//! nothing; a GitHub App reads its installation's quota through `--rate-limit-repo`.

mod common;

use common::github::{Standin, REPO, TOKEN};
use common::github_cli::run_host;
use common::{now, Host, HOUR};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn pool<'a>(pools: &'a Value, name: &str) -> Option<&'a Value> {
    pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == name)
}

/// Records a gate line due now in `pool`: 10 REST, a 5,000 window with `remaining` left and a
/// reserve of 5, resetting in ten minutes.
fn record_line(host: &Host, pool: &str, remaining: u64) -> String {
    let receipt = deferral_host_conformance::distinct_handoff(now(), 0, HOUR).to_json();
    let reset_s = now() / 1000 + 600;
    let line = format!(
        r#"{{"status":"deferred","mode":"gate","rest":{{"limit":5000,"remaining":{remaining},"reserve":5,"plannedCost":10,"reset":{reset_s},"ok":false}},"graphql":null,"plan":{{"rest":10,"graphql":0}},"deferredReceipt":{receipt}}}"#
    );
    let out = host.expect(
        0,
        &["record", "--launch", "exec:/bin/true", "--pool", pool, "-"],
        &line,
    );
    out["id"].as_str().unwrap().to_string()
}

fn tick(host: &Host, standin: &Standin, extra: &[&str]) -> Value {
    let mut args = vec!["tick", "--http-timeout", "5s", "--pool-jitter", "0s"];
    args.extend_from_slice(extra);
    let (out, text) = run_host(host, standin, &args);
    assert!(out.status.success(), "{text}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn tick_teaches_the_pool_what_get_rate_limit_says_before_admission() {
    let host = Host::new();
    let standin = Standin::start();
    standin.state.lock().unwrap().remaining = 4321;
    standin.state.lock().unwrap().graphql_remaining = 4990;
    // The pool knew an older window, nearly spent: the host's reading is a later window.
    let id = record_line(&host, "user-octo", 12);
    let report = tick(&host, &standin, &["--rate-limit-pool", "user-octo"]);
    let learned = &report["rate_limit"];
    assert_eq!(learned["pool"], "user-octo", "{report}");
    assert_eq!(learned["learned"], true, "{report}");
    assert_eq!(
        learned["rest"]["remaining"], 4321,
        "the stand-in's core bucket: {report}"
    );
    assert_eq!(
        learned["rest"]["reserve"], 5,
        "the reserve the pool's gates keep"
    );
    assert_eq!(
        learned["graphql"]["reserve"], 500,
        "a window the pool never saw gets --github-reserve (10% of 5,000)"
    );
    assert_eq!(report["launched"][0]["id"], id, "{report}");
    let seen = standin.seen();
    let call = seen
        .iter()
        .find(|s| s.path == "/rate_limit")
        .expect("GET /rate_limit was called");
    assert_eq!(call.method, "GET");
    assert_eq!(
        call.authorization.as_deref(),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(
        standin.state.lock().unwrap().remaining,
        4321,
        "the call did not count against the primary limit"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let p = pool(&pools, "user-octo").unwrap();
    assert_eq!(p["rest"]["limit"], 5000, "{p}");
    assert_eq!(p["rest"]["source"], "host rate_limit", "{p}");
    assert_eq!(p["graphql"]["remaining"], 4990, "{p}");
    // Another pool is not taught (an idle pool is not even listed).
    assert!(
        pool(&pools, "default").is_none_or(|p| p["rest"].is_null()),
        "{pools}"
    );
}

#[test]
fn a_spent_window_by_get_rate_limit_holds_the_pools_deferrals() {
    let host = Host::new();
    let standin = Standin::start();
    // 100 left of 5,000, below the 10% reserve: nothing of this pool may start.
    standin.state.lock().unwrap().remaining = 100;
    let (id, _) = host.record("exec:/bin/true", 0, HOUR, &["--pool", "user-octo"]);
    let report = tick(&host, &standin, &["--rate-limit-pool", "user-octo"]);
    assert_eq!(report["launched"], json!([]), "{report}");
    assert_eq!(report["held"][0]["ids"], json!([id]), "{report}");
    let status = host.status(&id);
    assert_eq!(status["state"], "deferred");
    assert_eq!(status["reentries"], 0, "no re-entry spent: {status}");
    // Without the flag the pool knows nothing and the bare receipt would have launched.
    let other = Host::new();
    let (id, _) = other.record("exec:/bin/true", 0, HOUR, &["--pool", "user-octo"]);
    let report = tick(&other, &standin, &[]);
    assert_eq!(report["launched"][0]["id"], id, "{report}");
    assert_eq!(report["rate_limit"], Value::Null);
}

#[test]
fn enterprise_server_without_rate_limiting_teaches_nothing() {
    let host = Host::new();
    let standin = Standin::start();
    standin.state.lock().unwrap().rate_limit_answer = Some((
        404,
        json!({"message": "Rate limiting is not enabled.", "documentation_url": "https://docs.github.com/enterprise-server@3.14/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user"}),
    ));
    let (id, _) = host.record("exec:/bin/true", 0, HOUR, &["--pool", "ghes"]);
    let report = tick(&host, &standin, &["--rate-limit-pool", "ghes"]);
    assert_eq!(report["rate_limit"]["unlimited"], true, "{report}");
    assert_eq!(report["launched"][0]["id"], id, "{report}");
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    assert!(pool(&pools, "ghes").unwrap()["rest"].is_null(), "{pools}");
    // The other answer GitHub Enterprise Server gives without a limit (a user it exempts): the
    // same rule as the gate's (`deferral_core::signals::is_unlimited_answer`).
    standin.state.lock().unwrap().rate_limit_answer = Some((
        200,
        json!({"message": "No rate limit for white listed users"}),
    ));
    let (id, _) = host.record("exec:/bin/true", 0, HOUR, &["--pool", "ghes"]);
    let report = tick(&host, &standin, &["--rate-limit-pool", "ghes"]);
    assert_eq!(report["rate_limit"]["unlimited"], true, "{report}");
    assert_eq!(report["launched"][0]["id"], id, "{report}");
    // Another failure is reported and changes nothing; the tick still launches.
    standin.state.lock().unwrap().rate_limit_answer =
        Some((500, json!({"message": "Server Error"})));
    let (id, _) = host.record("exec:/bin/true", 0, HOUR, &["--pool", "ghes"]);
    let report = tick(&host, &standin, &["--rate-limit-pool", "ghes"]);
    assert_eq!(
        report["rate_limit"]["error"]["code"], "github-error",
        "{report}"
    );
    assert_eq!(report["launched"][0]["id"], id, "{report}");
}

/// A fresh RSA key pair for this test: (private PEM path, public PEM bytes).
fn key_pair(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let private = dir.join("app-key.pem");
    let public = dir.join("app-key.pub.pem");
    for args in [
        vec![
            "genrsa",
            "-traditional",
            "-out",
            private.to_str().unwrap(),
            "2048",
        ],
        vec![
            "rsa",
            "-pubout",
            "-in",
            private.to_str().unwrap(),
            "-out",
            public.to_str().unwrap(),
        ],
    ] {
        let status = Command::new("openssl")
            .args(&args)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("openssl is installed");
        assert!(status.success());
    }
    (private, std::fs::read(public).unwrap())
}

#[test]
fn a_github_app_reads_the_quota_of_the_installation_of_rate_limit_repo() {
    let host = Host::new();
    host.expect(0, &["init"], "");
    let (private, public) = key_pair(host.dir.path());
    let standin = Standin::start();
    {
        let mut state = standin.state.lock().unwrap();
        state.app_public_key = Some(public);
        state.app_id = "4242".into();
        state.remaining = 4000;
    }
    let app = |extra: &[&str]| {
        let mut args = vec![
            "tick",
            "--http-timeout",
            "5s",
            "--github-app-id",
            "4242",
            "--github-app-key",
            private.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        host.command(&args)
            .env("GITHUB_API_URL", &standin.api)
            .output()
            .unwrap()
    };
    let out = app(&["--rate-limit-pool", "app-7"]);
    assert_eq!(out.status.code(), Some(2));
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "invalid-github", "{error}");
    // Nothing of the pool is due: the host does not read the quota.
    let out = app(&["--rate-limit-pool", "app-7", "--rate-limit-repo", REPO]);
    let idle: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(idle["rate_limit"].is_null(), "{idle}");
    assert!(
        !standin
            .seen()
            .iter()
            .any(|s| s.path.starts_with("/rate_limit")),
        "no GET /rate_limit while nothing is due"
    );
    record_line(&host, "app-7", 12);
    let out = app(&["--rate-limit-pool", "app-7", "--rate-limit-repo", REPO]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let state = standin.state.lock().unwrap();
    assert_eq!(
        report["rate_limit"]["rest"]["remaining"], state.remaining,
        "what the stand-in had left after the token exchange: {report}"
    );
    let token = &state.installation_tokens[0].0;
    let call = state
        .seen
        .iter()
        .find(|s| s.path == "/rate_limit")
        .expect("GET /rate_limit");
    assert_eq!(
        call.authorization.as_deref(),
        Some(format!("Bearer {token}").as_str()),
        "with the installation's token"
    );
    assert!(
        state
            .seen
            .iter()
            .any(|s| s.path == format!("/repos/{REPO}/installation")),
        "the installation of --rate-limit-repo"
    );
}

#[test]
fn bad_rate_limit_options_have_their_codes() {
    let host = Host::new();
    let standin = Standin::start();
    for (args, code) in [
        (vec!["tick", "--rate-limit-pool", "a b"], "invalid-pool"),
        (vec!["tick", "--rate-limit-repo", REPO], "invalid-github"),
        (
            vec![
                "tick",
                "--rate-limit-pool",
                "p",
                "--rate-limit-repo",
                "nope",
            ],
            "invalid-repo",
        ),
    ] {
        let (out, text) = run_host(&host, &standin, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        let error: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(error["error"]["code"], code, "{args:?}: {error}");
    }
    // Without credentials there is nothing to read with.
    let out = host.expect(2, &["tick", "--rate-limit-pool", "p"], "");
    assert_eq!(out["error"]["code"], "no-github-credentials", "{out}");
    assert!(standin.seen().is_empty(), "nothing was asked of GitHub");
}
