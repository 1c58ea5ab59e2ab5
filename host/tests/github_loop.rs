//! The GitHub loop against a stateful stand-in on loopback (`common::github`): dispatch returns
//! the run, `tick` follows it to its outcome, `watch` ingests artifacts once, quota care, and
//! the token never leaves the `Authorization` header of API calls.

mod common;

use common::github::{zip_of, Script, Standin, REPO, TARGET, TOKEN};
use common::github_cli::{receipt, run_host, same_bindings, tick};
use common::{now, Host, HOUR};
use serde_json::Value;
use std::process::Stdio;

fn assert_token_not_stored(host: &Host) {
    if host.store.starts_with("postgres") {
        let mut client = postgres::Client::connect(&host.store, postgres::NoTls).unwrap();
        let tables: Vec<String> = client
            .query(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(tables.len() >= 5, "{tables:?}");
        for table in tables {
            let text: Option<String> = client
                .query_one(
                    &format!("SELECT string_agg(t::text, '') FROM {table} t"),
                    &[],
                )
                .unwrap()
                .get(0);
            assert!(
                !text.unwrap_or_default().contains(TOKEN),
                "the token is never stored ({table})"
            );
        }
        return;
    }
    for path in [host.db.clone(), host.db.with_extension("db-wal")] {
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
            "the token is never stored ({})",
            path.display()
        );
    }
}

/// API requests made so far, apart from 304 answers: (counted, not modified).
fn requests(standin: &Standin) -> (usize, usize) {
    let seen = standin.seen();
    let not_modified = seen.iter().filter(|s| s.status == 304).count();
    (seen.len() - not_modified, not_modified)
}

#[test]
fn a_run_that_succeeds_completes_with_no_report_in_three_requests() {
    succeeds_and_completes(Host::new());
}

#[test]
fn postgres_a_run_that_succeeds_completes_with_no_report() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    succeeds_and_completes(Host::with_store(&schema.url).init());
}

fn succeeds_and_completes(host: Host) {
    let standin = Standin::start();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let first = tick(&host, &standin);
    let launched = &first.json["launched"][0];
    assert_eq!(launched["attempt_status"], "dispatched", "{}", first.output);
    let page = launched["html_url"]
        .as_str()
        .expect("the run's page")
        .to_string();
    let status = host.status(&id);
    assert_eq!(
        (&status["run_url"], &status["html_url"]),
        (&launched["run_url"], &launched["html_url"]),
        "status prints the run's URLs"
    );
    // People read the page.
    let shown = String::from_utf8(host.run(&["show", &id], "").stdout).unwrap();
    assert!(shown.contains(&page), "show prints the run's page: {shown}");
    let table = String::from_utf8(host.run(&["status"], "").stdout).unwrap();
    assert!(
        table.contains(&format!("run of {id}: {page}")),
        "status prints the run's page: {table}"
    );
    let second = tick(&host, &standin);
    assert_eq!(
        second.json["followed"][0]["state"], "complete",
        "{}",
        second.output
    );
    let run_id = &second.json["followed"][0]["run_id"];
    assert!(
        second
            .output
            .contains(&format!("tick: {id}: run {run_id} success: complete")),
        "tick's progress says what the followed run did: {}",
        second.output
    );
    assert!(
        second.output.contains("followed 1 run(s)"),
        "{}",
        second.output
    );
    let status = host.status(&id);
    assert_eq!(
        (status["state"].as_str(), status["cause"].as_str()),
        (Some("complete"), Some("completed"))
    );
    assert!(status["detail"].as_str().unwrap().contains(&page));
    let (counted, _) = requests(&standin);
    assert!(
        counted <= 3,
        "dispatch, completed runs, artifacts: {:?}",
        standin.seen()
    );
    assert_eq!(standin.dispatch_count(), 1);
    // Nothing left to follow: a third tick makes no call that costs quota.
    tick(&host, &standin);
    assert_eq!(requests(&standin).0, counted);
    for seen in standin.seen() {
        assert_eq!(
            seen.authorization.as_deref(),
            Some(format!("Bearer {TOKEN}").as_str())
        );
        assert!(!seen.body.contains(TOKEN) && !seen.path.contains(TOKEN));
    }
    assert_token_not_stored(&host);
}

#[test]
fn a_re_deferral_is_read_from_the_artifact_and_dispatched_again_as_attempt_2() {
    redeferred_and_dispatched_again(Host::new());
}

#[test]
fn postgres_a_re_deferral_is_dispatched_again_as_attempt_2() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    redeferred_and_dispatched_again(Host::with_store(&schema.url).init());
}

