//! The tick report's bytes, pinned: one report holding each shape of entry the host types
//! (recovered, launched, skipped, held, followed, github), printed as `tick` prints it.

use super::*;
use crate::error::{HostError, HostErrorKind};
use crate::launch::launched::RunLinks;
use crate::launch::LaunchEnd;
use crate::ops::follow::followed::FollowEnd;
use deferral_core::lifecycle::State;

fn deferral(id: &str, state: State, cause: &str, detail: Option<&str>) -> Deferral {
    Deferral {
        id: id.into(),
        state,
        fence: 3,
        reentries: 2,
        max_reentries: 5,
        reason: "rest-reserve".into(),
        resume_after_ms: 1,
        resume_by_ms: 2,
        launch: "exec:/bin/true".into(),
        wakeup_digest: None,
        cancellation_digest: "c".into(),
        lease_owner: None,
        lease_until_ms: None,
        attempt_status: Some(AttemptStatus::DispatchUnknown),
        cause: cause.into(),
        detail: detail.map(str::to_string),
        receipt_seq: 1,
        created_ms: 1,
        updated_ms: 2,
    }
}

fn launched() -> Vec<Launched> {
    let held = |id: &str, run| {
        let end = LaunchEnd::Held {
            state: State::Resumable,
            attempt_status: AttemptStatus::Dispatched,
            detail: Some("HTTP 200".into()),
            run,
        };
        Launched::new(id, 1, end)
    };
    let conflict = HostError::new(HostErrorKind::Conflict, "changed meanwhile");
    let mut finished = Launched::new(
        "l1",
        2,
        LaunchEnd::Finished(deferral("l1", State::Complete, "exit-0", Some("exit 0"))),
    );
    finished.pool = Some("app".into());
    let given_back = LaunchEnd::GivenBack(deferral("l2", State::Deferred, "given-back", None));
    let mut planned = Launched::new(
        "l7",
        3,
        LaunchEnd::Planned {
            launch: "exec:/bin/true".into(),
        },
    );
    planned.pool = Some("app".into());
    vec![
        finished,
        Launched::new("l2", 2, given_back),
        held(
            "l3",
            Some(RunLinks {
                run_url: Some("https://api/runs/9".into()),
                html_url: None,
            }),
        ),
        held("l4", None),
        Launched::failed("l5", Some(4), conflict.clone()),
        Launched::failed("l6", None, conflict.at("$.x")),
        planned,
    ]
}

fn followed() -> Vec<Followed> {
    let after = deferral("f1", State::Blocked, "run-failure", Some("run failed"));
    let entry = |id: &str, end| Followed {
        id: id.into(),
        attempt: 2,
        run_id: 77,
        end,
    };
    vec![
        entry(
            "f1",
            FollowEnd::Written {
                conclusion: "failure".into(),
                after: Box::new(after),
            },
        ),
        entry("f2", FollowEnd::Skipped("recorded by another ticker")),
        entry(
            "f3",
            FollowEnd::Failed(HostError::new(HostErrorKind::Conflict, "lost")),
        ),
    ]
}

