//! `watch` ingests only what the operator named: runs of the repository itself (never a fork),
//! of the named workflows, branches (default: the default branch) and events (default: all but
//! `pull_request` and `pull_request_target`). Every artifact it passes over is in the report
//! with a stable reason, and nothing of it is recorded or downloaded.

mod common;

use common::github::{
    zip_of, Origin, Standin, DEFAULT_BRANCH, FORK, FORK_ID, REPO, TARGET, WORKFLOW,
};
use common::github_cli::{receipt, watch};
use common::Host;
use serde_json::Value;

fn origin(event: &'static str, file: &str, branch: &str, fork: bool) -> Origin {
    Origin {
        event,
        path: format!(".github/workflows/{file}"),
        head_branch: branch.into(),
        fork,
    }
}

/// The reason `watch` gave for skipping `artifact_id`, if it skipped it.
fn reason(report: &Value, artifact_id: u64) -> Option<String> {
    report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["artifact_id"] == artifact_id)
        .map(|s| s["reason"].as_str().unwrap().to_string())
}

fn ingested(report: &Value) -> Vec<u64> {
    report["ingested"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["artifact_id"].as_u64().unwrap())
        .collect()
}

fn recorded(host: &Host) -> usize {
    host.expect(0, &["status", "--json"], "")["deferrals"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn a_forks_artifact_is_skipped_with_its_reason_and_nothing_is_recorded() {
    let standin = Standin::start();
    let host = Host::new();
    // A fork's pull request run, on a branch named like the default one, with a receipt that
    // asks for no fresh approval: exactly what an outsider can upload.
    let planted = receipt(0, 'f', 'f');
    let (run_id, artifact) = standin.run_with_artifact(
        origin("pull_request", "gate.yml", DEFAULT_BRANCH, true),
        zip_of(&planted),
        false,
    );
    // Even with every event and the workflow named, a fork is never trusted.
    let report = watch(
        &host,
        &standin,
        &[
            REPO,
            "--launch",
            TARGET,
            "--event",
            "pull_request",
            "--workflow",
            "gate.yml",
        ],
    )
    .json;
    assert_eq!(
        reason(&report, artifact).as_deref(),
        Some("fork"),
        "{report}"
    );
    let skipped = &report["skipped"][0];
    assert_eq!(skipped["run_id"], run_id, "{report}");
    // Told by the artifact's own workflow_run: the run is not even asked for.
    assert_eq!(skipped["head_repository_id"], FORK_ID, "{report}");
    assert_eq!(
        report["github"]["requests"], 1,
        "the artifact list only: {report}"
    );
    assert!(ingested(&report).is_empty());
    assert_eq!(recorded(&host), 0, "nothing recorded");
    assert_eq!(
        standin.state.lock().unwrap().blob_requests,
        0,
        "never downloaded"
    );
    // A server whose artifacts name only the run: the run tells the fork.
    standin.state.lock().unwrap().bare_artifact_runs = true;
    let report = watch(&host, &standin, &[REPO, "--launch", TARGET]).json;
    assert_eq!(
        reason(&report, artifact).as_deref(),
        Some("fork"),
        "{report}"
    );
    assert_eq!(report["skipped"][0]["head_repository"], FORK, "{report}");
    assert_eq!(recorded(&host), 0, "nothing recorded");
    // And by hand, the receipt is still new to the store: nothing of it was kept.
    let again = host.expect(0, &["record", "--launch", TARGET, "-"], &planted);
    assert!(again.get("already_recorded").is_none(), "{again}");
}

#[test]
fn unnamed_workflows_branches_and_events_are_skipped_and_named_ones_ingested() {
    let standin = Standin::start();
    let host = Host::new();
    let zip = |c| zip_of(&receipt(0, c, 'e'));
    let (_, nightly) = standin.run_with_artifact(
        origin("schedule", "nightly.yml", "main", false),
        zip('1'),
        false,
    );
    let (_, feature) = standin.run_with_artifact(
        origin("push", "gate.yml", "feature", false),
        zip('2'),
        false,
    );
    let (_, own_pr) = standin.run_with_artifact(
        origin("pull_request", "gate.yml", "main", false),
        zip('3'),
        false,
    );
    let (_, target) = standin.run_with_artifact(
        origin("pull_request_target", "gate.yml", "main", false),
        zip('4'),
        false,
    );
    let (_, push) =
        standin.run_with_artifact(origin("push", "gate.yml", "main", false), zip('5'), false);
    let first = watch(
        &host,
        &standin,
        &[REPO, "--launch", TARGET, "--workflow", "gate.yml"],
    )
    .json;
    assert_eq!(ingested(&first), vec![push], "{first}");
    for (artifact, why) in [
        (nightly, "workflow-not-named"),
        (feature, "branch-not-named"),
        (own_pr, "event-not-named"),
        (target, "event-not-named"),
    ] {
        assert_eq!(reason(&first, artifact).as_deref(), Some(why), "{first}");
    }
    assert_eq!(recorded(&host), 1);
    // Named (the full path is accepted as well as the file name): ingested.
    let second = watch(
        &host,
        &standin,
        &[
            REPO,
            "--launch",
            TARGET,
            "--workflow",
            ".github/workflows/gate.yml",
            "--branch",
            "feature",
            "--branch",
            "main",
            "--event",
            "push",
            "--event",
            "pull_request",
        ],
    )
    .json;
    let mut got = ingested(&second);
    got.sort();
    assert_eq!(got, vec![feature, own_pr], "{second}");
    assert_eq!(
        reason(&second, target).as_deref(),
        Some("event-not-named"),
        "--event names the events ingested, no others: {second}"
    );
    assert_eq!(
        reason(&second, nightly).as_deref(),
        Some("event-not-named"),
        "the first rule it fails is its reason"
    );
    assert_eq!(reason(&second, push).as_deref(), Some("already-ingested"));
    assert_eq!(recorded(&host), 3);
}

#[test]
fn without_flags_every_workflow_of_the_default_branch_is_ingested_at_one_call_more() {
    let standin = Standin::start();
    let host = Host::new();
    let zip = |c| zip_of(&receipt(0, c, 'e'));
    let (_, nightly) = standin.run_with_artifact(
        origin("schedule", "nightly.yml", "main", false),
        zip('1'),
        false,
    );
    let (_, manual) = standin.run_with_artifact(
        origin("workflow_dispatch", WORKFLOW, "main", false),
        zip('2'),
        false,
    );
    let (_, other) = standin.run_with_artifact(
        origin("push", "gate.yml", "release", false),
        zip('3'),
        false,
    );
    let first = watch(&host, &standin, &[REPO, "--launch", TARGET]).json;
    let mut got = ingested(&first);
    got.sort();
    assert_eq!(got, vec![nightly, manual], "{first}");
    assert_eq!(
        reason(&first, other).as_deref(),
        Some("branch-not-named"),
        "{first}"
    );
    // The artifact list, the run list, the repository (its default branch), two downloads.
    let repository_calls = || {
        standin
            .seen()
            .iter()
            .filter(|s| s.path == format!("/repos/{REPO}"))
            .count()
    };
    assert_eq!(repository_calls(), 1, "{:?}", standin.seen());
    assert_eq!(first["github"]["requests"], 5, "{:?}", standin.seen());
    // Nothing changed: the two lists it needs (artifacts, repository) answer 304; the branch
    // the artifact names is enough to pass over the one left, so no run is asked for.
    let second = watch(&host, &standin, &[REPO, "--launch", TARGET]).json;
    assert_eq!(
        (
            second["github"]["requests"].as_u64(),
            second["github"]["not_modified"].as_u64()
        ),
        (Some(0), Some(2)),
        "{second}"
    );
    assert_eq!(reason(&second, other).as_deref(), Some("branch-not-named"));
}

#[test]
fn a_run_beyond_the_run_list_is_asked_for_once() {
    let standin = Standin::start();
    let host = Host::new();
    let (old_run, old) = standin.run_with_artifact(
        origin("pull_request", "gate.yml", "main", false),
        zip_of(&receipt(0, '1', 'e')),
        false,
    );
    // A hundred newer runs push it off the first page of the run list.
    for _ in 0..100 {
        standin.completed_run(origin("push", "ci.yml", "main", false), "CI");
    }
    let report = watch(&host, &standin, &[REPO, "--launch", TARGET]).json;
    assert_eq!(
        reason(&report, old).as_deref(),
        Some("event-not-named"),
        "{report}"
    );
    let singles = standin
        .seen()
        .iter()
        .filter(|s| s.path == format!("/repos/{REPO}/actions/runs/{old_run}"))
        .count();
    assert_eq!(
        singles,
        1,
        "the one run beyond the list: {:?}",
        standin.seen()
    );
}