fn redeferred_and_dispatched_again(host: Host) {
    let standin = Standin::start();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        artifact: Some(same_bindings()),
        conclusion: "failure",
        ..Script::default()
    });
    standin.script(Script::default());
    tick(&host, &standin);
    let second = tick(&host, &standin);
    assert_eq!(
        second.json["followed"][0]["state"], "deferred",
        "{}",
        second.output
    );
    assert!(
        standin.blob_authorizations().is_empty(),
        "the blob host never sees the token"
    );
    assert_eq!(standin.state.lock().unwrap().blob_requests, 1);
    // Due at once: the same tick, or the next, dispatches attempt 2.
    let third = tick(&host, &standin);
    let dispatches = standin.state.lock().unwrap().dispatches.clone();
    assert_eq!(dispatches.len(), 2, "{}", third.output);
    assert_eq!(dispatches[1]["inputs"]["attempt"], "2");
    assert_eq!(dispatches[1]["inputs"]["deferral_id"], id.as_str());
    let fourth = tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete", "{}", fourth.output);
    assert_eq!(host.status(&id)["reentries"], 2);
    assert_token_not_stored(&host);
}

#[test]
fn the_reentry_limit_ends_a_redeferring_run_blocked() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &["--max-reentries", "1"]);
    standin.script(Script {
        artifact: Some(same_bindings()),
        ..Script::default()
    });
    tick(&host, &standin);
    tick(&host, &standin);
    let status = host.status(&id);
    assert_eq!(
        (status["state"].as_str(), status["cause"].as_str()),
        (Some("blocked"), Some("reentry-limit")),
        "{status}"
    );
    assert_eq!(standin.dispatch_count(), 1, "never dispatched again");
}

#[test]
fn failures_and_bad_artifacts_end_blocked_with_precise_causes() {
    let standin = Standin::start();
    let host = Host::new();
    let cases: Vec<(Script, &str)> = vec![
        (
            Script {
                conclusion: "failure",
                ..Script::default()
            },
            "run-failure",
        ),
        (
            Script {
                conclusion: "cancelled",
                ..Script::default()
            },
            "run-cancelled",
        ),
        (
            Script {
                artifact: Some(receipt(0, 'f', 'b')),
                ..Script::default()
            },
            "binding-mismatch",
        ),
        (
            Script {
                artifact: Some(r#"{"schema":1}"#.into()),
                ..Script::default()
            },
            "invalid-receipt",
        ),
        (
            Script {
                artifact_zip: Some(b"not a zip".to_vec()),
                ..Script::default()
            },
            "artifact-unreadable",
        ),
        (
            Script {
                // Larger than the download bound: not read past it.
                artifact_zip: Some(vec![b'z'; 2 << 20]),
                ..Script::default()
            },
            "artifact-unreadable",
        ),
        (
            Script {
                artifact: Some(same_bindings()),
                artifact_expired: true,
                ..Script::default()
            },
            "artifact-expired",
        ),
    ];
    let mut ids = Vec::new();
    for (script, cause) in cases {
        let (id, _) = host.record(TARGET, 0, HOUR, &[]);
        standin.script(script);
        ids.push((id, cause));
    }
    let first = tick(&host, &standin);
    assert_eq!(first.json["launched"].as_array().unwrap().len(), ids.len());
    let second = tick(&host, &standin);
    for (id, cause) in &ids {
        let status = host.status(id);
        assert_eq!(
            (status["state"].as_str(), status["cause"].as_str()),
            (Some("blocked"), Some(*cause)),
            "{status}\n{}",
            second.output
        );
        assert!(
            status["detail"]
                .as_str()
                .unwrap()
                .contains("https://github.example/"),
            "the detail names the run: {status}"
        );
    }
    assert_eq!(
        standin.dispatch_count(),
        ids.len(),
        "at most one dispatch per attempt"
    );
    let failed = host.status(&ids[0].0);
    assert_eq!(
        failed["detail"], failed["html_url"],
        "the run's page is the detail"
    );
}

#[test]
fn progress_completes_the_deferral_and_records_a_successor() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    // Same scope, another request: the run did its part and deferred the next part.
    standin.script(Script {
        artifact: Some(receipt(0, 'a', 'c')),
        ..Script::default()
    });
    tick(&host, &standin);
    let second = tick(&host, &standin);
    let status = host.status(&id);
    assert_eq!(
        (status["state"].as_str(), status["cause"].as_str()),
        (Some("complete"), Some("progress")),
        "{}",
        second.output
    );
    let all = host.expect(0, &["status", "--json"], "")["deferrals"].clone();
    let successor = all
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] != id.as_str())
        .expect("a successor")
        .clone();
    assert!(status["detail"]
        .as_str()
        .unwrap()
        .contains(successor["id"].as_str().unwrap()));
    assert_eq!(successor["launch"], TARGET);
    // Due at once, the successor is dispatched (in that tick or the next) as its own attempt 1:
    // a fresh re-entry count.
    tick(&host, &standin);
    let dispatches = standin.state.lock().unwrap().dispatches.clone();
    assert_eq!(dispatches.len(), 2);
    assert_eq!(dispatches[1]["inputs"]["deferral_id"], successor["id"]);
    assert_eq!(dispatches[1]["inputs"]["attempt"], "1");
    let successor = host.status(successor["id"].as_str().unwrap());
    assert_eq!(successor["reentries"], 1, "{successor}");
}

