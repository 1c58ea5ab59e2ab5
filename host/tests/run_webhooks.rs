//! GitHub's webhooks through the real `deferral-host run`, against the GitHub stand-in on
//! loopback: a signed `workflow_run` `completed` delivery of a run that `run` dispatched ends
//! its deferral within 2 s with no request for the run itself; a delivery that defers it again
//! wakes the loop, which dispatches the next attempt at once (not at the next follow, 10
//! minutes away with webhooks); a wrong signature is 401 and changes nothing; the same delivery
//! twice has one effect; the secret file may be given in `--config`; SIGTERM still exits 0.

mod common;

use common::github::{Script, Standin, TARGET};
use common::github_cli::same_bindings;
use common::signing::sign;
use common::webhook::{
    completions, refuses_each, run_polls, secret_file, within, HookServe, SECRET,
};
use common::{Host, HOUR};
use serde_json::json;
use std::time::{Duration, Instant};

/// `run` with the webhook's secret file given as a flag.
fn start_run(host: &Host, standin: &Standin) -> HookServe {
    let secrets = secret_file(host).display().to_string();
    HookServe::start_command(
        host,
        standin,
        "run",
        &[
            "--github-webhook-secret-file",
            &secrets,
            "--http-timeout",
            "5s",
        ],
    )
}

/// Waits until `run` has dispatched `id`: the stand-in's run id.
fn dispatched(host: &Host, standin: &Standin, run: &HookServe, id: &str) -> u64 {
    let seen = within(Duration::from_secs(10), || {
        (host.status(id)["attempt_status"] == "dispatched").then_some(())
    });
    assert!(seen.is_some(), "{}\n{}", host.status(id), run.log_text());
    standin.last_run_id()
}

#[test]
fn a_signed_delivery_to_run_ends_its_dispatched_deferral_within_2s_without_a_poll_of_its_run() {
    delivered_and_complete(Host::new());
}

#[test]
fn postgres_a_signed_delivery_to_run_ends_its_dispatched_deferral() {
    let Some(schema) = common::pg::schema_or_skip() else {
        return;
    };
    delivered_and_complete(Host::with_store(&schema.url).init());
}

fn delivered_and_complete(host: Host) {
    let standin = Standin::start();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let mut run = start_run(&host, &standin);
    let run_id = dispatched(&host, &standin, &run, &id);
    let before = standin.seen().len();
    let body = standin.completed_delivery(run_id).to_string();
    let sent = Instant::now();
    let (status, answer) = run.deliver_signed("workflow_run", "run-delivery-1", body.as_bytes());
    assert_eq!((status, &answer["queued"]), (200, &json!(true)), "{answer}");
    let ended = within(Duration::from_secs(2), || {
        (host.status(&id)["state"] == "complete").then(Instant::now)
    });
    assert!(
        ended.is_some_and(|at| at - sent < Duration::from_secs(2)),
        "not complete within 2 s of the delivery: {}\n{}",
        host.status(&id),
        run.log_text()
    );
    assert_eq!(run_polls(&standin, before, run_id), Vec::<String>::new());
    // GitHub redelivers with the same X-GitHub-Delivery: answered, and nothing happens.
    let asked = standin.seen().len();
    let (status, answer) = run.deliver_signed("workflow_run", "run-delivery-1", body.as_bytes());
    assert_eq!(
        (status, &answer["already"]),
        (200, &json!(true)),
        "{answer}"
    );
    assert_eq!(standin.seen().len(), asked, "no second effect");
    assert_eq!(completions(&host, &id), 1);
    assert_eq!(
        run.terminate(Duration::from_secs(10)),
        Some(0),
        "{}",
        run.log_text()
    );
}

