//! A deferral's face on its commit through the real `deferral-host run`, against the GitHub
//! stand-in on loopback: a `[[watch]]` table with `commit-status = true` ingests a scheduled
//! run's receipt, and the run's commit shows the deferral `pending` (when it resumes, by when),
//! once however many passes follow; resumed, it links the run it dispatched, and ends
//! `success` when that run completes; without `commit-status` nothing is written. (The
//! environment gate's statuses are in `environment_gate.rs`.)

mod common;

use common::github::{Script, Standin, REPO, TARGET};
use common::webhook::{watch_passes, watched, within, HookServe};
use common::{now, Host, HOUR};
use std::time::Duration;

fn run(host: &Host, standin: &Standin, commit_status: bool) -> HookServe {
    run_with(host, standin, commit_status, "")
}

/// `run` with `top` (lines of the config's top level) besides.
fn run_with(host: &Host, standin: &Standin, commit_status: bool, top: &str) -> HookServe {
    let config = host.path("host.toml");
    std::fs::write(
        &config,
        format!(
            "follow-interval = \"1s\"\nhttp-timeout = \"5s\"\n{top}\n[[watch]]\nrepo = {REPO:?}\nlaunch = {TARGET:?}\ncommit-status = {commit_status}\n"
        ),
    )
    .unwrap();
    let config = config.display().to_string();
    HookServe::start_command(host, standin, "run", &["--config", &config])
}

#[test]
fn an_ingested_deferral_shows_pending_on_its_runs_commit_once() {
    let host = Host::new();
    let standin = Standin::start();
    let receipt = deferral_host_conformance::handoff(now(), HOUR, 2 * HOUR).to_json();
    standin.scheduled_run_with_artifact(&receipt, false);
    let mut run = run(&host, &standin, true);
    // Three watch passes: the first ingests it and writes its status, the others change nothing.
    watched(&standin, &run, 3);
    let posts = standin.state.lock().unwrap().commit_statuses.clone();
    assert_eq!(posts.len(), 1, "one status: {posts:#?}\n{}", run.log_text());
    let post = &posts[0];
    assert_eq!(
        (
            post.sha.as_str(),
            post.state.as_str(),
            post.context.as_str()
        ),
        (
            "0123456789abcdef0123456789abcdef01234567",
            "pending",
            "deferral/deferred-receipt"
        )
    );
    assert!(
        post.description.starts_with("deferred until") && post.description.contains("resume by"),
        "{}",
        post.description
    );
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}

/// With a budget of one status a pass, what a pass leaves is written by the next ones, each
/// once.
#[test]
fn a_budget_of_one_status_a_pass_leaves_none_behind() {
    let host = Host::new();
    let standin = Standin::start();
    for hours in [1, 2, 3] {
        let receipt = deferral_host_conformance::handoff(now(), hours * HOUR, 4 * HOUR).to_json();
        standin.scheduled_run_with_artifact(&receipt, false);
    }
    let mut run = run_with(&host, &standin, true, "commit-status-budget = 1\n");
    let statuses = || standin.state.lock().unwrap().commit_statuses.len();
    let all = within(Duration::from_secs(20), || (statuses() >= 3).then_some(()));
    assert!(all.is_some(), "three statuses: {}", run.log_text());
    let passes = watch_passes(&standin);
    watched(&standin, &run, passes + 2);
    assert_eq!(statuses(), 3, "each once: {}", run.log_text());
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}

/// A budget of 0 writes nothing, however many deferrals wait.
#[test]
fn a_budget_of_zero_writes_no_status() {
    let host = Host::new();
    let standin = Standin::start();
    let receipt = deferral_host_conformance::handoff(now(), HOUR, 2 * HOUR).to_json();
    standin.scheduled_run_with_artifact(&receipt, false);
    let mut run = run_with(&host, &standin, true, "commit-status-budget = 0\n");
    watched(&standin, &run, 3);
    let counts = host.open_any().count_by_state().unwrap();
    assert_eq!(counts, vec![(deferral_core::lifecycle::State::Deferred, 1)]);
    assert!(standin.state.lock().unwrap().commit_statuses.is_empty());
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}

#[test]
fn without_commit_status_nothing_is_written_on_the_commit() {
    let host = Host::new();
    let standin = Standin::start();
    let receipt = deferral_host_conformance::handoff(now(), HOUR, 2 * HOUR).to_json();
    standin.scheduled_run_with_artifact(&receipt, false);
    let mut run = run(&host, &standin, false);
    watched(&standin, &run, 3);
    let counts = host.open_any().count_by_state().unwrap();
    assert_eq!(
        counts,
        vec![(deferral_core::lifecycle::State::Deferred, 1)],
        "ingested, and waiting"
    );
    assert!(standin.state.lock().unwrap().commit_statuses.is_empty());
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}

#[test]
fn a_resumed_deferral_links_its_run_and_ends_in_success() {
    let host = Host::new();
    let standin = Standin::start();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    standin.scheduled_run_with_artifact(&receipt, false);
    standin.script(Script::default());
    let mut run = run(&host, &standin, true);
    let posts = within(Duration::from_secs(15), || {
        let posts = standin.state.lock().unwrap().commit_statuses.clone();
        (posts.last().map(|p| p.state.as_str()) == Some("success")).then_some(posts)
    })
    .unwrap_or_else(|| {
        panic!(
            "{:#?}\n{}",
            standin.state.lock().unwrap().commit_statuses,
            run.log_text()
        )
    });
    let dispatched = standin.last_run_id();
    let link = format!("https://github.example/{REPO}/actions/runs/{dispatched}");
    let last = posts.last().unwrap();
    assert_eq!(
        last.target_url.as_deref(),
        Some(link.as_str()),
        "{posts:#?}"
    );
    for post in &posts {
        assert_eq!(post.context, "deferral/deferred-receipt");
        if post.description.starts_with("resumed") {
            assert_eq!(
                post.target_url.as_deref(),
                Some(link.as_str()),
                "{posts:#?}"
            );
        }
    }
    let mut seen: Vec<(&str, &str)> = posts
        .iter()
        .map(|p| (p.state.as_str(), p.description.as_str()))
        .collect();
    let all = seen.len();
    seen.dedup();
    assert_eq!(seen.len(), all, "one status per state change: {posts:#?}");
    assert!(all <= 3, "{posts:#?}");
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}