#[test]
fn a_chain_longer_than_max_chain_is_blocked() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        artifact: Some(receipt(0, 'a', 'c')),
        ..Script::default()
    });
    tick(&host, &standin);
    let (out, output) = run_host(&host, &standin, &["tick", "--max-chain", "0"]);
    assert!(out.status.success(), "{output}");
    let status = host.status(&id);
    assert_eq!(
        (status["state"].as_str(), status["cause"].as_str()),
        (Some("blocked"), Some("chain-limit")),
        "{output}"
    );
}

#[test]
fn a_run_in_progress_changes_nothing_and_costs_304s() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        polls_in_progress: 3,
        ..Script::default()
    });
    tick(&host, &standin);
    for _ in 0..3 {
        let run = tick(&host, &standin);
        assert_eq!(run.json["waiting"][0]["id"], id.as_str(), "{}", run.output);
        let status = host.status(&id);
        assert_eq!(
            (status["state"].as_str(), status["attempt_status"].as_str()),
            (Some("resumable"), Some("dispatched"))
        );
    }
    tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete");
    let (counted, not_modified) = requests(&standin);
    assert!(
        not_modified >= 2,
        "unchanged lists answer 304: {:?}",
        standin.seen()
    );
    // Dispatch, the first list (it sets the ETag), the list that shows it completed, its
    // artifacts: a run still in progress at the first look costs one request more than one
    // that completed before it (see a_run_that_succeeds_completes_with_no_report_in_three_requests).
    assert_eq!(counted, 4, "304s apart: {:?}", standin.seen());
}

#[test]
fn a_204_dispatch_finds_its_run_by_title() {
    // A 204 and a refused return_run_details are answers of API version 2022-11-28 only.
    let standin = Standin::speaking("2022-11-28");
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        answer_204: true,
        ..Script::default()
    });
    let first = tick(&host, &standin);
    assert_eq!(first.json["launched"][0]["run_url"], Value::Null);
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    let second = tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete", "{}", second.output);
    assert_eq!(standin.dispatch_count(), 1);
}

#[test]
fn a_run_never_found_stays_dispatched_and_expires_at_resume_by() {
    // A 204 and a refused return_run_details are answers of API version 2022-11-28 only.
    let standin = Standin::speaking("2022-11-28");
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, 3_000, &[]);
    // A 204 dispatch whose run does not carry the run-name the host looks for.
    standin.script(Script {
        answer_204: true,
        display_title: Some("Resume nightly labels".into()),
        ..Script::default()
    });
    tick(&host, &standin);
    let waiting = tick(&host, &standin);
    assert_eq!(
        waiting.json["waiting"][0]["why"], "no run found yet",
        "{}",
        waiting.output
    );
    assert_eq!(host.status(&id)["attempt_status"], "dispatched");
    assert_eq!(standin.dispatch_count(), 1, "never dispatched again");
    common::clock::until_past_field(&host, &id, "resume_by_ms");
    let expired = tick(&host, &standin);
    assert_eq!(
        expired.json["expired"][0],
        id.as_str(),
        "{}",
        expired.output
    );
    let status = host.status(&id);
    assert_eq!(
        (status["state"].as_str(), status["cause"].as_str()),
        (Some("cancelled"), Some("expired"))
    );
    assert_eq!(standin.dispatch_count(), 1);
}