#[test]
fn a_delivery_that_defers_again_wakes_the_loop_to_dispatch_the_next_attempt_at_once() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    // The first run uploads a receipt due at once; the second completes.
    standin.script(Script {
        artifact: Some(same_bindings()),
        conclusion: "failure",
        ..Script::default()
    });
    standin.script(Script::default());
    let mut run = start_run(&host, &standin);
    let first = dispatched(&host, &standin, &run, &id);
    let body = standin.completed_delivery(first).to_string();
    let (status, answer) = run.deliver_signed("workflow_run", "run-delivery-2", body.as_bytes());
    assert_eq!(status, 200, "{answer}");
    // With webhooks the next follow is 10 minutes away: only the delivery's wake-up
    // dispatches attempt 2 this soon.
    let again = within(Duration::from_secs(3), || {
        (standin.dispatch_count() == 2).then_some(())
    });
    assert!(again.is_some(), "{}\n{}", host.status(&id), run.log_text());
    // The host has noted the second run (the stand-in counts the dispatch before answering).
    let noted = within(Duration::from_secs(3), || {
        let status = host.status(&id);
        (status["attempt_status"] == "dispatched" && status["attempts"] == 2).then_some(())
    });
    assert!(noted.is_some(), "{}\n{}", host.status(&id), run.log_text());
    let second = standin.last_run_id();
    assert_ne!(first, second);
    assert_eq!(run_polls(&standin, 0, first), Vec::<String>::new());
    let body = standin.completed_delivery(second).to_string();
    let (status, _) = run.deliver_signed("workflow_run", "run-delivery-3", body.as_bytes());
    assert_eq!(status, 200);
    let done = within(Duration::from_secs(2), || {
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(done.is_some(), "{}\n{}", host.status(&id), run.log_text());
    assert_eq!(host.status(&id)["reentries"], 2, "two launches");
    assert_eq!(
        run.terminate(Duration::from_secs(10)),
        Some(0),
        "{}",
        run.log_text()
    );
}

#[test]
fn a_wrong_signature_to_run_is_401_and_changes_nothing_with_the_secret_file_in_the_config() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let config = host.path("host.toml");
    std::fs::write(
        &config,
        format!(
            "github-webhook-secret-file = {:?}\nhttp-timeout = \"5s\"\n",
            secret_file(&host).display().to_string()
        ),
    )
    .unwrap();
    let config = config.display().to_string();
    let mut run = HookServe::start_command(&host, &standin, "run", &["--config", &config]);
    let run_id = dispatched(&host, &standin, &run, &id);
    let body = refuses_each(
        &run,
        &host,
        &standin,
        (&id, run_id),
        "run-delivery-4",
        |body| {
            vec![
                None,
                Some(sign("not-the-secret", body)),
                Some(sign(SECRET, b"another body")),
            ]
        },
    );
    // Nothing was stored: the same delivery id, signed, is the first.
    let (status, answer) = run.deliver_signed("workflow_run", "run-delivery-4", body.as_bytes());
    assert_eq!((status, &answer["queued"]), (200, &json!(true)), "{answer}");
    let done = within(Duration::from_secs(2), || {
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(done.is_some(), "{}\n{}", host.status(&id), run.log_text());
    assert_eq!(
        run.terminate(Duration::from_secs(10)),
        Some(0),
        "{}",
        run.log_text()
    );
}

#[test]
fn with_webhooks_polling_is_the_reconciler_every_10_minutes_unless_told_otherwise() {
    let follow = |extra: &[&str]| {
        let mut argv = vec!["deferral-host", "run"];
        argv.extend_from_slice(extra);
        let parsed = deferral_host::cli::config::parse(argv.iter().map(Into::into).collect());
        let Ok(mut cli) = parsed else {
            panic!("{extra:?} does not parse")
        };
        cli.run_args_mut()
            .expect("the run command")
            .follow_interval()
    };
    let secret = [
        "--github-webhook-secret-file",
        "/run/credentials/x/webhook-secret",
    ];
    assert_eq!(follow(&[]), Duration::from_secs(60));
    assert_eq!(follow(&secret), Duration::from_secs(600));
    let given = [&secret[..], &["--follow-interval", "2m"]].concat();
    assert_eq!(follow(&given), Duration::from_secs(120));
}

#[test]
fn a_run_whose_delivery_never_comes_is_still_followed_by_runs_polling() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let secrets = secret_file(&host).display().to_string();
    let args = [
        "--github-webhook-secret-file",
        &secrets,
        "--follow-interval",
        "1s",
    ];
    let mut run = HookServe::start_command(&host, &standin, "run", &args);
    dispatched(&host, &standin, &run, &id);
    // No delivery: the next follow, a second after the last, finds the run completed.
    let done = within(Duration::from_secs(10), || {
        (host.status(&id)["state"] == "complete").then_some(())
    });
    assert!(done.is_some(), "{}\n{}", host.status(&id), run.log_text());
    assert_eq!(
        run.terminate(Duration::from_secs(10)),
        Some(0),
        "{}",
        run.log_text()
    );
}
