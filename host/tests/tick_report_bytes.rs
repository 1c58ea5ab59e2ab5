//! The bytes `tick` prints for the entries the follow step and `--rate-limit-pool` make, pinned
//! on the built binary against the GitHub stand-in: each `waiting` shape, and each
//! `rate_limit` shape (learned with a clamp, unlimited, an error, nothing learned). Deferral ids
//! are random, so each is replaced by `D1`, `D2`, ... before comparing.

mod common;

use common::github::{Origin, Script, Standin, DEFAULT_BRANCH, TARGET, WORKFLOW};
use common::github_cli::run_host;
use common::{Host, HOUR};
use serde_json::json;

/// `tick` (with `extra`), expected to succeed: its stdout line, each of `ids` replaced by `D1`,
/// `D2`, ... in that order.
fn tick_line(host: &Host, standin: &Standin, extra: &[&str], ids: &[&str]) -> String {
    let mut args = vec!["tick", "--http-timeout", "5s", "--pool-jitter", "0s"];
    args.extend_from_slice(extra);
    let (out, text) = run_host(host, standin, &args);
    assert!(out.status.success(), "{text}");
    let mut line = String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string();
    for (n, id) in ids.iter().enumerate() {
        line = line.replace(id, &["D", &(n + 1).to_string()].concat());
    }
    line
}

/// The text of member `key` in `line`, up to the member `next` that follows it.
fn member<'a>(line: &'a str, key: &str, next: &str) -> &'a str {
    let start = line.find(&["\"", key, "\":"].concat()).unwrap();
    let end = line.find(&[",\"", next, "\":"].concat()).unwrap();
    &line[start..end]
}

#[test]
fn each_waiting_shape_prints_its_pinned_bytes() {
    let standin = Standin::start();
    let host = Host::new();
    // D1: dispatched with its run's id, the run still in progress.
    let (d1, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        polls_in_progress: 1000,
        ..Script::default()
    });
    tick_line(&host, &standin, &[], &[]);
    // D2: a 204, no run titled for it yet.
    let (d2, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        answer_204: true,
        display_title: Some("not a resume".into()),
        polls_in_progress: 1000,
        ..Script::default()
    });
    tick_line(&host, &standin, &[], &[]);
    // D3: a 204, and two runs carry its attempt's exact title.
    let (d3, _) = host.record(TARGET, 0, HOUR, &[]);
    standin.script(Script {
        answer_204: true,
        display_title: Some("not a resume either".into()),
        polls_in_progress: 1000,
        ..Script::default()
    });
    tick_line(&host, &standin, &[], &[]);
    let origin = Origin {
        event: "workflow_dispatch",
        path: [".github/workflows/", WORKFLOW].concat(),
        head_branch: DEFAULT_BRANCH.into(),
        fork: false,
    };
    let title = ["Resume ", &d3, " #1"].concat();
    standin.completed_run(origin.clone(), &title);
    standin.completed_run(origin, &title);
    let line = tick_line(&host, &standin, &[], &[&d1, &d2, &d3]);
    let waiting = &line[line.find(r#""waiting":"#).unwrap()..];
    for entry in [
        r#"{"attempt":1,"id":"D1","run_id":1001,"why":"in_progress"}"#,
        r#"{"attempt":1,"id":"D2","why":"no run found yet"}"#,
        r#"{"attempt":1,"id":"D3","run_ids":[1005,1004],"why":"2 runs are titled \"Resume D3 #1\": none is taken"}"#,
    ] {
        assert!(waiting.contains(entry), "{entry} in {line}");
    }
}

/// Records a deferral of pool `pool`, due now; its id.
fn record_in(host: &Host, pool: &str) -> String {
    host.record("exec:/bin/true", 0, HOUR, &["--pool", pool]).0
}

#[test]
fn each_rate_limit_shape_prints_its_pinned_bytes() {
    let standin = Standin::start();
    let pool = ["--rate-limit-pool", "app"];
    let answers = [
        (
            200,
            json!({"resources": {
                "core": {"limit": 60, "used": 0, "remaining": 70, "reset": 5},
                "graphql": {"limit": 5000, "used": 0, "remaining": 4000, "reset": 5}}}),
            concat!(
                r#""rate_limit":{"clamped":["rest: remaining 70 above the limit 60, taken as 60","#,
                r#""rest: reset 1970-01-01T00:00:05.000Z already past when read","#,
                r#""graphql: reset 1970-01-01T00:00:05.000Z already past when read"],"#,
                r#""graphql":{"limit":5000,"remaining":4000,"reserve":500,"reset_ms":5000},"#,
                r#""learned":true,"pool":"app","#,
                r#""rest":{"limit":60,"remaining":70,"reserve":6,"reset_ms":5000}}"#
            ),
        ),
        (
            404,
            json!({"message": "Rate limiting is not enabled."}),
            concat!(
                r#""rate_limit":{"pool":"app","unlimited":true,"#,
                r#""why":"the server enforces no primary rate limit (404 Rate limiting is not enabled)"}"#
            ),
        ),
        (
            500,
            json!({"message": "boom"}),
            r#""rate_limit":{"error":{"code":"github-error","message":"HTTP 500: boom"},"learned":false,"pool":"app"}"#,
        ),
        (
            200,
            json!({"resources": {"search": {"limit": 30, "used": 0, "remaining": 30, "reset": 5}}}),
            concat!(
                r#""rate_limit":{"learned":false,"pool":"app","#,
                r#""why":"GET /rate_limit named neither a core nor a graphql bucket"}"#
            ),
        ),
    ];
    for (status, body, expected) in answers {
        let host = Host::new();
        record_in(&host, "app");
        standin.state.lock().unwrap().rate_limit_answer = Some((status, body));
        let line = tick_line(&host, &standin, &pool, &[]);
        assert_eq!(member(&line, "rate_limit", "recovered"), expected, "{line}");
    }
}