#[test]
fn completed_runs_beyond_the_first_page_are_read_one_by_one() {
    let standin = Standin::start();
    let host = Host::new();
    let store = host.open();
    let now = now();
    for _ in 0..101 {
        let receipt = deferral_host_conformance::distinct_handoff(now, 0, HOUR);
        deferral_host::lifecycle::insert::insert_new(
            &store,
            receipt.to_json().as_bytes(),
            TARGET,
            2,
            now,
        )
        .unwrap();
    }
    drop(store);
    tick(&host, &standin);
    assert_eq!(standin.dispatch_count(), 101);
    let before = standin.seen().len();
    let run = tick(&host, &standin);
    assert_eq!(
        run.json["followed"].as_array().unwrap().len(),
        101,
        "{}",
        run.output
    );
    let seen = standin.seen();
    let singles = seen[before..]
        .iter()
        .filter(|s| s.path.contains("/actions/runs/") && !s.path.contains("/artifacts"))
        .count();
    assert_eq!(singles, 1, "one list of 100, then the one run beyond it");
    let all = host.expect(0, &["status", "--json", "--state", "complete"], "")["deferrals"].clone();
    assert_eq!(all.as_array().unwrap().len(), 101);
}

#[test]
fn a_refused_return_run_details_is_sent_once_more_without_it() {
    // A 204 and a refused return_run_details are answers of API version 2022-11-28 only.
    let standin = Standin::speaking("2022-11-28");
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        refuse_run_details: true,
        ..Script::default()
    });
    tick(&host, &standin);
    let posts: Vec<_> = standin
        .seen()
        .into_iter()
        .filter(|s| s.method == "POST")
        .collect();
    assert_eq!(posts.len(), 2);
    assert!(posts[0].body.contains("return_run_details"));
    assert!(!posts[1].body.contains("return_run_details"));
    assert_eq!(standin.dispatch_count(), 1);
    tick(&host, &standin);
    assert_eq!(host.status(&id)["state"], "complete");
}

#[test]
fn watch_ingests_each_artifact_once_and_record_answers_the_same_deferral() {
    watch_ingests_once(Host::new());
}

#[test]
fn postgres_watch_ingests_each_artifact_once() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    watch_ingests_once(Host::with_store(&schema.url).init());
}

