//! With a GitHub App, `serve --github-webhook-secret-file` sweeps the App's deliveries
//! (`GET /app/hook/deliveries`) and asks GitHub to redeliver those of the last three days that
//! never got a 2xx answer and whose failure another try could mend (no answer, 408, 429, 5xx),
//! for `workflow_run` and the environment gate's `deployment_protection_rule`, against the GitHub
//! stand-in. What the port refused for what it is (a bad signature, a malformed or oversized body)
//! is never asked for again: it would be refused again.

mod common;

use common::github::Standin;
use common::webhook::{within, HookServe};
use common::Host;
use std::time::Duration;

#[test]
fn a_github_app_asks_github_to_redeliver_what_failed_in_the_last_three_days() {
    use common::github::{epoch_s, iso};
    let host = Host::new();
    host.expect(0, &["init"], "");
    let (key, public) = common::signing::app_key_pair(host.dir.path());
    let standin = Standin::start();
    let now = epoch_s();
    let delivery = |id: u64, guid: &str, ago_s: u64, status: u16, event: &str| {
        serde_json::json!({"id": id, "guid": guid, "delivered_at": iso(now - ago_s),
            "redelivery": false, "duration": 0.1, "status": if status == 200 { "OK" } else { "Bad Gateway" },
            "status_code": status, "event": event, "action": "completed",
            "installation_id": 7, "repository_id": 4242})
    };
    {
        let mut state = standin.state.lock().unwrap();
        state.app_public_key = Some(public);
        state.app_id = "4242".into();
        state.hook_deliveries = vec![
            delivery(23, "gate-guid", 30, 502, "deployment_protection_rule"),
            delivery(22, "bad-signature-guid", 30, 401, "workflow_run"),
            delivery(21, "malformed-guid", 30, 400, "workflow_run"),
            delivery(20, "oversized-guid", 30, 413, "workflow_run"),
            delivery(19, "form-encoded-guid", 30, 415, "workflow_run"),
            delivery(18, "timed-out-guid", 40, 0, "workflow_run"),
            delivery(17, "unavailable-guid", 50, 503, "workflow_run"),
            delivery(15, "push-guid", 60, 500, "push"),
            delivery(13, "recovered-guid", 1_800, 200, "workflow_run"),
            delivery(12, "recovered-guid", 3_600, 502, "workflow_run"),
            delivery(11, "failed-guid", 3_600, 502, "workflow_run"),
            delivery(10, "failed-guid", 7_200, 502, "workflow_run"),
            delivery(9, "old-guid", 4 * 86_400, 502, "workflow_run"),
        ];
    }
    let key = key.display().to_string();
    let serve = HookServe::start(
        &host,
        &standin,
        &["--github-app-id", "4242", "--github-app-key", &key],
    );
    let log = within(Duration::from_secs(10), || {
        let text = serve.log_text();
        text.contains("webhook sweep").then_some(text)
    });
    assert!(log.is_some(), "{}", serve.log_text());
    let mut redelivered = standin.state.lock().unwrap().redelivered.clone();
    redelivered.sort_unstable();
    assert_eq!(
        redelivered,
        vec![11, 17, 18, 23],
        "only the newest attempt of each delivery of the last three days that never got a 2xx \
         and failed for a reason another try could mend (an environment gate's request as well: \
         its job would wait 30 days)"
    );
}
