//! A followed run's artifact teaches its deferral's pool: a resume run that defers again may
//! upload the CLI's whole resume line (its `deferredReceipt` is the new receipt); the host takes
//! the receipt from it and the pool learns the rate state the run saw.

mod common;

use common::github::{Script, Standin, TARGET};
use common::github_cli::{same_bindings, tick};
use common::{now, Host};
use serde_json::Value;

#[test]
fn a_followed_runs_resume_line_is_its_new_receipt_and_teaches_the_pool() {
    let host = Host::new();
    let standin = Standin::start();
    let out = host.expect(
        0,
        &["record", "--launch", TARGET, "--pool", "app-9", "-"],
        &common::github_cli::receipt(0, 'a', 'b'),
    );
    let id = out["id"].as_str().unwrap().to_string();
    let reset_s = now() / 1000 + 1800;
    let line = format!(
        r#"{{"status":"deferred","mode":"resume","code":"core-below-reserve","rest":{{"limit":5000,"remaining":17,"reserve":500,"plannedCost":120,"reset":{reset_s},"ok":false}},"graphql":null,"deferredReceipt":{}}}"#,
        same_bindings()
    );
    standin.script(Script {
        artifact: Some(line),
        conclusion: "failure",
        ..Script::default()
    });
    tick(&host, &standin);
    let followed = tick(&host, &standin);
    assert_eq!(
        followed.json["followed"][0]["state"], "deferred",
        "{}",
        followed.output
    );
    let status = host.status(&id);
    assert_eq!(
        status["cost"]["rest"], 120,
        "the run's line teaches its cost: {status}"
    );
    let pools = host.expect(0, &["status", "--pools", "--json"], "");
    let pool = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "app-9")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(pool["rest"]["remaining"], 17, "{pools}");
    assert_eq!(pool["rest"]["limit"], 5000, "{pools}");
}