fn watch_ingests_once(host: Host) {
    // watch reads a store that exists (issue 21: it no longer creates one).
    host.expect(0, &["init"], "");
    let standin = Standin::start();
    let deferred = receipt(0, 'd', 'e');
    let (run_id, artifact_id) = standin.scheduled_run_with_artifact(&deferred, false);
    let (_, expired_id) = standin.scheduled_run_with_artifact(&receipt(0, 'd', 'f'), true);
    let args = ["watch", REPO, "--launch", TARGET];
    let (out, output) = run_host(&host, &standin, &args);
    assert_eq!(out.status.code(), Some(0), "{output}");
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(first["ingested"].as_array().unwrap().len(), 1, "{first}");
    let ingested = &first["ingested"][0];
    assert_eq!(
        (
            ingested["artifact_id"].as_u64(),
            ingested["run_id"].as_u64()
        ),
        (Some(artifact_id), Some(run_id))
    );
    assert_eq!(ingested["cancellation_handle"].as_str().unwrap().len(), 64);
    let id = ingested["id"].as_str().unwrap().to_string();
    assert_eq!(first["skipped"][0]["artifact_id"], expired_id);
    assert_eq!(first["skipped"][0]["reason"], "expired");
    assert!(standin.blob_authorizations().is_empty());
    let (out, output) = run_host(&host, &standin, &args);
    let second: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        second["ingested"].as_array().unwrap().is_empty(),
        "{output}"
    );
    assert!(
        second["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["reason"] == "already-ingested" && s["id"] == id.as_str()),
        "{second}"
    );
    assert_eq!(second["github"]["not_modified"], 1, "the list answered 304");
    // The same receipt recorded by hand: the same deferral, no new handle.
    let again = host.expect(0, &["record", "--launch", TARGET, "-"], &deferred);
    assert_eq!(
        (again["id"].as_str(), again["already_recorded"].as_bool()),
        (Some(id.as_str()), Some(true))
    );
    assert!(again.get("cancellation_handle").is_none());
    let all = host.expect(0, &["status", "--json"], "")["deferrals"].clone();
    assert_eq!(all.as_array().unwrap().len(), 1);
    // tick dispatches it; watch never ingests what this host's own runs upload.
    standin.script(Script {
        artifact: Some(receipt(0, 'd', 'e')),
        polls_in_progress: 5,
        ..Script::default()
    });
    tick(&host, &standin);
    let (out, _) = run_host(&host, &standin, &args);
    let third: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(third["ingested"].as_array().unwrap().is_empty(), "{third}");
    assert!(
        third["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["reason"] == "own-run"),
        "{third}"
    );
    assert_token_not_stored(&host);
}

#[test]
fn watch_exits_4_on_a_github_error_and_changes_nothing() {
    let standin = Standin::start();
    let host = Host::new();
    host.expect(0, &["init"], "");
    standin.scheduled_run_with_artifact(&receipt(0, 'd', 'e'), false);
    let out = host
        .command(&["watch", REPO, "--launch", TARGET])
        .env("GITHUB_TOKEN", "test-wrong-token-not-real")
        .env("GITHUB_API_URL", &standin.api)
        .env("DEFERRAL_GITHUB_API_VERSION", standin.api_version())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "github-error", "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("401"));
    let closed = common::refusing::Refusing::new();
    let out = host
        .command(&["watch", REPO, "--launch", TARGET])
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_API_URL", closed.url())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "github-unreachable");
    let all = host.expect(0, &["status", "--json"], "")["deferrals"].clone();
    assert!(all.as_array().unwrap().is_empty(), "nothing recorded");
}

#[test]
fn the_reserve_stops_calls_for_the_tick_and_says_so() {
    let standin = Standin::start();
    let host = Host::new();
    let (first, _) = host.record(TARGET, 0, HOUR, &[]);
    let (second, _) = host.record(TARGET, 0, HOUR, &[]);
    // 400 left of 5,000 is under the 10% reserve.
    standin.state.lock().unwrap().remaining = 400;
    let run = tick(&host, &standin);
    assert_eq!(standin.dispatch_count(), 1, "{}", run.output);
    let stopped = run.json["github"]["stopped"]
        .as_str()
        .expect("says why it stopped");
    assert!(stopped.contains("reserve"), "{stopped}");
    assert_eq!(host.status(&first)["attempt_status"], "dispatched");
    let left = host.status(&second);
    assert_eq!(
        (left["state"].as_str(), left["reentries"].as_u64()),
        (Some("deferred"), Some(0)),
        "the pending work stays as it is"
    );
    assert!(run.json["skipped"][0]["why"]
        .as_str()
        .unwrap()
        .contains("quota"));
}

#[test]
fn a_secondary_limit_stops_calls_for_the_tick() {
    let standin = Standin::start();
    let host = Host::new();
    let (first, _) = host.record(TARGET, 0, HOUR, &[]);
    let (second, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.state.lock().unwrap().secondary_limit = true;
    let run = tick(&host, &standin);
    assert_eq!(
        standin.seen().len(),
        1,
        "one call, then none: {}",
        run.output
    );
    assert!(run.json["github"]["stopped"]
        .as_str()
        .unwrap()
        .contains("secondary"));
    // The refused dispatch was certainly not sent: back to deferred for a later tick.
    assert_eq!(host.status(&first)["state"], "deferred");
    assert_eq!(host.status(&second)["reentries"], 0);
}

#[test]
fn two_tickers_following_one_run_record_it_once() {
    tickers_record_once(Host::new());
}

#[test]
fn postgres_two_tickers_following_one_run_record_it_once() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    tickers_record_once(Host::with_store(&schema.url).init());
}

fn tickers_record_once(host: Host) {
    let standin = Standin::start();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        artifact: Some(receipt(0, 'a', 'c')),
        ..Script::default()
    });
    tick(&host, &standin);
    let spawn = || {
        host.command(&["tick"])
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_API_URL", &standin.api)
            .env("DEFERRAL_GITHUB_API_VERSION", standin.api_version())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    assert!(a.wait_with_output().unwrap().status.success());
    assert!(b.wait_with_output().unwrap().status.success());
    let shown = host.expect(0, &["show", "--json", &id], "");
    let completions = shown["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["to"] == "complete")
        .count();
    assert_eq!(completions, 1);
    let all = host.expect(0, &["status", "--json"], "")["deferrals"].clone();
    assert_eq!(all.as_array().unwrap().len(), 2, "one successor, not two");
}

#[test]
fn the_artifact_reader_bounds_what_it_reads() {
    // Two files, or a file larger than the bound: refused, never read whole.
    let big = "x".repeat(70 * 1024);
    let zip = zip_of(&big);
    let err = deferral_host::github::artifact::receipt_text(&zip).unwrap_err();
    assert!(err.contains("larger than"), "{err}");
    let mut out = std::io::Cursor::new(Vec::new());
    {
        use std::io::Write;
        let mut w = zip::ZipWriter::new(&mut out);
        let o = zip::write::SimpleFileOptions::default();
        w.start_file("a.json", o).unwrap();
        w.write_all(b"{}").unwrap();
        w.start_file("b.json", o).unwrap();
        w.write_all(b"{}").unwrap();
        w.finish().unwrap();
    }
    let err = deferral_host::github::artifact::receipt_text(&out.into_inner()).unwrap_err();
    assert!(err.contains("2 entries"), "{err}");
    assert_eq!(
        deferral_host::github::artifact::receipt_text(&zip_of("{}")).unwrap(),
        "{}"
    );
}
