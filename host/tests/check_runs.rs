//! A deferral's check run through the real `deferral-host run`, as a GitHub App, against the
//! GitHub stand-in on loopback: a `[[watch]]` table with `commit-status = "check-run"` ingests
//! a scheduled run's receipt, and the run's commit gets a check run from then on: waiting, it
//! is `completed` `neutral` with a cancel button; resumed, a new one `in_progress` linking the
//! run it dispatched, updated to `success` when that run completes; one write per state change.
//! The buttons arrive as signed `check_run` `requested_action` deliveries: a cancel from a
//! sender GitHub says may write cancels the waiting deferral (its check run then shows
//! `cancelled` with a retry button); the same press from a reader, or replayed, changes
//! nothing; a retry from a writer has it wait again, with a check run of its own.

mod common;

use common::checks::{pressed, CheckWrite};
use common::github::{Script, Standin, REPO, TARGET};
use common::signing::app_key_pair;
use common::webhook::{secret_file, watch_passes, watched, within, HookServe};
use common::{now, Host, HOUR};
use deferral_core::lifecycle::State;
use serde_json::Value;
use std::time::Duration;

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

fn run(host: &Host, standin: &Standin) -> HookServe {
    let (key, public) = app_key_pair(host.dir.path());
    {
        let mut state = standin.state.lock().unwrap();
        state.app_public_key = Some(public);
        state.app_id = "4242".into();
        state
            .permissions
            .insert("octo-writer".into(), "write".into());
        state
            .permissions
            .insert("octo-reader".into(), "read".into());
    }
    let config = host.path("host.toml");
    std::fs::write(
        &config,
        format!(
            "github-webhook-secret-file = {secrets:?}\nfollow-interval = \"1s\"\nhttp-timeout = \"5s\"\ngithub-app-id = \"4242\"\ngithub-app-key = {key:?}\n\n[[watch]]\nrepo = {REPO:?}\nlaunch = {TARGET:?}\ncommit-status = \"check-run\"\n",
            secrets = secret_file(host).display().to_string(),
            key = key.display().to_string(),
        ),
    )
    .unwrap();
    let config = config.display().to_string();
    HookServe::start_command(host, standin, "run", &["--config", &config])
}

fn writes(standin: &Standin) -> Vec<CheckWrite> {
    standin.state.lock().unwrap().checks.writes.clone()
}

/// The first write taken that `wanted` picks, within 15 s.
fn written(standin: &Standin, run: &HookServe, wanted: impl Fn(&CheckWrite) -> bool) -> CheckWrite {
    within(Duration::from_secs(15), || {
        writes(standin).into_iter().find(|w| w.taken && wanted(w))
    })
    .unwrap_or_else(|| panic!("{:#?}\n{}", writes(standin), run.log_text()))
}

/// The check run as the stand-in holds it now.
fn check_run(standin: &Standin, id: u64) -> Value {
    let state = standin.state.lock().unwrap();
    state
        .checks
        .runs
        .iter()
        .find(|r| r["id"] == id)
        .unwrap()
        .clone()
}

