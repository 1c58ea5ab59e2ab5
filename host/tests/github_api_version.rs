//! `--github-api-version`: the host speaks REST API version 2022-11-28 (the default) or
//! 2026-03-10 to a stand-in that checks `X-GitHub-Api-Version` on every request. Under
//! 2026-03-10 the dispatch sends no `return_run_details` and reads the run from the 200, and
//! `GET /rate_limit` (no top-level `rate`) is read from `resources`. Under both, an artifact
//! whose `digest` does not match its downloaded zip is `artifact-unreadable`, never opened.
//! (`github_loop` runs whole against a 2026-03-10 stand-in too: scripts/test.sh.)

mod common;

use common::github::{Script, Standin, TARGET};
use common::github_cli::{receipt, run_host, tick};
use common::{Host, HOUR};

#[test]
fn under_2026_03_10_the_dispatch_reads_the_run_from_its_200_and_asks_for_no_details() {
    let standin = Standin::speaking("2026-03-10");
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let first = tick(&host, &standin);
    let launched = &first.json["launched"][0];
    assert_eq!(launched["attempt_status"], "dispatched", "{}", first.output);
    assert!(
        launched["run_url"]
            .as_str()
            .is_some_and(|u| u.contains("/actions/runs/")),
        "the run from the dispatch's answer: {}",
        first.output
    );
    let posts: Vec<_> = standin
        .seen()
        .into_iter()
        .filter(|s| s.method == "POST")
        .collect();
    assert_eq!(posts.len(), 1, "one dispatch, never sent again");
    assert!(
        !posts[0].body.contains("return_run_details"),
        "{}",
        posts[0].body
    );
    let second = tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete", "{}", second.output);
    assert!(
        standin.seen().iter().all(|s| s.status != 400),
        "{:?}",
        standin.seen()
    );
}

#[test]
fn under_2022_11_28_the_dispatch_still_asks_for_run_details() {
    let standin = Standin::speaking("2022-11-28");
    let host = Host::new();
    host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    tick(&host, &standin);
    let post = standin
        .seen()
        .into_iter()
        .find(|s| s.method == "POST")
        .unwrap();
    assert!(
        post.body.contains("\"return_run_details\":true"),
        "{}",
        post.body
    );
}

#[test]
fn rate_limit_is_read_from_resources_without_rate() {
    let standin = Standin::speaking("2026-03-10");
    standin.state.lock().unwrap().remaining = 4321;
    let host = Host::new();
    run_host(&host, &standin, &["init"]);
    // The host reads the quota only while something of the pool is due.
    let due = |host: &Host| {
        let receipt = deferral_host_conformance::distinct_handoff(common::now(), 0, HOUR).to_json();
        host.expect(
            0,
            &[
                "record",
                "--launch",
                "exec:/bin/true",
                "--pool",
                "user-octo",
                "-",
            ],
            &receipt,
        );
    };
    due(&host);
    let (out, text) = run_host(
        &host,
        &standin,
        &[
            "tick",
            "--rate-limit-pool",
            "user-octo",
            "--pool-jitter",
            "0s",
        ],
    );
    assert!(out.status.success(), "{text}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["rate_limit"]["learned"], true, "{report}");
    assert_eq!(report["rate_limit"]["rest"]["remaining"], 4321, "{report}");
    // A bucket that vanished (no core, no graphql, an unknown one) fails nothing.
    standin.state.lock().unwrap().rate_limit_answer = Some((
        200,
        serde_json::json!({"resources": {"brand_new": {"limit": 9, "used": 0, "remaining": 9, "reset": 1}}}),
    ));
    due(&host);
    let (out, text) = run_host(&host, &standin, &["tick", "--rate-limit-pool", "user-octo"]);
    assert!(out.status.success(), "{text}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["rate_limit"]["learned"], false, "{report}");
}

#[test]
fn the_version_header_is_what_the_flag_says_and_anything_else_is_refused() {
    // The host speaks 2022-11-28 to a stand-in that wants 2026-03-10: every call is refused.
    let standin = Standin::speaking("2026-03-10");
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    let out = host
        .command(&["tick"])
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .env_remove("DEFERRAL_GITHUB_API_VERSION")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        host.status(&id)["state"],
        "blocked",
        "a 400 refuses the dispatch"
    );
    assert!(standin.seen().iter().all(|s| s.status == 400));
    // An unknown version is a clear error before anything is sent.
    let out = host
        .command(&["tick", "--github-api-version", "2024-01-01"])
        .env("GITHUB_TOKEN", common::github::TOKEN)
        .env("GITHUB_API_URL", &standin.api)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "invalid-github", "{error}");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("2026-03-10"));
}

#[test]
fn an_artifact_whose_digest_does_not_match_is_unreadable_under_both_versions() {
    for version in ["2022-11-28", "2026-03-10"] {
        let standin = Standin::speaking(version);
        let host = Host::new();
        let (id, _) = host.record(TARGET, 0, HOUR, &[]);
        standin.script(Script {
            artifact: Some(receipt(HOUR / 2, 'a', 'b')),
            artifact_digest: Some(format!("sha256:{}", "0".repeat(64))),
            ..Script::default()
        });
        tick(&host, &standin);
        let followed = tick(&host, &standin);
        let status = host.status(&id);
        assert_eq!(
            (status["state"].as_str(), status["cause"].as_str()),
            (Some("blocked"), Some("artifact-unreadable")),
            "{version}: {}",
            followed.output
        );
        assert!(
            status["detail"].as_str().unwrap().contains("digest"),
            "{status}"
        );
        // The same artifact with its true digest is read.
        let host = Host::new();
        let (id, _) = host.record(TARGET, 0, HOUR, &[]);
        standin.script(Script {
            artifact: Some(receipt(HOUR / 2, 'a', 'b')),
            ..Script::default()
        });
        tick(&host, &standin);
        tick(&host, &standin);
        assert_eq!(host.status(&id)["state"], "deferred", "{version}");
    }
}