#[test]
fn every_typed_entry_prints_the_bytes_it_always_printed() {
    let report = TickReport {
        dry_run: false,
        expired: vec!["e1".into()],
        recovered: vec![
            Recovered::Done(Box::new(deferral("r1", State::Deferred, "recovered", None))),
            Recovered::Planned {
                id: "r2".into(),
                attempt_status: Some(AttemptStatus::Launching),
            },
            Recovered::Planned {
                id: "r3".into(),
                attempt_status: None,
            },
        ],
        launched: launched(),
        skipped: vec![Skipped::new("s1", "launch still running")],
        held: vec![
            Held {
                pool: "app".into(),
                why: Some("rest-reserve".into()),
                until_ms: Some(1_700_000_000_000),
                admitted: 1,
                ids: vec!["h1".into(), "h2".into()],
            },
            Held {
                pool: "other".into(),
                why: None,
                until_ms: None,
                admitted: 0,
                ids: vec!["h3".into()],
            },
        ],
        follow: Some(FollowReport {
            followed: followed(),
            waiting: Vec::new(),
            stopped: None,
            errors: Vec::new(),
        }),
        github: Some(GithubCalls {
            requests: 4,
            not_modified: 1,
            blob: 2,
            stopped: Some("quota".into()),
            unreachable: None,
            errors: Vec::new(),
        }),
        rate_limit: None,
    };
    let text = serde_json::to_string(&report.to_json()).unwrap();
    let expected = concat!(
        r#"{"dry_run":false,"expired":["e1"],"#,
        r#""followed":["#,
        r#"{"attempt":2,"cause":"run-failure","conclusion":"failure","detail":"run failed","id":"f1","run_id":77,"state":"blocked"},"#,
        r#"{"attempt":2,"id":"f2","run_id":77,"skipped":"recorded by another ticker"},"#,
        r#"{"attempt":2,"error":{"code":"conflict","message":"lost"},"id":"f3","run_id":77}],"#,
        r#""github":{"blob":2,"errors":[],"not_modified":1,"requests":4,"stopped":"quota","unreachable":null},"#,
        r#""held":["#,
        r#"{"admitted":1,"held":2,"ids":["h1","h2"],"pool":"app","until":"2023-11-14T22:13:20.000Z","until_ms":1700000000000,"why":"rest-reserve"},"#,
        r#"{"admitted":0,"held":1,"ids":["h3"],"pool":"other","until":null,"until_ms":null,"why":null}],"#,
        r#""launched":["#,
        r#"{"attempt":2,"cause":"exit-0","detail":"exit 0","id":"l1","pool":"app","state":"complete"},"#,
        r#"{"attempt":2,"cause":"given-back","detail":null,"id":"l2","reentries":2,"state":"deferred"},"#,
        r#"{"attempt":1,"attempt_status":"dispatched","detail":"HTTP 200","html_url":null,"id":"l3","run_url":"https://api/runs/9","state":"resumable"},"#,
        r#"{"attempt":1,"attempt_status":"dispatched","detail":"HTTP 200","id":"l4","state":"resumable"},"#,
        r#"{"attempt":4,"error":{"code":"conflict","message":"changed meanwhile"},"id":"l5"},"#,
        r#"{"error":{"code":"conflict","message":"changed meanwhile","path":"$.x"},"id":"l6"},"#,
        r#"{"attempt":3,"id":"l7","launch":"exec:/bin/true","pool":"app"}],"#,
        r#""rate_limit":null,"#,
        r#""recovered":["#,
        r#"{"attempt_status":"dispatch-unknown","cause":"recovered","id":"r1","state":"deferred"},"#,
        r#"{"attempt_status":"launching","id":"r2"},"#,
        r#"{"attempt_status":null,"id":"r3"}],"#,
        r#""skipped":[{"id":"s1","why":"launch still running"}],"#,
        r#""waiting":[]}"#,
    );
    assert_eq!(text, expected);
}

/// A follow error, as the follow step keeps it, read from its printed text.
#[test]
fn a_follow_error_prints_the_bytes_it_always_printed() {
    let text = r#"{"code":"github-error","message":"HTTP 500: boom","workflow":"o/r/resume.yml"}"#;
    let calls = GithubCalls {
        requests: 1,
        not_modified: 0,
        blob: 0,
        stopped: None,
        unreachable: Some("connection refused".into()),
        errors: vec![serde_json::from_str(text).unwrap()],
    };
    let report = TickReport {
        github: Some(calls),
        ..TickReport::default()
    };
    let printed = serde_json::to_string(&report.to_json()).unwrap();
    let expected = concat!(
        r#"{"dry_run":false,"expired":[],"followed":[],"#,
        r#""github":{"blob":0,"errors":[{"code":"github-error","message":"HTTP 500: boom","workflow":"o/r/resume.yml"}],"#,
        r#""not_modified":0,"requests":1,"stopped":null,"unreachable":"connection refused"},"#,
        r#""held":[],"launched":[],"rate_limit":null,"recovered":[],"skipped":[],"waiting":[]}"#,
    );
    assert_eq!(printed, expected);
}