#[test]
fn a_resumed_deferral_keeps_one_check_run_write_per_state_change() {
    let host = Host::new();
    let standin = Standin::start();
    let receipt = deferral_host_conformance::handoff(now(), 0, HOUR).to_json();
    standin.scheduled_run_with_artifact(&receipt, false);
    standin.script(Script::default());
    let mut run = run(&host, &standin);
    written(&standin, &run, |w| w.conclusion() == Some("success"));
    // Two passes more change nothing on the commit.
    let seen = watch_passes(&standin);
    watched(&standin, &run, seen + 2);
    let all = writes(&standin);
    assert!(all.iter().all(|w| w.taken), "none refused: {all:#?}");
    let shapes: Vec<(&str, &str, Option<&str>)> = all
        .iter()
        .map(|w| (w.method.as_str(), w.status(), w.conclusion()))
        .collect();
    // Waiting it is shown completed (so its cancel button shows); a completed check run is
    // never changed, so resumed is a new one, which its end then completes.
    assert_eq!(
        shapes,
        vec![
            ("POST", "completed", Some("neutral")),
            ("POST", "in_progress", None),
            ("PATCH", "completed", Some("success")),
        ],
        "{all:#?}\n{}",
        run.log_text()
    );
    let first = &all[0];
    assert_eq!(first.body["head_sha"], SHA);
    assert_eq!(first.body["name"], "deferral/deferred-receipt");
    assert_eq!(first.buttons(), vec!["cancel"]);
    assert!(
        first.body["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with("deferred until"),
        "{first:#?}"
    );
    let dispatched = standin.last_run_id();
    let link = format!("https://github.example/{REPO}/actions/runs/{dispatched}");
    assert_eq!(all[1].body["details_url"], link.as_str(), "{all:#?}");
    assert_eq!(all[2].id, all[1].id, "the resumed run is the one completed");
    assert!(all[2].buttons().is_empty(), "{all:#?}");
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}

#[test]
fn cancel_and_retry_presses_are_honoured_once_and_only_for_writers() {
    let host = Host::new();
    let standin = Standin::start();
    let receipt = deferral_host_conformance::handoff(now(), HOUR, 2 * HOUR).to_json();
    standin.scheduled_run_with_artifact(&receipt, false);
    let mut run = run(&host, &standin);
    let waiting = written(&standin, &run, |w| w.buttons() == ["cancel"]);
    assert_eq!(
        (waiting.method.as_str(), waiting.conclusion()),
        ("POST", Some("neutral"))
    );
    let id = waiting.body["external_id"].as_str().unwrap().to_string();
    let counts = || host.open_any().count_by_state().unwrap();
    let press = |delivery: &str, body: &Value| {
        run.deliver_signed("check_run", delivery, body.to_string().as_bytes())
    };

    // A reader's press: GitHub says `read`, so nothing happens.
    let card = check_run(&standin, waiting.id);
    let (status, answer) = press("press-reader", &pressed(&card, "cancel", "octo-reader", 31));
    assert_eq!(status, 202, "{answer}\n{}", run.log_text());
    assert!(
        answer["ignored"]
            .as_str()
            .unwrap()
            .contains("may not write"),
        "{answer}"
    );
    assert_eq!(counts(), vec![(State::Deferred, 1)]);

    // A writer's press cancels it, and the commit then shows it cancelled, with retry.
    let cancel = pressed(&card, "cancel", "octo-writer", 32);
    let (status, answer) = press("press-writer", &cancel);
    assert_eq!(status, 200, "{answer}\n{}", run.log_text());
    assert_eq!(
        (&answer["deferral"], &answer["state"]),
        (&Value::from(id.as_str()), &Value::from("cancelled")),
        "{answer}"
    );
    assert_eq!(counts(), vec![(State::Cancelled, 1)]);
    let cancelled = written(&standin, &run, |w| w.conclusion() == Some("cancelled"));
    assert_eq!(cancelled.buttons(), vec!["retry"], "{cancelled:#?}");
    assert_eq!(cancelled.body["external_id"], id.as_str());

    // The same press replayed under another delivery id changes nothing.
    let before = writes(&standin).len();
    let (status, answer) = press("press-writer-again", &cancel);
    assert_eq!(
        (status, &answer["already"]),
        (200, &Value::Bool(true)),
        "{answer}"
    );
    let seen = watch_passes(&standin);
    watched(&standin, &run, seen + 2);
    assert_eq!(writes(&standin).len(), before, "{:#?}", writes(&standin));
    assert_eq!(counts(), vec![(State::Cancelled, 1)]);

    // A reader cannot retry it; a writer can: it waits again, with a check run of its own.
    let card = check_run(&standin, cancelled.id);
    let (status, _) = press("retry-reader", &pressed(&card, "retry", "octo-reader", 31));
    assert_eq!(status, 202);
    let (status, answer) = press("retry-writer", &pressed(&card, "retry", "octo-writer", 32));
    assert_eq!(status, 200, "{answer}\n{}", run.log_text());
    assert_eq!(answer["deferral"], id.as_str(), "{answer}");
    let retried = answer["retried_as"].as_str().unwrap().to_string();
    let mut now_counts = counts();
    now_counts.sort_by_key(|(state, _)| state.as_str());
    assert_eq!(
        now_counts,
        vec![(State::Cancelled, 1), (State::Deferred, 1)],
        "{answer}"
    );
    let again = written(&standin, &run, |w| {
        w.body["external_id"] == retried.as_str()
    });
    assert_eq!(
        (again.method.as_str(), again.conclusion(), again.buttons()),
        ("POST", Some("neutral"), vec!["cancel".to_string()]),
        "{again:#?}"
    );
    assert_eq!(again.body["head_sha"], SHA);
    assert_eq!(run.terminate(Duration::from_secs(10)), Some(0));
}
