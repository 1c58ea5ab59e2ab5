//! The JSON shapes of the host's answers, pinned on the built binary: the keys of each answer,
//! in the order printed (the typed views of `host/src/view/`), and their values.

mod common;

use common::{Host, HOUR};
use serde_json::Value;

/// The top-level keys of one printed JSON object, in the order they appear in the text.
fn keys_in_order(line: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(line).unwrap();
    let mut keys: Vec<(usize, String)> = value
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let pair = format!("{}:{}", Value::String(k.clone()), v);
            let at = line
                .find(&pair)
                .unwrap_or_else(|| panic!("{pair} in {line}"));
            (at, k.clone())
        })
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

fn line_of(host: &Host, args: &[&str], code: i32) -> String {
    let out = host.run(args, "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {text}");
    text.trim_end().to_string()
}

const DEFERRAL: [&str; 32] = [
    "attempt_status",
    "attempts",
    "cause",
    "cost",
    "created_ms",
    "detail",
    "expected_start",
    "expected_start_ms",
    "fairness_key",
    "fence",
    "held",
    "html_url",
    "id",
    "launch",
    "lease_owner",
    "lease_until_ms",
    "max_reentries",
    "pool",
    "priority",
    "reason",
    "reentries",
    "resume_after",
    "resume_after_ms",
    "resume_by",
    "resume_by_ms",
    "retried_by",
    "retry_of",
    "run_id",
    "run_url",
    "state",
    "updated_ms",
    "will_expire",
];

#[test]
fn status_show_and_cancel_answer_their_pinned_shapes() {
    let host = Host::new();
    let (id, handle) = host.record("exec:/bin/true", 60_000, HOUR, &[]);
    let status = line_of(&host, &["status", "--json"], 0);
    assert_eq!(keys_in_order(&status), ["deferrals"]);
    let rows: Value = serde_json::from_str(&status).unwrap();
    let row = rows["deferrals"][0].to_string();
    assert_eq!(keys_in_order(&row), DEFERRAL);
    let row: Value = serde_json::from_str(&row).unwrap();
    assert_eq!(
        (&row["id"], &row["state"], &row["cause"], &row["attempts"]),
        (
            &Value::from(id.as_str()),
            &Value::from("deferred"),
            &Value::from("recorded"),
            &Value::from(0)
        )
    );
    let show = line_of(&host, &["show", "--json", &id], 0);
    let show: Value = serde_json::from_str(&show).unwrap();
    assert_eq!(keys_in_order(&show["deferral"].to_string()), DEFERRAL);

    let cancel = line_of(&host, &["cancel", &id, "--handle", &handle], 0);
    assert_eq!(keys_in_order(&cancel), ["cause", "id", "state"]);
    let again = line_of(&host, &["cancel", &id, "--handle", &handle], 0);
    assert_eq!(
        keys_in_order(&again),
        ["already_cancelled", "cause", "id", "message", "state"]
    );
}

#[test]
fn the_tick_report_and_a_launched_attempt_answer_their_pinned_shapes() {
    let host = Host::new();
    let (id, _) = host.record("exec:/bin/true", 0, HOUR, &[]);
    let tick = line_of(&host, &["tick"], 0);
    assert_eq!(
        keys_in_order(&tick),
        [
            "dry_run",
            "expired",
            "followed",
            "github",
            "held",
            "launched",
            "next",
            "rate_limit",
            "recovered",
            "skipped",
            "waiting"
        ]
    );
    let report: Value = serde_json::from_str(&tick).unwrap();
    let launched = report["launched"][0].to_string();
    assert_eq!(
        keys_in_order(&launched),
        ["attempt", "cause", "detail", "id", "pool", "state"]
    );
    assert_eq!(report["launched"][0]["id"], id.as_str());
    assert_eq!(report["launched"][0]["attempt"], 1);
}
