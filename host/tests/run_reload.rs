//! SIGHUP reads `run`'s configuration again, the webhook's part included: a secret rotated in
//! its file is taken without a restart, a `[[watch]]` table added is ingested for by the next
//! delivery, and a configuration that turns webhooks off changes nothing (a restart does that).
//! Through the real binary, against the GitHub stand-in on loopback.

mod common;

use common::github::{Script, Standin, REPO, TARGET};
use common::github_cli::receipt;
use common::signing::sign;
use common::webhook::{within, HookServe, SECRET};
use common::{Host, HOUR};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

const OLD_SECRET: &str = "the-secret-before-rotation-not-real";

fn write_private(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// `run --config FILE`, the file holding `text`.
fn start(host: &Host, standin: &Standin, text: &str) -> (HookServe, PathBuf) {
    let config = host.path("host.toml");
    write_private(&config, text);
    let arg = config.display().to_string();
    let run = HookServe::start_command(host, standin, "run", &["--config", &arg]);
    (run, config)
}

/// SIGHUP, then waits for `run` to say how it took the file (`expect` in its log, once more
/// than before).
fn hang_up(run: &HookServe, expect: &str) {
    let before = run.log_text().matches(expect).count();
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(run.child.id() as i32, libc::SIGHUP) };
    let taken = within(Duration::from_secs(10), || {
        (run.log_text().matches(expect).count() > before).then_some(())
    });
    assert!(
        taken.is_some(),
        "no {expect:?} after SIGHUP\n{}",
        run.log_text()
    );
}

/// The worker's line for `delivery`, once it has handled it.
fn verdict(run: &HookServe, delivery: &str) -> String {
    let needle = format!("webhook {delivery}: ");
    within(Duration::from_secs(5), || {
        run.log_text()
            .lines()
            .find(|line| line.contains(&needle))
            .map(str::to_string)
    })
    .unwrap_or_else(|| panic!("{delivery} not handled\n{}", run.log_text()))
}

fn config(secret_file: &Path, extra: &str) -> String {
    format!(
        "github-webhook-secret-file = {:?}\nhttp-timeout = \"5s\"\nfollow-interval = \"1h\"\n{extra}",
        secret_file.display().to_string()
    )
}

#[test]
fn a_secret_rotated_in_its_file_is_taken_on_sighup_without_a_restart() {
    let standin = Standin::start();
    let host = Host::new();
    let (id, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script::default());
    let secrets = host.path("webhook-secrets");
    write_private(&secrets, &format!("{OLD_SECRET}\n"));
    let (mut run, _) = start(&host, &standin, &config(&secrets, ""));
    let seen = within(Duration::from_secs(10), || {
        (host.status(&id)["attempt_status"] == "dispatched").then_some(())
    });
    assert!(seen.is_some(), "{}\n{}", host.status(&id), run.log_text());
    let body = standin
        .completed_delivery(standin.last_run_id())
        .to_string();
    // The new secret is not known yet.
    let (status, _) = run.deliver_signed("workflow_run", "rotate-1", body.as_bytes());
    assert_eq!(status, 401);
    // GitHub's side now signs with the new secret; the file holds only it.
    write_private(&secrets, &format!("{SECRET}\n"));
    hang_up(&run, "configuration read again (SIGHUP)");
    let old = sign(OLD_SECRET, body.as_bytes());
    let (status, _) = run.deliver("workflow_run", "rotate-2", body.as_bytes(), Some(&old));
    assert_eq!(status, 401, "the old secret is gone from the file");
    let (status, answer) = run.deliver_signed("workflow_run", "rotate-3", body.as_bytes());
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
fn a_watch_added_on_sighup_has_the_next_delivery_ingested() {
    let standin = Standin::start();
    let host = Host::new().init();
    let secrets = host.path("webhook-secrets");
    write_private(&secrets, &format!("{SECRET}\n"));
    let (run, config_file) = start(&host, &standin, &config(&secrets, ""));
    let (first, _) = standin.scheduled_run_with_artifact(&receipt(HOUR / 2, 'a', 'e'), false);
    let body = standin.completed_delivery(first).to_string();
    assert_eq!(
        run.deliver_signed("workflow_run", "watch-1", body.as_bytes())
            .0,
        200
    );
    assert!(
        verdict(&run, "watch-1").contains("nor watched: ignored"),
        "{}",
        run.log_text()
    );
    let table = format!("[[watch]]\nrepo = {REPO:?}\nlaunch = {TARGET:?}\n");
    write_private(&config_file, &config(&secrets, &table));
    hang_up(&run, "configuration read again (SIGHUP)");
    let (second, _) = standin.scheduled_run_with_artifact(&receipt(HOUR / 2, 'b', 'e'), false);
    let body = standin.completed_delivery(second).to_string();
    assert_eq!(
        run.deliver_signed("workflow_run", "watch-2", body.as_bytes())
            .0,
        200
    );
    let said = verdict(&run, "watch-2");
    assert!(said.contains(": ingested \""), "{said}\n{}", run.log_text());
}

#[test]
fn a_configuration_that_turns_webhooks_off_is_not_applied_and_the_secrets_stay() {
    let standin = Standin::start();
    let host = Host::new().init();
    let secrets = host.path("webhook-secrets");
    write_private(&secrets, &format!("{SECRET}\n"));
    let (run, config_file) = start(&host, &standin, &config(&secrets, ""));
    write_private(
        &config_file,
        "http-timeout = \"5s\"\nfollow-interval = \"2h\"\n",
    );
    hang_up(&run, "configuration not applied");
    assert!(
        run.log_text()
            .contains("turning webhooks off needs a restart"),
        "{}",
        run.log_text()
    );
    let (status, answer) = run.deliver_signed("ping", "off-1", b"{\"zen\":\"x\"}");
    assert_eq!(status, 200, "{answer}");
}
